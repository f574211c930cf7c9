// Experiment files (TOML, results/experiments/*.toml; format in docs/experiments.md). The one
// reader of experiment files, for both kinds: accuracy sweeps and timing experiments.
// models x method specs x step sizes x readings, the duration, the metrics to tabulate and plot,
// the paper table or figure reproduced and the fit. The whole file is validated before any case
// runs: every model is built, every method made, every step planned; any problem is an
// InputError naming the file, the line and the field.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "records/record.hpp"
#include "sim/driver.hpp"

namespace mb {

// A model built from its spec once and shared read-only by every case that runs on it: a Model
// is immutable (a method reads it and keeps its own state), so the cases of a set, on any thread,
// see the same model without building it again. The one way sweep/ and gate/ get a model.
using SharedModel = std::shared_ptr<const Model>;
SharedModel build_shared_model(const std::string& spec, const std::string& source = "command line", int line = 0);

struct Experiment {
  std::string file;         // path as given
  std::string hash;         // of the file's bytes (experiment_hash): which shards may be merged
  std::string name;         // names the output folder and goes into every record
  std::string description;
  std::string reproduces;   // which paper table or figure ("schmitt2005 s.6 ...")
  std::string paper;        // published values (results/paper/*.toml), resolved against the file's folder
  std::vector<std::string> models, methods;  // specs
  std::vector<SharedModel> built;  // models[i] built (parse_experiment builds each once)
  std::vector<double> h;    // nominal step sizes; empty: each model's default grid
  double duration = 0;      // s; 0: each model's default
  bool step_series = false; // every record keeps each step's iterations and condition (records' step_series)
  std::vector<std::string> metrics;  // record metrics to tabulate and plot
  // agree_err: the method spec every case is compared with, over the first agree_time s
  std::string agree_with;
  double agree_time = kAgreeTime;
  // a numeric method option (budget): the report draws each metric over its value too, one line
  // per method spec without it (empty: figures over h only)
  std::string x_option;
  // fit: the paper's two-point fit at h1, h2 with the simulated or the nominal steps
  double fit_h1 = 0.005, fit_h2 = 0.04;
  FitH fit_h = FitH::Simulated;
  // run readings; more than one value sweeps them (README "Readings")
  std::vector<StepCount> steps = {StepCount::Floor};
  std::vector<LdPeriods> ld_periods = {LdPeriods::Whole};
};

// One case of the grid. `id` is stable (made of the case's inputs), `index` is its place in the
// deterministic expansion order: models, then methods, then readings, then h (innermost).
struct Case {
  long index = 0;
  std::string id;
  std::string model, method;  // specs
  SharedModel built;           // `model` built, shared with the experiment and its other cases
  double h_nominal = 0;
  RunConfig cfg;
};

Experiment read_experiment(const std::string& path);
// FNV-1a 64 of an experiment file's text, 16 hex digits: an identity, not a security hash.
std::string experiment_hash(const std::string& text);
Experiment parse_experiment(const std::string& text, const std::string& path);
std::vector<Case> expand_cases(const Experiment& e);

// What goes into every record of the experiment (name, file, fit, metrics, ...), without the case.
ExperimentRef experiment_ref(const Experiment& e);

// --- timing experiments (kind = "timing"): bender2007 s.6, Fig. 4 ---
struct TimingMethod {
  std::string spec;
  int max_joints = 255;  // the largest tree timed (sizes 2J+1 from the first)
};

struct TimingExperiment {
  std::string file, name, description, reproduces, paper;  // paper resolved against the file's folder
  std::string model = "tree";  // the catalog family timed: "tree" (tree:joints=J), "chain" (chain:n=N), or any other
  std::string size;            // its integer option set to each size (tree: joints, chain: n; others: named in the file)
  std::vector<int> joints;   // the paper's sizes; a method with max_joints beyond them continues 2J+1
  double h = 1.0 / 30;
  int repetitions = 9;
  double min_time = 0.1;     // s per repetition (Google Benchmark's --benchmark_min_time)
  std::string reference;     // the method spec the ratios are taken to (one of the [[method]] specs)
  std::vector<TimingMethod> methods;
  // variants (bayer2009 s.5): each model variant (the family's other options, "scenario=2,ext=1")
  // and each method variant (options added to every method spec, "vc=on") is timed at every size;
  // a ratio is taken to the reference with the same variants. Empty: none.
  std::vector<std::string> model_variants, method_variants;
  // what one Google Benchmark iteration times: "step" (one step of a run restarted every run_steps
  // steps, the first warm_steps untimed) or "run" (the whole run of run_steps steps after the
  // warm_steps; reported per step)
  std::string per = "step";
  int run_steps = 60, warm_steps = 3;
};

// One timed case: the method spec (with its method variant), the model spec, and their parts.
struct TimingCase {
  std::string method, base, method_variant;  // method = base with method_variant's options
  std::string model, model_variant;          // model = family:model_variant,size=joints
  int joints = 0;
  std::string name;                          // Google Benchmark's name (timing_case_name)
};

// The kind of an experiment file: "accuracy" (the default; read_experiment) or "timing"
// (read_timing_experiment). Both are validated the same way: InputError with file, line, field.
std::string experiment_kind(const std::string& path);
TimingExperiment read_timing_experiment(const std::string& path);
// The (spec, joints) pairs the experiment times, in order.
std::vector<std::pair<std::string, int>> timing_cases(const TimingExperiment& e);
// Every case of the experiment: model variants x (method, size) pairs x method variants.
std::vector<TimingCase> timing_grid(const TimingExperiment& e);

}  // namespace mb
