#include "bench/harness.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "sim/driver.hpp"

namespace mb {

StepTimer::StepTimer(const Model& model, const std::string& method_spec, double h, int warm_steps, int run_steps)
    : method_(make_method(method_spec)), model_(method_model(method_->info(), model, particle_form_)), h_(h), warm_(warm_steps),
      run_steps_(run_steps) {
  if (std::string why = unsupported_reason(method_->info(), model); !why.empty()) throw UnsupportedModel(why);
  if (run_steps_ <= warm_) throw Error(fmt::format("StepTimer: run_steps {} must exceed warm_steps {}", run_steps_, warm_));
}

double StepTimer::run(int k, bool timed) {
  StepPlan plan;
  plan.h_requested = plan.h = h_;
  plan.t0 = static_cast<double>(taken_) * h_;
  plan.steps = k;
  plan.duration = k * h_;
  const RunOutcome out = simulate(model_, *method_, state_, plan, {});
  taken_ += out.steps_done;
  if (out.failure) throw SimulationError(fmt::format("{} at t = {}", *out.failure, out.fail_time));
  if (timed) {
    timed_ += out.steps_done;
    merge(stats_, out.stats);
    phases_.step_seconds_total += out.timing.step_seconds_total;
    phases_.analysis += out.timing.analysis;
    phases_.assembly += out.timing.assembly;
    phases_.factorization += out.timing.factorization;
    phases_.solve += out.timing.solve;
    phases_.integration += out.timing.integration;
  }
  return out.timing.step_seconds_total;
}

void StepTimer::restart() {
  state_ = initial_state(model_);
  method_->init(model_, state_);
  taken_ = 0;
  started_ = true;
  if (warm_ > 0) run(warm_, false);
}

double StepTimer::window(int k) {
  if (!started_ || taken_ + k > run_steps_) restart();
  return run(k, true);
}

}  // namespace mb
