#include "methods/common/linear_solver.hpp"

#include <Eigen/CholmodSupport>
#include <Eigen/Dense>
#include <Eigen/SparseCore>

#include "core/error.hpp"
#include "methods/common/tree_solver.hpp"

namespace mb {

namespace {

class DenseLdlt final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem&) override {}
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_dense(A_);
    ldlt_ = std::make_unique<Eigen::LDLT<Eigen::MatrixXd>>(A_);
    if (ldlt_->info() != Eigen::Success) throw SimulationError("dense LDL^T of A failed");
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { x = ldlt_->solve(b); }

 private:
  Eigen::MatrixXd A_;
  std::unique_ptr<Eigen::LDLT<Eigen::MatrixXd>> ldlt_;  // heap: Eigen's LDLT must not be moved default-built
};

class DenseLu final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem&) override {}
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_dense(A_);
    lu_ = std::make_unique<Eigen::PartialPivLU<Eigen::MatrixXd>>(A_);
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { x = lu_->solve(b); }

 private:
  Eigen::MatrixXd A_;
  std::unique_ptr<Eigen::PartialPivLU<Eigen::MatrixXd>> lu_;
};

class Cholmod final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem&) override {
    chol_ = std::make_unique<Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower>>();
    chol_->cholmod().nmethods = 1;
    chol_->cholmod().method[0].ordering = CHOLMOD_AMD;
    analyzed_ = false;
  }
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_sparse_lower(A_);
    // the fill-reducing AMD ordering and the symbolic factorisation once
    if (!analyzed_) {
      chol_->analyzePattern(A_);
      analyzed_ = true;
    }
    chol_->factorize(A_);
    if (chol_->info() != Eigen::Success) throw SimulationError("CHOLMOD factorisation of A failed (not positive definite?)");
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { x = chol_->solve(b); }

 private:
  Eigen::SparseMatrix<double> A_;
  std::unique_ptr<Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower>> chol_;
  bool analyzed_ = false;
};

class Tree final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem& cs) override { tree_.analyze(cs); }
  void factor(const ConstraintSystem& cs) override { tree_.factor(cs); }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { tree_.solve(b, x); }

 private:
  TreeSolver tree_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_tree_solver() { return std::make_unique<Tree>(); }
std::unique_ptr<LinearSolver> make_dense_solver() { return std::make_unique<DenseLdlt>(); }
std::unique_ptr<LinearSolver> make_lu_solver() { return std::make_unique<DenseLu>(); }
std::unique_ptr<LinearSolver> make_cholmod_solver() { return std::make_unique<Cholmod>(); }

}  // namespace mb
