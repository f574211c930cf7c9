// CSV of every record: one row per case, the case's inputs, status and every metric.
#include <algorithm>

#include <fmt/format.h>

#include "runners/lib/report.hpp"

namespace mb {

namespace {
std::string cell(const nlohmann::json& v) {
  if (v.is_null()) return "";
  std::string s = v.is_string() ? v.get<std::string>() : v.dump();
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
}  // namespace

std::string records_csv(const ReportData& d) {
  // the metric columns: every scalar metric any record has, in first-seen order
  std::vector<std::string> metrics;
  for (const auto& r : d.records)
    for (const auto& [k, v] : r["metrics"].items())
      if ((v.is_number() || v.is_null()) && std::find(metrics.begin(), metrics.end(), k) == metrics.end()) metrics.push_back(k);
  std::string s = "experiment,case_id,model,method,h_requested,h,duration,steps,steps_done,readings_steps,readings_ld_periods,"
                  "status,failure_reason,failure_t";
  for (const auto& m : metrics) {
    s += ',';
    s += m;
  }
  s += "\n";
  for (const auto& r : d.records) {
    const nlohmann::json e = r.value("experiment", nlohmann::json::object());
    const nlohmann::json rd = r.value("readings", nlohmann::json::object());
    const nlohmann::json f = r["failure"].is_object() ? r["failure"] : nlohmann::json::object();
    std::vector<nlohmann::json> cells = {e.value("name", ""), e.value("case_id", ""),
                                         r["model"].value("spec", r["model"].value("name", "")), r["method"].value("spec", ""),
                                         r["h_requested"], r["h"], r["duration"], r["steps"], r["steps_done"],
                                         rd.value("steps", ""), rd.value("ld_periods", ""), r["status"],
                                         f.value("reason", nlohmann::json()), f.value("t", nlohmann::json())};
    for (const auto& m : metrics) cells.push_back(r["metrics"].value(m, nlohmann::json()));
    for (size_t i = 0; i < cells.size(); ++i) {
      if (i) s += ',';
      s += cell(cells[i]);
    }
    s += "\n";
  }
  return s;
}

}  // namespace mb
