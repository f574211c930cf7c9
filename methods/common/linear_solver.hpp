// Linear solvers for A x = b with A = J M^-1 J^T of one ConstraintSystem, shared by the impulse
// methods (bender2007 s.3-4) and the Lagrange-multiplier methods (schmitt2005 s.5, bender2007 s.6).
// analyze() once per structure, factor() when the Jacobians change, solve() any number of times.
#pragma once
#include <memory>
#include <string>

#include <Eigen/Core>

#include "methods/common/constraint_system.hpp"

namespace mb {

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  virtual void analyze(const ConstraintSystem& cs) = 0;
  virtual void factor(const ConstraintSystem& cs) = 0;
  virtual void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) = 0;
};

using LinearSolverFactory = std::unique_ptr<LinearSolver> (*)();

std::unique_ptr<LinearSolver> make_dense_solver();    // dense A, Eigen LDL^T (O(n^3))
std::unique_ptr<LinearSolver> make_lu_solver();       // dense A, Eigen partial-pivot LU (O(n^3))
std::unique_ptr<LinearSolver> make_cholmod_solver();  // sparse A, CHOLMOD supernodal Cholesky, AMD ordering
std::unique_ptr<LinearSolver> make_tree_solver();     // H = [M -J^T; -J 0], O(n) block LDL^T (acyclic only)

}  // namespace mb
