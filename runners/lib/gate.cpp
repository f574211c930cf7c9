#include "runners/lib/gate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "metrics/fit.hpp"
#include "models/catalog.hpp"
#include "runners/lib/provenance.hpp"
#include "runners/lib/run_case.hpp"

namespace mb {

using nlohmann::json;

namespace {

const std::vector<std::string> kMetrics = {"ED", "LD", "CD_pos_mean", "ref_error_max"};
constexpr const char* kTimingReference = "linear";

std::vector<std::string> gate_methods(const GateConfig& cfg) {
  if (!cfg.methods.empty()) return cfg.methods;
  std::vector<std::string> m;
  for (const auto& e : method_registry())
    if (e.info.name != "ref" && e.info.name.rfind("test-", 0) != 0) m.push_back(e.info.name);
  return m;
}

std::string hkey(double h) { return fmt::format("{:g}", h); }

// one accuracy case; never throws for a simulation problem
json accuracy_case(const std::string& model_spec, const std::string& method, double h, double duration) {
  json c = {{"method", method}, {"model", model_spec}, {"h", h}};
  try {
    Model model = build_model(model_spec);
    RunConfig rc;
    rc.h = h;
    rc.duration = duration;
    StepPlan plan = plan_steps(model, rc);
    rc.samples = {static_cast<double>(plan.steps) * plan.h};  // the end of the run: error against ref
    json rec = run_case(model, method, rc);
    c["h_simulated"] = rec["h"];
    c["status"] = rec["status"];
    c["failure"] = rec["failure"].is_null() ? json(nullptr) : rec["failure"]["reason"];
    json m = json::object();
    for (const auto& k : kMetrics)
      if (rec["metrics"].contains(k) && rec["metrics"][k].is_number()) m[k] = rec["metrics"][k];
    c["metrics"] = m;
  } catch (const UnsupportedModel& e) {
    c["status"] = "unsupported";
    c["failure"] = e.what();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    c["status"] = "failed";
    c["failure"] = e.what();
  }
  return c;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// One method stepping the tree. A timed window is always the same work: a fresh run (initial
// state, init, and the first 3 steps with the torque pulse, untimed, as bench/step_bench.cpp
// does), then kWindow timed steps. A repetition times windows until `seconds` have passed, so
// every repetition of a method does the same steps, whatever the state-dependent iteration
// counts of the impulse methods are further into the run.
constexpr int kWindow = 4;
struct Stepper {
  std::string method;
  std::unique_ptr<Method> m;
  State s;
  int taken = 0;
  StepStats stats;
  std::vector<double> per_step;  // one entry per repetition
  std::string failure;
  double h = 1.0 / 30;

  void restart(const Model& model) {
    s = initial_state(model);
    m->init(model, s);
    for (taken = 0; taken < 3; ++taken) one(model);
  }
  void one(const Model& model) {
    m->step(model, s, h, stats);
    s.t = (taken + 1) * h;
  }
  // returns the wall time per timed step
  double repetition(const Model& model, double seconds) {
    using clock = std::chrono::steady_clock;
    double total = 0;
    long n = 0;
    do {
      restart(model);
      auto t0 = clock::now();
      for (int k = 0; k < kWindow; ++k, ++taken) one(model);
      total += std::chrono::duration<double>(clock::now() - t0).count();
      n += kWindow;
    } while (total < seconds);
    return total / static_cast<double>(n);
  }
};

json timing_set(const GateConfig& cfg, const std::vector<std::string>& methods, json& unsupported) {
  json out = json::array();
  for (int joints : cfg.timing_joints) {
    const std::string spec = fmt::format("tree:joints={}", joints);
    if (cfg.progress) std::cerr << fmt::format("gate: timing on {}\n", spec);
    const Model model = build_model(spec);
    std::vector<Stepper> st;
    for (const auto& name : methods) {
      if (!gate_times(name, joints)) continue;
      Stepper x;
      x.method = name;
      x.m = make_method(name);
      try {
        x.restart(model);
      } catch (const UnsupportedModel& e) {
        unsupported.push_back({{"method", name}, {"model", spec}, {"reason", e.what()}});
        continue;
      } catch (const std::exception& e) {
        x.failure = e.what();
      }
      st.push_back(std::move(x));
    }
    // interleaved and paired: in each repetition `linear` runs right before each method, and the
    // ratio of the two is taken there, so that a change of the machine's load between repetitions
    // falls alike on both; the gated number is the median of these per-repetition ratios
    Stepper* ref = nullptr;
    for (auto& x : st)
      if (x.method == kTimingReference && x.failure.empty()) ref = &x;
    std::map<std::string, std::vector<double>> ratios;
    for (int r = 0; r < cfg.timing_reps; ++r)
      for (auto& x : st) {
        if (!x.failure.empty()) continue;
        try {
          double tr = ref && ref != &x ? ref->repetition(model, cfg.timing_rep_seconds) : 0;
          double tx = x.repetition(model, cfg.timing_rep_seconds);
          x.per_step.push_back(tx);
          if (ref) ratios[x.method].push_back(ref == &x ? 1.0 : tx / tr);
        } catch (const std::exception& e) {
          x.failure = e.what();
        }
      }
    for (auto& x : st) {
      json t = {{"method", x.method}, {"joints", joints}, {"reps", x.per_step.size()}};
      if (!x.failure.empty()) {
        t["status"] = "failed";
        t["failure"] = x.failure;
      } else {
        t["status"] = "ok";
        t["median_s"] = median(x.per_step);
        t["min_s"] = *std::min_element(x.per_step.begin(), x.per_step.end());
        t["max_s"] = *std::max_element(x.per_step.begin(), x.per_step.end());
        if (ref) {
          auto& q = ratios[x.method];
          t["ratio_to_linear"] = median(q);
          t["ratio_min"] = *std::min_element(q.begin(), q.end());
          t["ratio_max"] = *std::max_element(q.begin(), q.end());
        }
      }
      out.push_back(t);
    }
  }
  return out;
}

}  // namespace

bool gate_times(const std::string& method, int joints) {
  // dense O(n^3) Lagrange methods and the higher-order impulse methods (k sub-steps of the
  // iterative corrections) take 0.1-1 s per step at 255 joints: timed at 63 joints only
  static const std::set<std::string> slow = {"LM4", "LMBS4", "LMV4", "LMVD4", "lagrange",
                                             "Imp2", "Imp4", "Imp6", "Imp8", "Imp10"};
  return joints <= 63 || slow.count(method) == 0;
}

json run_gate(const GateConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> methods = gate_methods(cfg);
  for (const auto& m : methods) make_method(m);  // an unknown name stops here, before any case
  for (const auto& m : cfg.models) build_model(m);

  struct Job {
    std::string model, method;
    double h;
  };
  std::vector<Job> jobs;
  for (const auto& model : cfg.models)
    for (const auto& method : methods)
      for (double h : cfg.h) jobs.push_back({model, method, h});
  if (cfg.progress) std::cerr << fmt::format("gate: {} accuracy cases on {} thread(s)\n", jobs.size(), cfg.jobs);
  std::vector<json> results(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex err_mutex;
  std::exception_ptr err;
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        results[i] = accuracy_case(jobs[i].model, jobs[i].method, jobs[i].h, cfg.duration);
      } catch (...) {
        std::lock_guard<std::mutex> lock(err_mutex);
        err = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, cfg.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);

  json cases = json::array(), unsupported = json::array();
  std::set<std::string> seen_unsupported;
  for (auto& c : results) {
    if (c["status"] == "unsupported") {
      std::string k = c["method"].get<std::string>() + " " + c["model"].get<std::string>();
      if (seen_unsupported.insert(k).second)
        unsupported.push_back({{"method", c["method"]}, {"model", c["model"]}, {"reason", c["failure"]}});
      continue;
    }
    cases.push_back(std::move(c));
  }
  const auto t1 = std::chrono::steady_clock::now();
  json timing = timing_set(cfg, methods, unsupported);
  const auto t2 = std::chrono::steady_clock::now();

  json j;
  j["schema_version"] = 1;
  j["kind"] = "mbbench gate";
  j["config"] = {{"models", cfg.models}, {"h", cfg.h}, {"duration", cfg.duration},
                 {"timing_joints", cfg.timing_joints}, {"timing_reps", cfg.timing_reps},
                 {"timing_rep_seconds", cfg.timing_rep_seconds}, {"timing_window_steps", kWindow}, {"timing_reference", kTimingReference},
                 {"metrics", kMetrics}};
  j["methods"] = methods;
  j["cases"] = cases;
  j["unsupported"] = unsupported;
  j["timing"] = timing;
  j["provenance"] = provenance();
  j["provenance"]["gate_seconds"] = {{"accuracy", std::chrono::duration<double>(t1 - t0).count()},
                                     {"timing", std::chrono::duration<double>(t2 - t1).count()}};
  return j;
}

namespace {

std::string num(double x) { return fmt::format("{:.6g}", x); }

struct Key {
  std::string method, model;
  double h;
  bool operator<(const Key& o) const { return std::tie(method, model, h) < std::tie(o.method, o.model, o.h); }
};

std::map<Key, const json*> index_cases(const json& r) {
  std::map<Key, const json*> m;
  if (!r.contains("cases")) return m;
  for (const auto& c : r["cases"]) m[{c["method"], c["model"], c["h"].get<double>()}] = &c;
  return m;
}

// two-point orders of each method x model x metric between the smallest and the largest h
std::map<std::string, double> orders(const std::map<Key, const json*>& cases, const std::vector<double>& hs,
                                     double floor, std::map<std::string, std::string>& labels) {
  std::map<std::string, double> out;
  if (hs.size() < 2) return out;
  const double h1 = *std::min_element(hs.begin(), hs.end()), h2 = *std::max_element(hs.begin(), hs.end());
  std::set<std::pair<std::string, std::string>> mm;
  for (const auto& [k, c] : cases) mm.insert({k.method, k.model});
  for (const auto& [method, model] : mm) {
    auto a = cases.find({method, model, h1}), b = cases.find({method, model, h2});
    if (a == cases.end() || b == cases.end()) continue;
    const json &ca = *a->second, &cb = *b->second;
    if (ca["status"] != "ok" || cb["status"] != "ok") continue;
    for (const auto& metric : kMetrics) {
      if (!ca["metrics"].contains(metric) || !cb["metrics"].contains(metric)) continue;
      double w1 = ca["metrics"][metric], w2 = cb["metrics"][metric];
      if (!(w1 > 10 * floor) || !(w2 > 10 * floor)) continue;  // round-off: no order
      PowerFit f = two_point_fit(ca.value("h_simulated", h1), w1, cb.value("h_simulated", h2), w2);
      std::string key = fmt::format("{}|{}|{}", method, model, metric);
      out[key] = f.order;
      labels[key] = fmt::format("{} {} (h {:g}..{:g})", method, model, h1, h2);
    }
  }
  return out;
}

}  // namespace

GateComparison compare_gate(const json& base, const json& now, const GateTolerances& tol) {
  GateComparison c;
  auto add = [&](std::string metric, std::string kase, std::string b, std::string n, std::string t, std::string v,
                 bool reg) {
    c.rows.push_back({std::move(metric), std::move(kase), std::move(b), std::move(n), std::move(t), std::move(v), reg});
    if (reg) ++c.regressions;
  };
  const json& bc = base["config"];
  const json& nc = now["config"];
  if (bc.value("duration", 0.0) != nc.value("duration", 0.0))
    throw Error(fmt::format("gate: the baseline ran {} s cases, this run {} s: not comparable (update the baseline)",
                            bc.value("duration", 0.0), nc.value("duration", 0.0)));

  std::set<std::string> registered;
  for (const auto& e : method_registry()) registered.insert(e.info.name);
  std::set<std::string> base_methods, now_methods;
  for (const auto& m : base.value("methods", json::array())) base_methods.insert(m.get<std::string>());
  for (const auto& m : now.value("methods", json::array())) now_methods.insert(m.get<std::string>());
  for (const auto& m : now_methods)
    if (!base_methods.count(m)) add("method", m, "-", "run", "-", "new (not in the baseline)", false);
  for (const auto& m : base_methods)
    if (!registered.count(m)) add("method", m, "in baseline", "-", "-", "no longer registered", false);
  for (const auto& u : now.value("unsupported", json::array()))
    c.notes.push_back(fmt::format("skipped: {} cannot run {}: {}", u["method"].get<std::string>(), u["model"].get<std::string>(),
                                  u["reason"].get<std::string>()));

  // accuracy: each case the baseline and this run both have
  auto bcases = index_cases(base), ncases = index_cases(now);
  const double lf = std::log(tol.metric_factor);
  long filtered = 0;
  for (const auto& [k, b] : bcases) {
    auto it = ncases.find(k);
    if (it == ncases.end()) {
      if (now_methods.count(k.method) && registered.count(k.method)) {
        bool model_run = false;
        for (const auto& m : nc["models"]) model_run = model_run || m == k.model;
        bool h_run = false;
        for (const auto& h : nc["h"]) h_run = h_run || h.get<double>() == k.h;
        if (model_run && h_run) {
          add("status", fmt::format("{} {} h={}", k.method, k.model, hkey(k.h)), (*b)["status"], "not run", "-",
              "missing now", false);
          continue;
        }
      }
      ++filtered;
      continue;
    }
    const json& n = *it->second;
    const std::string kase = fmt::format("{} {} h={}", k.method, k.model, hkey(k.h));
    ++c.compared;
    const std::string bs = (*b)["status"], ns = n["status"];
    if (bs == "ok" && ns != "ok") {
      add("status", kase, "ok", fmt::format("failed: {}", n.contains("failure") && n["failure"].is_string() ? n["failure"].get<std::string>() : ""),
          "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    if (bs != "ok" && ns == "ok") {
      add("status", kase, "failed", "ok", "no new failures", "fixed (was failed)", false);
      continue;
    }
    if (bs != "ok") continue;
    for (const auto& metric : kMetrics) {
      const json &bm = (*b)["metrics"], &nm = n["metrics"];
      if (!bm.contains(metric) && !nm.contains(metric)) continue;
      if (!bm.contains(metric) || !nm.contains(metric)) {
        add(metric, kase, bm.contains(metric) ? num(bm[metric]) : "-", nm.contains(metric) ? num(nm[metric]) : "-", "-",
            "metric appeared/disappeared", false);
        continue;
      }
      const double bv = bm[metric], nv = nm[metric];
      ++c.compared;
      if (bv == nv) continue;  // bit-identical: not listed
      const double r = std::log(std::max(nv, tol.metric_floor) / std::max(bv, tol.metric_floor));
      const std::string t = fmt::format("x{:g}", tol.metric_factor);
      if (std::abs(r) <= lf + 1e-15) add(metric, kase, num(bv), num(nv), t, "ok (within)", false);
      else if (r > 0) add(metric, kase, num(bv), num(nv), t, fmt::format("REGRESSION (x{:.3g} worse)", std::exp(r)), true);
      else {
        add(metric, kase, num(bv), num(nv), t, fmt::format("improved (x{:.3g} better)", std::exp(-r)), false);
        ++c.improved;
      }
    }
  }
  if (filtered) c.notes.push_back(fmt::format("{} baseline cases not selected in this run (not compared)", filtered));

  // orders over the step sizes
  std::vector<double> hs;
  for (const auto& h : nc["h"]) hs.push_back(h);
  std::map<std::string, std::string> labels;
  auto bo = orders(bcases, hs, tol.metric_floor, labels), no = orders(ncases, hs, tol.metric_floor, labels);
  for (const auto& [key, bv] : bo) {
    auto it = no.find(key);
    if (it == no.end()) continue;  // a failed case is counted above
    ++c.compared;
    const double nv = it->second;
    if (bv == nv) continue;
    const std::string metric = "order " + key.substr(key.rfind('|') + 1);
    const std::string t = fmt::format("+-{:g}", tol.order_abs);
    bool reg = std::abs(nv - bv) > tol.order_abs + 1e-12;
    add(metric, labels[key], fmt::format("{:.4f}", bv), fmt::format("{:.4f}", nv), t,
        reg ? fmt::format("REGRESSION (moved {:+.3f})", nv - bv) : "ok (within)", reg);
  }

  // timing: ratios to linear in the same run
  std::map<std::pair<std::string, int>, const json*> bt;
  static const json none = json::array();
  for (const auto& t : base.contains("timing") ? base["timing"] : none) bt[{t["method"], t["joints"].get<int>()}] = &t;
  for (const auto& t : now.value("timing", json::array())) {
    const std::string kase = fmt::format("{} tree:joints={}", t["method"].get<std::string>(), t["joints"].get<int>());
    auto it = bt.find({t["method"], t["joints"].get<int>()});
    if (it == bt.end()) continue;  // a new method is reported above
    const json& b = *it->second;
    if (b["status"] == "ok" && t["status"] != "ok") {
      add("timing status", kase, "ok", "failed", "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    if (!b.contains("ratio_to_linear") || !t.contains("ratio_to_linear")) continue;
    ++c.compared;
    const double bv = b["ratio_to_linear"], nv = t["ratio_to_linear"];
    if (bv == nv) continue;  // identical: not listed
    const double q = nv / bv;
    const std::string tt = fmt::format("x{:g}", tol.timing_factor);
    if (q > tol.timing_factor) add("time/linear", kase, num(bv), num(nv), tt, fmt::format("REGRESSION (x{:.3g} slower)", q), true);
    else if (q < 1 / tol.timing_factor) add("time/linear", kase, num(bv), num(nv), tt, fmt::format("faster (x{:.3g})", 1 / q), false);
    else add("time/linear", kase, num(bv), num(nv), tt, "ok (within)", false);
  }
  return c;
}

std::string gate_text(const GateComparison& c) {
  std::vector<std::string> head = {"metric", "case", "baseline", "now", "tolerance", "verdict"};
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  auto cells = [](const GateRow& r) { return std::vector<std::string>{r.metric, r.kase, r.baseline, r.now, r.tolerance, r.verdict}; };
  for (const auto& r : c.rows) {
    auto v = cells(r);
    for (size_t i = 0; i < v.size(); ++i) w[i] = std::max(w[i], v[i].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{:<{}}{}", v[i], w[i], i + 1 < v.size() ? "  " : "\n");
    return s;
  };
  std::string out;
  if (!c.rows.empty()) {
    out += line(head);
    for (const auto& r : c.rows) out += line(cells(r));
  }
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += fmt::format("gate: {} values compared; {} moved; {} regression(s); {} improved\n", c.compared, c.rows.size(),
                     c.regressions, c.improved);
  return out;
}

}  // namespace mb
