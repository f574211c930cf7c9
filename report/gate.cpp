#include "report/gate.hpp"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

namespace mb {

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
  std::string signals;
  for (const auto& x : c.signals) signals += (signals.empty() ? "" : ", ") + x;
  out += "gate: signals that gated: " + (signals.empty() ? std::string("none") : signals) + "\n";
  out += fmt::format("gate: {} values compared; {} moved; {} regression(s); {} improved{}\n", c.compared, c.rows.size(),
                     c.regressions, c.improved, c.not_measured ? fmt::format("; {} NOT MEASURED", c.not_measured) : "");
  return out;
}


}  // namespace mb
