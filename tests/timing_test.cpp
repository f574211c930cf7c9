// Timing experiments (experiments/, analysis/timing.hpp, report/timing.cpp): the bender2007 experiment file, and the analysis of
// Google Benchmark JSON: median and spread over repetitions, ratios to linear, and the scaling
// exponent recovered exactly from synthetic n^p timings.
#include <algorithm>

#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "analysis/timing.hpp"
#include "experiments/experiment.hpp"
#include "report/report.hpp"

using nlohmann::json;

namespace {
const std::string kRoot = std::string(MBBENCH_TEST_DATA) + "/../..";
}

TEST_CASE("the bender2007 timing experiment: s.6's configurations, extended for the O(n) methods", "[timing]") {
  mb::TimingExperiment e = mb::read_timing_experiment(kRoot + "/results/experiments/bender2007.toml");
  CHECK(e.joints == std::vector<int>{31, 63, 127, 255});
  CHECK(std::abs(e.h - 1.0 / 30) < 1e-15);
  CHECK(e.repetitions >= 9);
  CHECK(e.reference == "linear:tol_p=1e-6,tol_v=1e-6");
  auto cases = mb::timing_cases(e);
  int linear = 0, lagrange = 0;
  for (const auto& [spec, j] : cases) {
    if (spec == e.reference) ++linear;
    if (spec == "lagrange") ++lagrange;
  }
  CHECK(linear == 10);  // 31 ... 16383
  CHECK(lagrange == 4);
  CHECK(cases.size() == 5 * 4 + 4 + 3 * 10);
}

TEST_CASE("the chain-scaling timing experiment: point-mass chains of 10..16383 links", "[timing]") {
  mb::TimingExperiment e = mb::read_timing_experiment(kRoot + "/results/experiments/chain-scaling.toml");
  CHECK(e.model == "chain");
  CHECK(e.joints.front() == 10);
  CHECK(e.joints.back() == 16383);
  auto cases = mb::timing_cases(e);
  CHECK(cases.size() == 3 * e.joints.size());
  CHECK(mb::timing_model_spec(e.model, 100) == "chain:n=100");
  CHECK(mb::timing_case_name("GC4", 100, "chain") == "step/GC4/chain:n=100");
  // the analysis reads chain cases as it reads tree cases
  json b;
  for (int n : {10, 100, 1000})
    b["benchmarks"].push_back({{"name", mb::timing_case_name("GC4", n, "chain")}, {"run_type", "iteration"},
                               {"real_time", 0.01 * n}, {"time_unit", "ms"}});
  const mb::TimingData d = mb::analyse_timing(b, "GC4", std::nullopt);
  REQUIRE(d.series.size() == 1);
  REQUIRE(d.series[0].fit);
  CHECK(std::abs(d.series[0].fit->order - 1.0) < 1e-12);
}

TEST_CASE("timing analysis: no exponent from fewer than 3 sizes, and the table says why", "[timing][fit]") {
  json b;
  for (int n : {31, 63})
    b["benchmarks"].push_back({{"name", mb::timing_case_name("GC4", n)}, {"run_type", "iteration"}, {"real_time", 0.01 * n}, {"time_unit", "ms"}});
  const mb::TimingData d = mb::analyse_timing(b, "GC4", std::nullopt);
  REQUIRE(d.series.size() == 1);
  CHECK(!d.series[0].fit);
  CHECK(d.series[0].fit_note == "not fitted: 2 sizes measured, an exponent needs 3");
  const std::string md = mb::timing_markdown(d);
  CHECK_THAT(md, Catch::Contains("not fitted: 2 sizes measured, an exponent needs 3"));
  CHECK_THAT(md, Catch::Contains("31, 63"));
}

TEST_CASE("timing analysis: medians, spread, ratios and exact exponents from synthetic n^p times", "[timing][fit]") {
  json b;
  b["context"] = {{"host_name", "test"}};
  const double p_lin = 1.0, p_dense = 3.0;
  for (int j = 31; j <= 255; j = 2 * j + 1)
    for (int r = 0; r < 9; ++r) {
      const double noise = r == 4 ? 1.0 : (r < 4 ? 0.9 : 1.2);  // median = the noise-free value
      b["benchmarks"].push_back({{"name", mb::timing_case_name("linear", j) + "/real_time"},
                                 {"run_name", mb::timing_case_name("linear", j) + "/real_time"},
                                 {"run_type", "iteration"}, {"real_time", 1e-3 * std::pow(j, p_lin) * noise},
                                 {"time_unit", "ms"}, {"factor_ms", 0.5}});
      b["benchmarks"].push_back({{"name", mb::timing_case_name("lagrange", j)}, {"run_type", "iteration"},
                                 {"real_time", 2e-6 * std::pow(j, p_dense) * noise * 1e6}, {"time_unit", "ns"}});
    }
  b["benchmarks"].push_back({{"name", "x_median"}, {"run_type", "aggregate"}, {"real_time", 99.0}});
  mb::TimingData d = mb::analyse_timing(b, "linear", std::nullopt);
  REQUIRE(d.series.size() == 2);
  const auto& lin = d.series[0];
  CHECK(lin.spec == "linear");
  REQUIRE(lin.points.size() == 4);
  CHECK(lin.points[0].joints == 31);
  CHECK(lin.points[0].median_ms == Approx(0.031).epsilon(1e-12));
  CHECK(lin.points[0].min_ms == Approx(0.9 * 0.031).epsilon(1e-12));
  CHECK(lin.points[0].max_ms == Approx(1.2 * 0.031).epsilon(1e-12));
  CHECK(lin.points[0].repetitions == 9);
  CHECK(lin.points[0].counters.at("factor_ms") == 0.5);
  REQUIRE(lin.fit);
  CHECK(lin.fit->order == Approx(p_lin).margin(1e-12));
  REQUIRE(d.series[1].fit);
  CHECK(d.series[1].fit->order == Approx(p_dense).margin(1e-12));
  CHECK(d.series[1].fit_min == 31);
  CHECK(d.series[1].fit_max == 255);
  const std::string md = mb::timing_markdown(d);
  CHECK(md.find("| lagrange | 3.00 |") != std::string::npos);
}

TEST_CASE("timing experiments of any catalog family: tomcin2014's Figures 5 and 6, sizes checked, the factored system", "[timing]") {
  mb::TimingExperiment e = mb::read_timing_experiment(kRoot + "/results/experiments/tomcin2014-fig5.toml");
  CHECK(e.model == "spider");
  CHECK(e.size == "legs");
  CHECK(mb::timing_model_spec(e.model, 25, e.size) == "spider:legs=25");
  CHECK(mb::timing_cases(e).size() == 3 * e.joints.size());
  const mb::TimingExperiment f = mb::read_timing_experiment(kRoot + "/results/experiments/tomcin2014-fig6.toml");
  CHECK(f.model == "scissor-lift");
  CHECK(f.joints.back() == 220);
  // Google Benchmark's suffixes after the model; the structure counters make the Fig. 6 table
  json b;
  for (int n : {10, 20, 40})
    b["benchmarks"].push_back({{"name", mb::timing_case_name("tomcin:split=auto", n, "spider", "legs") + "/min_time:0.050/repeats:3/manual_time"},
                               {"run_type", "iteration"}, {"real_time", 0.5 * n}, {"time_unit", "ms"},
                               {"rows", 8.0 * n}, {"nnz_a", 20.0 * n}, {"nnz_l", 30.0 * n}});
  const mb::TimingData d = mb::analyse_timing(b, "tomcin:split=auto", std::nullopt);
  REQUIRE(d.series.size() == 1);
  CHECK(d.series[0].spec == "tomcin:split=auto");
  REQUIRE(d.series[0].points.size() == 3);
  CHECK(d.series[0].points[2].joints == 40);
  REQUIRE(d.series[0].fit);
  CHECK(d.series[0].fit->order == Approx(1.0).epsilon(1e-12));
  const std::string md = mb::timing_markdown(d);
  CHECK_THAT(md, Catch::Contains("The factored system"));
  CHECK_THAT(md, Catch::Contains("| tomcin:split=auto | 40 | 320 | 480 | 1200 | 0.333 |"));
}

TEST_CASE("a timing experiment names a family's size option and stays in its range", "[timing][errors]") {
  auto write = [&](const std::string& body) {
    const std::string p = "/tmp/mbbench-timing-size-test.toml";
    std::ofstream(p) << "name = \"t\"\nkind = \"timing\"\nh = 0.01\nreference = \"tomcin\"\n" << body << "\n[[method]]\nspec = \"tomcin\"\n";
    return p;
  };
  CHECK_THROWS_WITH(mb::read_timing_experiment(write("model = \"spider\"\njoints = [10]")), Catch::Contains("size"));
  CHECK_THROWS_WITH(mb::read_timing_experiment(write("model = \"spider\"\nsize = \"legs\"\njoints = [0]")), Catch::Contains("joints"));
  CHECK_THROWS_WITH(mb::read_timing_experiment(write("model = \"no-such-family\"\njoints = [10]")), Catch::Contains("catalog family"));
}

TEST_CASE("the speed experiments of docs/performance.md: the O(n) methods to 16383 joints, GC4 beside the engines", "[timing]") {
  const mb::TimingExperiment s = mb::read_timing_experiment(kRoot + "/results/experiments/speed.toml");
  CHECK(s.model == "tree");
  CHECK(s.joints.front() == 31);
  CHECK(s.joints.back() == 16383);
  CHECK(s.reference == "linear:tol_p=1e-6,tol_v=1e-6");
  CHECK(mb::timing_cases(s).size() == 5 * s.joints.size());
  const mb::TimingExperiment p = mb::read_timing_experiment(kRoot + "/results/experiments/speed-peers.toml");
  CHECK(p.reference == "GC4");
  CHECK(p.joints == std::vector<int>{63, 255, 1023});
  // GC4, linear and five engine configurations at every size: the ratios of the docs' table
  CHECK(mb::timing_cases(p).size() == 7 * p.joints.size());
  // the engines' scaling run stops DART, whose set-up is cubic in the tree's size, at 1023 joints
  const mb::TimingExperiment t = mb::read_timing_experiment(kRoot + "/results/experiments/peers-scaling-tree.toml");
  int dart = 0, largest = 0;
  for (const auto& c : mb::timing_cases(t))
    if (c.first == "dart") ++dart, largest = std::max(largest, c.second);
  CHECK(dart == 6);
  CHECK(largest == 1023);
}
