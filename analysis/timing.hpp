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

#include "analysis/analysis.hpp"
#include "analysis/fit.hpp"

namespace mb {

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


}  // namespace mb
