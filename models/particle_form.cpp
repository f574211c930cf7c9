#include "models/particle_form.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// A point on a body is its centre when it lies this close to it (m): an importer's joint origin
// less the centre of mass it was given as, round-off apart.
constexpr double kCentreTolerance = 1e-9;

bool singular(const Body& b) { return !b.is_static && !b.particle && !b.frame && !is_spd(b.inertia); }

Vec3 to_frame(const State& s, int body, const Vec3& world) {
  if (body == kWorld) return world;
  const BodyState& bs = s.bodies[static_cast<size_t>(body)];
  return bs.q.conjugate() * (world - bs.x);
}

Vec3 direction_to_frame(const State& s, int body, const Vec3& world) {
  return body == kWorld ? world : Vec3(s.bodies[static_cast<size_t>(body)].q.conjugate() * world);
}

Vec3 direction_to_world(const State& s, int body, const Vec3& local) {
  return body == kWorld ? local : Vec3(s.bodies[static_cast<size_t>(body)].q * local);
}

// A joint whose rows touch body p only at its centre, with p as the point (a ball or rod, or the
// point of a point-on-line or point-on-plane): its rows do not depend on p's orientation.
bool on_centre(const Joint& J, int p) {
  const JointParts parts = joint_parts(J.type);
  if (parts.rot != RotPart::None) return false;
  const bool p_is_b = J.b == p;
  const Vec3& r = p_is_b ? J.anchor_b : J.anchor_a;
  if (!(r.norm() <= kCentreTolerance)) return false;
  return parts.trans == TransPart::Point || parts.trans == TransPart::Rod || p_is_b;
}

struct Convert {
  Model& m;
  const State& s;  // m's initial state
  int p;           // the body made a particle

  std::string who() const { return fmt::format("'{}'", m.bodies[static_cast<size_t>(p)].name); }

  [[noreturn]] void refuse(const std::string& why) const {
    throw UnsupportedModel(fmt::format("{} has no particle form: {}", who(), why));
  }

  // the joint j of p (the one that depends on its orientation) as rows on p's centre; returns what
  // it became
  std::string replace(int j) {
    Joint& J = m.joints[static_cast<size_t>(j)];
    const std::string name = J.name, type = joint_type_name(J.type);
    for (const Motor& mo : m.motors)
      if (mo.joint == j) refuse(fmt::format("motor '{}' drives {} '{}'", mo.name, type, name));
    for (const Actuator& a : m.actuators)
      if (a.joint == j) refuse(fmt::format("actuator '{}' drives {} '{}'", a.name, type, name));
    for (const JointCoupling& c : m.couplings)
      if (c.a == j || c.b == j) refuse(fmt::format("coupling '{}' holds {} '{}'", c.name, type, name));
    if (J.limited()) refuse(fmt::format("{} '{}' has limits", type, name));
    if (J.damping != 0) refuse(fmt::format("{} '{}' has a damper", type, name));
    const bool p_is_b = J.b == p;
    const int o = p_is_b ? J.a : J.b;  // the other body
    const Vec3& r = p_is_b ? J.anchor_b : J.anchor_a;
    const Vec3 centre = s.bodies[static_cast<size_t>(p)].x;
    const Vec3 point = world_point(m, s, o, p_is_b ? J.anchor_a : J.anchor_b);  // the joint point, on o
    // the joint's axis in o's frame (given on side a; on side b through the bodies' orientations)
    const Vec3 axis_o = p_is_b ? J.axis_a : direction_to_frame(s, o, direction_to_world(s, p, J.axis_a));
    Joint row;  // the first row set, in j's place: side a is o, side b the centre of p
    row.a = o;
    row.b = p;
    row.name = name;
    const auto on_o = [&](const Vec3& world) { return to_frame(s, o, world); };
    switch (J.type) {
      case JointType::Ball: {
        row.type = JointType::Distance;
        row.anchor_a = on_o(point);
        row.length = (centre - point).norm();
        J = row;
        return fmt::format("ball '{}' as a rod", name);
      }
      case JointType::Fixed: {
        row.type = JointType::Ball;
        row.anchor_a = on_o(centre);
        J = row;
        return fmt::format("fixed joint '{}' as a ball", name);
      }
      case JointType::Slider: {
        row.type = JointType::PointOnLine;
        row.anchor_a = on_o(centre);
        row.axis_a = axis_o;
        J = row;
        return fmt::format("slider '{}' as a point-on-line", name);
      }
      case JointType::Hinge: {
        const Vec3 a = direction_to_world(s, o, axis_o).normalized();
        const Vec3 d = centre - point;
        const Vec3 foot = point + a * a.dot(d);  // the axis's point nearest the centre
        const double radius = (centre - foot).norm();
        row.anchor_a = on_o(foot);
        if (!(radius > kCentreTolerance)) {
          row.type = JointType::Ball;
          J = row;
          return fmt::format("hinge '{}' as a ball (the centre lies on its axis)", name);
        }
        // the circle of that radius about the axis: the centre's distances from the foot and from the
        // axis point one radius further along (two spheres centred on the axis meet in that circle,
        // their normals 45 degrees apart): rows every maximal-coordinate method has
        row.type = JointType::Distance;
        row.length = radius;
        Joint rod = row;
        rod.name = name + "/rod";
        const Vec3 along = foot + radius * a;
        rod.anchor_a = on_o(along);
        rod.length = (centre - along).norm();
        J = row;
        m.joints.push_back(rod);
        return fmt::format("hinge '{}' as two rods from its axis ('{}', '{}')", name, name, rod.name);
      }
      default: break;
    }
    refuse(fmt::format("its {} '{}' holds it {}", type, name,
                       r.norm() > kCentreTolerance ? fmt::format("at a point {:.3g} m off its centre", r.norm()) : "by its orientation"));
  }

  std::string run() {
    Body& b = m.bodies[static_cast<size_t>(p)];
    const double largest = b.inertia.cwiseAbs().maxCoeff();
    if (!(largest <= kPointMassInertia * b.mass))
      refuse(fmt::format("its inertia is singular but not 0 (moments {:.3g}, {:.3g}, {:.3g} kg m^2: a thin rod or plate has no "
                         "rotation-free form)",
                         b.inertia(0, 0), b.inertia(1, 1), b.inertia(2, 2)));
    int held = -1;  // the joint that depends on p's orientation
    const size_t njoints = m.joints.size();
    for (size_t j = 0; j < njoints; ++j) {
      const Joint& J = m.joints[j];
      if (J.a != p && J.b != p) continue;
      if (on_centre(J, p)) continue;
      if (held >= 0)
        refuse(fmt::format("joints '{}' and '{}' both depend on its orientation", m.joints[static_cast<size_t>(held)].name, J.name));
      held = static_cast<int>(j);
    }
    for (const Shape& sh : m.shapes)
      if (sh.body == p && !(sh.type == ShapeType::Sphere && sh.position.norm() <= kCentreTolerance))
        refuse(fmt::format("its shape '{}' is not a sphere about its centre", sh.name));
    for (const Spring& sp : m.springs)
      if ((sp.a == p && !(sp.anchor_a.norm() <= kCentreTolerance)) || (sp.b == p && !(sp.anchor_b.norm() <= kCentreTolerance)))
        refuse(fmt::format("spring '{}' holds it off its centre", sp.name));
    for (const AppliedLoad& l : m.loads)
      if (l.body == p && l.torque != Vec3::Zero()) refuse("a torque is applied to it");
    for (const Rolling& r : m.rolling)
      if (r.body == p) refuse(fmt::format("it is the wheel of rolling '{}'", r.name));
    std::string what = held >= 0 ? replace(held) : "its joints hold its centre only";
    // every joint now holds p at its centre
    for (Joint& J : m.joints) {
      if (J.a == p) J.anchor_a = Vec3::Zero();
      if (J.b == p) J.anchor_b = Vec3::Zero();
    }
    for (Shape& sh : m.shapes)
      if (sh.body == p) sh.position = Vec3::Zero();
    for (Spring& sp : m.springs) {
      if (sp.a == p) sp.anchor_a = Vec3::Zero();
      if (sp.b == p) sp.anchor_b = Vec3::Zero();
    }
    b.particle = true;
    b.inertia = Mat3::Zero();
    b.orientation = Quat::Identity();
    b.angular_velocity = Vec3::Zero();
    return fmt::format("{} (inertia 0) as a particle: {}", who(), what);
  }
};

}  // namespace

bool has_singular_inertia(const Model& m) {
  for (const Body& b : m.bodies)
    if (singular(b)) return true;
  return false;
}

ParticleForm particle_form(const Model& m) {
  ParticleForm f{m, {}};
  for (size_t k = 0; k < m.bodies.size(); ++k)
    if (singular(m.bodies[k])) {
      const State s = initial_state(f.model);  // with the particles made so far
      f.changes.push_back(Convert{f.model, s, static_cast<int>(k)}.run());
    }
  return f;
}

}  // namespace mb
