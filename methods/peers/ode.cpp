// ode: the Open Dynamics Engine (libode-dev, double precision) as a method (docs/peers.md).
// Maximal coordinates: each dynamic body is a dBody (a point mass a sphere of particle_radius), each
// joint an ODE joint (rod: dJointDBall, ball, hinge, slider, fixed, cardan: dJointUniversal,
// cylindrical: dJointPiston; planar: none, refused);
// closed loops are just more joints. A step is dWorldStep (a direct LCP solve of the
// velocity-level constraints: the semi-implicit Euler step, first order) or dWorldQuickStep
// (projected Gauss-Seidel with `iterations` sweeps); joint drift is fed back with ERP, constraints
// softened by CFM. Neutral defaults: no damping, no auto-disable (sleeping), no angular speed
// limit, ODE's own ERP 0.2 and CFM 1e-10.
// Contacts: each shape an ODE geom (sphere, box, capsule, cylinder; a half-space a plane) in a
// simple space, ODE's own collision (dSpaceCollide, dCollide) and a contact joint per point with
// the pair's material: ODE's one Coulomb coefficient mu = mu_dynamic (pyramid approximation,
// dContactApprox1), bounce = restitution. Pairs as ours (models/collision.hpp): not two shapes of
// one body, not two fixed ones, not two bodies joined by a joint.
// Trap (measured, docs/peers.md): QuickStep with point-like inertia (particle_radius -> 0)
// diverges; dWorldStep does not.
#include <ode/ode.h>

#include <algorithm>
#include <chrono>
#include <mutex>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/peers.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"

#ifndef MBBENCH_ODE_VERSION
#define MBBENCH_ODE_VERSION "unknown"
#endif

namespace mb {

namespace {

class Ode final : public Method {
 public:
  explicit Ode(const MethodOptions& s)
      : quick_(s.choice("stepper") == "quick"),
        iterations_(static_cast<int>(s.integer("iterations"))),
        erp_(s.number("erp")),
        cfm_(s.number("cfm")),
        particle_radius_(s.number("particle_radius")) {}
  ~Ode() override { reset(); }
  Ode(const Ode&) = delete;
  Ode& operator=(const Ode&) = delete;

  const MethodInfo& info() const override {
    static const MethodInfo i = describe_ode();
    return i;
  }

 private:
  void reset() {
    if (contact_group_) dJointGroupDestroy(contact_group_);
    contact_group_ = nullptr;
    if (space_) dSpaceDestroy(space_);  // destroys its geoms (cleanup mode on)
    space_ = nullptr;
    if (world_) dWorldDestroy(world_);  // destroys its bodies and joints
    world_ = nullptr;
    if (threading_) dThreadingFreeImplementation(threading_);
    threading_ = nullptr;
    bodies_.clear();
    motors_.clear();
  }

  // ODE's per-thread data, once for every thread that steps a world (sweeps and the gate run cases
  // on several threads at once)
  static void thread_data() {
    thread_local bool allocated = false;
    if (!allocated) allocated = dAllocateODEDataForThread(dAllocateMaskAll) != 0;
  }

  void do_init(const Model& model, const State& state) override {
    require_joint_types(model, "ode",
                        {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Cardan,
                         JointType::Cylindrical});
    for (const Shape& sh : model.shapes)
      if (sh.type == ShapeType::Convex)
        throw UnsupportedModel(fmt::format("ode: shape '{}' is convex; its mapping to dCreateConvex is not built", sh.name));
      else if (sh.type == ShapeType::Ellipsoid)
        throw UnsupportedModel(fmt::format("ode: shape '{}' is an ellipsoid, which ODE does not have", sh.name));
    // the library once per process (ODE's global data: dInitODE2 before any world)
    static std::once_flag once;
    std::call_once(once, [] { dInitODE2(0); });
    reset();
    thread_data();
    world_ = dWorldCreate();
    // a threading implementation of this world's own: the default one is shared by every world of
    // the process, and two threads stepping two worlds through it trip ODE's job assertions
    // (`mbbench gate --jobs 2` aborted in AlterJobProcessingDependencies)
    threading_ = dThreadingAllocateSelfThreadedImplementation();
    dWorldSetStepThreadingImplementation(world_, dThreadingImplementationGetFunctions(threading_), threading_);
    const Vec3& g = model.gravity;
    dWorldSetGravity(world_, g.x(), g.y(), g.z());
    dWorldSetERP(world_, erp_);
    dWorldSetCFM(world_, cfm_);
    dWorldSetQuickStepNumIterations(world_, iterations_);
    // neutral: no damping, no sleeping, no speed limits
    dWorldSetDamping(world_, 0, 0);
    dWorldSetAutoDisableFlag(world_, 0);
    dWorldSetMaxAngularSpeed(world_, dInfinity);
    // bodies: the origin of an ODE body is its centre of mass, its inertia in body axes
    bodies_.assign(model.bodies.size(), nullptr);
    for (size_t i = 0; i < model.bodies.size(); ++i) {
      const Body& b = model.bodies[i];
      if (b.is_static) continue;
      const BodyState& s = state.bodies[i];
      dBodyID id = dBodyCreate(world_);
      const Mat3 I = b.particle ? particle_inertia(b, particle_radius_) : b.inertia;
      dMass m;
      dMassSetZero(&m);
      dMassSetParameters(&m, b.mass, 0, 0, 0, I(0, 0), I(1, 1), I(2, 2), I(0, 1), I(0, 2), I(1, 2));
      dBodySetMass(id, &m);
      dBodySetPosition(id, s.x.x(), s.x.y(), s.x.z());
      const dQuaternion q = {s.q.w(), s.q.x(), s.q.y(), s.q.z()};  // ODE: (w, x, y, z)
      dBodySetQuaternion(id, q);
      dBodySetLinearVel(id, s.v.x(), s.v.y(), s.v.z());
      dBodySetAngularVel(id, s.w.x(), s.w.y(), s.w.z());  // world frame, as ours
      dBodySetAutoDisableFlag(id, 0);
      bodies_[i] = id;
    }
    // joints: attached (dynamic body, other) so that anchor 1 and axis 1 belong to a dynamic body
    for (const PeerJoint& j : peer_joints(model, state)) {
      const bool swap = j.a == kWorld;
      const int b1 = swap ? j.b : j.a, b2 = swap ? j.a : j.b;
      const Vec3 &p1 = swap ? j.anchor_b : j.anchor_a, &p2 = swap ? j.anchor_a : j.anchor_b;
      const Vec3 &u1 = swap ? j.axis_b : j.axis_a, &u2 = swap ? j.axis_a : j.axis_b;
      dJointID id = nullptr;
      switch (j.type) {
        case JointType::Distance: id = dJointCreateDBall(world_, nullptr); break;
        case JointType::Ball: id = dJointCreateBall(world_, nullptr); break;
        case JointType::Hinge: id = dJointCreateHinge(world_, nullptr); break;
        case JointType::Fixed: id = dJointCreateFixed(world_, nullptr); break;
        case JointType::Slider: id = dJointCreateSlider(world_, nullptr); break;
        case JointType::Cardan: id = dJointCreateUniversal(world_, nullptr); break;
        case JointType::Cylindrical: id = dJointCreatePiston(world_, nullptr); break;
        default: throw UnsupportedModel("ode: unexpected joint type");  // require_joint_types refused it
      }
      dJointAttach(id, bodies_[static_cast<size_t>(b1)], b2 == kWorld ? nullptr : bodies_[static_cast<size_t>(b2)]);
      switch (j.type) {
        case JointType::Distance:
          dJointSetDBallAnchor1(id, p1.x(), p1.y(), p1.z());
          dJointSetDBallAnchor2(id, p2.x(), p2.y(), p2.z());
          dJointSetDBallDistance(id, j.length);
          break;
        case JointType::Ball: dJointSetBallAnchor(id, p1.x(), p1.y(), p1.z()); break;
        case JointType::Hinge:
          dJointSetHingeAnchor(id, p1.x(), p1.y(), p1.z());
          dJointSetHingeAxis(id, u1.x(), u1.y(), u1.z());
          break;
        case JointType::Fixed: dJointSetFixed(id); break;
        case JointType::Slider: dJointSetSliderAxis(id, j.axis_a.x(), j.axis_a.y(), j.axis_a.z()); break;
        case JointType::Cardan:
          dJointSetUniversalAnchor(id, p1.x(), p1.y(), p1.z());
          dJointSetUniversalAxis1(id, u1.x(), u1.y(), u1.z());
          dJointSetUniversalAxis2(id, u2.x(), u2.y(), u2.z());
          break;
        case JointType::Cylindrical:  // the line through body 1's anchor along its axis: the same line as a's
          dJointSetPistonAnchor(id, p1.x(), p1.y(), p1.z());
          dJointSetPistonAxis(id, u1.x(), u1.y(), u1.z());
          break;
        default: break;
      }
      // a motor on this joint: ODE's joint motor (dParamVel, dParamFMax) on the rate of body 1
      // relative to body 2 about (along) the joint's axis, s q' with q the motor's coordinate
      for (size_t mi = 0; mi < model.motors.size(); ++mi) {
        if (model.motors[mi].joint != j.index) continue;
        const Vec3 ua = j.axis_a;  // world, unit
        const double along = j.type == JointType::Slider ? 1.0 : (u1.dot(ua) < 0 ? -1.0 : 1.0);
        motors_.push_back({static_cast<int>(mi), id, j.type == JointType::Slider, (swap ? 1.0 : -1.0) * along});
      }
      // its limits: ODE's stops on the same coordinate (s q, from the attach pose), open where
      // infinite (a hinge's stops lie in [-pi, pi])
      const Joint& J = model.joints[static_cast<size_t>(j.index)];
      if (J.limited() && (j.type == JointType::Hinge || j.type == JointType::Slider)) {
        const double s = (swap ? 1.0 : -1.0) * (j.type == JointType::Slider ? 1.0 : (u1.dot(j.axis_a) < 0 ? -1.0 : 1.0));
        const double bound = j.type == JointType::Hinge ? M_PI : dInfinity;
        const auto [lo, hi] = peer_limits(J, s);
        const double lo_stop = lo >= -bound ? lo : -dInfinity, hi_stop = hi <= bound ? hi : dInfinity;
        if (j.type == JointType::Hinge) {
          dJointSetHingeParam(id, dParamLoStop, lo_stop);
          dJointSetHingeParam(id, dParamHiStop, hi_stop);
        } else {
          dJointSetSliderParam(id, dParamLoStop, lo_stop);
          dJointSetSliderParam(id, dParamHiStop, hi_stop);
        }
      }
    }
    force_.assign(model.bodies.size(), Vec3::Zero());
    torque_.assign(model.bodies.size(), Vec3::Zero());
    if (!model.shapes.empty()) add_geoms(model, state);
  }

  // the model's shapes as geoms: on a dynamic body at their offset in its frame (its origin is
  // the centre of mass, as ours), on the world or a static body at their world pose
  void add_geoms(const Model& model, const State& state) {
    space_ = dSimpleSpaceCreate(nullptr);
    rule_.emplace(model);
    contact_group_ = dJointGroupCreate(0);
    for (size_t k = 0; k < model.shapes.size(); ++k) {
      const Shape& sh = model.shapes[k];
      dGeomID g = nullptr;
      const bool on_body = sh.body != kWorld && bodies_[static_cast<size_t>(sh.body)];
      // on a body: its offset in the body's frame; else (the world, a static body) its world pose
      const ShapePose w = on_body ? ShapePose{sh.position, sh.orientation} : shape_pose(sh, state);
      const Vec3& x = w.position;
      const Quat& q = w.orientation;
      switch (sh.type) {
        case ShapeType::Sphere: g = dCreateSphere(space_, sh.radius); break;
        case ShapeType::Box: g = dCreateBox(space_, 2 * sh.half_extents.x(), 2 * sh.half_extents.y(), 2 * sh.half_extents.z()); break;
        case ShapeType::Capsule: g = dCreateCapsule(space_, sh.radius, sh.length); break;
        case ShapeType::Cylinder: g = dCreateCylinder(space_, sh.radius, sh.length); break;
        case ShapeType::HalfSpace: {
          // the solid below the plane through x with normal q y: n . p < n . x
          const Vec3 n = q * Vec3::UnitY();
          g = dCreatePlane(space_, n.x(), n.y(), n.z(), n.dot(x));
          break;
        }
        case ShapeType::Convex:
        case ShapeType::Ellipsoid: break;  // refused in do_init
      }
      dGeomSetData(g, reinterpret_cast<void*>(k));
      if (sh.type == ShapeType::HalfSpace) continue;  // planes are not placeable
      const dQuaternion dq = {q.w(), q.x(), q.y(), q.z()};
      if (on_body) {
        dGeomSetBody(g, bodies_[static_cast<size_t>(sh.body)]);
        dGeomSetOffsetPosition(g, x.x(), x.y(), x.z());
        dGeomSetOffsetQuaternion(g, dq);
      } else {
        dGeomSetPosition(g, x.x(), x.y(), x.z());
        dGeomSetQuaternion(g, dq);
      }
    }
  }

  static void near_callback(void* data, dGeomID o1, dGeomID o2) {
    auto* self = static_cast<Ode*>(data);
    dBodyID b1 = dGeomGetBody(o1), b2 = dGeomGetBody(o2);
    if (b1 == b2) return;  // one body, or two fixed shapes
    if (b1 && b2 && dAreConnectedExcluding(b1, b2, dJointTypeContact)) return;
    const Model& m = *self->model_;
    const Shape& s1 = m.shapes[reinterpret_cast<size_t>(dGeomGetData(o1))];
    const Shape& s2 = m.shapes[reinterpret_cast<size_t>(dGeomGetData(o2))];
    if (!self->rule_->tested(m, s1.body, s2.body)) return;  // our pairs (weld groups, frames)
    const Material mat = contact_material(m.materials, m.material_pairs, s1.material, s2.material);
    constexpr int kMaxContacts = 8;
    dContact c[kMaxContacts];
    const int n = dCollide(o1, o2, kMaxContacts, &c[0].geom, sizeof(dContact));
    for (int i = 0; i < n; ++i) {
      c[i].surface.mode = dContactApprox1 | (mat.restitution > 0 ? dContactBounce : 0);
      c[i].surface.mu = mat.mu_dynamic;
      c[i].surface.bounce = mat.restitution;
      c[i].surface.bounce_vel = 0;
      dJointID j = dJointCreateContact(self->world_, self->contact_group_, &c[i]);
      dJointAttach(j, b1, b2);
    }
    self->step_contacts_ += n;
  }

  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    // loads held over the step: applied loads (their average) and the springs at its start
    if (!model.loads.empty() || has_state_loads(model)) {
      average_torques(model, state.t, h, torque_);
      std::fill(force_.begin(), force_.end(), Vec3::Zero());
      add_average_forces(model, state.t, h, force_);
      add_spring_loads(model, state, force_, torque_);
      add_peer_actuator_loads(model, state, ctrl_, force_, torque_);
      for (size_t i = 0; i < bodies_.size(); ++i) {
        if (!bodies_[i]) continue;
        dBodyAddForce(bodies_[i], force_[i].x(), force_[i].y(), force_[i].z());
        dBodyAddTorque(bodies_[i], torque_[i].x(), torque_[i].y(), torque_[i].z());
      }
    }
    // motors: the rate they ask for at the end of the step (a position motor: the rate that
    // reaches f(t + h) from where the joint is), their bound or none
    for (const OdeMotor& om : motors_) {
      const Motor& mo = model.motors[static_cast<size_t>(om.motor)];
      const double rate = motor_step_rate(model, state, mo, h);
      const double fmax = mo.limited() ? mo.max_force : dInfinity;
      if (om.slider) {
        dJointSetSliderParam(om.joint, dParamVel, om.sign * rate);
        dJointSetSliderParam(om.joint, dParamFMax, fmax);
      } else {
        dJointSetHingeParam(om.joint, dParamVel, om.sign * rate);
        dJointSetHingeParam(om.joint, dParamFMax, fmax);
      }
    }
    thread_data();
    if (space_) {
      model_ = &model;
      step_contacts_ = 0;
      dSpaceCollide(space_, this, &Ode::near_callback);
      stats.contacts = std::max(stats.contacts, step_contacts_);
    }
    const int ok = quick_ ? dWorldQuickStep(world_, h) : dWorldStep(world_, h);
    if (contact_group_) dJointGroupEmpty(contact_group_);
    if (!ok) throw SimulationError("ode: the step failed (ODE could not allocate its working memory)");
    for (size_t i = 0; i < bodies_.size(); ++i) {
      if (!bodies_[i]) continue;
      const dReal* x = dBodyGetPosition(bodies_[i]);
      const dReal* q = dBodyGetQuaternion(bodies_[i]);
      const dReal* v = dBodyGetLinearVel(bodies_[i]);
      const dReal* w = dBodyGetAngularVel(bodies_[i]);
      write_body(model.bodies[i], state.bodies[i], Vec3(x[0], x[1], x[2]), Quat(q[0], q[1], q[2], q[3]), Vec3(v[0], v[1], v[2]),
                 Vec3(w[0], w[1], w[2]));
    }
    if (quick_) stats.vel_iterations += iterations_;
    stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  bool quick_;
  int iterations_;
  double erp_, cfm_, particle_radius_;
  dWorldID world_ = nullptr;
  dThreadingImplementationID threading_ = nullptr;
  dSpaceID space_ = nullptr;             // the shapes' geoms (none without shapes)
  dJointGroupID contact_group_ = nullptr;  // this step's contact joints
  const Model* model_ = nullptr;         // the model being stepped (for the callback), set each step
  long step_contacts_ = 0;
  std::vector<dBodyID> bodies_;  // (nbody), null for a static body
  std::vector<Vec3> force_, torque_;
  std::vector<double> ctrl_;  // the actuators' controls of the step
  std::optional<ShapePairRule> rule_;  // the shape pairs tested (models/collision.hpp)
  struct OdeMotor {
    int motor;       // Model::motors index
    dJointID joint;  // its hinge or slider
    bool slider;
    double sign;     // ODE's joint rate = sign q'
  };
  std::vector<OdeMotor> motors_;
};

}  // namespace

MethodInfo describe_ode() {
  MethodInfo i;
  i.name = "ode";
  i.family = "peer";
  i.version = "ODE " MBBENCH_ODE_VERSION;
  i.description = "Open Dynamics Engine (libode-dev, double): maximal coordinates, joints as velocity constraints, "
                  "dWorldStep (direct LCP solve, semi-implicit Euler) or dWorldQuickStep (PGS); ERP/CFM drift feedback";
  i.source = "smith2006 (ODE user guide)";
  i.options = {OptionInfo::choice("stepper", "step", "step: dWorldStep (direct solve); quick: dWorldQuickStep (iterative)", {"step", "quick"}),
               OptionInfo::integer("iterations", "20", "dWorldQuickStep's Gauss-Seidel sweeps (ODE's default)", 1, 1e6),
               OptionInfo::number("erp", "0.2", "error reduction parameter: the share of the joint error corrected per step (ODE's default)", 0, 1),
               OptionInfo::number("cfm", "1e-10", "constraint force mixing: the joints' softness (ODE's double default)", 0, 1),
               particle_radius_option()};
  i.options[1].applies_with = "stepper=quick";
  i.orders = {{"position", "double-pendulum", 1, 0.0005, 0.002, 1, "",
               "semi-implicit Euler (dWorldStep); 2 on pendulum10, started at its lowest point (docs/peers.md)"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kAppliedForces | kForces | kContacts | kJointLimits |
               kJointDampers | kMotors;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_ode(const MethodOptions& options) { return std::make_unique<Ode>(options); }

}  // namespace mb
