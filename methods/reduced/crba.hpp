// The composite-rigid-body algorithm (featherstone2008 ch. 6): the dense joint-space mass matrix
// H, and the accelerations from H qdd = -C by Cholesky, an independent check of the ABA
// (aba.hpp). It works at the world origin: motion subspaces shifted there and inertias formed
// there from each body's COM inertia, no transforms between links; the bias C by recursive
// Newton-Euler with qdd = 0. O(n^2) memory: tests and cross-checks only.
#pragma once
#include <vector>

#include <Eigen/Core>

#include "methods/reduced/tree_data.hpp"

namespace mb {

// H (nv x nv) at x (the q part is read)
Eigen::MatrixXd mass_matrix(const TreeModel& model, TreeData& data, const std::vector<double>& x);
// qdd (nv) at x, in the convention of aba_accelerations
Eigen::VectorXd crba_accelerations(const TreeModel& model, TreeData& data, const std::vector<double>& x);

}  // namespace mb
