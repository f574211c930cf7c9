// The CI regression gate (docs/usage.md "gate"). run_gate() runs a
// quick fixed experiment: accuracy cases (models x methods x a few step sizes, with the error
// against `ref` at the end of the run) and a small timing set (one step of each method on
// tree:joints=J as a ratio to `linear` measured right before it in the same repetition, median
// over 15 interleaved repetitions). compare_gate() compares such a result with a baseline (the same JSON, committed
// as results/baselines/gate.json):
//   - orders (two-point fit between the smallest and the largest h): |now - baseline| <= 0.1;
//   - ED, LD, CD_pos_mean, ref_error_max of each case: |log(now / baseline)| <= log(1.1) with both
//     values raised to a floor of 1e-12 (below it numbers are round-off); only a change for the
//     worse is a regression, a change for the better is reported as "improved";
//   - no new failures (ok in the baseline, failed now); a baseline failure that now runs is reported;
//   - time (the CPU time of the gate's thread per step, the fastest of a repetition's windows)
//     only as the ratio to the timing reference (MethodInfo::timing_reference, `linear`)
//     measured in the same repetition: the Mann-Whitney U test of this run's repetitions against
//     the baseline's, a regression when p, Holm-adjusted over the run's time tests, is below
//     0.01 and the 99 % interval of the ratio lies above 1.05;
//   - instructions per step under cachegrind (deterministic): now / baseline <= 1.01.
// Accuracy numbers are deterministic (the same build gives bit-identical records), so the
// baseline keeps them at full precision and a rerun always passes.
#pragma once
#include <iosfwd>
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
  // repetitions, interleaved over the methods: at 15 + 15 the U test's smallest p (6.4e-9) stays
  // far below 0.01 after Holm's factor of the gate's 27 tests when a few repetitions overlap
  // (docs/usage.md "gate": the goals measured)
  int timing_reps = 15;
  double timing_rep_seconds = 10e-3;  // each repetition steps until this much time has passed
  int jobs = 1;                      // accuracy cases and cachegrind runs in parallel
  bool progress = false;             // a line per phase on stderr
  // instruction counts: each timed method with the timing flag (MethodInfo::timing_table) runs
  // instruction_steps[0] and [1] steps under valgrind --tool=cachegrind in a child process of
  // `exe` (its hidden `gate-steps` command); the difference / the difference of steps is per step
  bool instructions = true;
  std::vector<int> instruction_steps = {2, 6};
  std::string exe;       // the binary the children run ("" : this one)
  std::string valgrind;  // "" : found on PATH
};

struct GateTolerances {
  double order_abs = 0.1;
  double metric_factor = 1.1;  // |log(now / baseline)| <= log(metric_factor)
  double metric_floor = 1e-12;
  // time: a change when the Mann-Whitney U test of the repetitions' ratios (now against the
  // baseline) gives a one-sided p, Holm-adjusted over the run's time tests, below
  // timing_alpha and the whole interval (interval_level) of the ratio of ratios lies beyond
  // timing_effect (either way)
  double timing_alpha = 0.01;
  double timing_effect = 1.05;
  double interval_level = 0.99;  // of the confidence interval printed
  // instructions per step: now / baseline <= instructions_factor
  double instructions_factor = 1.01;
  // A/B (gate_ab): both builds timed in the same repetitions, a smaller change is a change
  double ab_effect = 1.02;
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
  long not_measured = 0;            // baseline values this run could not measure (instructions)
};
GateComparison compare_gate(const GateRecord& baseline, const GateRecord& now, const GateTolerances& tol = {});
std::string gate_text(const GateComparison& c);

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
  std::string text;  // "x1.120, 99% CI 1.080..1.150, p = 2.1e-05 (Holm 5.3e-04 of 26 tests)"
};
TimingVerdict timing_verdict(const std::vector<double>& now, const std::vector<double>& base, const GateTolerances& tol);
// Decides a family of time tests together: every verdict's p-values are Holm-adjusted over
// the family (analysis/compare.hpp), and a change needs the adjusted p below timing_alpha and the
// whole interval beyond timing_effect. A run makes one test per timed method and size; with a
// per-test p < alpha, the chance that one of them errs grows with their number.
void decide_timing_family(std::vector<TimingVerdict>& family, const GateTolerances& tol);

// Cachegrind's output file: the instructions (Ir) and last-level misses (ILmr + DLmr + DLmw) of
// its summary line. InputError naming the file when it has none.
struct CachegrindCounts {
  double instructions = 0, ll_misses = 0;
};
CachegrindCounts parse_cachegrind(const std::string& text, const std::string& file);

// The gate's child processes; argv[0] is the command. Both the mbbench binary and the test binary
// answer them before parsing their command line:
//   gate-steps METHOD JOINTS STEPS: builds tree:joints=JOINTS and steps METHOD through the timing
//     harness (3 untimed warm-up steps, then windows of 4), for the instruction counts;
//   gate-serve: reads lines "METHOD JOINTS SECONDS" from stdin and answers each with one line, the
//     CPU time per step of one repetition (windows until SECONDS have passed) or "error: ...",
//     for the A/B timing. Timers live until stdin closes.
bool is_gate_child(const std::string& command);
int gate_child(int argc, char** argv);

// A/B of two builds on this machine (mbbench gate --against OTHER): each timed method of the gate
// at each timed size in a gate-serve child of this binary and of `other`, repetitions interleaved
// (the order of the two alternating), and the U test of this build's times against the other's:
// faster / slower / no change (tolerances: timing_alpha, ab_effect); instruction counts of both
// where both builds have them. Writes a table to `out`; returns 0 (2 if `other` cannot run).
int gate_ab(const GateConfig& cfg, const std::string& other, std::ostream& out, const GateTolerances& tol = {});

// The gate's values as one JSON line of a history file (`mbbench gate --history FILE`): commit,
// date, build, machine, and values {"time/<ref> METHOD tree:joints=J": median ratio,
// "instructions METHOD tree:joints=J": per step, "ll_misses ...": per step}.
std::string gate_history_line(const GateRecord& g);

}  // namespace mb
