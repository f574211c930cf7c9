// `ref`: the reference solution. The reduced equations of GC4 (the O(n) articulated-body algorithm
// on trees of rigid bodies and on trees of point masses on rods; reduced_system.hpp)
// integrated by an adaptive high-order Odeint stepper (Runge-Kutta-Fehlberg 7(8), controlled, or
// Bulirsch-Stoer) at absolute and relative tolerance `tol` (default: 1e-13 on point-mass trees,
// 1e-12 on rigid-body trees, whose quaternion and 6-DOF states make 1e-13 needlessly slow).
// A step of any length lands exactly on its end time (the last internal step is shortened), so
// samples fall exactly on requested times; a step is also split where an applied torque switches
// on or off (the tree's pulse ends at 1/30 s), so the discontinuous forcing is integrated exactly
// (the exact torque, not a step average). Motors are prescribed motion (tree_model.hpp): a step is
// split at a target table's point too, and the motors' coordinates are set to their targets after
// every accepted internal step (a projection by the local error). Quaternions are renormalised after every accepted
// internal step (a projection by the local error, far below tol).
// A model with a closed loop is integrated in maximal coordinates instead (maximal_system.hpp:
// Lagrange multipliers by a minimum-norm solve, so redundant constraints are fine, and a projection
// onto the constraints after every accepted internal step), default tolerance 1e-12.
#pragma once
#include <memory>
#include <vector>

#include "methods/method.hpp"
#include "methods/reduced/maximal_system.hpp"
#include "methods/reduced/reduced_system.hpp"

namespace mb {

class Ref final : public Method {
 public:
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
  const MethodInfo& info() const override;
  // tol <= 0: the model-dependent default
  // max_steps: internal steps of a run at most (0: no budget)
  Ref(double tol, bool bulirsch_stoer, long max_steps = 0) : tol_option_(tol), bs_(bulirsch_stoer), max_steps_(max_steps) {}

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  template <class System, class Stepper>
  void advance(System& sys, Stepper& stepper, double t0, double t1, StepStats& stats);
  template <class System>
  void step_system(System& sys, const Model& model, State& state, double h, StepStats& stats);

  double tol_option_, tol_ = 1e-13;
  bool bs_;
  ReducedSystem sys_;
  std::unique_ptr<const MaximalSystem> loops_;  // closed loops or springs: maximal coordinates with projection
  MaximalData loops_data_;
  std::vector<double> x_;
  double dt_ = 1e-3;  // internal step suggested by the controller
  long max_steps_ = 0, steps_taken_ = 0;  // the run's budget of internal steps and its use
};

}  // namespace mb
