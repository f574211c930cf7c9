#include "runners/lib/run_case.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "metrics/observer.hpp"
#include "runners/lib/provenance.hpp"

namespace mb {

using nlohmann::json;

// --- readings: names as they appear in experiment files and records ---
const std::vector<std::string>& step_count_names() {
  static const std::vector<std::string> n = {"floor", "ceil", "round"};
  return n;
}
const std::vector<std::string>& ld_periods_names() {
  static const std::vector<std::string> n = {"whole", "whole-with-start", "half"};
  return n;
}
const char* to_string(StepCount s) { return step_count_names()[static_cast<size_t>(s)].c_str(); }
const char* to_string(LdPeriods p) { return ld_periods_names()[static_cast<size_t>(p)].c_str(); }

namespace {
template <class E>
E enum_from(const std::string& text, const std::vector<std::string>& names) {
  for (size_t i = 0; i < names.size(); ++i)
    if (names[i] == text) return static_cast<E>(i);
  throw std::invalid_argument(fmt::format("\"{}\" is not one of: {}", text, fmt::join(names, ", ")));
}
}  // namespace
StepCount step_count_from(const std::string& text) { return enum_from<StepCount>(text, step_count_names()); }
LdPeriods ld_periods_from(const std::string& text) { return enum_from<LdPeriods>(text, ld_periods_names()); }

StepPlan plan_steps(const Model& model, const RunConfig& cfg) {
  StepPlan p;
  p.h_requested = cfg.h > 0 ? cfg.h : model.info.default_h;
  if (!(cfg.h >= 0) || !std::isfinite(cfg.h))
    throw InputError("command line", 0, "h", fmt::format("step size must be positive, got {}", cfg.h));
  p.duration = cfg.duration > 0 ? cfg.duration : model.info.duration;
  if (!(cfg.duration >= 0) || !std::isfinite(cfg.duration))
    throw InputError("command line", 0, "duration", fmt::format("duration must be positive, got {}", cfg.duration));
  p.h = p.h_requested;
  if (model.info.period) {
    const double T = *model.info.period;
    const double r = T / p.h_requested;
    // LD at half periods needs an even number of steps per period
    const long per = cfg.ld_periods == LdPeriods::Half ? 2 : 1;
    if (cfg.round_to_period) {
      long k = per * std::max(1L, std::lround(r / static_cast<double>(per)));
      p.h = T / static_cast<double>(k);
      p.steps_per_period = k;
    } else if (std::abs(r - std::round(r)) <= 1e-9 * r && std::lround(r) % per == 0) {
      p.steps_per_period = std::lround(r);
    }
  }
  // floor: steps that end at or before the duration (the step that would cross it does not
  // count); ceil: that step counts too; round: it counts when it ends nearer than h/2 past D
  const double q = p.duration / p.h;
  switch (cfg.steps) {
    case StepCount::Floor: p.steps = static_cast<long>(std::floor(q * (1 + 1e-12))); break;
    case StepCount::Ceil: p.steps = static_cast<long>(std::ceil(q * (1 - 1e-12))); break;
    case StepCount::Round: p.steps = std::lround(q); break;
  }
  if (p.steps < 1) throw InputError("command line", 0, "h", fmt::format("step {} is longer than the duration {}", p.h, p.duration));
  return p;
}

namespace {

json sample_json(const Model& model, const State& s) {
  json positions = json::array(), velocities = json::array(), orient = json::array(), omega = json::array();
  bool rigid = false;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    if (model.bodies[i].is_static) continue;
    const BodyState& b = s.bodies[i];
    positions.push_back({b.x.x(), b.x.y(), b.x.z()});
    velocities.push_back({b.v.x(), b.v.y(), b.v.z()});
    orient.push_back({b.q.w(), b.q.x(), b.q.y(), b.q.z()});
    omega.push_back({b.w.x(), b.w.y(), b.w.z()});
    rigid = rigid || !model.bodies[i].particle;
  }
  json j = {{"t", s.t}, {"positions", positions}, {"velocities", velocities}, {"energy", total_energy(model, s)}};
  if (rigid) {
    j["orientations"] = orient;
    j["angular_velocities"] = omega;
  }
  return j;
}

json stats_json(const StepStats& st) {
  return {{"pos_iterations", st.pos_iterations}, {"vel_iterations", st.vel_iterations},
          {"pos_residual_last", st.pos_residual}, {"vel_residual_last", st.vel_residual},
          {"internal_steps", st.internal_steps}, {"rejected_steps", st.rejected_steps}};
}

// max over dynamic bodies of |x - x_ref| for each pair of samples at the same time
json reference_error(const json& samples, const json& ref_samples) {
  json out = json::array();
  double worst = 0;
  for (size_t i = 0; i < samples.size() && i < ref_samples.size(); ++i) {
    const json& a = samples[i]["positions"];
    const json& b = ref_samples[i]["positions"];
    double e = 0;
    for (size_t k = 0; k < a.size(); ++k) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) {
        double d = a[k][c].get<double>() - b[k][c].get<double>();
        d2 += d * d;
      }
      e = std::max(e, std::sqrt(d2));
    }
    worst = std::max(worst, e);
    out.push_back({{"t", samples[i]["t"]}, {"max_pos_error", e}});
  }
  return {{"per_sample", out}, {"max", worst}};
}

}  // namespace

json run_case(const Model& model, const std::string& method_spec, const RunConfig& cfg) {
  auto method = make_method(method_spec);
  const MethodInfo& info = method->info();
  const StepPlan plan = plan_steps(model, cfg);
  const double h = plan.h;

  // sample times: on the grid for fixed-step methods; anywhere in [0, duration] for adaptive ones
  std::vector<double> samples = cfg.samples;
  std::sort(samples.begin(), samples.end());
  const double t_end = plan.steps * h;
  std::vector<long> sample_step;  // grid index of each sample, or -1 if between grid points
  for (double s : samples) {
    if (!(s >= 0) || s > t_end * (1 + 1e-12))
      throw InputError("command line", 0, "samples", fmt::format("sample time {} is outside the run [0, {}]", s, t_end));
    double r = s / h;
    bool on_grid = std::abs(r - std::round(r)) <= 1e-9 * std::max(1.0, r);
    if (!on_grid && info.fixed_step)
      throw InputError("command line", 0, "samples",
                       fmt::format("sample time {} is not a whole multiple of h = {} (fixed-step method {}); "
                                   "choose h dividing every sample time",
                                   s, h, info.name));
    sample_step.push_back(on_grid ? std::lround(r) : -1);
  }

  State state = initial_state(model);
  method->init(model, state);

  auto observers = make_observers(model);
  RunContext ctx{h, plan.steps, plan.steps_per_period, cfg.ld_periods == LdPeriods::Half,
                 cfg.ld_periods == LdPeriods::WholeWithStart};
  StepView v0 = view_state(model, state, 0);
  for (auto& o : observers) o->begin(model, ctx, v0);

  json sample_list = json::array();
  size_t next_sample = 0;
  auto take_samples_at_step = [&](long i) {
    while (next_sample < samples.size() && sample_step[next_sample] == i) {
      json sj = sample_json(model, state);
      sj["t"] = samples[next_sample];
      sample_list.push_back(sj);
      ++next_sample;
    }
  };
  take_samples_at_step(0);

  StepStats stats, last;
  std::string failure;
  double fail_time = 0;
  long done = 0;
  double step_seconds = 0;
  for (long i = 1; i <= plan.steps; ++i) {
    const double t_i = static_cast<double>(i) * h;
    try {
      auto c0 = std::chrono::steady_clock::now();
      // adaptive methods land on sample times between grid points
      while (next_sample < samples.size() && sample_step[next_sample] < 0 && samples[next_sample] < t_i) {
        method->step(model, state, samples[next_sample] - state.t, stats);
        state.t = samples[next_sample];
        sample_list.push_back(sample_json(model, state));
        ++next_sample;
      }
      StepStats one;
      method->step(model, state, t_i - state.t, one);
      step_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count();
      stats.pos_iterations += one.pos_iterations;
      stats.vel_iterations += one.vel_iterations;
      stats.internal_steps += one.internal_steps;
      stats.rejected_steps += one.rejected_steps;
      stats.t_assembly += one.t_assembly;
      stats.t_factorization += one.t_factorization;
      stats.t_solve += one.t_solve;
      stats.t_integration += one.t_integration;
      stats.pos_residual = one.pos_residual;
      stats.vel_residual = one.vel_residual;
    } catch (const SimulationError& e) {
      failure = e.what();
      fail_time = t_i;
      break;
    }
    state.t = t_i;  // the runner's clock: exact multiples of h
    StepView v = view_state(model, state, i);
    if (!v.finite) {
      failure = "non-finite state";
      fail_time = t_i;
      break;
    }
    if (v.joint.pos > cfg.fail_threshold) {
      failure = fmt::format("max constraint error {:.3g} m exceeds {} m", v.joint.pos, cfg.fail_threshold);
      fail_time = t_i;
      break;
    }
    for (auto& o : observers) o->observe(model, state, v);
    done = i;
    take_samples_at_step(i);
  }

  json metrics = json::object();
  for (const auto& o : observers) o->write(metrics);

  json rec;
  rec["schema_version"] = 2;
  rec["model"] = {{"name", model.info.name}, {"source", model.info.source}, {"bodies", model.bodies.size()},
                  {"joints", model.joints.size()}};
  if (model.info.period) rec["model"]["period"] = *model.info.period;
  rec["method"] = {{"spec", method_spec}, {"name", info.name}, {"order", info.order}};
  rec["h_requested"] = plan.h_requested;
  rec["h"] = h;
  rec["duration"] = plan.duration;
  rec["steps"] = plan.steps;
  rec["steps_done"] = done;
  rec["status"] = failure.empty() ? "ok" : "failed";
  rec["failure"] = failure.empty() ? json(nullptr) : json{{"reason", failure}, {"t", fail_time}};
  rec["metrics"] = metrics;
  rec["readings"] = {{"steps", to_string(cfg.steps)}, {"ld_periods", to_string(cfg.ld_periods)},
                     {"round_to_period", cfg.round_to_period}, {"fail_threshold", cfg.fail_threshold}};
  rec["stats"] = stats_json(stats);
  // everything above is bit-identical for the same inputs and build; provenance (where, when,
  // and the wall time it took, which depends on the machine's load) is not
  rec["provenance"] = provenance();
  rec["provenance"]["timing"] = {{"step_seconds_total", step_seconds},
                                 {"step_seconds_mean", done ? step_seconds / static_cast<double>(done) : 0.0},
                                 {"assembly", stats.t_assembly}, {"factorization", stats.t_factorization},
                                 {"solve", stats.t_solve}, {"integration", stats.t_integration}};
  if (!samples.empty()) {
    rec["samples"] = sample_list;
    if (cfg.ref_error && info.name != "ref") {
      RunConfig rc = cfg;
      rc.ref_error = false;
      rc.duration = plan.duration;
      rc.h = h;
      rc.round_to_period = false;
      try {
        json ref = run_case(model, cfg.ref_spec, rc);
        rec["ref_error"] = reference_error(sample_list, ref["samples"]);
        rec["metrics"]["ref_error_max"] = rec["ref_error"]["max"];
      } catch (const UnsupportedModel& e) {
        rec["ref_error"] = {{"note", std::string("no reference: ") + e.what()}};
      }
    }
  }
  return rec;
}

}  // namespace mb
