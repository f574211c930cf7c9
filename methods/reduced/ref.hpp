// `ref`: the reference solution. The reduced equations of GC4 integrated by an adaptive
// high-order Odeint stepper (Runge-Kutta-Fehlberg 7(8), controlled, or Bulirsch-Stoer) at
// absolute and relative tolerance `tol` (default 1e-13). A step of any length lands exactly on
// its end time (the last internal step is shortened), so samples fall exactly on requested times.
#pragma once
#include <memory>
#include <vector>

#include "methods/method.hpp"
#include "methods/reduced/planar_chain.hpp"

namespace mb {

class Ref final : public Method {
 public:
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const Spec& spec);
  const MethodInfo& info() const override;
  Ref(double tol, bool bulirsch_stoer) : tol_(tol), bs_(bulirsch_stoer) {}

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  template <class Stepper>
  void advance(Stepper& stepper, double t0, double t1, StepStats& stats);

  double tol_;
  bool bs_;
  PlanarChain chain_;
  std::vector<double> x_;
  double dt_ = 1e-3;  // internal step suggested by the controller
};

}  // namespace mb
