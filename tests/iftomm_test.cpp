// The IFToMM benchmark problems of group A (gonzalez2006) in the catalog: A01 against the closed
// form of the pendulum, A02 through its singular configuration, A04 (Bricard) keeping the one degree
// of freedom its rows deny (A03 is tests/andrews_test.cpp).
#include <catch2/catch.hpp>

#include <cmath>

#include <Eigen/Core>

#include "methods/common/constraint_system.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

TEST_CASE("iftomm-a01: ref follows the pendulum released from the horizontal (period 4 K(sin 45 deg) sqrt(L/g))", "[iftomm]") {
  const mb::Model m = mb::build_model("iftomm-a01");
  mb::PendulumParams p;
  p.amplitude_deg = 90;
  const double T = mb::pendulum_period(p);
  CHECK(mbtest::is_close(T, 2.36784194757623, 1e-12));
  // the steps land on T/4, T/2 and T: lowest point, the other horizontal, back at the start
  const double h = T / 400;
  const mb::State a = mbtest::simulate(m, "ref", h, T / 4), b = mbtest::simulate(m, "ref", h, T / 2), c = mbtest::simulate(m, "ref", h, T);
  CHECK((a.bodies[0].x - mb::Vec3(0, -1, 0)).norm() < 1e-9);
  CHECK(mbtest::is_close(a.bodies[0].v.x(), std::sqrt(2 * 9.81), 1e-8));  // v = sqrt(2 g L) toward +x
  CHECK((b.bodies[0].x - mb::Vec3(1, 0, 0)).norm() < 1e-9);
  CHECK((c.bodies[0].x - mb::Vec3(-1, 0, 0)).norm() < 1e-9);
}

TEST_CASE("four-bar: 2N + 1 links, 3N + 1 hinges, 3N redundant rows - ref up to the singular pose on the parallelogram branch", "[iftomm]") {
  const mb::Model m = mb::build_model("four-bar:n=2");
  REQUIRE(m.bodies.size() == 5);
  REQUIRE(m.joints.size() == 7);
  CHECK(mb::ConstraintSystem(m).rows() == 35);
  CHECK(mb::redundant_constraints(m) == 6);
  const double e0 = mb::total_energy(m, mb::initial_state(m));
  // the cranks near the horizontal (all links on y = 0, the singular pose) at t = 0.7 s; ref and
  // tomcin stall there (docs/findings.md "four-bar"), so the run stops short of it
  double lowest = 1;
  auto method = mb::make_method("ref");
  mb::State s = mb::initial_state(m);
  method->init(m, s);
  for (int i = 0; i < 70; ++i) {
    mb::StepStats st;
    method->step(m, s, 0.01, st);
    lowest = std::min(lowest, s.bodies[2].x.y());
    // a parallelogram: the three cranks keep one angle, the couplers stay level
    const double a0 = 2 * std::atan2(s.bodies[0].q.z(), s.bodies[0].q.w());
    for (int k : {1, 2}) CHECK(mbtest::is_close(2 * std::atan2(s.bodies[k].q.z(), s.bodies[k].q.w()), a0, 1e-8));
    CHECK(std::abs(s.bodies[3].q.z()) < 1e-8);
  }
  CHECK(lowest < 0.05);  // the crank's centre (0.5 m up at the start) is within 5 cm of the ground line
  CHECK(mbtest::is_close(mb::total_energy(m, s), e0, 1e-8, 1e-9));
}

TEST_CASE("bricard: 30 rows for 30 coordinates, 1 redundant - ref and tomcin keep its one degree of freedom", "[iftomm]") {
  const mb::Model m = mb::build_model("bricard");
  REQUIRE(m.bodies.size() == 5);
  REQUIRE(m.joints.size() == 6);
  CHECK(mb::ConstraintSystem(m).rows() == 30);
  CHECK(mb::redundant_constraints(m) == 1);
  const double e0 = mb::total_energy(m, mb::initial_state(m));
  for (const char* spec : {"ref", "tomcin:eps_P=1e-11,eps_V=1e-11"}) {
    INFO(spec);
    auto method = mb::make_method(spec);
    mb::State s = mb::initial_state(m);
    method->init(m, s);
    mb::ConstraintSystem cs(m);
    Eigen::VectorXd e;
    double worst = 0;
    for (int i = 0; i < 200; ++i) {
      mb::StepStats st;
      method->step(m, s, 0.01, st);
      cs.update(m, s);
      cs.position_error(m, s, e);
      worst = std::max(worst, e.cwiseAbs().maxCoeff());
    }
    CHECK(worst < 1e-9);
    // it moves: the corner P3 (the far end of rod 3) leaves its place under gravity
    const mb::Vec3 p3 = mb::world_point(m, s, 2, m.joints[3].anchor_a);
    INFO("P3 at t = 2 s: " << p3.transpose());
    CHECK((p3 - mb::Vec3(1, -1, 1)).norm() > 0.05);
    if (std::string(spec) == "ref") CHECK(mbtest::is_close(mb::total_energy(m, s), e0, 1e-8, 1e-9));
  }
}
