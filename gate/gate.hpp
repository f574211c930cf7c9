// The CI regression gate (docs/usage.md "gate"). run_gate() runs a
// quick fixed experiment: accuracy cases (models x methods x a few step sizes, with the error
// against `ref` at the end of the run) and a small timing set (one step of each method on
// tree:joints=J as a ratio to `linear` measured right before it in the same repetition, median
// over >= 9 interleaved repetitions). compare_gate() compares such a result with a baseline (the same JSON, committed
// as results/baselines/gate.json):
//   - orders (two-point fit between the smallest and the largest h): |now - baseline| <= 0.1;
//   - ED, LD, CD_pos_mean, ref_error_max of each case: |log(now / baseline)| <= log(1.1) with both
//     values raised to a floor of 1e-12 (below it numbers are round-off); only a change for the
//     worse is a regression, a change for the better is reported as "improved";
//   - no new failures (ok in the baseline, failed now); a baseline failure that now runs is reported;
//   - timing only as the ratio to the timing reference (MethodInfo::timing_reference, `linear`)
//     measured in the same run: now / baseline <= 3 (slower by more is a regression).
// Accuracy numbers are deterministic (the same build gives bit-identical records), so the
// baseline keeps them at full precision and a rerun always passes.
#pragma once
#include <string>
#include <vector>

#include "records/record.hpp"

namespace mb {

struct GateConfig {
  std::vector<std::string> models = {"pendulum10", "pendulum90", "double-pendulum"};
  std::vector<double> h = {0.01, 0.02, 0.04};
  double duration = 10;
  std::vector<std::string> methods;  // empty: every registered method but the reference method
  std::vector<int> timing_joints = {63, 255};
  int timing_reps = 9;               // repetitions (>= 9 by default), interleaved over the methods
  double timing_rep_seconds = 10e-3;  // each repetition steps until this much time has passed
  int jobs = 1;                      // accuracy cases in parallel
  bool progress = false;             // a line per phase on stderr
};

struct GateTolerances {
  double order_abs = 0.1;
  double metric_factor = 1.1;  // |log(now / baseline)| <= log(metric_factor)
  double metric_floor = 1e-12;
  double timing_factor = 3.0;  // ratio to linear: now / baseline <= timing_factor
};

// Whether the gate times a method at a tree size: at most 63 joints every method; above, only
// methods whose metadata says they scale (MethodInfo::timing_max_joints >= 1023; the dense
// O(n^3) Lagrange methods and Imp2..Imp10 take 0.1-1 s per step at 255 joints).
bool gate_times(const std::string& method, int joints);

// Runs the gate's experiment; the result is what a baseline file holds.
GateRecord run_gate(const GateConfig& cfg);

struct GateRow {
  std::string metric, kase, baseline, now, tolerance, verdict;
  bool regression = false;
};
struct GateComparison {
  std::vector<GateRow> rows;        // what moved (bit-identical values are not listed)
  std::vector<std::string> notes;   // new methods, unregistered ones, skipped cases, ...
  long compared = 0, regressions = 0, improved = 0;
};
GateComparison compare_gate(const GateRecord& baseline, const GateRecord& now, const GateTolerances& tol = {});
std::string gate_text(const GateComparison& c);

}  // namespace mb
