// Linear-time solver for the impulse / multiplier SLE A x = b, A = J M^-1 J^T, of an acyclic
// constraint system (baraff1996, as used by bender2007 s.4), and the split of a model's
// joints into acyclic parts for models with loops (bender2007 s.5).
//
// Instead of A (dense in general) the solver factors the sparse symmetric indefinite matrix
//   H = [ M   -J^T ]      H (y; x) = (0; -b)   <=>   y = M^-1 J^T x,  J M^-1 J^T x = b
//       [ -J   0   ]
// (bender2007 eq. 7; baraff1996 "An (Always) Sparse Formulation"). H is a block matrix over the
// nodes of an undirected graph: one node per dynamic body k touched by a block (dim 3 or 6,
// H_kk = M_k) and one per joint block i (dim 1..6, H_ii = 0); the only off-diagonal blocks are
// H_ik = -J_i,k and H_ki = -J_i,k^T for the bodies k of joint i. The world and all static bodies
// have no columns: they are left out of H, but count as ONE node when looking for cycles, so two
// joints anchored to the world (or to static bodies) in one connected component close a loop.
//
// Ordering (baraff1996, "A Sparse Solution Method": elimination order). If the graph is a forest,
// each connected component is rooted at
//   - its joint anchored to the world/a static body, if it has one (at most one, see above), else
//   - its dynamic body of lowest index,
// and the nodes are numbered in DFS postorder, children before parents. Every non-root node i has
// exactly one parent p(i) (a non-root joint has one parent body and one child body), so
// H = L D L^T, L unit lower block triangular, has no fill-in: L_p(i),i is the only off-diagonal
// block in column i, exactly where H has its block.
//
// Factor (baraff1996, "An O(n) factorization method" and the pseudocode appendix; his J_ij
// is our T_i below), for i in postorder:
//   D_i = H_ii - sum_{c child of i} T_c^T D_c T_c  = H_ii - sum_c T_c^T H_c,i
//   T_i = D_i^-1 H_i,p(i)                         (dim_i x dim_p(i), not for roots)
// so that H = L D L^T with the single off-diagonal block L_p(i),i = T_i^T per column.
// D_k of a body is M_k plus positive semidefinite terms (SPD); D_i of a joint is
// -sum_c J_i,c D_c^-1 J_i,c^T over its child bodies, negative definite when J_i,c has full row
// rank: an anchored root joint has D = -J D_child^-1 J^T. Each D_i is factored by a pivoted
// LDL^T of at most 6 x 6 (Eigen::LDLT, fine for definite blocks of either sign).
// Solve (same pseudocode), with z = (0; -b):
//   forward, postorder:                z_i -= sum_{c child of i} T_c^T z_c     (L w = z)
//   diagonal + backward, reverse order: z_i  = D_i^-1 z_i - T_i z_p(i)          (D L^T u = w)
// and x is the joint part of z. Both passes touch each node and edge once: O(n) in the number of
// bodies and joints, with at most 6 x 6 blocks.
//
// Both passes are organised by edges: a child c, when visited, subtracts its term T_c^T H_c,i
// (factor) or T_c^T z_c (forward solve) from its parent's buffer, so that each node's step needs
// only its own block size and its parent's (the children of a node are visited in the same
// ascending order as a sum over them would take).
//
// Kernels. The blocks of rigid bodies (6) and of three-row joints (ball joints, 3) take a kernel
// with the sizes fixed at compile time (Eigen fixed-size products; D_i^-1 formed once per
// factor() in closed form: a 3 x 3 block by cofactors, a 6 x 6 one by its 3 x 3 blocks and their
// Schur complement, so that the solve is three small matrix-vector products per node; a block
// counts as singular when |det| < 1e-13 |product of its diagonal| for a 3 x 3 block or either
// 3 x 3 factor of a 6 x 6 one): edges (6, 3) and (3, 6) and roots of size 6. Every other
// node (point masses on rods: 3 and 1, hinges: 5, ...) takes the general kernel (blocks of
// run-time size up to 6 x 6, T_i and D_i^-1 z_i by Eigen::LDLT's solve), the same operations in
// the same order as before the fixed-size kernels, so those models give the same bits.
//
// Memory: analyze() sizes every buffer; factor() and solve() do not allocate (all blocks are
// Eigen matrices of fixed maximum size 6 x 6). The solve's scratch is a TreeSolveData: a factored
// TreeSolver is read, not written, by solve(b, x, data), so threads each with their own data
// solve with one TreeSolver at once (solve(b, x) uses the solver's own data).
#pragma once
#include <vector>

#include <Eigen/Cholesky>
#include <Eigen/Core>

#include "methods/constraints/constraint_system.hpp"
#include "models/model.hpp"

namespace mb {

// The scratch of solves with one TreeSolver: z by node (sized by the first solve) and the block
// operations of the last solve.
struct TreeSolveData {
  std::vector<double> z;
  long block_ops = 0;
};

class TreeSolver {
 public:
  using Block = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;
  using Vec = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;

  // one node of H, in elimination (DFS post-) order
  struct Node {
    bool is_joint = false;  // joint block or dynamic body
    int index = -1;         // index into cs.blocks() (joint) or model body index (body)
    int dim = 0;            // rows of the block (1..6) or body dim (3 or 6)
    int parent = -1;        // node index of the parent, -1 for a root
    int side = -1;          // side (0: body a, 1: body b) of the joint block on the edge to the parent
  };

  // Once per structure: builds the graph, chooses the roots, orders the nodes and sizes all
  // buffers. Throws UnsupportedModel naming a joint that closes a cycle (with the world and the
  // static bodies as one node). The overload with the model names the joint by name.
  void analyze(const ConstraintSystem& cs);
  void analyze(const Model& model, const ConstraintSystem& cs);
  // Ball joints' edges by cross products (factor_ball, the default) or by the fixed-size products
  // (factor_fixed): the same bits either way (tests compare them); takes effect at analyze().
  void use_ball_kernels(bool on) { ball_kernels_ = on; }

  // O(n) block LDL^T of H with the current Jacobians (a ball joint's lever arms, every other
  // block through cs.jacobian_ref()) and masses (call cs.update() first); cs must have the
  // structure analyze() saw. No heap allocation. Throws
  // SimulationError if a diagonal block is singular (a joint block with dependent rows).
  void factor(const ConstraintSystem& cs);

  // x = A^-1 b in O(n); b and x have cs.rows() entries (block i at rows [row, row + dim)). x and
  // data.z are resized only if their sizes differ (the only possible allocations).
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x, TreeSolveData& data) const;
  void solve(const Eigen::VectorXd& b, Eigen::VectorXd& x) { solve(b, x, own_); }

  // counts of off-diagonal blocks (after factor()): nonzero blocks of L, and nonzero blocks in the
  // lower triangle of H (one per body-joint incidence with a nonzero J_i,k). Equal = no fill-in.
  long nonzero_blocks_L() const;
  long nonzero_blocks_H_lower() const;

  // block operations (a diagonal factorization, a block product, a block solve) done by the last
  // factor() and the last solve(): a structural count to check O(n) without timing.
  long factor_block_ops() const { return factor_ops_; }
  long solve_block_ops() const { return own_.block_ops; }

  const std::vector<Node>& nodes() const { return nodes_; }  // (nnodes) in elimination order
  int roots() const { return nroots_; }                      // connected components
  int rows() const { return nrows_; }

 private:
  // the kernel of a node: block sizes (own, parent's) fixed at compile time, or General
  // (Body6Ball, BallBody6: the edge is a ball joint's, JointBlock::ball, whose blocks H_i,p(i) are
  // products by lever-arm cross products: factor_ball)
  enum class Kernel : unsigned char { General, Body6Joint3, Joint3Body6, Body6Ball, BallBody6 };

  void analyze_impl(const Model* model, const ConstraintSystem& cs);
  // H_i,p(i) (dim_i x dim_p(i)) of non-root node i: -J_i,k or -J_i,k^T
  template <class M>
  void parent_block(const ConstraintSystem& cs, int i, M& H) const;
  // factor() and solve() steps of node i; DI, DP: the sizes of its block and its parent's
  template <int DI, int DP>
  void factor_fixed(const ConstraintSystem& cs, int i);
  void factor_general(const ConstraintSystem& cs, int i);
  template <int DI, int DP>
  void factor_ball(const ConstraintSystem& cs, int i);
  // D_i^-1 of a fixed-size node, kept and returned (throws SimulationError when singular)
  template <int DI>
  Eigen::Matrix<double, DI, DI> invert_fixed(const ConstraintSystem& cs, int i);
  // the solve's steps of node i on the scratch zb (TreeSolveData::z)
  template <int DI, int DP>
  void forward_fixed(int i, double* zb) const;
  template <int DI, int DP>
  void backward_fixed(int i, double* zb) const;
  void forward_general(int i, double* zb) const;
  void backward_general(int i, double* zb) const;
  // SimulationError naming the node when its diagonal block is singular
  template <class Ldlt>
  void check_pivots(const ConstraintSystem& cs, int i, const Ldlt& F) const;
  [[noreturn]] void throw_singular(const ConstraintSystem& cs, int i) const;

  int nrows_ = 0;
  int nroots_ = 0;
  std::vector<Node> nodes_;                  // (nnodes) postorder
  std::vector<int> child_start_, children_;  // CSR: children of node i in children_[start_i, start_i+1)
  std::vector<int> row_;                     // (nnodes) first row of a joint node in b and x, -1 for bodies
  std::vector<Kernel> kernel_;               // (nnodes)
  // The numeric blocks of node i at their sizes, one after the other in elimination order (a
  // ball-joint tree needs 656 bytes per joint, not the 3.4 KB of four blocks kept at the maximum
  // size 6 x 6): D_i (d x d, accumulated over the children), which a fixed-size kernel overwrites
  // with D_i^-1 once it has read it (Dinv(i) is D(i)'s place), and T_i = D_i^-1 H_i,p(i) (d x d_p,
  // empty for roots); z_i (d) the solve's scratch, in TreeSolveData::z. H_i,p(i) = -J is read
  // from the constraint system where it is needed and not kept.
  using BlockMap = Eigen::Map<Block>;
  using VecMap = Eigen::Map<Vec>;
  BlockMap D(int i) { return {store_.data() + slot_[i].D, slot_[i].dim, slot_[i].dim}; }
  BlockMap Dinv(int i) { return {store_.data() + slot_[i].Dinv, slot_[i].dim, slot_[i].dim}; }
  BlockMap T(int i) { return {store_.data() + slot_[i].T, slot_[i].dim, slot_[i].pdim}; }
  const double* Dinv_data(int i) const { return store_.data() + slot_[i].Dinv; }
  const double* T_data(int i) const { return store_.data() + slot_[i].T; }
  Eigen::Map<const Block> T(int i) const { return {T_data(i), slot_[i].dim, slot_[i].pdim}; }
  VecMap z(double* zb, int i) const { return {zb + slot_[i].z, slot_[i].dim}; }

  struct Slot {
    unsigned D = 0, Dinv = 0, T = 0, z = 0;  // offsets in store_ (z: in TreeSolveData::z)
    int dim = 0, pdim = 0;                   // d_i and d_p(i) (0 for a root)
  };
  std::vector<Slot> slot_;                   // (nnodes)
  std::vector<double> store_;
  size_t nz_ = 0;                            // the size of TreeSolveData::z
  TreeSolveData own_;                        // solve(b, x)'s
  std::vector<int> fac_;                     // (nnodes) index into Dfac_ (general kernel), -1
  std::vector<Eigen::LDLT<Block>> Dfac_;     // factorizations of D_i of the general-kernel nodes
  bool ball_kernels_ = true;
  long nnz_L_ = 0, nnz_H_ = 0;
  long factor_ops_ = 0;
};

// Partition of the model's joint indices into acyclic parts (bender2007 s.5), the world and all
// static bodies counting as one node:
//   part 0: a spanning forest, built greedily over the joints in index order (a joint joins part 0
//           if it connects two components not yet connected by part 0 - Kruskal with unit weights);
//   parts 1, 2, ...: each remaining joint, in index order, goes to the first part in which it
//           closes no cycle, a new part if there is none.
// A tree gives one part, a single closed loop two. Joints between two fixed frames (world/static)
// constrain nothing (ConstraintSystem drops them) and go to part 0. Every joint is in exactly one
// part; each part's ConstraintSystem is accepted by TreeSolver::analyze().
std::vector<std::vector<int>> split_acyclic(const Model& model);

}  // namespace mb
