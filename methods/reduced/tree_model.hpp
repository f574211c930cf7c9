// The reduced-coordinate description of a tree-structured Model: built once, then only read by
// the tree algorithms (tree_kinematics.hpp, aba.hpp, crba.hpp) that keep their per-evaluation
// arrays in a TreeData (tree_data.hpp): TreeModel is to TreeData what mjModel is to mjData, or
// Pinocchio's Model to its Data.
//
// Tree. Extracted from the const Model: the world and static bodies are fixed frames; every
// joint becomes the edge from a parent link to a child link (breadth-first from the fixed frames,
// parents before children). A connected group of rigid bodies not attached to a fixed frame gets a
// 6-DOF free joint on its lowest-indexed body (the floating base). Joints (coordinates q, rates v):
//   free   root not attached to the world: COM position r (3) + quaternion q body->world (4);
//          velocity = spatial velocity at the world origin (omega, v_O) (6), v_O = v_c - omega x r
//   ball   relative quaternion q_rel = q_parent^-1 q_child (4); velocity = relative angular
//          velocity in the child frame, omega_rel_b = R_child^T (omega_child - omega_parent) (3)
//   hinge  angle theta about the child's hinge axis from the initial relative orientation (1)
//   slider displacement s of the child's joint point from the parent's along the slider axis
//          (fixed in both frames), the relative orientation kept at its initial value (1);
//          velocity s' = (v_child point - v_parent point) . axis
//   cardan a universal joint (JointType::Cardan): two angles, theta_1 about the axis fixed in the
//          parent, then theta_2 about the axis fixed in the child, from the initial relative
//          orientation q0: q_rel = R(a_p, theta_1) q0 R(a_c, theta_2) (2), the coordinates of
//          MuJoCo's two hinges on one body less their initial values; velocity (theta_1', theta_2'),
//          S = [u_1, u_2; 0, 0] (u_1 = R_parent a_p, u_2 = R_child a_c, perpendicular), whose
//          velocity product c = v x S qd + theta_1' theta_2' (u_1 x u_2, 0) (u_1 turns with the
//          parent, u_2 with the child)
//   planar (JointType::Planar) the child's joint point o moves from the parent's, j, in the plane
//          normal to the axis, s_1 and s_2 along the basis e_1, e_2 = orthogonal_basis(a_p) fixed
//          in the parent, o = j + R_p (s_1 e_1 + s_2 e_2), then turns by theta about the axis
//          through o: q_rel = q0 R(a_c, theta) (3): MuJoCo's slide, slide, hinge on one body, the
//          slides a linear map of (s_1, s_2). S = [0, 0, u; u_1, u_2, 0] (u_k = R_p e_k, u = R a_c);
//          u_1, u_2 turn with the parent, so c = v x S qd + (0, theta' (s_1' u_1 + s_2' u_2) x u)
//   cylindrical (JointType::Cylindrical) theta about the axis, then s along it from the parent's
//          point, o = j + s u (2): the axis is fixed in both frames, S = [u, 0; 0, u], c = v x S qd
//   fixed  no coordinate: the child keeps its initial orientation relative to the parent (0)
//   A hinge's or slider's damper (Joint::damping) is the joint force -damping qd: the ABA's
//   u = Q - S^T p^A with that Q.
//   rod    a point mass on a distance joint (rod) from a fixed point or from another point mass,
//          in a plane z = const with gravity in that plane: a hinge about z through the parent
//          point (the link is the point mass at distance L, spatial inertia of a point mass, so
//          D = S^T I^A S >= m L^2 > 0). Coordinate: the absolute angle phi of the rod from the -y
//          axis, p = p_parent + L (sin phi, -cos phi, 0), velocity phi' (1) -- the rod angles of
//          schmitt2005 s.5, so GC4 integrates the same state as the paper's mass-matrix form
//          (the ABA works with the relative rate phi' - phi'_parent and returns the absolute
//          phi'' = the z component of the link's angular acceleration).
//   swing  a point mass on a rod in space (a point-mass tree that leaves its plane, or whose gravity
//          does): a ball joint at the parent point without the spin about the rod, which is a null
//          direction of a leaf point mass (D = S^T I^A S would be singular). The link frame carries
//          the rod along its -z axis, the point mass at x = j - L R e_z. Coordinate: the frame
//          relative to the parent link's frame (the base frame at a fixed point), a quaternion (4);
//          velocity: the relative angular velocity about the link frame's x and y axes (2), so
//          S = [R e_x, R e_y; 0, 0] and q_rel' = 1/2 q_rel [0, (w_x, w_y, 0)]. The spin of a frame
//          about its rod is carried along from the parent and never reaches the point mass. Read
//          from a Cartesian state, the frame is the parent's turned by the smallest rotation onto
//          the rod.
// A point-mass tree is planar (rod links) when every point mass, its velocity and every pivot lie
// in one plane z = const with gravity in it, and spatial (swing links) otherwise; the planar form
// keeps schmitt2005's rod angles. Point-mass trees and rigid-body trees do not mix: a rod joins
// point masses (or a point mass to a fixed point), a point mass hangs only on rods, and a rigid
// body never on a rod. Point masses carry no applied torque. Closed kinematic loops are refused
// (UnsupportedModel naming the joint that closes the loop).
// Motors (Model::motors) are prescribed motion of their hinge's or slider's coordinate (hybrid
// dynamics, featherstone2008 ch. 9): the coordinate, its rate and its acceleration follow the
// target; pass 2 hands the parent the link's whole I^A and the bias p^A + I^A (c + S qdd) (no
// projection: the joint transmits every force the motion needs), pass 3 adds S qdd. A motor's
// coordinate is the tree coordinate times `sign` (-1 where the tree's child is the joint's body a).
// A bounded motor (max_force) is refused: prescribed motion takes whatever force it needs.
// Child positions follow from the coordinates: the initial state is read through the joints
// (joint points coincide by construction, velocities the joints forbid are dropped).
//
// State vector x = (q (nq), v (nv)), quaternions stored (w, x, y, z).
//
// Quaternions. The kinematics use q/|q| (the dynamics do not depend on |q|), and q' = 1/2 q [0, w]
// keeps |q| constant in exact arithmetic; normalize() projects x back to unit quaternions after
// each (accepted) step. The projection moves q by the step's local error (O(h^5) for RK4), so it
// does not lower the order (standard projection, hairer2006 IV.4).
#pragma once
#include <vector>

#include "methods/bodies/spatial.hpp"
#include "models/model.hpp"

namespace mb {

enum class TreeJoint { Free, Ball, Hinge, Slider, Fixed, Rod, Swing, Cardan, Planar, Cylindrical };

// Degrees of freedom (velocity coordinates) and position coordinates of a joint.
int joint_dofs(TreeJoint k);
int joint_coordinates(TreeJoint k);

// What every pass reads of a link (152 bytes; of a link's own setup, a ball joint's kernels read
// nothing else but for a root ball's base frame in LinkSetup).
struct TreeLink {
  int body = 0;           // model body index
  int parent = -1;        // parent link, -1 for a fixed frame (world or static body)
  TreeJoint kind = TreeJoint::Ball;
  int iq = 0, iv = 0, nd = 0;  // offsets into q and v, degrees of freedom
  double mass = 0;
  Vec3 anchor_p = Vec3::Zero();  // joint point in the parent's frame (in the base frame if parent = -1)
  Vec3 anchor_c = Vec3::Zero();  // joint point in the child's frame
  Mat3 inertia_j = Mat3::Zero();  // body frame, about the joint point (a ball joint's inertia block at o)
};

// The rest of a link's setup, kept apart so that the passes over a ball-joint tree stream through
// fewer bytes.
struct LinkSetup {
  Vec3 axis_c = Vec3::UnitZ();   // hinge or slider axis, a cardan's second axis, in the child's frame (unit)
  // a cardan's first axis, a planar's or cylindrical's axis, in the parent's frame (the base frame
  // if parent = -1; unit)
  Vec3 axis_p = Vec3::UnitZ();
  double length = 0;             // rod length (rod, swing)
  Quat q0 = Quat::Identity();    // hinge/slider/fixed/cardan/planar/cylindrical: parent->child relative orientation at q = 0
  Quat base_q = Quat::Identity();  // pose of the fixed parent frame (parent = -1)
  Vec3 base_x = Vec3::Zero();
  Vec3 base_j = Vec3::Zero();      // the joint point in the world (parent = -1: fixed)
  Mat3 inertia = Mat3::Zero();   // body frame, about the COM
  double damping = 0;            // hinge or slider: the joint damper's coefficient (Joint::damping)
};

// A motor on a tree link's hinge or slider.
struct TreePrescribed {
  int link = 0;      // the driven link
  int motor = 0;     // Model::motors index
  double sign = 1;   // tree coordinate = sign * the motor's coordinate
};

// An actuator on a tree link's hinge or slider (models/actuators.hpp): its joint force
// sign * actuator_force(actuator, ctrl, sign q + offset, sign qd) from the link's coordinate q.
struct TreeActuator {
  int link = 0;
  int index = 0;     // Model::actuators index (the control's)
  double sign = 1;   // tree coordinate = sign * the joint's motor coordinate
  Actuator actuator;
};

// A joint limit on a tree link's hinge or slider, in the link's coordinate (sign applied: the
// model's [lower, upper] or [-upper, -lower]).
struct TreeLimit {
  int link = 0;
  double lower = -INFINITY, upper = INFINITY;
};

// A coupling of two tree hinges or sliders (Model::couplings): link a's velocity follows link b's,
// v_a = multiplier v_b, in the links' coordinates (the joints' signs applied). ReducedSystem holds
// it by a generalized force on both links, solved at each evaluation.
struct TreeCoupling {
  int a = 0, b = 0;  // links
  double multiplier = 1;
  int index = 0;  // Model::couplings
};

struct TreeModel {
  // Throws UnsupportedModel naming why when the model is neither a tree of rigid bodies with
  // free/ball/hinge/slider/fixed/cardan/planar/cylindrical joints nor a tree of point masses on
  // rods. pair_balls: ball joints on one parent in pairs (two per SSE2 packet, the default) or one
  // at a time: the same bits either way where the compiler forms no fused multiply-add (the x86-64
  // SSE2 build of the presets; tests).
  static TreeModel build(const Model& model, bool pair_balls = true);

  std::vector<TreeLink> link;    // (links) parents before children
  std::vector<LinkSetup> setup;  // (links)
  // pair[i]: links i and i + 1 are ball joints on one parent, taken as a pair in every pass
  // (greedily in link order)
  std::vector<char> pair;  // (links)
  int nq = 0, nv = 0;
  int nbody = 0;              // bodies of the Model (the size of the applied torques)
  bool point_masses = false;  // every link a rod or a swing
  bool damped = false;        // a hinge or slider has a damper: the joint force -damping qd enters u
  // a hinge or slider has a joint force (a damper or an actuator): TreeData::joint_force enters u
  // (a flag of its own: the passes test it at every link)
  bool joint_forces = false;
  Vec3 gravity = Vec3::Zero();
  std::vector<TreePrescribed> prescribed;  // the motors
  std::vector<char> is_prescribed;         // (links, or empty without motors) the link's motion is prescribed
  std::vector<TreeActuator> actuators;     // Model::actuators on the tree's hinges and sliders
  std::vector<TreeLimit> limits;           // the limited joints that are the tree's hinges and sliders
  std::vector<TreeCoupling> couplings;     // Model::couplings of the tree's hinges and sliders


  int size() const { return nq + nv; }
  int links() const { return static_cast<int>(link.size()); }

  // x (nq + nv) from the Cartesian state, through the joints
  void read(const State& s, std::vector<double>& x) const;
  // projects the quaternions of x to unit length
  void normalize(std::vector<double>& x) const;
};

}  // namespace mb
