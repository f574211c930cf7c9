#include "analysis/timing.hpp"

#include "core/stats.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "methods/method.hpp"

namespace mb {

using nlohmann::json;
namespace fs = std::filesystem;

std::string timing_case_name(const std::string& spec, int joints) { return fmt::format("step/{}/tree:joints={}", spec, joints); }

namespace {

double to_ms(double t, const std::string& unit) {
  if (unit == "ns") return t * 1e-6;
  if (unit == "us") return t * 1e-3;
  if (unit == "s") return t * 1e3;
  return t;
}

}  // namespace

TimingData analyse_timing(const json& bench, const std::string& reference, const std::optional<Paper>& paper) {
  TimingData d;
  d.reference = reference;
  d.paper = paper;
  d.context = bench.value("context", json::object());
  struct Acc {
    std::vector<double> t;
    std::map<std::string, std::vector<double>> phases;
    std::string error;
  };
  std::map<std::pair<std::string, int>, Acc> acc;
  std::vector<std::string> order;
  const std::vector<std::string> phase_keys = {"assembly_ms", "factor_ms", "solve_ms", "integration_ms", "pos_sweeps", "vel_sweeps"};
  for (const auto& b : bench.value("benchmarks", json::array())) {
    if (b.value("run_type", "iteration") != "iteration") continue;
    std::string name = b.value("run_name", b.value("name", ""));
    if (name.rfind("step/", 0) != 0) continue;
    size_t k = name.find("/tree:joints=");
    if (k == std::string::npos) continue;
    std::string spec = name.substr(5, k - 5);
    int joints = std::atoi(name.c_str() + k + 13);
    if (std::find(order.begin(), order.end(), spec) == order.end()) order.push_back(spec);
    Acc& a = acc[{spec, joints}];
    if (b.value("error_occurred", false)) {
      a.error = b.value("error_message", "error");
      continue;
    }
    a.t.push_back(to_ms(b.value("real_time", 0.0), b.value("time_unit", "ns")));
    for (const auto& p : phase_keys)
      if (b.contains(p)) a.phases[p].push_back(b[p].get<double>());
  }
  for (const auto& spec : order) {
    TimingSeries s;
    s.spec = spec;
    std::vector<double> n, t;
    for (const auto& [key, a] : acc) {
      if (key.first != spec) continue;
      TimingPoint p;
      p.joints = key.second;
      p.error = a.error;
      p.repetitions = static_cast<int>(a.t.size());
      if (!a.t.empty()) {
        p.median_ms = median(a.t);
        p.min_ms = *std::min_element(a.t.begin(), a.t.end());
        p.max_ms = *std::max_element(a.t.begin(), a.t.end());
        for (const auto& [ph, v] : a.phases) p.phases_ms[ph] = median(v);
        n.push_back(p.joints);
        t.push_back(p.median_ms);
      }
      s.points.push_back(p);
    }
    std::sort(s.points.begin(), s.points.end(), [](const auto& x, const auto& y) { return x.joints < y.joints; });
    if (n.size() >= 2) {
      s.fit = least_squares_fit(n, t);
      s.fit_min = static_cast<int>(*std::min_element(n.begin(), n.end()));
      s.fit_max = static_cast<int>(*std::max_element(n.begin(), n.end()));
    }
    d.series.push_back(std::move(s));
  }
  return d;
}

}  // namespace mb
