// GC4 (schmitt2005 s.5): generalized (reduced) coordinates integrated by the classic fourth-order
// Runge-Kutta method with a fixed step (Boost.Odeint runge_kutta4). Claimed order 4.
// Supports planar chains of point masses (methods/reduced/planar_chain.hpp).
#pragma once
#include <memory>
#include <vector>

#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>

#include "methods/method.hpp"
#include "methods/reduced/planar_chain.hpp"

namespace mb {

class Gc4 final : public Method {
 public:
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const Spec& spec);
  const MethodInfo& info() const override;

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;

  PlanarChain chain_;
  std::vector<double> x_;  // (2n) angles and angular rates
  boost::numeric::odeint::runge_kutta4<std::vector<double>> rk4_;
};

}  // namespace mb
