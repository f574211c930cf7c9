// mujoco: the MJCF text of a model (mujoco_mjcf.hpp): its joint tree as nested MuJoCo bodies, the
// joints that close loops and the motors as equality constraints, the shapes as geoms colliding
// in explicit pairs (or the file's own contact model).
#include "methods/peers/mujoco_mjcf.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// from this many bodies the MJCF sets the stack size (mjcf(), "<size nstack>")
constexpr size_t kLargeTree = 2048;

std::string num(double x) { return fmt::format("{:.17g}", x); }
std::string vec(const Vec3& v) { return fmt::format("{} {} {}", num(v.x()), num(v.y()), num(v.z())); }
template <size_t N>
std::string nums(const std::array<double, N>& a) {
  std::string s;
  for (size_t i = 0; i < N; ++i) {
    if (i) s += ' ';
    s += num(a[i]);
  }
  return s;
}
std::string quat(const Quat& q) { return fmt::format("{} {} {} {}", num(q.w()), num(q.x()), num(q.y()), num(q.z())); }

// the writer of one model's MJCF: the method's options and the bodies' frames in, the text and
// what the method keeps of it (chain_body_, zeta_, motors_) out
struct Writer {
  using Frame = PeerFrame;

  std::string mjcf(const Model& model, const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    const size_t n = model.bodies.size();
    std::vector<std::vector<int>> children(n + 1);
    for (int i : tree.order) {
      const int p = tree.parent[static_cast<size_t>(i)];
      children[p == kWorld ? n : static_cast<size_t>(p)].push_back(i);
    }
    std::string x = "<mujoco model=\"mbbench\">\n<compiler angle=\"radian\" inertiafromgeom=\"false\"/>\n";
    const MjcfContacts& fc = model.mjcf_contacts;
    const int iterations = file_contacts_ && !iterations_given_ ? fc.iterations : iterations_;
    x += fmt::format("<option timestep=\"0.001\" gravity=\"{}\" integrator=\"{}\" iterations=\"{}\"", vec(model.gravity), rk4_ ? "RK4" : "Euler",
                     iterations);
    if (file_contacts_) {  // the file's solver and contact options
      x += fmt::format(" cone=\"{}\" solver=\"{}\" collision=\"{}\" impratio=\"{}\" tolerance=\"{}\" noslip_iterations=\"{}\" "
                       "noslip_tolerance=\"{}\" mpr_iterations=\"{}\" mpr_tolerance=\"{}\" o_margin=\"{}\" o_solref=\"{}\" o_solimp=\"{}\">\n"
                       "<flag filterparent=\"{}\" override=\"{}\"/>\n</option>\n",
                       fc.cone, fc.solver, fc.collision, num(fc.impratio), num(fc.tolerance), fc.noslip_iterations, num(fc.noslip_tolerance),
                       fc.mpr_iterations, num(fc.mpr_tolerance), num(fc.o_margin), nums(fc.o_solref), nums(fc.o_solimp),
                       fc.filterparent ? "enable" : "disable", fc.overrides ? "enable" : "disable");
    } else {  // with contacts, the elliptic friction cone (Coulomb's; MuJoCo's default is a pyramid)
      x += model.shapes.empty() ? "/>\n" : " cone=\"elliptic\"/>\n";
    }
    // MuJoCo 2.2's default stack (mjData's arena for temporaries) overflows while compiling a tree
    // of 8191 bodies ("Stack overflow"): its temporaries grow as nv^2. From 2048 bodies on the
    // stack is 2 n^2 numbers (8191: 1.07e9 bytes reserved, about 0.44 GB touched); smaller models
    // keep MuJoCo's default. Measured: docs/peers.md. contacts=file: the file's buffers, so that
    // as many contacts fit as in the file (MuJoCo drops the ones past nconmax).
    const long nstack = std::max(n >= kLargeTree ? static_cast<long>(2 * n * n) : -1L, file_contacts_ ? static_cast<long>(fc.nstack) : -1L);
    if (nstack > 0 || file_contacts_) {
      x += "<size";
      if (nstack > 0) x += fmt::format(" nstack=\"{}\"", nstack);
      if (file_contacts_) x += fmt::format(" nconmax=\"{}\" njmax=\"{}\"", fc.nconmax, fc.njmax);
      x += "/>\n";
    }
    // the joints that close loops: MuJoCo's equality constraints (soft, with its default solref
    // and solimp: docs/peers.md); a site on each body for a rod's tendon
    const Loops loops = loop_closures(model, joints, tree);
    const Geoms geoms = contact_geoms(model, state);
    zeta_ = geoms.zeta;
    if (!geoms.meshes.empty()) x += "<asset>\n" + geoms.meshes + "</asset>\n";
    x += "<worldbody>\n";
    for (const std::string& site : loops.sites[n]) x += site;
    for (const std::string& g : geoms.geoms[n]) x += g;
    // the joint of body u (to its tree parent) as MuJoCo joints of the MuJoCo body framed at f
    // a joint damper: MuJoCo's joint damping, the force -damping qvel in the joint's one dof
    // and its limits: MuJoCo's range of the joint's coordinate (the child's turn or slide relative
    // to the parent, 0 at the start: peer_limits); an open end far away (MuJoCo's range is finite)
    auto damping = [&](const PeerJoint& j, bool flip) {
      const Joint& J = model.joints[static_cast<size_t>(j.index)];
      std::string out = J.damping > 0 ? fmt::format(" damping=\"{}\"", num(J.damping)) : std::string();
      if (J.limited()) {
        const auto [lo, hi] = peer_limits(J, peer_coordinate_sign(j, flip));
        out += fmt::format(" limited=\"true\" range=\"{} {}\"", num(std::isfinite(lo) ? lo : -1e10), num(std::isfinite(hi) ? hi : 1e10));
      }
      return out;
    };
    auto joint_xml = [&](int i, const Frame& f) {
      const size_t u = static_cast<size_t>(i);
      const Frame& own = frames_[u];
      const Quat fq = f.q.conjugate();  // world -> frame
      const int jk = tree.joint[u];
      if (jk < 0) {
        x += fmt::format("<freejoint name=\"j{}\"/>\n", i);
        return;
      }
      const PeerJoint& j = joints[static_cast<size_t>(jk)];
      const bool flip = tree.flip[u];
      const Vec3 at = fq * ((flip ? j.anchor_a : j.anchor_b) - f.origin);
      const Vec3 ax_parent = fq * (flip ? j.axis_b : j.axis_a), ax_child = fq * (flip ? j.axis_a : j.axis_b);
      switch (j.type) {
        case JointType::Ball: x += fmt::format("<joint name=\"j{}\" type=\"ball\" pos=\"{}\"/>\n", i, vec(at)); break;
        case JointType::Hinge:
          x += fmt::format("<joint name=\"j{}\" type=\"hinge\" pos=\"{}\" axis=\"{}\"{}/>\n", i, vec(at), vec(ax_parent), damping(j, flip));
          break;
        case JointType::Slider:
          x += fmt::format("<joint name=\"j{}\" type=\"slide\" pos=\"{}\" axis=\"{}\"{}/>\n", i, vec(at), vec(fq * j.axis_a), damping(j, flip));
          break;
        case JointType::Cardan:
          x += fmt::format("<joint name=\"j{}\" type=\"hinge\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(ax_parent));
          x += fmt::format("<joint name=\"j{}b\" type=\"hinge\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(ax_child));
          break;
        case JointType::Planar: {
          // two slides fixed in the parent, along the plane's basis (world: mujoco.cpp reads the
          // rates along the same), then the hinge about the normal
          const auto P = orthogonal_basis(flip ? j.axis_b : j.axis_a);
          x += fmt::format("<joint name=\"j{}\" type=\"slide\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(fq * Vec3(P.row(0).transpose())));
          x += fmt::format("<joint name=\"j{}b\" type=\"slide\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(fq * Vec3(P.row(1).transpose())));
          x += fmt::format("<joint name=\"j{}c\" type=\"hinge\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(ax_parent));
          break;
        }
        case JointType::Cylindrical:
          x += fmt::format("<joint name=\"j{}\" type=\"hinge\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(ax_parent));
          x += fmt::format("<joint name=\"j{}b\" type=\"slide\" pos=\"{}\" axis=\"{}\"/>\n", i, vec(at), vec(ax_parent));
          break;
        case JointType::Distance:
          x += fmt::format("<joint name=\"j{}\" type=\"hinge\" pos=\"0 0 0\" axis=\"{}\"/>\n", i, vec(fq * own.u1));
          x += fmt::format("<joint name=\"j{}b\" type=\"hinge\" pos=\"0 0 0\" axis=\"{}\"/>\n", i, vec(fq * own.u2));
          break;
        default: break;  // fixed: welded
      }
    };
    // depth first, each body's frame relative to its parent's. A massless frame is no MuJoCo body
    // (MuJoCo refuses a moving body without mass): its joint goes to its one child, and so on down
    // the chain, so the first massive body holds the chain's joints in order, as MuJoCo composes
    // a body's joints (each about its axis as the joints before it turned it).
    auto body = [&](auto&& self, int i, const Frame* parent, std::vector<int> chain) -> void {
      const size_t u = static_cast<size_t>(i);
      const Body& b = model.bodies[u];
      if (b.frame) {
        if (children[u].size() != 1 || !loops.sites[u].empty() || !geoms.geoms[u].empty() || tree.joint[u] < 0 ||
            (joints[static_cast<size_t>(tree.joint[u])].type != JointType::Hinge &&
             joints[static_cast<size_t>(tree.joint[u])].type != JointType::Slider))
          throw UnsupportedModel(fmt::format("mujoco: massless frame '{}' is mapped only between a hinge or slider and one child "
                                             "body, without shapes or loops (MuJoCo's bodies need a mass)", b.name));
        chain.push_back(i);
        self(self, children[u].front(), parent, std::move(chain));
        return;
      }
      const Frame& f = frames_[u];
      const Quat pq = parent ? parent->q : Quat::Identity();
      const Vec3 po = parent ? parent->origin : Vec3::Zero();
      const Quat rq = pq.conjugate() * f.q;
      x += fmt::format("<body name=\"b{}\" pos=\"{}\" quat=\"{}\">\n", i, vec(pq.conjugate() * (f.origin - po)), quat(rq));
      if (b.particle) {
        const double ip = point_inertia_ * b.mass;
        x += fmt::format("<inertial pos=\"{}\" mass=\"{}\" diaginertia=\"{} {} {}\"/>\n", vec(f.q.conjugate() * f.com), num(b.mass), num(ip),
                         num(ip), num(ip));
      } else {
        // a singular inertia (a point mass, a thin rod) as a particle's: plus point_inertia x mass
        const Mat3 I = is_spd(b.inertia) ? b.inertia : Mat3(b.inertia + Mat3::Identity() * point_inertia_ * b.mass);
        // principal axes (a diagonal I) as diaginertia: MuJoCo's inertial frame is then the body's
        // exactly, where fullinertia's eigendecomposition may turn it by round-off, and a body that
        // MuJoCo can treat as simple (a diagonal mass matrix block) is
        if (I(0, 1) == 0 && I(0, 2) == 0 && I(1, 2) == 0)
          x += fmt::format("<inertial pos=\"0 0 0\" mass=\"{}\" diaginertia=\"{} {} {}\"/>\n", num(b.mass), num(I(0, 0)), num(I(1, 1)),
                           num(I(2, 2)));
        else
          x += fmt::format("<inertial pos=\"0 0 0\" mass=\"{}\" fullinertia=\"{} {} {} {} {} {}\"/>\n", num(b.mass), num(I(0, 0)),
                           num(I(1, 1)), num(I(2, 2)), num(I(0, 1)), num(I(0, 2)), num(I(1, 2)));
      }
      for (int c : chain) {
        joint_xml(c, f);
        chain_body_[static_cast<size_t>(c)] = i;
      }
      joint_xml(i, f);
      for (const std::string& site : loops.sites[u]) x += site;
      for (const std::string& g : geoms.geoms[u]) x += g;
      for (int c : children[u]) self(self, c, &f, {});
      x += "</body>\n";
    };
    chain_body_.assign(n, -1);
    for (int r : children[n]) body(body, r, nullptr, {});
    x += "</worldbody>\n";
    if (!loops.tendons.empty()) x += "<tendon>\n" + loops.tendons + "</tendon>\n";
    if (!geoms.pairs.empty()) x += "<contact>\n" + geoms.pairs + "</contact>\n";
    if (!loops.equalities.empty()) x += fmt::format("<default><equality solref=\"{} 1\"/></default>\n", num(eq_timeconst_));
    const std::string motors = motor_equalities(model, joints, tree) + coupling_equalities(model, joints, tree);
    if (!loops.equalities.empty() || !motors.empty()) x += "<equality>\n" + loops.equalities + motors + "</equality>\n";
    x += "</mujoco>\n";
    return x;
  }

  // The MJCF of the joints that close loops. MuJoCo's equality constraints hold a point of body1 (its
  // anchor, in body1's frame) on the point of body2 where it was at the initial configuration
  // (connect), or their relative pose (weld), or a tendon at its initial length; so: a ball joint is
  // a connect at its anchor, a hinge two connects (at its anchor and one metre along its axis: the
  // second also holds the axis), a fixed joint a weld, and a rod a spatial tendon between sites at
  // its two anchors held at its initial length. A cardan, slider, planar or cylindrical joint
  // closing a loop has no such form and is refused.
  struct Loops {
    std::vector<std::vector<std::string>> sites;  // (nbody + 1: the world last) site elements
    std::string tendons, equalities;
  };
  Loops loop_closures(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) const {
    const size_t n = model.bodies.size();
    Loops l;
    l.sites.resize(n + 1);
    auto name = [](int b) { return fmt::format("b{}", b); };
    // a world point in body b's frame (the world: itself)
    auto local = [&](int b, const Vec3& p) -> Vec3 {
      if (b == kWorld) return p;
      const Frame& f = frames_[static_cast<size_t>(b)];
      return f.q.conjugate() * (p - f.origin);
    };
    for (int k : tree.closing) {
      const PeerJoint& j = joints[static_cast<size_t>(k)];
      const std::string& jname = model.joints[static_cast<size_t>(j.index)].name;
      if (model.joints[static_cast<size_t>(j.index)].damping > 0)
        throw UnsupportedModel(fmt::format("mujoco: the damped joint '{}' closes a loop; MuJoCo's equality constraints have no damper", jname));
      if (model.joints[static_cast<size_t>(j.index)].limited())
        throw UnsupportedModel(fmt::format("mujoco: the limited joint '{}' closes a loop; MuJoCo's equality constraints have no limits", jname));
      // body1 must be a body: the world, if a joint has it, goes second (an omitted body2)
      const bool swap = j.a == kWorld;
      const int b1 = swap ? j.b : j.a, b2 = swap ? j.a : j.b;
      const std::string body2 = b2 == kWorld ? "" : fmt::format(" body2=\"{}\"", name(b2));
      auto connect = [&](const Vec3& p) {
        l.equalities += fmt::format("<connect body1=\"{}\"{} anchor=\"{}\"/>\n", name(b1), body2, vec(local(b1, p)));
      };
      switch (j.type) {
        case JointType::Ball:
        case JointType::Hinge:
          for (const Vec3& p : closure_points(j)) connect(p);
          break;
        case JointType::Fixed: l.equalities += fmt::format("<weld body1=\"{}\"{}/>\n", name(b1), body2); break;
        case JointType::Distance: {
          for (int side = 0; side < 2; ++side) {
            const int b = side == 0 ? j.a : j.b;
            l.sites[b == kWorld ? n : static_cast<size_t>(b)].push_back(
                fmt::format("<site name=\"loop{}{}\" pos=\"{}\"/>\n", k, side ? "b" : "a", vec(local(b, side == 0 ? j.anchor_a : j.anchor_b))));
          }
          l.tendons += fmt::format("<spatial name=\"loop{}\"><site site=\"loop{}a\"/><site site=\"loop{}b\"/></spatial>\n", k, k, k);
          l.equalities += fmt::format("<tendon tendon1=\"loop{}\"/>\n", k);
          break;
        }
        default:
          throw UnsupportedModel(fmt::format("mujoco: joint '{}' ({}) closes a loop; MuJoCo's equality constraints (connect, weld, "
                                             "tendon) cannot express it", jname, joint_type_name(j.type)));
      }
    }
    return l;
  }

  std::string motor_equalities(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    motors_.clear();
    std::string x;
    for (size_t mi = 0; mi < model.motors.size(); ++mi) {
      const Motor& mo = model.motors[mi];
      const std::string& jname = model.joints[static_cast<size_t>(mo.joint)].name;
      if (mo.limited())
        throw UnsupportedModel(fmt::format("mujoco: motor '{}' has a force bound; it is an equality constraint here, and MuJoCo's "
                                           "equality constraints have no force limit",
                                           mo.name));
      const int child = tree_child_of_joint(joints, tree, mo.joint);
      if (child < 0)
        throw UnsupportedModel(fmt::format("mujoco: motor '{}' drives joint '{}', which closes a loop; a MuJoCo joint equality needs "
                                           "a joint of the tree",
                                           mo.name, jname));
      const size_t u = static_cast<size_t>(child);
      const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
      // MuJoCo's joint coordinate turns (moves) the child relative to its parent about (along) the
      // axis it was written with; ours b relative to a about (along) axis_a
      const double sign = peer_coordinate_sign(j, tree.flip[u]);
      x += fmt::format("<joint name=\"motor{}\" joint1=\"j{}\" polycoef=\"0 0 0 0 0\" solref=\"{} 1\" solimp=\"{} {} 0.001 0.5 2\"/>\n", mi,
                       child, num(eq_timeconst_), num(kMujocoMotorImpedance), num(kMujocoMotorImpedance));
      motors_.push_back({static_cast<int>(mi), -1, sign, 0});
    }
    return x;
  }

  // The couplings as MuJoCo joint equalities, joint1 = polycoef[1] joint2 (both from qpos0, the
  // initial state, where the coupling holds: polycoef[0] = 0), soft as the motors' (solref
  // eq_timeconst, impedance kMujocoMotorImpedance), MuJoCo's coordinates signed as ours
  std::string coupling_equalities(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    std::string x;
    for (size_t ci = 0; ci < model.couplings.size(); ++ci) {
      const JointCoupling& c = model.couplings[ci];
      int child[2];
      double sign[2];
      for (int side = 0; side < 2; ++side) {
        const int k = side == 0 ? c.a : c.b;
        child[side] = tree_child_of_joint(joints, tree, k);
        if (child[side] < 0)
          throw UnsupportedModel(fmt::format("mujoco: coupling '{}' joins joint '{}', which closes a loop; a MuJoCo joint equality needs "
                                             "a joint of the tree", c.name, model.joints[static_cast<size_t>(k)].name));
        const size_t u = static_cast<size_t>(child[side]);
        sign[side] = peer_coordinate_sign(joints[static_cast<size_t>(tree.joint[u])], tree.flip[u]);
      }
      x += fmt::format("<joint name=\"coupling{}\" joint1=\"j{}\" joint2=\"j{}\" polycoef=\"0 {} 0 0 0\" solref=\"{} 1\" solimp=\"{} {} 0.001 0.5 2\"/>\n",
                       ci, child[0], child[1], num(sign[0] * c.multiplier * sign[1]), num(eq_timeconst_), num(kMujocoMotorImpedance),
                       num(kMujocoMotorImpedance));
    }
    return x;
  }

  // The model's shapes as MuJoCo geoms (in their body's frame; the world's and static bodies' in the
  // worldbody) that collide only in explicit pairs: every pair of shapes our detector tests
  // (ShapePairRule), with the pair's Coulomb coefficient (mu_dynamic; condim 3, MuJoCo's single
  // coefficient) and its restitution e as the damping of MuJoCo's soft contact: a spring of
  // natural frequency w0 = 1 / contact_timeconst with the damping ratio whose rebound is e,
  // zeta = -ln e / sqrt(pi^2 + ln^2 e) (MuJoCo's solref "-k -b", k = w0^2, b = 2 zeta w0; at e = 0
  // it is MuJoCo's default solref "tc 1"; the spring stays the same whatever e, so the contact lasts
  // about pi tc). A half-space is a plane (its normal the shape's y, a plane's z); capsules and
  // cylinders lie along z in both. A convex shape is a mesh asset of its vertices and faces: MuJoCo
  // moves a mesh's vertices to its centroid and principal axes and the geom's frame by as much, so
  // the geom stays where its shape is.
  struct Geoms {
    std::vector<std::vector<std::string>> geoms;  // (nbody + 1: the world last)
    std::string meshes;                           // the <asset> meshes of the convex shapes
    std::string pairs;
    std::vector<double> zeta;  // per pair: the damping ratio of its restitution
  };

  Geoms contact_geoms(const Model& model, const State& state) const {
    const size_t n = model.bodies.size();
    Geoms g;
    g.geoms.resize(n + 1);
    const Quat y_to_z(Eigen::AngleAxisd(-M_PI / 2, Vec3::UnitX()));  // takes z to y
    for (size_t k = 0; k < model.shapes.size(); ++k) {
      const Shape& sh = model.shapes[k];
      const bool fixed = sh.body == kWorld || model.bodies[static_cast<size_t>(sh.body)].is_static;
      // the shape's world pose at the initial state, then in its MuJoCo body's frame
      const ShapePose w = shape_pose(sh, state);
      Vec3 p = w.position;
      Quat q = w.orientation;
      if (!fixed) {
        const Frame& f = frames_[static_cast<size_t>(sh.body)];
        p = f.q.conjugate() * (p - f.origin);
        q = f.q.conjugate() * q;
      }
      std::string type, size;
      switch (sh.type) {
        case ShapeType::Sphere: type = "sphere", size = num(sh.radius); break;
        case ShapeType::Box: type = "box", size = vec(sh.half_extents); break;
        case ShapeType::Capsule: type = "capsule", size = fmt::format("{} {}", num(sh.radius), num(sh.length / 2)); break;
        case ShapeType::Cylinder: type = "cylinder", size = fmt::format("{} {}", num(sh.radius), num(sh.length / 2)); break;
        case ShapeType::Ellipsoid: type = "ellipsoid", size = vec(sh.half_extents); break;
        case ShapeType::HalfSpace: type = "plane", size = "0 0 1", q = q * y_to_z; break;
        case ShapeType::Convex: {
          std::string v, f;
          for (const Vec3& p : sh.vertices) v += fmt::format("{}{}", v.empty() ? "" : " ", vec(p));
          for (const auto& t : sh.faces) f += fmt::format("{}{} {} {}", f.empty() ? "" : " ", t[0], t[1], t[2]);
          g.meshes += fmt::format("<mesh name=\"m{}\" vertex=\"{}\" face=\"{}\"/>\n", k, v, f);
          type = fmt::format("mesh\" mesh=\"m{}", k), size = "0 0 0";
          break;
        }
      }
      g.geoms[fixed ? n : static_cast<size_t>(sh.body)].push_back(fmt::format("<geom name=\"g{}\" type=\"{}\" size=\"{}\" pos=\"{}\" quat=\"{}\" {}/>\n", k,
                                                                              type, size, vec(p), quat(q), file_contacts_ ? file_geom(model.mjcf_contacts.shapes[k]) : "contype=\"0\" conaffinity=\"0\""));
    }
    if (file_contacts_) {
      g.pairs = file_pairs(model);
      return g;
    }
    const ShapePairRule rule(model);
    for (size_t i = 0; i < model.shapes.size(); ++i)
      for (size_t j = i + 1; j < model.shapes.size(); ++j) {
        const Shape& a = model.shapes[i];
        const Shape& b = model.shapes[j];
        if (!rule.tested(model, a.body, b.body)) continue;
        const Material mat = contact_material(model.materials, model.material_pairs, a.material, b.material);
        const double e = std::clamp(mat.restitution, 0.0, 1.0);
        const double zeta = e <= 0 ? 1.0 : -std::log(e) / std::sqrt(M_PI * M_PI + std::log(e) * std::log(e));
        // solref "-k -b" (the spring and damper per unit of the contact's effective mass), set per
        // step by contact_solref() from the time constant and h
        g.zeta.push_back(zeta);
        g.pairs += fmt::format("<pair geom1=\"g{}\" geom2=\"g{}\" condim=\"3\" friction=\"{} {} 0 0 0\"/>\n", i, j,
                               num(mat.mu_dynamic), num(mat.mu_dynamic));
      }
    return g;
  }

  // contacts=file: a geom's own contact attributes, the file's pairs and exclusions (the world and
  // our bodies as the MuJoCo bodies written here, which are the file's: frames=light is refused)
  static std::string file_geom(const MjcfGeomContact& c) {
    return fmt::format("contype=\"{}\" conaffinity=\"{}\" condim=\"{}\" priority=\"{}\" friction=\"{}\" solref=\"{}\" solimp=\"{}\" "
                       "solmix=\"{}\" margin=\"{}\" gap=\"{}\"",
                       c.contype, c.conaffinity, c.condim, c.priority, nums(c.friction), nums(c.solref), nums(c.solimp), num(c.solmix),
                       num(c.margin), num(c.gap));
  }
  static std::string file_pairs(const Model& model) {
    std::string x;
    for (const MjcfContactPair& p : model.mjcf_contacts.pairs)
      x += fmt::format("<pair geom1=\"g{}\" geom2=\"g{}\" condim=\"{}\" friction=\"{}\" solref=\"{}\" solimp=\"{}\" margin=\"{}\" gap=\"{}\"/>\n",
                       p.shape1, p.shape2, p.condim, nums(p.friction), nums(p.solref), nums(p.solimp), num(p.margin), num(p.gap));
    auto body = [&](int b) {
      return b == kWorld || model.bodies[static_cast<size_t>(b)].is_static ? std::string("world") : fmt::format("b{}", b);
    };
    for (const auto& [a, b] : model.mjcf_contacts.excludes)
      if (body(a) != body(b)) x += fmt::format("<exclude body1=\"{}\" body2=\"{}\"/>\n", body(a), body(b));
    return x;
  }

  bool rk4_;
  int iterations_;
  bool iterations_given_;
  bool file_contacts_;
  double point_inertia_;
  double eq_timeconst_;
  const std::vector<Frame>& frames_;  // (nbody)
  std::vector<int> chain_body_;
  std::vector<double> zeta_;
  std::vector<MujocoMotor> motors_;
};

}  // namespace

MujocoMjcf mujoco_mjcf(const Model& model, const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree,
                       const std::vector<PeerFrame>& frames, const MujocoMjcfOptions& o) {
  Writer w{o.rk4, o.iterations, o.iterations_given, o.file_contacts, o.point_inertia, o.eq_timeconst, frames, {}, {}, {}};
  MujocoMjcf out;
  out.xml = w.mjcf(model, state, joints, tree);
  out.chain_body = std::move(w.chain_body_);
  out.zeta = std::move(w.zeta_);
  out.motors = std::move(w.motors_);
  return out;
}

}  // namespace mb
