// Linear solvers for A x = b with A = J M^-1 J^T of one ConstraintSystem, shared by the impulse
// methods (bender2007 s.3-4) and the Lagrange-multiplier methods (schmitt2005 s.5, bender2007 s.6).
// analyze() once per structure, factor() when the Jacobians change, solve() any number of times.
#pragma once
#include <functional>
#include <memory>
#include <string>

#include <Eigen/Core>

#include "methods/constraints/constraint_system.hpp"

namespace mb {

// What a factorization reports (0 where a solver does not know): the nonzeros of the lower
// triangle of A (diagonal included) and of the factor L, the estimate CHOLMOD gives of the
// reciprocal condition of the factored matrix ((min diag L / max diag L)^2), the regularization
// added to the diagonal, and the seconds the last factor() spent in the symbolic analysis.
struct FactorInfo {
  long nnz_a = 0, nnz_l = 0;
  double rcond = 0, shift = 0, t_analysis = 0;
  double condition = 0;  // lambda_max / lambda_min over the eigenvalues of A above kNullEigenvalue lambda_max
};
// Eigenvalues of A below this fraction of lambda_max count as the null space of redundant
// constraints (round-off leaves them at about 1e-16 lambda_max), not as lambda_min.
constexpr double kNullEigenvalue = 1e-12;
// The largest A whose spectrum is computed (dense symmetric eigensolver, O(n^3)).
constexpr long kMaxSpectrumRows = 4000;

class LinearSolver {
 public:
  virtual ~LinearSolver() = default;
  virtual void analyze(const ConstraintSystem& cs) = 0;
  virtual void factor(const ConstraintSystem& cs) = 0;
  virtual void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) = 0;
  // X = A^-1 B column by column (a solver may solve the block at once: the same numbers)
  virtual void solve_columns(const Eigen::MatrixXd& B, Eigen::MatrixXd& X);
  virtual FactorInfo factor_info() const { return {}; }
  // true when factor() reports nothing (factor_info() stays empty) and may therefore be put off
  // until the first solve(): a step whose corrections all start within tolerance then skips it
  // (the results are the same bits: factor() depends only on the ConstraintSystem it is given)
  virtual bool factor_on_demand() const { return false; }
  // false when factor() reads a ball joint's lever arms and not its 6 x 6 Jacobian blocks (the
  // tree solver's ball kernels): the ConstraintSystem then need not keep those up to date
  // (ConstraintSystem::keep_ball_jacobians)
  virtual bool reads_ball_jacobians() const { return true; }
  // false where the matrix factored is not A itself (A + a regularizing shift): A X = B then holds
  // only to the shift's order, not to round-off
  virtual bool factors_a() const { return true; }
};

using LinearSolverFactory = std::function<std::unique_ptr<LinearSolver>()>;

// dense A, Eigen LDL^T (O(n^3)); a positive semi-definite A (redundant constraints) is solved on
// its range: the pivots below kNullEigenvalue of the largest count as zero
std::unique_ptr<LinearSolver> make_dense_solver();
// A by blocks (a joint with its motors one block, at most 6 rows), Cholesky in the minimum-degree
// order of the blocks: leaves first, a body's clique of joints last (O(n) on a tree of bounded
// degree); where the joints close a loop (A may be singular), or a pivot is not positive, the
// dense LDL^T (methods/solvers/block_cholesky.cpp)
std::unique_ptr<LinearSolver> make_block_solver();
std::unique_ptr<LinearSolver> make_lu_solver();       // dense A, Eigen partial-pivot LU (O(n^3))
// dense A, Eigen's complete orthogonal decomposition: the minimum-norm least-squares solution, exact
// for a singular A (redundant constraints) with b in its range (O(n^3); for references)
std::unique_ptr<LinearSolver> make_min_norm_solver();
std::unique_ptr<LinearSolver> make_cholmod_solver();  // sparse A, CHOLMOD Cholesky (supernodal or simplicial by CHOLMOD's rule), AMD ordering
// The same with Tikhonov regularization (tomcin2014 s.4): A + alpha 1 is factored, alpha =
// eps_t * norm1(A) (the largest column sum of |A|), so that A with dependent rows (redundant
// constraints) is positive definite. The symbolic analysis (AMD ordering) once, the numeric
// factorization once per factor().
// With `spectrum`, every factor() also computes the spectral condition of A (FactorInfo::condition)
// by a dense eigensolver: for studies of small mechanisms (at most kMaxSpectrumRows rows).
std::unique_ptr<LinearSolver> make_regularized_cholmod_solver(double eps_t, bool spectrum = false);
std::unique_ptr<LinearSolver> make_tree_solver();     // H = [M -J^T; -J 0], O(n) block LDL^T (acyclic only)

}  // namespace mb
