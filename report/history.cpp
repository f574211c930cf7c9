// A gate history (`mbbench gate --history FILE`: one JSON line per gate run) read, and its values
// as series over the runs with their change points (report/report.hpp). Kept apart from the page
// (trend.cpp): the history's fuzz target (tests/fuzz/history_fuzz.cpp) builds from this file,
// analysis/compare.cpp and core/error.cpp alone.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "core/error.hpp"
#include "report/report.hpp"

namespace mb {

std::vector<HistoryRun> read_history(const std::string& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw InputError(file, 0, "", "cannot open the history file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw InputError(file, 0, "", "cannot read the history file");
  return parse_history(text.str(), file);
}

std::vector<HistoryRun> parse_history(const std::string& text, const std::string& file) {
  std::istringstream in(text);
  std::vector<HistoryRun> runs;
  int line_no = 0;
  for (std::string line; std::getline(in, line);) {
    ++line_no;
    if (line.find_first_not_of(" \t\r") == std::string::npos) continue;
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(line);
    } catch (const nlohmann::json::exception& e) {
      throw InputError(file, line_no, "", fmt::format("not a JSON line: {}", e.what()));
    }
    if (!j.is_object()) throw InputError(file, line_no, "", "expected a JSON object");
    HistoryRun r;
    for (const char* k : {"commit", "date", "build", "machine"}) {
      if (!j.contains(k) || !j[k].is_string()) throw InputError(file, line_no, k, "missing or not a string");
    }
    r.commit = j["commit"].get<std::string>();
    r.date = j["date"].get<std::string>();
    r.build = j["build"].get<std::string>();
    r.machine = j["machine"].get<std::string>();
    if (!j.contains("values") || !j["values"].is_object()) throw InputError(file, line_no, "values", "missing or not an object");
    for (const auto& [k, v] : j["values"].items()) {
      // >= 0: a count of last-level misses is 0 on trees whose working set fits the cache
      if (!v.is_number() || !(v.get<double>() >= 0) || !std::isfinite(v.get<double>()))
        throw InputError(file, line_no, "values." + k, "expected a number >= 0");
      r.values[k] = v.get<double>();
    }
    runs.push_back(std::move(r));
  }
  return runs;
}

std::vector<TrendSeries> trend_series(const std::vector<HistoryRun>& runs) {
  std::map<std::string, TrendSeries> by_name;
  for (size_t i = 0; i < runs.size(); ++i)
    for (const auto& [k, v] : runs[i].values) {
      TrendSeries& s = by_name[k];
      s.name = k;
      s.run.push_back(i);
      s.value.push_back(v);
    }
  std::vector<TrendSeries> out;
  for (auto& [k, s] : by_name) {
    // change points are sought on log values: not in a series with a 0 in it
    if (*std::min_element(s.value.begin(), s.value.end()) <= 0) {
      out.push_back(std::move(s));
      continue;
    }
    std::vector<double> logs;
    for (double v : s.value) logs.push_back(std::log(v));
    // instruction counts are deterministic: a smaller floor; wall-time ratios move by a few %
    ChangePointOptions opt;
    opt.sigma_floor = k.rfind("instructions ", 0) == 0 ? 0.002 : 0.02;
    const std::vector<size_t> cps = change_points(logs, opt);
    for (size_t at : cps) {
      TrendChange c;
      c.index = at;
      // the medians of the segments either side
      size_t a = 0, b = s.value.size();
      for (size_t x : cps) {
        if (x < at) a = x;
        if (x > at && x < b) b = x;
      }
      std::vector<double> before(s.value.begin() + static_cast<long>(a), s.value.begin() + static_cast<long>(at));
      std::vector<double> after(s.value.begin() + static_cast<long>(at), s.value.begin() + static_cast<long>(b));
      std::sort(before.begin(), before.end());
      std::sort(after.begin(), after.end());
      c.before = before[before.size() / 2];
      c.after = after[after.size() / 2];
      s.changes.push_back(c);
    }
    out.push_back(std::move(s));
  }
  return out;
}

}  // namespace mb
