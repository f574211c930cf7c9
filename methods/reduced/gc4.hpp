// GC4 (schmitt2005 s.5): generalized (reduced) coordinates integrated by the classic fourth-order
// Runge-Kutta method with a fixed step (Boost.Odeint runge_kutta4). Claimed order 4.
// One O(n) right-hand side for every tree-structured model (Featherstone's articulated-body
// algorithm, methods/reduced/aba.hpp): trees of rigid bodies with free, ball, hinge, slider and
// fixed joints, and trees of point masses on rods (planar: rod angles, the pendulum family; spatial: swing joints).
// Applied torques are averaged over each step
// (average_torques, as the impulse methods' StepLoads), so runs at any h see the same impulse;
// quaternions are renormalised after each step (projection: keeps order 4). Motors are prescribed
// motion (hybrid dynamics, tree_model.hpp): a step ends a sub-step at a target table's point, and
// after each (sub-)step the motors' coordinates are set to their targets (ReducedSystem::prescribe).
#pragma once
#include <memory>
#include <vector>

#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>

#include "methods/method.hpp"
#include "methods/reduced/reduced_system.hpp"

namespace mb {

class Gc4 final : public Method {
 public:
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
  const MethodInfo& info() const override;

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;

  ReducedSystem sys_;
  std::vector<double> x_;  // generalized coordinates and velocities
  boost::numeric::odeint::runge_kutta4<std::vector<double>> rk4_;
};

}  // namespace mb
