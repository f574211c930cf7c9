// Generalized coordinates of a tree of rigid bodies and Featherstone's articulated-body algorithm
// (featherstone2008 "Rigid Body Dynamics Algorithms", ch. 7, ABA; ch. 6, CRBA), used by GC4 and
// `ref` on every rigid-body tree model (issue 6).
//
// Tree. Extracted from the immutable Model: the world and static bodies are fixed frames; every
// joint becomes the edge from a parent link to a child link (breadth-first from the fixed frames,
// parents before children). A connected group of bodies not attached to a fixed frame gets a
// 6-DOF free joint on its lowest-indexed body (the floating base). Supported joints:
//   free   root not attached to the world: COM position r (3) + quaternion q body->world (4);
//          velocity = spatial velocity at the world origin (omega, v_O) (6), v_O = v_c - omega x r
//   ball   relative quaternion q_rel = q_parent^-1 q_child (4); velocity = relative angular
//          velocity in the child frame, omega_rel_b = R_child^T (omega_child - omega_parent) (3)
//   hinge  angle theta about the child's hinge axis from the initial relative orientation (1)
//   fixed  no coordinate: the child keeps its initial orientation relative to the parent (0)
// Point masses and distance joints (rods) are refused here: a particle has no rotational inertia,
// so a ball joint at its centre would give a singular articulated inertia. Planar point-mass chains
// are handled by PlanarChain (methods/reduced/reduced_system.hpp dispatches); a point mass in a
// rigid tree should be modelled as a small rigid body with a hinge (see tests/articulated_test.cpp).
// Closed kinematic loops are refused (UnsupportedModel naming the joint that closes the loop).
// Child positions follow from the coordinates: the initial state is read through the joints
// (joint points coincide by construction, velocities the joints forbid are dropped).
//
// State vector x = (q (nq), v (nv)), quaternions stored (w, x, y, z).
//
// Spatial algebra in absolute (world) coordinates, every spatial quantity referred to the world
// origin (featherstone2008 s.2; "absolute coordinates" variant of the ABA, so no coordinate
// transforms between links): motion m = (omega, v_O), force f = (n_O, f). Spatial inertia of a
// body of mass m, COM c, world inertia Ic = R I R^T:  I = [Ic + m cx cx^T, m cx; m cx^T, m 1].
// Joint i: v_i = v_p + S_i qd_i with S_i fixed in body i, so dS_i/dt = v_i x S_i and
// c_i = v_i x S_i qd_i; external forces: gravity (c x m g, m g) and the applied torque (tau, 0).
//   pass 1 (root->leaves): v_i, c_i, I^A_i = I_i, p^A_i = v_i x* I_i v_i - f_ext,i
//   pass 2 (leaves->root): U = I^A S, D = S^T U, u = -S^T p^A,
//                          I^A_p += I^A - U D^-1 U^T,  p^A_p += p^A + I^A c + U D^-1 u
//   pass 3 (root->leaves): a' = a_p + c_i, qdd_i = D^-1 (u - U^T a'), a_i = a' + S qdd_i
// O(n) per evaluation; gyroscopic terms enter through v x* I v. The CRBA cross-check builds the
// dense mass matrix H from composite inertias and the bias C by recursive Newton-Euler with
// qdd = 0, then solves H qdd = -C by Cholesky (O(n^2) memory, tests only).
//
// Quaternions. The kinematics use q/|q| (the dynamics do not depend on |q|), and q' = 1/2 q [0, w]
// keeps |q| constant in exact arithmetic; normalize() projects x back to unit quaternions after
// each (accepted) step. The projection moves q by the step's local error (O(h^5) for RK4), so it
// does not lower the order (standard projection, hairer2006 IV.4).
#pragma once
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
  enum class Kind { Free, Ball, Hinge, Fixed };

  // Throws UnsupportedModel naming why when the model is not a tree of rigid bodies with
  // free/ball/hinge/fixed joints.
  static ArticulatedTree extract(const Model& model);

  int nq() const { return nq_; }
  int nv() const { return nv_; }
  int size() const { return nq_ + nv_; }
  int links() const { return static_cast<int>(link_.size()); }
  Kind kind(int link) const { return link_[link].kind; }

  // x (nq + nv) from the Cartesian state, through the joints
  void read(const State& s, std::vector<double>& x) const;
  // Cartesian state (x, q, v, w of every body of the tree) from x
  void write(const std::vector<double>& x, State& s) const;
  // applied torques (nbody, world frame), held constant until the next call
  void set_torques(const std::vector<Vec3>& tau);
  // dxdt = (q', qdd) with qdd from the articulated-body algorithm; mutable scratch (not thread-shared)
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const;
  // projects the quaternions of x to unit length
  void normalize(std::vector<double>& x) const;

  // generalized accelerations (nv): ABA, and CRBA + Cholesky as an independent check
  Eigen::VectorXd accelerations_aba(const std::vector<double>& x) const;
  Eigen::VectorXd accelerations_crba(const std::vector<double>& x) const;
  // dense joint-space mass matrix H (nv x nv) at x (CRBA)
  Eigen::MatrixXd mass_matrix(const std::vector<double>& x) const;

 private:
  struct Link {
    int body = 0;           // model body index
    int parent = -1;        // parent link, -1 for a fixed frame (world or static body)
    Kind kind = Kind::Ball;
    int iq = 0, iv = 0, nd = 0;  // offsets into q and v, degrees of freedom
    Vec3 anchor_p = Vec3::Zero();  // joint point in the parent's frame (in the base frame if parent = -1)
    Vec3 anchor_c = Vec3::Zero();  // joint point in the child's frame
    Vec3 axis_c = Vec3::UnitZ();   // hinge axis in the child's frame (unit)
    Quat q0 = Quat::Identity();    // hinge/fixed: parent->child relative orientation at theta = 0
    Quat base_q = Quat::Identity();  // pose of the fixed parent frame (parent = -1)
    Vec3 base_x = Vec3::Zero();
    double mass = 0;
    Mat3 inertia = Mat3::Zero();   // body frame, about the COM
  };
  // per-link scratch of one evaluation
  struct Work {
    Quat Q;          // body->world, unit
    Mat3 R;
    Vec3 x, j;       // COM and joint point, world
    Mat6X S, U;      // (6 x nd) motion subspace at the origin, I^A S
    MatXX6 Dinv;     // (nd x nd)
    VecX6 u, qdd;    // (nd)
    Vec6 v, c, pA, a, f;
    Mat6 I, IA;      // spatial inertia, articulated inertia (origin, world)
  };

  void kinematics(const double* q, const double* v) const;  // Q, R, x, j, S, v, c, I of every link
  void aba() const;  // qdd of every link (after kinematics with velocities)
  Vec6 external_force(int i) const;

  std::vector<Link> link_;
  int nq_ = 0, nv_ = 0;
  Vec3 g_ = Vec3::Zero();
  std::vector<Vec3> tau_;  // (nbody) applied torques
  mutable std::vector<Work> w_;
};

}  // namespace mb
