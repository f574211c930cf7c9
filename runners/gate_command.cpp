// mbbench gate: the regression gate's command (runners/commands.hpp).
#include <unistd.h>

#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "gate/gate.hpp"
#include "report/report.hpp"
#include "runners/commands.hpp"

namespace fs = std::filesystem;

namespace mb::cli {

int cmd_gate(GateArgs a, GateConfig cfg) {
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

}  // namespace mb::cli
