#include "methods/solvers/tree_solver.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include <fmt/format.h>

#include "core/disjoint_sets.hpp"
#include "core/error.hpp"

namespace mb {

namespace {

template <class M>
bool nonzero(const M& B) {
  return (B.array() != 0.0).any();
}

using Mat3d = Eigen::Matrix3d;

// D_k = M_k of a rigid body written into its 6 x 6 place: the mass on the translational diagonal,
// the world inertia in the rotational block, zeros elsewhere (the numbers of ConstraintSystem::mass())
void body_mass(const ConstraintSystem& cs, int k, double* d) {
  Eigen::Map<Mat6> D{d};
  D.setZero();
  const double m = cs.mass_scalar(k);
  D(0, 0) = D(1, 1) = D(2, 2) = m;
  D.bottomRightCorner<3, 3>() = cs.world_inertia(k);
}

// The inverse of a symmetric definite 3 x 3 block (of either sign) by Eigen's closed form
// (cofactors). Returns |det D| / |D00 D11 D22|: 1 for a diagonal block, in (0, 1] for a
// definite one (Hadamard), about the round-off for one with dependent rows; unchanged by a
// scaling of the rows and columns.
double definite_inverse(const Mat3d& D, Mat3d& Dinv) {
  double det = 0;
  bool invertible = false;
  D.computeInverseAndDetWithCheck(Dinv, det, invertible, 0.0);
  const double diag = std::abs(D(0, 0) * D(1, 1) * D(2, 2));
  return invertible && diag > 0 ? std::abs(det) / diag : 0.0;
}

// The same for a 6 x 6 block D = [A B; B^T C] by its 3 x 3 blocks: A^-1, the Schur complement
// S = C - B^T A^-1 B and S^-1, then D^-1 = [A^-1 + X S^-1 X^T, -X S^-1; -S^-1 X^T, S^-1] with
// X = A^-1 B (a block LDL^T; A and S are definite when D is). Returns the smaller ratio of A and S.
double definite_inverse(const Eigen::Matrix<double, 6, 6>& D, Eigen::Matrix<double, 6, 6>& Dinv) {
  Mat3d Ainv, Sinv;
  if ((D.topRightCorner<3, 3>().array() == 0.0).all() && (D.bottomLeftCorner<3, 3>().array() == 0.0).all()) {
    // B = 0 (a body's mass matrix, the block of a body without children): X = 0, S = C, and D^-1
    // is block diagonal, the numbers of the general form (which adds zeros to them)
    const double ra = definite_inverse(D.topLeftCorner<3, 3>(), Ainv);
    const double rs = definite_inverse(D.bottomRightCorner<3, 3>(), Sinv);
    Dinv.setZero();
    Dinv.topLeftCorner<3, 3>() = Ainv;
    Dinv.bottomRightCorner<3, 3>() = Sinv;
    return std::min(ra, rs);
  }
  const double ra = definite_inverse(D.topLeftCorner<3, 3>(), Ainv);
  const Mat3d X = Ainv * D.topRightCorner<3, 3>();
  const Mat3d S = D.bottomRightCorner<3, 3>() - D.topRightCorner<3, 3>().transpose() * X;
  const double rs = definite_inverse(S, Sinv);
  const Mat3d XS = X * Sinv;
  Dinv.topLeftCorner<3, 3>() = Ainv + XS * X.transpose();
  Dinv.topRightCorner<3, 3>() = -XS;
  Dinv.bottomLeftCorner<3, 3>() = -XS.transpose();
  Dinv.bottomRightCorner<3, 3>() = Sinv;
  return std::min(ra, rs);
}

// below this ratio of definite_inverse a diagonal block counts as singular (dependent rows)
constexpr double kSingularRatio = 1e-13;

}  // namespace

void TreeSolver::analyze(const ConstraintSystem& cs) { analyze_impl(nullptr, cs); }
void TreeSolver::analyze(const Model& model, const ConstraintSystem& cs) { analyze_impl(&model, cs); }

void TreeSolver::analyze_impl(const Model* model, const ConstraintSystem& cs) {
  const std::vector<JointBlock>& blocks = cs.blocks();
  const int nb = static_cast<int>(blocks.size());
  nrows_ = cs.rows();

  // graph ids: joint blocks [0, nb), bodies nb + k, the world (and static bodies) last
  int nbody = 0;
  for (const JointBlock& b : blocks) nbody = std::max({nbody, b.body[0] + 1, b.body[1] + 1});
  const int world = nb + nbody;
  auto body_id = [&](int k) { return k < 0 ? world : nb + k; };

  // cycle check: an edge joining two already connected nodes closes a cycle through its joint
  DisjointSets sets(world + 1);
  for (int bi = 0; bi < nb; ++bi)
    for (int side = 0; side < 2; ++side) {
      if (sets.unite(bi, body_id(blocks[bi].body[side]))) continue;
      const int j = blocks[bi].joint;
      const std::string name = model ? fmt::format("'{}'", model->joints[j].name) : fmt::format("#{}", j);
      throw UnsupportedModel(fmt::format(
          "joint {} closes a loop (the world and static bodies count as one node): the linear-time "
          "tree solver needs an acyclic model; use a general sparse or dense solver (cholmod, lu) for closed loops, or the impulse method `linear`, which splits loops into acyclic parts",
          name));
    }

  // incidence lists of the bodies (CSR, blocks in index order)
  std::vector<int> inc_start(nbody + 1, 0), inc;
  for (const JointBlock& b : blocks)
    for (int side = 0; side < 2; ++side)
      if (b.body[side] >= 0) ++inc_start[b.body[side] + 1];
  for (int k = 0; k < nbody; ++k) inc_start[k + 1] += inc_start[k];
  inc.resize(inc_start[nbody]);
  {
    std::vector<int> fill(inc_start.begin(), inc_start.end() - 1);
    for (int bi = 0; bi < nb; ++bi)
      for (int side = 0; side < 2; ++side)
        if (blocks[bi].body[side] >= 0) inc[fill[blocks[bi].body[side]]++] = bi;
  }
  // neighbour `i` of graph node v (bodies of a joint, joints of a body), -1 past the end
  auto neighbour = [&](int v, int i) -> int {
    if (v < nb) {
      for (int side = 0; side < 2; ++side)
        if (blocks[v].body[side] >= 0 && i-- == 0) return nb + blocks[v].body[side];
      return -1;
    }
    const int k = v - nb;
    return inc_start[k] + i < inc_start[k + 1] ? inc[inc_start[k] + i] : -1;
  };

  // iterative DFS from each root, recording the postorder (children before parents)
  std::vector<int> gparent(world, -2), order;  // -2: not visited, -1: root
  order.reserve(world);
  struct Frame {
    int v, next;
  };
  std::vector<Frame> stack;
  nroots_ = 0;
  auto visit = [&](int root) {
    ++nroots_;
    gparent[root] = -1;
    stack.push_back({root, 0});
    while (!stack.empty()) {
      const int v = stack.back().v;
      const int w = neighbour(v, stack.back().next++);
      if (w < 0) {
        order.push_back(v);
        stack.pop_back();
      } else if (w != gparent[v]) {  // acyclic: every other neighbour is new
        gparent[w] = v;
        stack.push_back({w, 0});
      }
    }
  };
  // roots: the anchored joint of a component, else its body of lowest index
  for (int bi = 0; bi < nb; ++bi)
    if ((blocks[bi].body[0] < 0 || blocks[bi].body[1] < 0) && gparent[bi] == -2) visit(bi);
  for (int k = 0; k < nbody; ++k)
    if (inc_start[k + 1] > inc_start[k] && gparent[nb + k] == -2) visit(nb + k);

  // nodes in postorder with parents, dims and the joint side on the parent edge
  const int n = static_cast<int>(order.size());
  std::vector<int> pos(world, -1);
  for (int i = 0; i < n; ++i) pos[order[i]] = i;
  nodes_.assign(n, Node{});
  row_.assign(n, -1);
  for (int i = 0; i < n; ++i) {
    const int v = order[i];
    Node& nd = nodes_[i];
    nd.is_joint = v < nb;
    nd.index = nd.is_joint ? v : v - nb;
    nd.dim = nd.is_joint ? blocks[v].dim : cs.body_dim(v - nb);
    nd.parent = gparent[v] >= 0 ? pos[gparent[v]] : -1;
    if (nd.is_joint) row_[i] = blocks[v].row;
    if (nd.parent >= 0) {
      const int bi = nd.is_joint ? v : gparent[v];        // the joint on the edge
      const int k = nd.is_joint ? gparent[v] - nb : v - nb;  // the body on the edge
      nd.side = blocks[bi].body[0] == k ? 0 : 1;
    }
  }

  // children lists (CSR, in elimination order)
  child_start_.assign(n + 1, 0);
  for (const Node& nd : nodes_)
    if (nd.parent >= 0) ++child_start_[nd.parent + 1];
  for (int i = 0; i < n; ++i) child_start_[i + 1] += child_start_[i];
  children_.assign(child_start_[n], -1);
  {
    std::vector<int> fill(child_start_.begin(), child_start_.end() - 1);
    for (int i = 0; i < n; ++i)
      if (nodes_[i].parent >= 0) children_[fill[nodes_[i].parent]++] = i;
  }

  // the kernel of each node (see the header)
  kernel_.assign(n, Kernel::General);
  for (int i = 0; i < n; ++i) {
    const int d = nodes_[i].dim, dp = nodes_[i].parent >= 0 ? nodes_[nodes_[i].parent].dim : 0;
    if (d == 6 && (dp == 3 || dp == 0)) kernel_[i] = Kernel::Body6Joint3;
    if (d == 3 && dp == 6) kernel_[i] = Kernel::Joint3Body6;
    // a ball joint on the edge to the parent: the blocks by cross products
    if (nodes_[i].parent < 0) continue;  // a root has no edge
    const int edge_block = nodes_[i].is_joint ? nodes_[i].index : nodes_[nodes_[i].parent].index;
    if (!ball_kernels_ || edge_block < 0 || !blocks[edge_block].ball) continue;
    if (kernel_[i] == Kernel::Body6Joint3 && dp == 3) kernel_[i] = Kernel::Body6Ball;
    if (kernel_[i] == Kernel::Joint3Body6) kernel_[i] = Kernel::BallBody6;
  }

  // numeric buffers, sized once at their sizes (nothing allocates after analyze)
  slot_.assign(n, Slot());
  fac_.assign(n, -1);
  size_t nstore = 0, nz = 0;
  int nfac = 0;
  for (int i = 0; i < n; ++i) {
    Slot& sl = slot_[i];
    sl.dim = nodes_[i].dim;
    sl.pdim = nodes_[i].parent >= 0 ? nodes_[nodes_[i].parent].dim : 0;
    // each block padded to an even number of entries: every block starts on 16 bytes (SSE2 packets)
    const size_t dd = (static_cast<size_t>(sl.dim) * static_cast<size_t>(sl.dim) + 1) / 2 * 2;
    const size_t dp = (static_cast<size_t>(sl.dim) * static_cast<size_t>(sl.pdim) + 1) / 2 * 2;
    if (nstore + dd + dp > std::numeric_limits<unsigned>::max())
      throw UnsupportedModel("tree solver: the factor would need more than 2^32 numbers");
    // D_i^-1 overwrites D_i: invert_fixed reads D_i into a copy before it writes D_i^-1, and
    // nothing reads D_i after that (a general-kernel node keeps Dfac_ and never writes D_i^-1)
    sl.D = static_cast<unsigned>(nstore);
    sl.Dinv = sl.D;
    sl.T = static_cast<unsigned>(nstore + dd);
    nstore += dd + dp;
    sl.z = static_cast<unsigned>(nz);
    nz += (static_cast<size_t>(sl.dim) + 1) / 2 * 2;
    if (kernel_[i] == Kernel::General) fac_[i] = nfac++;
  }
  store_.assign(nstore, 0.0);
  nz_ = nz;
  own_.z.assign(nz, 0.0);
  Dfac_ = std::vector<Eigen::LDLT<Block>>(static_cast<size_t>(nfac));  // default-constructed in place: Eigen leaves m_info unset
  nnz_L_ = nnz_H_ = factor_ops_ = own_.block_ops = 0;
}

template <class M>
void TreeSolver::parent_block(const ConstraintSystem& cs, int i, M& H) const {
  const Node& nd = nodes_[i];
  const Node& p = nodes_[nd.parent];
  // H_joint,body = -J_i,k; H_body,joint = -J_i,k^T
  Mat6 scratch;
  const Mat6& J = cs.jacobian_ref(cs.blocks()[nd.is_joint ? nd.index : p.index], nd.side, scratch);
  if constexpr (M::RowsAtCompileTime == Eigen::Dynamic) {
    if (nd.is_joint)
      H = -J.topLeftCorner(nd.dim, p.dim);
    else
      H = -J.topLeftCorner(p.dim, nd.dim).transpose();
  } else {
    constexpr int DI = M::RowsAtCompileTime, DP = M::ColsAtCompileTime;
    if (nd.is_joint)
      H = -J.template topLeftCorner<DI, DP>();
    else
      H = -J.template topLeftCorner<DP, DI>().transpose();
  }
}

template <class Ldlt>
void TreeSolver::check_pivots(const ConstraintSystem& cs, int i, const Ldlt& F) const {
  const auto dd = F.vectorD().cwiseAbs();
  if (F.info() != Eigen::Success || !(dd.minCoeff() > 1e-13 * dd.maxCoeff()) || !std::isfinite(dd.maxCoeff())) throw_singular(cs, i);
}

void TreeSolver::throw_singular(const ConstraintSystem& cs, int i) const {
  const Node& nd = nodes_[i];
  throw SimulationError(fmt::format("tree solver: singular diagonal block of {} {} (dependent constraint rows?)",
                                    nd.is_joint ? "joint" : "body", nd.is_joint ? cs.blocks()[nd.index].joint : nd.index));
}

void TreeSolver::factor(const ConstraintSystem& cs) {
  const int n = static_cast<int>(nodes_.size());
  nnz_L_ = nnz_H_ = factor_ops_ = 0;
  // D_i = H_ii; each child c subtracts T_c^T H_c,i when it is visited (children come first)
  for (int i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    double* d = store_.data() + slot_[i].D;
    if (nd.dim == 3 && nd.is_joint)
      Eigen::Map<Mat3d>{d}.setZero();  // the common sizes at compile time
    else if (nd.dim == 6 && !nd.is_joint)
      body_mass(cs, nd.index, d);
    else if (nd.is_joint)
      D(i).setZero();
    else
      D(i) = cs.mass(nd.index).topLeftCorner(nd.dim, nd.dim);
  }
  for (int i = 0; i < n; ++i) {
    switch (kernel_[i]) {
      case Kernel::Body6Joint3: factor_fixed<6, 3>(cs, i); break;
      case Kernel::Joint3Body6: factor_fixed<3, 6>(cs, i); break;
      case Kernel::Body6Ball: factor_ball<6, 3>(cs, i); break;
      case Kernel::BallBody6: factor_ball<3, 6>(cs, i); break;
      case Kernel::General: factor_general(cs, i); break;
    }
    factor_ops_ += nodes_[i].parent >= 0 ? 3 : 1;  // factorization, T_i, the parent's update
  }
}

template <int DI>
Eigen::Matrix<double, DI, DI> TreeSolver::invert_fixed(const ConstraintSystem& cs, int i) {
  using MatI = Eigen::Matrix<double, DI, DI>;
  // D_i^-1 of the (definite) diagonal block in closed form (definite_inverse)
  MatI Dinv;
  const double ratio = definite_inverse(MatI(Eigen::Map<const MatI>(D(i).data())), Dinv);
  if (!(ratio > kSingularRatio) || !Dinv.allFinite()) throw_singular(cs, i);
  Eigen::Map<MatI>(this->Dinv(i).data()) = Dinv;
  return Dinv;
}

template <int DI, int DP>
void TreeSolver::factor_fixed(const ConstraintSystem& cs, int i) {
  const Eigen::Matrix<double, DI, DI> Dinv = invert_fixed<DI>(cs, i);
  const int p = nodes_[i].parent;
  if (p < 0) return;
  // T_i = D_i^-1 H_i,p(i); the parent's D_p -= T_i^T H_i,p(i)
  Eigen::Matrix<double, DI, DP> H;
  parent_block(cs, i, H);
  const Eigen::Matrix<double, DI, DP> T = Dinv * H;
  Eigen::Map<Eigen::Matrix<double, DI, DP>>(this->T(i).data()) = T;
  Eigen::Map<Eigen::Matrix<double, DP, DP>>(D(p).data()).noalias() -= T.transpose() * H;
  nnz_H_ += nonzero(H);
  nnz_L_ += nonzero(T);
}

// A ball joint's edge: H_i,p(i) = -J = -sign [I, -C] (joint i, body p) or -J^T (body i, joint p),
// C = r* the cross-product matrix of the lever arm (ConstraintSystem). Of the products
// T_i = D_i^-1 H_i,p(i) and T_i^T H_i,p(i) of factor_fixed only the terms that are not zero are
// formed, as cross products with r, and added in the order in which Eigen's fixed-size products add
// them (D_i^-1 H and the 6 x 3 T^T times the 3 x 6 H: columns in ascending order; the 3 x 3
// T^T H of a body: ((t0 + (t2 + t4)) + (t1 + (t3 + t5)))): the same bits as factor_fixed (but
// for the sign of an exact zero), with 90 instead of 216 flops for a body's T and 135 instead of
// 306 for a joint's T and update (a product by the sign counted as a flop). The orders are those
// of this x86-64 build's SSE2 packets of two doubles without FMA.
template <int DI, int DP>
void TreeSolver::factor_ball(const ConstraintSystem& cs, int i) {
  const Eigen::Matrix<double, DI, DI> d = invert_fixed<DI>(cs, i);
  const Node& nd = nodes_[i];
  const int p = nd.parent;
  const JointBlock& b = cs.blocks()[nd.is_joint ? nd.index : nodes_[p].index];
  const Vec3& r = b.lever[nd.side];
  const double sign = nd.side == 0 ? 1.0 : -1.0;
  Eigen::Map<Eigen::Matrix<double, DI, DP>> T(this->T(i).data());
  Eigen::Map<Eigen::Matrix<double, DP, DP>> Dp(D(p).data());
  if constexpr (DI == 6) {
    // body i, joint p: H = -J^T, H(j, j) = -sign, H(3 + m, j) = sign C(j, m), the rest zero
    for (int a = 0; a < 6; ++a) {
      T(a, 0) = sign * ((-d(a, 0) - d(a, 4) * r.z()) + d(a, 5) * r.y());
      T(a, 1) = sign * ((-d(a, 1) + d(a, 3) * r.z()) - d(a, 5) * r.x());
      T(a, 2) = sign * ((-d(a, 2) - d(a, 3) * r.y()) + d(a, 4) * r.x());
    }
    for (int a = 0; a < 3; ++a) {
      Dp(a, 0) -= sign * ((-T(0, a) - T(4, a) * r.z()) + T(5, a) * r.y());
      Dp(a, 1) -= sign * (-T(1, a) + (T(3, a) * r.z() - T(5, a) * r.x()));
      Dp(a, 2) -= sign * ((-T(2, a) + T(4, a) * r.x()) - T(3, a) * r.y());
    }
  } else {
    // joint i, body p: H = -J = -sign [I, -C]; T = -sign [d, -X] with X = d C (row a: d.row(a) x r)
    Mat3 X;
    for (int a = 0; a < 3; ++a) X.row(a) = d.row(a).transpose().cross(r).transpose();
    T.template leftCols<3>() = -sign * d;
    T.template rightCols<3>() = sign * X;
    // D_p -= T^T H = [d^T, -Y^T; -X^T, Z^T] (Y = d^T C, Z = X^T C... row a of each: a column crossed with r)
    for (int a = 0; a < 3; ++a) {
      const Vec3 y = d.col(a).cross(r);   // row a of the top-right block: column a of d, crossed with r
      const Vec3 z = X.col(a).cross(r);   // row a of the bottom-right block
      for (int c = 0; c < 3; ++c) {
        Dp(a, c) -= d(c, a);
        Dp(3 + a, c) += X(c, a);
        Dp(a, 3 + c) += y[c];
        Dp(3 + a, 3 + c) -= z[c];
      }
    }
  }
  ++nnz_H_;  // -J has the entries -sign of the identity
  nnz_L_ += nonzero(T);
}

void TreeSolver::factor_general(const ConstraintSystem& cs, int i) {
  Eigen::LDLT<Block>& F = Dfac_[static_cast<size_t>(fac_[i])];
  F.compute(D(i));
  check_pivots(cs, i, F);
  const int p = nodes_[i].parent;
  if (p < 0) return;
  Block H(nodes_[i].dim, slot_[i].pdim);  // H_i,p(i): used here only (fixed maximum size: no allocation)
  BlockMap Ti = T(i);
  parent_block(cs, i, H);
  Ti = F.solve(H);
  D(p).noalias() -= Ti.transpose() * H;
  nnz_H_ += nonzero(H);
  nnz_L_ += nonzero(Ti);
}

void TreeSolver::solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, TreeSolveData& data) const {
  const int n = static_cast<int>(nodes_.size());
  if (b.size() != nrows_)
    throw Error(fmt::format("tree solver: right-hand side has {} entries, expected {}", b.size(), nrows_));
  if (x.size() != nrows_) x.resize(nrows_);
  if (data.z.size() != nz_) data.z.assign(nz_, 0.0);
  double* zb = data.z.data();
  long& ops = data.block_ops;
  ops = 0;

  // z = (0; -b) in node order
  for (int i = 0; i < n; ++i) {
    const Node& nd = nodes_[i];
    double* zi = zb + slot_[i].z;
    if (nd.is_joint && nd.dim == 3)
      Eigen::Map<Eigen::Vector3d>{zi} = -b.segment<3>(row_[i]);  // the common sizes at compile time
    else if (nd.is_joint)
      z(zb, i) = -b.segment(row_[i], nd.dim);
    else if (nd.dim == 6)
      Eigen::Map<Eigen::Matrix<double, 6, 1>>{zi}.setZero();
    else
      z(zb, i).setZero();
  }

  // forward: L w = z, children before parents (each child subtracts T_c^T z_c from its parent)
  for (int i = 0; i < n; ++i) {
    if (nodes_[i].parent < 0) continue;
    switch (kernel_[i]) {
      case Kernel::Body6Joint3:
      case Kernel::Body6Ball: forward_fixed<6, 3>(i, zb); break;
      case Kernel::Joint3Body6:
      case Kernel::BallBody6: forward_fixed<3, 6>(i, zb); break;
      case Kernel::General: forward_general(i, zb); break;
    }
    ++ops;
  }

  // diagonal and backward: D L^T u = w, parents before children; x is the joint part of u
  for (int i = n - 1; i >= 0; --i) {
    switch (kernel_[i]) {
      case Kernel::Body6Joint3:
      case Kernel::Body6Ball: backward_fixed<6, 3>(i, zb); break;
      case Kernel::Joint3Body6:
      case Kernel::BallBody6: backward_fixed<3, 6>(i, zb); break;
      case Kernel::General: backward_general(i, zb); break;
    }
    if (nodes_[i].is_joint) {
      if (nodes_[i].dim == 3)
        x.segment<3>(row_[i]) = Eigen::Map<const Eigen::Vector3d>{zb + slot_[i].z};
      else
        x.segment(row_[i], nodes_[i].dim) = z(zb, i);
    }
    ops += nodes_[i].parent >= 0 ? 2 : 1;  // D_i^-1, and T_i for a non-root
  }
}

template <int DI, int DP>
void TreeSolver::forward_fixed(int i, double* zb) const {
  const int p = nodes_[i].parent;
  Eigen::Map<Eigen::Matrix<double, DP, 1>>(z(zb, p).data()).noalias() -=
      Eigen::Map<const Eigen::Matrix<double, DI, DP>>(T_data(i)).transpose() *
      Eigen::Map<const Eigen::Matrix<double, DI, 1>>(z(zb, i).data());
}

void TreeSolver::forward_general(int i, double* zb) const { z(zb, nodes_[i].parent).noalias() -= T(i).transpose() * z(zb, i); }

template <int DI, int DP>
void TreeSolver::backward_fixed(int i, double* zb) const {
  Eigen::Map<Eigen::Matrix<double, DI, 1>> zi(z(zb, i).data());
  Eigen::Matrix<double, DI, 1> u = Eigen::Map<const Eigen::Matrix<double, DI, DI>>(Dinv_data(i)) * zi;
  const int p = nodes_[i].parent;
  if (p >= 0)
    u.noalias() -= Eigen::Map<const Eigen::Matrix<double, DI, DP>>(T_data(i)) *
                   Eigen::Map<const Eigen::Matrix<double, DP, 1>>(z(zb, p).data());
  zi = u;
}

void TreeSolver::backward_general(int i, double* zb) const {
  Vec u = Dfac_[static_cast<size_t>(fac_[i])].solve(z(zb, i));
  if (nodes_[i].parent >= 0) u.noalias() -= T(i) * z(zb, nodes_[i].parent);
  z(zb, i) = u;
}

long TreeSolver::nonzero_blocks_L() const { return nnz_L_; }
long TreeSolver::nonzero_blocks_H_lower() const { return nnz_H_; }

std::vector<std::vector<int>> split_acyclic(const Model& model) {
  const int nbody = static_cast<int>(model.bodies.size());
  const int world = nbody;
  // the world and static bodies are one node
  auto node = [&](int k) { return (k < 0 || model.bodies[k].is_static) ? world : k; };
  std::vector<std::vector<int>> parts;
  std::vector<DisjointSets> sets;
  for (int j = 0; j < static_cast<int>(model.joints.size()); ++j) {
    const Joint& J = model.joints[j];
    const int u = node(J.a), v = node(J.b);
    // a joint between fixed frames has no rows: part 0
    if (u == v && u == world) {
      if (parts.empty()) {
        parts.emplace_back();
        sets.emplace_back(nbody + 1);
      }
      parts[0].push_back(j);
      continue;
    }
    if (u == v)
      throw UnsupportedModel(fmt::format("joint '{}' connects body '{}' to itself", J.name, model.bodies[u].name));
    // the first part in which the joint closes no cycle, else a new one
    size_t p = 0;
    while (p < parts.size() && !sets[p].unite(u, v)) ++p;
    if (p == parts.size()) {
      parts.emplace_back();
      sets.emplace_back(nbody + 1);
      sets[p].unite(u, v);
    }
    parts[p].push_back(j);
  }
  return parts;
}

}  // namespace mb
