// Featherstone's articulated-body algorithm (featherstone2008 "Rigid Body Dynamics Algorithms",
// ch. 7): the O(n) reduced dynamics of GC4 and `ref` on every tree-structured model, over a const
// TreeModel and its TreeData.
//   pass 1 (root->leaves, in tree_kinematics): v_i, c_i, I^A_i = I_i, p^A_i = v_i x* I_i v_i - f_ext,i
//   pass 2 (leaves->root): U = I^A S, D = S^T U, u = Q - S^T p^A, I^a = I^A - U D^-1 U^T,
//                          I^A_p += X^T I^a X,  p^A_p += X^T (p^A + I^a c + U D^-1 u)
//   pass 3 (root->leaves): a' = X a_p + c_i, qdd_i = D^-1 (u - U^T a'), a_i = a' + S qdd_i
// O(n) per evaluation; gyroscopic terms enter through v x* I v; external forces: gravity
// (d x m g, m g) and the applied torque (tau, 0); joint forces Q: a hinge's or slider's damper,
// -damping qd (zero elsewhere). A prescribed link (a motor's hinge or slider, tree_model.hpp) has
// its qdd set before pass 2: I^a = I^A, p^a = p^A + I^A (c + S qdd), a = a' + S qdd. Ball joints
// take these passes as a 3 x 3 Schur complement (ball_kernels.hpp).
#pragma once
#include <vector>

#include <Eigen/Core>

#include "methods/reduced/tree_data.hpp"

namespace mb {

// Passes 2 and 3: qdd of every link, after tree_kinematics with velocities.
void aba(const TreeModel& model, TreeData& data);

// dxdt = (q', qdd) at x = (q, v) (nq + nv): tree_kinematics, aba and the coordinates' rates.
void tree_derivative(const TreeModel& model, TreeData& data, const std::vector<double>& x, std::vector<double>& dxdt);

// The joint-space accelerations (nv; relative rates for rods, the state's (alpha, a_O) for a free
// root) at x by the ABA.
Eigen::VectorXd aba_accelerations(const TreeModel& model, TreeData& data, const std::vector<double>& x);

}  // namespace mb
