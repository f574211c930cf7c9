// Timing experiments (bender2007 s.6, Fig. 4; docs/metrics.md#timing, docs/usage.md#bench):
// the experiment file, the analysis of Google Benchmark's JSON output (median and spread per
// step over the repetitions, the phase split, the scaling exponent as a least-squares fit of log
// time on log joints), and the comparison with the paper computed as data: each published time
// beside ours (ratios to the reference measured in the same run, the speed-up) and each published
// statement with our numbers (real time, relative, slowest). report/timing.cpp only formats it.
// Running the benchmarks needs Google Benchmark and lives in runners/bench_run.cpp.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"
#include "analysis/fit.hpp"

namespace mb {

// The timed model of a timing experiment's family at a size: "tree" (bender2007's tree,
// tree:joints=J) or "chain" (point masses on rods, chain:n=N), and Google Benchmark's name of a
// case, step/<spec>/<model>.
// Any other catalog family is timed over one of its integer options (`size`, e.g. spider:legs=N).
std::string timing_model_spec(const std::string& family, int joints, const std::string& size = "");
std::string timing_case_name(const std::string& spec, int joints, const std::string& family = "tree", const std::string& size = "");
// the size option of a family: joints for tree, n for chain, "" for the others (an experiment names it)
std::string timing_size_option(const std::string& family);

struct TimingPoint {
  int joints = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repetitions = 0;
  std::map<std::string, double> phases_ms;  // median over repetitions of assembly_ms, factor_ms, ...
  std::string error;                        // a benchmark that stopped with an error
  std::optional<double> ratio;              // median / the reference's median at this size (same run)
};
struct TimingSeries {
  std::string spec;
  std::vector<TimingPoint> points;  // by joints
  std::optional<PowerFit> fit;      // time ~ c joints^p over the points without error
  int fit_min = 0, fit_max = 0;
};
// A published time (ms) beside ours: what the Fig. 4 table shows, computed here (the report formats it).
struct TimingComparison {
  PaperTiming paper;
  bool ours_differs = false;          // our quantity is not exactly the paper's (solve: all iterations of a step)
  std::optional<double> paper_ratio;  // the paper's time / the paper's time of the reference (steps only)
  std::optional<double> ours_ms;      // our median of the same quantity
  std::optional<double> ours_ratio;   // ours / our reference's, same run (steps only)
  std::optional<double> speedup;      // the paper's time / ours (context only: other machine)
};
// A published statement with our numbers, per tree size measured.
struct ClaimCheck {
  enum class Kind { RealTime, Relative, Slowest };
  PaperClaim claim;
  Kind kind = Kind::Relative;
  struct Value {
    int joints = 0;
    double value = 0;   // RealTime: h / time; Relative: time(than) / time(method); Slowest: time / time(next slowest)
    double ms = 0;      // time(method)
    std::string other;  // Relative: `than`; Slowest: the next slowest method at this size
    bool slowest = false;  // Slowest: slower than every other method measured at this size
  };
  std::vector<Value> values;  // empty: not measured (see note)
  std::string note;
};
struct TimingData {
  std::vector<TimingSeries> series;
  std::string reference;
  nlohmann::json context;  // Google Benchmark's context (machine, library) and our provenance
  std::optional<Paper> paper;
  double h_ms = 1000.0 / 30;             // the simulated time per step (the paper's h; real time)
  std::string paper_machine;             // the paper's [context] machine
  std::vector<TimingComparison> beside_paper;  // every published time
  std::vector<ClaimCheck> claims;              // every published statement
};

// Reads Google Benchmark JSON (the format tools/compare.py reads) of cases named by timing_case_name.
TimingData analyse_timing(const nlohmann::json& bench, const std::string& reference, const std::optional<Paper>& paper);

// Google Benchmark writes NaN (e.g. the cv of a zero counter) as a bare nan, which is not JSON:
// parses its output with such values as null.
nlohmann::json parse_bench_json(const std::string& text, const std::string& file);

// The output folder of `mbbench bench`: DIR/bench.json with the reference and the published values
// named in its context (mbbench_reference, mbbench_paper), analysed. InputError if there is none.
TimingData analyse_bench_dir(const std::string& dir);


}  // namespace mb
