#include "sim/driver.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <new>
#include <stdexcept>

#include <time.h>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"

namespace mb {

// --- readings: names as they appear in experiment files and records ---
const std::vector<std::string>& step_count_names() {
  static const std::vector<std::string> n = {"floor", "ceil", "round"};
  return n;
}
const std::vector<std::string>& ld_periods_names() {
  static const std::vector<std::string> n = {"whole", "whole-with-start", "half"};
  return n;
}
const char* to_string(StepCount s) { return step_count_names()[static_cast<size_t>(s)].c_str(); }
const char* to_string(LdPeriods p) { return ld_periods_names()[static_cast<size_t>(p)].c_str(); }

namespace {
template <class E>
E enum_from(const std::string& text, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<E>(i);
  throw std::invalid_argument(fmt::format("\"{}\" is not one of: {}", text, fmt::join(names, ", ")));
}
}  // namespace
StepCount step_count_from(const std::string& text) { return enum_from<StepCount>(text, step_count_names()); }
LdPeriods ld_periods_from(const std::string& text) { return enum_from<LdPeriods>(text, ld_periods_names()); }

StepPlan plan_steps(const Model& model, const RunConfig& cfg, const std::string& source, int line) {
  StepPlan p;
  if (!(cfg.h >= 0) || !std::isfinite(cfg.h))
    throw InputError(source, line, "h", fmt::format("step size must be a positive number, got {}", cfg.h));
  if (!(cfg.duration >= 0) || !std::isfinite(cfg.duration))
    throw InputError(source, line, "duration", fmt::format("duration must be a positive number, got {}", cfg.duration));
  if (!(cfg.fail_threshold > 0) || !std::isfinite(cfg.fail_threshold))
    throw InputError(source, line, "fail_threshold",
                     fmt::format("the failure threshold must be a positive number of metres, got {}", cfg.fail_threshold));
  p.h_requested = cfg.h > 0 ? cfg.h : model.info.default_h;
  p.duration = cfg.duration > 0 ? cfg.duration : model.info.duration;
  if (p.duration > kMaxDuration)
    throw InputError(source, line, "duration", fmt::format("duration {} s is longer than the limit {:g} s", p.duration, kMaxDuration));
  if (p.h_requested > p.duration)
    throw InputError(source, line, "h", fmt::format("step {} s is longer than the duration {} s", p.h_requested, p.duration));
  p.h = p.h_requested;
  if (model.info.period) {
    const double T = *model.info.period;
    const double r = T / p.h_requested;
    // LD at half periods needs an even number of steps per period
    const long per = cfg.ld_periods == LdPeriods::Half ? 2 : 1;
    if (cfg.round_to_period && r < static_cast<double>(kMaxSteps)) {
      const long k = per * std::max(1L, std::lround(r / static_cast<double>(per)));
      p.h = T / static_cast<double>(k);
      p.steps_per_period = k;
    } else if (r < static_cast<double>(kMaxSteps) && std::abs(r - std::round(r)) <= 1e-9 * r && std::lround(r) % per == 0) {
      p.steps_per_period = std::lround(r);
    }
  }
  // the step count rule (driver.hpp); q is checked before any conversion to an integer
  const double q = p.duration / p.h;
  if (!(q < static_cast<double>(kMaxSteps)))
    throw InputError(source, line, "h",
                     fmt::format("h = {:g} s over the duration {:g} s is {:.3g} steps, more than the limit {:.3g}; use a "
                                 "larger h or a shorter duration",
                                 p.h, p.duration, q, static_cast<double>(kMaxSteps)));
  switch (cfg.steps) {
    case StepCount::Floor: p.steps = static_cast<long>(std::floor(q * (1 + 1e-12))); break;
    case StepCount::Ceil: p.steps = static_cast<long>(std::ceil(q * (1 - 1e-12))); break;
    case StepCount::Round: p.steps = std::lround(q); break;
  }
  if (p.steps < 1)
    throw InputError(source, line, "h", fmt::format("step {} s is longer than the duration {} s", p.h, p.duration));
  return p;
}

namespace {
// the CPU time this thread has run, s: a case's own time whatever else runs on the machine
double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
}  // namespace

RunOutcome simulate(const Model& model, Method& method, State& state, const StepPlan& plan,
                    const std::vector<Observer*>& observers, const DriverOptions& opt) {
  using clock = std::chrono::steady_clock;
  const double cpu0 = thread_cpu_seconds();
  RunOutcome out;
  if (opt.step_series) out.series.emplace();
  const double h = plan.h;
  auto time_at = [&](long i) { return plan.t0 + static_cast<double>(i) * h; };
  state.t = plan.t0;

  // the observers' context and the initial view
  RunContext ctx{h, plan.steps, plan.steps_per_period};
  const StepView v0 = view_state(model, state, 0);
  for (Observer* o : observers) o->begin(model, state, ctx, v0);

  size_t next_stop = 0;
  for (long i = 1; i <= plan.steps; ++i) {
    const double t_i = time_at(i);
    try {
      const auto c0 = clock::now();
      // an adaptive method also lands on the extra stops before t_i
      while (next_stop < opt.stops.size() && opt.stops[next_stop] < t_i) {
        const double ts = opt.stops[next_stop++];
        if (ts <= state.t) continue;
        StepStats one;
        method.step(model, state, ts - state.t, one);
        state.t = ts;
        // an extra stop is part of the grid step: only its internal steps count
        out.stats.internal_steps += one.internal_steps;
        out.stats.rejected_steps += one.rejected_steps;
        out.timing.step_seconds_total += std::chrono::duration<double>(clock::now() - c0).count();
        for (Observer* o : observers) o->observe_stop(model, state, ts);
      }
      const auto c1 = clock::now();
      StepStats one;
      method.step(model, state, t_i - state.t, one);
      out.timing.step_seconds_total += std::chrono::duration<double>(clock::now() - c1).count();
      add_step(out.stats, one);
      if (out.series) {
        out.series->t.push_back(t_i);
        out.series->pos_iterations.push_back(one.pos_iterations);
        out.series->vel_iterations.push_back(one.vel_iterations);
        out.series->condition.push_back(one.condition);
        out.series->rcond.push_back(one.rcond);
      }
      add_step(out.timing, one);
    } catch (const ConvergenceError& e) {
      out.failure = e.what() + convergence_hint(method.info(), e);
      out.fail_time = t_i;
      break;
    } catch (const SimulationError& e) {
      out.failure = e.what();
      out.fail_time = t_i;
      break;
    } catch (const std::bad_alloc&) {
      out.failure = "out of memory";
      out.fail_time = t_i;
      break;
    }
    state.t = t_i;  // the driver's clock
    const StepView v = view_state(model, state, i);
    if (!v.finite) {
      out.failure = "non-finite state";
      out.fail_time = t_i;
      break;
    }
    if (v.joint.pos > opt.fail_threshold) {
      // the observers see the failing step: a failed record's metrics include it
      for (Observer* o : observers) o->observe(model, state, v);
      out.failure = fmt::format("max constraint error {:.3g} m exceeds {} m", v.joint.pos, opt.fail_threshold);
      out.fail_time = t_i;
      break;
    }
    for (Observer* o : observers) o->observe(model, state, v);
    out.steps_done = i;
  }
  out.timing.cpu_seconds_total = thread_cpu_seconds() - cpu0;
  out.timing.step_seconds_mean =
      out.steps_done ? out.timing.step_seconds_total / static_cast<double>(out.steps_done) : 0.0;
  if (out.timing.step_seconds_total > 0)
    out.timing.realtime_factor = static_cast<double>(out.steps_done) * h / out.timing.step_seconds_total;
  return out;
}

}  // namespace mb
