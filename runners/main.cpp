// The mbbench command line (docs/architecture.md). Exit codes: 0 success; 2 bad input (file, line and
// field named); 1 any other error.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <optional>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <set>
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


std::string fmt_num(std::optional<double> v) { return v ? fmt::format("{:.6e}", *v) : std::string("-"); }
// a metric's value with its unit (metrics/ holds the units)
std::string fmt_metric(const mb::Metrics& m, const std::string& name) {
  const auto v = m.get(name);
  const std::string& unit = mb::metric_unit(name);
  return v && !unit.empty() ? fmt_num(v) + " " + unit : fmt_num(v);
}

// seconds as a reader reads them: s, min, h or days
std::string fmt_duration(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 2 * 3600) return fmt::format("{:.0f} min", s / 60);
  if (s < 2 * 86400) return fmt::format("{:.1f} h", s / 3600);
  return fmt::format("{:.1f} days", s / 86400);
}

void print_summary(const mb::CaseRecord& r, const std::string& model_arg) {
  const mb::Metrics& m = r.metrics;
  namespace metric = mb::metric;
  std::cout << fmt::format("model {}  method {}  h = {:.12g} s (requested {:.12g})  steps {}/{}\n", model_arg, r.method.spec, r.h,
                           r.h_requested, r.steps_done, r.steps);
  std::cout << "status: " << mb::to_string(r.status);
  if (!r.ok()) std::cout << fmt::format(" ({} at t = {:.6g} s)", r.reason, r.fail_time);
  std::cout << "\n";
  std::cout << fmt::format("ED   = {}\nEID  = {}\n", fmt_metric(m, metric::ED), fmt_metric(m, metric::EID));
  if (m.get(metric::LD) || m.note_of(metric::LD)) {
    std::cout << "LD   = " << fmt_metric(m, metric::LD);
    if (auto p = m.get(metric::LD_periods))
      std::cout << fmt::format("  ({:.0f} periods of {:.0f} steps)", *p, m.get(metric::LD_steps_per_period).value_or(0));
    if (const std::string* why = m.note_of(metric::LD)) std::cout << "  (" << *why << ")";
    std::cout << "\n";
  }
  std::cout << fmt::format("constraint drift: position mean {} max {}; velocity mean {} max {}\n",
                           fmt_metric(m, metric::CD_pos_mean), fmt_metric(m, metric::CD_pos_max),
                           fmt_metric(m, metric::CD_vel_mean), fmt_metric(m, metric::CD_vel_max));
  if (m.get(metric::ref_error_max))
    std::cout << "max position error against the reference at the samples: " << fmt_metric(m, metric::ref_error_max) << "\n";
  else if (const std::string* why = m.note_of(metric::ref_error_max))
    std::cout << "no position error against the reference: " << *why << "\n";
  if (auto d = m.get(metric::scd))
    std::cout << fmt::format("significant correct digits at t = {:.6g} s (the last sample) against the reference: scd = {:.3f}, "
                             "mescd = {:.3f}\n",
                             r.samples.empty() ? r.h * static_cast<double>(r.steps) : r.samples.back().t, *d,
                             m.get(metric::mescd).value_or(0));
  if (r.ref_error && !r.ref_error->note.empty()) std::cout << r.ref_error->note << "\n";
  if (m.get(metric::self_error))
    std::cout << fmt::format("self-consistency at the end (against h/64): {}, mescd = {:.3f}\n", fmt_metric(m, metric::self_error),
                             m.get(metric::self_mescd).value_or(0));
  else if (const std::string* why = m.note_of(metric::self_error))
    std::cout << "self-consistency: " << *why << "\n";
  // the model's own metrics (its observers': walk_distance, PEN_max, ...) and the rest of the record's
  static const std::set<std::string> shown = {metric::ED, metric::EID, metric::LD, metric::LD_periods, metric::LD_steps_per_period,
                                              metric::CD_pos_mean, metric::CD_pos_max, metric::CD_vel_mean, metric::CD_vel_max,
                                              metric::ref_error_max, metric::scd, metric::mescd, metric::self_error, metric::self_mescd};
  for (const auto& [name, value] : m.values) {
    const mb::MetricInfo* info = mb::metric_info(name);
    if (!shown.count(name) && info && info->name == name) std::cout << fmt::format("{:<4} = {}\n", name, fmt_metric(m, name));
  }
  std::cout << fmt::format("fail: {}\n", r.status == mb::Status::Failed ? "yes" : "no");
}

// A run of more steps than this states its step count and estimated time and needs --force.
constexpr long kForceSteps = 100'000'000;

// The wall time per step of `method` on `model` at the plan's h, from a short run of the same case
// (no samples, no reference), lengthened tenfold until it takes kProbeSeconds.
double seconds_per_step(const mb::Model& model, const std::string& method, const mb::RunConfig& cfg, const mb::StepPlan& plan) {
  constexpr double kProbeSeconds = 0.2;
  mb::RunConfig probe;
  probe.h = plan.h;
  probe.round_to_period = false;
  probe.ref_error = false;
  probe.fail_threshold = cfg.fail_threshold;
  double per_step = 0;
  for (long n = 100; n <= plan.steps; n *= 10) {
    probe.duration = static_cast<double>(n) * plan.h;
    const auto t0 = std::chrono::steady_clock::now();
    const mb::CaseRecord r = mb::run_case(model, method, probe);
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    per_step = s / static_cast<double>(std::max(r.steps_done, 1L));
    if (s >= kProbeSeconds || r.steps_done < r.steps) break;
  }
  return per_step;
}

// The progress line of a run on a terminal: from kProgressAfter seconds on, redrawn at most twice
// a second; cleared at the end.
class ProgressLine {
 public:
  void operator()(long done, long total) {
    const auto now = std::chrono::steady_clock::now();
    const double elapsed = std::chrono::duration<double>(now - start_).count();
    if (elapsed < kProgressAfter || now - last_ < std::chrono::milliseconds(500) || done <= 0) return;
    last_ = now;
    const double f = static_cast<double>(done) / static_cast<double>(total);
    std::fprintf(stderr, "\rrun: %5.1f %% of %ld steps, %s elapsed, about %s left\033[K", 100 * f, total,
                 fmt_duration(elapsed).c_str(), fmt_duration(elapsed * (1 - f) / f).c_str());
    std::fflush(stderr);
    shown_ = true;
  }
  void clear() {
    if (shown_) std::fputs("\r\033[K", stderr);
    shown_ = false;
  }
  ~ProgressLine() { clear(); }

 private:
  static constexpr double kProgressAfter = 3;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_;
  bool shown_ = false;
};

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

int cmd_sweep(const std::string& file, mb::SweepOptions opt, const std::string& shard) {
  if (shard.size()) mb::parse_shard(shard, opt.shard, opt.shards);
  if (opt.jobs < 1) throw mb::InputError("command line", 0, "jobs", fmt::format("must be at least 1, got {}", opt.jobs));
  mb::Experiment e = mb::read_experiment(mb::data_file(file));  // everything validated before any case runs
  set_progress(opt, ::isatty(STDERR_FILENO) != 0);
  auto sum = mb::run_sweep(e, opt);
  std::cout << fmt::format("sweep {}: {} cases{}: {} run now ({} failed), {} already done; records in {}\n", e.name, sum.cases,
                           opt.shards > 1 ? fmt::format(" (shard {}/{})", opt.shard, opt.shards) : "", sum.ran, sum.failed,
                           sum.resumed, sum.records);
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
    std::cout << fmt::format("sweep {}: {} cases{} over {} MPI rank(s): {} run now ({} failed), {} already done; records in {}\n",
                             e.name, sum->cases, opt.shards > 1 ? fmt::format(" (shard {}/{})", opt.shard, opt.shards) : "",
                             mpi.size(), sum->ran, sum->failed, sum->resumed, sum->records)
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

struct GateArgs {
  std::string baseline = "results/baselines/gate.json";
  std::string history, against;
  bool update = false, no_instructions = false, which = false, quiet = false;
  std::string methods, models, h, joints;
  double duration = 0;
  int reps = 0;
};

// mbbench gate: exit 1 on a regression, 0 otherwise (README "The CI gate")
int cmd_gate(GateArgs a, mb::GateConfig cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  // an installed mbbench's baseline when there is none here (core/io.hpp); --update writes here
  if (!a.update) a.baseline = mb::data_file(a.baseline);
  if (cfg.jobs < 1) throw mb::InputError("command line", 0, "jobs", fmt::format("must be at least 1, got {}", cfg.jobs));
  if (!a.methods.empty()) cfg.methods = split_list(a.methods);
  if (!a.models.empty()) cfg.models = a.models == "none" ? std::vector<std::string>{} : split_list(a.models);
  if (!a.h.empty()) cfg.h = parse_samples(a.h);
  for (double x : cfg.h)
    if (!(x > 0)) throw mb::InputError("command line", 0, "h", fmt::format("step sizes must be positive, got {}", x));
  if (a.duration > 0) cfg.duration = a.duration;
  if (a.reps > 0) cfg.timing_reps = cfg.ab_reps = a.reps;
  if (!a.joints.empty()) {
    cfg.timing_joints.clear();
    if (a.joints != "none")
      for (double x : parse_samples(a.joints)) {
        if (!(x >= 1 && x <= 1e6 && x == std::floor(x)))
          throw mb::InputError("command line", 0, "timing_joints", fmt::format("tree sizes are whole numbers in [1, 1e6], got {}", x));
        cfg.timing_joints.push_back(static_cast<int>(x));
      }
  }
  // the phases and the accuracy cases' progress on stderr: redrawn on a terminal, else a line every
  // 10 s; nothing with --quiet
  const bool terminal = ::isatty(STDERR_FILENO) != 0;
  cfg.progress = !a.quiet;
  cfg.case_progress = a.quiet ? mb::ProgressMeter::Mode::Off : terminal ? mb::ProgressMeter::Mode::Terminal : mb::ProgressMeter::Mode::Log;
  cfg.instructions = !a.no_instructions;
  if (a.update && !a.against.empty())
    throw mb::InputError("command line", 0, "against", "--update writes this machine's own time values: not with --against");
  std::optional<mb::GateRecord> base;
  if (fs::exists(a.baseline)) {
    std::ifstream in(a.baseline);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    try {
      base = mb::gate_record_from_json(text, a.baseline);
    } catch (const mb::InputError& e) {
      if (!a.update) throw;
      std::cerr << "mbbench: note: the old baseline is not readable (" << e.what() << "); writing a new one\n";
    }
  } else if (!a.update && a.against.empty()) {
    throw mb::InputError(a.baseline, 0, "baseline", "no such file; make one with mbbench gate --update");
  }
  // the baseline as this machine sees it: its own time values, if it has an entry
  const std::string machine = mb::machine_key(mb::current_provenance());
  const mb::GateMachine* entry = nullptr;
  std::optional<mb::GateRecord> view;
  if (base) view = mb::baseline_for_machine(*base, machine, &entry);
  if (a.which) {
    std::cout << "machine: " << machine << "\n";
    std::cout << "baseline: " << a.baseline << (base ? "" : " (none)") << "\n";
    if (base) {
      std::cout << "commit: " << base->provenance.git_commit << "\n";
      std::cout << "entry: " << (entry ? "yes (commit " + entry->commit + ", " + entry->date + ")" : std::string("no")) << "\n";
      for (const auto& m : base->machines) std::cout << "machines: " << m.key << " (commit " << m.commit << ", " << m.date << ")\n";
    }
    return 0;
  }
  if (!a.against.empty()) mb::check_other_build(a.against);  // before the accuracy cases run
  // the time signal: against this machine's entry, A/B against another build, or not gated
  cfg.time = a.update || (entry && a.against.empty());
  if (!a.against.empty() && !base) cfg.models.clear();  // A/B alone: nothing to compare accuracy with
  const mb::GateRecord now = mb::run_gate(cfg);
  mb::GateComparison c;
  if (view) c = mb::compare_gate(*view, now);
  if (!a.against.empty()) {
    mb::compare_ab(mb::gate_ab(cfg, a.against, !base), a.against, c);
  } else if (!a.update && !entry) {
    std::string known;
    for (const auto& m : base->machines) known += fmt::format("{}'{}'", known.empty() ? "" : ", ", m.key);
    c.notes.push_back(fmt::format("time not gated: the baseline has no time values of this machine '{}' (it has {}); "
                                  "time it A/B against a build of the baseline's commit {} with --against (scripts/gate-ci.sh)",
                                  machine, known.empty() ? "none" : known, base->provenance.git_commit));
  } else if (entry) {
    c.notes.push_back(fmt::format("time against this machine's baseline (commit {}, {})", entry->commit, entry->date));
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int rc = 0;
  if (view || !a.against.empty()) {
    std::cout << mb::gate_text(c);
    if (!a.update && c.regressions > 0) rc = 1;
  }
  if (!a.history.empty()) {
    std::ofstream h(a.history, std::ios::app);
    h << mb::gate_history_line(now) << "\n";
    if (!h.flush()) throw mb::Error(fmt::format("gate: cannot append to the history {}", a.history));
  }
  if (a.update) {
    std::vector<std::string> notes;
    const mb::GateRecord next = mb::updated_baseline(base, now, notes);
    for (const auto& n : notes) std::cout << "note: " << n << "\n";
    mb::write_file_atomic(a.baseline, mb::gate_record_to_json(next));
    std::cout << fmt::format("gate: wrote the baseline {} ({} cases, {} instruction counts; time of machine '{}', {} machine(s) in all){}\n",
                             a.baseline, next.cases.size(), next.timing.size(), machine, next.machines.size(),
                             base ? "; the table above is what changed against the previous one" : "");
  }
  std::cout << fmt::format("gate: {}{} in {:.1f} s (accuracy {:.1f} s, timing {:.1f} s)\n",
                           a.update ? "updated" : (rc ? "FAILED" : "passed"),
                           now.instructions_note.empty() ? "" : " (instruction counts " + now.instructions_note + ")", secs,
                           now.accuracy_seconds, now.timing_seconds);
  return rc;
}

// What runs a model a method refused: a model option that makes the model acceptable to this
// method (tried: contacts=off, frames=light, both; suggested only when the method then claims every
// feature of the model), and the methods that claim every feature of the model as it is.
std::string refusal_hint(const mb::Model& model, const std::string& model_arg, const std::string& method_arg) {
  const mb::MethodInfo info = mb::make_method(method_arg)->info();  // a copy: the method is a temporary
  std::string hint;
  for (const char* option : {"contacts=off", "frames=light", "contacts=off,frames=light"}) {
    const std::string spec = model_arg + (model_arg.find(':') == std::string::npos ? ":" : ",") + option;
    try {
      const mb::Model changed = mb::load_model(spec);
      if (!mb::unsupported_reason(info, changed).empty()) continue;
      hint = fmt::format("; `{}` runs in {}{}", spec, info.name,
                         std::string(option).find("frames") != std::string::npos ? " (light frames are a change to the model)" : "");
      break;
    } catch (const mb::Error&) {
      // the option is not one of this model's, or the file refuses it: not a hint
    }
  }
  std::vector<std::string> takers;
  for (const auto& e : mb::method_registry())
    if (e.info.name.rfind("test-", 0) != 0 && mb::unsupported_reason(e.info, model).empty()) takers.push_back(e.info.name);
  hint += takers.empty() ? "; no method claims every feature of this model"
                         : fmt::format("; methods that claim every feature of this model: {}", fmt::join(takers, ", "));
  return hint;
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

  std::string model_arg, method_arg, out_file, append_file, samples_text;
  double h = 0, duration = 0, fail_threshold = 1.0;
  bool no_round = false, no_ref = false, quiet = false, self_consistency = false, step_series = false, force = false;
  auto* run = app.add_subcommand("run", "simulate one case and print its metrics");
  run->add_option("model", model_arg,
                  "catalog model spec (e.g. pendulum90, chain:n=5), a .toml scene file, a .urdf robot or an MJCF .xml file, "
                  "each with its options (robot.urdf:floor=on, model.xml:contacts=off)")
      ->required();
  run->add_option("method", method_arg, "method spec: a name from `mbbench list methods`, with options name:key=value,...")->required();
  run->add_option("--h", h, "step size in s (default: the model's; rounded to T/k for models with a period)");
  run->add_option("--duration", duration, "simulated time in s (default: the model's, 60 s)");
  run->add_option("--samples", samples_text, "comma-separated times at which the state is recorded");
  run->add_option("--out", out_file, "write the record as JSON to this file (atomically)");
  run->add_option("--append", append_file, "append the record as one JSON line to this file");
  run->add_option("--fail-threshold", fail_threshold, "max constraint error in m that marks the case failed (default 1)");
  run->add_flag("--no-round", no_round, "keep h as given even when the model has a period");
  run->add_flag("--no-ref", no_ref, "do not compute the error against the reference method at the sample times");
  run->add_flag("--step-series", step_series, "keep each step's correction iterations and condition in the record (step_series)");
  run->add_flag("--self-consistency", self_consistency,
                "also run the same method at h/64 and report the end states' difference (self_error, self_mescd)");
  run->add_flag("--quiet", quiet, "print nothing on success");
  run->add_flag("--force", force, "run even above 10^8 steps (without it such a run states its step count and estimated time, exit 2)");

  std::string scene_out;
  auto* exp = app.add_subcommand("export-scene", "write any model `run` takes (catalog, scene, URDF, MJCF) as a TOML scene file");
  exp->add_option("model", model_arg, "model spec as `run` takes it (e.g. chain:n=5, robot.urdf:base=free, ant.xml:contacts=off)")->required();
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

  GateArgs gate_args;
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
      const mb::Model m = mb::load_model(model_arg);
      for (const std::string& w : m.info.warnings) std::cerr << "mbbench: warning: " << w << "\n";
      mb::write_scene(m, scene_out);
      return 0;
    }
    if (*table) return cmd_table(record_files, table_out, paper_file);
    if (*sweep) return sweep_mpi ? cmd_sweep_mpi(experiment_file, sweep_opt, shard_text)
                                 : cmd_sweep(experiment_file, sweep_opt, shard_text);
    if (*merge) return cmd_merge(record_files, merge_out);
    if (*gate) return cmd_gate(gate_args, gate_cfg);
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
      if (run->count("--h") && !(h > 0))
        throw mb::InputError("command line", 0, "h", fmt::format("step size must be positive, got {}", h));
      if (run->count("--duration") && !(duration > 0))
        throw mb::InputError("command line", 0, "duration", fmt::format("duration must be positive, got {}", duration));
      mb::Model model = mb::load_model(model_arg);
      for (const std::string& w : model.info.warnings) std::cerr << "mbbench: warning: " << w << "\n";
      if (const std::string note = mb::limits_note(mb::make_method(method_arg)->info(), model); !note.empty())
        std::cerr << "mbbench: warning: " << note << "\n";
      mb::RunConfig cfg;
      cfg.h = h;
      cfg.duration = duration;
      cfg.samples = parse_samples(samples_text);
      cfg.round_to_period = !no_round;
      cfg.ref_error = !no_ref;
      cfg.self_consistency = self_consistency;
      cfg.step_series = step_series;
      cfg.fail_threshold = fail_threshold;
      cfg.sample_end = model.info.published_end;  // scd and mescd at t_end, where the source publishes the end
      // a large scene: the method's memory faulted in on a second thread while its setup runs
      // (core/memory.hpp); 2.5 times the model's, less than any method that runs a chain of 10^5
      // or 10^6 point masses takes (docs/limits.md)
      mb::Prefault prefault;
      if (large_scene)
        cfg.before_setup = [&] {
          const size_t model_bytes = model.bodies.size() * sizeof(mb::Body) + model.joints.size() * sizeof(mb::Joint);
          prefault.start_fresh(model_bytes * 5 / 2);
        };
      const mb::StepPlan plan = mb::plan_steps(model, cfg);
      const long total = plan.steps * (self_consistency ? 1 + mb::kSelfRefinement : 1);
      if (total > kForceSteps && !force) {
        const double per_step = seconds_per_step(model, method_arg, cfg, plan);
        throw mb::InputError("command line", 0, "steps",
                             fmt::format("{} steps (h = {:.6g} s over {:.6g} s{}) take about {} at the {:.3g} us per step of a "
                                         "short run of this case; add --force to run them",
                                         total, plan.h, plan.duration, self_consistency ? ", with the h/64 run" : "",
                                         fmt_duration(per_step * static_cast<double>(total)), per_step * 1e6));
      }
      ProgressLine progress;
      if (!quiet && ::isatty(STDERR_FILENO) != 0) cfg.progress = std::ref(progress);
      mb::CaseRecord rec = [&] {
        try {
          return mb::run_case(model, method_arg, cfg);
        } catch (const mb::UnsupportedModel& e) {
          throw mb::UnsupportedModel(e.what() + refusal_hint(model, model_arg, method_arg));
        }
      }();
      progress.clear();
      rec.model.spec = model_arg;
      if (!out_file.empty()) mb::write_file_atomic(out_file, mb::record_to_json_pretty(rec) + "\n");
      if (!append_file.empty()) mb::append_record(append_file, rec);
      if (const std::string* why = rec.metrics.note_of(mb::metric::LD); why && why->rfind(mb::kPeriodMismatch, 0) == 0)
        std::cerr << "mbbench: warning: LD " << *why << "; check the model's period\n";
      if (!quiet) print_summary(rec, model_arg);
      return 0;
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
