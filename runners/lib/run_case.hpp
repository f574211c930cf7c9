// One case: model x method x h x duration -> a record (design.md s.6). The runner owns the clock
// (t_i = i h exactly), computes the shared StepView once per step, feeds the observers, detects
// failure, records samples, and never lets a failing case throw past it.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/model.hpp"

namespace mb {

// Readings of schmitt2005 where the paper is not explicit (README "Readings"); the defaults are the
// readings used before they became options.
enum class StepCount { Floor, Ceil, Round };  // n = floor/ceil/round(D / h): does the step crossing D count?
enum class LdPeriods { Whole, WholeWithStart, Half };  // which times LD averages |x| at (metrics/observer.hpp)
const char* to_string(StepCount s);
const char* to_string(LdPeriods p);
StepCount step_count_from(const std::string& text);  // throws std::invalid_argument listing the choices
LdPeriods ld_periods_from(const std::string& text);
const std::vector<std::string>& step_count_names();
const std::vector<std::string>& ld_periods_names();

struct RunConfig {
  double h = 0;            // requested step; 0: the model's default_h
  double duration = 0;     // s; 0: the model's default duration
  std::vector<double> samples;  // times at which the state is written into the record
  bool round_to_period = true;  // models with a period: h -> T/k, k = round(T/h)
  double fail_threshold = 1.0;  // m: max joint position error that marks a case 'fail'
  bool ref_error = true;        // with samples: error against `ref_spec` at the sample times
  std::string ref_spec = "ref";
  StepCount steps = StepCount::Floor;
  LdPeriods ld_periods = LdPeriods::Whole;
};

// Resolved step: h actually used and, for models with a period, the steps per period (even when
// LD samples half periods).
struct StepPlan {
  double h_requested = 0, h = 0, duration = 0;
  long steps = 0;
  std::optional<long> steps_per_period;
};
StepPlan plan_steps(const Model& model, const RunConfig& cfg);

// Runs one case. Bad input (unknown method, bad options, h <= 0, a sample time that is not on the
// step grid of a fixed-step method) throws InputError; a model the method cannot handle throws
// UnsupportedModel. Anything that goes wrong during the simulation is recorded as status "failed".
nlohmann::json run_case(const Model& model, const std::string& method_spec, const RunConfig& cfg);

}  // namespace mb
