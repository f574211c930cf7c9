// Closed loops and redundant constraints (tomcin2014 s.3-4): the Peaucellier-Lipkin linkage, the
// regularized solve, and `tomcin` against the analytic straight line and against other methods.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include <Eigen/Dense>

#include "core/error.hpp"
#include "methods/constraints/body_split.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/method.hpp"
#include "methods/solvers/linear_solver.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {

// the linkage's tracer P: the lower end of bar AP (body 4), and its distance from the line y = -2
double line_deviation(const mb::Model& m, const mb::State& s) {
  const int ap = m.body_index("AP");
  const mb::BodyState& b = s.bodies[static_cast<size_t>(ap)];
  const mb::Vec3 p = b.x + b.q * mb::Vec3(0, -m.bodies[static_cast<size_t>(ap)].box.y() / 2, 0);
  return std::abs(p.y() + 2);
}

// a pendulum of one particle held by two identical rods: A = [a a; a a], null space (1, -1)
mb::Model doubled_rod_pendulum() {
  mb::Model m = mb::build_model("pendulum90");
  m.joints.push_back(m.joints.front());
  m.joints.back().name = "rod-twin";
  return m;
}

}  // namespace

TEST_CASE("loops: the Peaucellier linkage has 50 constraint rows, 9 of them redundant, satisfied at the start", "[loops]") {
  const mb::Model m = mb::build_model("peaucellier");
  REQUIRE(m.bodies.size() == 7);
  REQUIRE(m.joints.size() == 10);
  mb::ConstraintSystem cs(m);
  const mb::State s = mb::initial_state(m);
  cs.update(m, s);
  CHECK(cs.rows() == 50);
  CHECK(mb::redundant_constraints(m) == 9);
  CHECK((mb::model_features(m) & mb::kLoops) != 0);
  Eigen::VectorXd e;
  cs.position_error(m, s, e);
  CHECK(e.cwiseAbs().maxCoeff() < 1e-12);
  cs.velocity_error(s, e);
  CHECK(e.cwiseAbs().maxCoeff() < 1e-9);  // the initial velocities from differences of the closed-form pose
  CHECK(line_deviation(m, s) < 1e-14);
  // the tracer starts moving along the line, not off it
  CHECK(std::abs(s.bodies[4].v.y() + (s.bodies[4].w.cross(s.bodies[4].q * mb::Vec3(0, -0.5, 0))).y()) < 1e-9);
}

TEST_CASE("loops: the regularized Cholesky solves a system with a known null space", "[loops]") {
  const mb::Model m = doubled_rod_pendulum();
  mb::ConstraintSystem cs(m);
  cs.update(m, mb::initial_state(m));
  REQUIRE(cs.rows() == 2);
  CHECK(cs.redundant_rows() == 1);
  Eigen::MatrixXd A;
  cs.assemble_dense(A);
  const double a = A(0, 0);
  REQUIRE(a > 0);
  CHECK(A(0, 1) == Approx(a));
  // without regularization the factorization of the singular A fails (or its solve is useless)
  auto plain = mb::make_cholmod_solver();
  plain->analyze(cs);
  bool plain_ok = true;
  try {
    plain->factor(cs);
    Eigen::VectorXd x;
    plain->solve(Eigen::Vector2d(1, 1), x);
    plain_ok = x.allFinite() && (A * x - Eigen::Vector2d(1, 1)).norm() < 1e-6;
  } catch (const mb::SimulationError&) {
    plain_ok = false;
  }
  CHECK_FALSE(plain_ok);
  // with alpha = eps_T norm1(A) = eps_T 2a: x = b_sum / (2a + alpha) (1, 1), orthogonal to the null space
  const double eps_t = 1e-10;
  auto reg = mb::make_regularized_cholmod_solver(eps_t, true);
  reg->analyze(cs);
  reg->factor(cs);
  CHECK(reg->factor_info().shift == Approx(eps_t * 2 * a).epsilon(1e-12));
  CHECK(reg->factor_info().nnz_a == 3);
  CHECK(reg->factor_info().condition == Approx(1.0));  // one nonzero eigenvalue 2a
  Eigen::VectorXd x;
  reg->solve(Eigen::Vector2d(1, 1), x);
  // b in the range of A: solved up to the regularization, alpha / lambda = 1e-10; the component along
  // the null space (1, -1) is round-off amplified by the condition 1 / eps_T (1e-16 x 1e10)
  CHECK(x(0) == Approx(1 / (2 * a + eps_t * 2 * a)).epsilon(1e-6));
  CHECK((A * x - Eigen::Vector2d(1, 1)).norm() < 1e-9);
  CHECK(std::abs(x(0) - x(1)) < 1e-5 * std::abs(x(0)));
  // a milder eps_T = 1e-4: the minimum-norm solution, orthogonal to the null space to round-off x 1e4
  auto mild = mb::make_regularized_cholmod_solver(1e-4);
  mild->analyze(cs);
  mild->factor(cs);
  mild->solve(Eigen::Vector2d(1, 1), x);
  CHECK(std::abs(x(0) - x(1)) < 1e-11 * std::abs(x(0)));
  // a right-hand side with a null-space part (inconsistent redundant rows): that part is divided
  // by alpha alone. b = (1, 3) = 2 (1, 1) - (1, -1): x = 2 (1, 1) / (2a + alpha) - (1, -1) / alpha
  const double alpha = 1e-4 * 2 * a;
  mild->solve(Eigen::Vector2d(1, 3), x);
  CHECK((x(0) - x(1)) / 2 == Approx(-1 / alpha).epsilon(1e-9));
  CHECK((x(0) + x(1)) / 2 == Approx(2 / (2 * a + alpha)).epsilon(1e-6));
}

TEST_CASE("loops: the dense LDL^T solves a semi-definite A on its range", "[loops]") {
  // the 3-row null space of a planar four-bar closed by a hinge, and the doubled rod's (1, -1)
  for (const char* spec : {"four-bar:n=1", "doubled"}) {
    INFO(spec);
    const mb::Model m = std::string(spec) == "doubled" ? doubled_rod_pendulum() : mb::build_model(spec);
    mb::ConstraintSystem cs(m);
    cs.update(m, mb::initial_state(m));
    REQUIRE(cs.redundant_rows() > 0);
    Eigen::MatrixXd A;
    cs.assemble_dense(A);
    // b = A y lies in A's range; the solve must reproduce it to round-off of |A| |x|
    Eigen::VectorXd y = Eigen::VectorXd::LinSpaced(A.rows(), 1.0, 2.0);
    const Eigen::VectorXd b = A * y;
    auto dense = mb::make_dense_solver();
    dense->analyze(cs);
    dense->factor(cs);
    Eigen::VectorXd x;
    dense->solve(b, x);
    REQUIRE(x.allFinite());
    CHECK((A * x - b).norm() <= 1e-12 * A.norm() * y.norm());
    CHECK(x.norm() <= 10 * y.norm());  // no null-space part divided by a round-off pivot
  }
}

TEST_CASE("loops: sle on the doubled rod and the four-bar agrees with tomcin", "[loops]") {
  const mb::Model twin = doubled_rod_pendulum();
  const mb::Model single = mb::build_model("pendulum90");
  for (const char* sle : {"sle:tol_p=1e-13,tol_v=1e-13", "sle:solver=dense,tol_p=1e-13,tol_v=1e-13"}) {
    INFO(sle);
    const mb::State a = mbtest::simulate(twin, sle, 0.01, 1.0);
    const mb::State b = mbtest::simulate(single, "sle:solver=cholmod,tol_p=1e-13,tol_v=1e-13", 0.01, 1.0);
    CHECK(mbtest::max_position_difference(a, b) < 1e-9);
  }
  // IFToMM A02's four-bar (3 redundant rows) through its singular horizontal pose at about 1 s
  const mb::Model fb = mb::build_model("four-bar:n=1");
  const mb::State s = mbtest::simulate(fb, "sle:tol_p=1e-12,tol_v=1e-12", 0.001, 1.5);
  const mb::State t = mbtest::simulate(fb, "tomcin:eps_P=1e-12,eps_V=1e-12", 0.001, 1.5);
  CHECK(mbtest::max_position_difference(s, t) < 1e-6);
}

TEST_CASE("loops: tomcin on the doubled rod moves as one rod - methods without redundancy support refuse it", "[loops]") {
  const mb::Model twin = doubled_rod_pendulum();
  const mb::Model single = mb::build_model("pendulum90");
  const mb::State a = mbtest::simulate(twin, "tomcin:eps_P=1e-13,eps_V=1e-13", 0.01, 1.0);
  const mb::State b = mbtest::simulate(single, "sle:solver=cholmod,tol_p=1e-13,tol_v=1e-13", 0.01, 1.0);
  CHECK(mbtest::max_position_difference(a, b) < 1e-9);
  CHECK(mb::unsupported_reason(mb::find_method("sle")->info, twin).empty());
  for (const auto& e : mb::method_registry()) {
    if (e.info.supports & mb::kRedundant) continue;
    INFO("method " << e.info.name);
    const std::string why = mb::unsupported_reason(e.info, twin);
    CHECK_FALSE(why.empty());
  }
  CHECK(mb::unsupported_reason(mb::find_method("tomcin")->info, twin).empty());
}

TEST_CASE("loops: tomcin keeps the Peaucellier tracer on its line within 1e-8 near the singular pose", "[loops]") {
  const mb::Model m = mb::build_model("peaucellier");
  auto method = mb::make_method("tomcin:spectrum=on");
  mb::State s = mb::initial_state(m);
  method->init(m, s);
  double worst = 0, cond = 0;
  long iters_max = 0;
  const double h = 0.03;
  for (int i = 0; i < 200; ++i) {  // 6 s: more than one swing out to 47.5 degrees and back
    mb::StepStats st;
    method->step(m, s, h, st);
    worst = std::max(worst, line_deviation(m, s));
    cond = std::max(cond, st.condition);
    iters_max = std::max(iters_max, st.pos_iterations);
  }
  INFO("largest deviation " << worst << ", condition up to " << cond << ", iterations per step up to " << iters_max);
  CHECK(worst < 1e-8);
  CHECK(cond > 1e3);  // it swings close to the singular pose
}

TEST_CASE("loops: body splitting keeps the mass, distributes the joints and moves as the unsplit body", "[loops][split]") {
  const mb::Model m = mb::build_model("spider:legs=10");
  const mb::BodySplit s = mb::split_bodies(m, 4);
  // the central body (10 hip joints) in 3 parts: 4 + 4 + 2 joints, 2 fixed joints
  CHECK(s.split_bodies == 1);
  REQUIRE(s.model.bodies.size() == m.bodies.size() + 2);
  REQUIRE(s.model.joints.size() == m.joints.size() + 2);
  double mass = 0, mass_split = 0;
  for (const auto& b : m.bodies) mass += b.mass;
  for (const auto& b : s.model.bodies) mass_split += b.mass;
  CHECK(mass_split == Approx(mass).epsilon(1e-15));
  std::vector<int> per_part(s.model.bodies.size(), 0);
  for (size_t j = 0; j < m.joints.size(); ++j)
    for (int side : {s.model.joints[j].a, s.model.joints[j].b})
      if (side >= 0) ++per_part[static_cast<size_t>(side)];
  int central = -1;
  for (size_t b = 0; b < s.parts.size(); ++b)
    if (s.parts[b].size() > 1) central = static_cast<int>(b);
  REQUIRE(central >= 0);
  CHECK(per_part[static_cast<size_t>(s.parts[static_cast<size_t>(central)][0])] == 4);
  CHECK(per_part[static_cast<size_t>(s.parts[static_cast<size_t>(central)][1])] == 4);
  CHECK(per_part[static_cast<size_t>(s.parts[static_cast<size_t>(central)][2])] == 2);
  // the split and unsplit spider give the same motion (tolerances 1e-12, 50 steps)
  const mb::State a = mbtest::simulate(m, "tomcin:eps_P=1e-12,eps_V=1e-12", 0.01, 0.5);
  const mb::State b = mbtest::simulate(m, "tomcin:eps_P=1e-12,eps_V=1e-12,split=4", 0.01, 0.5);
  const mb::State c = mbtest::simulate(m, "tomcin:eps_P=1e-12,eps_V=1e-12,split=auto", 0.01, 0.5);
  CHECK(mbtest::max_position_difference(a, b) < 1e-9);
  CHECK(mbtest::max_position_difference(a, c) < 1e-9);
  // the sparser system: fewer nonzeros in the factor for the 10 legs
  CHECK_THROWS_AS(mb::make_method("tomcin:split=0"), mb::InputError);
  CHECK_THROWS_AS(mb::make_method("tomcin:split=x"), mb::InputError);
}

TEST_CASE("loops: ref on the Peaucellier linkage converges to 1e-10 and keeps the tracer on its line", "[loops][ref]") {
  const mb::Model m = mb::build_model("peaucellier");
  // internal steps bounded by h = 0.03 s and by h = 0.003 s: two different step sequences
  const mb::State a = mbtest::simulate(m, "ref", 0.03, 0.9);
  const mb::State b = mbtest::simulate(m, "ref", 0.006, 0.9);
  CHECK(mbtest::max_position_difference(a, b) < 1e-10);
  CHECK(line_deviation(m, a) < 1e-12);
  // tomcin converges to it with order 2 (the impulse step's)
  double err[2];
  int i = 0;
  for (double h : {0.004, 0.002}) err[i++] = mbtest::max_position_difference(mbtest::simulate(m, "tomcin:eps_P=1e-12,eps_V=1e-12", h, 0.2),
                                                                              mbtest::simulate(m, "ref", h, 0.2));
  INFO("tomcin errors " << err[0] << ", " << err[1]);
  CHECK(err[1] < 1e-5);
  CHECK(std::log2(err[0] / err[1]) == Approx(2).margin(0.2));
}
