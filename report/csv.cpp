// CSV of every record: one row per case, the case's inputs, status and every metric (the
// columns are spelled in records/record_io.cpp).
#include <algorithm>

#include "report/report.hpp"

namespace mb {

std::string records_csv(const ReportData& d) {
  // the metric columns: every metric any record has, in first-seen order
  std::vector<std::string> metrics;
  for (const auto& r : d.records) {
    for (const auto& [k, v] : r.metrics.values)
      if (std::find(metrics.begin(), metrics.end(), k) == metrics.end()) metrics.push_back(k);
    for (const auto& [k, v] : r.metrics.notes)
      if (std::find(metrics.begin(), metrics.end(), k) == metrics.end()) metrics.push_back(k);
  }
  std::string s = records_csv_header(metrics);
  for (const auto& r : d.records) s += record_csv_row(r, metrics);
  return s;
}

}  // namespace mb
