// Generalized coordinates of a tree of rigid bodies or of point masses on rods, and Featherstone's
// articulated-body algorithm (featherstone2008 "Rigid Body Dynamics Algorithms", ch. 7, ABA;
// ch. 6, CRBA): the one O(n) reduced dynamics of GC4 and `ref` on every tree-structured model
// (issues 6 and 24).
//
// Tree. Extracted from the immutable Model: the world and static bodies are fixed frames; every
// joint becomes the edge from a parent link to a child link (breadth-first from the fixed frames,
// parents before children). A connected group of rigid bodies not attached to a fixed frame gets a
// 6-DOF free joint on its lowest-indexed body (the floating base). Supported joints:
//   free   root not attached to the world: COM position r (3) + quaternion q body->world (4);
//          velocity = spatial velocity at the world origin (omega, v_O) (6), v_O = v_c - omega x r
//   ball   relative quaternion q_rel = q_parent^-1 q_child (4); velocity = relative angular
//          velocity in the child frame, omega_rel_b = R_child^T (omega_child - omega_parent) (3)
//   hinge  angle theta about the child's hinge axis from the initial relative orientation (1)
//   fixed  no coordinate: the child keeps its initial orientation relative to the parent (0)
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
// Child positions follow from the coordinates: the initial state is read through the joints
// (joint points coincide by construction, velocities the joints forbid are dropped).
//
// State vector x = (q (nq), v (nv)), quaternions stored (w, x, y, z).
//
// Spatial algebra in world-aligned coordinates, each link's quantities referred to its own point
// o_i (the joint point; the COM for a free root) so that every number stays of the size of a
// link, however far the link is from the world origin (a chain of 16383 rods reaches 16 km):
// motion m = (omega, v_o), force f = (n_o, f). Spatial inertia of a body of mass m, COM c,
// world inertia Ic = R I R^T, at o with d = c - o: I = [Ic + m dx dx^T, m dx; m dx^T, m 1]. From the
// parent's point to the child's (r = o_i - o_parent) motion vectors transform by
// X = [1 0; -rx 1] (v_i = v_p + omega x r) and forces back by X^T = [1 rx; 0 1]; each point is
// taken as a fixed point at the instant, so Featherstone's equations hold unchanged in every link's
// coordinates. Joint i: v_i = X v_p + S_i qd_i with S_i fixed in body i, so dS_i/dt = v_i x S_i and
// c_i = v_i x S_i qd_i; external forces: gravity (d x m g, m g) and the applied torque (tau, 0).
//   pass 1 (root->leaves): v_i, c_i, I^A_i = I_i, p^A_i = v_i x* I_i v_i - f_ext,i
//   pass 2 (leaves->root): U = I^A S, D = S^T U, u = -S^T p^A, I^a = I^A - U D^-1 U^T,
//                          I^A_p += X^T I^a X,  p^A_p += X^T (p^A + I^a c + U D^-1 u)
//   pass 3 (root->leaves): a' = X a_p + c_i, qdd_i = D^-1 (u - U^T a'), a_i = a' + S qdd_i
// O(n) per evaluation; gyroscopic terms enter through v x* I v.
// Ball joints (S = [R; 0]) take these passes in world-aligned joint axes (S' = [1; 0], R cancels):
// with I^A = [A B; B^T D], I^a = [0 0; 0 D - B^T A^-1 B] and p^a = (0, f) exactly (a ball passes
// no moment to its parent), so pass 2 forms a 3 x 3 Schur complement instead of the 6 x 6 update,
// and pass 3 gives the angular acceleration g - G a'_bot (g = A^-1 u', G = A^-1 B). A ball link's
// spatial inertia at o comes from its inertia about the joint point (constant in the body frame). The CRBA cross-check builds the
// dense mass matrix H from composite inertias and the bias C by recursive Newton-Euler with
// qdd = 0, both referred to the world origin (the former absolute-coordinates form, an independent
// check of the transforms), then solves H qdd = -C by Cholesky (O(n^2) memory, tests only).
//
// Quaternions. The kinematics use q/|q| (the dynamics do not depend on |q|), and q' = 1/2 q [0, w]
// keeps |q| constant in exact arithmetic; normalize() projects x back to unit quaternions after
// each (accepted) step. The projection moves q by the step's local error (O(h^5) for RK4), so it
// does not lower the order (standard projection, hairer2006 IV.4).
#pragma once
#include <cassert>
#include <vector>

#include <Eigen/Dense>

#include "models/model.hpp"

namespace mb {

class ArticulatedTree {
 public:
  using Vec6 = Eigen::Matrix<double, 6, 1>;
  using Mat6 = Eigen::Matrix<double, 6, 6>;
  using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;               // (6 x nd), nd <= 6
  using MatXX6 = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;  // (nd x nd)
  using VecX6 = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;                // (nd)
  enum class Kind { Free, Ball, Hinge, Fixed, Rod, Swing };

  // Throws UnsupportedModel naming why when the model is neither a tree of rigid bodies with
  // free/ball/hinge/fixed joints nor a tree of point masses on rods.
  static ArticulatedTree extract(const Model& model);

  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int size() const { return nq_ + nv_; }
  int links() const { return static_cast<int>(link_.size()); }
  Kind kind(int link) const { return link_[link].kind; }
  // true for a tree of point masses on rods (every link a rod or a swing)
  bool point_masses() const { return point_masses_; }

  // x (nq + nv) from the Cartesian state, through the joints
  void read(const State& s, std::vector<double>& x) const;
  // Cartesian state (x, q, v, w of every body of the tree) from x
  void write(const std::vector<double>& x, State& s) const;
  // applied torques (nbody, world frame), held constant until the next call
  void set_torques(const std::vector<Vec3>& tau);
  // dxdt = (q', qdd) with qdd from the articulated-body algorithm; mutable scratch (not thread-shared)
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const;
  // ball joints on one parent in pairs (two per SSE2 packet, the default) or one at a time: the
  // same bits either way where the compiler forms no fused multiply-add (the x86-64 SSE2 build of
  // the presets; tests)
  void set_pairs(bool on);
  // projects the quaternions of x to unit length
  void normalize(std::vector<double>& x) const;

  // joint-space accelerations (nv; relative rates for rods, the state's (alpha, a_O) for a free
  // root): ABA, and CRBA + Cholesky as an independent check
  Eigen::VectorXd accelerations_aba(const std::vector<double>& x) const;
  Eigen::VectorXd accelerations_crba(const std::vector<double>& x) const;
  // dense joint-space mass matrix H (nv x nv) at x (CRBA)
  Eigen::MatrixXd mass_matrix(const std::vector<double>& x) const;

 private:
  // What every pass reads of a link (152 bytes; of a link's own setup, a ball joint's kernels read
  // nothing else but for a root ball's base frame in Shape)
  struct Link {
    int body = 0;           // model body index
    int parent = -1;        // parent link, -1 for a fixed frame (world or static body)
    Kind kind = Kind::Ball;
    int iq = 0, iv = 0, nd = 0;  // offsets into q and v, degrees of freedom
    double mass = 0;
    Vec3 anchor_p = Vec3::Zero();  // joint point in the parent's frame (in the base frame if parent = -1)
    Vec3 anchor_c = Vec3::Zero();  // joint point in the child's frame
    Mat3 inertia_j = Mat3::Zero();  // body frame, about the joint point (a ball joint's inertia block at o)
  };
  // The rest, kept apart so that the passes over a ball-joint tree stream through fewer bytes
  struct Shape {
    Vec3 axis_c = Vec3::UnitZ();   // hinge axis in the child's frame (unit)
    double length = 0;             // rod length (rod, swing)
    Quat q0 = Quat::Identity();    // hinge/fixed: parent->child relative orientation at theta = 0
    Quat base_q = Quat::Identity();  // pose of the fixed parent frame (parent = -1)
    Vec3 base_x = Vec3::Zero();
    Vec3 base_j = Vec3::Zero();      // the joint point in the world (parent = -1: fixed)
    Mat3 inertia = Mat3::Zero();   // body frame, about the COM
  };
  static size_t block_size(const Link& L) { return L.kind == Kind::Ball ? 36 : static_cast<size_t>((14 + L.nd) * L.nd); }
  static size_t qdd_offset(const Link& L) { return L.kind == Kind::Ball ? 12 : static_cast<size_t>((13 + L.nd) * L.nd); }
  // per-link scratch of one evaluation, in link order (the passes stream through it)
  struct Work {
    Quat Q;          // body->world, unit
    Mat3 R;
    Vec3 x, o;       // COM and reference point o (the joint point; the COM for a free root), world
    Vec3 r;          // o - o_parent (X from the parent's point to o; 0 at a fixed parent)
    Vec6 v, c, pA, a;
    size_t blocks = 0;  // offset of the link's blocks in blocks_ (S, U, D^-1, u, qdd; a ball: G, g, qdd, ball_I)
    size_t ia = 0;      // index of the link's I^A in IA_ (every joint but the ball)
  };
  // The run-time-size blocks of link i at their sizes (no room kept for 6 degrees of freedom at
  // every link: a ball link's scratch, its Work and blocks, is 672 bytes)
  using MapS = Eigen::Map<Mat6X>;    // (6 x nd)
  using MapD = Eigen::Map<MatXX6>;   // (nd x nd)
  using MapV = Eigen::Map<VecX6>;    // (nd)
  // (every joint but the ball: (14 + nd) nd numbers; a ball joint: G, g, qdd and I^A, 36 numbers)
  MapS S(int i) const { assert(link_[i].kind != Kind::Ball); return MapS(blocks_.data() + w_[i].blocks, 6, link_[i].nd); }  // motion subspace at o
  MapS U(int i) const { assert(link_[i].kind != Kind::Ball); return MapS(blocks_.data() + w_[i].blocks + 6 * link_[i].nd, 6, link_[i].nd); }  // I^A S
  MapD Dinv(int i) const { assert(link_[i].kind != Kind::Ball); return MapD(blocks_.data() + w_[i].blocks + 12 * link_[i].nd, link_[i].nd, link_[i].nd); }
  MapV u(int i) const { assert(link_[i].kind != Kind::Ball); return MapV(blocks_.data() + w_[i].blocks + (12 + link_[i].nd) * link_[i].nd, link_[i].nd); }
  MapV qdd(int i) const { return MapV(blocks_.data() + w_[i].blocks + qdd_offset(link_[i]), link_[i].nd); }
  // a ball joint's pass-2 results for pass 3 (articulate_ball): G = A^-1 B and g = A^-1 u'
  Eigen::Map<Mat3> ball_G(int i) const { assert(link_[i].kind == Kind::Ball); return Eigen::Map<Mat3>(blocks_.data() + w_[i].blocks); }
  Eigen::Map<Vec3> ball_g(int i) const { return Eigen::Map<Vec3>(blocks_.data() + w_[i].blocks + 9); }
  // I^A of link i: the spatial inertia at o after kinematics(), the articulated inertia after
  // pass 2. A ball link keeps the 21 numbers its pass 2 reads, in ball_I: with I^A = [A B; B^T D],
  // A's upper triangle row by row (6), B column by column (9) and D's upper triangle (6)
  Mat6& IA(int i) const { assert(link_[i].kind != Kind::Ball); return IA_[w_[i].ia]; }
  double* ball_I(int i) const { assert(link_[i].kind == Kind::Ball); return blocks_.data() + w_[i].blocks + 15; }
  void add_inertia(int i, const Mat6& I) const;  // I^A_i += I (symmetric I: a ball link adds its upper triangles)

  // Q, R, x, o, r, S and the spatial inertia (in I^A; a ball link: no S, the inertia in ball_I) of
  // every link; with velocities also v, c
  // and the ABA's pass 1 (I^A = the spatial inertia, p^A)
  // (without `dynamics`: poses and velocities only, for write())
  void kinematics(const double* q, const double* v, bool dynamics = true) const;
  void aba() const;  // passes 2 and 3: qdd of every link (after kinematics with velocities)
  // pass 2 of link i (nd > 0): U, D^-1, u; returns I^a and p^A + I^a c + U D^-1 u for the parent.
  // Pass 3 of link i (nd > 0): qdd and a from a' = X a_p + c. ND: nd at compile time, or
  // Eigen::Dynamic (the run-time-size path every joint but the ball takes, unchanged: the rod
  // models keep their bits). Ball joints take articulate_ball / accelerate_ball below.
  template <int ND>
  void articulate(int i, Mat6& Ia, Vec6& pa) const;
  template <int ND>
  void accelerate(int i, const Vec6& a1) const;
  // ball joints (S = [R; 0]): their own kinematics (pose, velocity, the spatial inertia at the
  // joint point from the inertia about it, pass 1 by the blocks of I) and passes 2 and 3 in
  // world-aligned joint axes, where a ball joint passes on an articulated inertia [0 0; 0 K] and a
  // bias force (0, f): no moment through a ball (see articulate_ball)
  // On a number type T: double for one link (link[0]), Eigen::Array2d for two (link[0], link[1]:
  // ball joints on one parent, one per SSE2 lane; lanes.hpp) with the same bits as one at a time
  // (without fused multiply-adds, as the presets build).
  template <class T>
  void kinematics_ball(const int* link, const double* q, const double* v, bool dynamics) const;
  template <class T>
  void articulate_ball(const int* link) const;  // pass 2, added into the parent (link[1] first)
  template <class T>
  void accelerate_ball(const int* link) const;  // pass 3 (a' = X a_parent + c formed here)
  Vec6 external_force(int i) const;  // at o_i
  Vec6 parent_motion(int i, const Vec6& m_parent) const;  // X m_parent (0 at a fixed parent)
  Mat6X subspace_at_origin(int i) const;  // S_i referred to the world origin (CRBA check)
  // the spatial inertia of link i at the world origin from its body's mass and inertia about the
  // COM (CRBA check: independent of the inertia the kinematics form at o)
  Mat6 inertia_at_origin(int i) const;

  std::vector<Link> link_;
  std::vector<Shape> shape_;  // (links)
  int nq_ = 0, nv_ = 0;
  bool point_masses_ = false;
  Vec3 g_ = Vec3::Zero();
  std::vector<Vec3> tau_;  // (nbody) applied torques
  // pair_[i]: links i and i + 1 are ball joints on one parent, taken as a pair in every pass
  // (greedily in link order; set_pairs(false) takes every link alone)
  std::vector<char> pair_;
  mutable std::vector<Work> w_;
  mutable std::vector<double> blocks_;  // (sum over links of block_size)
  mutable std::vector<Mat6> IA_;        // (links but the ball joints)
};

}  // namespace mb
