// The CI gate's comparisons (docs/usage.md "gate"): a gate run (gate/gate.hpp) against a baseline,
// and the time of two builds measured A/B, turned into rows with verdicts. Pure functions over
// typed records; the gate measures, report/gate.hpp formats.
//   - orders (two-point fit between the smallest and the largest h): |now - baseline| <= 0.1;
//   - ED, LD, CD_pos_mean, ref_error_max of each case: |log(now / baseline)| <= log(1.1) with both
//     values raised to a floor of 1e-12 (below it numbers are round-off); only a change for the
//     worse is a regression, a change for the better is reported as "improved";
//   - no new failures (ok in the baseline, failed now); a baseline failure that now runs is reported;
//   - time, against the baseline of this machine: the ratio to the timing reference measured in
//     the same repetition, the Mann-Whitney U test of this run's repetitions against the
//     baseline's, a regression when p, Holm-adjusted over the run's time tests, is below 0.01 and
//     the 99 % interval of the ratio lies above 1.05;
//   - time, A/B against another build on this machine: the same test and rule on the CPU time per
//     step of the two builds, measured interleaved;
//   - instructions per step under cachegrind (deterministic): now / baseline <= 1.01.
// A baseline file keeps the accuracy cases and instruction counts once and the time values per
// machine (GateRecord::machines), since a ratio of a dense method's time to a sparse one's does
// not carry from one CPU to another.
#pragma once
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "records/record.hpp"

namespace mb {

// The metrics of an accuracy case the gate compares: ED, LD, CD_pos_mean, ref_error_max.
const std::vector<std::string>& gate_metrics();

struct GateTolerances {
  double order_abs = 0.1;
  double metric_factor = 1.1;  // |log(now / baseline)| <= log(metric_factor)
  double metric_floor = 1e-12;
  // time: a change when the Mann-Whitney U test of the repetitions (now against the baseline, or
  // this build against the other) gives a one-sided p, Holm-adjusted over the run's time tests,
  // below timing_alpha and the whole interval (interval_level) of the ratio lies beyond
  // timing_effect (either way)
  double timing_alpha = 0.01;
  double timing_effect = 1.05;
  double interval_level = 0.99;  // of the confidence interval printed
  // instructions per step: now / baseline <= instructions_factor
  double instructions_factor = 1.01;
};

// The time verdict of two samples of a method's timings (ratios or seconds; `now` against
// `base`): the U test, the estimated ratio now / base with its interval, and slower / faster /
// no change by the tolerances, as a family of one test.
struct TimingVerdict {
  double p_slower = 1, p_faster = 1;
  // Holm-adjusted over the family of the run's time tests (each direction its own family)
  double p_slower_adjusted = 1, p_faster_adjusted = 1;
  size_t family = 1;
  double ratio = 1, low = 1, high = 1;
  int change = 0;  // +1 slower, -1 faster, 0 no change
  double level = 0.99;  // of the interval [low, high]
};
// What a row found; report/gate.hpp words it (gate_verdict_text).
enum class GateVerdict {
  NewMethod,     // a method the baseline does not have
  Unregistered,  // a baseline method no longer registered
  Missing,       // a baseline case this run selected and did not run
  NewlyFailed,   // ok in the baseline, failed now (a regression)
  Fixed,         // failed in the baseline, ok now
  MetricChanged, // a metric in one of the two only
  Within,        // moved within the tolerance
  Worse,         // a metric worse beyond its factor (a regression); value: the factor
  Better,        // a metric better beyond its factor; value: the factor
  OrderMoved,    // an order beyond its tolerance (a regression); value: now - baseline
  CountUp,       // instructions per step above the factor (a regression); value: now / baseline - 1
  CountDown,     // instructions per step below 1 / the factor; value as CountUp
  CountWithin,   // instructions per step moved within the factor; value as CountUp
  NotMeasured,   // a baseline instruction count this run could not measure
  Slower,        // a time test found it slower (a regression); timing holds the test
  Faster,        // a time test found it faster
  TimeWithin,    // a time test found no change
  NotTimed,      // this build could not time the case (a regression); reason: why
  NotCompared,   // the other build could not time the case; reason: why
};
struct GateRow {
  std::string metric, kase, baseline, now, tolerance;
  GateVerdict verdict = GateVerdict::Within;
  bool regression = false;
  double value = 0;  // the verdict's number (GateVerdict)
  std::optional<TimingVerdict> timing;  // Slower, Faster, TimeWithin
  // Count*: the last-level cache misses per step (baseline, now), where counted; time A/B: the
  // instructions per step of the other build and of this one, where counted
  std::optional<std::pair<double, double>> ll_misses, instructions;
  std::string reason;  // NotTimed, NotCompared
};
// What a gate run found, and which of its signals gated.
struct GateComparison {
  std::vector<GateRow> rows;        // what moved (bit-identical values are not listed)
  std::vector<std::string> notes;   // new methods, unregistered ones, skipped cases, ...
  std::vector<std::string> signals;  // "accuracy", "instructions", "time (...)": what gated
  long compared = 0, regressions = 0, improved = 0;
  long not_measured = 0;            // baseline values this run could not measure (instructions)
};
GateComparison compare_gate(const GateRecord& baseline, const GateRecord& now, const GateTolerances& tol = {});

// The baseline as one machine sees it: the accuracy cases and instruction counts of `baseline`,
// with the time values of the entry of machine `key` (none: no time values, and *entry null).
GateRecord baseline_for_machine(const GateRecord& baseline, const std::string& key, const GateMachine** entry = nullptr);
// A baseline file after `mbbench gate --update` on the machine of `run`: the accuracy cases and
// instruction counts of `run`, this machine's entry added or replaced by run's time values, and
// the other machines' entries kept while every instruction count of `run` lies within the
// tolerance of the old baseline's (the code they timed is the code now); otherwise they are
// dropped, each with a note.
GateRecord updated_baseline(const std::optional<GateRecord>& old, const GateRecord& run, std::vector<std::string>& notes,
                            const GateTolerances& tol = {});

// The TimingVerdict of `now` against `base` (above), a family of one.
TimingVerdict timing_verdict(const std::vector<double>& now, const std::vector<double>& base, const GateTolerances& tol);
// Decides a family of time tests together: every verdict's p-values are Holm-adjusted over
// the family (analysis/compare.hpp), and a change needs the adjusted p below timing_alpha and the
// whole interval beyond timing_effect. A run makes one test per timed method and size; with a
// per-test p < alpha, the chance that one of them errs grows with their number.
void decide_timing_family(std::vector<TimingVerdict>& family, const GateTolerances& tol);

// One case of an A/B time measurement: CPU seconds per step of this build and of the other, one
// value per interleaved repetition, and the instructions per step of both where counted.
struct AbTiming {
  std::string method;  // as this build runs it
  int joints = 0;
  std::vector<double> self, other;
  std::string failure;  // "" : both timed
  std::optional<double> self_instructions, other_instructions;
  // this build's method does not run the timing tree (failure: why): not timed, and not a
  // regression, as a method the baseline path skips by its features
  bool unsupported = false;
};
// Adds a row per A/B case to `c` ("time A/B", its verdict; a slower verdict is a regression), the
// tests decided as one family (Holm), and the signal's name to c.signals.
void compare_ab(const std::vector<AbTiming>& ab, const std::string& other, GateComparison& c, const GateTolerances& tol = {});

}  // namespace mb
