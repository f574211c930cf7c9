// mbbench bench EXPERIMENT: a timing experiment (experiments/experiment.hpp, analysis/timing.hpp) run serially through
// Google Benchmark (bench/step_benchmark.hpp: warm-up steps untimed, restarts untimed, phase
// counters), its raw JSON written in Google Benchmark's own format (tools/compare.py reads it),
// with our provenance in its context; then the timing tables and the log-log plot.
#include <filesystem>
#include <fstream>
#include <iostream>
#include <algorithm>
#include <cctype>
#include <iterator>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench/step_benchmark.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "experiments/experiment.hpp"
#include "records/record.hpp"
#include "report/report.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace mb {


namespace {
// --quiet: Google Benchmark's display reporter with nothing to display (the JSON file is written)
struct SilentReporter final : benchmark::BenchmarkReporter {
  bool ReportContext(const Context&) override { return true; }
  void ReportRuns(const std::vector<Run>&) override {}
};
}  // namespace

int run_bench_cli(const std::string& file, std::string out_dir, int reps, int max_joints, const std::string& filter, bool quiet) {
  TimingExperiment e = read_timing_experiment(file);
  if (reps > 0) e.repetitions = reps;
  if (out_dir.empty()) out_dir = "results/out/" + e.name;
  fs::create_directories(out_dir);
  const std::string raw = (fs::path(out_dir) / "bench.json").string();
  const Provenance prov = current_provenance();
  if (prov.build_type != "Release")
    std::cerr << "mbbench: warning: a " << prov.build_type << " build: times are not representative\n";
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"mbbench", prov.mbbench}, {"git_commit", prov.git_commit}, {"compiler", prov.compiler}, {"flags", prov.flags},
           {"build_type", prov.build_type}, {"cpu", prov.cpu}, {"date", prov.date}})
    benchmark::AddCustomContext("mbbench_" + k, v);
  benchmark::AddCustomContext("mbbench_experiment", e.file);
  benchmark::AddCustomContext("mbbench_experiment_name", e.name);
  // what `mbbench report --timing DIR` needs to analyse bench.json again (analysis/timing.hpp)
  benchmark::AddCustomContext("mbbench_reference", e.reference);
  if (!e.paper.empty()) benchmark::AddCustomContext("mbbench_paper", fs::absolute(e.paper).lexically_normal().string());
  std::string variants;
  for (const auto& v : e.method_variants) {
    if (!variants.empty()) variants += ';';
    variants += v;
  }
  benchmark::AddCustomContext("mbbench_method_variants", variants);
  const double h = e.h;
  const int run_steps = e.run_steps, warm = e.warm_steps;
  const bool per_run = e.per == "run";
  for (const TimingCase& c : timing_grid(e)) {
    if (max_joints > 0 && c.joints > max_joints) continue;
    const std::string s = c.method, model = c.model;
    const int j = c.joints;
    benchmark::RegisterBenchmark(c.name.c_str(), [s, model, j, h, run_steps, warm, per_run](benchmark::State& st) {
      step_benchmark(st, s, model, j, h, run_steps, warm, per_run);
    })
        ->Unit(benchmark::kMillisecond)
        ->UseManualTime()
        ->MinTime(e.min_time)
        ->Repetitions(e.repetitions);
  }
  std::vector<std::string> args = {"mbbench", "--benchmark_out=" + raw, "--benchmark_out_format=json"};
  if (!filter.empty()) args.push_back("--benchmark_filter=" + filter);
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  int argc = static_cast<int>(argv.size());
  benchmark::Initialize(&argc, argv.data());
  // a line per timed case on stderr, the progress of the run: stdout keeps the tables alone
  benchmark::ConsoleReporter console;
  console.SetOutputStream(&std::cerr);
  console.SetErrorStream(&std::cerr);
  SilentReporter silent;
  const size_t ran = benchmark::RunSpecifiedBenchmarks(quiet ? static_cast<benchmark::BenchmarkReporter*>(&silent) : &console);
  benchmark::Shutdown();
  if (ran == 0 && !filter.empty())
    throw InputError("command line", 0, "filter",
                     fmt::format("'{}' matches none of the {} timing cases of {} (their names: step/METHOD/MODEL/...)", filter,
                                 timing_grid(e).size(), e.file));
  if (ran == 0)
    throw InputError("command line", 0, "max_joints", fmt::format("{} is below every timing case's size in {}", max_joints, e.file));

  std::ifstream in(raw);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json bench = parse_bench_json(text, raw);
  std::optional<Paper> paper;
  if (!e.paper.empty()) paper = read_paper(e.paper);
  TimingData d = analyse_timing(bench, e.reference, paper);
  std::string md = timing_markdown(d);
  std::string note;
  std::string svg = write_timing_plot(d, out_dir, &note);
  md += svg.empty() ? "\n" + note + "\n" : "\n![time per step](plots/" + fs::path(svg).filename().string() + ")\n";
  write_file_atomic((fs::path(out_dir) / "timing.md").string(), md);
  std::cout << md << fmt::format("\nbench {}: raw results {} (Google Benchmark JSON), tables {}/timing.md\n", e.name, raw, out_dir);
  return 0;
}

}  // namespace mb
