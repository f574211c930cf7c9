// The composite-rigid-body algorithm (featherstone2008 ch. 6): the dense joint-space mass matrix
// H, and the accelerations from H qdd = -C by Cholesky, an independent check of the ABA
// (aba.hpp). It works at the world origin: motion subspaces shifted there and inertias formed
// there from each body's COM inertia, no transforms between links; the bias C by recursive
// Newton-Euler with qdd = 0. The dense H and crba_accelerations are O(n^2) in memory (tests and
// cross-checks); mass_matrix_lower keeps H's tree sparsity (H_ij != 0 only where one of links i, j
// is an ancestor of the other) for a sparse factorization (methods/reduced/gc_contact.hpp).
#pragma once
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "methods/reduced/tree_data.hpp"

namespace mb {

// The motion subspace of link i at the world origin after tree_kinematics (world axes, rows
// (omega; v_O): a body point p moves with v_O + omega x p)
TreeView::Mat6X subspace_at_origin(const TreeModel& model, TreeData& data, int i);
// H's lower triangle (diagonal included) at positions q (nq) as (row, column, value) entries, and
// every link's subspace at the origin (the contact Jacobians' columns)
void mass_matrix_lower(const TreeModel& model, TreeData& data, const double* q, std::vector<TreeView::Mat6X>& S,
                       std::vector<Eigen::Triplet<double>>& entries);
// H (nv x nv) at x (the q part is read)
Eigen::MatrixXd mass_matrix(const TreeModel& model, TreeData& data, const std::vector<double>& x);
// qdd (nv) at x, in the convention of aba_accelerations
Eigen::VectorXd crba_accelerations(const TreeModel& model, TreeData& data, const std::vector<double>& x);

}  // namespace mb
