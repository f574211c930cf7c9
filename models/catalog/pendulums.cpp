// The pendulum family of schmitt2005 s.4: Pendulum10, Pendulum90, the double and triple pendulum,
// and chain:n=N. All are point masses on massless rods in the x-y plane, pivot at the origin.
// Beside them the spring-mass oscillator (a point mass on a spring-damper, the force elements'
// closed-form check).
#include <cmath>

#include <boost/math/special_functions/ellint_1.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/catalog.hpp"

namespace mb {

double pendulum_period(const PendulumParams& p) {
  const double amp = p.amplitude_deg * M_PI / 180.0;
  return 4.0 * boost::math::ellint_1(std::sin(amp / 2.0)) * std::sqrt(p.length / p.g);
}

Model make_pendulum(const PendulumParams& p, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, -p.g, 0);
  const double amp = p.amplitude_deg * M_PI / 180.0;
  Body b;
  b.name = "m1";
  b.particle = true;
  b.mass = p.mass;
  b.position = Vec3(0, -p.length, 0);                                   // lowest point
  b.velocity = Vec3(2 * std::sqrt(p.g * p.length) * std::sin(amp / 2), 0, 0);  // toward +x
  m.bodies.push_back(b);
  m.joints.push_back(rod_joint("rod1", kWorld, Vec3::Zero(), 0, Vec3::Zero(), p.length));
  m.info.name = name;
  m.info.source = "schmitt2005 s.4";
  m.info.description = fmt::format(
      "planar mathematical pendulum: {} kg point mass on a massless {} m rod, pivot at the origin, "
      "started at the lowest point moving toward +x with the speed for a {} degree amplitude",
      p.mass, p.length, p.amplitude_deg);
  m.info.period = pendulum_period(p);
  m.info.tracked_body = 0;
  m.info.h_grid = default_h_grid();
  return m;
}

Model make_chain(const ChainParams& p, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, -p.g, 0);
  for (int i = 0; i < p.n; ++i) {
    Body b;
    b.name = fmt::format("m{}", i + 1);
    b.particle = true;
    b.mass = p.mass;
    b.position = Vec3((i + 1) * p.length, 0, 0);
    m.bodies.push_back(b);
    m.joints.push_back(rod_joint(fmt::format("rod{}", i + 1), i == 0 ? kWorld : i - 1, Vec3::Zero(), i, Vec3::Zero(), p.length));
  }
  m.info.name = name;
  m.info.description = fmt::format(
      "{} point masses of {} kg on massless rods of {} m from a pivot at the origin, at rest, "
      "stretched horizontally to +x; planar (x-y)",
      p.n, p.mass, p.length);
  m.info.h_grid = default_h_grid();
  return m;
}

namespace {
Model amplitude_pendulum(double deg, const std::string& name) {
  PendulumParams p;
  p.amplitude_deg = deg;
  return make_pendulum(p, name);
}
}  // namespace

Model build_pendulum10(const Spec&) { return amplitude_pendulum(10, "pendulum10"); }
Model build_pendulum90(const Spec&) { return amplitude_pendulum(90, "pendulum90"); }

Model build_pendulum(const Spec& s) {
  double a = s.get_double("amplitude", 10);
  if (!(a > 0 && a < 180))
    s.fail(fmt::format("pendulum amplitude must be in (0, 180) degrees, got {}", a));
  return amplitude_pendulum(a, s.text());
}

Model build_conical_pendulum(const Spec& s) {
  // a point mass on a rod at angle theta from the vertical moving on the horizontal circle: the rod
  // tension's vertical part carries the weight, its horizontal part turns the mass, so
  // Omega^2 = g / (L cos theta) (closed form; the point-mass tree leaves the x-y plane: swing joints)
  const double deg = s.get_double("angle", 30);
  if (!(deg > 0 && deg <= 89)) s.fail(fmt::format("conical-pendulum angle must be in (0, 89] degrees, got {}", deg));
  PendulumParams p;
  Model m = make_pendulum(p, s.text());
  const double th = deg * M_PI / 180, R = p.length * std::sin(th);
  const double Om = std::sqrt(p.g / (p.length * std::cos(th)));
  m.bodies[0].position = Vec3(R, -p.length * std::cos(th), 0);
  m.bodies[0].velocity = Vec3(0, 0, Om * R);
  m.info.source = "ours (closed form)";
  m.info.description = fmt::format(
      "conical pendulum: 1 kg point mass on a massless 1 m rod from the origin at {} degrees from the vertical, circling "
      "the y axis at Omega = sqrt(g / (L cos theta)) = {:.6g} rad/s (out of the x-y plane)",
      deg, Om);
  m.info.period = 2 * M_PI / Om;
  m.info.tracked_body = 0;
  return m;
}

Model build_double_pendulum(const Spec&) {
  Model m = make_chain({2}, "double-pendulum");
  m.info.source = "schmitt2005 s.4";
  return m;
}

Model build_triple_pendulum(const Spec&) {
  Model m = make_chain({3}, "triple-pendulum");
  m.info.source = "schmitt2005 s.4";
  return m;
}

Model build_iftomm_a01(const Spec& s) {
  // IFToMM A01: the pendulum of make_pendulum, released at rest from the horizontal at (-1, 0)
  PendulumParams p;
  p.amplitude_deg = 90;
  Model m = make_pendulum(p, s.text());
  m.bodies[0].position = Vec3(-p.length, 0, 0);
  m.bodies[0].velocity = Vec3::Zero();
  m.info.source = "IFToMM A01 (gonzalez2006)";
  m.info.description = "IFToMM A01 simple pendulum: 1 kg point mass on a massless 1 m bar, released at rest from the horizontal "
                       "at (-1, 0); 10 s; period 4 K(sin 45 deg) sqrt(L/g)";
  m.info.tracked_body = -1;  // x(i T) = -1, not 0: no location drift
  m.info.duration = 10;
  return m;
}

Model build_chain(const Spec& s) {
  long n = s.get_int("n", 4);
  if (n < 1 || n > 100000)
    s.fail(fmt::format("chain needs 1 <= n <= 100000, got {}", n));
  const std::string body = s.get_string("body", "particle");
  const std::string name = s.text() == "chain" ? "chain:n=4" : s.text();
  if (body == "box") return make_box_chain({static_cast<int>(n), 0.1}, name);
  if (body != "particle")
    s.fail(fmt::format("chain: body must be particle or box, got '{}'", body));
  Model m = make_chain({static_cast<int>(n)}, name);
  m.info.source = "ours";
  return m;
}

double spring_mass_displacement(const SpringMassParams& p, double t) {
  const double w0 = std::sqrt(p.stiffness / p.mass);
  const double zeta = p.damping / (2 * std::sqrt(p.stiffness * p.mass));
  const double wd = w0 * std::sqrt(1 - zeta * zeta);
  return -p.v0 / wd * std::exp(-zeta * w0 * t) * std::sin(wd * t);
}

Model make_spring_mass(const SpringMassParams& p, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, -p.g, 0);
  Body b;
  b.name = "m1";
  b.particle = true;
  b.mass = p.mass;
  b.position = Vec3(0, -(p.rest_length + p.mass * p.g / p.stiffness), 0);  // the equilibrium
  b.velocity = Vec3(0, -p.v0, 0);
  m.bodies.push_back(b);
  Spring s;
  s.name = "spring1";
  s.a = kWorld;
  s.b = 0;
  s.stiffness = p.stiffness;
  s.rest_length = p.rest_length;
  s.damping = p.damping;
  m.springs.push_back(s);
  m.info.name = name;
  m.info.source = "ours";
  m.info.description = fmt::format(
      "{} kg point mass hanging from the origin on a spring of {} N/m (rest length {} m, damping {} N s/m), started at the "
      "equilibrium moving down at {} m/s; y(t) - y_eq = -(v0 / w_d) exp(-zeta w0 t) sin(w_d t)",
      p.mass, p.stiffness, p.rest_length, p.damping, p.v0);
  m.info.energy_conserved = p.damping == 0;
  m.info.duration = 10;
  m.info.h_grid = default_h_grid();
  return m;
}

Model build_spring_mass(const Spec& s) {
  SpringMassParams p;
  p.damping = s.get_double("damping", 0);
  const double critical = 2 * std::sqrt(p.stiffness * p.mass);
  if (!(p.damping >= 0 && p.damping < critical))
    s.fail(fmt::format("spring-mass: damping must be in [0, {}) N s/m (under-damped), got {}", critical, p.damping));
  return make_spring_mass(p, s.text());
}

}  // namespace mb
