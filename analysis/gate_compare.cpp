#include "analysis/gate_compare.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include <fmt/format.h>

#include "analysis/compare.hpp"
#include "analysis/fit.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "methods/method.hpp"
#include "metrics/registry.hpp"

namespace mb {

const std::vector<std::string>& gate_metrics() {
  static const std::vector<std::string> m = {metric::ED, metric::LD, metric::CD_pos_mean, metric::ref_error_max};
  return m;
}

namespace {

std::string hkey(double h) { return fmt::format("{:g}", h); }

}  // namespace

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
    for (const auto& metric : gate_metrics()) {
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
  // a row; a verdict that is a regression counts as one
  auto add = [&](std::string metric, std::string kase, std::string b, std::string n, std::string t, GateVerdict v,
                 double value = 0) -> GateRow& {
    GateRow r;
    r.metric = std::move(metric);
    r.kase = std::move(kase);
    r.baseline = std::move(b);
    r.now = std::move(n);
    r.tolerance = std::move(t);
    r.verdict = v;
    r.value = value;
    r.regression = v == GateVerdict::NewlyFailed || v == GateVerdict::Worse || v == GateVerdict::OrderMoved ||
                   v == GateVerdict::CountUp || v == GateVerdict::Slower || v == GateVerdict::NotTimed;
    if (r.regression) ++c.regressions;
    c.rows.push_back(std::move(r));
    return c.rows.back();
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
    if (!base_methods.count(m)) add("method", m, "-", "run", "-", GateVerdict::NewMethod);
  for (const auto& m : base_methods)
    if (!registered.count(Spec::parse(m, "method").name())) add("method", m, "in baseline", "-", "-", GateVerdict::Unregistered);
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
            GateVerdict::Missing);
        continue;
      }
      ++filtered;
      continue;
    }
    const GateCase& n = *it->second;
    const std::string kase = fmt::format("{} {} h={}", k.method, k.model, hkey(k.h));
    ++c.compared;
    if (b->status == Status::Ok && n.status != Status::Ok) {
      add("status", kase, "ok", fmt::format("failed: {}", n.failure), "no new failures", GateVerdict::NewlyFailed);
      continue;
    }
    if (b->status != Status::Ok && n.status == Status::Ok) {
      add("status", kase, "failed", "ok", "no new failures", GateVerdict::Fixed);
      continue;
    }
    if (b->status != Status::Ok) continue;
    for (const auto& metric : gate_metrics()) {
      auto bv = b->metrics.get(metric), nv = n.metrics.get(metric);
      if (!bv && !nv) continue;
      if (!bv || !nv) {
        add(metric, kase, bv ? num(*bv) : "-", nv ? num(*nv) : "-", "-", GateVerdict::MetricChanged);
        continue;
      }
      ++c.compared;
      if (*bv == *nv) continue;  // bit-identical: not listed
      // r > 0: worse by the registry's direction
      const MetricInfo* info = metric_info(metric);
      const double worse = info && info->better == Better::Higher ? -1.0 : 1.0;
      const double r = worse * std::log(std::max(*nv, tol.metric_floor) / std::max(*bv, tol.metric_floor));
      const std::string t = fmt::format("x{:g}", tol.metric_factor);
      if (std::abs(r) <= lf + 1e-15) add(metric, kase, num(*bv), num(*nv), t, GateVerdict::Within);
      else if (r > 0) add(metric, kase, num(*bv), num(*nv), t, GateVerdict::Worse, std::exp(r));
      else {
        add(metric, kase, num(*bv), num(*nv), t, GateVerdict::Better, std::exp(-r));
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
    add(metric, labels[key], fmt::format("{:.4f}", bv), fmt::format("{:.4f}", nv), t, reg ? GateVerdict::OrderMoved : GateVerdict::Within,
        nv - bv);
  }

  // timing: ratios to the timing reference in the same run
  std::map<std::pair<std::string, int>, const GateTiming*> bt;
  for (const auto& t : base.timing) bt[{t.method, t.joints}] = &t;
  const std::string ratio_name = "time/" + now.timing_reference;
  // the time tests of this run, decided as one family (the reference's own ratio is 1 by
  // construction: no test); keyed by the index of the timing in `now`
  const bool same_reference = base.timing_reference == now.timing_reference;
  long instruction_counts = 0;
  std::vector<size_t> tested;
  std::vector<TimingVerdict> verdicts;
  for (size_t i = 0; i < now.timing.size(); ++i) {
    const GateTiming& t = now.timing[i];
    auto it = bt.find({t.method, t.joints});
    if (it == bt.end() || !it->second->ratio || !t.ratio || !same_reference || t.method == now.timing_reference) continue;
    if (it->second->status == Status::Ok && t.status != Status::Ok) continue;
    // the repetitions of both runs (a baseline without them: its median as one value)
    const GateTiming& b = *it->second;
    const std::vector<double> bs = b.ratios.empty() ? std::vector<double>{*b.ratio} : b.ratios;
    const std::vector<double> ns = t.ratios.empty() ? std::vector<double>{*t.ratio} : t.ratios;
    tested.push_back(i);
    verdicts.push_back(timing_verdict(ns, bs, tol));
  }
  decide_timing_family(verdicts, tol);
  std::map<size_t, const TimingVerdict*> verdict_of;
  for (size_t k = 0; k < tested.size(); ++k) verdict_of[tested[k]] = &verdicts[k];
  for (size_t ti = 0; ti < now.timing.size(); ++ti) {
    const GateTiming& t = now.timing[ti];
    const std::string kase = fmt::format("{} tree:joints={}", t.method, t.joints);
    auto it = bt.find({t.method, t.joints});
    if (it == bt.end()) continue;  // a new method is reported above
    const GateTiming& b = *it->second;
    if (b.status == Status::Ok && t.status != Status::Ok) {
      add("timing status", kase, "ok", "failed", "no new failures", GateVerdict::NewlyFailed);
      continue;
    }
    // instructions per step (deterministic): a relative change beyond the factor
    if (b.instructions && t.instructions) {
      ++c.compared;
      ++instruction_counts;
      const double q = *t.instructions / *b.instructions;
      const std::string tt = fmt::format("x{:g}", tol.instructions_factor);
      const std::string bv = fmt::format("{:.0f}", *b.instructions), nv = fmt::format("{:.0f}", *t.instructions);
      std::optional<std::pair<double, double>> misses;
      if (t.ll_misses && b.ll_misses) misses = std::make_pair(*b.ll_misses, *t.ll_misses);
      if (q > tol.instructions_factor)
        add("instructions/step", kase, bv, nv, tt, GateVerdict::CountUp, q - 1).ll_misses = misses;
      else if (q < 1 / tol.instructions_factor) {
        add("instructions/step", kase, bv, nv, tt, GateVerdict::CountDown, q - 1).ll_misses = misses;
        ++c.improved;
      } else if (q != 1)
        add("instructions/step", kase, bv, nv, tt, GateVerdict::CountWithin, q - 1);
    } else if (b.instructions) {
      ++c.not_measured;
      add("instructions/step", kase, fmt::format("{:.0f}", *b.instructions), "-", "-", GateVerdict::NotMeasured);
    }
    if (!b.ratio || !t.ratio || !same_reference) continue;
    ++c.compared;
    const double bv = *b.ratio, nv = *t.ratio;
    auto vi = verdict_of.find(ti);
    if (vi == verdict_of.end()) continue;  // the reference itself
    const TimingVerdict& v = *vi->second;
    const std::string tt = fmt::format("Holm p<{:g}, x{:g}", tol.timing_alpha, tol.timing_effect);
    if (v.change > 0) add(ratio_name, kase, num(bv), num(nv), tt, GateVerdict::Slower).timing = v;
    else if (v.change < 0) add(ratio_name, kase, num(bv), num(nv), tt, GateVerdict::Faster).timing = v;
    else if (bv != nv) add(ratio_name, kase, num(bv), num(nv), tt, GateVerdict::TimeWithin).timing = v;
  }
  if (c.not_measured)
    c.notes.push_back(fmt::format("{} instruction count(s) of the baseline {}", c.not_measured,
                                  now.instructions_note.empty() ? "not measured in this run" : now.instructions_note));
  const long accuracy_cases = static_cast<long>(bcases.size()) - filtered;
  if (accuracy_cases > 0) c.signals.push_back(fmt::format("accuracy ({} cases)", accuracy_cases));
  if (instruction_counts > 0) c.signals.push_back(fmt::format("instructions ({} counts)", instruction_counts));
  if (!verdicts.empty()) c.signals.push_back(fmt::format("time against the baseline ({} tests)", verdicts.size()));
  return c;
}

GateRecord baseline_for_machine(const GateRecord& baseline, const std::string& key, const GateMachine** entry) {
  GateRecord b = baseline;
  b.machines.clear();
  const GateMachine* m = nullptr;
  for (const auto& x : baseline.machines)
    if (x.key == key) m = &x;
  if (entry) *entry = m;
  // the time values of this machine's entry beside the shared instruction counts
  std::map<std::pair<std::string, int>, size_t> at;
  for (size_t i = 0; i < b.timing.size(); ++i) at[{b.timing[i].method, b.timing[i].joints}] = i;
  if (m)
    for (const auto& t : m->timing) {
      auto it = at.find({t.method, t.joints});
      if (it == at.end()) {
        at[{t.method, t.joints}] = b.timing.size();
        b.timing.push_back(t);
        continue;
      }
      GateTiming& x = b.timing[it->second];
      const auto instructions = x.instructions, ll_misses = x.ll_misses;
      x = t;
      x.instructions = instructions;
      x.ll_misses = ll_misses;
    }
  return b;
}

GateRecord updated_baseline(const std::optional<GateRecord>& old, const GateRecord& run, std::vector<std::string>& notes,
                            const GateTolerances& tol) {
  GateRecord b = run;
  b.machines.clear();
  GateMachine mine;
  mine.key = machine_key(run.provenance);
  mine.commit = run.provenance.git_commit;
  mine.date = run.provenance.date;
  for (auto& t : b.timing) {
    if (t.reps > 0 || t.status != Status::Ok) {
      GateTiming x = t;
      x.instructions.reset();
      x.ll_misses.reset();
      mine.timing.push_back(std::move(x));
    }
    // the shared part keeps the counts; time values live in the machine's entry
    t.reps = 0;
    t.median_s = t.min_s = t.max_s = 0;
    t.ratio.reset();
    t.ratio_min.reset();
    t.ratio_max.reset();
    t.ratios.clear();
    t.status = Status::Ok;  // a failed timing is this machine's, in its entry
    t.failure.clear();
  }
  b.timing.erase(std::remove_if(b.timing.begin(), b.timing.end(), [](const GateTiming& t) { return !t.instructions; }), b.timing.end());
  if (old) {
    // the other machines' entries timed the code of the old baseline: kept while the counts agree
    std::string moved;
    std::map<std::pair<std::string, int>, double> before;
    for (const auto& t : old->timing)
      if (t.instructions) before[{t.method, t.joints}] = *t.instructions;
    for (const auto& t : run.timing) {
      auto it = before.find({t.method, t.joints});
      if (it == before.end() || !t.instructions) continue;
      const double q = *t.instructions / it->second;
      if (q > tol.instructions_factor || q < 1 / tol.instructions_factor)
        moved += fmt::format("{}{} at {} joints {:+.2f} %", moved.empty() ? "" : ", ", t.method, t.joints, 100 * (q - 1));
    }
    for (const auto& m : old->machines) {
      if (m.key == mine.key) continue;
      if (moved.empty()) b.machines.push_back(m);
      else notes.push_back(fmt::format("dropped the time baseline of machine '{}' (commit {}): the instruction counts moved ({})", m.key,
                                       m.commit, moved));
    }
  }
  if (!mine.timing.empty()) b.machines.push_back(std::move(mine));
  std::sort(b.machines.begin(), b.machines.end(), [](const GateMachine& a, const GateMachine& c) { return a.key < c.key; });
  return b;
}

void compare_ab(const std::vector<AbTiming>& ab, const std::string& other, GateComparison& c, const GateTolerances& tol) {
  std::vector<size_t> tested;
  std::vector<TimingVerdict> verdicts;
  for (size_t i = 0; i < ab.size(); ++i)
    if (ab[i].failure.empty()) {
      tested.push_back(i);
      verdicts.push_back(timing_verdict(ab[i].self, ab[i].other, tol));
    }
  decide_timing_family(verdicts, tol);
  const std::string tt = fmt::format("Holm p<{:g}, x{:g}", tol.timing_alpha, tol.timing_effect);
  size_t k = 0;
  for (size_t i = 0; i < ab.size(); ++i) {
    const AbTiming& x = ab[i];
    const std::string kase = fmt::format("{} tree:joints={}", x.method, x.joints);
    GateRow row;
    row.metric = "time A/B";
    row.kase = kase;
    row.tolerance = tt;
    if (!x.failure.empty()) {
      // a case the other build cannot time (a method it does not have) is new, not a failure
      const bool mine = !x.unsupported && x.failure.rfind("other build", 0) != 0;
      row.baseline = row.now = "-";
      row.verdict = mine ? GateVerdict::NotTimed : GateVerdict::NotCompared;
      row.reason = x.failure;
      row.regression = mine;
      if (mine) ++c.regressions;
      c.rows.push_back(std::move(row));
      continue;
    }
    const TimingVerdict& v = verdicts[k++];
    ++c.compared;
    if (x.self_instructions && x.other_instructions) row.instructions = std::make_pair(*x.other_instructions, *x.self_instructions);
    row.baseline = fmt::format("{:.4g} ms", 1e3 * median(x.other));
    row.now = fmt::format("{:.4g} ms", 1e3 * median(x.self));
    row.timing = v;
    row.verdict = v.change > 0 ? GateVerdict::Slower : v.change < 0 ? GateVerdict::Faster : GateVerdict::TimeWithin;
    row.regression = v.change > 0;
    if (v.change > 0) ++c.regressions;
    if (v.change < 0) ++c.improved;
    c.rows.push_back(std::move(row));
  }
  c.signals.push_back(fmt::format("time A/B against {} ({} tests)", other, verdicts.size()));
}


TimingVerdict timing_verdict(const std::vector<double>& now, const std::vector<double>& base, const GateTolerances& tol) {
  TimingVerdict v;
  const MannWhitney mw = mann_whitney(now, base);
  const RatioEstimate r = ratio_estimate(now, base, tol.interval_level);
  v.p_slower = mw.p_greater;
  v.p_faster = mw.p_less;
  v.ratio = r.ratio;
  v.low = r.low;
  v.high = r.high;
  std::vector<TimingVerdict> one = {v};
  decide_timing_family(one, tol);
  return one[0];
}

void decide_timing_family(std::vector<TimingVerdict>& family, const GateTolerances& tol) {
  std::vector<double> ps, pf;
  for (const auto& v : family) {
    ps.push_back(v.p_slower);
    pf.push_back(v.p_faster);
  }
  const std::vector<double> as = holm_adjust(ps), af = holm_adjust(pf);
  for (size_t i = 0; i < family.size(); ++i) {
    TimingVerdict& v = family[i];
    v.p_slower_adjusted = as[i];
    v.p_faster_adjusted = af[i];
    v.family = family.size();
    // slower by more than the effect with the interval's confidence, and significant
    v.change = 0;
    if (v.p_slower_adjusted < tol.timing_alpha && v.low > tol.timing_effect) v.change = 1;
    if (v.p_faster_adjusted < tol.timing_alpha && v.high < 1 / tol.timing_effect) v.change = -1;
    v.level = tol.interval_level;
  }
}

}  // namespace mb
