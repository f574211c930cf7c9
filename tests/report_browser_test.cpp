// The report renders in a real browser: a small sweep, a tiny timing run, and their report, loaded in headless
// Chromium; the page's own check (end of report.html) must find every figure decoded and every
// table with its rows. Skipped, with a message, where Chromium is not installed.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "cli_util.hpp"

namespace fs = std::filesystem;

namespace {
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}
std::string slurp(const fs::path& p) {
  std::ifstream in(p);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST_CASE("report.html renders in headless Chromium with every figure and table", "[report][browser]") {
  fs::path d = mbtest::temp_dir("report");
  const std::string exp = std::string(MBBENCH_TEST_DATA) + "/experiments/small.toml";
  REQUIRE(mbtest::run_cli("sweep " + exp + " --jobs 2 --out " + (d / "out").string()).code == 0);
  // a tiny timing run (linear on the 31-joint tree, one repetition) whose table and plot the report gathers
  const std::string timing_exp = std::string(MBBENCH_TEST_DATA) + "/../../results/experiments/bender2007.toml";
  auto bench = mbtest::run_cli("bench " + timing_exp + " --out " + (d / "bench").string() +
                               " --max-joints 31 --repetitions 1 --filter linear");
  INFO(bench.output);
  REQUIRE(bench.code == 0);
  auto missing = mbtest::run_cli("report " + (d / "out" / "records.jsonl").string() + " --out " + (d / "x").string() +
                                 " --timing " + (d / "nothing").string());
  CHECK(missing.code == 2);
  CHECK_THAT(missing.output, Catch::Contains("no timing.md"));
  auto rep = mbtest::run_cli("report " + (d / "out" / "records.jsonl").string() + " --out " + (d / "rep").string() +
                             " --timing " + (d / "bench").string());
  INFO(rep.output);
  REQUIRE(rep.code == 0);
  const std::string html = slurp(d / "rep" / "report.html");
  // the timing section of `mbbench bench` is gathered into the page
  CHECK_THAT(html, Catch::Contains("<h2>Timing</h2>"));
  CHECK_THAT(html, Catch::Contains("Fig. 4"));
  // the paper's tables are there, with GC4 beside the published values
  CHECK_THAT(html, Catch::Contains("Model: Pendulum10  Function: Energy Drift"));
  CHECK_THAT(html, Catch::Contains("57.489726"));
  CHECK(fs::exists(d / "rep" / "records.csv"));
  CHECK(fs::exists(d / "rep" / "tables.md"));

  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    WARN("SKIPPED: Chromium is not installed (scripts/install-deps.sh --with-browser); report.html was not rendered");
    fs::remove_all(d);
    return;
  }
  // the figures the page embeds, and the tables it holds
  auto count = [&](const std::string& what) {
    long n = 0;
    for (size_t p = html.find(what); p != std::string::npos; p = html.find(what, p + 1)) ++n;
    return n;
  };
  const long figures = count("<img class=\"figure\""), tables = count("<table data-rows=");
  REQUIRE(figures > 0);
  REQUIRE(tables >= 3);
  const std::string cmd = fmt::format(
      "{} --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync "
      "--no-first-run --user-data-dir={} --dump-dom file://{} 2>/dev/null > {}",
      chromium, (d / "profile").string(), fs::absolute(d / "rep" / "report.html").string(), (d / "dom.html").string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string dom = slurp(d / "dom.html");
  const size_t at = dom.find("data-check=\"");
  INFO("DOM head: " << dom.substr(0, 400));
  REQUIRE(at != std::string::npos);
  long fig_ok = -1, fig_all = -1, tab_ok = -1, tab_all = -1;
  REQUIRE(std::sscanf(dom.c_str() + at, "data-check=\"figures %ld/%ld tables %ld/%ld\"", &fig_ok, &fig_all, &tab_ok, &tab_all) == 4);
  CHECK(fig_ok == figures);  // every figure decoded (naturalWidth > 0)
  CHECK(fig_all == figures);
  CHECK(tab_ok == tables);   // every table has its rows
  CHECK(tab_all == tables);
  fs::remove_all(d);
}
