// Force elements (Model::springs): the spring-mass oscillator against its closed form for `ref`
// (maximal coordinates), the multiplier methods (RK4, spring forces at every stage) and the impulse
// methods (spring forces held over the step); the spring's potential in the energy; methods without
// kForces refuse the model.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {

// |y(t) - y_closed_form(t)| of the spring-mass model run by `method` with step h to t_end
double oscillator_error(const mb::SpringMassParams& p, const std::string& spec, const std::string& method, double h, double t_end) {
  const mb::Model m = mb::build_model(spec);
  const mb::State s = mbtest::simulate(m, method, h, t_end);
  const double y_eq = -(p.rest_length + p.mass * p.g / p.stiffness);
  CHECK(std::abs(s.bodies[0].x.x()) < 1e-12);  // a vertical motion
  return std::abs(s.bodies[0].x.y() - (y_eq + mb::spring_mass_displacement(p, t_end)));
}

}  // namespace

TEST_CASE("forces: the spring-mass model and its features", "[forces]") {
  const mb::Model m = mb::build_model("spring-mass");
  REQUIRE(m.springs.size() == 1);
  CHECK((mb::model_features(m) & mb::kForces) != 0);
  // at the equilibrium the spring carries the weight: zero net force
  const mb::State s = mb::initial_state(m);
  std::vector<mb::Vec3> f(1, mb::Vec3::Zero()), tau(1, mb::Vec3::Zero());
  mb::add_spring_loads(m, s, f, tau);
  CHECK(mbtest::is_close((f[0] + m.bodies[0].mass * m.gravity).norm(), 0, 1e-12));
  // stretch m g / k: energy k x^2 / 2 counted in the potential
  const double x = 9.81 / 100;
  CHECK(mbtest::is_close(mb::spring_energy(m, s), 0.5 * 100 * x * x, 1e-14, 1e-12));
  CHECK(mbtest::is_close(mb::potential_energy(m, s), -9.81 * (1 + x) + 0.5 * 100 * x * x, 1e-12, 1e-12));  // m g y + k x^2 / 2
}

TEST_CASE("forces: ref follows the closed-form oscillation, undamped and damped", "[forces]") {
  mb::SpringMassParams p;
  for (double t : {0.1, 0.77, 2.0}) {
    INFO("t = " << t);
    CHECK(oscillator_error(p, "spring-mass", "ref", 0.01, t) < 1e-10);
  }
  p.damping = 3;  // zeta = 0.15
  CHECK(oscillator_error(p, "spring-mass:damping=3", "ref", 0.01, 2.0) < 1e-10);
  // a wrong sign of the damper would grow the amplitude: the closed form decays to 5 % here
  CHECK(std::abs(mb::spring_mass_displacement(p, 2.0)) < 0.05 * p.v0 / 10);
}

TEST_CASE("forces: the undamped oscillator conserves energy under ref - the damped one loses it", "[forces]") {
  const mb::Model m = mb::build_model("spring-mass");
  const mb::State s = mbtest::simulate(m, "ref", 0.01, 3.0);
  CHECK(mbtest::is_close(mb::total_energy(m, s), mb::total_energy(m, mb::initial_state(m)), 1e-10, 1e-11));
  const mb::Model d = mb::build_model("spring-mass:damping=3");
  const mb::State sd = mbtest::simulate(d, "ref", 0.01, 3.0);
  CHECK(mb::total_energy(d, sd) < mb::total_energy(d, mb::initial_state(d)) - 0.1);
}

TEST_CASE("forces: LM4 evaluates the spring at every RK4 stage (order 4) - iterative holds it over the step (order 1)", "[forces]") {
  mb::SpringMassParams p;
  p.damping = 3;
  const std::string spec = "spring-mass:damping=3";
  const double e1 = oscillator_error(p, spec, "LM4", 0.02, 1.0), e2 = oscillator_error(p, spec, "LM4", 0.01, 1.0);
  INFO("LM4 errors " << e1 << " " << e2);
  CHECK(std::log2(e1 / e2) > 3.6);
  CHECK(std::log2(e1 / e2) < 4.4);
  const double i1 = oscillator_error(p, spec, "iterative", 0.002, 1.0), i2 = oscillator_error(p, spec, "iterative", 0.001, 1.0);
  INFO("iterative errors " << i1 << " " << i2);
  CHECK(std::log2(i1 / i2) > 0.8);
  CHECK(std::log2(i1 / i2) < 1.2);
  CHECK(i2 < 0.01);
}

TEST_CASE("forces: a method without kForces refuses a model with springs", "[forces]") {
  const mb::Model m = mb::build_model("spring-mass");
  const mb::MethodEntry* gc4 = mb::find_method("GC4");
  REQUIRE(gc4);
  REQUIRE((gc4->info.supports & mb::kForces) == 0);
  CHECK_THAT(mb::unsupported_reason(gc4->info, m), Catch::Contains("force elements"));
  mb::RunConfig c;
  c.h = 0.01;
  c.duration = 0.1;
  CHECK_THROWS_AS(mb::run_case(m, "GC4", c), mb::UnsupportedModel);
}

TEST_CASE("forces: springs=implicit: the tension at the end of the step, order 1, and a stiff spring stable at any step", "[forces]") {
  // one step of a free particle: its velocity change gives the tension s the step applied, which
  // must be the spring's at the end of the step, k (x + h r') + c r' (r' the rate after the step):
  // a wrong sign or a wrong coupling G (docs/method-notes.md) breaks it
  mb::SpringMassParams p;
  p.damping = 3;
  const mb::Model m = mb::make_spring_mass(p, "spring-mass:damping=3");
  const mb::State s0 = mb::initial_state(m);
  for (double h : {1e-3, 0.05}) {
    const mb::State s1 = mbtest::simulate(m, "iterative:springs=implicit", h, h);
    const mb::Vec3 u = s0.bodies[0].x.normalized();  // from the anchor (the origin) to the mass
    const double x = s0.bodies[0].x.norm() - p.rest_length;
    const double rate = u.dot(s1.bodies[0].v);
    const double tension = -(p.mass * (s1.bodies[0].v - s0.bodies[0].v) / h - p.mass * m.gravity).dot(u);
    INFO("h = " << h);
    CHECK(mbtest::is_close(tension, p.stiffness * (x + h * rate) + p.damping * rate, 1e-12, 1e-12));
  }
  // first order on the oscillator, like the explicit spring (the free motion holds it over the step)
  const std::string spec = "spring-mass:damping=3";
  const double i1 = oscillator_error(p, spec, "iterative:springs=implicit", 0.002, 1.0);
  const double i2 = oscillator_error(p, spec, "iterative:springs=implicit", 0.001, 1.0);
  INFO("errors " << i1 << " " << i2);
  CHECK(std::log2(i1 / i2) > 0.8);
  CHECK(std::log2(i1 / i2) < 1.2);
  CHECK(i2 < 0.01);
  // a spring 10^6 times stiffer at h = 0.01 s (h sqrt(k / m) = 100): the explicit force diverges,
  // the implicit one settles at the equilibrium (the stiff mode decays by sqrt(1/2) a step at least:
  // 1e-15 after 100 steps; docs/method-notes.md)
  mb::SpringMassParams stiff;
  stiff.stiffness = 1e8;
  const mb::Model ms = mb::make_spring_mass(stiff, "stiff spring");
  const double y_eq = -(stiff.rest_length + stiff.mass * stiff.g / stiff.stiffness);
  const mb::State se = mbtest::simulate(ms, "iterative", 0.01, 0.2);
  CHECK(!(std::abs(se.bodies[0].x.y() - y_eq) < 1));  // diverged (or non-finite)
  for (const char* method : {"iterative:springs=implicit", "linear:springs=implicit", "tomcin:springs=implicit"}) {
    const mb::State si = mbtest::simulate(ms, method, 0.01, 1.0);
    INFO(method);
    CHECK(std::abs(si.bodies[0].x.y() - y_eq) < 1e-9);
    CHECK(si.bodies[0].v.norm() < 1e-6);
  }
}
