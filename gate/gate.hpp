// The CI regression gate (docs/usage.md "gate"): what it measures. run_gate() runs a quick fixed
// experiment:
//   - accuracy cases (models x methods x a few step sizes, with the error against `ref` at the end
//     of the run), each model built once;
//   - instruction counts per step under cachegrind of every method with the timing flag
//     (MethodInfo::timing_table) on tree:joints=J, in child processes;
//   - the time signal, when asked for: one time test per method family and tree size (the methods
//     whose MethodInfo::gate_time_joints names the size), each repetition a ratio of CPU times to
//     the timing reference (`linear`) measured right before it, 15 interleaved repetitions.
// gate_ab() measures the time signal A/B instead: this build and another, each in a child
// process, their repetitions interleaved. analysis/gate_compare.hpp compares, report/gate.hpp
// formats.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "core/progress.hpp"
#include "analysis/gate_compare.hpp"
#include "records/record.hpp"
#include "report/gate.hpp"

namespace mb {

struct GateConfig {
  std::vector<std::string> models = {"pendulum10", "pendulum90", "double-pendulum"};
  std::vector<double> h = {0.01, 0.02, 0.04};
  double duration = 10;
  // empty: accuracy of every registered method but the reference method, time of each family's
  // method (MethodInfo::gate_time_joints) and of the timing reference; given: accuracy and time of
  // exactly these
  std::vector<std::string> methods;
  std::vector<int> timing_joints = {63, 255};
  // the time cases (method, joints) when given; empty: those of gate_cases()
  std::vector<std::pair<std::string, int>> time_cases;
  bool time = true;  // run_gate measures the time signal (false: accuracy and instructions alone)
  // repetitions, interleaved over the methods: at 15 + 15 the U test's smallest p (6.4e-9) stays
  // far below 0.01 after Holm's factor when a few repetitions overlap (docs/usage.md "gate")
  int timing_reps = 15;
  // A/B repetitions of each build (gate_ab): both sides are measured in the run, and a stall's
  // time varies from one repetition to the next more than a busy loop's; at 31 + 31 a 10 %
  // stall's 99 % interval clears x1.05 (docs/usage.md "The gate's goals, measured")
  int ab_reps = 31;
  double timing_rep_seconds = 10e-3;  // each repetition steps until this much CPU time has passed
  int jobs = 1;                      // accuracy cases and cachegrind runs in parallel
  bool progress = false;             // a line per phase on stderr
  // the accuracy cases' progress on stderr (a redrawn line on a terminal, a line every 10 s in a log)
  ProgressMeter::Mode case_progress = ProgressMeter::Mode::Off;
  // instruction counts: each method with the timing flag (MethodInfo::timing_table) at each size
  // it is timed at runs instruction_steps[0] and [1] steps under valgrind --tool=cachegrind in a
  // child process of `exe` (its hidden `gate-steps` command); the difference / the difference of
  // steps is per step
  bool instructions = true;
  std::vector<int> instruction_steps = {2, 6};
  std::string exe;       // the binary the children run ("" : this one)
  std::string valgrind;  // "" : found on PATH
};

// Whether the gate times a method at a tree size: at most 63 joints every method; above, only
// methods whose metadata says they scale (MethodInfo::timing_max_joints >= 1023; the dense
// O(n^3) Lagrange methods and Imp2..Imp10 take 0.1-1 s per step at 255 joints).
bool gate_times(const std::string& method, int joints);

// The (method, joints) cases of a configuration: its time tests (the timing reference first at
// each size) and its instruction counts.
struct GateCases {
  std::vector<std::pair<std::string, int>> time, instructions;
};
GateCases gate_cases(const GateConfig& cfg);

// Runs the gate's experiment; the result is what a baseline file holds for this machine
// (analysis/gate_compare.hpp: updated_baseline).
GateRecord run_gate(const GateConfig& cfg);

// Whether `other` can serve the A/B children: an executable that loads the plugins of
// MBBENCH_PLUGINS (which the children load). InputError (field "against") naming why not, with the
// other build's own error naming the plugin file it refused.
void check_other_build(const std::string& other);

// A/B of two builds on this machine: the time cases of `cfg` in a gate-serve child of this binary
// (cfg.exe) and of `other`, repetitions interleaved (the order of the two alternating), CPU seconds
// per step; with `instructions`, the counts of both builds. 2 if `other` cannot run: InputError.
std::vector<AbTiming> gate_ab(const GateConfig& cfg, const std::string& other, bool instructions);
// The same for explicit pairs: this build's method `self` against the other's `other` (a test
// compares a slowed copy of a method with the method itself).
struct AbCase {
  std::string self, other;
  int joints = 0;
};
std::vector<AbTiming> gate_ab_cases(const GateConfig& cfg, const std::string& other, const std::vector<AbCase>& cases, bool instructions);

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

// The gate's values as one JSON line of a history file (`mbbench gate --history FILE`): commit,
// date, build, machine, and values {"time/<ref> METHOD tree:joints=J": median ratio,
// "instructions METHOD tree:joints=J": per step, "ll_misses ...": per step}.
std::string gate_history_line(const GateRecord& g);

}  // namespace mb
