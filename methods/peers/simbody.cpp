// simbody: Simbody (libsimbody-dev) as a method (docs/peers.md). Reduced coordinates: the joint
// tree (peer_tree) as mobilized bodies -- a floating root Free, a ball joint Ball, a hinge Pin, a
// slider Slider, a fixed joint Weld, a cardan joint Universal, a planar one Planar, a cylindrical
// one Cylinder, and a rod to a point mass a Universal at the pivot with both axes perpendicular
// to the rod (the point mass is the body's centre of mass, framed at the pivot) -- under
// Force::UniformGravity. Each step is integrator.stepTo(t + h) without interpolation: with
// fixed=yes the integrator takes steps of exactly h (no error control; RK-Merson is order 4), with
// fixed=no it adapts its steps to `accuracy` and lands on every t + h (fixed=auto, the default:
// yes without contacts, no with).
// Contacts go to Simbody's compliant contact subsystem (its contact tracker and Hunt-Crossley
// forces; docs/peers.md, "Simbody's compliant contacts"): the pairs our detector tests, with
// stiffness `contact_stiffness`, the pair's restitution e as the dissipation c = (1 - e) /
// `restitution_speed` (Simbody's e = 1 - c v) and its Coulomb coefficients in Simbody's smoothed
// (Stribeck) friction. A motor is a prescribed Motion of its mobilizer (Prescribed): q(t) for a
// position motor, u(t) for a velocity motor; a table's segments are integrated one at a time, and
// the impulse of a position table's rate jump is passed to the tree (pass_rate_jumps).
// Trap (docs/peers.md): Simbody's pkg-config file forces -std=c++11 on its users; CMake uses its
// CMake config (SimbodyConfig.cmake) instead.
#include <Simbody.h>

#include <algorithm>
#include <chrono>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/simbody_contacts.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"
#include "methods/peers/peers.hpp"

#ifndef MBBENCH_SIMBODY_VERSION
#define MBBENCH_SIMBODY_VERSION "unknown"
#endif

namespace mb {

namespace {

using simbody_adapter::sv;
using simbody_adapter::srot;

Vec3 ev(const SimTK::Vec3& v) { return Vec3(v[0], v[1], v[2]); }

// the applied torques (world frame) of the current step, held constant over it
// A motor as Simbody's prescribed motion of its mobilizer's one coordinate: a position motor q(t)
// = s f(t) with its exact derivatives, a velocity motor u(t) = s f(t) (s: the sign taking our
// coordinate to the mobilizer's). A table's f is linear over each of its segments with jumps in
// its rate at the points, which an integrator cannot step across: the adapter integrates from
// point to point and sets `segment_time` to a time inside the interval it integrates, and a
// table is the line of that time's segment over the whole interval (the same f at every time of
// it; its rate and no acceleration).
class Prescribed final : public SimTK::Motion::Custom::Implementation {
 public:
  Prescribed(const Motor& motor, double sign, const double* segment_time)
      : target_(motor.target), position_(motor.mode == MotorMode::Position), sign_(sign), segment_time_(segment_time) {}
  SimTK::Motion::Level getLevel(const SimTK::State&) const override { return position_ ? SimTK::Motion::Position : SimTK::Motion::Velocity; }
  void calcPrescribedPosition(const SimTK::State& s, int, SimTK::Real* q) const override { q[0] = sign_ * f(s.getTime()); }
  void calcPrescribedPositionDot(const SimTK::State& s, int, SimTK::Real* qd) const override { qd[0] = sign_ * rate(s.getTime()); }
  void calcPrescribedPositionDotDot(const SimTK::State& s, int, SimTK::Real* qdd) const override {
    qdd[0] = sign_ * target_.accel_at(s.getTime());
  }
  void calcPrescribedVelocity(const SimTK::State& s, int, SimTK::Real* u) const override { u[0] = sign_ * f(s.getTime()); }
  void calcPrescribedVelocityDot(const SimTK::State& s, int, SimTK::Real* ud) const override { ud[0] = sign_ * rate(s.getTime()); }

 private:
  bool on_segment() const { return target_.kind == TargetKind::Table && std::isfinite(*segment_time_); }
  double f(double t) const {
    if (!on_segment()) return target_.at(t);
    return target_.at(*segment_time_) + target_.rate_at(*segment_time_) * (t - *segment_time_);
  }
  double rate(double t) const { return target_.rate_at(on_segment() ? *segment_time_ : t); }

  MotorTarget target_;
  bool position_;
  double sign_;
  const double* segment_time_;
};

class Torques final : public SimTK::Force::Custom::Implementation {
 public:
  Torques(const std::vector<SimTK::MobilizedBody>* mobods, const std::vector<Vec3>* torque) : mobods_(mobods), torque_(torque) {}
  void calcForce(const SimTK::State& state, SimTK::Vector_<SimTK::SpatialVec>& body_forces, SimTK::Vector_<SimTK::Vec3>&,
                 SimTK::Vector&) const override {
    for (size_t i = 0; i < torque_->size(); ++i)
      if (!(*torque_)[i].isZero(0) && !(*mobods_)[i].isEmptyHandle()) (*mobods_)[i].applyBodyTorque(state, sv((*torque_)[i]), body_forces);
  }
  SimTK::Real calcPotentialEnergy(const SimTK::State&) const override { return 0; }

 private:
  const std::vector<SimTK::MobilizedBody>* mobods_;
  const std::vector<Vec3>* torque_;
};

class Simbody final : public Method {
 public:
  explicit Simbody(const MethodOptions& s)
      : integrator_(s.choice("integrator")),
        fixed_option_(s.choice("fixed")),
        accuracy_(s.number("accuracy")),
        point_inertia_(s.number("point_inertia")),
        stiffness_(s.number("contact_stiffness")),
        restitution_speed_(s.number("restitution_speed")),
        transition_velocity_(s.number("transition_velocity")) {}

  const MethodInfo& info() const override {
    static const MethodInfo i = describe_simbody();
    return i;
  }

 private:
  // one of our bodies as a mobilized body: its B frame at the initial state (origin, orientation),
  // its centre of mass in B, and B's angular velocity
  using Frame = PeerFrame;

  // Simbody's own refusals while the system is built (an inertia that violates the triangle
  // inequality, which no rigid body has: some public URDFs carry one) are a refusal by name
  void do_init(const Model& model, const State& state) override {
    try {
      build(model, state);
    } catch (const SimTK::Exception::Base& e) {
      std::string why = e.getMessageText();
      for (char& c : why)
        if (c == '\n') c = ' ';
      throw UnsupportedModel(fmt::format("simbody refused the model: {}", why));
    }
  }

  void build(const Model& model, const State& state) {
    require_joint_types(model, "simbody",
                        {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Cardan,
                         JointType::Planar, JointType::Cylindrical});
    if (!model.springs.empty()) throw UnsupportedModel("simbody: force elements (springs) are not mapped");
    const auto joints = peer_joints(model, state);
    const PeerTree tree = peer_tree(model, joints, "simbody", true);
    const size_t n = model.bodies.size();
    // a second init: the old handles go before the system that owns what they point to
    integ_.reset();
    mobods_.clear();
    contact_forces_.reset();
    tracker_.reset();
    forces_.reset();
    matter_.reset();
    system_.reset();
    system_ = std::make_unique<SimTK::MultibodySystem>();
    matter_ = std::make_unique<SimTK::SimbodyMatterSubsystem>(*system_);
    forces_ = std::make_unique<SimTK::GeneralForceSubsystem>(*system_);
    SimTK::Force::UniformGravity(*forces_, *matter_, sv(model.gravity));
    torque_.assign(n, Vec3::Zero());
    actuator_force_.assign(n, Vec3::Zero());
    for (const Actuator& a : model.actuators)
      if (model.joints[static_cast<size_t>(a.joint)].type != JointType::Hinge)
        throw UnsupportedModel(fmt::format("simbody: actuator '{}' drives a slider; this adapter applies the actuators as body torques, "
                                           "and a slider's actuator is a force", a.name));
    if (!model.loads.empty() || !model.actuators.empty()) SimTK::Force::Custom(*forces_, new Torques(&mobods_, &torque_));
    mobods_.assign(n, SimTK::MobilizedBody());
    frames_ = peer_frames(model, state, joints, tree, "simbody");
    rod_axes_.assign(n, Quat::Identity());
    mframes_.assign(n, Quat::Identity());
    for (int i : tree.order)  // the Universal's x and y: perpendicular to the rod
      if (frames_[static_cast<size_t>(i)].rod) rod_axes_[static_cast<size_t>(i)] = frame_xy(frames_[static_cast<size_t>(i)].u1, frames_[static_cast<size_t>(i)].u2);
    // mobilized bodies, parents first
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const Body& b = model.bodies[u];
      const Frame& f = frames_[u];
      // about the centre of mass, B axes; a particle's and a singular one (a point mass, a thin rod)
      // plus point_inertia x mass
      const Mat3 I = b.particle ? Mat3(Mat3::Identity() * point_inertia_ * b.mass)
                     : is_spd(b.inertia) ? b.inertia
                                         : Mat3(b.inertia + Mat3::Identity() * point_inertia_ * b.mass);
      SimTK::Inertia inertia(SimTK::Mat33(I(0, 0), I(0, 1), I(0, 2), I(1, 0), I(1, 1), I(1, 2), I(2, 0), I(2, 1), I(2, 2)));
      inertia += SimTK::Inertia(sv(f.com), b.mass);  // shifted to the B origin
      const SimTK::Body::Rigid body(SimTK::MassProperties(b.mass, sv(f.com), inertia));
      const int p = tree.parent[u];
      SimTK::MobilizedBody& parent = p == kWorld ? matter_->updGround() : mobods_[static_cast<size_t>(p)];
      const Frame pf = p == kWorld ? Frame{} : frames_[static_cast<size_t>(p)];
      const int jk = tree.joint[u];
      if (jk < 0) {
        mobods_[u] = SimTK::MobilizedBody::Free(parent, SimTK::Transform(), body, SimTK::Transform());
        continue;
      }
      const PeerJoint& j = joints[static_cast<size_t>(jk)];
      const bool flip = tree.flip[u];
      Vec3 pivot = flip ? j.anchor_a : j.anchor_b;
      const Vec3 ax_parent = flip ? j.axis_b : j.axis_a, ax_child = flip ? j.axis_a : j.axis_b;
      Quat w = Quat::Identity();  // the mobilizer frames F and M in world axes at the initial state
      switch (j.type) {
        case JointType::Hinge:
        case JointType::Planar:       // Planar: about z, along x and y
        case JointType::Cylindrical:  // Cylinder: about and along z
          w = frame_z(ax_parent);
          break;
        case JointType::Slider: w = frame_xy(j.axis_a, frame_z(j.axis_a) * Vec3::UnitX()); break;  // Slider: along x
        case JointType::Cardan: w = frame_xy(ax_parent, ax_child); break;  // Universal: x, then the new y
        case JointType::Distance:
          w = rod_axes_[u];
          pivot = f.origin;
          break;
        default: break;
      }
      const SimTK::Transform X_PF(srot(pf.q.conjugate() * w), sv(pf.q.conjugate() * (pivot - pf.origin)));
      const SimTK::Transform X_BM(srot(f.q.conjugate() * w), sv(f.q.conjugate() * (pivot - f.origin)));
      switch (j.type) {
        case JointType::Ball: mobods_[u] = SimTK::MobilizedBody::Ball(parent, X_PF, body, X_BM); break;
        case JointType::Hinge: mobods_[u] = SimTK::MobilizedBody::Pin(parent, X_PF, body, X_BM); break;
        case JointType::Slider: mobods_[u] = SimTK::MobilizedBody::Slider(parent, X_PF, body, X_BM); break;
        case JointType::Fixed: mobods_[u] = SimTK::MobilizedBody::Weld(parent, X_PF, body, X_BM); break;
        case JointType::Cardan:
        case JointType::Distance: mobods_[u] = SimTK::MobilizedBody::Universal(parent, X_PF, body, X_BM); break;
        case JointType::Planar: mobods_[u] = SimTK::MobilizedBody::Planar(parent, X_PF, body, X_BM); break;
        case JointType::Cylindrical: mobods_[u] = SimTK::MobilizedBody::Cylinder(parent, X_PF, body, X_BM); break;
        default: throw UnsupportedModel("simbody: unexpected joint type");
      }
      mframes_[u] = w;
      // a joint damper: the mobility's linear damper, -damping u on its one mobility
      const double d = model.joints[static_cast<size_t>(j.index)].damping;
      if (d > 0) SimTK::Force::MobilityLinearDamper(*forces_, mobods_[u], SimTK::MobilizerUIndex(0), d);
    }
    for (int k : tree.closing)
      if (model.joints[static_cast<size_t>(joints[static_cast<size_t>(k)].index)].damping > 0)
        throw UnsupportedModel(fmt::format("simbody: the damped joint '{}' closes a loop; its constraint has no damper",
                                           model.joints[static_cast<size_t>(joints[static_cast<size_t>(k)].index)].name));
    close_loops(model, joints, tree);
    add_motors(model, joints, tree);
    fixed_ = fixed_option_ == "yes" || (fixed_option_ == "auto" && model.shapes.empty());
    if (!model.shapes.empty()) {
      simbody_adapter::Contacts contacts = simbody_adapter::map_contacts(model, state, *system_, *matter_, mobods_, frames_,
                                                                         {stiffness_, restitution_speed_, transition_velocity_});
      tracker_ = std::move(contacts.tracker);
      contact_forces_ = std::move(contacts.forces);
    }
    state_ = system_->realizeTopology();
    // A system without mobilities (every body welded to the ground) whose loops close with
    // constraints makes Simbody's projection factor a matrix with no columns, which crashes in
    // FactorQTZ (segmentation fault, Simbody 3.7): refused by name
    if (state_.getNU() == 0 && matter_->getNumConstraints() > 0)
      throw UnsupportedModel("simbody: every body is welded to the world and a joint closes a loop among them: "
                             "Simbody's projection fails on a system without mobilities");
    system_->realizeModel(state_);
    // the initial velocities, parents first (the positions are the mobilizers' zero, except a Free's)
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const Frame& f = frames_[u];
      const BodyState& s = state.bodies[u];
      const int jk = tree.joint[u];
      if (jk < 0) {
        mobods_[u].setQToFitTransform(state_, SimTK::Transform(srot(f.q), sv(f.origin)));
        const Vec3 v_origin = s.v + f.w.cross(f.origin - s.x);
        mobods_[u].setUToFitVelocity(state_, SimTK::SpatialVec(sv(f.w), sv(v_origin)));
        continue;
      }
      const PeerJoint& j = joints[static_cast<size_t>(jk)];
      const int p = tree.parent[u];
      const Vec3 wp = p == kWorld ? Vec3::Zero() : frames_[static_cast<size_t>(p)].w;
      const Quat fw = mframes_[u].conjugate();  // world -> F
      switch (j.type) {
        case JointType::Slider: {
          const Vec3 pivot = tree.flip[u] ? j.anchor_a : j.anchor_b;
          const Vec3 vm = s.v + f.w.cross(pivot - s.x), vf = peer_point_velocity(state, frames_, p, pivot);
          mobods_[u].setUToFitLinearVelocity(state_, sv(fw * (vm - vf)));
          break;
        }
        case JointType::Planar:
        case JointType::Cylindrical: {  // the turn, and the pivot's motion relative to the parent, in F
          const Vec3 pivot = tree.flip[u] ? j.anchor_a : j.anchor_b;
          const Vec3 vm = s.v + f.w.cross(pivot - s.x), vf = peer_point_velocity(state, frames_, p, pivot);
          mobods_[u].setUToFitVelocity(state_, SimTK::SpatialVec(sv(fw * (f.w - wp)), sv(fw * (vm - vf))));
          break;
        }
        case JointType::Fixed: break;
        default: mobods_[u].setUToFitAngularVelocity(state_, sv(fw * (f.w - wp))); break;
      }
    }
    system_->realize(state_, SimTK::Stage::Velocity);
    if (integrator_ == "rkmerson") integ_ = std::make_unique<SimTK::RungeKuttaMersonIntegrator>(*system_);
    else if (integrator_ == "rk3") integ_ = std::make_unique<SimTK::RungeKutta3Integrator>(*system_);
    else if (integrator_ == "rk2") integ_ = std::make_unique<SimTK::RungeKutta2Integrator>(*system_);
    else if (integrator_ == "euler") integ_ = std::make_unique<SimTK::ExplicitEulerIntegrator>(*system_);
    else if (integrator_ == "semi-euler2") integ_ = std::make_unique<SimTK::SemiExplicitEuler2Integrator>(*system_);
    else integ_ = std::make_unique<SimTK::VerletIntegrator>(*system_);
    integ_->setAccuracy(accuracy_);
    integ_->setAllowInterpolation(false);
    h_ = 0;
    steps_ = 0;
    state_.setTime(0);
    initialized_ = false;
  }

  // The motors as prescribed motions of their mobilizers (Prescribed). A prescribed motion takes no
  // force bound, so a bounded motor is refused; so is a motor on a joint that closes a loop (no
  // mobilizer).
  void add_motors(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    for (const Motor& mo : model.motors) {
      if (mo.limited())
        throw UnsupportedModel(fmt::format("simbody: motor '{}' has a force bound; it is a prescribed motion here, and Simbody's "
                                           "prescribed motion has no force limit",
                                           mo.name));
      const int child = tree_child_of_joint(joints, tree, mo.joint);
      if (child < 0)
        throw UnsupportedModel(fmt::format("simbody: motor '{}' drives joint '{}', which closes a loop; a prescribed motion needs a "
                                           "mobilizer of the tree",
                                           mo.name, model.joints[static_cast<size_t>(mo.joint)].name));
      const size_t u = static_cast<size_t>(child);
      const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
      // the Pin turns (the Slider moves) the child relative to its parent about (along) the
      // mobilizer's z (x): ax_parent (axis_a); ours b relative to a about (along) axis_a
      const double sign = peer_coordinate_sign(j, tree.flip[u]);
      SimTK::Motion::Custom(mobods_[u], new Prescribed(mo, sign, &segment_time_));
      table_motors_ = table_motors_ || mo.target.kind == TargetKind::Table;
      drives_.push_back({u, static_cast<size_t>(&mo - model.motors.data()), sign});
    }
  }

  // The joints that close loops, as Simbody's constraints (holonomic, enforced with the
  // integrator's projection to its constraint tolerance): a ball joint Constraint::Ball, a rod
  // Constraint::Rod at its length, a fixed joint Constraint::Weld, a hinge a Ball at its anchor and
  // two ConstantAngle keeping its axis on one body perpendicular to two directions on the other.
  // A cardan or slider joint closing a loop is refused.
  void close_loops(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    auto mobod = [&](int b) -> SimTK::MobilizedBody& { return b == kWorld ? matter_->updGround() : mobods_[static_cast<size_t>(b)]; };
    // a world point and direction in body b's B frame (the ground: the world)
    auto point = [&](int b, const Vec3& p) -> SimTK::Vec3 {
      if (b == kWorld) return sv(p);
      const Frame& f = frames_[static_cast<size_t>(b)];
      return sv(f.q.conjugate() * (p - f.origin));
    };
    auto direction = [&](int b, const Vec3& d) -> SimTK::UnitVec3 {
      return SimTK::UnitVec3(b == kWorld ? sv(d) : sv(frames_[static_cast<size_t>(b)].q.conjugate() * d));
    };
    for (int k : tree.closing) {
      const PeerJoint& j = joints[static_cast<size_t>(k)];
      switch (j.type) {
        case JointType::Ball: SimTK::Constraint::Ball(mobod(j.a), point(j.a, j.anchor_a), mobod(j.b), point(j.b, j.anchor_b)); break;
        case JointType::Distance:
          SimTK::Constraint::Rod(mobod(j.a), point(j.a, j.anchor_a), mobod(j.b), point(j.b, j.anchor_b), j.length);
          break;
        case JointType::Fixed: {
          auto frame = [&](int b) {
            const Quat q = b == kWorld ? Quat::Identity() : frames_[static_cast<size_t>(b)].q.conjugate();
            return SimTK::Transform(srot(q), point(b, j.anchor_a));
          };
          SimTK::Constraint::Weld(mobod(j.a), frame(j.a), mobod(j.b), frame(j.b));
          break;
        }
        case JointType::Hinge: {
          SimTK::Constraint::Ball(mobod(j.a), point(j.a, j.anchor_a), mobod(j.b), point(j.b, j.anchor_b));
          const Quat w = frame_z(j.axis_a);  // x and y perpendicular to the axis
          SimTK::Constraint::ConstantAngle(mobod(j.a), direction(j.a, j.axis_a), mobod(j.b), direction(j.b, w * Vec3::UnitX()));
          SimTK::Constraint::ConstantAngle(mobod(j.a), direction(j.a, j.axis_a), mobod(j.b), direction(j.b, w * Vec3::UnitY()));
          break;
        }
        default:
          throw UnsupportedModel(fmt::format("simbody: joint '{}' ({}) closes a loop; only ball joints, hinges, rods and fixed joints "
                                             "are mapped to Simbody's constraints",
                                             model.joints[static_cast<size_t>(j.index)].name, joint_type_name(j.type)));
      }
    }
  }

  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (fixed_ && h != h_) integ_->setFixedStepSize(h);
    h_ = h;
    // applied torques: the step's average; when it changes, the integrator starts afresh from the
    // current state (its cached derivatives saw the old torques)
    bool changed = false;
    if (!model.loads.empty() || !model.actuators.empty()) {
      average_torques(model, state.t, h, next_torque_);
      add_peer_actuator_loads(model, state, ctrl_, actuator_force_, next_torque_);
      changed = next_torque_ != torque_;
      torque_ = next_torque_;
    }
    const long before = initialized_ ? integ_->getNumStepsTaken() : 0;
    const double start = static_cast<double>(steps_) * h;
    const double target = static_cast<double>(++steps_) * h;  // Simbody's clock starts at 0
    // the motor tables' points in the step (a point within 1e-9 s of either end is that end): the
    // step is integrated from point to point, the integrator started afresh at each (the rate of
    // a prescribed coordinate jumps there, which its history does not know)
    auto near = [](double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(1.0, std::abs(b)); };
    breaks_.clear();
    bool restart_at_start = false;
    for (const Motor& m : model.motors)
      if (m.target.kind == TargetKind::Table)
        for (double tk : m.target.times) {
          if (near(tk, start)) restart_at_start = restart_at_start || start > 0;
          else if (tk > start && tk < target && !near(tk, target)) breaks_.push_back(tk);
        }
    std::sort(breaks_.begin(), breaks_.end());
    breaks_.erase(std::unique(breaks_.begin(), breaks_.end()), breaks_.end());
    breaks_.push_back(target);
    SimTK::Integrator::SuccessfulStepStatus st;
    // Simbody reports what it cannot do (an assembly of constraints it cannot satisfy, a stale
    // cache entry of a state it could not realize) by SimTK::Exception: a failure of this run
    try {
      double from = start;
      for (size_t k = 0; k < breaks_.size(); ++k) {
        const double to = breaks_[k];
        segment_time_ = table_motors_ ? (from + to) / 2 : NAN;
        if (!initialized_) {
          integ_->initialize(state_);
          initialized_ = true;
        } else if (changed || k > 0 || restart_at_start) {
          SimTK::State s = integ_->getState();
          s.invalidateAllCacheAtOrAbove(SimTK::Stage::Time);
          if (k > 0 || restart_at_start) pass_rate_jumps(model, s);
          integ_->initialize(s);
        }
        changed = false;
        do st = integ_->stepTo(to);
        while (integ_->getTime() < to * (1 - 1e-14) && st != SimTK::Integrator::EndOfSimulation);
        if (integ_->getTime() < to * (1 - 1e-14)) break;
        from = to;
      }
    } catch (const std::exception& e) {
      throw SimulationError(fmt::format("simbody: {}", e.what()));
    }
    // an integrator that ended the simulation short of the target (a step it could not take at
    // its smallest size) leaves a state that cannot be realized: the run fails here, with its reason
    if (integ_->getTime() < target * (1 - 1e-14))
      throw SimulationError(fmt::format("simbody: the integrator ended at t = {:.6g} s before {:.6g} s: {}", integ_->getTime(), target,
                                        SimTK::Integrator::getTerminationReasonString(integ_->getTerminationReason())));
    stats.internal_steps += integ_->getNumStepsTaken() - before;
    const SimTK::State& s = integ_->getState();
    try {
      system_->realize(s, SimTK::Stage::Velocity);
      for (size_t i = 0; i < mobods_.size(); ++i) {
        if (model.bodies[i].is_static) continue;
        const SimTK::MobilizedBody& mb = mobods_[i];
        const SimTK::Vec3 com = sv(frames_[i].com);
        const SimTK::Quaternion q = mb.getBodyRotation(s).convertRotationToQuaternion();
        write_body(model.bodies[i], state.bodies[i], ev(mb.findStationLocationInGround(s, com)), Quat(q[0], q[1], q[2], q[3]),
                   ev(mb.findStationVelocityInGround(s, com)), ev(mb.getBodyAngularVelocity(s)));
      }
    } catch (const std::exception& e) {
      throw SimulationError(fmt::format("simbody: the state after the step at t = {:.6g} s cannot be read: {}", integ_->getTime(), e.what()));
    }
    stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  // A position motor's table point: its rate jumps to the new segment's, an impulse that the rest
  // of the tree takes as GC4 passes it (featherstone2008 s.9.2): the free rates change by
  // -M_ff^-1 M_fp dv_p (M: Simbody's mass matrix at the point; p: the driven mobilities). With
  // constraints in the system the impulse would also act through them: there the restart only
  // prescribes the new rate, and Simbody's projection keeps the constraints.
  void pass_rate_jumps(const Model& model, SimTK::State& s) {
    if (matter_->getNumConstraints() > 0) return;
    system_->realize(s, SimTK::Stage::Position);
    const int n = matter_->getNumMobilities();
    std::vector<char> driven(static_cast<size_t>(n), 0);
    Eigen::VectorXd dv = Eigen::VectorXd::Zero(n);
    for (const Drive& d : drives_) {
      const Motor& mo = model.motors[d.motor];
      const int iu = mobods_[d.mobod].getFirstUIndex(s);
      driven[static_cast<size_t>(iu)] = 1;
      if (mo.mode == MotorMode::Position && mo.target.kind == TargetKind::Table)
        dv(iu) = d.sign * mo.target.rate_at(segment_time_) - mobods_[d.mobod].getOneU(s, 0);
    }
    if (dv.isZero(0)) return;
    SimTK::Matrix M;
    matter_->calcM(s, M);
    std::vector<int> free;
    for (int i = 0; i < n; ++i)
      if (!driven[static_cast<size_t>(i)]) free.push_back(i);
    const Eigen::Index nf = static_cast<Eigen::Index>(free.size());
    Eigen::MatrixXd Mff(nf, nf);
    Eigen::VectorXd rhs = Eigen::VectorXd::Zero(nf);
    for (Eigen::Index a = 0; a < nf; ++a) {
      for (Eigen::Index b = 0; b < nf; ++b) Mff(a, b) = M(free[static_cast<size_t>(a)], free[static_cast<size_t>(b)]);
      for (int j = 0; j < n; ++j)
        if (driven[static_cast<size_t>(j)]) rhs(a) -= M(free[static_cast<size_t>(a)], j) * dv(j);
    }
    const Eigen::VectorXd du = Mff.ldlt().solve(rhs);
    // through the mobilizers' own accessors: the State's inline ones, compiled here, would take the
    // place of the library's (the same symbols) for every caller
    std::vector<Eigen::Index> slot(static_cast<size_t>(n), -1);  // a mobility's place in du
    for (Eigen::Index a = 0; a < nf; ++a) slot[static_cast<size_t>(free[static_cast<size_t>(a)])] = a;
    for (const SimTK::MobilizedBody& mb : mobods_) {
      if (mb.isEmptyHandle()) continue;
      const int first = mb.getFirstUIndex(s);
      for (int k = 0; k < mb.getNumU(s); ++k)
        if (const Eigen::Index a = slot[static_cast<size_t>(first + k)]; a >= 0) mb.setOneU(s, k, mb.getOneU(s, k) + du(a));
    }
  }

  struct Drive {
    size_t mobod = 0, motor = 0;  // the driven mobilized body, Model::motors index
    double sign = 1;              // the mobilizer's coordinate = sign * the motor's
  };
  std::vector<Drive> drives_;
  std::string integrator_, fixed_option_;
  // a time inside the interval being integrated, whose segment a motor table follows over it
  // (Prescribed); NaN: no table motors
  double segment_time_ = NAN;
  bool table_motors_ = false;
  std::vector<double> breaks_;  // the ends of a step's intervals (do_step)
  bool fixed_ = true;  // steps of exactly h (fixed=yes, or auto without contacts)
  double accuracy_, point_inertia_, stiffness_, restitution_speed_, transition_velocity_;
  std::unique_ptr<SimTK::MultibodySystem> system_;
  std::unique_ptr<SimTK::SimbodyMatterSubsystem> matter_;
  std::unique_ptr<SimTK::GeneralForceSubsystem> forces_;
  std::unique_ptr<SimTK::ContactTrackerSubsystem> tracker_;
  std::unique_ptr<SimTK::CompliantContactSubsystem> contact_forces_;
  std::unique_ptr<SimTK::Integrator> integ_;
  std::vector<SimTK::MobilizedBody> mobods_;  // (nbody)
  std::vector<Frame> frames_;                 // (nbody)
  std::vector<Quat> rod_axes_, mframes_;      // (nbody)
  std::vector<Vec3> torque_, next_torque_;  // (nbody) the step's applied torques, world frame
  std::vector<Vec3> actuator_force_;  // (nbody) zero: an actuator on a hinge puts torques alone
  std::vector<double> ctrl_;  // the actuators' controls of the step
  SimTK::State state_;
  double h_ = 0;
  long steps_ = 0;
  bool initialized_ = false;
};

}  // namespace

MethodInfo describe_simbody() {
  MethodInfo i;
  i.name = "simbody";
  i.family = "peer";
  i.version = "Simbody " MBBENCH_SIMBODY_VERSION;
  i.description = "Simbody (libsimbody-dev): reduced coordinates (mobilized bodies), its integrators at fixed steps of h "
                  "or adaptive to an accuracy; loops closed by its constraints (Ball, Rod, Weld; a hinge as a Ball and two ConstantAngle); contacts by its compliant "
                  "contact subsystem (Hertz and Hunt-Crossley: a sphere on a sphere or a box; a sphere, box or ellipsoid on a half-space)";
  i.source = "sherman2011 (Simbody)";
  i.options = {OptionInfo::choice("integrator", "rkmerson",
                                  "rkmerson (Runge-Kutta-Merson, order 4), rk3, rk2, euler (explicit), semi-euler2 (semi-explicit Euler "
                                  "with an error estimate), verlet",
                                  {"rkmerson", "rk3", "rk2", "euler", "semi-euler2", "verlet"}),
               OptionInfo::choice("fixed", "auto",
                                  "yes: steps of exactly h, no error control; no: adaptive steps to `accuracy`, landing on every h; auto: "
                                  "yes without contacts, no with (stiff compliant contacts need error control)",
                                  {"auto", "yes", "no"}),
               OptionInfo::number("accuracy", "1e-3", "the integrator's relative accuracy with fixed=no, and with fixed=auto on a model with contacts (Simbody's default)", 0, 1, true),
               point_inertia_option("1e-12"),
               OptionInfo::number("contact_stiffness", "1e7",
                                  "contacts: the moving surfaces' stiffness (Simbody's ContactMaterial: Pa in Hertz contact of spheres and "
                                  "ellipsoids, N/m at each box vertex on a half-space); fixed surfaces are rigid",
                                  0, 1e300, true),
               OptionInfo::number("restitution_speed", "1",
                                  "contacts: the impact speed at which a pair rebounds at its restitution e, m/s (Hunt-Crossley dissipation "
                                  "c = (1 - e) / restitution_speed; Simbody's e = 1 - c v)",
                                  0, 1e300, true),
               OptionInfo::number("transition_velocity", "0.01",
                                  "contacts: the slip speed below which Simbody's smoothed friction falls to zero, m/s (Simbody's default)", 0,
                                  1e300, true)};
  i.options[2].applies_with = "fixed=no";
  i.orders = {{"position", "double-pendulum", 4, 0.0025, 0.01, 1, "", "Runge-Kutta-Merson at fixed steps"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kContacts | kSingularInertia | kJointDampers | kMotors;
  // a knife-edge wheel would be a Constraint::Custom of three rows (one holonomic, two
  // nonholonomic) at the moving contact point: not built, so the refusal says why
  i.refusals = {{kRolling, "rolling: Simbody's no-slip constraints (NoSlip1D, PointOnPlaneContact) act on body-fixed points and "
                           "SphereOnPlaneContact rolls a sphere, while a knife edge's contact point moves around its rim"}};
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_simbody(const MethodOptions& options) { return std::make_unique<Simbody>(options); }

}  // namespace mb
