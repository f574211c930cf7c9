// GC4: the dense mass-matrix form (the oracle tests/planar_chain.hpp) against the closed forms
// printed in schmitt2005 s.5, the O(n) articulated-body GC4 against the dense form (right-hand
// side and every step of a run), its observed order against ref, and the order of its
// energy drift (schmitt2005 table: 5.00).
#include <catch2/catch.hpp>

#include <random>

#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>

#include "core/error.hpp"
#include "methods/reduced/reduced_system.hpp"
#include "methods/reduced/tree_kinematics.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "planar_chain.hpp"
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
  const auto dp = mbtest::PlanarChain::extract(mb::build_model("double-pendulum"));
  const auto tp = mbtest::PlanarChain::extract(mb::build_model("triple-pendulum"));
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

TEST_CASE("GC4's articulated-body right-hand side equals the dense mass-matrix form", "[methods][gc4]") {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> ang(-M_PI, M_PI), rate(-4, 4);
  for (const char* name : {"pendulum90", "double-pendulum", "triple-pendulum", "chain:n=8", "chain:n=40"}) {
    const mb::Model m = mb::build_model(name);
    const auto dense = mbtest::PlanarChain::extract(m);
    auto sys = mb::ReducedSystem::extract(m);
    REQUIRE(sys.point_masses());
    const int n = dense.size();
    double worst = 0;
    for (int trial = 0; trial < 100; ++trial) {
      std::vector<double> x(2 * n), fa(2 * n), fd(2 * n);
      for (int i = 0; i < n; ++i) x[i] = ang(rng), x[n + i] = rate(rng);
      sys.derivative(x, fa);
      dense.derivative(x, fd);
      for (int i = 0; i < 2 * n; ++i) {
        const double scale = 1 + std::abs(fd[i]);
        worst = std::max(worst, std::abs(fa[i] - fd[i]) / scale);
      }
    }
    INFO(name << ": max |f_ABA - f_dense| / (1 + |f_dense|) = " << worst);
    CHECK(worst < (n <= 8 ? 1e-12 : 1e-10));  // the dense Cholesky's round-off grows with n
  }
}

TEST_CASE("GC4 equals the dense mass-matrix GC4 to 1e-12 at every step", "[methods][gc4]") {
  // the foundation's GC4 (rod angles, dense Cholesky, odeint RK4) written out, stepped beside GC4
  const double h = 0.001;
  for (const char* name : {"double-pendulum", "triple-pendulum", "chain:n=8"}) {
    const mb::Model m = mb::build_model(name);
    const auto dense = mbtest::PlanarChain::extract(m);
    std::vector<double> x;
    dense.read(mb::initial_state(m), x);
    boost::numeric::odeint::runge_kutta4<std::vector<double>> rk4;
    auto sys = [&](const std::vector<double>& y, std::vector<double>& dy, double) { dense.derivative(y, dy); };
    mb::State s = mb::initial_state(m), expect = s;
    auto gc4 = mb::make_method("GC4");
    gc4->init(m, s);
    mb::StepStats stats;
    double worst = 0, worst_v = 0;
    int worst_step = 0;
    for (int i = 0; i < 1000; ++i) {
      rk4.do_step(sys, x, i * h, h);
      dense.write(x, expect);
      gc4->step(m, s, h, stats);
      double e = 0, ev = 0;
      for (size_t b = 0; b < m.bodies.size(); ++b) {
        e = std::max(e, (s.bodies[b].x - expect.bodies[b].x).norm());
        ev = std::max(ev, (s.bodies[b].v - expect.bodies[b].v).norm());
      }
      if (e > worst) worst = e, worst_step = i + 1;
      worst_v = std::max(worst_v, ev);
    }
    INFO(name << ": max over 1000 steps of |GC4 - dense GC4| = " << worst << " m (step " << worst_step
              << "), velocity " << worst_v << " m/s");
    CHECK(worst < 1e-12);
    CHECK(worst_v < 1e-11);
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

TEST_CASE("GC4 refuses point-mass models that are not trees of rods", "[methods][gc4]") {
  auto method = mb::make_method("GC4");
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[1].position.z() = 0.5;  // a spatial rod: a swing joint
  CHECK_NOTHROW(method->init(m, mb::initial_state(m)));
  m = mb::build_model("double-pendulum");
  m.joints[1].type = mb::JointType::Ball;  // a point mass on a ball joint
  CHECK_THROWS_WITH(method->init(m, mb::initial_state(m)), Catch::Contains("hangs on rods only"));
  m = mb::build_model("triple-pendulum");
  m.joints.push_back(mb::rod_joint("closing", 2, mb::Vec3::Zero(), mb::kWorld, mb::Vec3(3, 0, 0), 0));
  CHECK_THROWS_WITH(method->init(m, mb::initial_state(m)), Catch::Contains("closes a kinematic loop"));
  m = mb::build_model("double-pendulum");
  m.joints.erase(m.joints.begin());  // the first mass hangs from nothing
  CHECK_THROWS_WITH(method->init(m, mb::initial_state(m)), Catch::Contains("not hung from a fixed point"));
}

TEST_CASE("GC4 and ref on a branching planar point-mass tree", "[methods][gc4]") {
  // two rods from the pivot (m1, m2), m3 on m1: a planar tree; ref conserves its energy, GC4 follows ref
  mb::Model m = mb::build_model("triple-pendulum");
  m.joints[1].a = mb::kWorld;
  m.bodies[1].position = mb::Vec3(0, -1, 0);
  m.joints[2].a = 0;
  m.bodies[2].position = mb::Vec3(2, 0, 0);
  const mb::State r = mbtest::simulate(m, "ref", 0.1, 1.0);
  const double E0 = mb::total_energy(m, mb::initial_state(m)), E1 = mb::total_energy(m, r);
  INFO("E0 = " << E0 << ", E(1 s) = " << E1);
  CHECK(std::abs(E1 - E0) < 1e-10 * 3 * 9.81);
  for (size_t k = 0; k < m.joints.size(); ++k) {
    const mb::Joint& j = m.joints[k];
    const mb::Vec3 pa = j.a == mb::kWorld ? j.anchor_a : r.bodies[j.a].x;
    CHECK(std::abs((r.bodies[j.b].x - pa).norm() - j.length) < 1e-12);
  }
  const double e = mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 1.0), r);
  INFO("|GC4(h = 0.001) - ref| at 1 s = " << e);
  CHECK(e < 1e-8);
}

TEST_CASE("a tree cardan joint reads the two angles of a hinge pair", "[methods][gc4]") {
  // the coordinates are theta_1 about the axis fixed in the parent, then theta_2 about the axis
  // fixed in the child: q_child = R(a_p, theta_1) q0 R(a_c, theta_2), the rates along u_1 and u_2
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/cardan/pendulum.toml");
  const mb::TreeModel t = mb::TreeModel::build(m);
  REQUIRE(t.links() == 1);
  CHECK(t.link[0].kind == mb::TreeJoint::Cardan);
  REQUIRE(t.nq == 2);
  REQUIRE(t.nv == 2);
  mb::State s = mb::initial_state(m);
  std::vector<double> x;
  t.read(s, x);
  CHECK(std::abs(x[0]) <= 1e-15);
  CHECK(std::abs(x[1]) <= 1e-15);
  CHECK(std::abs(x[2] - 2) <= 1e-14);
  CHECK(std::abs(x[3] - 3) <= 1e-14);
  const mb::Joint& J = m.joints[0];
  const mb::Quat q0 = m.bodies[0].orientation.normalized();
  s.bodies[0].q = mb::Quat(Eigen::AngleAxisd(0.4, J.axis_a.normalized())) * q0 * mb::Quat(Eigen::AngleAxisd(-0.7, J.axis_b.normalized()));
  s.bodies[0].x = J.anchor_a - s.bodies[0].q * J.anchor_b;
  t.read(s, x);
  CHECK(std::abs(x[0] - 0.4) <= 1e-14);
  CHECK(std::abs(x[1] + 0.7) <= 1e-14);
  // and back: the pose the angles give is the body's
  mb::TreeData d(t);
  mb::State back = s;
  mb::write_state(t, d, x, back);
  CHECK((back.bodies[0].x - s.bodies[0].x).norm() <= 1e-14);
  CHECK(back.bodies[0].q.angularDistance(s.bodies[0].q) <= 1e-14);
}

TEST_CASE("GC4 and ref on a cardan pendulum against the multiplier method", "[methods][gc4][order]") {
  // a body on a cardan joint from the world, initial rates on both angles: ref conserves the
  // energy, GC4 converges to it with order 4, and the maximal-coordinate `lagrange` (its own
  // order 4, the joint as point + perpendicular rows) meets both
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/cardan/pendulum.toml");
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 1.0);
  const double e0 = mb::total_energy(m, mb::initial_state(m)), e1 = mb::total_energy(m, ref);
  INFO("ref energy change " << e1 - e0 << " J of " << e0);
  CHECK(std::abs(e1 - e0) <= 1e-10);
  const mb::State s0 = mb::initial_state(m);
  CHECK(mbtest::max_position_difference(ref, s0) > 0.1);  // it swings
  double err[3];
  const double hs[3] = {0.01, 0.005, 0.0025};
  for (int k = 0; k < 3; ++k) err[k] = mbtest::max_position_difference(mbtest::simulate(m, "GC4", hs[k], 1.0), ref);
  INFO("GC4 errors at h = 0.01, 0.005, 0.0025: " << err[0] << ", " << err[1] << ", " << err[2] << " m");
  for (int k = 0; k < 2; ++k) {
    CHECK(std::log2(err[k] / err[k + 1]) > 3.8);
    CHECK(std::log2(err[k] / err[k + 1]) < 4.2);
  }
  const double gc4 = mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 1.0), ref);
  const double lagrange = mbtest::max_position_difference(mbtest::simulate(m, "lagrange", 0.001, 1.0), ref);
  const double lagrange2 = mbtest::max_position_difference(mbtest::simulate(m, "lagrange", 0.002, 1.0), ref);
  INFO("h = 0.001: GC4 " << gc4 << " m, lagrange " << lagrange << " m (h = 0.002: " << lagrange2 << " m) from ref");
  CHECK(gc4 <= 1e-11);
  CHECK(lagrange <= 1e-10);
  CHECK(lagrange2 / lagrange > 12);  // lagrange converges to ref at its order
  // gc-contact (semi-implicit Euler on the same tree, no contacts) converges with order 1
  const double c1 = mbtest::max_position_difference(mbtest::simulate(m, "gc-contact", 0.001, 1.0), ref);
  const double c2 = mbtest::max_position_difference(mbtest::simulate(m, "gc-contact", 0.0005, 1.0), ref);
  INFO("gc-contact at h = 0.001, 0.0005: " << c1 << ", " << c2 << " m from ref");
  CHECK(c1 < 1e-2);
  CHECK(std::log2(c1 / c2) > 0.9);
  CHECK(std::log2(c1 / c2) < 1.1);
}
