// Helpers shared by the tests: closeness with named tolerances (RBDL IsClose) and simulating a
// catalog model with a method to a given time.
#pragma once
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "methods/method.hpp"
#include "methods/peers/translation.hpp"
#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/collision.hpp"
#include "sim/driver.hpp"

namespace mbtest {

inline bool is_close(double a, double b, double atol, double rtol = 0) {
  return std::abs(a - b) <= atol + rtol * std::abs(b);
}

// Steps `method` with step h from the initial state to t = n h, n = round(t_end / h), through
// the driver (no divergence limit; a SimulationError of the method is rethrown).
inline mb::State simulate(const mb::Model& model, const std::string& method, double h, double t_end) {
  auto m = mb::make_method(method);
  mb::State s = mb::initial_state(model);
  m->init(model, s);
  mb::StepPlan plan;
  plan.h_requested = plan.h = h;
  plan.steps = std::lround(t_end / h);
  plan.duration = static_cast<double>(plan.steps) * h;
  mb::DriverOptions opt;
  opt.fail_threshold = 1e300;
  const mb::RunOutcome out = mb::simulate(model, *m, s, plan, {}, opt);
  if (out.failure && *out.failure != "non-finite state") throw mb::SimulationError(*out.failure);
  return s;
}

// `steps` steps of h from the initial state, tracking the deepest penetration the detector finds
// after each step (the contact tests)
struct ContactRun {
  mb::State s;
  double max_penetration = 0;
  long most_contacts = 0;  // the method's contacts of a step (StepStats::contacts), at most
};
inline ContactRun run_contacts(const mb::Model& m, const std::string& method, double h, long steps) {
  auto meth = mb::make_method(method);
  ContactRun r{mb::initial_state(m)};
  meth->init(m, r.s);
  mb::CollisionDetector det(m);
  std::vector<mb::Contact> cs;
  for (long i = 0; i < steps; ++i) {
    mb::StepStats st;
    meth->step(m, r.s, h, st);
    r.most_contacts = std::max(r.most_contacts, st.contacts);
    det.detect(m, r.s, cs);
    for (const mb::Contact& c : cs) r.max_penetration = std::max(r.max_penetration, c.depth);
  }
  return r;
}

// max over bodies of |x_a - x_b|
inline double max_position_difference(const mb::State& a, const mb::State& b) {
  double e = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) e = std::max(e, (a.bodies[i].x - b.bodies[i].x).norm());
  return e;
}


// The bit-level checks of hand-ordered sums against Eigen's products hold for the build the
// presets make: x86-64 with SSE2 packets of two doubles and no FMA (Eigen's summation orders
// follow the packet width). Elsewhere they are skipped with a warning.
constexpr bool kEigenSse2Order =
#if defined(__x86_64__) && !defined(__AVX__) && !defined(__FMA__)
    true;
#else
    false;
#endif
// The first statement of a bit-level test: elsewhere it is skipped with a warning.
#define MBTEST_SKIP_UNLESS_SSE2_ORDER()                                                                  \
  do {                                                                                                   \
    if (!mbtest::kEigenSse2Order) {                                                                      \
      WARN("not an x86-64 SSE2 build without FMA: the summation orders (Eigen's packets, contracted "    \
           "multiply-adds) differ, bit-level check skipped");                                            \
      return;                                                                                            \
    }                                                                                                    \
  } while (false)

// true when the peer `engine` is built; otherwise says so (and why) in the test output
inline bool peer_built(const std::string& engine) {
  if (mb::find_method(engine)) return true;
  std::string why = "not registered";
  for (const auto& [name, reason] : mb::peers_not_built())
    if (name == engine) why = reason;
  WARN("peer engine " << engine << " is not built, skipped: " << why);
  return false;
}

}  // namespace mbtest
