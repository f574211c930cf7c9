// The gate's measurements: accuracy cases, the time signal (against the timing reference, or A/B
// against another build) and the instruction counts (gate/children.cpp runs them).
#include <algorithm>
#include <atomic>
#include <chrono>
#include <iostream>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include <unistd.h>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/stats.hpp"
#include "experiments/experiment.hpp"
#include "gate/process.hpp"
#include "methods/method.hpp"
#include "sim/run_case.hpp"

namespace mb {

using namespace gate_detail;

namespace {

// the accuracy methods: as given, or every registered method but the reference method
std::vector<std::string> accuracy_methods(const GateConfig& cfg) {
  if (!cfg.methods.empty()) return cfg.methods;
  std::vector<std::string> m;
  for (const auto& e : method_registry())
    if (!e.info.reference) m.push_back(e.info.name);
  return m;
}

// one accuracy case on its model (built once per model spec); never throws for a simulation
// problem
GateCase accuracy_case(const Model& model, const std::string& model_spec, const std::string& method, double h, double duration) {
  GateCase c;
  c.method = method;
  c.model = model_spec;
  c.h = h;
  try {
    RunConfig rc;
    rc.h = h;
    rc.duration = duration;
    StepPlan plan = plan_steps(model, rc);
    rc.samples = {static_cast<double>(plan.steps) * plan.h};  // the end of the run: error against the reference
    CaseRecord rec = run_case(model, method, rc);
    c.h_simulated = rec.h;
    c.status = rec.status;
    c.failure = rec.reason;
    for (const auto& k : gate_metrics())
      if (auto v = rec.metrics.get(k)) c.metrics.set(k, *v);
  } catch (const UnsupportedModel& e) {
    c.status = Status::Unsupported;
    c.failure = e.what();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    c.status = Status::Failed;
    c.failure = e.what();
  }
  return c;
}

// The time cases, timed at each size on one tree built once: interleaved and paired, the
// timing reference right before each method in every repetition, and the ratio of the two taken
// there, so that a change of the machine's load between repetitions falls alike on both; the
// gated number is the median of these ratios.
std::vector<GateTiming> timing_set(const GateConfig& cfg, const std::vector<std::pair<std::string, int>>& cases, const std::string& reference,
                                   std::vector<GateUnsupported>& unsupported) {
  std::vector<GateTiming> out;
  for (int joints : cfg.timing_joints) {
    const std::string spec = fmt::format("tree:joints={}", joints);
    std::vector<std::string> names;
    for (const auto& [m, j] : cases)
      if (j == joints) names.push_back(m);
    if (names.empty()) continue;
    if (cfg.progress) std::cerr << fmt::format("gate: timing {} methods on {}\n", names.size(), spec);
    const SharedModel model = build_shared_model(spec);
    std::vector<Timed> st;
    for (const auto& name : names) {
      Timed x;
      x.method = name;
      try {
        x.timer = std::make_unique<StepTimer>(*model, name, 1.0 / 30);
        x.timer->restart();
      } catch (const UnsupportedModel& e) {
        unsupported.push_back({name, spec, e.what()});
        continue;
      } catch (const std::exception& e) {
        x.failure = e.what();
      }
      st.push_back(std::move(x));
    }
    Timed* ref = nullptr;
    for (auto& x : st)
      if (x.method == reference && x.failure.empty()) ref = &x;
    std::map<std::string, std::vector<double>> ratios;
    for (int r = 0; r < cfg.timing_reps; ++r)
      for (auto& x : st) {
        if (!x.failure.empty()) continue;
        try {
          const double tr = ref && ref != &x ? ref->repetition(cfg.timing_rep_seconds) : 0;
          const double tx = x.repetition(cfg.timing_rep_seconds);
          x.per_step.push_back(tx);
          if (ref) ratios[x.method].push_back(ref == &x ? 1.0 : tx / tr);
        } catch (const std::exception& e) {
          x.failure = e.what();
        }
      }
    for (auto& x : st) {
      GateTiming t;
      t.method = x.method;
      t.joints = joints;
      t.reps = static_cast<long>(x.per_step.size());
      if (!x.failure.empty()) {
        t.status = Status::Failed;
        t.failure = x.failure;
      } else if (!x.per_step.empty()) {
        t.median_s = median(x.per_step);
        t.min_s = *std::min_element(x.per_step.begin(), x.per_step.end());
        t.max_s = *std::max_element(x.per_step.begin(), x.per_step.end());
        if (ref) {
          auto& q = ratios[x.method];
          t.ratio = median(q);
          t.ratio_min = *std::min_element(q.begin(), q.end());
          t.ratio_max = *std::max_element(q.begin(), q.end());
          t.ratios = q;
        }
      }
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace

bool gate_times(const std::string& method, int joints) {
  const MethodEntry* e = find_method(Spec::parse(method, "method").name());
  return joints <= 63 || (e && e->info.timing_max_joints >= 1023);
}

GateCases gate_cases(const GateConfig& cfg) {
  GateCases c;
  const std::string reference = timing_reference_name();
  const std::vector<std::string> given = cfg.methods;
  for (int joints : cfg.timing_joints) {
    if (!cfg.time_cases.empty()) {
      for (const auto& c2 : cfg.time_cases)
        if (c2.second == joints) c.time.push_back(c2);
    } else if (given.empty()) {
      c.time.push_back({reference, joints});
      for (const auto& e : method_registry()) {
        const auto& j = e.info.gate_time_joints;
        if (e.info.name != reference && std::find(j.begin(), j.end(), joints) != j.end()) c.time.push_back({e.info.name, joints});
      }
    } else {
      for (const auto& m : given)
        if (gate_times(m, joints)) c.time.push_back({m, joints});
    }
    for (const auto& m : accuracy_methods(cfg)) {
      const MethodEntry* e = find_method(Spec::parse(m, "method").name());
      if (e && e->info.timing_table && gate_times(m, joints)) c.instructions.push_back({m, joints});
    }
  }
  return c;
}

GateRecord run_gate(const GateConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> methods = accuracy_methods(cfg);
  for (const auto& m : methods) make_method(m);  // an unknown name stops here, before any case
  // each accuracy model built once, shared (read-only) by its cases
  std::map<std::string, SharedModel> models;
  for (const auto& m : cfg.models) models.emplace(m, build_shared_model(m));
  const std::string reference = timing_reference_name();
  const GateCases cases = gate_cases(cfg);

  struct Job {
    std::string model, method;
    double h;
  };
  std::vector<Job> jobs;
  for (const auto& model : cfg.models)
    for (const auto& method : methods)
      for (double h : cfg.h) jobs.push_back({model, method, h});
  if (cfg.progress) std::cerr << fmt::format("gate: {} accuracy cases on {} thread(s)\n", jobs.size(), cfg.jobs);
  std::vector<GateCase> results(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex err_mutex;  // guards err, the meter and its counts
  std::exception_ptr err;
  ProgressMeter meter("gate: accuracy", static_cast<long>(jobs.size()), cfg.case_progress);
  long done = 0, failed = 0;
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        results[i] = accuracy_case(*models.at(jobs[i].model), jobs[i].model, jobs[i].method, jobs[i].h, cfg.duration);
        std::lock_guard<std::mutex> lock(err_mutex);
        if (results[i].status == Status::Failed) ++failed;
        meter.update(++done, failed);
      } catch (...) {
        std::lock_guard<std::mutex> lock(err_mutex);
        err = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, cfg.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  meter.finish();
  if (err) std::rethrow_exception(err);

  GateRecord g;
  std::set<std::string> seen_unsupported;
  for (auto& c : results) {
    if (c.status == Status::Unsupported) {
      if (seen_unsupported.insert(c.method + " " + c.model).second) g.unsupported.push_back({c.method, c.model, c.failure});
      continue;
    }
    g.cases.push_back(std::move(c));
  }
  const auto t1 = std::chrono::steady_clock::now();
  // the cachegrind children first (in parallel: counts do not depend on the load), then the
  // timed repetitions alone
  if (cfg.progress && cfg.instructions && !cases.instructions.empty())
    std::cerr << fmt::format("gate: instruction counts of {} cases under cachegrind\n", cases.instructions.size());
  const auto counts = count_instructions(cfg, cases.instructions, g.instructions_note);
  if (cfg.time) g.timing = timing_set(cfg, cases.time, reference, g.unsupported);
  for (const auto& key : cases.instructions) {
    auto it = counts.find(key);
    if (it == counts.end()) continue;
    auto t = std::find_if(g.timing.begin(), g.timing.end(), [&](const GateTiming& x) { return x.method == key.first && x.joints == key.second; });
    if (t == g.timing.end()) {
      GateTiming x;
      x.method = key.first;
      x.joints = key.second;
      g.timing.push_back(x);
      t = g.timing.end() - 1;
    }
    if (it->second.per_step) {
      t->instructions = it->second.per_step->instructions;
      t->ll_misses = it->second.per_step->ll_misses;
    } else {
      g.instructions_note = fmt::format("not measured for {} at {} joints: {}", key.first, key.second, it->second.failure);
    }
  }
  std::stable_sort(g.timing.begin(), g.timing.end(), [](const GateTiming& a, const GateTiming& b) { return a.joints < b.joints; });
  if (!counts.empty()) g.instruction_steps = {static_cast<double>(cfg.instruction_steps[0]), static_cast<double>(cfg.instruction_steps[1])};
  const auto t2 = std::chrono::steady_clock::now();

  g.models = cfg.models;
  g.h = cfg.h;
  g.duration = cfg.duration;
  g.timing_joints = cfg.timing_joints;
  g.timing_reps = cfg.timing_reps;
  g.timing_rep_seconds = cfg.timing_rep_seconds;
  g.timing_window_steps = kWindow;
  g.timing_reference = reference;
  g.metrics = gate_metrics();
  g.methods = methods;
  g.provenance = current_provenance();
  g.accuracy_seconds = std::chrono::duration<double>(t1 - t0).count();
  g.timing_seconds = std::chrono::duration<double>(t2 - t1).count();
  return g;
}

void check_other_build(const std::string& other) {
  if (::access(other.c_str(), X_OK) != 0) throw InputError("command line", 0, "against", fmt::format("'{}' is not an executable", other));
  // its children load the same plugins: a build that refuses one cannot time their methods
  if (const std::string why = plugins_refused(other); !why.empty())
    throw InputError("command line", 0, "against", fmt::format("'{}' cannot load the plugins of MBBENCH_PLUGINS: {}", other, why));
}

std::vector<AbTiming> gate_ab(const GateConfig& cfg, const std::string& other, bool instructions) {
  std::vector<AbCase> cases;
  for (const auto& [m, j] : gate_cases(cfg).time) cases.push_back({m, m, j});
  return gate_ab_cases(cfg, other, cases, instructions);
}

std::vector<AbTiming> gate_ab_cases(const GateConfig& cfg, const std::string& other, const std::vector<AbCase>& cases, bool instructions) {
  const std::string self = cfg.exe.empty() ? self_exe() : cfg.exe;
  check_other_build(other);
  for (const auto& c : cases) make_method(c.self);
  // each build's repetitions in fresh child processes every kRepsPerChild: a process's own memory
  // layout (address randomization) can slow one method by a few percent in every repetition it
  // times, a difference of processes, not of builds, which interleaving does not cancel
  constexpr int kRepsPerChild = 8;
  std::optional<ServeChild> pa, pb;
  std::vector<AbTiming> out;
  // a method that does not run the tree is said so, untimed (gate(): skipped by its features)
  std::map<int, SharedModel> trees;
  for (const auto& c : cases) {
    out.push_back({c.self, c.joints, {}, {}, "", std::nullopt, std::nullopt, false});
    SharedModel& tree = trees[c.joints];
    if (!tree) tree = build_shared_model(fmt::format("tree:joints={}", c.joints));
    if (const std::string why = unsupported_reason(make_method(c.self)->info(), *tree); !why.empty()) {
      out.back().failure = why;
      out.back().unsupported = true;
    }
  }
  for (int joints : cfg.timing_joints) {
    if (cfg.progress) std::cerr << fmt::format("gate: A/B timing on tree:joints={}\n", joints);
    for (int r = 0; r < cfg.ab_reps; ++r) {
      if (r % kRepsPerChild == 0) {
        pa.reset(), pb.reset();
        pa.emplace(self), pb.emplace(other);
      }
      ServeChild& a = *pa;
      ServeChild& b = *pb;
      for (size_t i = 0; i < cases.size(); ++i) {
        if (cases[i].joints != joints) continue;
        AbTiming& x = out[i];
        if (!x.failure.empty()) continue;
        auto one = [&](ServeChild& child, const std::string& method, std::vector<double>& into, const char* who) {
          auto v = child.time(method, joints, cfg.timing_rep_seconds);
          if (auto* s = std::get_if<double>(&v)) into.push_back(*s);
          else x.failure = fmt::format("{}: {}", who, std::get<std::string>(v));
        };
        if (r % 2 == 0) {
          one(a, cases[i].self, x.self, "this build");
          if (x.failure.empty()) one(b, cases[i].other, x.other, "other build");
        } else {
          one(b, cases[i].other, x.other, "other build");
          if (x.failure.empty()) one(a, cases[i].self, x.self, "this build");
        }
      }
    }
  }
  if (instructions) {
    std::vector<GateCaseKey> ka, kb;
    for (const auto& c : cases) {
      const MethodEntry* e = find_method(Spec::parse(c.self, "method").name());
      if (!e || !e->info.timing_table) continue;
      ka.push_back({c.self, c.joints});
      kb.push_back({c.other, c.joints});
    }
    GateConfig ca = cfg, cb = cfg;
    ca.exe = self;
    cb.exe = other;
    std::string note_a, note_b;
    const auto ia = count_instructions(ca, ka, note_a), ib = count_instructions(cb, kb, note_b);
    for (size_t i = 0; i < cases.size(); ++i) {
      auto fa = ia.find({cases[i].self, cases[i].joints}), fb = ib.find({cases[i].other, cases[i].joints});
      if (fa != ia.end() && fa->second.per_step) out[i].self_instructions = fa->second.per_step->instructions;
      if (fb != ib.end() && fb->second.per_step) out[i].other_instructions = fb->second.per_step->instructions;
    }
  }
  return out;
}

std::string gate_history_line(const GateRecord& g) {
  nlohmann::json j;
  j["commit"] = g.provenance.git_commit;
  j["date"] = g.provenance.date;
  j["build"] = fmt::format("{} {} {}", g.provenance.build_type, g.provenance.compiler, g.provenance.flags);
  j["machine"] = machine_key(g.provenance);
  nlohmann::json v = nlohmann::json::object();
  for (const auto& t : g.timing) {
    const std::string kase = fmt::format("{} tree:joints={}", t.method, t.joints);
    if (t.ratio) v["time/" + g.timing_reference + " " + kase] = *t.ratio;
    if (t.instructions) v["instructions " + kase] = *t.instructions;
    if (t.ll_misses) v["ll_misses " + kase] = *t.ll_misses;
  }
  j["values"] = v;
  return j.dump();
}

}  // namespace mb
