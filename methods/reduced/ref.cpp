#include "methods/reduced/ref.hpp"

#include <chrono>
#include <algorithm>
#include <cmath>
#include <type_traits>

#include <boost/numeric/odeint/stepper/bulirsch_stoer.hpp>
#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_fehlberg78.hpp>
#include <fmt/format.h>

#include "models/actuators.hpp"

#include "core/error.hpp"

namespace mb {

namespace odeint = boost::numeric::odeint;
using Vec = std::vector<double>;

MethodInfo Ref::describe() {
  MethodInfo i;
  i.name = "ref";
  i.description = "reference: reduced coordinates + adaptive high-order Odeint stepper, lands on every step end";
  i.source = "ours";
  i.family = "reduced";
  i.options = {OptionInfo::number("tol", "auto",
                                  "absolute and relative error tolerance of the adaptive stepper (auto: 1e-13 on point-mass trees, "
                                  "1e-12 on rigid-body trees)",
                                  0, 1, true, {"auto"}),
               OptionInfo::choice("stepper", "rkf78", "rkf78 (controlled Runge-Kutta-Fehlberg 7(8)) or bs (Bulirsch-Stoer)", {"rkf78", "bs"}),
               OptionInfo::integer("max_steps", "0",
                                   "internal steps (taken and rejected) of a run at most; past them the run fails, naming the step "
                                   "size reached (a stiff model); 0: no budget",
                                   0, 1e15)};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kForces | kMasslessFrames | kSingularInertia | kJointDampers | kMotors | kRolling |
               kCoupledJoints;
  i.reference = true;
  i.fixed_step = false;
  return i;
}

std::unique_ptr<Method> Ref::make(const MethodOptions& o) {
  const double tol = o.is("tol", "auto") ? 0 : o.number("tol");  // 0: auto, chosen from the model in do_init
  return std::make_unique<Ref>(tol, o.choice("stepper") == "bs", o.integer("max_steps"));
}

const MethodInfo& Ref::info() const {
  static const MethodInfo i = describe();
  return i;
}

void Ref::do_init(const Model& model, const State& state) {
  loops_.reset();
  steps_taken_ = 0;
  if (model_features(model) & (kLoops | kForces | kRolling)) {
    if (!model.couplings.empty())
      throw UnsupportedModel("ref: couplings are held in reduced coordinates, which take no closed loops or force elements");
    if (!model.motors.empty())
      throw UnsupportedModel("ref: motors are prescribed motion in reduced coordinates, which take no closed loops or force elements");
    if (model_features(model) & kMasslessFrames)
      throw UnsupportedModel("ref: a model with massless frames is integrated in reduced coordinates, which take no closed loops or force elements");
    if (model_features(model) & kSingularInertia)
      throw UnsupportedModel("ref: a model with singular inertias is integrated in reduced coordinates, which take no closed loops or force elements");
    if (!model.actuators.empty() && model.control.kind == ControlKind::Sine)
      throw UnsupportedModel("ref: a sine control is evaluated within the steps in reduced coordinates, which take no closed loops or force "
                             "elements (ctrl=noise or a table runs)");
    loops_ = std::make_unique<const MaximalSystem>(MaximalSystem::extract(model));
    loops_data_ = MaximalData(*loops_);
    loops_->read(state, x_);
    loops_->normalize(loops_data_, x_);  // the initial state onto the constraints (it is there to the builder's round-off)
    tol_ = tol_option_ > 0 ? tol_option_ : 1e-12;
    dt_ = 1e-3;
    return;
  }
  sys_ = ReducedSystem::extract(model);
  sys_.read(state, x_);
  sys_.check_couplings(model, x_);
  sys_.prescribe(x_, state.t);
  tol_ = tol_option_ > 0 ? tol_option_ : (sys_.point_masses() ? 1e-13 : 1e-12);
  dt_ = 1e-3;
}

template <class System, class Stepper>
void Ref::advance(System& system, Stepper& stepper, double t, double t_end, StepStats& stats) {
  auto sys = [&system](const Vec& x, Vec& dxdt, double tx) {
    if constexpr (std::is_same_v<System, ReducedSystem>)
      system.derivative(x, dxdt, tx);
    else
      system.derivative(x, dxdt);
  };
  if constexpr (std::is_same_v<System, ReducedSystem>) system.set_interval(t, t_end);
  long tries = 0;
  while (t < t_end) {
    // shorten the last internal step so that the step ends exactly at t_end
    const double remaining = t_end - t;
    const bool last = dt_ >= remaining;
    double dt = last ? remaining : dt_;
    double tt = t;
    if (stepper.try_step(sys, x_, tt, dt) == odeint::success) {
      ++stats.internal_steps;
      system.normalize(x_);
      t = last ? t_end : tt;
      if constexpr (std::is_same_v<System, ReducedSystem>) system.prescribe(x_, t);
      if (!last || dt > dt_) dt_ = dt;  // keep the controller's suggestion, not the shortened step
    } else {
      ++stats.rejected_steps;
      dt_ = dt;
    }
    if (++tries > 10000000 || !(dt_ > 0) || !std::isfinite(dt_))
      throw SimulationError(fmt::format("ref: adaptive stepper stalled at t = {} (dt = {})", t, dt_));
    if (max_steps_ > 0 && ++steps_taken_ > max_steps_)
      throw SimulationError(fmt::format("ref: more than max_steps = {} internal steps by t = {:.6g} s, the step down to {:.3g} s "
                                        "(a stiff model for the explicit stepper)",
                                        max_steps_, t, dt_));
  }
}

void Ref::do_step(const Model& model, State& state, double h, StepStats& stats) {
  if (loops_) {
    MaximalView loops{*loops_, loops_data_};
    step_system(loops, model, state, h, stats);
  } else {
    // a sine control varies within every step: evaluated at each stage's time, not held
    sys_.evaluate_controls_at_t(!model.actuators.empty() && model.control.kind == ControlKind::Sine ? &model : nullptr);
    step_system(sys_, model, state, h, stats);
    sys_.evaluate_controls_at_t(nullptr);
  }
}

template <class System>
void Ref::step_system(System& sys, const Model& model, State& state, double h, StepStats& stats) {
  auto t0 = std::chrono::steady_clock::now();
  // sub-intervals between the switching times of the applied torques: constant forcing in each
  std::vector<double> ends = load_breaks(model, state.t, state.t + h);
  for (double b : motor_breaks(model, state.t, state.t + h)) ends.push_back(b);
  for (double b : control_breaks(model, state.t, state.t + h)) ends.push_back(b);
  std::sort(ends.begin(), ends.end());
  ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
  ends.push_back(state.t + h);
  double a = state.t;
  for (double b : ends) {
    sys.set_loads(model, a, b - a);
    if (bs_) {
      odeint::bulirsch_stoer<Vec> st(tol_, tol_);
      advance(sys, st, a, b, stats);
    } else {
      auto st = odeint::make_controlled(tol_, tol_, odeint::runge_kutta_fehlberg78<Vec>());
      advance(sys, st, a, b, stats);
    }
    a = b;
  }
  sys.write(x_, state);
  stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace mb

