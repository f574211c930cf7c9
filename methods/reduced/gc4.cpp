#include "methods/reduced/gc4.hpp"

#include <chrono>

namespace mb {

MethodInfo Gc4::describe() {
  MethodInfo i;
  i.name = "GC4";
  i.description = "generalized coordinates (articulated-body algorithm, O(n): trees of rigid bodies with free/ball/hinge/slider/fixed "
      "joints, trees of point masses on rods: planar in rod angles, spatial on swing joints; motors as prescribed motion) + classic RK4, "
      "fixed step";
  i.source = "schmitt2005 s.5";
  i.family = "reduced";
  i.paper_name = "GC4";
  i.orders = {{"position", "pendulum90", 4, 0.0025, 0.01, 1, "", "classic RK4 (pre-asymptotic above h = 0.01 on pendulum90)"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kAppliedTorques | kMasslessFrames | kSingularInertia | kJointDampers | kMotors |
               kCoupledJoints;
  i.fixed_step = true;
  i.timing_table = true;
  i.timing_max_joints = 16383;
  i.gate_time_joints = {63, 255};
  return i;
}

std::unique_ptr<Method> Gc4::make(const MethodOptions&) { return std::make_unique<Gc4>(); }

const MethodInfo& Gc4::info() const {
  static const MethodInfo i = describe();
  return i;
}

void Gc4::do_init(const Model& model, const State& state) {
  sys_ = ReducedSystem::extract(model);
  sys_.read(state, x_);
  sys_.check_couplings(model, x_);
  sys_.prescribe(x_, state.t);
}

void Gc4::do_step(const Model& model, State& state, double h, StepStats& stats) {
  auto t0 = std::chrono::steady_clock::now();
  // applied torques: the step's average, constant over the four stages
  sys_.set_loads(model, state.t, h);
  auto sys = [this](const std::vector<double>& x, std::vector<double>& dxdt, double t) { sys_.derivative(x, dxdt, t); };
  if (!sys_.has_motors()) {
    rk4_.do_step(sys, x_, state.t, h);
    sys_.normalize(x_);
  } else {
    // a motor's table point inside the step ends a sub-step there (its rate jumps)
    std::vector<double> ends = motor_breaks(model, state.t, state.t + h);
    ends.push_back(state.t + h);
    double a = state.t;
    for (double b : ends) {
      sys_.set_interval(a, b);
      rk4_.do_step(sys, x_, a, b - a);
      sys_.normalize(x_);
      sys_.prescribe(x_, b);
      a = b;
    }
  }
  sys_.write(x_, state);
  stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace mb
