// Coupled joints (models/model.hpp JointCoupling; docs/robots.md "Coupled joints"): two arms on
// parallel hinges, arm a's angle following arm b's as q_a = -2 q_b, from URDF <mimic>, an MJCF
// joint equality and an MJCF fixed-tendon equality (tests/data). One degree of freedom is left,
// theta = q_b, with (I_a m^2 + I_b) theta'' = -g (M_a l_a m cos(m theta) + M_b l_b cos theta), m = -2
// (each arm's centre of mass at l from its hinge, level at the start, raised by l sin(q)); the
// impulse methods' coupling row must hold it and follow that motion.
#include <catch2/catch.hpp>

#include <cmath>
#include <initializer_list>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

const std::string kData = MBBENCH_TEST_DATA;

// theta(t_end) of the one degree of freedom left, by RK4 at 1e-5 s (the test files' numbers)
double closed_form_theta(double t_end) {
  const double m = -2, g = 9.81, Ma = 1, la = 0.5, Mb = 2, lb = 0.3;
  const double I = (0.02 + Ma * la * la) * m * m + (0.05 + Mb * lb * lb);
  auto acc = [&](double th) { return -g * (Ma * la * m * std::cos(m * th) + Mb * lb * std::cos(th)) / I; };
  double th = 0, w = 0;
  const double h = 1e-5;
  for (long i = 0; i < std::lround(t_end / h); ++i) {
    const double k1 = w, l1 = acc(th);
    const double k2 = w + h / 2 * l1, l2 = acc(th + h / 2 * k1);
    const double k3 = w + h / 2 * l2, l3 = acc(th + h / 2 * k2);
    const double k4 = w + h * l3, l4 = acc(th + h * k3);
    th += h / 6 * (k1 + 2 * k2 + 2 * k3 + k4);
    w += h / 6 * (l1 + 2 * l2 + 2 * l3 + l4);
  }
  return th;
}

double coordinate(const mb::Model& m, const mb::State& s, const std::string& joint) {
  mb::Motor mo;
  for (size_t k = 0; k < m.joints.size(); ++k)
    if (m.joints[k].name == joint) mo.joint = static_cast<int>(k);
  return mb::motor_coordinate(m, s, mo);
}

// The file's coupling, and its motion in each of `methods` (tight tolerances, h = 1 ms, 1 s): the
// coupling to round-off, q_b within 2e-6 of the closed form (the second-order error at 1 ms: 4e-7)
void check_pair(const mb::Model& m, std::initializer_list<const char*> methods) {
  REQUIRE(m.couplings.size() == 1);
  const mb::JointCoupling& c = m.couplings[0];
  CHECK(m.joints[static_cast<size_t>(c.a)].name == "ja");
  CHECK(m.joints[static_cast<size_t>(c.b)].name == "jb");
  CHECK(c.multiplier == -2);
  CHECK(c.offset == 0);
  CHECK((mb::model_features(m) & mb::kCoupledJoints) != 0);
  const double theta = closed_form_theta(1.0);
  CHECK(theta > 0.5);  // arm b rises well away from the start
  for (const char* method : methods) {
    const mb::State s = mbtest::simulate(m, std::string(method) + ":tol_p=1e-12,tol_v=1e-12", 1e-3, 1.0);
    const double qa = coordinate(m, s, "ja"), qb = coordinate(m, s, "jb");
    INFO(method << ": q_a " << qa << ", q_b " << qb << ", closed form theta " << theta);
    CHECK(std::abs(mb::coupling_error(m, s, c)) < 1e-8);
    CHECK(std::abs(qa + 2 * qb) < 1e-8);
    CHECK(std::abs(qb - theta) < 2e-6);
  }
}

}  // namespace

TEST_CASE("coupled joints from URDF mimic follow the closed form", "[coupling]") {
  if (!mb::urdf_supported()) return;
  check_pair(mb::read_urdf(kData + "/urdf/mimic.urdf"), {"iterative", "sle", "linear"});
}

TEST_CASE("coupled joints from an MJCF joint equality and a fixed-tendon equality follow the closed form", "[coupling]") {
  if (!mb::mjcf_supported()) return;
  check_pair(mb::read_mjcf(kData + "/mjcf/coupled_joints.xml"), {"linear"});
  check_pair(mb::read_mjcf(kData + "/mjcf/coupled_tendon.xml"), {"sle"});
}

TEST_CASE("a coupling survives the scene round trip and methods without it refuse it by name", "[coupling]") {
  if (!mb::urdf_supported()) return;
  const mb::Model m = mb::read_urdf(kData + "/urdf/mimic.urdf");
  const mb::Model back = mb::parse_scene(mb::scene_to_toml(m), "round trip");
  REQUIRE(back.couplings.size() == 1);
  CHECK(back.couplings[0].name == m.couplings[0].name);
  CHECK(back.couplings[0].a == m.couplings[0].a);
  CHECK(back.couplings[0].b == m.couplings[0].b);
  CHECK(back.couplings[0].multiplier == m.couplings[0].multiplier);
  CHECK(back.couplings[0].offset == m.couplings[0].offset);
  for (const char* method : {"LM4", "ode"}) {
    if (!mb::find_method(method)) continue;
    const std::string why = mb::unsupported_reason(mb::find_method(method)->info, m);
    INFO(why);
    CHECK(why.find("does not support coupled joints") != std::string::npos);
  }
  for (const char* method : {"iterative", "sle", "linear", "GC4", "ref"}) CHECK(mb::unsupported_reason(mb::find_method(method)->info, m).empty());
}

TEST_CASE("a coupling the model checks refuse names its field", "[coupling]") {
  if (!mb::urdf_supported()) return;
  mb::Model m = mb::read_urdf(kData + "/urdf/mimic.urdf");
  m.couplings[0].offset = 0.1;
  CHECK_THROWS_WITH(mb::check_model(m, "x"), Catch::Contains("coupling[0] 'ja:mimic'.offset") && Catch::Contains("breaks the coupling"));
  m.couplings[0].offset = 0;
  m.couplings[0].b = m.couplings[0].a;
  CHECK_THROWS_WITH(mb::check_model(m, "x"), Catch::Contains("a joint coupled to itself"));
}

TEST_CASE("the mujoco engine holds a coupling as a joint equality and follows the closed form", "[coupling]") {
  if (!mb::mjcf_supported() || !mbtest::peer_built("mujoco")) return;
  const mb::Model m = mb::read_mjcf(kData + "/mjcf/coupled_joints.xml");
  const mb::State s = mbtest::simulate(m, "mujoco", 1e-3, 1.0);
  const double qa = coordinate(m, s, "ja"), qb = coordinate(m, s, "jb"), theta = closed_form_theta(1.0);
  INFO("mujoco: q_a " << qa << ", q_b " << qb << ", closed form theta " << theta);
  // a soft equality of time constant eq_timeconst, stepped by RK4: both within about 4e-7
  CHECK(std::abs(qa + 2 * qb) < 4e-6);
  CHECK(std::abs(qb - theta) < 4e-6);
}

TEST_CASE("two sliders coupled -1 in a scene file are Atwood's machine", "[coupling]") {
  const mb::Model m = mb::read_scene(kData + "/coupling/atwood.toml");
  REQUIRE(m.couplings.size() == 1);
  CHECK(m.couplings[0].multiplier == -1);
  const double qb = 0.5 * (9.81 / 2) * 1.0;  // g (M_a - M_b) / (M_a + M_b) = g / 2, from rest, t = 1 s
  for (const char* method : {"iterative", "sle", "linear", "mujoco"}) {
    if (std::string(method) == "mujoco" && !mbtest::peer_built("mujoco")) continue;
    const bool soft = std::string(method) == "mujoco";
    const mb::State s = mbtest::simulate(m, soft ? std::string(method) : std::string(method) + ":tol_p=1e-12,tol_v=1e-12", 1e-3, 1.0);
    const double a = coordinate(m, s, "rail_a"), b = coordinate(m, s, "rail_b");
    INFO(method << ": a + b " << a + b << ", b - q_b " << b - qb);
    // the impulse rows: constant accelerations, to round-off; mujoco's soft equality: within about 1e-6
    CHECK(std::abs(a + b) < (soft ? 5e-6 : 1e-10));
    CHECK(std::abs(b - qb) < (soft ? 5e-6 : 1e-10));
    CHECK(std::abs(s.bodies[1].x.y() - qb) < (soft ? 5e-6 : 1e-10));  // b moves along +y by its coordinate
  }
}

TEST_CASE("GC4 and ref hold a coupling by its generalized force and follow the closed form", "[coupling]") {
  std::vector<mb::Model> models;
  if (mb::urdf_supported()) models.push_back(mb::read_urdf(kData + "/urdf/mimic.urdf"));
  if (mb::mjcf_supported()) models.push_back(mb::read_mjcf(kData + "/mjcf/coupled_joints.xml"));
  const double theta = closed_form_theta(1.0);
  for (const mb::Model& m : models)
    for (const char* method : {"GC4", "ref"}) {
      const mb::State s = mbtest::simulate(m, method, 1e-3, 1.0);
      const double qa = coordinate(m, s, "ja"), qb = coordinate(m, s, "jb");
      INFO(m.info.source << " " << method << ": q_a " << qa << ", q_b " << qb << ", closed form theta " << theta);
      // an invariant of every Runge-Kutta method: round-off; RK4 at 1 ms: its truncation error
      CHECK(std::abs(mb::coupling_error(m, s, m.couplings[0])) < 1e-12);
      CHECK(std::abs(qb - theta) < 1e-9);
    }
  // a start whose velocities break the coupling is refused by name
  if (!models.empty()) {
    mb::Model moving = models.front();
    for (mb::Body& b : moving.bodies) b.angular_velocity = mb::Vec3(0, 1, 0) * (&b - moving.bodies.data() + 1.0);
    CHECK_THROWS_WITH(mbtest::simulate(moving, "GC4", 1e-3, 0.01), Catch::Contains("the initial velocities break it"));
  }
}

TEST_CASE("gc-contact holds a coupling by a bilateral row and follows the closed form at first order", "[coupling][gc-contact]") {
  if (!mb::mjcf_supported()) return;
  const mb::Model m = mb::read_mjcf(kData + "/mjcf/coupled_joints.xml");
  const double theta = closed_form_theta(1.0);
  double e[2];
  for (int k = 0; k < 2; ++k) {
    const double h = k == 0 ? 1e-3 : 5e-4;
    const mb::State s = mbtest::simulate(m, "gc-contact:tol=1e-14,iterations=100000", h, 1.0);
    e[k] = std::abs(coordinate(m, s, "jb") - theta);
    INFO("h " << h << ": q_b off the closed form by " << e[k] << ", the coupling by " << mb::coupling_error(m, s, m.couplings[0]));
    CHECK(std::abs(mb::coupling_error(m, s, m.couplings[0])) < 1e-12);
    CHECK(e[k] < 1e-3);
  }
  INFO("errors " << e[0] << ", " << e[1]);
  CHECK(e[0] / e[1] > 1.8);  // semi-implicit Euler: order 1
  CHECK(e[0] / e[1] < 2.2);
  // a damper on one arm, implicit in the free velocity, moves it alone: the row holds the pair
  mb::Model damped = m;
  damped.joints[0].damping = 0.5;
  const mb::State s = mbtest::simulate(damped, "gc-contact:tol=1e-14,iterations=100000", 1e-3, 1.0);
  CHECK(std::abs(mb::coupling_error(damped, s, damped.couplings[0])) < 1e-12);
}
