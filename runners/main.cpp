// The mbbench command line (docs/architecture.md). Exit codes: 0 success; 2 bad input (file, line and
// field named); 1 any other error.
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <optional>
#include <filesystem>
#include <iostream>
#include <map>
#include <string_view>

#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>
#include "analysis/conformance.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/memory.hpp"
#include "core/suggest.hpp"
#include "experiments/experiment.hpp"
#include "gate/gate.hpp"
#include "methods/method.hpp"
#include "methods/plugin.hpp"
#include "metrics/observer.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "records/store.hpp"
#include "report/report.hpp"
#include "report/listing.hpp"
#include "runners/commands.hpp"
#include "sim/run_case.hpp"
#include "sweep/mpi.hpp"
#include "sweep/sweep.hpp"

namespace fs = std::filesystem;

#ifdef MBBENCH_HAVE_BENCHMARK
namespace mb {
int run_bench_cli(const std::string& file, std::string out_dir, int reps, int max_joints, const std::string& filter, bool quiet);
}
#endif

namespace {


// The report's tables (Markdown) of records, beside the published values: --paper, or the paper
// the records' experiment names.
int cmd_table(const std::vector<std::string>& files, const std::string& out, const std::string& paper_file) {
  auto records = mb::read_records(files);
  const std::string pf = mb::records_paper(records, files, paper_file);
  std::optional<mb::Paper> paper;
  if (!pf.empty()) {
    paper = mb::read_paper(pf);
    if (paper->tables.empty())
      throw mb::InputError(pf, 0, "table",
                           "this paper file has no [[table]] of published values, which `table` sets beside the records; "
                           "its other values are for `mbbench report` (with --timing DIR for timing claims)");
  }
  std::string t = mb::markdown_tables(mb::analyse(std::move(records), paper));
  if (out.empty()) std::cout << t;
  else mb::write_file_atomic(out, t);
  return 0;
}

// A sweep's progress on stderr: a redrawn line on a terminal, else a plain line every
// --progress-every s (10); nothing with --quiet
void set_progress(mb::SweepOptions& opt, bool terminal) {
  opt.progress = terminal && !opt.quiet;
  opt.log_every = terminal || opt.quiet ? 0 : opt.log_every > 0 ? opt.log_every : 10;
}

// ", N unsupported" (cases a method refused by name: not failures) when there are any
std::string refused(long unsupported) { return unsupported ? fmt::format(", {} unsupported", unsupported) : ""; }

int cmd_sweep(const std::string& file, mb::SweepOptions opt, const std::string& shard) {
  if (shard.size()) mb::parse_shard(shard, opt.shard, opt.shards);
  if (opt.jobs < 1) throw mb::InputError("command line", 0, "jobs", fmt::format("must be at least 1, got {}", opt.jobs));
  mb::Experiment e = mb::read_experiment(mb::data_file(file));  // everything validated before any case runs
  set_progress(opt, ::isatty(STDERR_FILENO) != 0);
  auto sum = mb::run_sweep(e, opt);
  std::cout << fmt::format("sweep {}: {} cases{}: {} run now ({} failed{}), {} already done; records in {}\n", e.name, sum.cases,
                           opt.shards > 1 ? fmt::format(" (shard {}/{})", opt.shard, opt.shards) : "", sum.ran, sum.failed,
                           refused(sum.unsupported), sum.resumed, sum.records);
  return 0;
}

// mpirun -n N mbbench sweep EXPERIMENT --mpi (docs/cluster.md): every rank reads the command line and
// the experiment; rank 0 dispatches, writes and reports. Errors print once (rank 0's, or the rank's
// that alone had one) and every rank exits with the same code.
int cmd_sweep_mpi(const std::string& file, mb::SweepOptions opt, const std::string& shard) {
  mb::MpiSession mpi;  // "built without MPI" (exit code 2) when so
  mb::Experiment e;
  std::exception_ptr error;
  int code = 0;
  try {
    if (opt.jobs != 1)
      throw mb::InputError("command line", 0, "jobs",
                           "--mpi runs one case at a time per rank; start more ranks (mpirun -n N) instead of --jobs");
    if (shard.size()) mb::parse_shard(shard, opt.shard, opt.shards);
    e = mb::read_experiment(mb::data_file(file));
  } catch (const mb::InputError&) {
    error = std::current_exception();
    code = 2;
  } catch (const std::exception&) {
    error = std::current_exception();
    code = 1;
  }
  const int worst = mpi.max_over_ranks(code);
  if (worst != 0) {
    const bool rank0_failed = mpi.max_over_ranks(mpi.rank() == 0 && code != 0 ? 1 : 0) != 0;
    if (error && (mpi.rank() == 0 || !rank0_failed)) std::rethrow_exception(error);
    if (mpi.rank() == 0) std::cerr << "mbbench: error: another rank could not start the sweep (its message above)\n";
    return worst;
  }
  if (mpi.rank() != 0) opt.quiet = true;  // rank 0 writes and reports
  set_progress(opt, ::isatty(STDERR_FILENO) != 0);
  auto sum = mb::run_sweep_mpi(mpi, e, opt);
  if (sum)
    std::cout << fmt::format("sweep {}: {} cases{} over {} MPI rank(s): {} run now ({} failed{}), {} already done; records in {}\n",
                             e.name, sum->cases, opt.shards > 1 ? fmt::format(" (shard {}/{})", opt.shard, opt.shards) : "",
                             mpi.size(), sum->ran, sum->failed, refused(sum->unsupported), sum->resumed, sum->records)
              << fmt::format("cases run by rank 0, 1, ...: {}\n", fmt::join(sum->ran_by_rank, ", "));
  return 0;
}

// mbbench --version: the build, its libraries and whether MPI and Google Benchmark are in
std::string version_text() {
  const mb::Provenance p = mb::current_provenance();
  std::string flags = p.flags;
  flags.erase(0, flags.find_first_not_of(' '));
  std::string s = fmt::format("mbbench {} (commit {})\ncompiler: {}; build type: {}; flags: {}\nlibraries:", p.mbbench,
                              p.git_commit, p.compiler, p.build_type, flags);
  for (const auto& [name, version] : p.libraries) s += fmt::format(" {} {},", name, version);
  s.back() = '\n';
  const std::string mpi = mb::mpi_library();
  s += "MPI: " + (mpi.empty() ? std::string("no (built without MPI: `sweep --mpi` unavailable)") : mpi + " (sweep --mpi)");
#ifdef MBBENCH_HAVE_BENCHMARK
  s += "\nGoogle Benchmark: yes (bench)";
#else
  s += "\nGoogle Benchmark: no (built without it: `bench` unavailable)";
#endif
  return s;
}

int cmd_merge(const std::vector<std::string>& files, const std::string& out) {
  std::string notes;
  long n = mb::merge_records(files, out, &notes);
  if (!notes.empty()) std::cerr << "mbbench: note: " << notes;
  std::cout << fmt::format("merged {} records into {}\n", n, out);
  return 0;
}

// The plugins of MBBENCH_PLUGINS and of --plugin, in that order. MBBENCH_PLUGINS then names every
// plugin loaded, so that the child processes (the gate's instruction counts and A/B runs) load
// them too.
void load_cli_plugins(const std::vector<std::string>& files) {
  std::vector<std::string> all = mb::plugins_from_env();
  all.insert(all.end(), files.begin(), files.end());
  mb::load_plugins(all);
  std::string env;
  for (const mb::PluginInfo& p : mb::loaded_plugins()) env += (env.empty() ? "" : ":") + p.path;
  if (!env.empty()) ::setenv("MBBENCH_PLUGINS", env.c_str(), 1);
}

// mbbench conformance: the test suite's conformance checks (analysis/conformance.hpp) on the named
// methods or the plugins' methods; one line a check, exit 1 when one fails.
int cmd_conformance(std::vector<std::string> names, bool quick) {
  if (names.empty())
    for (const mb::PluginInfo& p : mb::loaded_plugins()) names.insert(names.end(), p.methods.begin(), p.methods.end());
  if (names.empty())
    throw mb::InputError("command line", 0, "methods", "name methods, or load a plugin with --plugin FILE.so or MBBENCH_PLUGINS");
  std::vector<const mb::MethodEntry*> entries;
  for (const std::string& n : names) {
    const mb::MethodEntry* e = mb::find_method(n);
    if (!e) {
      mb::make_method(n);  // the registry's error: the known names, the nearest one
      throw mb::InputError("command line", 0, "methods", fmt::format("'{}': a method name, without options", n));
    }
    entries.push_back(e);
  }
  long checks = 0, failed = 0;
  for (const mb::MethodEntry* e : entries) {
    std::vector<mb::ConformanceCheck> all = mb::check_options(*e);
    for (auto part : {mb::check_record(*e), mb::check_models(*e)}) all.insert(all.end(), part.begin(), part.end());
    if (!quick)
      for (auto& c : mb::check_orders(*e)) all.push_back(std::move(c));
    for (const mb::ConformanceCheck& c : all) {
      ++checks;
      failed += c.ok ? 0 : 1;
      std::cout << fmt::format("{:<4} {} {} {}: {}\n", c.ok ? "ok" : "FAIL", c.method, c.check, c.subject, c.detail);
    }
  }
  std::cout << fmt::format("conformance: {} checks on {} method(s), {} failed\n", checks, entries.size(), failed);
  return failed ? 1 : 0;
}

// What a command line CLI11 refused most likely meant: the nearest subcommand for an unknown
// first word, the nearest option of the subcommand for an unexpected --option (with the names
// other tools use for the step and the duration). Empty when nothing is near.
std::string parse_hint(const CLI::App& app, int argc, char** argv) {
  std::vector<std::string> commands;
  for (const CLI::App* sc : app.get_subcommands([](const CLI::App*) { return true; })) commands.push_back(sc->get_name());
  if (argc > 1 && argv[1][0] != '-' && std::find(commands.begin(), commands.end(), argv[1]) == commands.end()) {
    const std::string c = mb::closest_name(argv[1], commands);
    return fmt::format("unknown command '{}'{}; commands: {}", argv[1], c.empty() ? "" : "; did you mean '" + c + "'?",
                       fmt::join(commands, ", "));
  }
  const CLI::App* sub = nullptr;
  for (const CLI::App* sc : app.get_subcommands([](const CLI::App*) { return true; }))
    if (sc->parsed()) sub = sc;
  if (!sub) return "";
  std::vector<std::string> options;
  for (const CLI::Option* o : sub->get_options())
    for (const std::string& n : o->get_lnames()) options.push_back("--" + n);
  static const std::map<std::string, std::string> synonyms = {
      {"--step", "--h"}, {"--dt", "--h"}, {"--timestep", "--h"}, {"--time-step", "--h"}, {"--step-size", "--h"},
      {"--t-end", "--duration"}, {"--tend", "--duration"}, {"--t_end", "--duration"}, {"--time", "--duration"},
      {"--end", "--duration"}};
  std::string hint;
  for (int k = 2; k < argc; ++k) {
    std::string a = argv[k];
    if (a.rfind("--", 0) != 0) continue;
    a = a.substr(0, a.find('='));
    if (std::find(options.begin(), options.end(), a) != options.end()) continue;
    std::string c;
    if (auto it = synonyms.find(a); it != synonyms.end() && std::find(options.begin(), options.end(), it->second) != options.end())
      c = it->second;
    if (c.empty()) c = mb::closest_name(a, options);
    hint += fmt::format("{}`{} {}` has no option '{}'{}", hint.empty() ? "" : "; ", "mbbench", sub->get_name(), a,
                        c.empty() ? "" : "; did you mean '" + c + "'?");
  }
  return hint;
}

}  // namespace

namespace mb::cli {

std::vector<double> parse_samples(const std::string& text) {
  std::vector<double> v;
  if (text.empty()) return v;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t c = text.find(',', pos);
    std::string item = text.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    char* e = nullptr;
    double x = std::strtod(item.c_str(), &e);
    if (item.empty() || *e != '\0' || !std::isfinite(x))
      throw mb::InputError("command line", 0, "samples", fmt::format("'{}' is not a number", item));
    v.push_back(x);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return v;
}

std::vector<std::string> split_list(const std::string& text) {
  std::vector<std::string> v;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t c = text.find(',', pos);
    std::string item = text.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (!item.empty()) v.push_back(item);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return v;
}

}  // namespace mb::cli

int main(int argc, char** argv) {
  // the gate's child processes (instruction counts, A/B timing: gate/gate.hpp), not user commands
  if (argc > 1 && mb::is_gate_child(argv[1])) {
    try {
      mb::load_plugins(mb::plugins_from_env());
    } catch (const mb::InputError& e) {
      std::cerr << "mbbench: error: " << e.what() << "\n";
      return 2;
    }
    return mb::gate_child(argc - 1, argv + 1);
  }
  // glibc's allocator for large models; a run of a scene file of 16 MiB or more (about 60,000
  // bodies) executes again with huge pages, which cost a small run more than they save
  // (core/memory.hpp, docs/limits.md)
  std::error_code size_error;
  const bool large_scene = argc > 2 && std::string_view(argv[1]) == "run" &&
                           fs::file_size(argv[2], size_error) >= (std::uintmax_t{16} << 20) && !size_error;
  mb::tune_allocator(argv, large_scene);
  CLI::App app{"mbbench: benchmarking and validation of multibody-dynamics simulation methods"};
  app.require_subcommand(1);
  app.set_version_flag("--version", version_text, "print the version, the build and its libraries (MPI among them), then exit");

  bool list_json = false, list_markdown = false, list_long = false;
  std::string list_what = "all";
  auto* list = app.add_subcommand("list", "list the models, methods (with their metadata and options) and metrics");
  list->add_flag("--json", list_json, "print as JSON");
  list->add_flag("--long", list_long, "print each method's metadata, orders and options (default: one line a method)");
  list->add_flag("--markdown", list_markdown, "print as Markdown (docs/methods.md and docs/models.md are made this way)");
  list->add_option("what", list_what, "all (default), methods, models or metrics")->check(CLI::IsMember({"all", "methods", "models", "metrics"}));

  mb::cli::RunArgs run_args;
  auto* run = app.add_subcommand("run", "simulate one case and print its metrics");
  run->add_option("model", run_args.model,
                  "catalog model spec (e.g. pendulum90, chain:n=5), a .toml scene file, a .urdf robot or an MJCF .xml file, "
                  "each with its options (robot.urdf:floor=on, model.xml:contacts=off)")
      ->required();
  run->add_option("method", run_args.method, "method spec: a name from `mbbench list methods`, with options name:key=value,...")->required();
  run->add_option("--h", run_args.h, "step size in s (default: the model's; rounded to T/k for models with a period)");
  run->add_option("--duration", run_args.duration, "simulated time in s (default: the model's, 60 s)");
  run->add_option("--samples", run_args.samples, "comma-separated times at which the state is recorded");
  run->add_option("--out", run_args.out, "write the record as JSON to this file (atomically)");
  run->add_option("--append", run_args.append, "append the record as one JSON line to this file");
  run->add_option("--fail-threshold", run_args.fail_threshold, "max constraint error in m that marks the case failed (default 1)");
  run->add_flag("--no-round", run_args.no_round, "keep h as given even when the model has a period");
  run->add_flag("--no-ref", run_args.no_ref, "do not compute the error against the reference method at the sample times");
  run->add_flag("--step-series", run_args.step_series, "keep each step's correction iterations and condition in the record (step_series)");
  run->add_flag("--self-consistency", run_args.self_consistency,
                "also run the same method at h/64 and report the end states' difference (self_error, self_mescd)");
  run->add_option("--agree-with", run_args.agree_with,
                  "also run this method spec at the same h and report the largest position difference (agree_err)");
  run->add_option("--agree-time", run_args.agree_time, "s of agree_err's comparison from the start (default 0.2)");
  run->add_flag("--quiet", run_args.quiet, "print nothing on success");
  run->add_flag("--force", run_args.force, "run even above 10^8 steps (without it such a run states its step count and estimated time, exit 2)");

  std::string scene_out;
  auto* exp = app.add_subcommand("export-scene", "write any model `run` takes (catalog, scene, URDF, MJCF) as a TOML scene file");
  exp->add_option("model", run_args.model, "model spec as `run` takes it (e.g. chain:n=5, robot.urdf:base=free, ant.xml:contacts=off)")->required();
  exp->add_option("-o,--out", scene_out, "output file")->required();

  std::vector<std::string> record_files;
  std::string table_out, paper_file;
  auto* table = app.add_subcommand("table", "the report's tables (Markdown) of records (JSON lines)");
  table->add_option("records", record_files, "files of JSON-line records")->required();
  table->add_option("--out", table_out, "write the tables to this file instead of stdout");
  table->add_option("--paper", paper_file, "published values (default: the file the experiment names)");

  std::string experiment_file, shard_text;
  mb::SweepOptions sweep_opt;
  auto* sweep = app.add_subcommand("sweep", "run an experiment's cases (results/experiments/*.toml) into JSON-line records");
  sweep->add_option("experiment", experiment_file, "experiment file (TOML)")->required();
  sweep->add_option("--jobs,-j", sweep_opt.jobs, "cases run in parallel (default 1)");
  sweep->add_flag("--resume", sweep_opt.resume, "keep the finished cases of an earlier, interrupted sweep");
  sweep->add_option("--shard", shard_text, "run only shard k of N (k/N): the cases with index % N == k - 1");
  sweep->add_option("--out", sweep_opt.out_dir, "output folder (default results/out/<experiment name>)");
  bool sweep_mpi = false;
  sweep->add_flag("--quiet", sweep_opt.quiet, "no progress on stderr (default: a line redrawn on a terminal, else a line every 10 s)");
  sweep->add_option("--progress-every", sweep_opt.log_every, "seconds between progress lines when stderr is not a terminal (default 10)")
      ->check(CLI::PositiveNumber);
  sweep->add_flag("--mpi", sweep_mpi, "distribute the cases over the ranks of an MPI job (mpirun -n N mbbench sweep ... --mpi)");

  std::string merge_out;
  auto* merge = app.add_subcommand("merge", "join records files (e.g. shards): one record per case, in case order");
  merge->add_option("records", record_files, "files of JSON-line records")->required();
  merge->add_option("--out,-o", merge_out, "merged records file (written atomically)")->required();

  std::string report_dir;
  auto* report = app.add_subcommand("report", "tables beside the paper, CSV, plots and report.html from records");
  report->add_option("records", record_files, "files of JSON-line records")->required();
  report->add_option("--out,-o", report_dir, "output folder")->required();
  report->add_option("--paper", paper_file, "published values (default: the file the experiment names)");
  std::vector<std::string> report_timing;
  report->add_option("--timing", report_timing, "output folder of `mbbench bench` whose timing tables and plot to include (repeatable)")
      ->allow_extra_args(false);

  mb::cli::GateArgs gate_args;
  mb::GateConfig gate_cfg;
  auto* gate = app.add_subcommand("gate", "the CI regression gate: a quick experiment compared with a committed baseline");
  gate->add_option("--baseline", gate_args.baseline, "baseline JSON (default results/baselines/gate.json)");
  gate->add_flag("--update", gate_args.update, "write this run as the new baseline (atomically) and say what changed");
  gate->add_option("--jobs,-j", gate_cfg.jobs, "accuracy cases in parallel (default 1; timing is always serial)");
  gate->add_option("--methods", gate_args.methods, "comma-separated methods (default: every registered one but the reference method)");
  gate->add_option("--models", gate_args.models, "comma-separated accuracy models, or none (default pendulum10,pendulum90,double-pendulum)");
  gate->add_option("--h", gate_args.h, "comma-separated step sizes (default 0.01,0.02,0.04)");
  auto* gate_duration = gate->add_option("--duration", gate_args.duration, "simulated time of each accuracy case in s (default 10)");
  gate->add_option("--timing-joints", gate_args.joints, "comma-separated tree sizes timed, or none (default 63,255)");
  auto* gate_reps = gate->add_option("--timing-reps", gate_args.reps, "timing repetitions (default 15)");
  gate->add_flag("--no-instructions", gate_args.no_instructions, "do not count instructions under cachegrind");
  gate->add_option("--history", gate_args.history, "append this run's values as one JSON line to FILE");
  gate->add_option("--against", gate_args.against,
                   "time A/B: this binary against OTHER_MBBENCH (a build of the baseline's commit), interleaved; a slower method fails");
  gate->add_flag("--quiet", gate_args.quiet, "no progress on stderr (default: the phases, and the accuracy cases every 10 s)");
  gate->add_flag("--which", gate_args.which, "print this machine's key and the baseline's machines and commit, and exit");
  std::string trend_file, trend_out;
  auto* trend = app.add_subcommand("trend", "an HTML page of a gate history's values over commits, with change points");
  trend->add_option("history", trend_file, "history file of mbbench gate --history")->required();
  trend->add_option("--out,-o", trend_out, "output folder (default: trend/ beside the history)");

  std::string bench_file, bench_out, bench_filter;
  int bench_reps = 0, bench_max_joints = 0;
  auto* bench = app.add_subcommand("bench", "a timing experiment (kind = \"timing\") through Google Benchmark: raw JSON, tables, plot");
  bench->add_option("experiment", bench_file, "timing experiment file (e.g. results/experiments/bender2007.toml)")->required();
  bench->add_option("--out,-o", bench_out, "output folder (default results/out/<experiment name>)");
  auto* bench_reps_opt = bench->add_option("--repetitions", bench_reps, "repetitions of each case (default: the experiment's)");
  auto* bench_max_opt = bench->add_option("--max-joints", bench_max_joints, "time trees up to this size only");
  bench->add_option("--filter", bench_filter, "Google Benchmark --benchmark_filter regex");
  bool bench_quiet = false;
  bench->add_flag("--quiet", bench_quiet, "no progress on stderr (default: Google Benchmark's line per timed case)");

  std::vector<std::string> conformance_methods;
  bool conformance_quick = false;
  auto* conformance = app.add_subcommand("conformance", "the conformance checks of the test suite on methods (default: the plugins')");
  conformance->add_option("methods", conformance_methods, "method names (default: every method of the plugins loaded)");
  conformance->add_flag("--quick", conformance_quick, "leave out the declared-order check (the slowest)");

  // every command that resolves method names takes plugins
  std::vector<std::string> plugin_files;
  for (CLI::App* sc : {list, run, sweep, bench, gate, report, table, conformance})
    sc->add_option("--plugin", plugin_files, "load the methods of this plugin (a shared library; repeatable; also MBBENCH_PLUGINS)")
        ->allow_extra_args(false);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() != 0)
      if (const std::string hint = parse_hint(app, argc, argv); !hint.empty()) {
        std::cerr << "mbbench: error: " << hint << "\nRun with --help for more information.\n";
        return 2;
      }
    int rc = app.exit(e);
    return rc == 0 ? 0 : 2;
  }

  try {
    // a number given on the command line is in its range; only an absent one takes the default
    auto at_least = [](const CLI::Option* o, const char* field, double value, double min) {
      if (o->count() && !(value >= min && std::isfinite(value)))
        throw mb::InputError("command line", 0, field, fmt::format("must be at least {} and finite, got {}", min, value));
    };
    at_least(gate_reps, "timing_reps", gate_args.reps, 1);
    at_least(bench_reps_opt, "repetitions", bench_reps, 1);
    at_least(bench_max_opt, "max_joints", bench_max_joints, 1);
    if (gate_duration->count() && !(gate_args.duration > 0 && std::isfinite(gate_args.duration)))
      throw mb::InputError("command line", 0, "duration", fmt::format("must be positive and finite, got {}", gate_args.duration));
    load_cli_plugins(plugin_files);
    if (*conformance) return cmd_conformance(conformance_methods, conformance_quick);
    if (*list) {
      std::cout << mb::listing(list_what, list_json ? mb::ListFormat::Json : list_markdown ? mb::ListFormat::Markdown
                                                  : list_long   ? mb::ListFormat::Long
                                                                : mb::ListFormat::Text);
      return 0;
    }
    if (*exp) {
      const mb::SharedModel m = mb::build_shared_model(run_args.model);
      for (const std::string& w : m->info.warnings) std::cerr << "mbbench: warning: " << w << "\n";
      mb::write_scene(*m, scene_out);
      return 0;
    }
    if (*table) return cmd_table(record_files, table_out, paper_file);
    if (*sweep) return sweep_mpi ? cmd_sweep_mpi(experiment_file, sweep_opt, shard_text)
                                 : cmd_sweep(experiment_file, sweep_opt, shard_text);
    if (*merge) return cmd_merge(record_files, merge_out);
    if (*gate) return mb::cli::cmd_gate(gate_args, gate_cfg);
    if (*trend) {
      const std::string html = mb::write_trend(trend_file, trend_out.empty() ? (fs::path(trend_file).parent_path() / "trend").string() : trend_out);
      std::cout << "trend: " << html << "\n";
      return 0;
    }
    if (*bench) {
#ifdef MBBENCH_HAVE_BENCHMARK
      return mb::run_bench_cli(mb::data_file(bench_file), bench_out, bench_reps, bench_max_joints, bench_filter, bench_quiet);
#else
      (void)bench_reps;
      (void)bench_quiet;
      (void)bench_max_joints;
      std::cerr << "mbbench: error: built without Google Benchmark (install libbenchmark-dev and rebuild)\n";
      return 1;
#endif
    }
    if (*report) {
      std::string html = mb::write_report(record_files, report_dir, paper_file, report_timing);
      std::cout << "report: " << html << "\n";
      return 0;
    }
    if (*run) {
      run_args.h_given = run->count("--h") > 0;
      run_args.duration_given = run->count("--duration") > 0;
      return mb::cli::cmd_run(run_args, large_scene);
    }
  } catch (const mb::InputError& e) {
    std::cerr << "mbbench: error: " << e.what() << "\n";
    return 2;
  } catch (const mb::UnsupportedModel& e) {
    std::cerr << "mbbench: error: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "mbbench: error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
