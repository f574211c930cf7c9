// Fuzz target: the gate's history file (report/trend.cpp: parse_history, what `mbbench trend FILE`
// reads, one JSON line per gate run) and the series and change points drawn from it. A history
// that reads has finite values >= 0 only, and its series hold every value of every run once.
#include <cmath>
#include <cstdlib>

#include "fuzz_common.hpp"
#include "report/report.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = mbfuzz::text_of(data, size);
  return mbfuzz::guarded([&] {
    const std::vector<mb::HistoryRun> runs = mb::parse_history(text, "fuzz.jsonl");
    size_t values = 0;
    for (const mb::HistoryRun& r : runs) {
      for (const auto& [k, v] : r.values)
        if (!(std::isfinite(v) && v >= 0)) std::abort();
      values += r.values.size();
    }
    size_t points = 0;
    for (const mb::TrendSeries& s : mb::trend_series(runs)) {
      if (s.run.size() != s.value.size() || s.value.empty()) std::abort();
      for (size_t k = 0; k < s.run.size(); ++k)
        if (s.run[k] >= runs.size() || runs[s.run[k]].values.at(s.name) != s.value[k]) std::abort();
      for (const mb::TrendChange& c : s.changes)
        if (c.index == 0 || c.index >= s.value.size() || !std::isfinite(c.before) || !std::isfinite(c.after)) std::abort();
      points += s.value.size();
    }
    if (points != values) std::abort();
  });
}
