// GC4: the mass-matrix form against the closed forms printed in schmitt2005 s.5, its observed
// order against ref, and the order of its energy drift (schmitt2005 table: 5.00).
#include <catch2/catch.hpp>

#include <random>

#include "core/error.hpp"
#include "methods/reduced/planar_chain.hpp"
#include "analysis/fit.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {

const double g = 9.81;

// schmitt2005 s.5, double pendulum (masses 1 kg, rods 1 m)
Eigen::Vector2d paper_double(double p1, double p2, double d1, double d2) {
  double den = -3 + std::cos(2 * (p1 - p2));
  double a1 = (g * (3 * std::sin(p1) + std::sin(p1 - 2 * p2)) + std::sin(2 * (p1 - p2)) * d1 * d1 +
               2 * std::sin(p1 - p2) * d2 * d2) / den;
  double a2 = (-2 * std::sin(p1 - p2) * (2 * g * std::cos(p1) + 2 * d1 * d1 + std::cos(p1 - p2) * d2 * d2)) / den;
  return {a1, a2};
}

// schmitt2005 s.5, triple pendulum, as printed
Eigen::Vector3d paper_triple(double p1, double p2, double p3, double d1, double d2, double d3) {
  using std::cos;
  using std::sin;
  double den = -5 + 2 * cos(2 * (p1 - p2)) + cos(2 * (p2 - p3));
  double a1 = (-g * (-5 + cos(2 * (p2 - p3))) * sin(p1) + 2 * g * sin(p1 - 2 * p2) + 2 * sin(2 * (p1 - p2)) * d1 * d1 +
               2 * sin(p1 - p2) * (2 * d2 * d2 + cos(p2 - p3) * d3 * d3)) / den;
  double a2 = (g * cos(p1) * (-7 * sin(p1 - p2) + sin(p1 + p2 - 2 * p3)) +
               (-7 * sin(p1 - p2) + sin(p1 + p2 - 2 * p3)) * d1 * d1 +
               (-2 * sin(2 * (p1 - p2)) + sin(2 * (p2 - p3))) * d2 * d2 +
               (-sin(2 * p1 - p2 - p3) + 3 * sin(p2 - p3)) * d3 * d3) / den;
  double a3 = (-2 * sin(p2 - p3) * (2 * (cos(p1 - p2) * (g * cos(p1) + d1 * d1) + d2 * d2) + cos(p2 - p3) * d3 * d3)) / den;
  return {a1, a2, a3};
}

double gc4_error_at_1s(const mb::Model& m, double h) {
  return mbtest::max_position_difference(mbtest::simulate(m, "GC4", h, 1.0), mbtest::simulate(m, "ref", 0.05, 1.0));
}

}  // namespace

TEST_CASE("GC4 mass-matrix accelerations equal the paper's closed forms", "[methods][gc4]") {
  std::mt19937 rng(12345);
  std::uniform_real_distribution<double> ang(-M_PI, M_PI), rate(-4, 4);
  const auto dp = mb::PlanarChain::extract(mb::build_model("double-pendulum"));
  const auto tp = mb::PlanarChain::extract(mb::build_model("triple-pendulum"));
  for (int trial = 0; trial < 200; ++trial) {
    Eigen::VectorXd q2(2), w2(2), q3(3), w3(3);
    for (int i = 0; i < 2; ++i) q2[i] = ang(rng), w2[i] = rate(rng);
    for (int i = 0; i < 3; ++i) q3[i] = ang(rng), w3[i] = rate(rng);
    Eigen::VectorXd a2 = dp.accelerations(q2, w2), a3 = tp.accelerations(q3, w3);
    Eigen::Vector2d e2 = paper_double(q2[0], q2[1], w2[0], w2[1]);
    Eigen::Vector3d e3 = paper_triple(q3[0], q3[1], q3[2], w3[0], w3[1], w3[2]);
    for (int i = 0; i < 2; ++i) CHECK(mbtest::is_close(a2[i], e2[i], 1e-12, 1e-12));
    for (int i = 0; i < 3; ++i) CHECK(mbtest::is_close(a3[i], e3[i], 1e-12, 1e-12));
  }
}

TEST_CASE("GC4 converges to ref with order 4", "[methods][gc4][order]") {
  for (const char* name : {"pendulum90", "double-pendulum"}) {
    const mb::Model m = mb::build_model(name);
    double e1 = gc4_error_at_1s(m, 0.01), e2 = gc4_error_at_1s(m, 0.005);
    double order = std::log2(e1 / e2);
    INFO(name << ": error(h=0.01) = " << e1 << ", error(h=0.005) = " << e2 << ", observed order " << order);
    CHECK(order > 3.8);
    CHECK(order < 4.2);
  }
}

TEST_CASE("GC4 energy drift on pendulum10 has order 5 (schmitt2005 table: 5.00)", "[methods][gc4][order]") {
  const mb::Model m = mb::build_model("pendulum10");
  mb::RunConfig c1, c2;
  c1.h = 0.005;
  c2.h = 0.04;
  auto r1 = mb::run_case(m, "GC4", c1), r2 = mb::run_case(m, "GC4", c2);
  REQUIRE(r1.ok());
  REQUIRE(r2.ok());
  // both steps are rounded to T/k
  const double T = *m.info.period;
  CHECK(mbtest::is_close(T / r1.h, std::round(T / r1.h), 1e-9));
  auto fit = mb::two_point_fit(r1.h, *r1.metrics.get("ED"), r2.h, *r2.metrics.get("ED"));
  INFO("order " << fit.order << " factor " << fit.factor << " (paper: 5.00, 57.489726)");
  CHECK(std::abs(fit.order - 5.0) < 0.1);
}

TEST_CASE("GC4 refuses models that are not planar point-mass chains", "[methods][gc4]") {
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[1].position.z() = 0.5;
  auto method = mb::make_method("GC4");
  CHECK_THROWS_AS(method->init(m, mb::initial_state(m)), mb::UnsupportedModel);
  m = mb::build_model("double-pendulum");
  m.joints[1].a = mb::kWorld;  // two rods from the pivot: a branching chain
  CHECK_THROWS_WITH(method->init(m, mb::initial_state(m)), Catch::Contains("branches"));
}
