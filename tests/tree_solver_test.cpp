// The linear-time tree solver (baraff1996 / bender2007 s.4) against the dense solution of
// A x = b, A = J M^-1 J^T, its fill-in, its loop detection and the acyclic split of bender2007 s.5.
#include <atomic>
#include <cmath>
#include <cstring>
#include <random>
#include <set>
#include <string>
#include <vector>

#include <catch2/catch.hpp>
#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/solvers/tree_solver.hpp"
#include "models/catalog.hpp"
#include "models/model.hpp"
#include "test_util.hpp"

// heap allocations seen by AddressSanitizer (the Debug+ASan preset), to check factor/solve
#if defined(__SANITIZE_ADDRESS__)
#define MBTEST_COUNT_MALLOC 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MBTEST_COUNT_MALLOC 1
#endif
#endif
#ifdef MBTEST_COUNT_MALLOC
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                                         void (*free_hook)(const volatile void*));
#endif

namespace {

using mb::JointType;
using mb::Model;
using mb::Quat;
using mb::Vec3;

// tolerance of the tree solution against the dense one (relative, 2-norm)
constexpr double kRelTol = 1e-10;

#ifdef MBTEST_COUNT_MALLOC
std::atomic<long> g_mallocs{0};
std::atomic<bool> g_counting{false};
void count_malloc(const volatile void*, size_t) {
  if (g_counting) ++g_mallocs;
}
void ignore_free(const volatile void*) {}
#endif

struct Rng {
  std::mt19937 gen;
  explicit Rng(unsigned seed) : gen(seed) {}
  double uniform(double a, double b) { return std::uniform_real_distribution<double>(a, b)(gen); }
  int integer(int a, int b) { return std::uniform_int_distribution<int>(a, b)(gen); }
  Vec3 vec(double s) { return Vec3(uniform(-s, s), uniform(-s, s), uniform(-s, s)); }
  Quat quat() {
    std::normal_distribution<double> n;
    Eigen::Vector4d v(n(gen), n(gen), n(gen), n(gen));
    v.normalize();
    return Quat(v[0], v[1], v[2], v[3]);
  }
};

// a box of random mass, extents, position and orientation
int add_box(Model& m, Rng& r, bool is_static = false) {
  mb::Body b;
  b.name = fmt::format("body{}", m.bodies.size());
  b.is_static = is_static;
  b.mass = r.uniform(0.5, 3);
  b.box = Vec3(r.uniform(0.2, 1.5), r.uniform(0.2, 1.5), r.uniform(0.2, 1.5));
  const Vec3 s = b.box.cwiseAbs2();
  b.inertia = (b.mass / 12 * Vec3(s.y() + s.z(), s.x() + s.z(), s.x() + s.y())).asDiagonal();
  b.position = r.vec(3);
  b.orientation = r.quat();
  m.bodies.push_back(b);
  return static_cast<int>(m.bodies.size()) - 1;
}

int add_particle(Model& m, Rng& r) {
  mb::Body b;
  b.name = fmt::format("body{}", m.bodies.size());
  b.particle = true;
  b.mass = r.uniform(0.5, 3);
  b.position = r.vec(3);
  m.bodies.push_back(b);
  return static_cast<int>(m.bodies.size()) - 1;
}

// a joint with random lever arms (anchors) and axes; a, b may be mb::kWorld
int add_joint(Model& m, Rng& r, JointType t, int a, int b) {
  mb::Joint j;
  j.name = fmt::format("joint{}", m.joints.size());
  j.type = t;
  j.a = a;
  j.b = b;
  j.anchor_a = a == mb::kWorld ? r.vec(3) : r.vec(0.8);
  j.anchor_b = b == mb::kWorld ? r.vec(3) : r.vec(0.8);
  j.length = 1;
  j.axis_a = r.vec(1).normalized();
  j.axis_b = r.vec(1).normalized();
  j.rel_orientation = r.quat();
  m.joints.push_back(j);
  return static_cast<int>(m.joints.size()) - 1;
}

// hand-built trees: anchored to the world, free-floating, anchored to a static body, with a
// particle tail and one body without joints
Model hand_built_trees(unsigned seed) {
  Rng r(seed);
  Model m;
  for (int i = 0; i < 11; ++i) add_box(m, r);
  const int ground = add_box(m, r, true);  // 11
  const int p = add_particle(m, r), q = add_particle(m, r);
  add_box(m, r);  // no joints
  // anchored to the world: w -ball- 0 -hinge- 1, 0 -fixed- 2, 3 -ball- 2 (reversed), 3 -hinge- 4
  add_joint(m, r, JointType::Ball, mb::kWorld, 0);
  add_joint(m, r, JointType::Hinge, 0, 1);
  add_joint(m, r, JointType::Fixed, 0, 2);
  add_joint(m, r, JointType::Ball, 3, 2);
  add_joint(m, r, JointType::Hinge, 3, 4);
  // free-floating: 5 -fixed- 6 -hinge- 7, 8 -ball- 6
  add_joint(m, r, JointType::Fixed, 5, 6);
  add_joint(m, r, JointType::Hinge, 6, 7);
  add_joint(m, r, JointType::Ball, 8, 6);
  // anchored to a static body, body b of the joint: 9 -hinge- ground, 9 -ball- 10 -rod- p -ball- q
  add_joint(m, r, JointType::Hinge, 9, ground);
  add_joint(m, r, JointType::Ball, 9, 10);
  add_joint(m, r, JointType::Distance, 10, p);
  add_joint(m, r, JointType::Ball, q, p);
  m.info.name = "hand-built-trees";
  mb::check_model(m, "tree_solver_test");
  return m;
}

// a random tree of n rigid bodies and particles anchored to the world plus a free-floating one
// of n_free bodies, with random joint types and random body order in the joints
Model random_tree(int n, int n_free, unsigned seed) {
  Rng r(seed);
  Model m;
  for (int i = 0; i < n + n_free; ++i) {
    if (i > 0 && i != n && r.uniform(0, 1) < 0.15)
      add_particle(m, r);
    else
      add_box(m, r);
  }
  const JointType rigid[] = {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed};
  const JointType point[] = {JointType::Distance, JointType::Ball};
  auto joint = [&](int parent, int child) {
    const bool particles = (parent >= 0 && m.bodies[parent].particle) || m.bodies[child].particle;
    const JointType t = particles ? point[r.integer(0, 1)] : rigid[r.integer(0, 3)];
    if (r.uniform(0, 1) < 0.5)
      add_joint(m, r, t, parent, child);
    else
      add_joint(m, r, t, child, parent);
  };
  joint(mb::kWorld, 0);
  for (int i = 1; i < n; ++i) joint(r.integer(0, i - 1), i);
  for (int i = n + 1; i < n + n_free; ++i) joint(r.integer(n, i - 1), i);
  m.info.name = "random-tree";
  mb::check_model(m, "tree_solver_test");
  return m;
}

// n point masses on rods whose last mass is also tied to the world: a closed loop
Model anchored_chain(int n) {
  Model m = mb::build_model(fmt::format("chain:n={}", n));
  mb::Joint j = m.joints.back();
  j.name = "closing_rod";
  j.a = n - 1;
  j.b = mb::kWorld;
  j.anchor_b = Vec3(n + 0.5, 0, 0);
  m.joints.push_back(j);
  return m;
}

double relative_error(const Eigen::VectorXd& x, const Eigen::VectorXd& ref) { return (x - ref).norm() / ref.norm(); }

// max relative error of the tree solution against the dense one over a few right-hand sides
double tree_vs_dense(const mb::ConstraintSystem& cs, const mb::TreeSolver& ts, unsigned seed) {
  Eigen::MatrixXd A;
  cs.assemble_dense(A);
  const Eigen::LDLT<Eigen::MatrixXd> dense(A);
  Rng r(seed);
  double err = 0;
  mb::TreeSolveData data;
  for (int k = 0; k < 3; ++k) {
    Eigen::VectorXd b(cs.rows()), x;
    for (int i = 0; i < cs.rows(); ++i) b[i] = r.uniform(-1, 1);
    ts.solve(b, x, data);
    err = std::max(err, relative_error(x, dense.solve(b)));
  }
  return err;
}

// off-diagonal body-joint incidences (nonzero blocks in the lower triangle of H)
long incidences(const mb::ConstraintSystem& cs) {
  long n = 0;
  for (const auto& b : cs.blocks()) n += (b.body[0] >= 0) + (b.body[1] >= 0);
  return n;
}

// dense block LDL^T of H in the node order `order` (indices into ts.nodes()); returns the number
// of nonzero off-diagonal blocks of L (exact zeros stay exact when there is no fill-in)
long dense_L_blocks(const mb::ConstraintSystem& cs, const mb::TreeSolver& ts, const std::vector<int>& order) {
  const auto& nodes = ts.nodes();
  const int nn = static_cast<int>(order.size());
  std::vector<int> off(nn + 1, 0), where(nodes.size());
  for (int i = 0; i < nn; ++i) {
    off[i + 1] = off[i] + nodes[order[i]].dim;
    where[order[i]] = i;
  }
  // permuted H: M_k on body blocks, -J_i,k and its transpose on the incidences
  Eigen::MatrixXd S = Eigen::MatrixXd::Zero(off[nn], off[nn]);
  for (int i = 0; i < nn; ++i) {
    const auto& nd = nodes[order[i]];
    if (!nd.is_joint) S.block(off[i], off[i], nd.dim, nd.dim) = cs.mass(nd.index).topLeftCorner(nd.dim, nd.dim);
  }
  for (size_t u = 0; u < nodes.size(); ++u) {
    if (!nodes[u].is_joint) continue;
    const auto& blk = cs.blocks()[nodes[u].index];
    for (size_t v = 0; v < nodes.size(); ++v)
      for (int side = 0; side < 2; ++side)
        if (!nodes[v].is_joint && blk.body[side] == nodes[v].index) {
          const int i = where[u], k = where[v], di = nodes[u].dim, dk = nodes[v].dim;
          const mb::Mat6 J = cs.jacobian(blk, side);
          S.block(off[i], off[k], di, dk) = -J.topLeftCorner(di, dk);
          S.block(off[k], off[i], dk, di) = -J.topLeftCorner(di, dk).transpose();
        }
  }
  // right-looking block elimination, counting the nonzero L_ik
  long count = 0;
  for (int k = 0; k < nn; ++k) {
    const int dk = off[k + 1] - off[k];
    const Eigen::MatrixXd Dk = S.block(off[k], off[k], dk, dk);
    const Eigen::MatrixXd Dinv = Dk.fullPivLu().inverse();
    std::vector<int> rows;
    std::vector<Eigen::MatrixXd> L;
    for (int i = k + 1; i < nn; ++i) {
      const Eigen::MatrixXd Sik = S.block(off[i], off[k], off[i + 1] - off[i], dk);
      if (!(Sik.array() != 0.0).any()) continue;
      rows.push_back(i);
      L.push_back(Sik * Dinv);
      ++count;
    }
    for (size_t a = 0; a < rows.size(); ++a)
      for (size_t c = 0; c < rows.size(); ++c) {
        const int i = rows[a], j = rows[c];
        S.block(off[i], off[j], off[i + 1] - off[i], off[j + 1] - off[j]) -= L[a] * Dk * L[c].transpose();
      }
  }
  return count;
}

}  // namespace

TEST_CASE("tree solver equals the dense solution on a particle chain", "[tree_solver]") {
  const Model m = mb::build_model("chain:n=50");
  mb::ConstraintSystem cs(m);
  cs.update(m, mb::initial_state(m));
  mb::TreeSolver ts;
  ts.analyze(m, cs);
  ts.factor(cs);
  CHECK(ts.roots() == 1);
  CHECK(ts.nodes().size() == 100u);
  CHECK(tree_vs_dense(cs, ts, 1) < kRelTol);
  // no fill-in: one L block per H block, one per rod end on a particle
  CHECK(ts.nonzero_blocks_H_lower() == 99);
  CHECK(ts.nonzero_blocks_L() == ts.nonzero_blocks_H_lower());
  // root = the rod on the pivot, last in the order; leaves first
  CHECK(ts.nodes().back().is_joint);
  CHECK(cs.blocks()[ts.nodes().back().index].joint == 0);
  CHECK(ts.nodes().back().parent == -1);
}

TEST_CASE("tree solver equals the dense solution on hand-built rigid-body trees", "[tree_solver]") {
  for (unsigned seed : {11u, 12u, 13u}) {
    const Model m = hand_built_trees(seed);
    mb::ConstraintSystem cs(m);
    mb::State s = mb::initial_state(m);
    cs.update(m, s);
    mb::TreeSolver ts;
    ts.analyze(m, cs);
    ts.factor(cs);
    INFO("seed " << seed);
    CHECK(ts.roots() == 3);  // world-, free- and static-anchored components
    CHECK(tree_vs_dense(cs, ts, seed) < kRelTol);
    CHECK(ts.nonzero_blocks_H_lower() == incidences(cs));
    CHECK(ts.nonzero_blocks_L() == ts.nonzero_blocks_H_lower());

    // refactor at other orientations with the same analysis
    Rng r(seed + 100);
    for (auto& b : s.bodies) b.q = r.quat();
    cs.update(m, s);
    ts.factor(cs);
    CHECK(tree_vs_dense(cs, ts, seed + 1) < kRelTol);
  }
}

TEST_CASE("tree solver equals the dense solution on a random tree of 240 bodies", "[tree_solver]") {
  const Model m = random_tree(200, 40, 2024);
  mb::ConstraintSystem cs(m);
  cs.update(m, mb::initial_state(m));
  mb::TreeSolver ts;
  ts.analyze(cs);
  ts.factor(cs);
  CHECK(ts.roots() == 2);
  CHECK(ts.nodes().size() == 240 + m.joints.size());
  CHECK(tree_vs_dense(cs, ts, 7) < kRelTol);
  CHECK(ts.nonzero_blocks_H_lower() == incidences(cs));
  CHECK(ts.nonzero_blocks_L() == ts.nonzero_blocks_H_lower());
}

TEST_CASE("a dense LDL^T in the tree order has no fill-in, bodies first has", "[tree_solver]") {
  for (const Model& m : {mb::build_model("chain:n=12"), hand_built_trees(5)}) {
    mb::ConstraintSystem cs(m);
    cs.update(m, mb::initial_state(m));
    mb::TreeSolver ts;
    ts.analyze(cs);
    ts.factor(cs);
    std::vector<int> tree(ts.nodes().size()), bodies_first;
    for (size_t i = 0; i < tree.size(); ++i) tree[i] = static_cast<int>(i);
    for (int joints = 0; joints < 2; ++joints)
      for (size_t i = 0; i < tree.size(); ++i)
        if (ts.nodes()[i].is_joint == (joints == 1)) bodies_first.push_back(static_cast<int>(i));
    INFO(m.info.name);
    CHECK(dense_L_blocks(cs, ts, tree) == ts.nonzero_blocks_H_lower());
    // eliminating the bodies first forms -A, which couples the joints of each body
    CHECK(dense_L_blocks(cs, ts, bodies_first) > ts.nonzero_blocks_H_lower());
  }
}

TEST_CASE("tree solver rejects loops, naming a joint on the loop", "[tree_solver]") {
  Rng r(3);
  // a chain with both ends on the world
  const Model chain = anchored_chain(6);
  // a free-floating ring of four boxes
  Model ring;
  for (int i = 0; i < 4; ++i) add_box(ring, r);
  for (int i = 0; i < 4; ++i) add_joint(ring, r, JointType::Ball, i, (i + 1) % 4);
  // one chain anchored to the world and to a static body
  Model two_anchors;
  const int ground = add_box(two_anchors, r, true);
  for (int i = 0; i < 3; ++i) add_box(two_anchors, r);
  add_joint(two_anchors, r, JointType::Hinge, mb::kWorld, 1);
  add_joint(two_anchors, r, JointType::Ball, 1, 2);
  add_joint(two_anchors, r, JointType::Fixed, 3, 2);
  add_joint(two_anchors, r, JointType::Ball, 3, ground);
  // two joints between the same two bodies
  Model twice;
  add_box(twice, r);
  add_box(twice, r);
  add_joint(twice, r, JointType::Ball, mb::kWorld, 0);
  add_joint(twice, r, JointType::Ball, 0, 1);
  add_joint(twice, r, JointType::Distance, 1, 0);

  const std::vector<std::pair<const Model*, std::string>> cases = {
      {&chain, "closing_rod"}, {&ring, "joint3"}, {&two_anchors, "joint3"}, {&twice, "joint2"}};
  for (const auto& [m, joint] : cases) {
    mb::ConstraintSystem cs(*m);
    mb::TreeSolver ts;
    CHECK_THROWS_AS(ts.analyze(cs), mb::UnsupportedModel);
    CHECK_THROWS_WITH(ts.analyze(*m, cs), Catch::Contains("'" + joint + "'"));
  }
}

TEST_CASE("split_acyclic: parts the tree solver accepts, every joint once", "[tree_solver][split]") {
  // a 5 x 5 grid of particles on rods (cloth, bender2007 fig. 1) hanging from two corners
  Model grid;
  Rng r(9);
  const int n = 5;
  for (int i = 0; i < n * n; ++i) add_particle(grid, r);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      if (j + 1 < n) add_joint(grid, r, JointType::Distance, i * n + j, i * n + j + 1);
      if (i + 1 < n) add_joint(grid, r, JointType::Distance, i * n + j, (i + 1) * n + j);
    }
  add_joint(grid, r, JointType::Ball, mb::kWorld, 0);
  add_joint(grid, r, JointType::Ball, mb::kWorld, n - 1);

  struct Case {
    Model model;
    size_t parts;  // expected number of parts, 0: do not check
  };
  const std::vector<Case> cases = {{mb::build_model("chain:n=20"), 1},
                                   {hand_built_trees(4), 1},
                                   {random_tree(60, 10, 8), 1},
                                   {anchored_chain(8), 2},
                                   {grid, 0}};
  for (const auto& c : cases) {
    const Model& m = c.model;
    const auto parts = mb::split_acyclic(m);
    INFO(m.info.name << " with " << m.joints.size() << " joints in " << parts.size() << " parts");
    if (c.parts > 0) CHECK(parts.size() == c.parts);
    std::multiset<int> seen;
    for (const auto& part : parts) {
      REQUIRE_FALSE(part.empty());
      seen.insert(part.begin(), part.end());
      mb::ConstraintSystem cs(m, part);
      cs.update(m, mb::initial_state(m));
      mb::TreeSolver ts;
      REQUIRE_NOTHROW(ts.analyze(m, cs));
      ts.factor(cs);
      CHECK(tree_vs_dense(cs, ts, 3) < kRelTol);
    }
    CHECK(seen.size() == m.joints.size());
    for (int j = 0; j < static_cast<int>(m.joints.size()); ++j) CHECK(seen.count(j) == 1u);
  }
  // the first part of the loop is the spanning forest: all but the closing rod
  CHECK(mb::split_acyclic(anchored_chain(8))[1] == std::vector<int>{8});
}

TEST_CASE("tree solver work is linear in the size, without heap allocation", "[tree_solver]") {
  // block operations of factor and solve: one per node and two per edge, counted, not timed
  std::vector<long> fops, sops;
  for (int n : {50, 100, 200, 400}) {
    const Model m = mb::build_model(fmt::format("chain:n={}", n));
    mb::ConstraintSystem cs(m);
    cs.update(m, mb::initial_state(m));
    mb::TreeSolver ts;
    ts.analyze(cs);
    ts.factor(cs);
    Eigen::VectorXd b = Eigen::VectorXd::Ones(cs.rows()), x(cs.rows());
    ts.solve(b, x);
    const long nodes = static_cast<long>(ts.nodes().size());
    CHECK(ts.factor_block_ops() == 3 * nodes - 2 * ts.roots());
    CHECK(ts.solve_block_ops() == 3 * nodes - 2 * ts.roots());
    fops.push_back(ts.factor_block_ops());
    sops.push_back(ts.solve_block_ops());
  }
  // doubling n adds twice the work of the previous doubling
  for (size_t i = 2; i < fops.size(); ++i) {
    CHECK(fops[i] - fops[i - 1] == 2 * (fops[i - 1] - fops[i - 2]));
    CHECK(sops[i] - sops[i - 1] == 2 * (sops[i - 1] - sops[i - 2]));
  }

  // and on the mixed tree
  const Model m = random_tree(200, 40, 2025);
  mb::ConstraintSystem cs(m);
  cs.update(m, mb::initial_state(m));
  mb::TreeSolver ts;
  ts.analyze(cs);
  Eigen::VectorXd b = Eigen::VectorXd::Ones(cs.rows()), x(cs.rows());
  ts.factor(cs);
  ts.solve(b, x);
  const long nodes = static_cast<long>(ts.nodes().size());
  CHECK(ts.factor_block_ops() == 3 * nodes - 2 * ts.roots());
  CHECK(ts.solve_block_ops() == 3 * nodes - 2 * ts.roots());

#ifdef MBTEST_COUNT_MALLOC
  static const bool installed = __sanitizer_install_malloc_and_free_hooks(count_malloc, ignore_free) != 0;
  REQUIRE(installed);
  g_mallocs = 0;
  g_counting = true;
  ts.factor(cs);
  ts.solve(b, x);
  g_counting = false;
  CHECK(g_mallocs == 0);
#else
  WARN("not an AddressSanitizer build: heap allocations in factor/solve not checked");
#endif
}

TEST_CASE("on the catalog tree:joints=127 the tree solver makes no fill-in and equals the dense solve", "[methods][tree_solver]") {
  for (const char* spec : {"tree:joints=31", "tree:joints=127", "tree:joints=127,anchor=ball", "tree:joints=255"}) {
    const mb::Model m = mb::build_model(spec);
    mb::ConstraintSystem cs(m);
    mb::State s = mb::initial_state(m);
    // a moved state: rotated bodies change the lever arms and world inertias
    for (size_t k = 0; k < s.bodies.size(); ++k)
      s.bodies[k].q = mb::Quat(Eigen::AngleAxisd(0.1 * static_cast<double>(k % 7), mb::Vec3(1, 2, 3).normalized())) * s.bodies[k].q;
    cs.update(m, s);
    mb::TreeSolver ts;
    ts.analyze(m, cs);
    ts.factor(cs);
    INFO(spec << ": nonzero blocks of L " << ts.nonzero_blocks_L() << ", of the lower triangle of H " << ts.nonzero_blocks_H_lower());
    CHECK(ts.nonzero_blocks_L() == ts.nonzero_blocks_H_lower());
    Eigen::MatrixXd A;
    cs.assemble_dense(A);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(cs.rows(), -1, 2);
    Eigen::VectorXd x;
    ts.solve(b, x);
    const Eigen::VectorXd xd = A.ldlt().solve(b);
    const double rel = (x - xd).norm() / xd.norm();
    INFO(spec << ": |x_tree - x_dense| / |x_dense| = " << rel);
    CHECK(rel < 1e-10);
  }
}

TEST_CASE("ball joints by cross products give the bits of the full-size block products", "[methods][tree_solver]") {
  // the tree solver's ball kernels against its fixed-size kernels, and a ball joint's impulses and
  // J V against the 6 x 6 products of its stored Jacobian blocks, on a moved state
  MBTEST_SKIP_UNLESS_SSE2_ORDER();
  for (const char* spec : {"tree:joints=127", "tree:joints=63,anchor=ball", "chain:n=12,body=box"}) {
    INFO(spec);
    const mb::Model m = mb::build_model(spec);
    mb::ConstraintSystem cs(m);
    mb::State s = mb::initial_state(m);
    for (size_t k = 0; k < s.bodies.size(); ++k) {
      s.bodies[k].q = mb::Quat(Eigen::AngleAxisd(0.1 * static_cast<double>(k % 7), mb::Vec3(1, 2, 3).normalized())) * s.bodies[k].q;
      s.bodies[k].v = mb::Vec3(0.1 * static_cast<double>(k % 5), -0.2, 0.3);
      s.bodies[k].w = mb::Vec3(-0.4, 0.05 * static_cast<double>(k % 3), 0.6);
    }
    cs.update(m, s);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(cs.rows(), -1, 2);
    Eigen::VectorXd x[2];
    for (int on = 0; on < 2; ++on) {
      mb::TreeSolver ts;
      ts.use_ball_kernels(on == 1);
      ts.analyze(m, cs);
      ts.factor(cs);
      ts.solve(b, x[on]);
    }
    CHECK(std::memcmp(x[0].data(), x[1].data(), sizeof(double) * static_cast<size_t>(x[0].size())) == 0);
    // J V and M^-1 J^T x by the stored 6 x 6 blocks (Eigen's fixed-size products)
    Eigen::VectorXd e;
    cs.velocity_error(s, e);
    mb::State moved = s, expect = s;
    cs.apply_impulse(x[1], moved);
    long checked = 0;
    for (const mb::JointBlock& blk : cs.blocks()) {
      REQUIRE(blk.ball);
      mb::Vec6 ej = mb::Vec6::Zero();
      for (int side = 0; side < 2; ++side) {
        const int k = blk.body[side];
        if (k < 0) continue;
        mb::Vec6 V;
        V << s.bodies[k].v, s.bodies[k].w;
        const mb::Mat6 J = cs.jacobian(blk, side);
        ej.noalias() += J * V;
        mb::Vec6 xb = mb::Vec6::Zero();
        xb.head<3>() = x[1].segment<3>(blk.row);
        const mb::Vec6 dV = cs.mass_inverse(k) * (J.transpose() * xb).eval();
        expect.bodies[k].v += dV.head<3>();
        expect.bodies[k].w += dV.tail<3>();
      }
      const mb::Vec3 got = e.segment<3>(blk.row), want = ej.head<3>();
      CHECK(std::memcmp(got.data(), want.data(), 3 * sizeof(double)) == 0);
      ++checked;
    }
    CHECK(checked > 10);
    for (size_t k = 0; k < s.bodies.size(); ++k) {
      CHECK(std::memcmp(moved.bodies[k].v.data(), expect.bodies[k].v.data(), 3 * sizeof(double)) == 0);
      CHECK(std::memcmp(moved.bodies[k].w.data(), expect.bodies[k].w.data(), 3 * sizeof(double)) == 0);
    }
  }
}

TEST_CASE("a system that does not keep the ball joints' Jacobian blocks gives the numbers of one that does", "[tree_solver]") {
  // keep_ball_jacobians(false) (a tree solver's users): update() turns the lever arms only and
  // jacobian() forms sign [I, -r*]; every product that reads the blocks must see the same numbers
  auto same = [](const auto& a, const auto& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), sizeof(double) * static_cast<size_t>(a.size())) == 0;
  };
  std::vector<Model> models = {hand_built_trees(11), hand_built_trees(12), mb::build_model("tree:joints=63")};
  for (size_t mi = 0; mi < models.size(); ++mi) {
    INFO("model " << mi);
    const Model& m = models[mi];
    mb::ConstraintSystem kept(m), lean(m);
    lean.keep_ball_jacobians(false);
    Rng r(40 + static_cast<unsigned>(mi));
    mb::State s = mb::initial_state(m);
    for (auto& b : s.bodies) b.q = r.quat(), b.v = r.vec(1), b.w = r.vec(1);
    kept.update(m, s);
    lean.update(m, s);
    long formed = 0;
    for (size_t i = 0; i < kept.blocks().size(); ++i)
      for (int side = 0; side < 2; ++side) {
        const mb::JointBlock &bk = kept.blocks()[i], &bl = lean.blocks()[i];
        CHECK(same(kept.jacobian(bk, side), bk.J_kept[side]));
        CHECK(same(lean.jacobian(bl, side), bk.J_kept[side]));
        // the lean system's kept block lacks the lever part: the comparison above is not void
        if (bl.ball && bl.body[side] >= 0 && lean.body_dim(bl.body[side]) == 6) {
          CHECK(bl.J_kept[side].block<3, 3>(0, 3).isZero(0));
          ++formed;
        }
      }
    CHECK(formed > 5);
    Eigen::MatrixXd Ak, Al;
    kept.assemble_dense(Ak);
    lean.assemble_dense(Al);
    CHECK(same(Ak, Al));
    Eigen::VectorXd ek, el;
    kept.velocity_error(s, ek);
    lean.velocity_error(s, el);
    CHECK(same(ek, el));
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(kept.rows(), -1, 2);
    for (int on = 0; on < 2; ++on) {  // the general and fixed-size kernels read the blocks
      Eigen::VectorXd xk, xl;
      mb::TreeSolver tk, tl;
      tk.use_ball_kernels(on == 1);
      tl.use_ball_kernels(on == 1);
      tk.analyze(m, kept);
      tl.analyze(m, lean);
      tk.factor(kept);
      tl.factor(lean);
      tk.solve(b, xk);
      tl.solve(b, xl);
      CHECK(same(xk, xl));
      mb::State sk = s, sl = s;
      kept.apply_impulse(xk, sk);
      lean.apply_impulse(xl, sl);
      for (size_t k = 0; k < s.bodies.size(); ++k) {
        CHECK(same(sk.bodies[k].v, sl.bodies[k].v));
        CHECK(same(sk.bodies[k].w, sl.bodies[k].w));
      }
    }
  }
}
