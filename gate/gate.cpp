#include "gate/gate.hpp"

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

#include "analysis/fit.hpp"
#include "bench/harness.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "methods/method.hpp"
#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace mb {

namespace {

const std::vector<std::string> kMetrics = {metric::ED, metric::LD, metric::CD_pos_mean, metric::ref_error_max};
// A timed window is always the same work: a fresh run (initial state, init, and the first 3
// steps with the torque pulse, untimed), then kWindow timed steps (bench/harness.hpp).
constexpr int kWindow = 4;

std::vector<std::string> gate_methods(const GateConfig& cfg) {
  if (!cfg.methods.empty()) return cfg.methods;
  std::vector<std::string> m;
  for (const auto& e : method_registry())
    if (!e.info.reference) m.push_back(e.info.name);
  return m;
}

std::string hkey(double h) { return fmt::format("{:g}", h); }

// one accuracy case: its record's gated metrics; never throws for a simulation problem
GateCase accuracy_case(const std::string& model_spec, const std::string& method, double h, double duration) {
  GateCase c;
  c.method = method;
  c.model = model_spec;
  c.h = h;
  try {
    Model model = load_model(model_spec);
    RunConfig rc;
    rc.h = h;
    rc.duration = duration;
    StepPlan plan = plan_steps(model, rc);
    rc.samples = {static_cast<double>(plan.steps) * plan.h};  // the end of the run: error against the reference
    CaseRecord rec = run_case(model, method, rc);
    c.h_simulated = rec.h;
    c.status = rec.status;
    c.failure = rec.reason;
    for (const auto& k : kMetrics)
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

struct Timed {
  std::string method;
  std::unique_ptr<StepTimer> timer;
  std::vector<double> per_step;  // one entry per repetition
  std::string failure;
  // one repetition: fresh windows until `seconds` have passed; the wall time per timed step
  double repetition(double seconds) {
    double total = 0;
    long n = 0;
    do {
      timer->restart();
      total += timer->window(kWindow);
      n += kWindow;
    } while (total < seconds);
    return total / static_cast<double>(n);
  }
};

std::vector<GateTiming> timing_set(const GateConfig& cfg, const std::vector<std::string>& methods, const std::string& reference,
                                   std::vector<GateUnsupported>& unsupported) {
  std::vector<GateTiming> out;
  for (int joints : cfg.timing_joints) {
    const std::string spec = fmt::format("tree:joints={}", joints);
    if (cfg.progress) std::cerr << fmt::format("gate: timing on {}\n", spec);
    const Model model = load_model(spec);
    std::vector<Timed> st;
    for (const auto& name : methods) {
      if (!gate_times(name, joints)) continue;
      Timed x;
      x.method = name;
      try {
        x.timer = std::make_unique<StepTimer>(model, name, 1.0 / 30);
        x.timer->restart();
      } catch (const UnsupportedModel& e) {
        unsupported.push_back({name, spec, e.what()});
        continue;
      } catch (const std::exception& e) {
        x.failure = e.what();
      }
      st.push_back(std::move(x));
    }
    // interleaved and paired: in each repetition the reference runs right before each method,
    // and the ratio of the two is taken there, so that a change of the machine's load between
    // repetitions falls alike on both; the gated number is the median of these ratios
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
      } else {
        t.median_s = median(x.per_step);
        t.min_s = *std::min_element(x.per_step.begin(), x.per_step.end());
        t.max_s = *std::max_element(x.per_step.begin(), x.per_step.end());
        if (ref) {
          auto& q = ratios[x.method];
          t.ratio = median(q);
          t.ratio_min = *std::min_element(q.begin(), q.end());
          t.ratio_max = *std::max_element(q.begin(), q.end());
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

GateRecord run_gate(const GateConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> methods = gate_methods(cfg);
  for (const auto& m : methods) make_method(m);  // an unknown name stops here, before any case
  for (const auto& m : cfg.models) load_model(m);
  const std::string reference = timing_reference_name();

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
  g.timing = timing_set(cfg, methods, reference, g.unsupported);
  const auto t2 = std::chrono::steady_clock::now();

  g.models = cfg.models;
  g.h = cfg.h;
  g.duration = cfg.duration;
  g.timing_joints = cfg.timing_joints;
  g.timing_reps = cfg.timing_reps;
  g.timing_rep_seconds = cfg.timing_rep_seconds;
  g.timing_window_steps = kWindow;
  g.timing_reference = reference;
  g.metrics = kMetrics;
  g.methods = methods;
  g.provenance = current_provenance();
  g.accuracy_seconds = std::chrono::duration<double>(t1 - t0).count();
  g.timing_seconds = std::chrono::duration<double>(t2 - t1).count();
  return g;
}

namespace {

std::string num(double x) { return fmt::format("{:.6g}", x); }

struct Key {
  std::string method, model;
  double h;
  bool operator<(const Key& o) const { return std::tie(method, model, h) < std::tie(o.method, o.model, o.h); }
};

std::map<Key, const GateCase*> index_cases(const GateRecord& r) {
  std::map<Key, const GateCase*> m;
  for (const auto& c : r.cases) m[{c.method, c.model, c.h}] = &c;
  return m;
}

// two-point orders of each method x model x metric between the smallest and the largest h
std::map<std::string, double> orders(const std::map<Key, const GateCase*>& cases, const std::vector<double>& hs,
                                     double floor, std::map<std::string, std::string>& labels) {
  std::map<std::string, double> out;
  if (hs.size() < 2) return out;
  const double h1 = *std::min_element(hs.begin(), hs.end()), h2 = *std::max_element(hs.begin(), hs.end());
  std::set<std::pair<std::string, std::string>> mm;
  for (const auto& [k, c] : cases) mm.insert({k.method, k.model});
  for (const auto& [method, model] : mm) {
    auto a = cases.find({method, model, h1}), b = cases.find({method, model, h2});
    if (a == cases.end() || b == cases.end()) continue;
    const GateCase &ca = *a->second, &cb = *b->second;
    if (ca.status != Status::Ok || cb.status != Status::Ok) continue;
    for (const auto& metric : kMetrics) {
      auto w1 = ca.metrics.get(metric), w2 = cb.metrics.get(metric);
      if (!w1 || !w2) continue;
      if (!(*w1 > 10 * floor) || !(*w2 > 10 * floor)) continue;  // round-off: no order
      PowerFit f = two_point_fit(ca.h_simulated, *w1, cb.h_simulated, *w2);
      std::string key = fmt::format("{}|{}|{}", method, model, metric);
      out[key] = f.order;
      labels[key] = fmt::format("{} {} (h {:g}..{:g})", method, model, h1, h2);
    }
  }
  return out;
}

}  // namespace

GateComparison compare_gate(const GateRecord& base, const GateRecord& now, const GateTolerances& tol) {
  GateComparison c;
  auto add = [&](std::string metric, std::string kase, std::string b, std::string n, std::string t, std::string v,
                 bool reg) {
    c.rows.push_back({std::move(metric), std::move(kase), std::move(b), std::move(n), std::move(t), std::move(v), reg});
    if (reg) ++c.regressions;
  };
  if (base.duration != now.duration)
    throw Error(fmt::format("gate: the baseline ran {} s cases, this run {} s: not comparable (update the baseline)",
                            base.duration, now.duration));
  if (base.timing_reference != now.timing_reference)
    c.notes.push_back(fmt::format("the timing reference changed from {} to {}: timing ratios not comparable",
                                  base.timing_reference, now.timing_reference));

  std::set<std::string> registered;
  for (const auto& e : method_registry()) registered.insert(e.info.name);
  std::set<std::string> base_methods(base.methods.begin(), base.methods.end()), now_methods(now.methods.begin(), now.methods.end());
  for (const auto& m : now_methods)
    if (!base_methods.count(m)) add("method", m, "-", "run", "-", "new (not in the baseline)", false);
  for (const auto& m : base_methods)
    if (!registered.count(Spec::parse(m, "method").name())) add("method", m, "in baseline", "-", "-", "no longer registered", false);
  for (const auto& u : now.unsupported) c.notes.push_back(fmt::format("skipped: {} cannot run {}: {}", u.method, u.model, u.reason));

  // accuracy: each case the baseline and this run both have
  auto bcases = index_cases(base), ncases = index_cases(now);
  const double lf = std::log(tol.metric_factor);
  long filtered = 0;
  for (const auto& [k, b] : bcases) {
    auto it = ncases.find(k);
    if (it == ncases.end()) {
      const bool model_run = std::find(now.models.begin(), now.models.end(), k.model) != now.models.end();
      const bool h_run = std::find(now.h.begin(), now.h.end(), k.h) != now.h.end();
      if (now_methods.count(k.method) && model_run && h_run) {
        add("status", fmt::format("{} {} h={}", k.method, k.model, hkey(k.h)), to_string(b->status), "not run", "-",
            "missing now", false);
        continue;
      }
      ++filtered;
      continue;
    }
    const GateCase& n = *it->second;
    const std::string kase = fmt::format("{} {} h={}", k.method, k.model, hkey(k.h));
    ++c.compared;
    if (b->status == Status::Ok && n.status != Status::Ok) {
      add("status", kase, "ok", fmt::format("failed: {}", n.failure), "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    if (b->status != Status::Ok && n.status == Status::Ok) {
      add("status", kase, "failed", "ok", "no new failures", "fixed (was failed)", false);
      continue;
    }
    if (b->status != Status::Ok) continue;
    for (const auto& metric : kMetrics) {
      auto bv = b->metrics.get(metric), nv = n.metrics.get(metric);
      if (!bv && !nv) continue;
      if (!bv || !nv) {
        add(metric, kase, bv ? num(*bv) : "-", nv ? num(*nv) : "-", "-", "metric appeared/disappeared", false);
        continue;
      }
      ++c.compared;
      if (*bv == *nv) continue;  // bit-identical: not listed
      // r > 0: worse by the registry's direction
      const MetricInfo* info = metric_info(metric);
      const double worse = info && info->better == Better::Higher ? -1.0 : 1.0;
      const double r = worse * std::log(std::max(*nv, tol.metric_floor) / std::max(*bv, tol.metric_floor));
      const std::string t = fmt::format("x{:g}", tol.metric_factor);
      if (std::abs(r) <= lf + 1e-15) add(metric, kase, num(*bv), num(*nv), t, "ok (within)", false);
      else if (r > 0) add(metric, kase, num(*bv), num(*nv), t, fmt::format("REGRESSION (x{:.3g} worse)", std::exp(r)), true);
      else {
        add(metric, kase, num(*bv), num(*nv), t, fmt::format("improved (x{:.3g} better)", std::exp(-r)), false);
        ++c.improved;
      }
    }
  }
  if (filtered) c.notes.push_back(fmt::format("{} baseline cases not selected in this run (not compared)", filtered));

  // orders over the step sizes
  std::map<std::string, std::string> labels;
  auto bo = orders(bcases, now.h, tol.metric_floor, labels), no = orders(ncases, now.h, tol.metric_floor, labels);
  for (const auto& [key, bv] : bo) {
    auto it = no.find(key);
    if (it == no.end()) continue;  // a failed case is counted above
    ++c.compared;
    const double nv = it->second;
    if (bv == nv) continue;
    const std::string metric = "order " + key.substr(key.rfind('|') + 1);
    const std::string t = fmt::format("+-{:g}", tol.order_abs);
    const bool reg = std::abs(nv - bv) > tol.order_abs + 1e-12;
    add(metric, labels[key], fmt::format("{:.4f}", bv), fmt::format("{:.4f}", nv), t,
        reg ? fmt::format("REGRESSION (moved {:+.3f})", nv - bv) : "ok (within)", reg);
  }

  // timing: ratios to the timing reference in the same run
  std::map<std::pair<std::string, int>, const GateTiming*> bt;
  for (const auto& t : base.timing) bt[{t.method, t.joints}] = &t;
  const std::string ratio_name = "time/" + now.timing_reference;
  for (const auto& t : now.timing) {
    const std::string kase = fmt::format("{} tree:joints={}", t.method, t.joints);
    auto it = bt.find({t.method, t.joints});
    if (it == bt.end()) continue;  // a new method is reported above
    const GateTiming& b = *it->second;
    if (b.status == Status::Ok && t.status != Status::Ok) {
      add("timing status", kase, "ok", "failed", "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    if (!b.ratio || !t.ratio || base.timing_reference != now.timing_reference) continue;
    ++c.compared;
    const double bv = *b.ratio, nv = *t.ratio;
    if (bv == nv) continue;  // identical: not listed
    const double q = nv / bv;
    const std::string tt = fmt::format("x{:g}", tol.timing_factor);
    if (q > tol.timing_factor) add(ratio_name, kase, num(bv), num(nv), tt, fmt::format("REGRESSION (x{:.3g} slower)", q), true);
    else if (q < 1 / tol.timing_factor) add(ratio_name, kase, num(bv), num(nv), tt, fmt::format("faster (x{:.3g})", 1 / q), false);
    else add(ratio_name, kase, num(bv), num(nv), tt, "ok (within)", false);
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
