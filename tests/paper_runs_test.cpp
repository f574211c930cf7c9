// Published whole runs (a paper's [[run]]: tomcin2014 s.7's Strandbeest drop table) beside ours:
// the published rows are the cases of results/experiments/tomcin2014-strandbeest-drop.toml; the
// analysis sets each record's step and CPU time beside the paper's tc and its joint error against
// the paper's bound; the report (tables.md, report.html of `mbbench report`) shows those rows, on
// a two-leg Strandbeest dropped for 0.2 s (well under a second in Release), with two timing
// folders (`--timing` given twice) gathered into the same report.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"
#include "analysis/timing.hpp"
#include "cli_util.hpp"
#include "experiments/experiment.hpp"
#include "report/report.hpp"
#include "sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kRoot = std::string(MBBENCH_TEST_DATA) + "/../..";
const std::string kDrop = "tomcin2014-strandbeest-drop";

std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

const mb::TextTable* find_table(const std::vector<mb::TextTable>& tables, const std::string& id) {
  for (const auto& t : tables)
    if (t.id == id) return &t;
  return nullptr;
}

}  // namespace

TEST_CASE("tomcin2014 s.7: the drop table's published runs are the drop experiment's cases", "[report][paper-runs]") {
  const mb::Paper paper = mb::read_paper(kRoot + "/results/paper/tomcin2014.toml");
  REQUIRE(paper.runs.size() == 8);  // ours and ODE, k = 0, 5, 10, 20
  const mb::Experiment e = mb::read_experiment(kRoot + "/results/experiments/" + kDrop + ".toml");
  const auto cases = mb::expand_cases(e);
  REQUIRE(cases.size() == 4);
  std::set<double> tc;
  for (const auto& c : cases) {
    const mb::PaperRun* run = nullptr;
    for (const auto& p : paper.runs)
      if (p.experiment == kDrop && p.model == c.model && p.method == c.method) run = &p;
    INFO(c.model << " " << c.method);
    REQUIRE(run);
    CHECK(run->h == c.h_nominal);
    CHECK(run->duration == e.duration);
    CHECK(run->error_max == 1e-6);
    CHECK(run->metric == "CD_pos_max");
    CHECK_THAT(run->source, Catch::StartsWith("s.7"));
    tc.insert(run->tc_ms);
  }
  CHECK(tc == std::set<double>{7730, 8924, 9790, 10078});
  // the paper's configuration: 50 legs, h = 20 ms, 5 s, the frame split, contact sweeps ended at 50
  CHECK(e.duration == 5.0);
  for (const auto& c : cases) {
    CHECK_THAT(c.model, Catch::StartsWith("strandbeest:legs=50,"));
    CHECK(c.method == "tomcin:split=auto,eps_T=1e-12,contact_iterations=50");
  }
}

TEST_CASE("published runs: step and CPU time over tc, the error against the bound, other experiments left out", "[report][paper-runs]") {
  const mb::Paper paper = mb::read_paper(kRoot + "/results/paper/tomcin2014.toml");
  std::vector<mb::CaseRecord> recs;
  for (const auto& p : paper.runs) {
    if (p.experiment != kDrop) continue;
    mb::CaseRecord r;
    r.experiment = mb::ExperimentRef{};
    r.experiment->name = kDrop;
    r.experiment->metrics = {"CD_pos_max", "PEN_max"};
    r.model.spec = r.model.name = p.model;
    r.method.spec = r.method.name = p.method;
    r.h = r.h_requested = p.h;
    r.duration = p.duration;
    r.steps = r.steps_done = 250;
    r.timing.step_seconds_total = 2 * p.tc_ms / 1e3;   // twice the paper's tc
    r.timing.cpu_seconds_total = 0.4 * p.tc_ms / 1e3;  // 0.4 of it
    // above the paper's 1e-6 on the heaviest frame only
    r.metrics.set("CD_pos_max", p.model.find("k=20") != std::string::npos ? 3e-6 : 2e-8);
    r.metrics.set("PEN_max", 4e-4);
    recs.push_back(r);
  }
  REQUIRE(recs.size() == 4);
  recs.pop_back();  // k = 20 not run ...
  mb::CaseRecord heavy = recs.back();
  heavy.model.spec = "strandbeest:legs=50,k=20,drop=0.4";  // ... then run at the wrong step: still not the paper's row
  heavy.h = heavy.h_requested = 0.01;
  recs.push_back(heavy);

  const mb::ReportData d = mb::analyse(recs, paper);
  REQUIRE(d.runs.size() == 4);  // the ODE rows belong to another experiment
  for (const auto& c : d.runs) {
    INFO(c.paper.model);
    CHECK(c.paper.experiment == kDrop);
    if (c.paper.model.find("k=20") != std::string::npos) {
      CHECK(c.verdict == mb::RunComparison::Verdict::NotRun);
      CHECK_FALSE(c.step_s);
      continue;
    }
    CHECK(c.verdict == mb::RunComparison::Verdict::Within);
    REQUIRE(c.step_ratio);
    REQUIRE(c.cpu_ratio);
    CHECK(*c.step_ratio == Approx(2.0).epsilon(1e-12));
    CHECK(*c.cpu_ratio == Approx(0.4).epsilon(1e-12));
    CHECK(*c.error == 2e-8);
    REQUIRE(c.metrics.size() == 1);
    CHECK(c.metrics[0].first == "PEN_max");
  }
  // an error above the bound is "above the bound"
  std::vector<mb::CaseRecord> bad = {recs[0]};
  bad[0].metrics.set("CD_pos_max", 2e-6);
  const auto over = mb::compare_runs(bad, paper.runs, {"CD_pos_max"});
  REQUIRE(over.size() == 4);
  CHECK(over[0].verdict == mb::RunComparison::Verdict::Exceeds);

  const auto tables = mb::report_tables(d);
  const mb::TextTable* t = find_table(tables, "paper-runs");
  REQUIRE(t);
  REQUIRE(t->rows.size() == 4);
  // k = 0: the paper's 7.73 s beside our 15.5 s (2x) and CPU 3.09 s (0.4x), 2e-8 below 1e-6
  const auto& row = t->rows[0];
  REQUIRE(row.size() == t->header.size());
  CHECK(row[0].text == "strandbeest:legs=50,k=0,drop=0.4");
  CHECK(row[4].text == "7.73");
  CHECK(row[6].text == "15.5");
  CHECK(row[7].text == "3.09");
  CHECK(row[8].text == "2.00");
  CHECK(row[9].text == "0.400");
  CHECK(row[11].text == "< 1.00e-06");
  CHECK(row[12].text == "2.00e-08");
  CHECK(row[1].style == "ok");
  CHECK(t->header.back() == "PEN_max");
  CHECK(row.back().text == "4.00e-04");
  CHECK(t->rows[3][6].text == "not run");
}

TEST_CASE("the report of a drop sweep holds the published runs beside ours, with the CPU time", "[report][paper-runs]") {
  const fs::path d = mbtest::temp_dir("paper_runs");
  fs::remove_all(d);
  fs::create_directories(d);
  const std::string method = "tomcin:split=auto,eps_T=1e-12,contact_iterations=50";
  {
    std::ofstream paper(d / "paper.toml");
    paper << "citation = \"tiny\"\n[context]\nmachine = \"a 2014 desktop\"\n";
    for (int k : {0, 5})
      paper << fmt::format("[[run]]\nexperiment = \"drop-tiny\"\nmodel = \"strandbeest:legs=2,k={},drop=0.1\"\nmethod = \"{}\"\n"
                           "paper_method = \"SPD\"\nh = 0.02\nduration = 0.2\ntc_ms = 40\nmetric = \"CD_pos_max\"\n"
                           "error_max = 1e-6\nsource = \"s.7\"\n",
                           k, method);
    std::ofstream exp(d / "drop-tiny.toml");
    exp << fmt::format("name = \"drop-tiny\"\nreproduces = \"tests only\"\npaper = \"{}\"\n"
                       "models = [\"strandbeest:legs=2,k=0,drop=0.1\", \"strandbeest:legs=2,k=5,drop=0.1\"]\n"
                       "methods = [\"{}\"]\nh = [0.02]\nduration = 0.2\nmetrics = [\"CD_pos_max\", \"PEN_max\"]\n",
                       (d / "paper.toml").string(), method);
  }
  auto sweep = mbtest::run_cli("sweep " + (d / "drop-tiny.toml").string() + " --jobs 1 --out " + (d / "out").string());
  INFO(sweep.output);
  REQUIRE(sweep.code == 0);
  auto rep = mbtest::run_cli("report " + (d / "out" / "records.jsonl").string() + " --out " + (d / "out").string());
  INFO(rep.output);
  REQUIRE(rep.code == 0);
  const std::string md = slurp(d / "out" / "tables.md");
  CHECK_THAT(md, Catch::Contains("Whole runs beside the paper's (tiny)"));
  CHECK_THAT(md, Catch::Contains("| strandbeest:legs=2,k=0,drop=0.1 | below the bound | 0.02 | SPD | 0.0400 | " + method + " | "));
  CHECK_THAT(md, Catch::Contains("| strandbeest:legs=2,k=5,drop=0.1 | below the bound | 0.02 | SPD | 0.0400 | " + method + " | "));
  CHECK_THAT(md, Catch::Contains("| below the bound |"));
  CHECK(md.find("not recorded") == std::string::npos);  // the sweep recorded the CPU time
  CHECK(md.find("not run") == std::string::npos);
  const std::string html = slurp(d / "out" / "report.html");
  CHECK_THAT(html, Catch::Contains("<table id=\"t-paper-runs\""));
  CHECK_THAT(html, Catch::Contains("a 2014 desktop"));

  // several timing folders in one report (scripts/reproduce.sh: bender2007, tomcin2014, bayer2009):
  // each one's tables and plot named by its experiment, compared with its own paper
  for (const std::string name : {"alpha", "beta"}) {
    nlohmann::json b;
    b["context"] = {{"mbbench_reference", "linear"}, {"mbbench_experiment_name", name}};
    if (name == "beta") b["context"]["mbbench_paper"] = kRoot + "/results/paper/bender2007.toml";
    for (int j : {31, 63})
      for (const std::string spec : {"linear", "lagrange"})
        b["benchmarks"].push_back({{"name", mb::timing_case_name(spec, j)}, {"run_type", "iteration"},
                                   {"real_time", (spec == "linear" ? 0.1 : 0.4) * j / 31}, {"time_unit", "ms"}});
    fs::create_directories(d / name);
    std::ofstream(d / name / "bench.json") << b.dump();
  }
  auto both = mbtest::run_cli("report " + (d / "out" / "records.jsonl").string() + " --out " + (d / "both").string() + " --timing " +
                              (d / "alpha").string() + " --timing " + (d / "beta").string());
  INFO(both.output);
  REQUIRE(both.code == 0);
  const std::string two = slurp(d / "both" / "report.html");
  CHECK_THAT(two, Catch::Contains("<table id=\"t-paper-runs\""));
  CHECK_THAT(two, Catch::Contains("<table id=\"t-alpha-timing-cases\""));
  CHECK_THAT(two, Catch::Contains("<table id=\"t-beta-timing-cases\""));
  CHECK(two.find("<table id=\"t-alpha-timing-paper\"") == std::string::npos);  // alpha names no paper
  CHECK_THAT(two, Catch::Contains("<table id=\"t-beta-timing-paper\""));       // beta: bender2007's Fig. 4 times
  CHECK_THAT(two, Catch::Contains("beta: Time per step beside the paper"));
  CHECK(fs::exists(d / "both" / "plots" / "timing-alpha.dat"));
  CHECK(fs::exists(d / "both" / "plots" / "timing-beta.dat"));
  fs::remove_all(d);
}
