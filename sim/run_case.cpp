#include "sim/run_case.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <mutex>
#include <new>
#include <optional>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "metrics/observer.hpp"
#include "models/formats/scene.hpp"
#include "sim/reference.hpp"

namespace mb {

namespace {

// Hands the step count to RunConfig::progress; `offset` steps of an earlier run count as done.
class ProgressObserver final : public Observer {
 public:
  ProgressObserver(const std::function<void(long, long)>& f, long offset, long total) : f_(f), offset_(offset), total_(total) {}
  void begin(const Model&, const State&, const RunContext&, const StepView&) override {}
  void observe(const Model&, const State&, const StepView& v) override {
    if (v.step % kProgressEvery == 0) f_(offset_ + v.step, total_);
  }
  void write(Metrics&) const override {}

 private:
  const std::function<void(long, long)>& f_;
  long offset_, total_;
};

// The model's first period as its motion shows it (LdReading::motion_period): the reference method
// over 4 declared periods T at T/512, watched by FirstPeriodObserver (its first period ends at 1.25
// or 1.5 of its own periods, so periods up to 2.6 T are seen). None when the model has no period
// or tracked body, its motion does not turn three times in that time, or the reference method
// cannot simulate it or breaks down (LD is then read at the declared period unchecked).
std::optional<double> measure_motion_period(const Model& model, const std::string& ref_spec) {
  constexpr long kStepsPerPeriod = 512;
  try {
    auto ref = make_method(ref_spec);
    if (!unsupported_reason(ref->info(), model).empty()) return std::nullopt;
    State state = initial_state(model);
    ref->init(model, state);
    StepPlan plan;
    plan.h = plan.h_requested = *model.info.period / kStepsPerPeriod;
    plan.steps = kStepsPerPeriod * 4;
    plan.duration = plan.h * static_cast<double>(plan.steps);
    FirstPeriodObserver first;
    if (simulate(model, *ref, state, plan, {&first}).failure) return std::nullopt;
    return first.period();
  } catch (const UnsupportedModel&) {
    return std::nullopt;
  } catch (const SimulationError&) {
    return std::nullopt;
  }
}

// measure_motion_period once per model (its scene text: everything that moves it) and reference
// spec, for the whole process; a sweep's cases share it.
std::optional<double> motion_period(const Model& model, const std::string& ref_spec) {
  if (!model.info.period || model.info.tracked_body < 0) return std::nullopt;
  static std::mutex mutex;
  static std::map<std::string, std::optional<double>> cache;
  const std::string key = ref_spec + "\n" + scene_to_toml(model);
  {
    std::lock_guard<std::mutex> lock(mutex);
    if (auto it = cache.find(key); it != cache.end()) return it->second;
  }
  const std::optional<double> p = measure_motion_period(model, ref_spec);
  std::lock_guard<std::mutex> lock(mutex);
  return cache.emplace(key, p).first->second;
}

// Every body's position at the steps 0..n of a run.
class PositionRecorder final : public Observer {
 public:
  explicit PositionRecorder(long n) : n_(n) {}
  void begin(const Model& model, const State& state, const RunContext&, const StepView& v) override { observe(model, state, v); }
  void observe(const Model&, const State& state, const StepView& v) override {
    if (v.step > n_) return;
    std::vector<Vec3>& x = x_.emplace_back();
    for (const BodyState& b : state.bodies) x.push_back(b.x);
  }
  void write(Metrics&) const override {}
  std::vector<std::vector<Vec3>> take() { return std::move(x_); }

 private:
  long n_;
  std::vector<std::vector<Vec3>> x_;
};

// agree_err's observer: the method `spec` run on the model at plan.h over the first n steps, its
// positions handed over; a method that refuses the model or a run that fails leaves the note why.
AgreementObserver agreement(const Model& model, const std::string& spec, const StepPlan& plan, long n, const RunConfig& cfg,
                            const std::string& source, int line) {
  auto other = make_method(spec, source, line);
  const std::string who = fmt::format("agree_with {}", spec);
  if (std::string why = unsupported_reason(other->info(), model); !why.empty())
    return AgreementObserver({}, fmt::format("{} does not take the model: {}", who, why));
  StepPlan p = plan;
  p.steps = n;
  p.duration = p.h * static_cast<double>(n);
  p.steps_per_period.reset();
  DriverOptions opt;
  opt.fail_threshold = cfg.fail_threshold;
  PositionRecorder recorder(n);
  try {
    std::optional<Model> particle_form;
    const Model& m = method_model(other->info(), model, particle_form);
    State state = initial_state(m);
    other->init(m, state);
    const RunOutcome out = simulate(m, *other, state, p, {&recorder}, opt);
    if (out.failure) return AgreementObserver({}, fmt::format("{} failed at t = {} s: {}", who, out.fail_time, *out.failure));
  } catch (const UnsupportedModel& e) {
    return AgreementObserver({}, fmt::format("{} does not take the model: {}", who, e.what()));
  } catch (const SimulationError& e) {
    return AgreementObserver({}, fmt::format("{} failed: {}", who, e.what()));
  } catch (const std::bad_alloc&) {
    return AgreementObserver({}, fmt::format("{} ran out of memory", who));
  }
  return AgreementObserver(recorder.take());
}

}  // namespace

CaseRecord run_case(const Model& given, const std::string& method_spec, const RunConfig& cfg, const std::string& source,
                    int line) {
  auto method = make_method(method_spec, source, line);
  const MethodInfo& info = method->info();
  const StepPlan plan = plan_steps(given, cfg, source, line);
  if (std::string why = unsupported_reason(info, given); !why.empty()) throw UnsupportedModel(why);
  // the model the method runs (its particle form, where it takes one); the reference and the
  // agreement run the model as given
  std::optional<Model> particle_form;
  const Model& model = method_model(info, given, particle_form);

  // sample times: on the step grid for fixed-step methods; anywhere in the run for adaptive ones
  std::vector<double> samples = cfg.samples;
  const double t_end = static_cast<double>(plan.steps) * plan.h;
  if (cfg.sample_end && std::find(samples.begin(), samples.end(), t_end) == samples.end()) samples.push_back(t_end);
  std::sort(samples.begin(), samples.end());
  DriverOptions opt;
  opt.fail_threshold = cfg.fail_threshold;
  opt.step_series = cfg.step_series;
  for (double s : samples) {
    if (!(s >= 0) || s > t_end * (1 + 1e-12))
      throw InputError(source, line, "samples", fmt::format("sample time {} is outside the run [0, {}]", s, t_end));
    if (SampleRecorder::grid_index(s, plan.h) >= 0) continue;
    if (info.fixed_step) {
      // h rounded to T/k for the model's period: the step as requested may divide the sample time
      const bool rounded = plan.h != plan.h_requested;
      const std::string keep =
          rounded && SampleRecorder::grid_index(s, plan.h_requested) >= 0
              ? fmt::format("; h was rounded from {} to T/k for the model's period: --no-round keeps h = {} (LD then does not "
                            "apply)",
                            plan.h_requested, plan.h_requested)
              : "";
      throw InputError(source, line, "samples",
                       fmt::format("sample time {} is not a whole multiple of h = {} (fixed-step method {}); "
                                   "choose h dividing every sample time{}",
                                   s, plan.h, info.name, keep));
    }
    opt.stops.push_back(s);
  }

  if (cfg.before_setup) cfg.before_setup();
  State state = initial_state(model);
  try {
    method->init(model, state);
  } catch (const std::bad_alloc&) {
    // a dense method on a very large model: refused with the reason, never a crash of the sweep
    throw UnsupportedModel(fmt::format("{} ran out of memory setting up {} bodies and {} joints", info.name, model.bodies.size(),
                                       model.joints.size()));
  }

  // the observers: the model's metrics, the samples, and the error against the reference
  const std::string ref_spec = cfg.ref_spec.empty() ? reference_method_name() : cfg.ref_spec;
  auto metrics = make_observers(model, {cfg.ld_periods == LdPeriods::Half, cfg.ld_periods == LdPeriods::WholeWithStart,
                                        motion_period(given, ref_spec)});
  SampleRecorder recorder(samples);
  std::vector<Observer*> observers;
  for (auto& o : metrics) observers.push_back(o.get());
  if (!samples.empty()) observers.push_back(&recorder);
  std::shared_ptr<const ReferenceTrajectory> reference;
  std::string no_reference;
  if (!samples.empty() && cfg.ref_error && !info.reference) {
    try {
      reference = ReferenceTrajectory::get(given, ref_spec, plan.duration);
    } catch (const UnsupportedModel& e) {
      no_reference = std::string("no reference: ") + e.what();
    } catch (const SimulationError& e) {
      // a reference that fails (a stiff model past its step budget, a breakdown) leaves this run
      // without a reference error, said in the record; the run itself is not judged by it
      no_reference = std::string("no reference: ") + e.what();
    }
  }
  std::optional<ReferenceErrorObserver> ref_observer;
  if (reference) {
    ref_observer.emplace(samples, *reference);
    observers.push_back(&*ref_observer);
  }
  // the self-consistency error: the end state of the same method at h / 64 (made before the run,
  // handed to the observer as a state)
  std::optional<SelfConsistencyObserver> self_observer;
  const long fine_steps = cfg.self_consistency ? plan.steps * kSelfRefinement : 0;
  std::optional<ProgressObserver> progress;
  if (cfg.progress) progress.emplace(cfg.progress, fine_steps, fine_steps + plan.steps);
  if (cfg.self_consistency) {
    auto fine_method = make_method(method_spec, source, line);
    State fine = initial_state(model);
    fine_method->init(model, fine);
    StepPlan fine_plan = plan;
    fine_plan.h = plan.h / kSelfRefinement;
    fine_plan.h_requested = fine_plan.h;
    fine_plan.steps = plan.steps * kSelfRefinement;
    fine_plan.steps_per_period.reset();
    DriverOptions fine_opt;
    fine_opt.fail_threshold = cfg.fail_threshold;
    std::string why;
    std::vector<Observer*> fine_observers;
    std::optional<ProgressObserver> fine_progress;
    if (cfg.progress) {
      fine_progress.emplace(cfg.progress, 0, fine_steps + plan.steps);
      fine_observers.push_back(&*fine_progress);
    }
    try {
      const RunOutcome fo = simulate(model, *fine_method, fine, fine_plan, fine_observers, fine_opt);
      if (fo.failure) why = fmt::format("the run at h/{} failed at t = {} s: {}", kSelfRefinement, fo.fail_time, *fo.failure);
    } catch (const SimulationError& e) {
      why = fmt::format("the run at h/{} failed: {}", kSelfRefinement, e.what());
    }
    if (why.empty()) self_observer.emplace(plan.steps, std::move(fine));
    else self_observer.emplace(plan.steps, std::nullopt, why);
    observers.push_back(&*self_observer);
  }
  // the agreement with another method: its positions over the first agree_time s at this h
  std::optional<AgreementObserver> agree_observer;
  if (!cfg.agree_with.empty()) {
    if (!(cfg.agree_time > 0) || cfg.agree_time > plan.duration * (1 + 1e-12) || cfg.agree_time < plan.h * (1 - 1e-12))
      throw InputError(source, line, "agree_time",
                       fmt::format("agree_time {} s must lie in [h, duration] = [{}, {}] s", cfg.agree_time, plan.h, plan.duration));
    const long n = std::min(plan.steps, static_cast<long>(std::floor(cfg.agree_time / plan.h * (1 + 1e-12))));
    agree_observer.emplace(agreement(given, cfg.agree_with, plan, n, cfg, source, line));
    observers.push_back(&*agree_observer);
  }
  if (progress) observers.push_back(&*progress);
  const RunOutcome out = simulate(model, *method, state, plan, observers, opt);

  CaseRecord r;
  r.model = {given.info.name, given.info.name, given.info.source, static_cast<long>(given.bodies.size()),
             static_cast<long>(given.joints.size()), given.info.period};
  r.method = {method_spec, info.name, info.order()};
  r.h_requested = plan.h_requested;
  r.h = plan.h;
  r.duration = plan.duration;
  r.steps = plan.steps;
  r.steps_done = out.steps_done;
  if (out.failure) {
    r.status = Status::Failed;
    r.reason = *out.failure;
    r.fail_time = out.fail_time;
  }
  for (const auto& o : metrics) o->write(r.metrics);
  if (self_observer) self_observer->write(r.metrics);
  if (agree_observer) agree_observer->write(r.metrics);
  if (ref_observer) {
    ref_observer->write(r.metrics);
    r.ref_error = ref_observer->error();
  } else if (!no_reference.empty()) {
    r.ref_error = ReferenceError{{}, 0, no_reference};
  }
  r.readings = {to_string(cfg.steps), to_string(cfg.ld_periods), cfg.round_to_period, cfg.fail_threshold};
  r.stats = out.stats;
  r.timing = out.timing;
  r.provenance = current_provenance();
  add_engine_version(info.name, info.version, r.provenance);
  // a plugin's method: the shared library and its version (the registry's entry carries them; the
  // method's own info() is what the plugin compiled)
  if (const MethodEntry* e = find_method(info.name); e && !e->info.plugin.empty()) {
    r.provenance.plugin = e->info.plugin;
    r.provenance.plugin_version = e->info.plugin_version;
  }
  r.samples = recorder.samples();
  r.step_series = out.series;
  return r;
}

void add_engine_version(const std::string& method, const std::string& version, Provenance& p) {
  if (!version.empty()) p.libraries[method] = version;
}

}  // namespace mb
