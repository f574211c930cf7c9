#include "methods/solvers/linear_solver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>

#include <Eigen/Dense>
#include <Eigen/SparseCore>
#include <cholmod.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/solvers/tree_solver.hpp"

namespace mb {

void LinearSolver::solve_columns(const Eigen::MatrixXd& B, Eigen::MatrixXd& X) {
  X.resize(B.rows(), B.cols());
  Eigen::VectorXd b, x;
  for (Eigen::Index c = 0; c < B.cols(); ++c) {
    b = B.col(c);
    solve(b, x);
    X.col(c) = x;
  }
}

namespace {

class DenseLdlt final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem&) override {}
  void factor(const ConstraintSystem& cs) override {
    cs.assemble_dense_lower(A_);  // LDLT<.., Lower> reads the lower triangle only
    if (!ldlt_) ldlt_ = std::make_unique<Eigen::LDLT<Eigen::MatrixXd>>(A_.rows());
    ldlt_->compute(A_);  // into the storage of the last factorization
    const auto& d = ldlt_->vectorD();
    null_threshold_ = d.size() ? kNullEigenvalue * d.cwiseAbs().maxCoeff() : 0.0;
    // A = J M^-1 J^T is positive semi-definite: a pivot below the threshold, negative ones among
    // them (Eigen reports those as a failure), is round-off in A's null space
    rank_deficient_ = d.size() && d.minCoeff() <= null_threshold_;
  }
  // Eigen's LDLT pivots on the largest remaining diagonal: on a positive semi-definite A (dependent
  // rows of redundant constraints) the pivots of the null space come last, at round-off size
  // (kNullEigenvalue of the largest).
  // Dividing by them would amplify round-off by 1e16; they are taken as zero instead (the
  // pseudo-inverse of D), which solves A x = b exactly for every b in A's range, as the impulses
  // of consistent constraints and the contact couplings J M^-1 Jc^T are.
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override {
    if (!rank_deficient_) {
      x = ldlt_->solve(b);
      return;
    }
    x = ldlt_->transpositionsP() * b;
    ldlt_->matrixL().solveInPlace(x);
    const auto& d = ldlt_->vectorD();
    for (Eigen::Index i = 0; i < x.size(); ++i) x[i] = d[i] > null_threshold_ ? x[i] / d[i] : 0.0;
    ldlt_->matrixU().solveInPlace(x);
    x = ldlt_->transpositionsP().transpose() * x;
  }

 private:
  Eigen::MatrixXd A_;
  std::unique_ptr<Eigen::LDLT<Eigen::MatrixXd>> ldlt_;  // heap: Eigen's LDLT must not be moved default-built
  double null_threshold_ = 0;
  bool rank_deficient_ = false;
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

// CHOLMOD through its C interface: the symbolic analysis (AMD ordering, and CHOLMOD's choice of a
// supernodal or a simplicial factor) once, the numeric factorization per factor(), and the solves
// into workspace kept between them (cholmod_solve2), a block of right-hand sides in one pass.
// CHOLMOD's own rule picks the kind of factor: supernodal (LL^T, dense BLAS kernels on its
// supernodes) where the factorization's flops per nonzero of L reach `supernodal_switch` (40),
// simplicial LDL^T below. Both are exact factorizations of the same matrix; they differ in
// round-off only. The simplicial one is the faster where the supernodes are small (the split
// mechanisms, the trees; docs/performance.md, "CHOLMOD").
class Cholmod final : public LinearSolver {
 public:
  explicit Cholmod(double eps_t = 0, bool spectrum = false) : eps_t_(eps_t), spectrum_(spectrum) {
    cholmod_start(&c_);
    c_.nmethods = 1;
    c_.method[0].ordering = CHOLMOD_AMD;
    c_.supernodal = CHOLMOD_AUTO;
    c_.print = 0;  // a failed factorization is reported by the exception below, not on stderr
  }
  Cholmod(const Cholmod&) = delete;
  Cholmod& operator=(const Cholmod&) = delete;
  ~Cholmod() override {
    release();
    cholmod_finish(&c_);
  }
  void analyze(const ConstraintSystem&) override {
    release();
    analyzed_ = false;
  }
  bool factors_a() const override { return !(eps_t_ > 0); }
  void factor(const ConstraintSystem& cs) override {
    // the pattern once with the analysis, the values in place after it
    if (analyzed_) cs.refill_sparse_lower(A_);
    else cs.assemble_sparse_lower(A_);
    info_.t_analysis = 0;
    if (A_.rows() == 0) return;  // no constraints (a model of springs alone): CHOLMOD has no empty factor
    A_.makeCompressed();
    cholmod_sparse a = view(A_);
    // the fill-reducing AMD ordering and the symbolic factorisation once
    if (!analyzed_) {
      const auto t0 = std::chrono::steady_clock::now();
      L_ = cholmod_analyze(&a, &c_);
      if (!L_) throw SimulationError("CHOLMOD's symbolic analysis of A failed");
      analyzed_ = true;
      info_.t_analysis = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      info_.nnz_l = static_cast<long>(c_.lnz);
    }
    info_.nnz_a = A_.nonZeros();
    info_.shift = eps_t_ > 0 ? eps_t_ * symmetric_norm1(A_) : 0.0;
    double beta[2] = {info_.shift, 0.0};
    cholmod_factorize_p(&a, beta, nullptr, 0, L_, &c_);
    if (c_.status != CHOLMOD_OK || L_->minor < L_->n)
      throw SimulationError(eps_t_ > 0 ? "CHOLMOD factorisation of A + alpha 1 failed (not positive definite: raise eps_T?)"
                                       : "CHOLMOD factorisation of A failed (not positive definite: redundant constraints?)");
    info_.rcond = cholmod_rcond(L_, &c_);
    if (spectrum_) info_.condition = spectral_condition(A_);
  }
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override {
    x.resize(b.size());
    if (b.size() == 0) return;
    solve_into(b.data(), x.data(), 1);
  }
  void solve_columns(const Eigen::MatrixXd& B, Eigen::MatrixXd& X) override {
    X.resize(B.rows(), B.cols());
    if (B.size() == 0) return;
    solve_into(B.data(), X.data(), B.cols());
  }
  FactorInfo factor_info() const override { return info_; }

 private:
  static cholmod_sparse view(Eigen::SparseMatrix<double>& A) {
    cholmod_sparse a{};
    a.nrow = a.ncol = static_cast<size_t>(A.rows());
    a.nzmax = static_cast<size_t>(A.nonZeros());
    a.p = A.outerIndexPtr();
    a.i = A.innerIndexPtr();
    a.x = A.valuePtr();
    a.stype = -1;  // the lower triangle of a symmetric matrix
    a.itype = CHOLMOD_INT;
    a.xtype = CHOLMOD_REAL;
    a.dtype = CHOLMOD_DOUBLE;
    a.sorted = 1;
    a.packed = 1;
    return a;
  }
  // X = A^-1 B for `cols` columns of A's size, column-major
  void solve_into(const double* b, double* x, Eigen::Index cols) {
    cholmod_dense rhs{};
    rhs.nrow = rhs.d = static_cast<size_t>(A_.rows());
    rhs.ncol = static_cast<size_t>(cols);
    rhs.nzmax = rhs.nrow * rhs.ncol;
    rhs.x = const_cast<double*>(b);  // read only
    rhs.xtype = CHOLMOD_REAL;
    rhs.dtype = CHOLMOD_DOUBLE;
    if (!cholmod_solve2(CHOLMOD_A, L_, &rhs, nullptr, &X_, nullptr, &Y_, &E_, &c_))
      throw SimulationError("CHOLMOD solve failed");
    const auto* sol = static_cast<const double*>(X_->x);
    std::copy(sol, sol + rhs.nzmax, x);
  }
  void release() {
    if (L_) cholmod_free_factor(&L_, &c_);
    for (cholmod_dense** d : {&X_, &Y_, &E_})
      if (*d) cholmod_free_dense(d, &c_);
  }

  double eps_t_;
  bool spectrum_;
  Eigen::SparseMatrix<double> A_;
  cholmod_common c_;
  cholmod_factor* L_ = nullptr;
  cholmod_dense *X_ = nullptr, *Y_ = nullptr, *E_ = nullptr;  // cholmod_solve2's solution and workspace
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
