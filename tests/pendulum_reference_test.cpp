// The pendulum periods and the `ref` method against the closed form of the mathematical pendulum:
// started at the lowest point with speed v0, sin(theta/2) = k sn(w0 t, k) with k = v0 / (2 sqrt(g L)),
// w0 = sqrt(g / L), so x = 2 L k sn dn and y = -L (1 - 2 k^2 sn^2); T = 4 K(k) / w0.
#include <catch2/catch.hpp>

#include <boost/math/special_functions/ellint_1.hpp>
#include <boost/math/special_functions/jacobi_elliptic.hpp>

#include "models/catalog.hpp"
#include "test_util.hpp"

namespace {

struct Exact {
  long double x, y;
};

Exact closed_form(const mb::Model& m, long double t) {
  const long double L = m.joints[0].length, g = -m.gravity.y();
  const long double v0 = m.bodies[0].velocity.x();
  const long double k = v0 / (2 * std::sqrt(g * L)), w0 = std::sqrt(g / L);
  long double cn, dn;
  long double sn = boost::math::jacobi_elliptic(k, w0 * t, &cn, &dn);
  return {2 * L * k * sn * dn, -L * (1 - 2 * k * k * sn * sn)};
}

long double period_ld(double amplitude_deg) {
  const long double pi = 3.141592653589793238462643383279502884L;
  long double k = std::sin(amplitude_deg * pi / 360);
  return 4 * boost::math::ellint_1(k) * std::sqrt(1.0L / 9.81L);
}

}  // namespace

TEST_CASE("pendulum periods equal the elliptic integral and the paper's printed values", "[models][period]") {
  const mb::Model p10 = mb::build_model("pendulum10"), p90 = mb::build_model("pendulum90");
  REQUIRE(p10.info.period.has_value());
  REQUIRE(p90.info.period.has_value());
  // independent long-double evaluation of 4 K(sin(amp/2)) sqrt(L/g)
  CHECK(std::abs(*p10.info.period - static_cast<double>(period_ld(10))) < 1e-14);
  CHECK(std::abs(*p90.info.period - static_cast<double>(period_ld(90))) < 1e-14);
  // schmitt2005 s.4 prints T10 = 2.00989262729860 s and T90 = 2.36784194757623 s
  CHECK(std::abs(*p10.info.period - 2.00989262729860) < 1e-14);
  CHECK(std::abs(*p90.info.period - 2.36784194757623) < 1e-14);
}

TEST_CASE("ref matches the closed-form pendulum", "[methods][ref]") {
  for (const char* name : {"pendulum10", "pendulum90"}) {
    const mb::Model m = mb::build_model(name);
    auto method = mb::make_method("ref");
    mb::State s = mb::initial_state(m);
    method->init(m, s);
    mb::StepStats st;
    for (int t = 1; t <= 60; ++t) {
      method->step(m, s, 1.0, st);
      s.t = t;
      if (t != 10 && t != 60) continue;
      Exact e = closed_form(m, t);
      double err = std::hypot(s.bodies[0].x.x() - static_cast<double>(e.x), s.bodies[0].x.y() - static_cast<double>(e.y));
      INFO(name << " t = " << t << " position error " << err);
      CHECK(err < (t == 10 ? 1e-11 : 1e-10));
    }
  }
}

TEST_CASE("ref lands exactly on the end of every step", "[methods][ref]") {
  const mb::Model m = mb::build_model("pendulum90");
  // one step of 0.7 s and seven of 0.1 s must agree to the tolerance: both land on t = 0.7
  mb::State a = mbtest::simulate(m, "ref", 0.7, 0.7), b = mbtest::simulate(m, "ref", 0.1, 0.7);
  CHECK(mbtest::max_position_difference(a, b) < 1e-11);
  Exact e = closed_form(m, 0.7L);
  CHECK(std::abs(a.bodies[0].x.x() - static_cast<double>(e.x)) < 1e-12);
}
