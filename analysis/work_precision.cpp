#include "analysis/work_precision.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <utility>

#include <fmt/format.h>

#include "metrics/registry.hpp"

namespace mb {

namespace {

bool asks_for_mescd(const CaseRecord& r) {
  if (!r.experiment) return r.metrics.get(metric::mescd).has_value();
  const auto& ms = r.experiment->metrics;
  return std::find(ms.begin(), ms.end(), metric::mescd) != ms.end();
}

}  // namespace

WorkPrecision work_precision(const std::vector<CaseRecord>& records) {
  WorkPrecision wp;
  std::map<std::pair<std::string, std::string>, size_t> index;
  std::vector<std::vector<const CaseRecord*>> members;
  for (const auto& r : records) {
    if (!asks_for_mescd(r)) continue;
    auto key = std::make_pair(r.model.spec, r.method.spec);
    auto [it, added] = index.emplace(key, wp.curves.size());
    if (added) {
      WorkCurve c;
      c.model = key.first;
      c.method = key.second;
      wp.curves.push_back(c);
      members.emplace_back();
    }
    members[it->second].push_back(&r);
  }
  // curves of one model together, in the order the models first appear
  std::vector<std::string> model_order;
  for (const auto& c : wp.curves)
    if (std::find(model_order.begin(), model_order.end(), c.model) == model_order.end()) model_order.push_back(c.model);
  std::vector<size_t> order(wp.curves.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    auto pos = [&](size_t i) { return std::find(model_order.begin(), model_order.end(), wp.curves[i].model) - model_order.begin(); };
    return pos(a) < pos(b);
  });

  std::vector<WorkCurve> curves;
  for (size_t i : order) {
    WorkCurve c = wp.curves[i];
    auto rs = members[i];
    std::sort(rs.begin(), rs.end(), [](const CaseRecord* a, const CaseRecord* b) { return a->h < b->h; });
    for (const CaseRecord* r : rs) {
      if (r->status == Status::Unsupported) {
        if (c.unsupported.empty()) c.unsupported = r->reason;
        continue;
      }
      if (!r->ok()) {
        c.failures.push_back(fmt::format("h={:.6g}: {} at t = {:.6g} s", r->h, r->reason, r->fail_time));
        continue;
      }
      const auto digits = r->metrics.get(metric::mescd);
      const double simulated = static_cast<double>(r->steps_done) * r->h;
      if (!digits || !std::isfinite(*digits) || !(simulated > 0) || !(r->timing.step_seconds_total > 0)) continue;
      WorkPoint p;
      p.h_nominal = r->h_requested;
      p.h = r->h;
      p.digits = *digits;
      p.error = std::pow(10.0, -*digits);
      p.cost = r->timing.step_seconds_total / simulated;
      p.energy_drift = r->metrics.get(metric::ED);
      p.constraint_max = r->metrics.get(metric::CD_pos_max);
      c.points.push_back(p);
    }
    curves.push_back(std::move(c));
  }
  wp.curves = std::move(curves);

  for (size_t i = 0; i < wp.curves.size(); ++i) {
    WorkRow row;
    row.curve = i;
    const auto& pts = wp.curves[i].points;
    for (double target : work_targets()) {
      WorkAtTarget at;
      at.target = target;
      for (const auto& p : pts)
        if (p.error <= target && (!at.cheapest || p.cost < at.cheapest->cost)) at.cheapest = p;
      row.at.push_back(at);
    }
    for (const auto& p : pts)
      if (!row.most_accurate || p.error < row.most_accurate->error) row.most_accurate = p;
    wp.rows.push_back(std::move(row));
  }
  return wp;
}

}  // namespace mb
