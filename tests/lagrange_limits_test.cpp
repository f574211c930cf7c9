// Joint limits in the `lagrange` family: active-set rows of the acceleration solve
// (methods/lagrange/acceleration.hpp, docs/lagrange.md "Joint limits").
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "methods/constraints/joint_limits.hpp"
#include "models/catalog.hpp"
#include "models/formats/urdf.hpp"
#include "models/kinematics.hpp"

namespace {

const std::string kData = std::string(MBBENCH_TEST_DATA) + "/limits/";
const std::vector<std::string> kLagrange = {"LM4", "LMBS4", "LMV4", "LMVD4", "baraff", "lagrange:solver=cholmod"};
// the members with stab=baumgarte, which draw a joint stopped past its limit back onto it
bool baumgarte(const std::string& method) { return method == "LMBS4" || method == "baraff" || method == "lagrange:solver=cholmod"; }
// stab=vd, whose projection takes the limits' sides as inequality rows: a joint that crosses its
// limit in a step is put back onto it (within tol_p = 1e-10) at that step's end
bool projects(const std::string& method) { return method == "LMVD4"; }

double coordinate(const mb::Model& m, const mb::State& s, int joint) {
  mb::Motor probe;
  probe.joint = joint;
  return mb::motor_coordinate(m, s, probe);
}
double rate(const mb::Model& m, const mb::State& s, int joint) {
  mb::Motor probe;
  probe.joint = joint;
  return mb::motor_rate(m, s, probe);
}

// the states after each of `steps` steps of h
std::vector<mb::State> run(const mb::Model& m, const std::string& method, double h, int steps) {
  auto meth = mb::make_method(method);
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  std::vector<mb::State> out;
  for (int k = 0; k < steps; ++k) {
    mb::StepStats st;
    meth->step(m, s, h, st);
    out.push_back(s);
  }
  return out;
}

mb::Model without_limits(mb::Model m) {
  for (mb::Joint& j : m.joints) j.lower = -INFINITY, j.upper = INFINITY;
  return m;
}

bool same_bits(const mb::State& a, const mb::State& b) {
  for (size_t k = 0; k < a.bodies.size(); ++k) {
    const mb::BodyState &x = a.bodies[k], &y = b.bodies[k];
    if (x.x != y.x || x.v != y.v || x.w != y.w || x.q.coeffs() != y.q.coeffs()) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("lagrange limits: a pendulum falls onto its hinge limit - unlimited until it crosses then held there", "[limits][lagrange]") {
  // tests/data/limits/pendulum.toml: the rod arrives at lower = -60 degrees at
  // w = sqrt(29.43 sin 60) = 5.05 rad/s. The active set is updated before each step, so the step
  // that crosses runs unlimited (bit for bit) and the next one stops the rod: beyond the limit by
  // at most w h. Then gravity presses it there: held (stab=baumgarte: drawn back onto the bound,
  // Baumgarte's critically damped (s + 10)^2), never above the bound again (inelastic).
  const mb::Model m = mb::load_model(kData + "pendulum.toml");
  const mb::Model free = without_limits(m);
  const double lower = m.joints[0].lower, w_arrival = std::sqrt(29.43 * std::sin(M_PI / 3));
  for (const std::string& method : kLagrange) {
    for (const double h : {1e-3, 5e-4, 2.5e-4}) {
      INFO(method << " h = " << h);
      const int steps = static_cast<int>(std::lround(2.0 / h));
      const std::vector<mb::State> held = run(m, method, h, steps), through = run(free, method, h, steps);
      size_t cross = 0;  // the first step ending beyond the limit
      while (cross < through.size() && coordinate(free, through[cross], 0) > lower) ++cross;
      REQUIRE(cross + 1 < held.size());
      // the step that crosses runs unlimited; stab=vd's projection ends it on the bound
      const size_t first_held = projects(method) ? cross : cross + 1;
      bool same = true;
      for (size_t k = 0; k < first_held; ++k) same = same && same_bits(held[k], through[k]);
      CHECK(same);
      CHECK_FALSE(same_bits(held[first_held], through[first_held]));
      double beyond = 0, above = -INFINITY;
      for (size_t k = 0; k < held.size(); ++k) {
        beyond = std::max(beyond, lower - coordinate(m, held[k], 0));
        if (k > cross) above = std::max(above, coordinate(m, held[k], 0) - lower);
      }
      const double q_end = coordinate(m, held.back(), 0), stopped = coordinate(m, held[cross + 1], 0);
      WARN(method << " h = " << h << ": crosses in step " << cross + 1 << ", beyond the limit by at most " << beyond << " rad = "
                  << beyond / (w_arrival * h) << " w h; rests at " << q_end - lower << " from it, rate " << rate(m, held.back(), 0));
      CHECK(beyond <= w_arrival * h);
      CHECK(above <= 1e-9);
      CHECK(std::abs(rate(m, held.back(), 0)) < 1e-6);
      if (projects(method)) {
        CHECK(beyond <= 1e-9);
        CHECK(std::abs(q_end - lower) < 1e-9);
      } else if (baumgarte(method)) {
        CHECK(beyond > 0);
        CHECK(std::abs(q_end - lower) < 1e-6);
      } else {  // no position stabilisation of the limit: held where it was stopped
        CHECK(beyond > 0);
        CHECK(std::abs(q_end - stopped) < 1e-6);
      }
    }
  }
}

TEST_CASE("lagrange limits: a pendulum released against its hinge limit swings away - the multiplier's sign releases it", "[limits][lagrange]") {
  // tests/data/limits/release.toml: at the bound at rest, gravity pulls the rod away. The row
  // holding it would pull (multiplier < 0) and is dropped in every stage: the motion is the
  // unlimited one bit for bit (a held rod would stay at q = 0), and agrees with sle's, whose
  // limit row likewise never acts.
  const mb::Model m = mb::load_model(kData + "release.toml");
  const mb::Model free = without_limits(m);
  const double h = 1e-3;
  const int steps = 1200;
  const std::vector<mb::State> sle = run(m, "sle:tol_p=1e-12,tol_v=1e-12", h, steps);
  // sle is second order, LM4 fourth: their difference is sle's error, a quarter of it at h / 2
  auto end_gap = [&](double hh) {
    const int n = static_cast<int>(std::lround(1.2 / hh));
    return (run(m, "LM4", hh, n).back().bodies[0].x - run(m, "sle:tol_p=1e-12,tol_v=1e-12", hh, n).back().bodies[0].x).norm();
  };
  const double gap_h = end_gap(h), gap_h2 = end_gap(h / 2);
  WARN("LM4 - sle at 1.2 s: " << gap_h << " m at h = 1 ms, " << gap_h2 << " m at 0.5 ms");
  CHECK(gap_h / gap_h2 > 3.5);
  CHECK(gap_h / gap_h2 < 4.5);
  for (const std::string& method : kLagrange) {
    INFO(method);
    const std::vector<mb::State> left = run(m, method, h, steps), through = run(free, method, h, steps);
    bool same = true;
    double most = 0, off_sle = 0, q_min = 0;
    for (size_t k = 0; k < left.size(); ++k) {
      same = same && same_bits(left[k], through[k]);
      most = std::max(most, coordinate(m, left[k], 0));
      q_min = std::min(q_min, coordinate(m, left[k], 0));
      off_sle = std::max(off_sle, (left[k].bodies[0].x - sle[k].bodies[0].x).norm());
    }
    WARN(method << ": swings to " << q_min << " rad, at most " << most << " rad above the start; off sle by " << off_sle << " m");
    CHECK(same);
    CHECK(most <= 1e-12);
    CHECK(q_min < -1.5);  // swung to about -pi/2 (the rod's mirror image)
    CHECK(off_sle < 2 * gap_h);
  }
}

TEST_CASE("lagrange limits: a block slides down an incline onto its slider limit and is held there", "[limits][lagrange]") {
  // tests/data/limits/incline.toml: q = a t^2 / 2 (a = g / 2) until the upper limit 0.1 m, reached
  // at v = sqrt(2 a 0.1) = 0.99 m/s; the crossing step runs free, the next stops the block: beyond
  // the limit by at most v h, then held (stab=baumgarte: drawn back onto it)
  const mb::Model m = mb::load_model(kData + "incline.toml");
  const double upper = m.joints[0].upper, a = 9.81 / 2, v_arrival = std::sqrt(2 * a * upper);
  for (const std::string& method : kLagrange) {
    const double h = 1e-3;
    INFO(method);
    const std::vector<mb::State> held = run(m, method, h, 2000);
    double before = 0, beyond = 0, above = -INFINITY;
    size_t cross = 0;  // the first step that ends at the limit (stab=vd: projected onto it) or beyond
    const double reach = projects(method) ? 1e-9 : 0;
    while (cross < held.size() && coordinate(m, held[cross], 0) < upper - reach) {
      before = std::max(before, std::abs(coordinate(m, held[cross], 0) - a * held[cross].t * held[cross].t / 2));
      ++cross;
    }
    REQUIRE(cross + 1 < held.size());
    for (size_t k = 0; k < held.size(); ++k) {
      beyond = std::max(beyond, coordinate(m, held[k], 0) - upper);
      if (k > cross) above = std::max(above, upper - coordinate(m, held[k], 0));
    }
    const double q_end = coordinate(m, held.back(), 0), stopped = coordinate(m, held[cross + 1], 0);
    WARN(method << ": off q = a t^2 / 2 by " << before << " m before the limit; beyond it by at most " << beyond << " m = "
                << beyond / (v_arrival * h) << " v h; rests at " << q_end - upper << " from it, rate " << rate(m, held.back(), 0));
    CHECK(before < 1e-12);
    CHECK(beyond <= v_arrival * h);
    CHECK(above <= 1e-9);
    CHECK(std::abs(rate(m, held.back(), 0)) < 1e-6);
    if (projects(method)) {
      CHECK(beyond <= 1e-9);
      CHECK(std::abs(q_end - upper) < 1e-9);
    } else if (baumgarte(method)) {
      CHECK(beyond > 0);
      CHECK(std::abs(q_end - upper) < 1e-6);
    } else {
      CHECK(beyond > 0);
      CHECK(std::abs(q_end - stopped) < 1e-6);
    }
  }
}

TEST_CASE("lagrange limits: a leg falls onto its hip and knee limits and rests there - two rows at once", "[limits][lagrange]") {
  // tests/data/limits/leg.toml over 2 s: the thigh stops at the hip's limit while the shin swings
  // on; both rows then hold together (S of two rows on the thigh). LMBS4 draws both onto their
  // bounds, LMVD4 projects them onto them; the others rest where they were stopped, within the
  // crossing step's q' h.
  const mb::Model m = mb::load_model(kData + "leg.toml");
  for (const std::string& method : kLagrange) {
    INFO(method);
    const std::vector<mb::State> run_states = run(m, method, 1e-3, 2000);
    double beyond = 0;
    for (const mb::State& s : run_states)
      for (int j = 0; j < 2; ++j) beyond = std::max(beyond, m.joints[static_cast<size_t>(j)].lower - coordinate(m, s, j));
    const mb::State& end = run_states.back();
    const double hip = coordinate(m, end, 0) - m.joints[0].lower, knee = coordinate(m, end, 1) - m.joints[1].lower;
    WARN(method << ": rests at hip " << hip << ", knee " << knee << " rad from the limits, rates " << rate(m, end, 0) << ", "
                << rate(m, end, 1) << "; beyond them by at most " << beyond);
    const double tol = projects(method) ? 1e-9 : baumgarte(method) ? 1e-6 : 1e-2;
    CHECK(beyond <= (projects(method) ? 1e-9 : 1e-2));
    CHECK(std::abs(hip) <= tol);
    CHECK(std::abs(knee) <= tol);
    CHECK(std::abs(rate(m, end, 0)) < 1e-6);
    CHECK(std::abs(rate(m, end, 1)) < 1e-6);
  }
}

TEST_CASE("lagrange limits: the quadruped's largest limit violation - LM4 and LMBS4 beside sle", "[.limits-measure]") {
  // measurement, not a check: tests/data/robots/quadruped.urdf (base fixed, no contacts), its 12
  // limited hinges falling under gravity, 1 s at h = 1 ms; printed per method: the largest
  // violation of any limit over the steps and at the end
  if (!mb::urdf_supported()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/robots/quadruped.urdf");
  const std::vector<mb::LimitSide> sides = mb::limit_sides(m);
  for (const std::string method : {"LM4", "LMBS4", "LMV4", "LMVD4", "baraff", "sle", "linear"}) {
    double worst = 0, last = 0;
    for (const mb::State& s : run(m, method, 1e-3, 1000)) {
      last = 0;
      for (const mb::LimitSide& l : sides) last = std::max(last, -mb::limit_gap(m, l, s));
      worst = std::max(worst, last);
    }
    WARN(method << ": largest limit violation " << worst << " rad over 1 s, " << last << " rad at the end");
  }
}
