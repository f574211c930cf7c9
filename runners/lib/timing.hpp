// Timing experiments (bender2007 s.6, Fig. 4; design.md s.5; README "Timing: mbbench bench"):
// the experiment file, the analysis of Google Benchmark's JSON output (median and spread per
// step over the repetitions, the phase split, the scaling exponent as a least-squares fit of log
// time on log joints) and its report: the Fig. 4 table beside the paper's times (as ratios to
// linear and as absolute times with the speed-up), and a log-log plot of time per step over joints.
// Running the benchmarks needs Google Benchmark and lives in runners/bench_run.cpp.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/fit.hpp"
#include "runners/lib/report.hpp"

namespace mb {

struct TimingMethod {
  std::string spec;
  int max_joints = 255;  // the largest tree timed (sizes 2J+1 from the first)
};

struct TimingExperiment {
  std::string file, name, description, reproduces, paper;  // paper resolved against the file's folder
  std::vector<int> joints;   // the paper's sizes; a method with max_joints beyond them continues 2J+1
  double h = 1.0 / 30;
  int repetitions = 9;
  double min_time = 0.1;     // s per repetition (Google Benchmark's --benchmark_min_time)
  std::string reference;     // the spec ratios are taken to ("linear:tol_p=1e-6,tol_v=1e-6")
  std::vector<TimingMethod> methods;
};

// Validated like every experiment file: InputError with file, line and field.
TimingExperiment read_timing_experiment(const std::string& path);
// The (spec, joints) pairs the experiment times, in order.
std::vector<std::pair<std::string, int>> timing_cases(const TimingExperiment& e);
// Google Benchmark's name of a case, and back.
std::string timing_case_name(const std::string& spec, int joints);

struct TimingPoint {
  int joints = 0;
  double median_ms = 0, min_ms = 0, max_ms = 0;
  int repetitions = 0;
  std::map<std::string, double> phases_ms;  // median over repetitions of assembly_ms, factor_ms, ...
  std::string error;                        // a benchmark that stopped with an error
};
struct TimingSeries {
  std::string spec;
  std::vector<TimingPoint> points;  // by joints
  std::optional<PowerFit> fit;      // time ~ c joints^p over the points without error
  int fit_min = 0, fit_max = 0;
};
struct TimingData {
  std::vector<TimingSeries> series;
  std::string reference;
  nlohmann::json context;  // Google Benchmark's context (machine, library) and our provenance
  std::optional<Paper> paper;
};

// Reads Google Benchmark JSON (the format tools/compare.py reads) of cases named by timing_case_name.
TimingData analyse_timing(const nlohmann::json& bench, const std::string& reference, const std::optional<Paper>& paper);

// Writers (format only): the Markdown tables, and DIR/plots/timing.{dat,gp,svg} (returns the svg
// or "" with `note` saying why not).
std::string timing_markdown(const TimingData& d);
std::string write_timing_plot(const TimingData& d, const std::string& dir, std::string* note = nullptr);

}  // namespace mb
