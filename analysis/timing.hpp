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
// A model variant (the family's other options, "scenario=2,ext=1") goes before the size:
// family:variant,size=N.
std::string timing_model_spec(const std::string& family, int joints, const std::string& size = "", const std::string& variant = "");
std::string timing_case_name(const std::string& spec, int joints, const std::string& family = "tree", const std::string& size = "",
                             const std::string& variant = "");
// `spec` with `options` added ("m" + "vc=on" -> "m:vc=on"; "m:x=1" -> "m:x=1,vc=on")
std::string with_options(const std::string& spec, const std::string& options);
// The label of a series: its method spec, and " @ " and its model variant when it has one.
std::string series_label(const std::string& spec, const std::string& model_variant);
// the size option of a family: joints for tree, n for chain, "" for the others (an experiment names it)
std::string timing_size_option(const std::string& family);

struct TimingPoint {
  int joints = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repetitions = 0;
  std::map<std::string, double> counters;  // median over repetitions of each benchmark counter (records/counters.hpp)
  std::string error;                        // a benchmark that stopped with an error
  std::optional<double> ratio;              // median / the reference's median at this size (same run)
};
struct TimingSeries {
  std::string spec;                   // series_label(method, model_variant)
  std::string method, model_variant;  // the method spec timed, the model's variant ("" if none)
  std::string base, method_variant;   // method = with_options(base, method_variant)
  std::vector<TimingPoint> points;  // by joints
  std::optional<PowerFit> fit;      // time ~ c joints^p over the points without error (3 sizes or more)
  int fit_min = 0, fit_max = 0;
  std::string fit_note;             // without a fit: why (fewer than 3 sizes measured)
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
// A published statement with our numbers, per tree size measured, and whether they agree.
// The test a statement's relation names (claim_test): "slowest" -> Slowest; "not ..." -> Below
// (value < factor); "nearly the same" -> Same (0.8 <= value <= 1.25); "more than" -> Above
// (value > factor); "about", "almost", "nearly" -> About (0.8 factor <= value <= 1.25 factor for a
// ratio of two methods; value >= 0.8 factor for a real-time factor, which a faster machine only
// raises); otherwise AtLeast (value >= factor). A statement agrees when every size it is about
// passes (its `joints`, or every size measured).
struct ClaimCheck {
  enum class Kind { RealTime, Relative, Slowest };
  enum class Test { AtLeast, Above, About, Below, Same, Slowest };
  enum class Verdict { Agrees, Contradicts, NotMeasured };
  PaperClaim claim;
  Kind kind = Kind::Relative;
  Test test = Test::AtLeast;
  Verdict verdict = Verdict::NotMeasured;
  std::string rule;  // the test as text: "h / time >= 0.8 x 3"
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
const char* to_string(ClaimCheck::Verdict v);
ClaimCheck::Test claim_test(const std::string& relation);
// Over the cases of an experiment with variants (bayer2009 Table 1): the speed-up of a method
// (the base spec) = the reference's time / its time with the same variants and size; its best,
// worst and mean over the cases, beside the published summary.
struct SpeedupSummary {
  std::string base;
  int cases = 0;
  double best = 0, worst = 0, average = 0;
  std::string best_case, worst_case;  // "model variant, method variant"
  std::optional<PaperSpeedup> paper;
};
// A published runtime in percent of the reference (bayer2009 Figures 2, 3) with ours over the
// same selection of cases: the mean (average), the smallest (best) or the largest (worst) percent.
struct PercentCheck {
  PaperPercent paper;
  std::optional<double> ours;
  int cases = 0;
  std::string our_case;  // best / worst: where ours is
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
  std::vector<std::string> method_variants;    // the experiment's (bench.json context)
  bool variants = false;                       // some series has a model or method variant
  std::vector<SpeedupSummary> speedups;        // per base method (not the reference), with variants
  std::vector<PercentCheck> percents;          // every published percent
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
