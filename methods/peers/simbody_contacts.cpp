// simbody: Simbody's compliant contacts for a model's shapes (simbody_contacts.hpp).
#include "methods/peers/simbody_contacts.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/collision.hpp"

namespace mb::simbody_adapter {

namespace {

// A sphere (surface 1) against a box (Simbody's Brick, surface 2), which Simbody has no tracker
// for: the box's point nearest the sphere's centre gives the normal (from the sphere towards the
// box) and the depth r - distance; a centre inside the box is pushed out through the nearest face
// (depth r + that face's distance). The contact is a CircularPointContact of the sphere's radius
// on a flat (infinite radius), so Simbody's Hertz force of a sphere on a half-space acts on it,
// with the box's face in the half-space's place; at an edge or a corner the box's curvature is
// taken as flat too.
class SphereBrickTracker final : public SimTK::ContactTracker {
 public:
  SphereBrickTracker() : ContactTracker(SimTK::ContactGeometry::Sphere::classTypeId(), SimTK::ContactGeometry::Brick::classTypeId()) {}
  bool trackContact(const SimTK::Contact& prior, const SimTK::Transform& X_GS, const SimTK::ContactGeometry& sphere,
                    const SimTK::Transform& X_GB, const SimTK::ContactGeometry& brick, SimTK::Real cutoff,
                    SimTK::Contact& current) const override {
    const double r = SimTK::ContactGeometry::Sphere::getAs(sphere).getRadius();
    const SimTK::Vec3 h = SimTK::ContactGeometry::Brick::getAs(brick).getHalfLengths();
    const SimTK::Vec3 c = ~X_GB * X_GS.p();  // the sphere's centre in the box's frame
    SimTK::Vec3 nearest, n_B;                // n_B: from the box towards the centre
    double depth = 0;
    bool inside = true;
    for (int k = 0; k < 3; ++k) {
      nearest[k] = std::clamp(c[k], -h[k], h[k]);
      inside = inside && nearest[k] == c[k];
    }
    if (!inside) {
      const SimTK::Vec3 d = c - nearest;
      const double distance = d.norm();
      depth = r - distance;
      if (depth <= -cutoff) {
        current.clear();
        return true;
      }
      n_B = d / distance;
    } else {
      int face = 0;
      for (int k = 1; k < 3; ++k)
        if (h[k] - std::abs(c[k]) < h[face] - std::abs(c[face])) face = k;
      n_B = SimTK::Vec3(0);
      n_B[face] = c[face] < 0 ? -1 : 1;
      depth = r + h[face] - std::abs(c[face]);
    }
    const SimTK::UnitVec3 normal_S(~X_GS.R() * (X_GB.R() * -n_B), true);
    current = SimTK::CircularPointContact(prior.getSurface1(), r, prior.getSurface2(), SimTK::Infinity, ~X_GS * X_GB, r, depth,
                                          (r - depth / 2) * normal_S, normal_S);
    return true;
  }
};

// the mapping of one model's shapes: the method's contact options and its system in, the
// subsystems out
struct Mapping {
  using Frame = PeerFrame;

  void map_contacts(const Model& model, const State& state) {
    using G = SimTK::ContactGeometry;
    auto fixed = [&](const Shape& s) { return s.body == kWorld || model.bodies[static_cast<size_t>(s.body)].is_static; };
    auto dissipation = [&](double e) { return std::max(0.0, 1 - std::clamp(e, 0.0, 1.0)) / restitution_speed_; };
    auto mapped = [](ShapeType t) {  // the shapes with a Simbody contact geometry here
      return t == ShapeType::Sphere || t == ShapeType::Box || t == ShapeType::Ellipsoid || t == ShapeType::HalfSpace;
    };
    auto supported = [](ShapeType a, ShapeType b) {
      if (a == ShapeType::HalfSpace) std::swap(a, b);
      if (b == ShapeType::HalfSpace) return a == ShapeType::Sphere || a == ShapeType::Box || a == ShapeType::Ellipsoid;
      if (b == ShapeType::Sphere) std::swap(a, b);
      return a == ShapeType::Sphere && (b == ShapeType::Sphere || b == ShapeType::Box);
    };
    const size_t ns = model.shapes.size();
    const ShapePairRule rule(model);
    auto name = [&](size_t k) { return fmt::format("'{}' ({})", model.shapes[k].name, shape_type_name(model.shapes[k].type)); };
    std::vector<std::pair<size_t, size_t>> pairs;  // the tested pairs
    for (size_t i = 0; i < ns; ++i)
      for (size_t j = i + 1; j < ns; ++j) {
        const Shape &a = model.shapes[i], &b = model.shapes[j];
        if (!rule.tested(model, a.body, b.body)) continue;
        if (!supported(a.type, b.type))
          throw UnsupportedModel(fmt::format("simbody: no compliant contact force for the shape pair {} and {}: Simbody's cover a sphere "
                                             "on a sphere or a box and a sphere, box or ellipsoid on a half-space",
                                             name(i), name(j)));
        pairs.emplace_back(i, j);
      }
    // each surface's coefficients (dissipation, static and dynamic friction) by one of two rules,
    // the first whose combinations give every tested pair its coefficients: (own) every surface
    // its material's; (fixed set) fixed surfaces friction 1e30, a moving one meeting them half
    // the pair's (2 a b / (a + b) -> 2 b), the others their material's. Fixed surfaces are rigid.
    struct Coefficients {
      double c = 0, mu_static = 0, mu_dynamic = 0;
    };
    auto pair_values = [&](size_t i, size_t j) {
      const Material m = contact_material(model.materials, model.material_pairs, model.shapes[i].material, model.shapes[j].material);
      return Coefficients{dissipation(m.restitution), m.mu_static, m.mu_dynamic};
    };
    auto own_values = [&](size_t k) {
      const Material& m = model.materials[static_cast<size_t>(model.shapes[k].material)];
      return Coefficients{dissipation(m.restitution), m.mu_static, m.mu_dynamic};
    };
    auto check = [&](const std::vector<Coefficients>& x) -> std::string {  // "" or the first pair Simbody would combine otherwise
      auto harmonic = [](double a, double b) { return a + b == 0 ? 0.0 : 2 * a * b / (a + b); };
      auto near = [](double a, double b) { return std::abs(a - b) <= 1e-12 * std::max(1.0, std::abs(b)); };
      for (const auto& [i, j] : pairs) {
        const Coefficients want = pair_values(i, j);
        const bool fi = fixed(model.shapes[i]), fj = fixed(model.shapes[j]);
        const double c = fi ? x[j].c : fj ? x[i].c : (x[i].c + x[j].c) / 2;  // a rigid surface takes no share
        if (!near(c, want.c) || !near(harmonic(x[i].mu_static, x[j].mu_static), want.mu_static) ||
            !near(harmonic(x[i].mu_dynamic, x[j].mu_dynamic), want.mu_dynamic))
          return fmt::format("simbody: the contact coefficients of the shape pair {} and {} are not a combination of its surfaces' "
                             "materials Simbody can form (2 a b / (a + b) for friction)",
                             name(i), name(j));
      }
      return "";
    };
    std::vector<Coefficients> own(ns);
    for (size_t k = 0; k < ns; ++k) own[k] = own_values(k);
    std::string why = check(own);
    bool per_pair = false;
    if (!why.empty()) {
      std::vector<Coefficients> fixed_set(own);
      for (size_t k = 0; k < ns; ++k)
        if (fixed(model.shapes[k])) fixed_set[k] = {0, 1e30, 1e30};
      for (const auto& [i, j] : pairs)
        if (fixed(model.shapes[i]) != fixed(model.shapes[j])) {
          const Coefficients want = pair_values(i, j);
          fixed_set[fixed(model.shapes[i]) ? j : i] = {want.c, want.mu_static / 2, want.mu_dynamic / 2};
        }
      if (check(fixed_set).empty()) own = fixed_set;
      else per_pair = true;
    }
    tracker_ = std::make_unique<SimTK::ContactTrackerSubsystem>(*system_);
    tracker_->adoptContactTracker(new SphereBrickTracker);
    contact_forces_ = std::make_unique<SimTK::CompliantContactSubsystem>(*system_, *tracker_);
    contact_forces_->setTransitionVelocity(transition_velocity_);
    contact_forces_->adoptDefaultForceGenerator(new SimTK::ContactForceGenerator::ThrowError());
    auto geometry = [&](const Shape& sh) -> G {
      switch (sh.type) {
        case ShapeType::Sphere: return G::Sphere(sh.radius);
        case ShapeType::Box: return G::Brick(sv(sh.half_extents));
        case ShapeType::Ellipsoid: return G::Ellipsoid(sv(sh.half_extents));
        case ShapeType::HalfSpace: return G::HalfSpace();
        default: return G::Sphere(1);  // never in a tested pair (refused above): no surface is added
      }
    };
    auto surface = [&](size_t k, const Coefficients& c) {
      const SimTK::ContactMaterial material(fixed(model.shapes[k]) ? 1e30 : stiffness_, c.c, c.mu_static, c.mu_dynamic);
      return SimTK::ContactSurface(geometry(model.shapes[k]), material);
    };
    // the surfaces with the shape each stands for, each in its body's B frame (or Ground's)
    std::vector<std::pair<size_t, SimTK::ContactSurface>> surfaces;
    auto share_clique = [&](size_t a, size_t b) {
      const SimTK::ContactCliqueId clique = SimTK::ContactSurface::createNewContactClique();
      surfaces[a].second.joinClique(clique);
      surfaces[b].second.joinClique(clique);
    };
    if (!per_pair) {
      // a surface a shape, the bodies a joint joins (and a body's own shapes) in a clique
      for (size_t k = 0; k < ns; ++k) surfaces.emplace_back(k, surface(k, own[k]));
      for (size_t i = 0; i < ns; ++i)
        for (size_t j = i + 1; j < ns; ++j) {
          const Shape &a = model.shapes[i], &b = model.shapes[j];
          if (a.body == b.body || (fixed(a) && fixed(b)) || rule.tested(model, a.body, b.body)) continue;
          share_clique(i, j);
        }
    } else {
      // no coefficients of the surfaces give every pair its own: a surface for each shape of each
      // tested pair, both with the pair's coefficients (2 a a / (a + a) = a; the same dissipation
      // at the same stiffness, or the moving one's beside a rigid one), and a clique for every two
      // surfaces but a pair's own two, so that each meets its partner alone
      for (const auto& [i, j] : pairs) {
        const Coefficients want = pair_values(i, j);
        surfaces.emplace_back(i, surface(i, want));
        surfaces.emplace_back(j, surface(j, want));
      }
      for (size_t a = 0; a < surfaces.size(); ++a)
        for (size_t b = a + 1; b < surfaces.size(); ++b)
          if (!(a % 2 == 0 && b == a + 1)) share_clique(a, b);
    }
    // Simbody's half-space is x > 0 (its outward normal -x), ours below the plane normal to the
    // shape's y: the shape's frame turned -90 degrees about z
    const Quat halfspace(Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitZ()));
    for (const auto& [k, contact_surface] : surfaces) {
      const Shape& sh = model.shapes[k];
      if (!mapped(sh.type)) continue;
      const ShapePose w = shape_pose(sh, state);
      Vec3 p = w.position;
      Quat q = w.orientation;
      if (sh.type == ShapeType::HalfSpace) q = q * halfspace;
      if (fixed(sh)) {
        matter_->updGround().updBody().addContactSurface(SimTK::Transform(srot(q), sv(p)), contact_surface);
        continue;
      }
      const Frame& f = frames_[static_cast<size_t>(sh.body)];
      mobods_[static_cast<size_t>(sh.body)].updBody().addContactSurface(
          SimTK::Transform(srot(f.q.conjugate() * q), sv(f.q.conjugate() * (p - f.origin))), contact_surface);
    }
  }

  double stiffness_, restitution_speed_, transition_velocity_;
  SimTK::MultibodySystem* system_;
  SimTK::SimbodyMatterSubsystem* matter_;
  std::vector<SimTK::MobilizedBody>& mobods_;  // (nbody)
  const std::vector<Frame>& frames_;           // (nbody)
  std::unique_ptr<SimTK::ContactTrackerSubsystem> tracker_;
  std::unique_ptr<SimTK::CompliantContactSubsystem> contact_forces_;
};

}  // namespace

Contacts map_contacts(const Model& model, const State& state, SimTK::MultibodySystem& system, SimTK::SimbodyMatterSubsystem& matter,
                      std::vector<SimTK::MobilizedBody>& mobods, const std::vector<PeerFrame>& frames, const ContactOptions& options) {
  Mapping m{options.stiffness, options.restitution_speed, options.transition_velocity, &system, &matter, mobods, frames, {}, {}};
  m.map_contacts(model, state);
  return {std::move(m.tracker_), std::move(m.contact_forces_)};
}

}  // namespace mb::simbody_adapter
