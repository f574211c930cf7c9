// Model (immutable description) and State (mutable). A method reads the Model and writes the
// State; nothing writes a Model after its builder or the scene reader returned it.
//
// Conventions (docs/conventions.md): SI units; planar models move in the x-y plane with y up and
// gravity (0, -g, 0); pendulum pivots are at the origin. Orientations are unit quaternions
// mapping body to world coordinates; inertia tensors are given in body coordinates about the
// centre of mass; angular velocities are in world coordinates.
#pragma once
#include <array>
#include <cmath>
#include <complex>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <Eigen/Core>
#include <Eigen/Geometry>

namespace mb {

using Vec3 = Eigen::Vector3d;
using Mat3 = Eigen::Matrix3d;
using Quat = Eigen::Quaterniond;

// true when every off-diagonal entry is zero (a body-frame inertia about principal axes)
inline bool is_diagonal(const Mat3& m) {
  return m(0, 1) == 0 && m(0, 2) == 0 && m(1, 0) == 0 && m(1, 2) == 0 && m(2, 0) == 0 && m(2, 1) == 0;
}

constexpr int kWorld = -1;  // body index of the fixed world frame in a joint

struct Body {
  std::string name;
  bool particle = false;    // a point mass: translation only, no orientation dynamics
  bool is_static = false;   // never moves (infinite mass)
  // a massless joint frame between two joints of one link (an imported body with several joints in
  // sequence, as MuJoCo composes them): mass 0 and inertia 0; only the reduced-coordinate methods,
  // whose links may be massless, carry it (the model feature "massless frames")
  bool frame = false;
  // a light rigid body standing for such a frame (MJCF frames=light): it moves as a rigid body, and
  // the collision rule sees through it (models/collision.hpp)
  bool light_frame = false;
  double mass = 0;          // kg
  Mat3 inertia = Mat3::Zero();  // kg m^2, body frame, about the centre of mass (rigid bodies)
  Vec3 box = Vec3::Zero();  // box extents in m when the body is a box (informational, 0 if none)
  // initial state
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
  Vec3 velocity = Vec3::Zero();
  Vec3 angular_velocity = Vec3::Zero();  // world frame
};

// Joints are compositions of the six basic constraints of bender2007 s.3: a translational part
// that removes 3 (point: the joint points coincide), 2 (line: b's point stays on the line through
// a's point along axis_a) or 1 (plane: b's point stays on the plane through a's point with normal
// axis_a) degrees of freedom, or a rod (distance L between the points, 1); and a rotational part that
// removes 3 (orientation: q_a^-1 q_b = rel_orientation), 2 (axis: axis_b stays parallel to axis_a)
// or 1 (twist: no relative rotation about axis_a, the twist of the swing-twist decomposition;
// perpendicular: axis_b stays perpendicular to axis_a, the cross of a Cardan joint) degrees of
// freedom.
enum class JointType { Distance, Ball, Hinge, Fixed, Slider, PointOnLine, PointOnPlane, Orientation, Axis, Twist, Cardan, Planar, Cylindrical };
enum class TransPart { None, Rod, Point, Line, Plane };  // rows: 0, 1, 3, 2, 1
enum class RotPart { None, Orientation, Axis, Twist, Perpendicular };  // rows: 0, 3, 2, 1, 1
struct JointParts {
  TransPart trans;
  RotPart rot;
};
// distance = rod; ball = point; hinge = point + axis; fixed = point + orientation;
// slider (prismatic) = line + orientation; cardan (universal) = point + perpendicular; planar =
// plane + axis (the plane's normal is the axis: a turn about it and a slide in the plane);
// cylindrical = line + axis (a turn about the line and a slide along it); the basic ones alone:
// point_on_line, point_on_plane, orientation, axis, twist.
JointParts joint_parts(JointType t);
int trans_rows(TransPart p);
int rot_rows(RotPart p);
const char* joint_type_name(JointType t);
bool joint_type_from_name(const std::string& name, JointType& t);
const std::vector<JointType>& all_joint_types();

struct Joint {
  std::string name;
  JointType type = JointType::Distance;
  int a = kWorld, b = kWorld;   // body indices; kWorld for the fixed frame
  Vec3 anchor_a = Vec3::Zero(); // in a's body frame (world coordinates for kWorld)
  Vec3 anchor_b = Vec3::Zero(); // in b's body frame
  double length = 0;            // Distance: rod length in m
  double extensibility = 0;     // Distance: the relative stretch (or compression) the model allows,
                                // | |a-b| - L | <= extensibility L (bayer2009 s.5's maximum extensibility); 0: rigid
  Vec3 axis_a = Vec3::UnitZ();  // line direction / plane normal / hinge or twist axis, in a's frame
  Vec3 axis_b = Vec3::UnitZ();  // axis and perpendicular parts: b's axis, in b's frame
  Quat rel_orientation = Quat::Identity();  // orientation and twist parts: q_a^-1 q_b that the joint keeps
  // Hinge and slider: a viscous damper in the joint, -damping * rate: a torque about the hinge axis
  // (N m s/rad: the relative angular velocity about it) or a force along the slider (N s/m: the rate
  // of the joint points along it), equal and opposite on the two bodies (the feature "joint dampers")
  double damping = 0;
  // Hinge and slider: unilateral limits of the joint's motor coordinate (models/kinematics.hpp: the
  // angle or displacement from the initial pose, rad or m), lower <= upper; infinite: no limit (the
  // feature "joint limits"). A method that does not claim them runs the model without them.
  double lower = -INFINITY, upper = INFINITY;
  bool limited() const { return std::isfinite(lower) || std::isfinite(upper); }
};

// A rolling constraint: a knife-edge wheel (a thin disk of `radius` about the axle `axle`, in the
// body's frame through its centre of mass) rolling without slipping on the world plane through
// `point` with unit normal `normal` (pointing to the wheel's side). With c the centre, u the world
// axle and d = ((u.n) u - n) / |u x n| the direction from c to the contact in the wheel's plane, the
// contact point is p = c + radius d, and the constraint holds one holonomic row, n . (p - point) = 0,
// and two nonholonomic rows: the wheel's material point at p has no velocity along the plane
// (the feature "rolling constraints"). Together: v + w x (radius d) = 0, three rows.
struct Rolling {
  std::string name;
  int body = 0;
  Vec3 axle = Vec3::UnitY();   // body frame
  double radius = 0;           // m
  Vec3 point = Vec3::Zero();   // a point of the plane, world
  Vec3 normal = Vec3::UnitY(); // unit, world
};

// A coupling of two joints (docs/robots.md "Coupled joints"): joint a's coordinate follows joint
// b's, q_a = multiplier q_b + offset, q the motor coordinate of each (models/kinematics.hpp: a
// hinge's angle about axis_a, a slider's displacement along it, both 0 at the initial state). Both
// joints are hinges or sliders, distinct; the initial state holds the coupling, so |offset| <=
// kCouplingStartTolerance (a source whose start breaks it is refused by its importer). URDF's
// <mimic>, MJCF's joint equality with a linear polycoef (the feature "coupled joints").
struct JointCoupling {
  std::string name;
  int a = 0, b = 0;  // model joint indices: a follows b
  double multiplier = 1;
  double offset = 0;  // rad or m
};
constexpr double kCouplingStartTolerance = 1e-9;

// An applied load on one body during [t_begin, t_end): a torque (world frame, N m) and a force
// (world frame, N, at the centre of mass). A step that straddles an end applies it for its share
// of the step (methods average it over the step). t_end = +inf: a constant load from t_begin on
// (Andrews' driving torque, the push on rolling-box's box). A nonzero force is the model feature
// "applied forces", which a method supports or refuses (methods/method.hpp).
struct AppliedLoad {
  int body = 0;
  Vec3 torque = Vec3::Zero();
  double t_begin = 0, t_end = 0;
  Vec3 force = Vec3::Zero();
};

// Collision geometry (docs/contacts.md). A shape is attached to a body (or to the fixed world,
// body = kWorld) at a pose in that body's frame (world coordinates for kWorld); its own axes are
// those of the pose. Sphere: radius. Box: half_extents. Capsule and cylinder: radius and length
// (the length of the axis segment, along the shape's z; a capsule's total length is length + 2
// radius). Half-space: the solid below the plane through the pose's origin with normal = the
// pose's y axis (a floor: position 0, identity orientation: y <= 0). Convex: a convex polyhedron,
// its vertices (shape frame) and triangular faces (indices into vertices, counter-clockwise seen
// from outside). Half-spaces belong to the world (or a static body).
enum class ShapeType { Sphere, Box, Capsule, Cylinder, HalfSpace, Convex, Ellipsoid };
const char* shape_type_name(ShapeType t);
bool shape_type_from_name(const std::string& name, ShapeType& t);
struct Shape {
  std::string name;
  ShapeType type = ShapeType::Sphere;
  int body = kWorld;
  Vec3 position = Vec3::Zero();         // in the body's frame
  Quat orientation = Quat::Identity();  // in the body's frame
  double radius = 0;                    // m: sphere, capsule, cylinder
  double length = 0;                    // m: capsule, cylinder
  Vec3 half_extents = Vec3::Zero();     // m: box; ellipsoid: its semi-axes along the shape's x, y, z
  std::vector<Vec3> vertices;           // convex
  std::vector<std::array<int, 3>> faces;  // convex
  int material = 0;                     // index into Model::materials
};

// Contact material: Coulomb friction (static and dynamic coefficients) and the restitution
// coefficient of a collision (0: inelastic, 1: elastic). Two shapes in contact use the values of
// the pair's entry in Model::material_pairs if there is one, else the smaller mu_static, the
// smaller mu_dynamic and the smaller restitution of their two materials.
struct Material {
  std::string name = "default";
  double restitution = 0;
  double mu_static = 0, mu_dynamic = 0;
};
struct MaterialPair {
  int a = 0, b = 0;  // material indices (unordered)
  double restitution = 0, mu_static = 0, mu_dynamic = 0;
};
// The contact coefficients of two materials (the pair's entry or the rule above).
Material contact_material(const std::vector<Material>& materials, const std::vector<MaterialPair>& pairs, int a, int b);

// A force element: a linear point-to-point spring-damper between a point of body a and a point of
// body b (kWorld: a fixed point, anchor in world coordinates). With d = p_b - p_a, l = |d|, u = d / l:
//   f = (stiffness (l - rest_length) + damping (v_b - v_a) . u) u   on a at p_a, and -f on b at p_b,
// so a stretched spring pulls the points together. Potential energy stiffness (l - rest_length)^2 / 2
// (docs/models.md, "Force elements"); the damper dissipates.
struct Spring {
  std::string name;
  int a = kWorld, b = kWorld;    // body indices; kWorld for the fixed frame
  Vec3 anchor_a = Vec3::Zero();  // in a's body frame (world coordinates for kWorld)
  Vec3 anchor_b = Vec3::Zero();  // in b's body frame
  double stiffness = 0;          // N/m, >= 0
  double rest_length = 0;        // m, >= 0
  double damping = 0;            // N s/m, >= 0
};

// A body's closed-form motion, where the model has one: uniform acceleration from the initial
// state, x(t) = x0 + v0 t + a t^2 / 2 and v(t) = v0 + a t (a sliding cube, rolling-box's box and
// balls). The metrics exact_pos_error_max and exact_vel_error_max measure a run against it.
struct ExactMotion {
  int body = 0;
  Vec3 acceleration = Vec3::Zero();  // m/s^2, world frame
};

// A named frame fixed to a body (a URDF link merged into the body it is welded to): its pose in the
// body's frame (world coordinates for kWorld).
struct NamedFrame {
  std::string name;
  int body = kWorld;
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
};

// A motor's target: a function of time f(t) that a motor drives its joint coordinate (position
// mode) or that coordinate's rate (velocity mode) to. Constant: value. Ramp: value + rate t. Sine:
// value + amplitude sin(2 pi frequency t + phase). Table: piecewise linear through (times[i],
// values[i]) (times strictly increasing), constant before the first and after the last point.
enum class TargetKind { Constant, Ramp, Sine, Table };
const char* target_kind_name(TargetKind k);
bool target_kind_from_name(const std::string& name, TargetKind& k);
struct MotorTarget {
  TargetKind kind = TargetKind::Constant;
  double value = 0;  // constant: the value; ramp: the value at t = 0; sine: the offset
  double rate = 0;   // ramp: the slope, per s
  double amplitude = 0, frequency = 0, phase = 0;  // sine: frequency in Hz, phase in rad
  std::vector<double> times, values;               // table
  double at(double t) const;          // f(t)
  double rate_at(double t) const;     // f'(t) (a table: the slope of the segment holding t, 0 outside)
  double accel_at(double t) const;    // f''(t) (0 for a ramp and a table)
};

// A drive on a hinge or a slider (a rheonomic constraint, docs/models.md "Motors"). Its coordinate
// q is the joint's displacement from its initial configuration: a hinge's rotation of b relative to
// a about axis_a (rad, right-handed), a slider's translation of b's point relative to a's along
// axis_a (m); q = 0 at the initial state. Position mode: q(t) = target(t), so target(0) = 0.
// Velocity mode: q'(t) = target(t). max_force (N m on a hinge, N on a slider) bounds the motor's
// torque or force; +inf: no bound.
enum class MotorMode { Position, Velocity };
struct Motor {
  std::string name;
  int joint = 0;  // model joint index (a hinge or a slider)
  MotorMode mode = MotorMode::Position;
  MotorTarget target;
  double max_force = INFINITY;
  bool limited() const { return std::isfinite(max_force); }
};
// What is wrong with a target (non-finite numbers, a table whose times do not increase); empty if nothing.
std::string motor_target_problem(const MotorTarget& t);
// |target(0)| a position-mode motor may have (the initial state must satisfy it)
constexpr double kMotorStartTolerance = 1e-12;

// An actuator on a hinge or a slider (docs/robots.md "Actuators and controls"): MuJoCo's affine
// actuator on a joint transmission. With the control c (clamped to [ctrl_low, ctrl_high]), the
// joint's coordinate q (the motor coordinate of models/kinematics.hpp plus `offset`, so that q is
// the source file's own coordinate: MuJoCo's qpos) and its rate q', the actuator's length
// l = gear q and velocity l' = gear q', its force is
//   f = gain c + bias[0] + bias[1] l + bias[2] l'        (clamped to [force_low, force_high])
// and the joint receives the generalized force gear f (a torque about a hinge's axis, a force along
// a slider). motor: gain 1, bias 0; position: gain kp, bias (0, -kp, -kv); velocity: gain kv,
// bias (0, 0, -kv). The law is evaluated on the method's own state: explicit in every method here.
enum class ActuatorKind { Motor, Position, Velocity, General };
const char* actuator_kind_name(ActuatorKind k);
bool actuator_kind_from_name(const std::string& name, ActuatorKind& k);
struct Actuator {
  std::string name;
  int joint = 0;  // model joint index (a hinge or a slider)
  ActuatorKind kind = ActuatorKind::Motor;
  double gear = 1;
  double gain = 1;
  std::array<double, 3> bias = {0, 0, 0};
  double ctrl_low = -INFINITY, ctrl_high = INFINITY;    // ctrlrange (infinite: not limited)
  double force_low = -INFINITY, force_high = INFINITY;  // forcerange
  double offset = 0;  // the file's coordinate of the joint at the initial state (MuJoCo's qpos0)
};

// Where the actuators' controls come from (the model option ctrl=, docs/robots.md). Open loop:
// zero; sine: amplitude sin(2 pi frequency t) on every actuator; noise: piecewise constant on a
// grid of kNoiseCell s of time, on actuator i in cell k the control centre + sigma radius z(seed,
// i, k) with z a standard normal drawn from (seed, i, k) alone (centre and radius of ctrlrange; 0
// and 1 when the control is not limited); table: a file's rows (times strictly increasing, one
// column per actuator), each row held until the next (before the first: the first). hold: each
// position actuator's control is its joint's initial coordinate (offset), the others' 0. A method
// evaluates the controls once a step, at the step's start, and holds them over the step.
enum class ControlKind { Zero, Hold, Sine, Noise, Table };
constexpr double kNoiseCell = 0.01;  // s
struct ControlSource {
  ControlKind kind = ControlKind::Zero;
  std::string text = "zero";  // the option's value as given (records, messages)
  double amplitude = 0, frequency = 0;  // sine
  unsigned long seed = 0;               // noise
  double sigma = 0;                     // noise
  std::vector<double> times;            // table
  std::vector<std::vector<double>> rows;  // table: rows[k][i], actuator i from times[k] on
};

// An MJCF file's own contact model as MuJoCo compiled it, kept as format data beside the Model's
// contacts (its shapes and materials, which every method steps): each colliding geom's
// attributes, the file's explicit pairs and exclusions and its contact options, in MJCF's terms,
// for a method that steps the file's contact model itself. `present` only for a model read from
// MJCF; frames=light adds bodies the file has not, so it leaves `present` false.
struct MjcfGeomContact {
  int contype = 1, conaffinity = 1, condim = 3, priority = 0;
  std::array<double, 3> friction{1, 0.005, 0.0001};
  std::array<double, 2> solref{0.02, 1};
  std::array<double, 5> solimp{0.9, 0.95, 0.001, 0.5, 2};
  double solmix = 1, margin = 0, gap = 0;
};
struct MjcfContactPair {
  int shape1 = 0, shape2 = 0;  // Model::shapes indices
  int condim = 3;
  std::array<double, 5> friction{1, 1, 0.005, 0.0001, 0.0001};
  std::array<double, 2> solref{0.02, 1};
  std::array<double, 5> solimp{0.9, 0.95, 0.001, 0.5, 2};
  double margin = 0, gap = 0;
};
struct MjcfContacts {
  bool present = false;
  std::vector<MjcfGeomContact> shapes;       // one per Model::shapes entry
  std::vector<MjcfContactPair> pairs;        // <contact><pair>
  std::vector<std::array<int, 2>> excludes;  // <contact><exclude>: body indices, kWorld the world
  // <option>: the attributes' MJCF values
  std::string cone = "pyramidal", solver = "Newton", collision = "all";
  int iterations = 100, noslip_iterations = 0, mpr_iterations = 50;
  double impratio = 1, tolerance = 1e-8, noslip_tolerance = 1e-6, mpr_tolerance = 1e-6;
  bool filterparent = true;  // <flag filterparent>
  bool overrides = false;    // <flag override>: o_margin, o_solref, o_solimp replace the geoms'
  double o_margin = 0;
  std::array<double, 2> o_solref{0.02, 1};
  std::array<double, 5> o_solimp{0.9, 0.95, 0.001, 0.5, 2};
  int nconmax = -1, njmax = -1, nstack = -1;  // <size>: the contact and constraint buffers
};

struct State;
// A model whose small motion about a steady one has known eigenvalues (the benchmark bicycle
// about upright, straight-ahead running): four coordinates read from a state, and the eigenvalues
// of the published linearized equations at the model's speed v (eig_err's reference).
struct LinearModes {
  std::string source;
  double v = 0;
  std::array<std::complex<double>, 4> eigenvalues{};
  std::function<std::array<double, 4>(const State&)> coordinates;
};

// Metadata every model carries (docs/conventions.md).
struct ModelInfo {
  std::string name;            // catalog spec ("chain:n=5") or the scene's name
  std::string source;          // where it comes from ("schmitt2005 s.4")
  std::string description;
  std::optional<double> period;  // s, when known analytically
  int tracked_body = -1;         // body whose x gives the location drift (LD)
  double duration = 60;          // default duration, s
  double default_h = 0.005;      // default step, s
  std::vector<double> h_grid;    // default step-size grid, s
  bool energy_conserved = true;
  // its source publishes the state at the end of the default run (the Test Set's t_end): `run`
  // samples the end and measures scd and mescd there against the reference method
  bool published_end = false;
  std::vector<ExactMotion> exact;  // bodies with a closed-form motion (none: no exact_* metrics)
  std::vector<NamedFrame> frames;  // named frames beside the bodies (a URDF's links)
  std::vector<std::string> warnings;  // what the model leaves out of its source, one line each (`mbbench run` prints them)
  std::optional<LinearModes> modes;  // none: no eig_err
};

struct Model {
  ModelInfo info;
  Vec3 gravity = Vec3(0, -9.81, 0);
  std::vector<Body> bodies;
  std::vector<Joint> joints;
  std::vector<AppliedLoad> loads;  // applied torques and forces
  std::vector<Shape> shapes;            // collision geometry; none: no contacts
  std::vector<Material> materials;      // at least one when there are shapes
  std::vector<MaterialPair> material_pairs;
  std::vector<Spring> springs;  // force elements (state-dependent loads)
  std::vector<Motor> motors;    // drives on hinges and sliders (at most one per joint)
  std::vector<Actuator> actuators;  // force actuators on hinges and sliders
  ControlSource control;            // the actuators' controls
  MjcfContacts mjcf_contacts;       // an MJCF file's own contact model (format data)
  std::vector<Rolling> rolling;     // wheels rolling without slipping on planes
  std::vector<JointCoupling> couplings;  // joints whose coordinates are coupled

  int body_index(const std::string& name) const;  // -1 if absent
  int dynamic_body_count() const;
};

struct BodyState {
  Vec3 x = Vec3::Zero();   // position of the centre of mass
  Quat q = Quat::Identity();
  Vec3 v = Vec3::Zero();
  Vec3 w = Vec3::Zero();   // angular velocity, world frame
};

struct State {
  double t = 0;
  std::vector<BodyState> bodies;  // (nbody), same order as Model::bodies
};

State initial_state(const Model& model);

// The default step-size grid (docs/metrics.md): h = 0.00125 * 2^(i/2), i = 0..12.
std::vector<double> default_h_grid();

// Structural checks a builder's output must pass (the scene reader reports the same problems with
// file and line). Throws InputError with `source` as the file.
void check_model(const Model& model, const std::string& source);
// The contact part of check_model: shapes, materials and material pairs.
void check_contact_model(const Model& model, const std::string& source);
// A rod's length may differ from the initial distance of its points by this much (relative to
// max(1, L)): round-off of a builder's positions, not a different length.
constexpr double kRodLengthTolerance = 1e-9;
// The limits of a run (sim/driver.hpp plan_steps; a scene's duration and default_h are checked
// against them when it is read): at most 2^40 steps, at most 10^9 s.
constexpr long kMaxSteps = 1L << 40;
constexpr double kMaxDuration = 1e9;  // s

// Average of the applied torques on each body over the step [t, t + h] (nbody).
void average_torques(const Model& model, double t, double h, std::vector<Vec3>& torque);
// Adds the average of the applied forces on each body over the step [t, t + h] to force (nbody).
void add_average_forces(const Model& model, double t, double h, std::vector<Vec3>& force);
// True when a load of the model has a nonzero force (the feature "applied forces").
bool has_applied_forces(const Model& model);

// Adds the forces and torques (about the centre of mass, world frame) of the model's springs and
// joint dampers at `state` to force and torque (nbody each, already sized). Static bodies receive
// them too (ignored).
void add_spring_loads(const Model& model, const State& state, std::vector<Vec3>& force, std::vector<Vec3>& torque);
// Adds the loads of the joint dampers alone (Joint::damping) at `state`.
void add_joint_damper_loads(const Model& model, const State& state, std::vector<Vec3>& force, std::vector<Vec3>& torque);
// True when a joint of the model has a damper (Joint::damping > 0: the feature "joint dampers").
bool has_joint_dampers(const Model& model);
// True when a joint of the model has a limit (Joint::limited(): the feature "joint limits").
bool has_joint_limits(const Model& model);
// The state-dependent loads add_spring_loads adds: springs or joint dampers.
inline bool has_force_elements(const Model& model) { return !model.springs.empty() || has_joint_dampers(model); }
// Loads that depend on the state: the force elements' and the actuators' (models/actuators.hpp).
inline bool has_state_loads(const Model& model) { return has_force_elements(model) || !model.actuators.empty(); }
// The potential energy of the springs at `state`, sum stiffness (l - rest_length)^2 / 2.
double spring_energy(const Model& model, const State& state);

}  // namespace mb
