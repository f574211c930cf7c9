#include "sim/reference.hpp"

#include <cmath>
#include <future>
#include <map>
#include <mutex>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/formats/scene.hpp"
#include "sim/driver.hpp"

namespace mb {

namespace {

// records the state at every grid step (the checkpoints)
class CheckpointRecorder final : public Observer {
 public:
  explicit CheckpointRecorder(std::vector<State>& out) : out_(out) {}
  void begin(const Model&, const State& s, const RunContext&, const StepView&) override { out_.push_back(s); }
  void observe(const Model&, const State& s, const StepView&) override { out_.push_back(s); }
  void write(Metrics&) const override {}

 private:
  std::vector<State>& out_;
};

}  // namespace

ReferenceTrajectory::ReferenceTrajectory(const Model& model, std::string ref_spec, double duration)
    : model_(model), spec_(std::move(ref_spec)) {
  if (!(duration > 0) || !std::isfinite(duration)) throw Error(fmt::format("reference trajectory: bad duration {}", duration));
  const long n = std::max(1L, static_cast<long>(std::ceil(duration / 1.0 - 1e-12)));
  spacing_ = duration / static_cast<double>(n);
  auto method = make_method(spec_);
  // a model the reference method does not claim (contacts, say) has no reference: a run of it
  // would silently leave out what the method does not model
  if (std::string why = unsupported_reason(method->info(), model_); !why.empty())
    throw UnsupportedModel(fmt::format("the reference method {}", why));
  std::optional<Model> particle_form;  // a reference method that runs the particle form keeps it
  if (const Model& m = method_model(method->info(), model_, particle_form); &m != &model_) model_ = m;
  State s = initial_state(model_);
  method->init(model_, s);
  StepPlan plan;
  plan.h_requested = plan.h = spacing_;
  plan.duration = duration;
  plan.steps = n;
  CheckpointRecorder rec(checkpoints_);
  DriverOptions opt;
  opt.fail_threshold = 1e300;  // the reference is not judged here; a breakdown is
  RunOutcome out = simulate(model_, *method, s, plan, {&rec}, opt);
  if (out.failure) throw SimulationError(fmt::format("reference {} failed at t = {}: {}", spec_, out.fail_time, *out.failure));
}

State ReferenceTrajectory::at(double t) const {
  if (!(t >= 0)) throw Error(fmt::format("reference trajectory: time {} before the start", t));
  const long last = static_cast<long>(checkpoints_.size()) - 1;
  const long k = std::min(last, static_cast<long>(std::floor(t / spacing_)));
  State s = checkpoints_[static_cast<size_t>(k)];
  const double tk = static_cast<double>(k) * spacing_;
  if (t == tk) return s;
  auto method = make_method(spec_);
  method->init(model_, s);
  StepPlan plan;
  plan.t0 = tk;
  plan.h_requested = plan.h = t - tk;
  plan.duration = t - tk;
  plan.steps = 1;
  DriverOptions opt;
  opt.fail_threshold = 1e300;
  RunOutcome out = simulate(model_, *method, s, plan, {}, opt);
  if (out.failure) throw SimulationError(fmt::format("reference {} failed at t = {}: {}", spec_, out.fail_time, *out.failure));
  s.t = t;
  return s;
}

std::shared_ptr<const ReferenceTrajectory> ReferenceTrajectory::get(const Model& model, const std::string& ref_spec,
                                                                   double duration) {
  using Ptr = std::shared_ptr<const ReferenceTrajectory>;
  static std::mutex mu;
  static std::map<std::string, std::shared_future<Ptr>> cache;
  // the model's scene text identifies it exactly (the scene round trip is bit-identical)
  const std::string key = fmt::format("{}\n{:.17g}\n{}", ref_spec, duration, scene_to_toml(model));
  std::promise<Ptr> promise;
  std::shared_future<Ptr> future;
  bool compute = false;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = cache.find(key);
    if (it == cache.end()) {
      future = promise.get_future().share();
      cache.emplace(key, future);
      compute = true;
    } else {
      future = it->second;
    }
  }
  if (compute) {
    try {
      promise.set_value(std::make_shared<const ReferenceTrajectory>(model, ref_spec, duration));
    } catch (...) {
      promise.set_exception(std::current_exception());
    }
  }
  return future.get();
}

}  // namespace mb
