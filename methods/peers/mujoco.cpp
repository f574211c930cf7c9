// mujoco: MuJoCo (libmujoco-dev 2.2) as a method (docs/peers.md). Reduced coordinates: the
// model's joints as a tree of MuJoCo bodies (peer_tree), written as MJCF text (mujoco_mjcf.hpp) and compiled through
// an in-memory virtual file (MuJoCo 2.2 has no model-building API; nothing touches the disk); a
// floating body gets a free joint, a ball/hinge/slider joint its MuJoCo joint at the child's anchor,
// a fixed joint welds the child, a cardan joint is two hinges, a planar joint two slides and a
// hinge, a cylindrical one a hinge and a slide, and a rod to a point mass two hinges
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
#include "methods/peers/mujoco_mjcf.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"
#include "methods/peers/peers.hpp"

namespace mb {

namespace {

// MuJoCo's error handler must not return (MuJoCo exits otherwise): it throws, and the warnings
// become counted messages instead of MUJOCO_LOG.TXT
[[noreturn]] void mujoco_error(const char* msg) { throw SimulationError(fmt::format("mujoco: {}", msg)); }
void mujoco_warning(const char*) {}

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
    require_joint_types(model, "mujoco", {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Cardan,
                                          JointType::Planar, JointType::Cylindrical});
    for (const Shape& sh : model.shapes) {
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
    MujocoMjcf written = mujoco_mjcf(model, state, joints, tree, frames_,
                                     {rk4_, iterations_, iterations_given_, file_contacts_, point_inertia_, eq_timeconst_});
    chain_body_ = std::move(written.chain_body);
    zeta_ = std::move(written.zeta);
    motors_ = std::move(written.motors);
    const std::string& xml = written.xml;
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
      const double dtc = kMujocoMotorImpedance * tc;
      mjm_->eq_data[mjNEQDATA * mm.eq] = mm.sign * (q + 2 * dtc * rate + dtc * dtc * accel);
    }
  }

  // the contact pairs' solref for steps of h: w0 = 1 / max(contact_timeconst, 2 h) (MuJoCo's own
  // floor for its time constants: a stiffer spring is unstable at that step)
  void contact_solref(double h) {
    const double w0 = 1 / std::max(contact_timeconst_, 2 * h);
    for (int i = 0; i < mjm_->npair; ++i) {
      mjm_->pair_solref[mjNREF * i] = -w0 * w0;
      mjm_->pair_solref[mjNREF * i + 1] = -2 * zeta_[static_cast<size_t>(i)] * w0;
    }
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
        case JointType::Planar:
        case JointType::Cylindrical: {
          // the slides' rates: the child's joint point relative to the parent's material point there
          const Vec3 n = tree.flip[u] ? j.axis_b : j.axis_a, at = tree.flip[u] ? j.anchor_a : j.anchor_b;
          const Vec3 rel = s.v + s.w.cross(at - s.x) - peer_point_velocity(state, frames_, p, at);
          if (j.type == JointType::Cylindrical) {
            data_->qvel[d0] = n.dot(wr);
            data_->qvel[dof(fmt::format("j{}b", i))] = n.dot(rel);
            break;
          }
          const auto P = orthogonal_basis(n);
          data_->qvel[d0] = P.row(0).dot(rel);
          data_->qvel[dof(fmt::format("j{}b", i))] = P.row(1).dot(rel);
          data_->qvel[dof(fmt::format("j{}c", i))] = n.dot(wr);
          break;
        }
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
                                  "ours: an explicit pair (condim 3, elliptic cone) for each two shapes our detector tests, as in every "
                                  "method; file: an MJCF model's own (geoms' contype, conaffinity, condim, friction, solref, solimp; pairs, "
                                  "excludes; <option> cone, solver, iterations; <size>); other models are refused",
                                  {"ours", "file"}),
               OptionInfo::integer("iterations", "100", "constraint solver iterations (MuJoCo's default; no constraint rows on a tree; contacts=file: the file's unless given)", 1, 1e6),
               point_inertia_option("1e-12"),
               OptionInfo::number("eq_timeconst", "0.02",
                                  "loops, motors and couplings: the time constant of the equality constraints holding them, s "
                                  "(MuJoCo's solref, damping ratio 1; its default 0.02; a value below 2 h is raised to 2 h)",
                                  1e-9, 1e3),
               OptionInfo::number("contact_timeconst", "0.02",
                                  "contacts: MuJoCo's soft contacts as springs of natural frequency 1 / contact_timeconst, s, damped "
                                  "to rebound at the pair's restitution e (solref -k -b; e = 0: MuJoCo's default 0.02 1); at least 2 h",
                                  1e-9, 1e3)};
  i.orders = {{"position", "double-pendulum", 4, 0.0025, 0.01, 1, "", "MuJoCo's RK4"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kAppliedForces | kContacts | kMasslessFrames | kSingularInertia | kJointDampers | kJointLimits |
               kMotors | kCoupledJoints;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_mujoco(const MethodOptions& options) { return std::make_unique<Mujoco>(options); }

}  // namespace mb
