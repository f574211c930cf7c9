// Actuators and controls (models/actuators.hpp, docs/robots.md "Actuators and controls"): the
// control sources against their definitions, a position servo on a rotor against the damped
// oscillator's closed form in every method that claims actuators, a constant motor torque against
// q = gear u t^2 / (2 I), GC4 against ref on a cart-pole under noise controls, the MJCF importer's
// actuators against MuJoCo's own force, and the bad inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/actuators.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "sim/reference.hpp"
#include "test_util.hpp"

namespace {

const std::string kRotor = std::string(MBBENCH_TEST_DATA) + "/actuators/rotor.toml";
const std::string kStep = std::string(MBBENCH_TEST_DATA) + "/actuators/step.csv";

// the rotor's hinge angle about z from its orientation
double rotor_angle(const mb::State& s) { return 2 * std::atan2(s.bodies[0].q.z(), s.bodies[0].q.w()); }

// the methods that claim actuators and run the rotor (a hinge from the world: every family)
std::vector<std::string> actuated_methods() {
  std::vector<std::string> out;
  for (const auto& e : mb::method_registry()) {
    const mb::MethodInfo& i = e.info;
    if (!(i.supports & mb::kActuators) || !(i.supports & mb::kRigidBodies) || i.name.rfind("test-", 0) == 0) continue;
    out.push_back(i.name);
  }
  return out;
}

}  // namespace

TEST_CASE("controls: zero, hold, sine, noise and a table by their definitions", "[actuators]") {
  mb::Model m = mb::load_model(kRotor);
  REQUIRE(m.actuators.size() == 1);
  std::vector<double> u;
  mb::controls_at(m, 0.3, u);
  CHECK(u == std::vector<double>{0.0});
  m.actuators[0].offset = 0.25;  // the file's coordinate at the start
  m.control = mb::parse_control("hold", m, "test", 0);
  mb::controls_at(m, 1.7, u);
  CHECK(u[0] == 0.25);
  m.control = mb::parse_control("sine:0.5,2", m, "test", 0);
  mb::controls_at(m, 0.1, u);
  CHECK(u[0] == Approx(0.5 * std::sin(2 * M_PI * 2 * 0.1)).margin(1e-15));
  m.control = mb::parse_control("sine:3,2", m, "test", 0);
  mb::controls_at(m, 0.125, u);  // 3 sin(pi / 2) = 3, clamped to ctrlrange [-1, 1]
  CHECK(u[0] == 1.0);
  // noise: constant within a 10 ms cell, a time a step's round-off short of a cell in that cell,
  // a draw of its own in each cell; centre 0 and radius 1 (ctrlrange [-1, 1]) times sigma
  m.control = mb::parse_control("noise:7,0.2", m, "test", 0);
  std::vector<double> a, b, c;
  mb::controls_at(m, 0.010, a);
  mb::controls_at(m, 0.0199, b);
  mb::controls_at(m, 0.01 - 1e-12, c);
  CHECK(a == b);
  CHECK(a == c);
  double sum = 0, sum2 = 0;
  const int n = 4000;
  for (int k = 0; k < n; ++k) {
    mb::controls_at(m, 0.01 * k + 0.005, u);
    sum += u[0];
    sum2 += u[0] * u[0];
  }
  const double mean = sum / n, sd = std::sqrt(sum2 / n - mean * mean);
  CHECK(std::abs(mean) < 0.02);        // 0 within 6 standard errors (0.2 / sqrt(4000) = 0.003)
  CHECK(sd == Approx(0.2).epsilon(0.05));
  mb::Model other = m;
  other.control = mb::parse_control("noise:8,0.2", other, "test", 0);
  mb::controls_at(other, 0.015, b);
  mb::controls_at(m, 0.015, a);
  CHECK(a != b);  // another seed, another sequence
  // a table: each row held until the next, the first before it
  const std::filesystem::path f = std::filesystem::temp_directory_path() / "mbbench_ctrl_table.csv";
  {
    std::ofstream out(f);
    out << "t,servo\n0.1,0.3\n0.2,-0.4\n";
  }
  m.control = mb::parse_control(f.string(), m, "test", 0);
  for (const auto& [t, want] : std::vector<std::pair<double, double>>{{0, 0.3}, {0.15, 0.3}, {0.2 - 1e-13, -0.4}, {0.2, -0.4}, {5, -0.4}}) {
    mb::controls_at(m, t, u);
    INFO("t = " << t);
    CHECK(u[0] == want);
  }
  std::filesystem::remove(f);
}

TEST_CASE("actuators: the force law is MuJoCo's, clamped in control and force", "[actuators]") {
  mb::Actuator a;
  a.kind = mb::ActuatorKind::Position;
  a.gear = 2;
  a.gain = 10;
  a.bias = {0, -10, -1};
  // f = 10 c - 10 (2 q) - 1 (2 qd); the joint gets gear f
  CHECK(mb::actuator_force(a, 0.5, 0.1, -0.3) == Approx(2 * (10 * 0.5 - 10 * 0.2 - 1 * -0.6)));
  a.force_low = -1, a.force_high = 1;
  CHECK(mb::actuator_force(a, 0.5, 0.1, -0.3) == 2.0);
  CHECK(mb::actuator_force(a, -0.5, 0.1, -0.3) == -2.0);
}

TEST_CASE("actuators: a position servo turns a rotor as the damped oscillator does, in every method that claims actuators",
          "[actuators][conformance]") {
  // I q'' = kp (c - q) - kv q', I = 0.5, kp = 2, kv = 0.2, c = 0.2 from t = 0, q(0) = q'(0) = 0
  const mb::Model m = mb::load_model(kRotor + ":ctrl=" + kStep);
  const double I = 0.5, kp = 2, kv = 0.2, c = 0.2, t = 2, h = 1e-3;
  const double w0 = std::sqrt(kp / I), zeta = kv / (2 * std::sqrt(kp * I)), wd = w0 * std::sqrt(1 - zeta * zeta);
  const double exact = c * (1 - std::exp(-zeta * w0 * t) * (std::cos(wd * t) + zeta * w0 / wd * std::sin(wd * t)));
  for (const std::string& method : actuated_methods()) {
    INFO(method);
    const mb::State s = mbtest::simulate(m, method, h, t);
    const double q = rotor_angle(s);
    // the servo is explicit in most methods: its force held over a step is first order in h
    // (1e-3 of the amplitude here); GC4, ref and the multiplier methods evaluate it at every
    // stage. A wrong sign of kp or kv misses by the amplitude or grows without bound.
    CHECK(std::abs(q - exact) < 2e-3);
    if (method == "GC4" || method == "ref") CHECK(std::abs(q - exact) < 1e-9);
  }
}

TEST_CASE("actuators: a motor's constant torque turns a rotor by gear u t^2 / (2 I)", "[actuators]") {
  mb::Model m = mb::load_model(kRotor + ":ctrl=" + kStep);
  m.actuators[0].kind = mb::ActuatorKind::Motor;
  m.actuators[0].gain = 1;
  m.actuators[0].bias = {0, 0, 0};
  m.actuators[0].gear = 3;  // torque 3 * 0.2 = 0.6 N m
  const double t = 1, exact = 0.6 * t * t / (2 * 0.5);
  for (const std::string& method : actuated_methods()) {
    INFO(method);
    const double q = rotor_angle(mbtest::simulate(m, method, 1e-3, t));
    // exact for the methods whose free motion integrates a constant torque exactly; semi-implicit
    // Euler (the engines) is first order: h t^2 / (2 I) 0.6 / t = 6e-4 here
    CHECK(std::abs(q - exact) < 1e-3);
  }
}

TEST_CASE("actuators: GC4 agrees with ref on a cart-pole under noise controls", "[actuators]") {
  // the rotor's axle with a slider actuator beside it would need a second body: the MJCF cart-pole
  // of tests/data/mjcf/small.xml is a tree with both, so a scene is written here
  const std::filesystem::path f = std::filesystem::temp_directory_path() / "mbbench_cart_pole_actuated.toml";
  {
    std::ofstream out(f);
    out << R"([model]
name = "actuated-cart-pole"
gravity = [0.0, -9.81, 0.0]

[[body]]
name = "cart"
type = "rigid"
mass = 2.0
inertia = [0.02, 0.05, 0.06]
position = [0.0, 0.0, 0.0]

[[body]]
name = "pole"
type = "rigid"
mass = 0.5
inertia = [0.042, 0.001, 0.042]
position = [0.4330127018922193, -0.25, 0.0]
orientation = [0.8660254037844387, 0.0, 0.0, 0.5]

[[joint]]
name = "rail"
type = "slider"
a = "world"
b = "cart"
axis_a = [1.0, 0.0, 0.0]
axis_b = [1.0, 0.0, 0.0]

[[joint]]
name = "pivot"
type = "hinge"
a = "cart"
b = "pole"
anchor_b = [0.0, 0.5, 0.0]
axis_a = [0.0, 0.0, 1.0]
axis_b = [0.0, 0.0, 1.0]

[[actuator]]
name = "push"
joint = "rail"
kind = "motor"
gear = 5.0
ctrlrange = [-1.0, 1.0]

[[actuator]]
name = "servo"
joint = "pivot"
kind = "position"
kp = 3.0
kv = 0.1
forcerange = [-2.0, 2.0]
)";
  }
  const mb::Model m = mb::load_model(f.string() + ":ctrl=noise:3,0.5");
  std::filesystem::remove(f);
  REQUIRE(m.actuators.size() == 2);
  const mb::State ref = mbtest::simulate(m, "ref", 1e-3, 1);
  const mb::State gc4 = mbtest::simulate(m, "GC4", 1e-3, 1);
  // GC4's own error at h = 1 ms (fourth order) is some 1e-9 m here; a wrong sign of either
  // actuator's force moves the cart by millimetres
  CHECK(mbtest::max_position_difference(ref, gc4) < 2e-8);
  // the cart moved: the controls act (1 s of a +-5 N push on 2.5 kg)
  CHECK(std::abs(ref.bodies[0].x.x()) > 1e-3);
  // the records' reference (one step of 1 s between checkpoints) ends its internal steps at every
  // noise cell: the same motion as ref stepped at 1 ms (held over 1 s, the first cell's controls
  // would move the cart millimetres off)
  CHECK(mbtest::max_position_difference(ref, mb::ReferenceTrajectory(m, "ref", 1.0).at(1.0)) < 1e-9);
  // a sine varies within every step: the reference evaluates it at each stage, and a method that
  // holds it over a step is first order (GC4: its held sine's error halves with h)
  mb::Model sine = m;
  sine.control = mb::parse_control("sine:1,2", sine, "test", 0);
  const mb::State exact = mb::ReferenceTrajectory(sine, "ref", 1.0).at(1.0);
  const double e1 = mbtest::max_position_difference(exact, mbtest::simulate(sine, "GC4", 2e-3, 1));
  const double e2 = mbtest::max_position_difference(exact, mbtest::simulate(sine, "GC4", 1e-3, 1));
  INFO("GC4 under a held sine against the reference: " << e1 << " m at 2 ms, " << e2 << " m at 1 ms");
  CHECK(e1 / e2 == Approx(2).margin(0.3));
  // the explicit methods agree to their first order in h
  for (const std::string& method : actuated_methods()) {
    if (method == "GC4" || method == "ref") continue;
    INFO(method);
    std::string run = method;
    mb::State s;
    try {
      s = mbtest::simulate(m, run, 1e-3, 1);
    } catch (const mb::UnsupportedModel& e) {
      WARN(method << " refuses the cart-pole: " << e.what());
      continue;
    }
    CHECK(mbtest::max_position_difference(ref, s) < 5e-3);
  }
}

TEST_CASE("actuators: actuate=all puts a position servo on every hinge and slider", "[actuators]") {
  const std::string ur5 = std::string(MBBENCH_TEST_DATA) + "/robots/ur5.urdf";
  const mb::Model plain = mb::load_model(ur5);
  const mb::Model m = mb::load_model(ur5 + ":actuate=all:40,1,ctrl=hold");
  size_t moving = 0;
  for (const mb::Joint& j : plain.joints) moving += j.type == mb::JointType::Hinge || j.type == mb::JointType::Slider;
  REQUIRE(moving > 0);
  CHECK(m.actuators.size() == moving);
  CHECK(m.actuators[0].kind == mb::ActuatorKind::Position);
  CHECK(m.actuators[0].gain == 40);
  CHECK(m.actuators[0].bias[2] == -1);
  CHECK(m.control.kind == mb::ControlKind::Hold);
  CHECK_THROWS_WITH(mb::load_model(ur5 + ":actuate=all:40"), Catch::Contains("actuate=all:40: expected all:KP,KV"));
  CHECK_THROWS_WITH(mb::load_model("pendulum10:ctrl=hold"), Catch::Contains("the model has no actuators"));
}
