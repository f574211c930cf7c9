// The block Cholesky solver of A = J M^-1 J^T (methods/solvers/block_cholesky.cpp, `sle`'s default):
// on trees it solves A x = b as the dense LDL^T does, to round-off; where the joints close a loop
// it is the dense LDL^T, bit for bit.
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>

#include <Eigen/Dense>

#include "methods/constraints/constraint_system.hpp"
#include "methods/solvers/linear_solver.hpp"
#include "models/catalog.hpp"
#include "test_util.hpp"

namespace {

// the state of `model` a little off its initial one (every body turned and moved, so that A has no
// special values), with the system's Jacobians there
mb::State shaken(const mb::Model& m, mb::ConstraintSystem& cs) {
  mb::State s = mb::initial_state(m);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-0.2, 0.2);
  for (auto& b : s.bodies) {
    b.x += mb::Vec3(u(rng), u(rng), u(rng));
    b.q = (b.q * Eigen::Quaterniond(Eigen::AngleAxisd(u(rng), mb::Vec3(u(rng), u(rng), 1).normalized()))).normalized();
  }
  cs.update(m, s);
  return s;
}

}  // namespace

TEST_CASE("block solver: on trees it solves A x = b as the dense LDL^T does, one or several columns", "[block-solver][sle]") {
  for (const char* name : {"walker", "tree:joints=63", "tree:joints=15,anchor=ball", "chain:n=20", "chain:n=8,body=box", "double-pendulum"}) {
    INFO(name);
    const mb::Model m = mb::build_model(name);
    mb::ConstraintSystem cs(m);
    shaken(m, cs);
    const int n = cs.rows();
    REQUIRE(n > 0);
    Eigen::MatrixXd A;
    cs.assemble_dense(A);
    auto block = mb::make_block_solver(), dense = mb::make_dense_solver();
    block->analyze(cs);
    dense->analyze(cs);
    block->factor(cs);
    dense->factor(cs);
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> u(-1, 1);
    // one full column, and columns nonzero on a few rows only (the contacts' coupling: the forward
    // pass skips the blocks without entries)
    Eigen::MatrixXd B = Eigen::MatrixXd::Zero(n, 3);
    for (int r = 0; r < n; ++r) B(r, 0) = u(rng);
    B(n - 1, 1) = 1;
    B(0, 2) = -2;
    B(n / 2, 2) = 0.5;
    Eigen::MatrixXd Xb, Xd;
    block->solve_columns(B, Xb);
    dense->solve_columns(B, Xd);
    const double scale = Xd.cwiseAbs().maxCoeff();
    REQUIRE(scale > 0);
    CHECK((Xb - Xd).cwiseAbs().maxCoeff() <= 1e-9 * scale);
    CHECK((A * Xb - B).cwiseAbs().maxCoeff() <= 1e-9 * A.cwiseAbs().maxCoeff() * scale);
    Eigen::VectorXd x;
    block->solve(B.col(0), x);
    CHECK(x == Xb.col(0));
    // a second factorization at another state reads the new Jacobians
    mb::State s = mb::initial_state(m);
    cs.update(m, s);
    cs.assemble_dense(A);
    block->factor(cs);
    block->solve(B.col(0), x);
    CHECK((A * x - B.col(0)).cwiseAbs().maxCoeff() <= 1e-9 * A.cwiseAbs().maxCoeff() * x.cwiseAbs().maxCoeff());
  }
}

TEST_CASE("block solver: where the joints close a loop it is the dense LDL^T, bit for bit", "[block-solver][sle][loops]") {
  for (const char* name : {"loop:n=8", "loop:n=3"}) {
    INFO(name);
    const mb::Model m = mb::build_model(name);
    mb::ConstraintSystem cs(m);
    cs.update(m, mb::initial_state(m));
    auto block = mb::make_block_solver(), dense = mb::make_dense_solver();
    block->analyze(cs);
    dense->analyze(cs);
    block->factor(cs);
    dense->factor(cs);
    const Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(cs.rows(), -1, 1);
    Eigen::VectorXd xb, xd;
    block->solve(b, xb);
    dense->solve(b, xd);
    CHECK(xb == xd);
  }
}

TEST_CASE("block solver: sle walks the walker as with the dense solver, to round-off", "[block-solver][sle][walker]") {
  const mb::Model m = mb::build_model("walker");
  const mb::State a = mbtest::simulate(m, "sle", 0.01, 0.5);
  const mb::State b = mbtest::simulate(m, "sle:solver=dense", 0.01, 0.5);
  CHECK(mbtest::max_position_difference(a, b) < 1e-9);
}
