// Energy and momentum helpers against hand-computed values.
#include <catch2/catch.hpp>

#include "metrics/observer.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

TEST_CASE("the triple pendulum stretched horizontally at rest has zero energy", "[models][energy]") {
  const mb::Model m = mb::build_model("triple-pendulum");
  CHECK(mb::total_energy(m, mb::initial_state(m)) == 0.0);
  // and pendulum10 at the lowest point: E = v0^2/2 - g L = g L (2 sin^2(5 deg) - 1)
  const mb::Model p = mb::build_model("pendulum10");
  double s = std::sin(5 * M_PI / 180);
  CHECK(mbtest::is_close(mb::total_energy(p, mb::initial_state(p)), 9.81 * (2 * s * s - 1), 1e-14));
}

TEST_CASE("energy and momenta of a spinning box", "[models][energy]") {
  // box 1 x 2 x 3 m, 12 kg: I = m/12 diag(b^2+c^2, a^2+c^2, a^2+b^2) = diag(13, 10, 5)
  mb::Model m;
  mb::Body b;
  b.name = "box";
  b.mass = 12;
  b.inertia = Eigen::Vector3d(13, 10, 5).asDiagonal();
  b.position = mb::Vec3(0, 2, 0);
  b.orientation = mb::Quat(Eigen::AngleAxisd(M_PI / 2, mb::Vec3::UnitZ()));  // swaps the x and y axes
  b.velocity = mb::Vec3(1, 0, 0);
  b.angular_velocity = mb::Vec3(1, 2, 3);
  m.bodies.push_back(b);
  const mb::State s = mb::initial_state(m);
  // world inertia diag(10, 13, 5): rotational energy (10*1 + 13*4 + 5*9)/2 = 53.5; translational 6
  CHECK(mbtest::is_close(mb::kinetic_energy(m, s), 59.5, 1e-12));
  CHECK(mbtest::is_close(mb::potential_energy(m, s), 12 * 9.81 * 2, 1e-12));
  CHECK((mb::linear_momentum(m, s) - mb::Vec3(12, 0, 0)).norm() < 1e-12);
  // m x cross v = 12 (0,2,0) x (1,0,0) = (0,0,-24); I w = (10, 26, 15)
  CHECK((mb::angular_momentum(m, s) - mb::Vec3(10, 26, -9)).norm() < 1e-12);
}

TEST_CASE("joint errors of a rod, a ball and a hinge", "[models][joints]") {
  mb::Model m = mb::build_model("pendulum10");
  mb::State s = mb::initial_state(m);
  s.bodies[0].x = mb::Vec3(0, -1.25, 0);
  s.bodies[0].v = mb::Vec3(0.3, -0.5, 0);
  auto e = mb::joint_error(m, s, m.joints[0]);
  CHECK(mbtest::is_close(e.pos, 0.25, 1e-15));
  CHECK(mbtest::is_close(e.vel, 0.5, 1e-15));  // only the component along the rod
  mb::Joint ball = m.joints[0];
  ball.type = mb::JointType::Ball;
  CHECK(mbtest::is_close(mb::joint_error(m, s, ball).pos, 1.25, 1e-15));
  CHECK(mbtest::is_close(mb::joint_error(m, s, ball).vel, std::hypot(0.3, 0.5), 1e-15));
}

TEST_CASE("a non-finite state is seen", "[metrics]") {
  const mb::Model m = mb::build_model("double-pendulum");
  mb::State s = mb::initial_state(m);
  CHECK(mb::view_state(m, s, 0).finite);
  s.bodies[1].v.y() = std::nan("");
  CHECK_FALSE(mb::view_state(m, s, 0).finite);
}
