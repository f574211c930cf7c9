// The simulation driver (docs/architecture.md): the one loop that steps a method. run, sweep, bench,
// gate, the reference trajectory and the tests all step through simulate().
//
// The clock. Step i ends at t_i = t0 + i h, computed from the step index, never accumulated:
// after 10^7 steps t is exactly 10^7 h (as a double product). A method's own update of state.t is
// overwritten by the driver's clock after every step.
//
// The step count. A run of duration D with step h has n steps (plan_steps):
//   floor (default): the steps that end at or before D, n = floor(D/h (1 + 1e-12)); a step that
//                    would cross D is not taken, so the run ends at n h <= D;
//   ceil:            the step that crosses D counts too, n = ceil(D/h (1 - 1e-12)), so n h >= D;
//   round:           it counts when it ends nearer than h/2 past D, n = round(D/h).
// The relative 1e-12 absorbs the round-off of D/h when D is a whole multiple of h.
// For a model with a known period T, h is rounded to T/k with k = round(T/h) (round_to_period).
//
// Divergence. After each step the driver checks that the state is finite and that the largest
// joint position error is at most fail_threshold (1 m, schmitt2005's 'fail'); a SimulationError
// thrown by the method ends the run too. The run stops there with the failure's reason and
// time. The observers hold every step up to and including the failing one when the threshold
// was exceeded (so a failed record's CD_pos_max is at least the error that failed it), and the
// steps before it when the state became non-finite or the method threw.
//
// Limits (input errors): h and the duration positive and finite, h at most the duration, the
// duration at most kMaxDuration, at most kMaxSteps steps, fail_threshold positive and finite.
#pragma once
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "methods/method.hpp"
#include "metrics/observer.hpp"
#include "models/model.hpp"
#include "records/record.hpp"

namespace mb {

// Readings of schmitt2005 where the paper is not explicit (docs: experiments): the step count,
// and the times at which LD averages |x|.
enum class StepCount { Floor, Ceil, Round };
enum class LdPeriods { Whole, WholeWithStart, Half };
const char* to_string(StepCount s);
const char* to_string(LdPeriods p);
StepCount step_count_from(const std::string& text);  // throws std::invalid_argument listing the choices
LdPeriods ld_periods_from(const std::string& text);
const std::vector<std::string>& step_count_names();
const std::vector<std::string>& ld_periods_names();

// What a run asks for; 0 means the model's default.
struct RunConfig {
  double h = 0;                 // requested step, s
  double duration = 0;          // s
  std::vector<double> samples;  // times at which the state is written into the record
  bool sample_end = false;      // also sample the end of the run, t = steps h (scd, mescd there; experiments naming them)
  bool round_to_period = true;  // models with a period: h -> T/k, k = round(T/h)
  double fail_threshold = 1.0;  // m: the largest joint position error before a case fails
  bool ref_error = true;        // with samples: the error against the reference at the sample times
  std::string ref_spec;         // the reference method; empty: the registry's reference method
  bool self_consistency = false;  // also run the method at h / 64 and compare the end states (self_error)
  bool step_series = false;     // record each step's iterations and condition (tomcin2014 Figure 3)
  // agree_err: also run this method spec at the same h over the first agree_time s and compare
  // the positions at every step (empty: no such run)
  std::string agree_with;
  double agree_time = kAgreeTime;  // s
  StepCount steps = StepCount::Floor;
  LdPeriods ld_periods = LdPeriods::Whole;
  // called every kProgressEvery steps with the steps done and the total (the fine run of the
  // self-consistency error included); none: not called
  std::function<void(long done, long total)> progress;
  // called once run_case knows the method supports the model, before the run's state and the
  // method's setup are made (mbbench run faults their memory in ahead: core/memory.hpp); none: not
  // called
  std::function<void()> before_setup;
};
constexpr long kProgressEvery = 64;

// The resolved step plan: h actually used and, for models with a period, the steps per period.
struct StepPlan {
  double h_requested = 0, h = 0, duration = 0;
  double t0 = 0;  // the time the run starts at
  long steps = 0;
  std::optional<long> steps_per_period;
};
// Throws InputError (field "h" or "duration", source as given) when h or the duration is not a
// positive finite number or the step count is below 1 or above kMaxSteps.
StepPlan plan_steps(const Model& model, const RunConfig& cfg, const std::string& source = "command line", int line = 0);
// (kMaxSteps and kMaxDuration: models/model.hpp, where scene files are checked against them too)

struct DriverOptions {
  double fail_threshold = 1.0;
  // times strictly between grid points where an adaptive method (MethodInfo::fixed_step false)
  // also stops, sorted; the observers see them through observe_stop()
  std::vector<double> stops;
  bool step_series = false;  // record each step's iterations and condition (RunOutcome::series)
};

struct RunOutcome {
  long steps_done = 0;
  std::optional<std::string> failure;  // the reason
  double fail_time = 0;
  StatsSummary stats;  // sums over the steps, and the last residuals
  CaseTiming timing;   // wall time of the steps (not of the observers)
  std::optional<StepSeries> series;  // with DriverOptions::step_series
};

// Steps `method` (already initialised on `state`) through plan.steps steps of plan.h from
// plan.t0, calling every observer: begin() with the initial view, observe() after each step,
// observe_stop() at the extra stops. Never throws for a numerical failure: that is the outcome.
RunOutcome simulate(const Model& model, Method& method, State& state, const StepPlan& plan,
                    const std::vector<Observer*>& observers, const DriverOptions& opt = {});

}  // namespace mb
