// Helpers shared by the tests: closeness with named tolerances (RBDL IsClose) and simulating a
// catalog model with a method to a given time.
#pragma once
#include <cmath>
#include <string>

#include "methods/method.hpp"
#include "models/catalog.hpp"

namespace mbtest {

inline bool is_close(double a, double b, double atol, double rtol = 0) {
  return std::abs(a - b) <= atol + rtol * std::abs(b);
}

// Steps `method` with step h from the initial state to t = n h, n = round(t_end / h).
inline mb::State simulate(const mb::Model& model, const std::string& method, double h, double t_end) {
  auto m = mb::make_method(method);
  mb::State s = mb::initial_state(model);
  m->init(model, s);
  long n = std::lround(t_end / h);
  mb::StepStats st;
  for (long i = 1; i <= n; ++i) {
    m->step(model, s, h, st);
    s.t = static_cast<double>(i) * h;
  }
  return s;
}

// max over bodies of |x_a - x_b|
inline double max_position_difference(const mb::State& a, const mb::State& b) {
  double e = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i) e = std::max(e, (a.bodies[i].x - b.bodies[i].x).norm());
  return e;
}

}  // namespace mbtest
