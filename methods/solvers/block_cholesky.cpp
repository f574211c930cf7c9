// The block Cholesky factorization of A = J M^-1 J^T (make_block_solver, linear_solver.hpp).
//
// A node is a joint's block with the blocks of its motors (the same two bodies, at most 6 rows); two
// nodes couple in A where they share a body. Where the joints form a forest (no loop through the
// bodies, all static bodies and the world counted as one), J has full row rank and A is positive
// definite, so a Cholesky factorization without pivoting exists in every order. The order is the
// minimum degree one over the nodes (the rows of the neighbours each elimination would join):
// leaves first, so that a body with many joints (the walker's trunk: six hips) is a dense clique
// eliminated last and the rest of the factor has the block pattern of A. Factor and solve then
// cost O(sum over nodes of (rows of its later neighbours)^2), O(n) on a tree whose bodies have
// a bounded number of joints, against the dense factorization's O(n^3).
// Every block is stored at the system's largest node size N (1..6), padded with zeros and, on the
// diagonal, with ones: the products run at a size known at compile time, and the padding stays
// exact (a padded row of a factor is zero, a padded diagonal one).
#include <algorithm>
#include <cmath>
#include <numeric>
#include <set>
#include <utility>
#include <vector>

#include <Eigen/Dense>

#include "core/error.hpp"
#include "methods/solvers/linear_solver.hpp"

namespace mb {

namespace {

constexpr int kMaxNodeRows = 6;

class BlockCholesky final : public LinearSolver {
 public:
  void analyze(const ConstraintSystem& cs) override;
  void factor(const ConstraintSystem& cs) override;
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) override {
    x.resize(b.size());
    if (dense_now_) return dense_->solve(b, x);
    solve_into(b.data(), x.data());
  }
  void solve_columns(const Eigen::MatrixXd& B, Eigen::MatrixXd& X) override {
    X.resize(B.rows(), B.cols());
    if (dense_now_) return dense_->solve_columns(B, X);
    if (B.cols() == kBlockColumns) return solve_block_into(B.data(), X.data(), static_cast<size_t>(B.rows()));
    for (Eigen::Index c = 0; c < B.cols(); ++c) solve_into(B.col(c).data(), X.col(c).data());
  }
  // factor() reports nothing: a step whose corrections start within tolerance need not factor
  bool factor_on_demand() const override { return true; }

 private:
  struct Node {
    int dim = 0;
    int rows[kMaxNodeRows] = {};  // the system's rows: the joint's, then its motors'
    std::vector<int> blocks;       // the system's blocks, in that order
    std::vector<int> offset;       // each block's first row in the node
    int body[2] = {-1, -1};        // the bodies of its blocks (-1: the world or a static body)
  };
  // A's block of nodes (i, j) (i eliminated after j, or i == j), from side si of i and sj of j
  // (the body they share): W[target] += G_i,si J_j,sj^T
  struct Coupling {
    int i, si, j, sj, target;
  };
  // W[target] -= L[a] L[b]^T (the update that the elimination of one node makes)
  struct Update {
    int target, a, b;
  };

  template <int N>
  bool factor_n(const ConstraintSystem& cs);
  template <int N>
  void solve_n(const double* b, double* x);
  void solve_into(const double* b, double* x);
  // kBlockColumns right-hand sides at once (a contact's three rows: ArticulationCoupling::couple),
  // column-major with the system's rows as leading dimension: the passes of solve_n on N x
  // kBlockColumns blocks
  static constexpr int kBlockColumns = 3;
  template <int N>
  void solve_block_n(const double* b, double* x, size_t rows);
  void solve_block_into(const double* b, double* x, size_t rows);
  double* W(int m) { return W_.data() + static_cast<size_t>(m) * static_cast<size_t>(N_ * N_); }

  int N_ = 0;                          // the largest node's rows (the stored blocks' size)
  std::vector<Node> nodes_;            // in elimination order
  std::vector<int> col_start_, below_; // node k's later neighbours below_[col_start_[k] ..), ascending
  std::vector<Coupling> couplings_;
  std::vector<int> update_start_;      // node k's updates update_[update_start_[k] ..)
  std::vector<Update> updates_;
  // N x N blocks, column-major: the diagonal blocks of the nodes (0 .. n-1), then the factor's
  // blocks below them (n + the index into below_); the inverses of the diagonal blocks' factors
  std::vector<double> W_, Linv_;
  std::vector<double> G_, J_;  // per node and side: J (N x 6) and J M^-1 (N x 6)
  std::vector<double> y_;      // a right-hand side in the nodes' order
  std::vector<double> yb_;     // kBlockColumns of them, N x kBlockColumns per node (solve_block_n)
  std::vector<char> nonzero_;  // per node: y_ has a nonzero entry there (the forward pass skips the others)
  // where the joints close a loop (A may be singular): the dense LDL^T, always; where a block's
  // pivot is not positive (a degenerate joint): the dense LDL^T for that factorization
  std::unique_ptr<LinearSolver> dense_;
  bool loop_ = false, dense_now_ = false;
};

void BlockCholesky::analyze(const ConstraintSystem& cs) {
  nodes_.clear();
  loop_ = dense_now_ = false;
  const auto& blocks = cs.blocks();
  // nodes: a joint's block and its motors' blocks (the constructor puts every joint's block before
  // the motors' blocks)
  int joints = 0, bodies = 0;
  for (const JointBlock& b : blocks) {
    joints = std::max(joints, b.joint + 1);
    bodies = std::max({bodies, b.body[0] + 1, b.body[1] + 1});
  }
  std::vector<int> node_of_joint(static_cast<size_t>(joints), -1), node_of_block(blocks.size(), -1);
  for (int pass = 0; pass < 2; ++pass)
    for (size_t bi = 0; bi < blocks.size(); ++bi) {
      const JointBlock& b = blocks[bi];
      if ((pass == 0) != (b.motor < 0)) continue;
      int& nd = node_of_joint[static_cast<size_t>(b.joint)];
      if (nd < 0) {
        nd = static_cast<int>(nodes_.size());
        nodes_.emplace_back();
        nodes_.back().body[0] = b.body[0];
        nodes_.back().body[1] = b.body[1];
      }
      Node& n = nodes_[static_cast<size_t>(nd)];
      if (n.dim + b.dim > kMaxNodeRows) loop_ = true;  // more rows than a body pair has freedoms
      for (int r = 0; r < b.dim && n.dim + r < kMaxNodeRows; ++r) n.rows[n.dim + r] = b.row + r;
      n.blocks.push_back(static_cast<int>(bi));
      n.offset.push_back(n.dim);
      n.dim += b.dim;
      node_of_block[bi] = nd;
    }
  // a loop: two nodes between bodies already connected (union-find, the ground as node `bodies`)
  std::vector<int> parent(static_cast<size_t>(bodies) + 1);
  std::iota(parent.begin(), parent.end(), 0);
  auto find = [&](int v) {
    while (parent[static_cast<size_t>(v)] != v) v = parent[static_cast<size_t>(v)] = parent[static_cast<size_t>(parent[static_cast<size_t>(v)])];
    return v;
  };
  for (const Node& n : nodes_) {
    const int a = find(n.body[0] < 0 ? bodies : n.body[0]), b = find(n.body[1] < 0 ? bodies : n.body[1]);
    if (a == b) loop_ = true;
    parent[static_cast<size_t>(a)] = b;
  }
  if (loop_) {
    if (!dense_) dense_ = make_dense_solver();
    dense_->analyze(cs);
    dense_now_ = true;
    return;
  }
  const int n = static_cast<int>(nodes_.size());
  N_ = 1;
  for (const Node& nd : nodes_) N_ = std::max(N_, nd.dim);
  // the graph of A's nodes
  std::vector<std::set<int>> adj(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int s = 0; s < 2; ++s)
      if (const int k = nodes_[static_cast<size_t>(i)].body[s]; k >= 0)
        for (int bj : cs.blocks_of(k))
          if (const int j = node_of_block[static_cast<size_t>(bj)]; j != i) adj[static_cast<size_t>(i)].insert(j);
  const std::vector<std::set<int>> original = adj;
  // minimum degree: eliminate the node whose remaining neighbours have the fewest rows (ties: the
  // first in the system), and join those neighbours into a clique (the fill)
  std::vector<long> weight(static_cast<size_t>(n), 0);
  std::set<std::pair<long, int>> queue;
  auto weigh = [&](int i) {
    long w = 0;
    for (int j : adj[static_cast<size_t>(i)]) w += nodes_[static_cast<size_t>(j)].dim;
    weight[static_cast<size_t>(i)] = w;
    queue.insert({w, i});
  };
  for (int i = 0; i < n; ++i) weigh(i);
  std::vector<int> order, pos(static_cast<size_t>(n), -1);
  std::vector<std::vector<int>> later(static_cast<size_t>(n));  // per node: its neighbours when eliminated
  while (!queue.empty()) {
    const int k = queue.begin()->second;
    queue.erase(queue.begin());
    pos[static_cast<size_t>(k)] = static_cast<int>(order.size());
    order.push_back(k);
    const std::set<int> nb = std::move(adj[static_cast<size_t>(k)]);
    later[static_cast<size_t>(k)].assign(nb.begin(), nb.end());
    for (int i : nb) {
      queue.erase({weight[static_cast<size_t>(i)], i});
      adj[static_cast<size_t>(i)].erase(k);
      for (int j : nb)
        if (j != i) adj[static_cast<size_t>(i)].insert(j);
    }
    for (int i : nb) weigh(i);
  }
  // the nodes in elimination order, each one's later neighbours by position
  std::vector<Node> ordered(static_cast<size_t>(n));
  for (int p = 0; p < n; ++p) ordered[static_cast<size_t>(p)] = std::move(nodes_[static_cast<size_t>(order[static_cast<size_t>(p)])]);
  nodes_ = std::move(ordered);
  col_start_.assign(1, 0);
  below_.clear();
  for (int p = 0; p < n; ++p) {
    std::vector<int> l;
    for (int i : later[static_cast<size_t>(order[static_cast<size_t>(p)])]) l.push_back(pos[static_cast<size_t>(i)]);
    std::sort(l.begin(), l.end());
    below_.insert(below_.end(), l.begin(), l.end());
    col_start_.push_back(static_cast<int>(below_.size()));
  }
  // the stored block of (i, j), i after j: the diagonal i, or the factor's block below j
  auto slot = [&](int i, int j) {
    if (i == j) return i;
    const auto first = below_.begin() + col_start_[static_cast<size_t>(j)], last = below_.begin() + col_start_[static_cast<size_t>(j) + 1];
    const auto it = std::lower_bound(first, last, i);
    if (it == last || *it != i) throw SimulationError("block Cholesky: a fill block is missing from the symbolic factor");
    return n + static_cast<int>(it - below_.begin());
  };
  // A's blocks: per pair of nodes sharing a body (and every node with itself, per side)
  couplings_.clear();
  for (int p = 0; p < n; ++p) {
    const Node& a = nodes_[static_cast<size_t>(p)];
    for (int s = 0; s < 2; ++s)
      if (a.body[s] >= 0) couplings_.push_back({p, s, p, s, p});
    for (int q = 0; q < p; ++q) {
      if (!original[static_cast<size_t>(order[static_cast<size_t>(p)])].count(order[static_cast<size_t>(q)])) continue;
      const Node& b = nodes_[static_cast<size_t>(q)];
      for (int s = 0; s < 2; ++s)
        for (int t = 0; t < 2; ++t)
          if (a.body[s] >= 0 && a.body[s] == b.body[t]) couplings_.push_back({p, s, q, t, slot(p, q)});
    }
  }
  // the updates of each elimination
  update_start_.assign(1, 0);
  updates_.clear();
  for (int k = 0; k < n; ++k) {
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u)
      for (int v = col_start_[static_cast<size_t>(k)]; v <= u; ++v)
        updates_.push_back({slot(below_[static_cast<size_t>(u)], below_[static_cast<size_t>(v)]), n + u, n + v});
    update_start_.push_back(static_cast<int>(updates_.size()));
  }
  const size_t nn = static_cast<size_t>(N_ * N_);
  W_.assign((static_cast<size_t>(n) + below_.size()) * nn, 0.0);
  Linv_.assign(static_cast<size_t>(n) * nn, 0.0);
  J_.assign(static_cast<size_t>(n) * 2 * static_cast<size_t>(N_) * 6, 0.0);
  G_.assign(J_.size(), 0.0);
  y_.assign(static_cast<size_t>(n * N_), 0.0);
  yb_.assign(static_cast<size_t>(n * N_ * kBlockColumns), 0.0);
  nonzero_.assign(static_cast<size_t>(n), 0);
}

void BlockCholesky::factor(const ConstraintSystem& cs) {
  if (loop_) return dense_->factor(cs);
  bool ok = false;
  switch (N_) {
    case 1: ok = factor_n<1>(cs); break;
    case 2: ok = factor_n<2>(cs); break;
    case 3: ok = factor_n<3>(cs); break;
    case 4: ok = factor_n<4>(cs); break;
    case 5: ok = factor_n<5>(cs); break;
    default: ok = factor_n<6>(cs); break;
  }
  dense_now_ = !ok;
  if (ok) return;
  // a pivot not positive: A is singular to the arithmetic's precision (a degenerate joint); the
  // pivoting LDL^T handles a semidefinite A
  if (!dense_) dense_ = make_dense_solver();
  dense_->analyze(cs);
  dense_->factor(cs);
}

template <int N>
bool BlockCholesky::factor_n(const ConstraintSystem& cs) {
  using MatN = Eigen::Matrix<double, N, N>;
  using MatJ = Eigen::Matrix<double, N, 6>;
  const int n = static_cast<int>(nodes_.size());
  std::fill(W_.begin(), W_.end(), 0.0);
  // each node's J per side and J M^-1
  Mat6 scratch;
  for (int p = 0; p < n; ++p) {
    const Node& nd = nodes_[static_cast<size_t>(p)];
    for (int s = 0; s < 2; ++s) {
      const int k = nd.body[s];
      if (k < 0) continue;
      Eigen::Map<MatJ> J(J_.data() + (2 * static_cast<size_t>(p) + static_cast<size_t>(s)) * N * 6);
      J.setZero();
      const int bd = cs.body_dim(k);
      for (size_t m = 0; m < nd.blocks.size(); ++m) {
        const JointBlock& b = cs.blocks()[static_cast<size_t>(nd.blocks[m])];
        const int side = b.body[0] == k ? 0 : 1;
        J.block(nd.offset[m], 0, b.dim, bd) = cs.jacobian_ref(b, side, scratch).topLeftCorner(b.dim, bd);
      }
      Eigen::Map<MatJ>(G_.data() + (2 * static_cast<size_t>(p) + static_cast<size_t>(s)) * N * 6).noalias() = J * cs.mass_inverse(k);
    }
    Eigen::Map<MatN> D(W(p));
    for (int r = nd.dim; r < N; ++r) D(r, r) = 1.0;  // the padding
  }
  for (const Coupling& c : couplings_) {
    Eigen::Map<const MatJ> G(G_.data() + (2 * static_cast<size_t>(c.i) + static_cast<size_t>(c.si)) * N * 6);
    Eigen::Map<const MatJ> J(J_.data() + (2 * static_cast<size_t>(c.j) + static_cast<size_t>(c.sj)) * N * 6);
    Eigen::Map<MatN>(W(c.target)).noalias() += G * J.transpose();
  }
  for (int k = 0; k < n; ++k) {
    const Eigen::LLT<MatN> llt{MatN(Eigen::Map<const MatN>(W(k)))};
    if (llt.info() != Eigen::Success) return false;
    Eigen::Map<MatN> Li(Linv_.data() + static_cast<size_t>(k) * N * N);
    Li = llt.matrixL().solve(MatN::Identity());
    if (!Li.allFinite()) return false;
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u) {
      Eigen::Map<MatN> L(W(n + u));
      const MatN t = L * Li.transpose();
      L = t;
    }
    for (int u = update_start_[static_cast<size_t>(k)]; u < update_start_[static_cast<size_t>(k) + 1]; ++u) {
      const Update& up = updates_[static_cast<size_t>(u)];
      Eigen::Map<MatN>(W(up.target)).noalias() -= Eigen::Map<const MatN>(W(up.a)) * Eigen::Map<const MatN>(W(up.b)).transpose();
    }
  }
  return true;
}

void BlockCholesky::solve_into(const double* b, double* x) {
  switch (N_) {
    case 1: return solve_n<1>(b, x);
    case 2: return solve_n<2>(b, x);
    case 3: return solve_n<3>(b, x);
    case 4: return solve_n<4>(b, x);
    case 5: return solve_n<5>(b, x);
    default: return solve_n<6>(b, x);
  }
}

template <int N>
void BlockCholesky::solve_n(const double* b, double* x) {
  using MatN = Eigen::Matrix<double, N, N>;
  using VecN = Eigen::Matrix<double, N, 1>;
  const int n = static_cast<int>(nodes_.size());
  for (int p = 0; p < n; ++p) {
    const Node& nd = nodes_[static_cast<size_t>(p)];
    double* y = y_.data() + static_cast<size_t>(p) * N;
    bool any = false;
    for (int r = 0; r < nd.dim; ++r) {
      y[r] = b[nd.rows[r]];
      any = any || y[r] != 0.0;
    }
    nonzero_[static_cast<size_t>(p)] = any;
  }
  // L z = b, node by node; a node whose entries are all zero has z = 0 and changes nothing below
  for (int k = 0; k < n; ++k) {
    if (!nonzero_[static_cast<size_t>(k)]) continue;
    Eigen::Map<VecN> yk(y_.data() + static_cast<size_t>(k) * N);
    const VecN z = Eigen::Map<const MatN>(Linv_.data() + static_cast<size_t>(k) * N * N) * yk;
    yk = z;
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u) {
      const int i = below_[static_cast<size_t>(u)];
      Eigen::Map<VecN>(y_.data() + static_cast<size_t>(i) * N).noalias() -= Eigen::Map<const MatN>(W(n + u)) * z;
      nonzero_[static_cast<size_t>(i)] = 1;
    }
  }
  // L^T x = z, from the last node
  for (int k = n - 1; k >= 0; --k) {
    Eigen::Map<VecN> yk(y_.data() + static_cast<size_t>(k) * N);
    VecN t = yk;
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u) {
      const int i = below_[static_cast<size_t>(u)];
      t.noalias() -= Eigen::Map<const MatN>(W(n + u)).transpose() * Eigen::Map<const VecN>(y_.data() + static_cast<size_t>(i) * N);
    }
    yk.noalias() = Eigen::Map<const MatN>(Linv_.data() + static_cast<size_t>(k) * N * N).transpose() * t;
  }
  for (int p = 0; p < n; ++p) {
    const Node& nd = nodes_[static_cast<size_t>(p)];
    const double* y = y_.data() + static_cast<size_t>(p) * N;
    for (int r = 0; r < nd.dim; ++r) x[nd.rows[r]] = y[r];
  }
}

void BlockCholesky::solve_block_into(const double* b, double* x, size_t rows) {
  switch (N_) {
    case 1: return solve_block_n<1>(b, x, rows);
    case 2: return solve_block_n<2>(b, x, rows);
    case 3: return solve_block_n<3>(b, x, rows);
    case 4: return solve_block_n<4>(b, x, rows);
    case 5: return solve_block_n<5>(b, x, rows);
    default: return solve_block_n<6>(b, x, rows);
  }
}

template <int N>
void BlockCholesky::solve_block_n(const double* b, double* x, size_t rows) {
  constexpr int C = kBlockColumns;
  using MatN = Eigen::Matrix<double, N, N>;
  using MatC = Eigen::Matrix<double, N, C>;
  const int n = static_cast<int>(nodes_.size());
  auto block = [&](int p) { return Eigen::Map<MatC>(yb_.data() + static_cast<size_t>(p) * N * C); };
  for (int p = 0; p < n; ++p) {
    const Node& nd = nodes_[static_cast<size_t>(p)];
    auto y = block(p);
    y.setZero();
    bool any = false;
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < nd.dim; ++r) {
        y(r, c) = b[static_cast<size_t>(c) * rows + static_cast<size_t>(nd.rows[r])];
        any = any || y(r, c) != 0.0;
      }
    nonzero_[static_cast<size_t>(p)] = any;
  }
  // L Z = B, node by node; a node whose entries are all zero has Z = 0 and changes nothing below
  for (int k = 0; k < n; ++k) {
    if (!nonzero_[static_cast<size_t>(k)]) continue;
    auto yk = block(k);
    const MatC z = Eigen::Map<const MatN>(Linv_.data() + static_cast<size_t>(k) * N * N) * yk;
    yk = z;
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u) {
      const int i = below_[static_cast<size_t>(u)];
      block(i).noalias() -= Eigen::Map<const MatN>(W(n + u)) * z;
      nonzero_[static_cast<size_t>(i)] = 1;
    }
  }
  // L^T X = Z, from the last node
  for (int k = n - 1; k >= 0; --k) {
    auto yk = block(k);
    MatC t = yk;
    for (int u = col_start_[static_cast<size_t>(k)]; u < col_start_[static_cast<size_t>(k) + 1]; ++u)
      t.noalias() -= Eigen::Map<const MatN>(W(n + u)).transpose() * block(below_[static_cast<size_t>(u)]);
    yk.noalias() = Eigen::Map<const MatN>(Linv_.data() + static_cast<size_t>(k) * N * N).transpose() * t;
  }
  for (int p = 0; p < n; ++p) {
    const Node& nd = nodes_[static_cast<size_t>(p)];
    const auto y = block(p);
    for (int c = 0; c < C; ++c)
      for (int r = 0; r < nd.dim; ++r) x[static_cast<size_t>(c) * rows + static_cast<size_t>(nd.rows[r])] = y(r, c);
  }
}

}  // namespace

std::unique_ptr<LinearSolver> make_block_solver() { return std::make_unique<BlockCholesky>(); }

}  // namespace mb
