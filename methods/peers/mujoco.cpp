// mujoco: MuJoCo (libmujoco-dev 2.2) as a method (docs/peers.md). Reduced coordinates: the
// model's joints as a tree of MuJoCo bodies (peer_tree), written as MJCF text and compiled through
// an in-memory virtual file (MuJoCo 2.2 has no model-building API; nothing touches the disk); a
// floating body gets a free joint, a ball/hinge/slider joint its MuJoCo joint at the child's anchor,
// a fixed joint welds the child, a cardan joint is two hinges, and a rod to a point mass two hinges
// perpendicular to the rod at its pivot (the point mass is the inertial offset of a body framed at
// the pivot; its frame turns with the rod); a joint that closes a loop is an equality constraint
// (loop_closures), a massless frame (Body::frame) no MuJoCo body: its joint joins the joints of the
// massive body below it (write_frame), the model's shapes geoms colliding in explicit pairs
// (contact_geoms), and a motor an equality constraint on its joint's coordinate (motor_equalities). Integrators: Euler (MuJoCo's semi-implicit Euler,
// order 1) or RK4 (order 4); on a tree without contacts no constraint solver runs. Each step is
// mj_step's sequence; the step's end kinematics, which our Cartesian State is written from, come
// from the next step's mj_forward done ahead, or recomputed where inputs change (do_step).
// Traps (docs/peers.md): the MJCF reader nests at most 96 bodies (tinyxml2's element depth 100):
// a deeper tree is refused as UnsupportedModel; mjData's energy is stale until mj_forward (we
// compute energy from the State); MuJoCo writes MUJOCO_LOG.TXT into the working directory from its
// default error and warning handlers: ours replace them.
#include <mujoco/mujoco.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <mutex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"
#include "methods/peers/peers.hpp"

namespace mb {

namespace {

// from this many bodies the MJCF sets the stack size (mjcf(), "<size nstack>")
constexpr size_t kLargeTree = 2048;

// MuJoCo's error handler must not return (MuJoCo exits otherwise): it throws, and the warnings
// become counted messages instead of MUJOCO_LOG.TXT
[[noreturn]] void mujoco_error(const char* msg) { throw SimulationError(fmt::format("mujoco: {}", msg)); }
void mujoco_warning(const char*) {}

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

// the deepest body nesting the MJCF reader takes (measured on MuJoCo 2.2.2: 97 fails; docs/peers.md)
constexpr int kMaxDepth = 96;

class Mujoco final : public Method {
 public:
  explicit Mujoco(const MethodOptions& s)
      : rk4_(s.choice("integrator") == "rk4"),
        iterations_(static_cast<int>(s.integer("iterations"))),
        iterations_given_(s.given("iterations")),
        file_contacts_(s.choice("contacts") == "file"),
        point_inertia_(s.number("point_inertia")),
        eq_timeconst_(s.number("eq_timeconst")),
        contact_timeconst_(s.number("contact_timeconst")) {}
  ~Mujoco() override { reset(); }
  Mujoco(const Mujoco&) = delete;
  Mujoco& operator=(const Mujoco&) = delete;

  const MethodInfo& info() const override {
    static const MethodInfo i = describe_mujoco();
    return i;
  }

 private:
  // one of our bodies as a MuJoCo body: its frame at the initial state (origin, orientation), its
  // centre of mass in that frame, and the frame's angular velocity
  using Frame = PeerFrame;  // a point mass on a rod (rod): two hinges u1, u2 at the pivot

  void reset() {
    if (data_) mj_deleteData(data_);
    if (mjm_) mj_deleteModel(mjm_);
    data_ = nullptr;
    mjm_ = nullptr;
  }

  void do_init(const Model& model, const State& state) override {
    require_joint_types(model, "mujoco", {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Cardan});
    for (const Shape& sh : model.shapes) {
      if (sh.type == ShapeType::Convex)
        throw UnsupportedModel(fmt::format("mujoco: shape '{}' is convex; MuJoCo recentres a mesh at its own centre of mass and "
                                           "axes, and that mapping is not built", sh.name));
      if (sh.type == ShapeType::HalfSpace && sh.body != kWorld && !model.bodies[static_cast<size_t>(sh.body)].is_static)
        throw UnsupportedModel(fmt::format("mujoco: shape '{}' is a half-space on a moving body; MuJoCo's planes are static", sh.name));
    }
    if (!model.springs.empty()) throw UnsupportedModel("mujoco: force elements (springs) are not mapped");
    if (file_contacts_ && !model.mjcf_contacts.present)
      throw UnsupportedModel(fmt::format(
          "mujoco: contacts=file steps an MJCF file's own contact model, and model '{}' {}; contacts=ours takes any model", model.info.name,
          std::any_of(model.bodies.begin(), model.bodies.end(), [](const Body& b) { return b.light_frame; })
              ? "has frames=light bodies that the file has not (its exclusions and parent filter name the file's bodies)"
              : "was not read from MJCF"));
    if (file_contacts_ && model.mjcf_contacts.shapes.size() != model.shapes.size())
      throw UnsupportedModel(fmt::format("mujoco: contacts=file: model '{}' has {} shapes and its MJCF contact data {} geoms", model.info.name,
                                         model.shapes.size(), model.mjcf_contacts.shapes.size()));
    static std::once_flag once;
    std::call_once(once, [] {
      mju_user_error = mujoco_error;
      mju_user_warning = mujoco_warning;
    });
    reset();
    const auto joints = peer_joints(model, state);
    const PeerTree tree = peer_tree(model, joints, "mujoco", true);
    const size_t n = model.bodies.size();
    // the nesting depth, parents first
    std::vector<int> depth(n, 0);
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const int p = tree.parent[u];
      depth[u] = p == kWorld ? 1 : depth[static_cast<size_t>(p)] + 1;
      if (depth[u] > kMaxDepth)
        throw UnsupportedModel(fmt::format("mujoco: the tree is deeper than {} bodies: MuJoCo 2.2 reads models only as MJCF, whose "
                                           "reader (tinyxml2) nests elements at most 100 deep (XML_ELEMENT_DEPTH_EXCEEDED)", kMaxDepth));
    }
    frames_ = peer_frames(model, state, joints, tree, "mujoco");
    const std::string xml = mjcf(model, state, joints, tree);  // sets zeta_
    // compile from a virtual file
    auto vfs = std::make_unique<mjVFS>();
    mj_defaultVFS(vfs.get());
    if (mj_makeEmptyFileVFS(vfs.get(), "model.xml", static_cast<int>(xml.size())) != 0) throw Error("mujoco: cannot make the virtual file");
    std::memcpy(vfs->filedata[mj_findFileVFS(vfs.get(), "model.xml")], xml.data(), xml.size());
    char err[1000] = "";
    mjm_ = mj_loadXML("model.xml", vfs.get(), err, sizeof err);
    mj_deleteVFS(vfs.get());
    if (!mjm_) throw UnsupportedModel(fmt::format("mujoco: the model does not compile: {}", err));
    data_ = mj_makeData(mjm_);
    if (!data_) throw Error("mujoco: mj_makeData failed");
    ids_.assign(n, -1);
    for (int i : tree.order) ids_[static_cast<size_t>(i)] = mj_name2id(mjm_, mjOBJ_BODY, fmt::format("b{}", i).c_str());
    chain_.clear();
    for (size_t c = 0; c < n; ++c) {
      if (chain_body_[c] < 0) continue;
      const Frame &f = frames_[c], &fb = frames_[static_cast<size_t>(chain_body_[c])];
      chain_.push_back({static_cast<int>(c), ids_[static_cast<size_t>(chain_body_[c])],
                        mj_name2id(mjm_, mjOBJ_JOINT, fmt::format("j{}", c).c_str()), fb.q.conjugate() * f.q,
                        fb.q.conjugate() * (f.origin - fb.origin)});
    }
    initial_velocities(state, joints, tree);
    for (MujocoMotor& mm : motors_) {
      mm.eq = mj_name2id(mjm_, mjOBJ_EQUALITY, fmt::format("motor{}", mm.motor).c_str());
      mm.integral = 0;
    }
    solref_set_ = false;
    ahead_ = true;
    forwarded_ = false;
    xfrc_ = !model.loads.empty() || !model.actuators.empty();
  }


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
        x += fmt::format("<inertial pos=\"0 0 0\" mass=\"{}\" fullinertia=\"{} {} {} {} {} {}\"/>\n", num(b.mass), num(I(0, 0)), num(I(1, 1)),
                         num(I(2, 2)), num(I(0, 1)), num(I(0, 2)), num(I(1, 2)));
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
    const std::string motors = motor_equalities(model, joints, tree);
    if (!loops.equalities.empty() || !motors.empty()) x += "<equality>\n" + loops.equalities + motors + "</equality>\n";
    x += "</mujoco>\n";
    return x;
  }

  // The MJCF of the joints that close loops. MuJoCo's equality constraints hold a point of body1 (its
  // anchor, in body1's frame) on the point of body2 where it was at the initial configuration
  // (connect), or their relative pose (weld), or a tendon at its initial length; so: a ball joint is
  // a connect at its anchor, a hinge two connects (at its anchor and one metre along its axis: the
  // second also holds the axis), a fixed joint a weld, and a rod a spatial tendon between sites at
  // its two anchors held at its initial length. A cardan or slider joint closing a loop has no such
  // form and is refused.
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

  // The motors as MuJoCo joint equality constraints: the joint's coordinate (from its initial value)
  // held at eq_data[0], which each step sets to where the motor wants it (motor_reference). MuJoCo's
  // actuators are explicit forces, and a servo stiff enough to carry the walker on legs of 1e-4
  // kg m^2 is unstable at h = 0.01 s; the constraint solver's soft equality is stable at any
  // stiffness down to its time constant of 2 h. Its time constant is eq_timeconst, its impedance
  // kMotorImpedance (nearly hard); MuJoCo's equalities have no force limit, so a bounded motor is
  // refused, and a motor on a joint that closes a loop (no MuJoCo joint) too.
  static constexpr double kMotorImpedance = 0.9999;
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
                       child, num(eq_timeconst_), num(kMotorImpedance), num(kMotorImpedance));
      motors_.push_back({static_cast<int>(mi), -1, sign, 0});
    }
    return x;
  }

  // Where each motor's equality holds its joint over the step from t: the motor's coordinate f at
  // the time the step's forces see on average (the step's start for Euler, its middle for RK4)
  // plus (b f' + f'') / k, so that q = f satisfies MuJoCo's soft constraint, which accelerates the
  // joint by -b q' - k (q - eq_data) (b = 2 / (d tc), k = 1 / (d tc)^2, tc the effective time
  // constant, d the impedance). A velocity motor holds the integral of its target (trapezoids over
  // the steps).
  void motor_reference(const Model& model, double t, double h) {
    const double tc = std::max(eq_timeconst_, 2 * h);  // MuJoCo's own floor (refsafe)
    const double te = rk4_ ? t + h / 2 : t;
    for (MujocoMotor& mm : motors_) {
      const MotorTarget& f = model.motors[static_cast<size_t>(mm.motor)].target;
      double q = 0, rate = 0, accel = 0;
      if (model.motors[static_cast<size_t>(mm.motor)].mode == MotorMode::Position) {
        q = f.at(te), rate = f.rate_at(te), accel = f.accel_at(te);
      } else {
        q = mm.integral + (te - t) * (f.at(t) + f.at(te)) / 2, rate = f.at(te), accel = f.rate_at(te);
        mm.integral += h * (f.at(t) + f.at(t + h)) / 2;
      }
      const double dtc = kMotorImpedance * tc;
      mjm_->eq_data[mjNEQDATA * mm.eq] = mm.sign * (q + 2 * dtc * rate + dtc * dtc * accel);
    }
  }

  // The model's shapes as MuJoCo geoms (in their body's frame; the world's and static bodies' in the
  // worldbody) that collide only in explicit pairs: every pair of shapes our detector tests
  // (ShapePairRule), with the pair's Coulomb coefficient (mu_dynamic; condim 3, MuJoCo's single
  // coefficient) and its restitution e as the damping of MuJoCo's soft contact: a spring of
  // natural frequency w0 = 1 / contact_timeconst with the damping ratio whose rebound is e,
  // zeta = -ln e / sqrt(pi^2 + ln^2 e) (MuJoCo's solref "-k -b", k = w0^2, b = 2 zeta w0; at e = 0
  // it is MuJoCo's default solref "tc 1"; the spring stays the same whatever e, so the contact lasts
  // about pi tc). A half-space is a plane (its normal the shape's y, a plane's z); capsules and
  // cylinders lie along z in both.
  struct Geoms {
    std::vector<std::vector<std::string>> geoms;  // (nbody + 1: the world last)
    std::string pairs;
    std::vector<double> zeta;  // per pair: the damping ratio of its restitution
  };

  // the contact pairs' solref for steps of h: w0 = 1 / max(contact_timeconst, 2 h) (MuJoCo's own
  // floor for its time constants: a stiffer spring is unstable at that step)
  void contact_solref(double h) {
    const double w0 = 1 / std::max(contact_timeconst_, 2 * h);
    for (int i = 0; i < mjm_->npair; ++i) {
      mjm_->pair_solref[mjNREF * i] = -w0 * w0;
      mjm_->pair_solref[mjNREF * i + 1] = -2 * zeta_[static_cast<size_t>(i)] * w0;
    }
  }
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
        case ShapeType::Convex: break;  // refused in do_init
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

  // qvel from our Cartesian velocities, joint by joint (the initial state is consistent: ref projects it)
  void initial_velocities(const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    mju_zero(data_->qvel, mjm_->nv);
    auto dof = [&](const std::string& name) {
      const int id = mj_name2id(mjm_, mjOBJ_JOINT, name.c_str());
      return id < 0 ? -1 : mjm_->jnt_dofadr[id];
    };
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const BodyState& s = state.bodies[u];
      const Frame& f = frames_[u];
      const int jk = tree.joint[u];
      const int d0 = dof(fmt::format("j{}", i));
      if (jk < 0) {  // free: the frame origin's linear velocity (world), the angular velocity in the frame
        const Vec3 v = s.v + f.w.cross(f.origin - (f.origin + f.q * f.com));
        const Vec3 w = f.q.conjugate() * f.w;
        for (int k = 0; k < 3; ++k) data_->qvel[d0 + k] = v[k], data_->qvel[d0 + 3 + k] = w[k];
        continue;
      }
      const PeerJoint& j = joints[static_cast<size_t>(jk)];
      const int p = tree.parent[u];
      const Vec3 wp = p == kWorld ? Vec3::Zero() : frames_[static_cast<size_t>(p)].w;
      const Vec3 wr = f.w - wp;  // relative angular velocity, world
      switch (j.type) {
        case JointType::Ball: {
          const Vec3 wl = f.q.conjugate() * wr;
          for (int k = 0; k < 3; ++k) data_->qvel[d0 + k] = wl[k];
          break;
        }
        case JointType::Hinge: data_->qvel[d0] = (tree.flip[u] ? j.axis_b : j.axis_a).dot(wr); break;
        case JointType::Slider: data_->qvel[d0] = j.axis_a.dot(s.v - peer_point_velocity(state, frames_, p, s.x)); break;
        case JointType::Cardan:
          data_->qvel[d0] = (tree.flip[u] ? j.axis_b : j.axis_a).dot(wr);
          data_->qvel[dof(fmt::format("j{}b", i))] = (tree.flip[u] ? j.axis_a : j.axis_b).dot(wr);
          break;
        case JointType::Distance:
          data_->qvel[d0] = f.u1.dot(wr);
          data_->qvel[dof(fmt::format("j{}b", i))] = f.u2.dot(wr);
          break;
        default: break;
      }
    }
  }

  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    // the driver's h is t_i - t: a fixed step varies in its last bits, and MuJoCo keeps its own
    if (!solref_set_ || std::abs(h - mjm_->opt.timestep) > 1e-12 * h) {
      mjm_->opt.timestep = h;
      if (!file_contacts_) contact_solref(h);
      solref_set_ = true;
    }
    if (xfrc_) {  // the step's average loads at each centre of mass: force, then torque (world axes)
      average_torques(model, state.t, h, torque_);
      force_.assign(model.bodies.size(), Vec3::Zero());
      add_average_forces(model, state.t, h, force_);
      add_peer_actuator_loads(model, state, ctrl_, force_, torque_);
      for (size_t i = 0; i < ids_.size(); ++i)
        if (ids_[i] >= 0)
          for (int k = 0; k < 3; ++k) data_->xfrc_applied[6 * ids_[i] + k] = force_[i][k], data_->xfrc_applied[6 * ids_[i] + 3 + k] = torque_[i][k];
    }
    motor_reference(model, state.t, h);
    // mj_step's sequence (checks, mj_forward, the integrator), with the forward of the next step
    // done at this step's end while the inputs stay as they are (inputs()): MuJoCo's next mj_step
    // would repeat it unchanged, and it leaves the step's end kinematics that our State needs.
    // Inputs that change from step to step (motors, servos, time-varying loads) end that: then
    // the kinematics are recomputed after mj_step's sequence instead.
    inputs(now_);
    if (!forwarded_ || now_ != inputs_) {
      if (forwarded_) ahead_ = false;
      mj_checkPos(mjm_, data_);
      mj_checkVel(mjm_, data_);
      mj_forward(mjm_, data_);
    }
    mj_checkAcc(mjm_, data_);
    if (rk4_) mj_RungeKutta(mjm_, data_, 4);
    else mj_Euler(mjm_, data_);
    forwarded_ = ahead_;
    if (ahead_) {
      mj_checkPos(mjm_, data_);
      mj_checkVel(mjm_, data_);
      mj_forward(mjm_, data_);
      inputs_.swap(now_);
    } else {  // the integrator leaves the kinematics of the step's start
      mj_kinematics(mjm_, data_);
      mj_comPos(mjm_, data_);
      mj_comVel(mjm_, data_);
    }
    mjtNum vel[6];
    for (size_t i = 0; i < ids_.size(); ++i) {
      const int id = ids_[i];
      if (id < 0) continue;
      mj_objectVelocity(mjm_, data_, mjOBJ_BODY, id, vel, 0);  // (rot, lin) at the centre of mass, world axes
      const mjtNum* x = data_->xipos + 3 * id;
      const mjtNum* q = data_->xquat + 4 * id;
      write_body(model.bodies[i], state.bodies[i], Vec3(x[0], x[1], x[2]), Quat(q[0], q[1], q[2], q[3]), Vec3(vel[3], vel[4], vel[5]),
                 Vec3(vel[0], vel[1], vel[2]));
    }
    for (const Chained& c : chain_) write_frame(model, state, c);
    stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // what mj_forward reads besides the state: the time step (the contacts' and equalities' solref
  // floor), the applied loads, the motors' references
  void inputs(std::vector<mjtNum>& out) const {
    out.assign(1, mjm_->opt.timestep);
    if (xfrc_) out.insert(out.end(), data_->xfrc_applied, data_->xfrc_applied + 6 * mjm_->nbody);
    for (const MujocoMotor& mm : motors_) out.push_back(mjm_->eq_data[mjNEQDATA * mm.eq]);
  }

  // A massless frame inside a MuJoCo body's joint chain: the body's frame after the frame's own
  // joint (MuJoCo's joints of that body up to it), times the frame's pose in it at the initial state.
  struct Chained {
    int frame;    // our body
    int mj_body;  // the MuJoCo body holding the chain
    int mj_joint; // the frame's own joint
    Quat rel_q;   // the frame's pose in the MuJoCo body's frame at the initial state
    Vec3 rel_x;
  };

  // Our State of a chained frame: the MuJoCo body's pose with the joints after the frame's turned
  // back (last first; each joint's axis and anchor, as MuJoCo left them, are fixed in the frames on
  // both sides of it), its velocity the MuJoCo body's parent's plus the chain's dofs up to the
  // frame's (MuJoCo's com-based cvel and cdof, at the subtree centre of mass of the root).
  void write_frame(const Model& model, State& state, const Chained& c) const {
    const int b = c.mj_body;
    Vec3 px(data_->xpos[3 * b], data_->xpos[3 * b + 1], data_->xpos[3 * b + 2]);
    const mjtNum* xq = data_->xquat + 4 * b;
    Quat pq(xq[0], xq[1], xq[2], xq[3]);
    for (int j = mjm_->body_jntadr[b] + mjm_->body_jntnum[b] - 1; j > c.mj_joint; --j) {
      const double q = data_->qpos[mjm_->jnt_qposadr[j]] - mjm_->qpos0[mjm_->jnt_qposadr[j]];
      const Vec3 a(data_->xanchor[3 * j], data_->xanchor[3 * j + 1], data_->xanchor[3 * j + 2]);
      const Vec3 ax(data_->xaxis[3 * j], data_->xaxis[3 * j + 1], data_->xaxis[3 * j + 2]);
      if (mjm_->jnt_type[j] == mjJNT_HINGE) {
        const Quat r(Eigen::AngleAxisd(-q, ax.normalized()));
        pq = r * pq;
        px = a + r * (px - a);
      } else {  // slide (a chain holds hinges and slides only)
        px -= ax.normalized() * q;
      }
    }
    const Quat Q = (pq * c.rel_q).normalized();
    const Vec3 X = px + pq * c.rel_x;
    Eigen::Matrix<double, 6, 1> cv = Eigen::Map<const Eigen::Matrix<double, 6, 1>>(data_->cvel + 6 * mjm_->body_parentid[b]);
    for (int d = mjm_->body_dofadr[b]; d <= mjm_->jnt_dofadr[c.mj_joint]; ++d)
      cv += Eigen::Map<const Eigen::Matrix<double, 6, 1>>(data_->cdof + 6 * d) * data_->qvel[d];
    const mjtNum* com = data_->subtree_com + 3 * mjm_->body_rootid[b];
    const Vec3 w = cv.head<3>(), v = Vec3(cv.tail<3>()) + w.cross(X - Vec3(com[0], com[1], com[2]));
    const size_t u = static_cast<size_t>(c.frame);
    write_body(model.bodies[u], state.bodies[u], X, Q, v, w);
  }

  bool rk4_;
  int iterations_;
  bool iterations_given_;
  bool file_contacts_;  // contacts=file: the MJCF file's own contact model (Model::mjcf_contacts)
  double point_inertia_;
  double eq_timeconst_;       // the equality constraints' solref time constant, s
  double contact_timeconst_;  // the contacts' solref time constant, s
  mjModel* mjm_ = nullptr;
  mjData* data_ = nullptr;
  std::vector<Frame> frames_;  // (nbody)
  std::vector<int> ids_;       // (nbody) MuJoCo body id, -1 for a static body or a massless frame
  std::vector<int> chain_body_;  // (nbody) for a massless frame: our body whose MuJoCo body holds its joint; else -1
  std::vector<Chained> chain_;
  bool xfrc_ = false;
  std::vector<Vec3> torque_, force_;
  std::vector<double> ctrl_;  // the actuators' controls of the step
  std::vector<double> zeta_;  // per contact pair
  bool solref_set_ = false;
  bool ahead_ = true;       // the next step's mj_forward is done at the end of each step
  bool forwarded_ = false;  // data_ holds mj_forward's results for the inputs inputs_
  std::vector<mjtNum> inputs_, now_;
  struct MujocoMotor {
    int motor;        // Model::motors index
    int eq;           // its MuJoCo equality
    double sign;      // MuJoCo's joint coordinate = sign q
    double integral;  // a velocity motor: the integral of its target up to now
  };
  std::vector<MujocoMotor> motors_;
};

}  // namespace

MethodInfo describe_mujoco() {
  MethodInfo i;
  i.name = "mujoco";
  i.family = "peer";
  i.gate_time_joints = {63};  // the adapters' shared translation and state copy
  i.version = fmt::format("MuJoCo {}", mj_versionString());
  i.description = "MuJoCo (libmujoco-dev): reduced coordinates (a tree of MuJoCo bodies compiled from MJCF in memory), "
                  "semi-implicit Euler or RK4; loops closed by its (soft) equality constraints; contacts as its (soft) geom pairs; at most 96 bodies deep";
  i.source = "todorov2012 (MuJoCo)";
  i.options = {OptionInfo::choice("integrator", "rk4", "rk4: MuJoCo's RK4 (order 4); euler: its semi-implicit Euler (order 1)", {"rk4", "euler"}),
               OptionInfo::choice("contacts", "ours",
                                  "ours: an explicit pair (condim 3, elliptic cone) for each two shapes our detector tests, as every method "
                                  "has; file: an MJCF model's own (geoms' contype, conaffinity, condim, friction, solref, solimp; pairs, "
                                  "excludes; <option> cone, solver, iterations; <size>); other models are refused",
                                  {"ours", "file"}),
               OptionInfo::integer("iterations", "100", "constraint solver iterations (MuJoCo's default; no constraint rows on a tree; contacts=file: the file's unless given)", 1, 1e6),
               point_inertia_option("1e-12"),
               OptionInfo::number("eq_timeconst", "0.02",
                                  "loops and motors: the time constant of the equality constraints that close them and hold the motors' "
                                  "joints, s (MuJoCo's solref, damping ratio 1; MuJoCo's default 0.02; it raises any value below 2 h to 2 h)",
                                  1e-9, 1e3),
               OptionInfo::number("contact_timeconst", "0.02",
                                  "contacts: MuJoCo's soft contacts as springs of natural frequency 1 / contact_timeconst, s, damped to "
                                  "rebound at the pair's restitution e (solref -k -b; at e = 0 MuJoCo's default solref 0.02 1); at least 2 h",
                                  1e-9, 1e3)};
  i.orders = {{"position", "double-pendulum", 4, 0.0025, 0.01, 1, "", "MuJoCo's RK4"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kAppliedForces | kContacts | kMasslessFrames | kSingularInertia | kJointDampers | kJointLimits |
               kMotors;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_mujoco(const MethodOptions& options) { return std::make_unique<Mujoco>(options); }

}  // namespace mb
