// mbbench run: one case from the command line (runners/commands.hpp), with its summary, the
// estimate that guards a very long run and the hint of what runs a refused model.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <iostream>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/memory.hpp"
#include "experiments/experiment.hpp"
#include "methods/method.hpp"
#include "metrics/observer.hpp"
#include "models/catalog.hpp"
#include "records/store.hpp"
#include "runners/commands.hpp"
#include "sim/run_case.hpp"

namespace mb::cli {

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
  // correction phases a method ended above its tolerance, by an option or a limit (stats.hpp)
  std::vector<std::string> stops;
  if (r.stats.contact_stops)
    stops.push_back(fmt::format("{} with their contacts at the sweep limit (contact_iterations)", r.stats.contact_stops));
  if (r.stats.budget_stops) stops.push_back(fmt::format("{} at the budget", r.stats.budget_stops));
  if (r.stats.floor_stops) stops.push_back(fmt::format("{} at the velocity floor", r.stats.floor_stops));
  if (!stops.empty())
    std::cout << fmt::format("correction phases ended above the tolerance: {} (the residual kept)\n", fmt::join(stops, "; "));
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
  if (const std::string* why = m.note_of(metric::agree_err)) std::cout << "no " << metric::agree_err << ": " << *why << "\n";
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

// What runs a model a method refused: a model option that makes the model acceptable to this
// method (tried: contacts=off, frames=light, both; suggested only when the method then claims every
// feature of the model), and the methods that claim every feature of the model as it is.
std::string refusal_hint(const mb::Model& model, const std::string& model_arg, const std::string& method_arg) {
  const mb::MethodInfo info = mb::make_method(method_arg)->info();  // a copy: the method is a temporary
  std::string hint;
  for (const char* option : {"contacts=off", "frames=light", "contacts=off,frames=light"}) {
    const std::string spec = model_arg + (model_arg.find(':') == std::string::npos ? ":" : ",") + option;
    try {
      const mb::SharedModel changed = mb::build_shared_model(spec);
      if (!mb::unsupported_reason(info, *changed).empty()) continue;
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

}  // namespace

int cmd_run(const RunArgs& a, bool large_scene) {
  if (a.h_given && !(a.h > 0))
    throw mb::InputError("command line", 0, "h", fmt::format("step size must be positive, got {}", a.h));
  if (a.duration_given && !(a.duration > 0))
    throw mb::InputError("command line", 0, "duration", fmt::format("duration must be positive, got {}", a.duration));
  const mb::SharedModel shared = mb::build_shared_model(a.model);
  const mb::Model& model = *shared;
  for (const std::string& w : model.info.warnings) std::cerr << "mbbench: warning: " << w << "\n";
  const mb::MethodInfo info = mb::make_method(a.method)->info();
  if (const std::string note = mb::limits_note(info, model); !note.empty()) std::cerr << "mbbench: warning: " << note << "\n";
  if (mb::unsupported_reason(info, model).empty()) {
    std::optional<mb::Model> particle_form;
    std::vector<std::string> changes;
    mb::method_model(info, model, particle_form, &changes);
    for (const std::string& c : changes) std::cerr << "mbbench: " << info.name << " runs " << c << "\n";
  }
  mb::RunConfig cfg;
  cfg.h = a.h;
  cfg.duration = a.duration;
  cfg.samples = parse_samples(a.samples);
  cfg.round_to_period = !a.no_round;
  cfg.ref_error = !a.no_ref;
  cfg.self_consistency = a.self_consistency;
  cfg.step_series = a.step_series;
  cfg.agree_with = a.agree_with;
  cfg.agree_time = a.agree_time;
  if (!a.agree_with.empty()) {
    try {
      mb::make_method(a.agree_with);
    } catch (const mb::InputError& e) {
      throw mb::InputError("command line", 0, "agree_with", e.message);
    }
  }
  cfg.fail_threshold = a.fail_threshold;
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
  const long total = plan.steps * (a.self_consistency ? 1 + mb::kSelfRefinement : 1);
  if (total > kForceSteps && !a.force) {
    const double per_step = seconds_per_step(model, a.method, cfg, plan);
    throw mb::InputError("command line", 0, "steps",
                         fmt::format("{} steps (h = {:.6g} s over {:.6g} s{}) take about {} at the {:.3g} us per step of a "
                                     "short run of this case; add --force to run them",
                                     total, plan.h, plan.duration, a.self_consistency ? ", with the h/64 run" : "",
                                     fmt_duration(per_step * static_cast<double>(total)), per_step * 1e6));
  }
  ProgressLine progress;
  if (!a.quiet && ::isatty(STDERR_FILENO) != 0) cfg.progress = std::ref(progress);
  mb::CaseRecord rec = [&] {
    try {
      return mb::run_case(model, a.method, cfg);
    } catch (const mb::UnsupportedModel& e) {
      throw mb::UnsupportedModel(e.what() + refusal_hint(model, a.model, a.method));
    }
  }();
  progress.clear();
  rec.model.spec = a.model;
  if (!a.out.empty()) mb::write_file_atomic(a.out, mb::record_to_json_pretty(rec) + "\n");
  if (!a.append.empty()) mb::append_record(a.append, rec);
  if (const std::string* why = rec.metrics.note_of(mb::metric::LD); why && why->rfind(mb::kPeriodMismatch, 0) == 0)
    std::cerr << "mbbench: warning: LD " << *why << "; check the model's period\n";
  if (!a.quiet) print_summary(rec, a.model);
  return 0;
}

}  // namespace mb::cli
