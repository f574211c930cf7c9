#include "report/gate.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace mb {

std::string timing_verdict_text(const TimingVerdict& v) {
  const bool slower = v.ratio >= 1;
  std::string t = fmt::format("x{:.3f}, {:g}% CI {:.3f}..{:.3f}, p = {:.2g}", v.ratio, 100 * v.level, v.low, v.high,
                              slower ? v.p_slower : v.p_faster);
  if (v.family > 1) t += fmt::format(" (Holm {:.2g} of {} tests)", slower ? v.p_slower_adjusted : v.p_faster_adjusted, v.family);
  return t;
}

std::string gate_verdict_text(const GateRow& r) {
  const std::string misses = r.ll_misses ? fmt::format("; LL misses/step {:.0f} -> {:.0f}", r.ll_misses->first, r.ll_misses->second) : "";
  const std::string counts = r.instructions ? fmt::format("; instructions/step {:.0f} -> {:.0f} ({:+.2f} %)", r.instructions->first,
                                                          r.instructions->second, 100 * (r.instructions->second / r.instructions->first - 1))
                                            : "";
  const std::string test = r.timing ? timing_verdict_text(*r.timing) : "";
  switch (r.verdict) {
    case GateVerdict::NewMethod: return "new (not in the baseline)";
    case GateVerdict::Unregistered: return "no longer registered";
    case GateVerdict::Missing: return "missing now";
    case GateVerdict::NewlyFailed: return "REGRESSION (newly failed)";
    case GateVerdict::Fixed: return "fixed (was failed)";
    case GateVerdict::MetricChanged: return "metric appeared/disappeared";
    case GateVerdict::Within: return "ok (within)";
    case GateVerdict::Worse: return fmt::format("REGRESSION (x{:.3g} worse)", r.value);
    case GateVerdict::Better: return fmt::format("improved (x{:.3g} better)", r.value);
    case GateVerdict::OrderMoved: return fmt::format("REGRESSION (moved {:+.3f})", r.value);
    case GateVerdict::CountUp: return fmt::format("REGRESSION ({:+.2f} %{})", 100 * r.value, misses);
    case GateVerdict::CountDown: return fmt::format("improved ({:+.2f} %{})", 100 * r.value, misses);
    case GateVerdict::CountWithin: return fmt::format("ok ({:+.3f} %)", 100 * r.value);
    case GateVerdict::NotMeasured: return "NOT MEASURED (see the note)";
    case GateVerdict::Slower: return "REGRESSION (slower " + test + ")" + counts;
    case GateVerdict::Faster: return "faster (" + test + ")" + counts;
    case GateVerdict::TimeWithin: return "ok (" + test + ")" + counts;
    case GateVerdict::NotTimed: return "REGRESSION (not timed: " + r.reason + ")";
    case GateVerdict::NotCompared: return "not compared (" + r.reason + ")";
  }
  return "?";
}

std::string gate_text(const GateComparison& c) {
  std::vector<std::string> head = {"metric", "case", "baseline", "now", "tolerance", "verdict"};
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  auto cells = [](const GateRow& r) { return std::vector<std::string>{r.metric, r.kase, r.baseline, r.now, r.tolerance, gate_verdict_text(r)}; };
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
  std::string signals;
  for (const auto& x : c.signals) signals += (signals.empty() ? "" : ", ") + x;
  out += "gate: signals that gated: " + (signals.empty() ? std::string("none") : signals) + "\n";
  out += fmt::format("gate: {} values compared; {} moved; {} regression(s); {} improved{}\n", c.compared, c.rows.size(),
                     c.regressions, c.improved, c.not_measured ? fmt::format("; {} NOT MEASURED", c.not_measured) : "");
  return out;
}

}  // namespace mb
