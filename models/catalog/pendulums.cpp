// The pendulum family of schmitt2005 s.4: Pendulum10, Pendulum90, the double and triple pendulum,
// and chain:n=N. All are point masses on massless rods in the x-y plane, pivot at the origin.
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

}  // namespace mb
