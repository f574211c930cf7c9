#include "methods/common/linear_solver.hpp"

#include <chrono>
#include <cmath>

#include <Eigen/CholmodSupport>
#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <fmt/format.h>

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

class DenseMinNorm final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem&) override {}
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_dense(A_);
    cod_.compute(A_);
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { x = cod_.solve(b); }

 private:
  Eigen::MatrixXd A_;
  Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod_;
};

// Eigen's supernodal LL^T with access to CHOLMOD's factor (for rcond)
class SupernodalLlt : public Eigen::CholmodSupernodalLLT<Eigen::SparseMatrix<double>, Eigen::Lower> {
 public:
  double rcond() { return m_cholmodFactor ? cholmod_rcond(m_cholmodFactor, &cholmod()) : 0.0; }
};

// norm1 of the symmetric matrix whose lower triangle is L: the largest column sum of |A|
double symmetric_norm1(const Eigen::SparseMatrix<double>& L) {
  Eigen::VectorXd col = Eigen::VectorXd::Zero(L.cols());
  for (int j = 0; j < L.outerSize(); ++j)
    for (Eigen::SparseMatrix<double>::InnerIterator it(L, j); it; ++it) {
      col[j] += std::abs(it.value());
      if (it.row() != j) col[it.row()] += std::abs(it.value());
    }
  return col.size() ? col.maxCoeff() : 0.0;
}

// lambda_max / lambda_min of the symmetric matrix whose lower triangle is L, over the eigenvalues
// above kNullEigenvalue lambda_max
double spectral_condition(const Eigen::SparseMatrix<double>& L) {
  if (L.rows() > kMaxSpectrumRows)
    throw SimulationError(fmt::format("the spectrum of A is computed up to {} rows, A has {}", kMaxSpectrumRows, L.rows()));
  const Eigen::MatrixXd A = Eigen::MatrixXd(L).selfadjointView<Eigen::Lower>();
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(A, Eigen::EigenvaluesOnly).eigenvalues();
  const double lmax = ev.size() ? ev.maxCoeff() : 0.0;
  double lmin = lmax;
  for (double l : ev)
    if (l > kNullEigenvalue * lmax) lmin = std::min(lmin, l);
  return lmin > 0 ? lmax / lmin : 0.0;
}

class Cholmod final : public LinearSolver {
 public:
  explicit Cholmod(double eps_t = 0, bool spectrum = false) : eps_t_(eps_t), spectrum_(spectrum) {}
  void analyze(const ConstraintSystem&) override {
    chol_ = std::make_unique<SupernodalLlt>();
    chol_->cholmod().nmethods = 1;
    chol_->cholmod().method[0].ordering = CHOLMOD_AMD;
    chol_->cholmod().print = 0;  // a failed factorization is reported by the exception below, not on stderr
    analyzed_ = false;
  }
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_sparse_lower(A_);
    info_.t_analysis = 0;
    if (A_.rows() == 0) return;  // no constraints (a model of springs alone): CHOLMOD has no empty factor
    // the fill-reducing AMD ordering and the symbolic factorisation once
    if (!analyzed_) {
      const auto t0 = std::chrono::steady_clock::now();
      chol_->analyzePattern(A_);
      analyzed_ = true;
      info_.t_analysis = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      info_.nnz_l = static_cast<long>(chol_->cholmod().lnz);
    }
    info_.nnz_a = A_.nonZeros();
    info_.shift = eps_t_ > 0 ? eps_t_ * symmetric_norm1(A_) : 0.0;
    chol_->setShift(info_.shift);
    chol_->factorize(A_);
    if (chol_->info() != Eigen::Success)
      throw SimulationError(eps_t_ > 0 ? "CHOLMOD factorisation of A + alpha 1 failed (not positive definite: raise eps_T?)"
                                       : "CHOLMOD factorisation of A failed (not positive definite: redundant constraints?)");
    info_.rcond = chol_->rcond();
    if (spectrum_) info_.condition = spectral_condition(A_);
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override {
    if (b.size() == 0) x.resize(0);
    else x = chol_->solve(b);
  }
  FactorInfo factor_info() const override { return info_; }

 private:
  double eps_t_;
  bool spectrum_;
  Eigen::SparseMatrix<double> A_;
  std::unique_ptr<SupernodalLlt> chol_;
  bool analyzed_ = false;
  FactorInfo info_;
};

class Tree final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem& cs) override { tree_.analyze(cs); }
  void factor(const ConstraintSystem& cs) override { tree_.factor(cs); }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override { tree_.solve(b, x); }
  bool factor_on_demand() const override { return true; }
  bool reads_ball_jacobians() const override { return false; }

 private:
  TreeSolver tree_;
};

}  // namespace

std::unique_ptr<LinearSolver> make_tree_solver() { return std::make_unique<Tree>(); }
std::unique_ptr<LinearSolver> make_dense_solver() { return std::make_unique<DenseLdlt>(); }
std::unique_ptr<LinearSolver> make_lu_solver() { return std::make_unique<DenseLu>(); }
std::unique_ptr<LinearSolver> make_min_norm_solver() { return std::make_unique<DenseMinNorm>(); }
std::unique_ptr<LinearSolver> make_cholmod_solver() { return std::make_unique<Cholmod>(); }
std::unique_ptr<LinearSolver> make_regularized_cholmod_solver(double eps_t, bool spectrum) {
  return std::make_unique<Cholmod>(eps_t, spectrum);
}

}  // namespace mb
