// The gate's statistics (analysis/compare.hpp): the Mann-Whitney U test against the exact
// distribution (the textbook critical values, and P-values counted over every arrangement), the
// normal approximation with ties, the Hodges-Lehmann ratio and its interval, change points of a
// synthetic step series; the cachegrind summary reader and the wall-time verdict (gate/gate.hpp);
// the trend of a history (report/report.hpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <random>

#include <fmt/format.h>

#include "analysis/compare.hpp"
#include "cli_util.hpp"
#include "core/error.hpp"
#include "gate/gate.hpp"
#include "report/report.hpp"


TEST_CASE("the U distribution is exact: the textbook critical values", "[gate][stats]") {
  // m = n = 3: 20 arrangements, one with U = 0, one with U = 1
  CHECK(mb::mann_whitney_cdf(0, 3, 3) == Approx(0.05).epsilon(1e-12));
  CHECK(mb::mann_whitney_cdf(1, 3, 3) == Approx(0.10).epsilon(1e-12));
  // n1 = n2 = 9: the critical U of the two-sided test is 17 at 0.05 and 11 at 0.01 (tables of the
  // Mann-Whitney test): P(U <= 17) <= 0.025 < P(U <= 18), P(U <= 11) <= 0.005 < P(U <= 12); the
  // values counted over all C(18, 9) = 48620 arrangements
  CHECK(mb::mann_whitney_cdf(17, 9, 9) == Approx(0.019991772932949403).epsilon(1e-12));
  CHECK(mb::mann_whitney_cdf(18, 9, 9) == Approx(0.025154257507198685).epsilon(1e-12));
  CHECK(mb::mann_whitney_cdf(11, 9, 9) == Approx(0.0038872891814068283).epsilon(1e-12));
  CHECK(mb::mann_whitney_cdf(12, 9, 9) == Approx(0.005306458247634718).epsilon(1e-12));
  CHECK(mb::mann_whitney_cdf(81, 9, 9) == 1.0);
}

TEST_CASE("the U test of two samples: exact without ties, normal with them", "[gate][stats]") {
  const std::vector<double> x = {1.83, 0.50, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.30};
  const std::vector<double> y = {0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29};
  // y has ties within itself (1.06, 1.29) but none with x: exact only without any tie
  const mb::MannWhitney t = mb::mann_whitney(x, y);
  CHECK(t.u == 58);
  CHECK(!t.exact);
  std::vector<double> y2 = y;
  y2[6] = 1.07;
  y2[8] = 1.28;
  const mb::MannWhitney e = mb::mann_whitney(x, y2);
  CHECK(e.exact);
  CHECK(e.u == 58);
  // P(U >= 58) = 1 - P(U <= 57), counted over every arrangement
  CHECK(e.p_greater == Approx(0.06795557383792683).epsilon(1e-12));
  CHECK(e.p_two_sided == Approx(2 * 0.06795557383792683).epsilon(1e-12));
  // the direction: x swapped with y
  CHECK(mb::mann_whitney(y2, x).p_less == Approx(0.06795557383792683).epsilon(1e-12));
  // ties: the normal approximation with the tie correction and the continuity correction
  const mb::MannWhitney n = mb::mann_whitney({1, 2, 2, 3, 4}, {2, 3, 3, 5, 6, 7});
  CHECK(!n.exact);
  CHECK(n.u == 6);
  CHECK(n.p_less == Approx(0.056951572294265326).epsilon(1e-9));
  CHECK(n.p_greater == Approx(0.9613756091726351).epsilon(1e-9));
  // fully separated samples of 9: the smallest p there is, 1 / 48620
  std::vector<double> lo, hi;
  for (int i = 0; i < 9; ++i) lo.push_back(1 + 0.01 * i), hi.push_back(2 + 0.01 * i);
  CHECK(mb::mann_whitney(hi, lo).p_greater == Approx(1.0 / 48620).epsilon(1e-12));
}

TEST_CASE("the ratio estimate of two samples and its interval", "[gate][stats]") {
  const std::vector<double> base = {1.00, 1.03, 0.98, 1.01, 0.97, 1.05, 0.99, 1.02, 1.04};
  std::vector<double> slow;
  for (double b : base) slow.push_back(1.1 * b);
  const mb::RatioEstimate r = mb::ratio_estimate(slow, base, 0.99);
  CHECK(r.ratio == Approx(1.1).epsilon(1e-12));  // the differences are symmetric about log 1.1
  CHECK(r.low < 1.1);
  CHECK(r.high > 1.1);
  CHECK(r.low > 1.0);  // 10 % with 3 % noise: the interval excludes no change
  const mb::RatioEstimate same = mb::ratio_estimate(base, base, 0.99);
  CHECK(same.ratio == Approx(1.0).epsilon(1e-12));
  CHECK(same.low < 1.0);
  CHECK(same.high > 1.0);
  // the verdict: slower, and not for the same sample
  mb::GateTolerances tol;
  CHECK(mb::timing_verdict(slow, base, tol).change == 1);
  CHECK(mb::timing_verdict(base, slow, tol).change == -1);
  CHECK(mb::timing_verdict(base, base, tol).change == 0);
  // significant but below the effect size: no change
  std::vector<double> slight;
  for (double b : base) slight.push_back(1.2 * b);
  tol.timing_effect = 1.25;
  CHECK(mb::timing_verdict(slight, base, tol).change == 0);
}

TEST_CASE("Holm's adjustment and the wall-time tests decided as a family", "[gate][stats]") {
  // the textbook example: sorted p 0.01, 0.04, 0.03, 0.005 -> 4 x 0.005, 3 x 0.01, 2 x 0.03,
  // then max(0.06, 1 x 0.04): monotone in the order of the raw p-values
  const std::vector<double> adj = mb::holm_adjust({0.01, 0.04, 0.03, 0.005});
  REQUIRE(adj.size() == 4);
  CHECK(adj[0] == Approx(0.03).epsilon(1e-12));
  CHECK(adj[1] == Approx(0.06).epsilon(1e-12));
  CHECK(adj[2] == Approx(0.06).epsilon(1e-12));
  CHECK(adj[3] == Approx(0.02).epsilon(1e-12));
  CHECK(mb::holm_adjust({0.5, 0.9})[1] == 1.0);  // capped at 1
  CHECK(mb::holm_adjust({}).empty());
  // 9 repetitions against 9: U = 75 of 81 gives p = 6.2e-4, a change for one test but not within
  // a family of 26 tests, where U = 81 (p = 1 / 48620, the smallest there is) still is
  const std::vector<double> base = {1.00, 1.01, 1.02, 1.03, 1.04, 1.05, 1.06, 1.07, 1.08};
  std::vector<double> full, partial;
  for (double b : base) full.push_back(1.3 * b);
  // 8 values above every baseline value, one (1.025) above 3 of them: U = 72 + 3 = 75
  partial = {1.025, 1.5, 1.51, 1.52, 1.53, 1.54, 1.55, 1.56, 1.57};
  mb::GateTolerances tol;
  tol.interval_level = 0.9;  // an interval narrow enough to lie above 1.05 for both
  const mb::TimingVerdict alone = mb::timing_verdict(partial, base, tol);
  CHECK(alone.p_slower == Approx(0.0006170300287947347).epsilon(1e-9));
  CHECK(alone.change == 1);
  std::vector<mb::TimingVerdict> family(26, mb::timing_verdict(base, base, tol));
  family[0] = alone;
  family[1] = mb::timing_verdict(full, base, tol);
  mb::decide_timing_family(family, tol);
  CHECK(family[1].change == 1);  // 26 / 48620 = 5.3e-4 < 0.01
  CHECK(family[1].p_slower_adjusted == Approx(26.0 / 48620).epsilon(1e-9));
  CHECK(mb::timing_verdict_text(family[1]).find("(Holm 0.00053 of 26 tests)") != std::string::npos);
  CHECK(family[0].p_slower_adjusted == Approx(25 * 0.0006170300287947347).epsilon(1e-9));  // the second smallest
  CHECK(family[0].change == 0);
}

TEST_CASE("change points of a synthetic step series", "[gate][stats]") {
  std::mt19937 rng(7);
  std::normal_distribution<double> noise(0, 0.01);
  std::vector<double> y;
  for (int i = 0; i < 40; ++i) y.push_back((i >= 25 ? std::log(1.05) : 0.0) + noise(rng));
  const std::vector<size_t> cp = mb::change_points(y);
  REQUIRE(cp.size() == 1);
  CHECK(cp[0] == 25);
  // two steps, one up, one down
  for (int i = 30; i < 40; ++i) y[static_cast<size_t>(i)] -= std::log(1.05);
  const std::vector<size_t> cp2 = mb::change_points(y);
  for (size_t i : cp2) UNSCOPED_INFO("change point " << i);
  REQUIRE(cp2.size() == 2);
  CHECK(cp2[0] == 25);
  CHECK(cp2[1] == 30);
  // noise alone: no change point
  std::vector<double> flat;
  for (int i = 0; i < 40; ++i) flat.push_back(noise(rng));
  CHECK(mb::change_points(flat).empty());
  // deterministic values (instruction counts) with one 1 % step: found above the floor
  std::vector<double> ir(20, std::log(1e6));
  for (size_t i = 12; i < ir.size(); ++i) ir[i] = std::log(1.01e6);
  mb::ChangePointOptions opt;
  opt.sigma_floor = 0.002;
  REQUIRE(mb::change_points(ir, opt).size() == 1);
  CHECK(mb::change_points(ir, opt)[0] == 12);
}

TEST_CASE("the cachegrind summary: instructions and last-level misses", "[gate][stats]") {
  const std::string text =
      "desc: I1 cache: 32768 B, 64 B, 8-way associative\ncmd: mbbench gate-steps GC4 63 4\n"
      "events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw \nfl=x.cpp\nfn=f\n1 2 0 0 0 0 0 0 0 0\n"
      "summary: 101067182 15378 7900 27029559 1052990 193368 6653674 72389 43506\n";
  const mb::CachegrindCounts c = mb::parse_cachegrind(text, "cg.out");
  CHECK(c.instructions == 101067182);
  CHECK(c.ll_misses == 7900 + 193368 + 43506);
  // only instructions (--cache-sim=no): no misses
  CHECK(mb::parse_cachegrind("events: Ir\nsummary: 42\n", "cg.out").instructions == 42);
  CHECK_THROWS_AS(mb::parse_cachegrind("not cachegrind\n", "cg.out"), mb::InputError);
  CHECK_THROWS_WITH(mb::parse_cachegrind("events: Ir\nsummary: 4x2\n", "cg.out"), Catch::Contains("cg.out") && Catch::Contains("not a number"));
}

TEST_CASE("a gate history's trend: change points listed, figures drawn", "[gate][stats]") {
  const auto d = mbtest::temp_dir("trend");
  const std::string file = (d / "history.jsonl").string();
  {
    std::ofstream h(file);
    for (int i = 0; i < 12; ++i)
      h << fmt::format(R"({{"commit":"c{:02}","date":"2026-11-26","build":"Release","machine":"cpu","values":{{"instructions GC4 tree:joints=63":{},"ll_misses GC4 tree:joints=63":{},"time/linear GC4 tree:joints=63":{}}}}})",
                       i, i < 8 ? 1e6 : 1.03e6, i == 5 ? 2.0 : 0.0, 0.6 + 0.01 * (i % 3))
        << "\n";
  }
  const auto runs = mb::read_history(file);
  REQUIRE(runs.size() == 12);
  const auto series = mb::trend_series(runs);
  REQUIRE(series.size() == 3);
  CHECK(series[0].name == "instructions GC4 tree:joints=63");
  REQUIRE(series[0].changes.size() == 1);
  CHECK(series[0].changes[0].index == 8);
  CHECK(series[0].changes[0].after / series[0].changes[0].before == Approx(1.03));
  // last-level misses, 0 in all runs but one (as on the gate's trees): read, drawn, no log
  CHECK(series[1].name == "ll_misses GC4 tree:joints=63");
  CHECK(series[1].value.size() == 12);
  CHECK(series[1].changes.empty());
  CHECK(series[2].changes.empty());  // +-1 % of wall-time noise: no change
  const std::string html = mb::write_trend(file, (d / "out").string());
  std::ifstream in(html);
  const std::string page((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(page.find("c08") != std::string::npos);  // the change point's commit
  CHECK(page.find("+3.00 %") != std::string::npos);
  CHECK(page.find("Change points not sought: the value is 0 in some runs") != std::string::npos);
}
