// Shared parts of the peer-engine adapters (docs/peers.md): the one translation of our Model into
// what every engine needs -- joints with their anchors and axes in world coordinates at the
// initial state, the inertia given to a point mass, the spanning tree of the reduced-coordinate
// engines -- and the checks that refuse, with a reason, what an engine cannot express.
// Each engine (methods/peers/<engine>.cpp) translates this once in do_init and copies the
// Cartesian State back after every step.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/spec.hpp"
#include "methods/method.hpp"

namespace mb {

// A joint at the initial state in world coordinates. Static bodies are the world (kWorld): an
// engine fixes them. Anchors are the joint points of a and b (they coincide except for a rod).
struct PeerJoint {
  int index = 0;                   // in Model::joints
  JointType type = JointType::Ball;
  int a = kWorld, b = kWorld;      // dynamic body indices, kWorld for the world or a static body
  Vec3 anchor_a = Vec3::Zero(), anchor_b = Vec3::Zero();  // world
  Vec3 axis_a = Vec3::UnitZ(), axis_b = Vec3::UnitZ();     // world, unit
  double length = 0;               // rod length
};
std::vector<PeerJoint> peer_joints(const Model& model, const State& state);

// Throws UnsupportedModel ("<engine> cannot express ...") for a joint type outside `types` or a
// joint between two fixed bodies. An extensible rod (bayer2009's maximum extensibility) is held at
// its length: no engine has a distance range, and a rigid rod meets the allowance.
void require_joint_types(const Model& model, const std::string& engine, const std::vector<JointType>& types);

// The option every engine has for point masses: an engine knows only rigid bodies, so a particle
// becomes a sphere of this radius (inertia 2/5 m r^2 about every axis). Its rotation is decoupled
// from its translation (every joint and load acts at its centre), so the radius changes nothing
// in exact arithmetic; it only keeps the engine's solver away from a singular inertia.
OptionInfo particle_radius_option();
Mat3 particle_inertia(const Body& body, double radius);

// The principal axes of an inertia tensor (body frame): I = R diag(moments) R^T, R a rotation
// (an engine that takes a diagonal inertia frames the body by R: its orientation is q R).
struct PrincipalAxes {
  Vec3 moments;
  Quat rotation;
};
PrincipalAxes principal_axes(const Mat3& inertia);

// The option of the reduced-coordinate engines for point masses: a point mass on a rod turns with
// the rod, so its own inertia adds to the pendulum's; tiny, but above the engine's singular limit.
OptionInfo point_inertia_option(const std::string& def);

// The spanning tree a reduced-coordinate engine builds: each dynamic body's parent (kWorld for a
// root) and the joint to it (-1: a floating root, 6 degrees of freedom), in an order with parents
// first (breadth first from the world). A joint that closes a loop throws UnsupportedModel, or with
// `closing` is listed there (for an engine that closes loops with constraints of its own).
struct PeerTree {
  std::vector<int> order;   // dynamic body indices, parents before children
  std::vector<int> parent;  // (nbody) parent body or kWorld
  std::vector<int> joint;   // (nbody) index into the peer_joints list, -1 for a floating root
  std::vector<bool> flip;   // (nbody) true when the joint's b is the parent (a the child)
  std::vector<int> closing; // indices into the peer_joints list of the joints that close loops
};
PeerTree peer_tree(const Model& model, const std::vector<PeerJoint>& joints, const std::string& engine, bool close_loops = false);

// The body (tree node) whose joint to its parent is model joint `joint`; -1 when that joint closes
// a loop (a motor there has no tree joint to drive).
int tree_child_of_joint(const std::vector<PeerJoint>& joints, const PeerTree& tree, int joint);

// An engine whose hinge or slider coordinate turns (moves) the tree child relative to its parent
// about (along) the axis it was built with (the parent's side: axis_b where the tree runs the joint
// from b to a) has the coordinate sign q, q ours (b relative to a about axis_a): the sign.
double peer_coordinate_sign(const PeerJoint& j, bool flip);
// A joint's limits [lower, upper] in such a coordinate (sign q): negated and swapped for sign -1,
// open ends infinite.
std::pair<double, double> peer_limits(const Joint& joint, double sign);

// The rate a motor asks for at the end of a step [t, t + h] in its joint's coordinate: a velocity
// motor's f(t + h); a position motor's gap to f(t + h) from where the joint is, over h (a hinge's
// gap wrapped to (-pi, pi]).
double motor_step_rate(const Model& model, const State& state, const Motor& motor, double h);

// The world points (at the initial state) at which an engine's point-on-point constraints close a
// loop at joint j: a ball joint at its anchor, a hinge at its anchor and 1 m along its axis (the
// second point also holds the axis: 6 rows for its 5 conditions); empty for the other types.
std::vector<Vec3> closure_points(const PeerJoint& j);

// The frame of every body of the tree at the initial state (world), as the reduced-coordinate
// engines take it: a rigid body at its centre of mass with its orientation and angular velocity; a
// point mass on a rod (which an engine models as a body turning with the rod) at the rod's pivot,
// its centre of mass at com = x - pivot, turning with the rod at w = d x (v - v_pivot) / |d|^2,
// with two world axes u1, u2 perpendicular to the rod (u1: the axis of w when the rod turns, else
// the world axis most perpendicular to it, z first on a tie, made perpendicular; u2 = d/|d| x u1),
// so that a planar swing turns about u1, away from the singularity of two hinges in series at
// 90 degrees about u2. Throws UnsupportedModel naming the
// engine for a rod that is not held at a point mass's centre or has zero length.
struct PeerFrame {
  Vec3 origin = Vec3::Zero();
  Quat q = Quat::Identity();
  Vec3 com = Vec3::Zero();  // the centre of mass in the frame's (world-aligned) axes
  Vec3 w = Vec3::Zero();
  bool rod = false;
  Vec3 u1 = Vec3::UnitX(), u2 = Vec3::UnitY();
};
std::vector<PeerFrame> peer_frames(const Model& model, const State& state, const std::vector<PeerJoint>& joints,
                                   const PeerTree& tree, const std::string& engine);
// A world-aligned rotation whose first axis is x and second y (y made perpendicular to x).
Quat frame_xy(const Vec3& x, const Vec3& y);
// A rotation whose z axis is z (its x: the world axis least along z, made perpendicular to it).
Quat frame_z(const Vec3& z);
// The velocity of world point p moving with body b's frame (kWorld: at rest).
Vec3 peer_point_velocity(const State& state, const std::vector<PeerFrame>& frames, int b, const Vec3& p);

// Writes one body's Cartesian state (a particle keeps its orientation and zero angular velocity).
// The actuators' loads at the step's start, held over the step (an explicit servo: the engine's
// own actuators are not used, so that every engine gets one law): the controls at state.t into
// ctrl, then add_actuator_loads (models/actuators.hpp) into force and torque.
void add_peer_actuator_loads(const Model& model, const State& state, std::vector<double>& ctrl, std::vector<Vec3>& force,
                             std::vector<Vec3>& torque);

void write_body(const Body& body, BodyState& s, const Vec3& x, const Quat& q, const Vec3& v, const Vec3& w);

// Engines not built into this binary, with why (their CMake option is off or the package was not
// found when it was configured): `mbbench list` shows them, the engine tests skip them by name.
std::vector<std::pair<std::string, std::string>> peers_not_built();

}  // namespace mb
