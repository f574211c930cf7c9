// The report renders in a real browser: a small sweep, a tiny timing run, and their report, loaded in headless
// Chromium; the page's own check (end of report.html) must find every figure decoded and at least
// 600 px wide, every table with its rows, no cell that reads "-" where a value is expected and no
// Markdown table in a pre block. A screenshot for a person goes to build/<preset>/report-screenshot.png.
// The browser part is skipped, with a message, where Chromium is not installed; the checks of the
// HTML text and of the gnuplot scripts run everywhere.
#include <catch2/catch.hpp>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "experiments/experiment.hpp"
#include "models/catalog.hpp"
#include "records/record.hpp"
#include "report/report.hpp"

namespace fs = std::filesystem;

namespace {
std::string find_chromium() {
  for (const char* name : {"chromium", "chromium-browser"}) {
    std::string cmd = std::string("command -v ") + name + " >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return name;
  }
  return "";
}
void write_text(const fs::path& p, const std::string& text) {
  std::ofstream out(p);
  out << text;
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
  CHECK_THAT(missing.output, Catch::Contains("no bench.json"));
  auto rep = mbtest::run_cli("report " + (d / "out" / "records.jsonl").string() + " --out " + (d / "rep").string() +
                             " --timing " + (d / "bench").string());
  INFO(rep.output);
  REQUIRE(rep.code == 0);
  const std::string html = slurp(d / "rep" / "report.html");
  // the timing section of `mbbench bench` is gathered into the page, as HTML tables
  CHECK_THAT(html, Catch::Contains("<h2 id=\"timing\">Timing</h2>"));
  CHECK_THAT(html, Catch::Contains("Fig. 4"));
  CHECK_THAT(html, Catch::Contains("<table id=\"t-timing-paper\""));
  CHECK_THAT(html, Catch::Contains("<table id=\"t-timing-cases\""));
  CHECK(html.find("<pre") == std::string::npos);  // no Markdown (or anything) in a pre block
  CHECK(html.find("|---|") == std::string::npos);
  // the paper's claim that Lagrange is the slowest is answered or says why not, never "-"
  CHECK_THAT(html, Catch::Contains("The Lagrange multiplier method using the standard approach was the slowest method.</td><td"));
  CHECK(html.find(">-</td>") == std::string::npos);
  // a table of contents and the provenance as a table
  CHECK_THAT(html, Catch::Contains("<nav class=\"toc\">"));
  for (const char* key : {">git commit</td>", ">compiler</td>", ">flags</td>", ">CPU</td>", ">date</td>"})
    CHECK_THAT(html, Catch::Contains(key));
  // LD on the double pendulum (no period) is "not applicable", not a failure
  CHECK_THAT(html, Catch::Contains("<table id=\"t-not-applicable\""));
  CHECK_THAT(html, Catch::Contains("the model has no known period"));
  CHECK(html.find("every case failed") == std::string::npos);
  // every figure one size, labels literal (CD_pos_mean is not subscripted by gnuplot's enhanced text);
  // a method has one colour and marker in every figure (its "lc rgb '...' pt N" before its title)
  std::map<std::string, std::string> style_of;
  int styled = 0;
  for (const auto& e : fs::directory_iterator(d / "rep" / "plots"))
    if (e.path().extension() == ".gp") {
      const std::string gp = slurp(e.path());
      INFO(e.path().string());
      CHECK_THAT(gp, Catch::Contains("size 800,500 fixed noenhanced"));
      CHECK_THAT(gp, Catch::Contains("set xlabel"));
      CHECK_THAT(gp, Catch::Contains("set ylabel"));
      for (size_t at = gp.find(" lc rgb '#"); at != std::string::npos; at = gp.find(" lc rgb '#", at + 1)) {
        const size_t title = gp.find(" title \"", at), end = gp.find('"', title + 8);
        if (title == std::string::npos || end == std::string::npos) continue;
        if (gp.substr(at, title - at).find("notitle") != std::string::npos) continue;  // a paper's fit, in its method's colour
        const std::string style = gp.substr(at, title - at), method = gp.substr(title + 8, end - title - 8);
        const auto [it, fresh] = style_of.emplace(method, style);
        INFO(method);
        CHECK(it->second == style);
        styled += !fresh;
      }
    }
  CHECK(styled > 0);  // some method is drawn in more than one figure
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
  const long figures = count("<img class=\"figure\""), tables = count("data-rows=");
  REQUIRE(figures > 0);
  REQUIRE(tables >= 3);
  const std::string flags = fmt::format(
      "--headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync "
      "--no-first-run --hide-scrollbars --user-data-dir={}",
      (d / "profile").string());
  const std::string url = "file://" + fs::absolute(d / "rep" / "report.html").string();
  const std::string cmd = fmt::format("{} {} --window-size=1400,1000 --dump-dom {} 2>/dev/null > {}", chromium, flags, url,
                                      (d / "dom.html").string());
  REQUIRE(std::system(cmd.c_str()) == 0);
  const std::string dom = slurp(d / "dom.html");
  const size_t at = dom.find("data-check=\"");
  INFO("DOM head: " << dom.substr(0, 400));
  REQUIRE(at != std::string::npos);
  long fig_ok = -1, fig_all = -1, wide = -1, tab_ok = -1, tab_all = -1, dash = -1, mdpre = -1, overflow = -1;
  REQUIRE(std::sscanf(dom.c_str() + at, "data-check=\"figures %ld/%ld wide %ld tables %ld/%ld dash %ld mdpre %ld overflow %ld", &fig_ok,
                      &fig_all, &wide, &tab_ok, &tab_all, &dash, &mdpre, &overflow) == 8);
  CHECK(overflow == 0);
  CHECK(fig_ok == figures);  // every figure decoded (naturalWidth > 0)
  CHECK(fig_all == figures);
  CHECK(wide == figures);    // and at least 600 px wide, on the page too
  CHECK(tab_ok == tables);   // every table has its rows
  CHECK(tab_all == tables);
  CHECK(dash == 0);          // no cell reads "-" (or is empty) where a value is expected
  CHECK(mdpre == 0);         // no Markdown table in a pre block
  // at 900 px the page is no wider than the window: a wide table scrolls inside its own box
  REQUIRE(std::system(fmt::format("{} {} --window-size=900,1000 --dump-dom {} 2>/dev/null > {}", chromium, flags, url,
                                  (d / "dom900.html").string())
                          .c_str()) == 0);
  const std::string dom900 = slurp(d / "dom900.html");
  INFO("at 900 px: " << dom900.substr(dom900.find("data-check=\""), 120));
  CHECK_THAT(dom900, Catch::Contains(" overflow 0 "));
  // every text of every figure (labels, key, tics, "failed" marks) lies inside its SVG's viewBox:
  // the SVGs inlined in one page, each text's box measured by the browser against its SVG's box
  std::string page = "<!DOCTYPE html><html><body>\n";
  long svgs = 0;
  for (const auto& e : fs::directory_iterator(d / "rep" / "plots"))
    if (e.path().extension() == ".svg") {
      std::string svg = slurp(e.path());
      const size_t open = svg.find("<svg");
      REQUIRE(open != std::string::npos);
      page += "<div data-file=\"" + e.path().filename().string() + "\">" + svg.substr(open) + "</div>\n";
      ++svgs;
    }
  REQUIRE(svgs > 0);
  page += R"(<script>
window.addEventListener('load', function () {
  var n = 0, out = [], svgs = document.querySelectorAll('div > svg');
  svgs.forEach(function (svg) {
    var b = svg.getBoundingClientRect(), vb = svg.viewBox.baseVal;
    if (!vb || Math.abs(b.width - vb.width) > 1 || Math.abs(b.height - vb.height) > 1) out.push(svg.parentNode.dataset.file + ':viewBox');
    svg.querySelectorAll('text').forEach(function (t) {
      if (!t.textContent.trim()) return;
      n++;
      var r = t.getBoundingClientRect();
      if (r.left < b.left - 1 || r.right > b.right + 1 || r.top < b.top - 1 || r.bottom > b.bottom + 1)
        out.push(svg.parentNode.dataset.file + ':' + t.textContent.trim());
    });
  });
  document.body.setAttribute('data-textcheck', 'svgs ' + svgs.length + ' texts ' + n + ' outside ' + out.length + ' [' + out.join(' | ') + ']');
});
</script></body></html>
)";
  write_text(d / "svgcheck.html", page);
  const std::string svg_url = "file://" + fs::absolute(d / "svgcheck.html").string();
  REQUIRE(std::system(fmt::format("{} {} --window-size=1400,1000 --dump-dom {} 2>/dev/null > {}", chromium, flags, svg_url,
                                  (d / "svgdom.html").string())
                          .c_str()) == 0);
  const std::string svgdom = slurp(d / "svgdom.html");
  const size_t tc = svgdom.find("data-textcheck=\"");
  REQUIRE(tc != std::string::npos);
  long svg_n = -1, texts = -1, outside = -1;
  INFO(svgdom.substr(tc, svgdom.find('"', tc + 16) - tc));
  REQUIRE(std::sscanf(svgdom.c_str() + tc, "data-textcheck=\"svgs %ld texts %ld outside %ld", &svg_n, &texts, &outside) == 3);
  CHECK(svg_n == svgs);
  CHECK(texts > 10 * svgs);  // titles, axis labels, tics and keys were measured
  CHECK(outside == 0);
  // a screenshot of the top of the page for a person to look at
  const fs::path shot = fs::path(MBBENCH_EXE).parent_path() / "report-screenshot.png";
  const std::string shot_cmd = fmt::format("{} {} --window-size=1400,2400 --screenshot={} {} >/dev/null 2>&1", chromium, flags,
                                           shot.string(), url);
  CHECK(std::system(shot_cmd.c_str()) == 0);
  CHECK(fs::exists(shot));
  WARN("report screenshot: " << shot.string() << " (report: " << (d / "rep" / "report.html").string() << ")");
  if (!std::getenv("MBBENCH_KEEP_REPORT")) fs::remove_all(d);
}

// The reports of committed record sets, read in Chromium as a reader reads them at 1400 px: the
// page's height with every fold closed, the verdict table first, no two texts of one figure
// overlapping and no figure with more than kMaxSeries series. No sweep runs: the schmitt2005 set
// (tests/data/records/schmitt2005.jsonl, its accuracy fields) is completed into records from its
// experiment's cases; schmitt2003 and the Strandbeest drop are committed records. Each check is
// shown to fail on a page made to break it.
namespace {

// the full records of the committed schmitt2005 set: each case of the experiment with the set's
// status, failure, steps, metrics and statistics
void schmitt2005_records(const fs::path& out) {
  const std::string root = std::string(MBBENCH_TEST_DATA) + "/../..";
  mb::Experiment e = mb::read_experiment(root + "/results/experiments/schmitt2005.toml");
  e.file = "results/experiments/schmitt2005.toml";
  std::map<std::string, nlohmann::json> set;
  std::ifstream in(std::string(MBBENCH_TEST_DATA) + "/records/schmitt2005.jsonl");
  for (std::string line; std::getline(in, line);) {
    auto j = nlohmann::json::parse(line);
    set[j["case_id"].get<std::string>()] = j;
  }
  std::ofstream o(out);
  for (const mb::Case& c : mb::expand_cases(e)) {
    const nlohmann::json& a = set.at(c.id);
    mb::CaseRecord r;
    const mb::Model model = mb::load_model(c.model);
    r.model = {c.model, model.info.name, model.info.source, static_cast<long>(model.bodies.size()),
               static_cast<long>(model.joints.size()), model.info.period};
    r.method.spec = c.method;
    r.method.name = c.method.substr(0, c.method.find(':'));
    r.duration = c.cfg.duration;
    r.readings = {mb::to_string(c.cfg.steps), mb::to_string(c.cfg.ld_periods), c.cfg.round_to_period, c.cfg.fail_threshold};
    r.experiment = mb::experiment_ref(e);
    r.experiment->case_id = c.id;
    r.experiment->case_index = c.index;
    r.experiment->readings_primary = c.cfg.steps == e.steps.front() && c.cfg.ld_periods == e.ld_periods.front();
    auto j = nlohmann::json::parse(mb::record_to_json_line(r));
    for (const char* k : {"status", "h", "h_requested", "steps", "steps_done", "metrics", "stats"}) j[k] = a[k];
    if (a["status"] != "ok") j["failure"] = {{"reason", a["reason"]}, {"t", a["fail_t"]}};
    o << j.dump() << "\n";
  }
}

// Checks every SVG in `page` (inlined, one per div): texts whose boxes intersect (by more than
// 1 px each way) and series (gnuplot's titled plot groups: key entries) above the limit; writes
// data-svgcheck="svgs N overlaps K series S [what]" on the body, counted apart for divs marked
// data-broken ("broken overlaps K series S").
const char* kSvgCheck = R"(<script>
window.addEventListener('load', function () {
  var res = {ok: {svgs: 0, overlaps: 0, series: 0, what: []}, broken: {svgs: 0, overlaps: 0, series: 0, what: []}};
  document.querySelectorAll('div[data-file] > svg').forEach(function (svg) {
    var r = res[svg.parentNode.dataset.broken ? 'broken' : 'ok'], file = svg.parentNode.dataset.file;
    r.svgs++;
    var boxes = [];
    svg.querySelectorAll('text').forEach(function (t) {
      if (!t.textContent.trim()) return;
      var b = t.getBoundingClientRect();
      if (b.width > 0 && b.height > 0) boxes.push({b: b, t: t.textContent.trim()});
    });
    for (var i = 0; i < boxes.length; i++)
      for (var j = i + 1; j < boxes.length; j++) {
        var a = boxes[i].b, c = boxes[j].b;
        if (a.left < c.right - 1 && c.left < a.right - 1 && a.top < c.bottom - 1 && c.top < a.bottom - 1) {
          r.overlaps++;
          r.what.push(file + ': "' + boxes[i].t + '" / "' + boxes[j].t + '"');
        }
      }
    // a series is a key entry: a plot group with a title of its own (an untitled plot, such as the
    // paper's dashed fit in its method's colour, is titled by its id)
    var n = 0;
    svg.querySelectorAll('g[id^="gnuplot_plot_"]').forEach(function (g) {
      var t = g.querySelector('title');
      if (t && t.textContent != g.id) n++;
    });
    if (n > MAXSERIES) { r.series++; r.what.push(file + ': ' + n + ' series'); }
  });
  document.body.setAttribute('data-svgcheck', 'svgs ' + res.ok.svgs + ' overlaps ' + res.ok.overlaps + ' series ' + res.ok.series +
    ' broken ' + res.broken.svgs + ' overlaps ' + res.broken.overlaps + ' series ' + res.broken.series + ' [' + res.ok.what.slice(0, 8).join(' | ') + ']');
});
</script>)";

std::string chromium_dom(const std::string& chromium, const fs::path& profile, const fs::path& page, int width) {
  const fs::path out = page.string() + ".dom";
  const std::string cmd = fmt::format(
      "{} --headless --no-sandbox --disable-gpu --disable-background-networking --disable-component-update --disable-sync "
      "--no-first-run --hide-scrollbars --user-data-dir={} --window-size={},1000 --dump-dom file://{} 2>/dev/null > {}",
      chromium, profile.string(), width, fs::absolute(page).string(), out.string());
  if (std::system(cmd.c_str()) != 0) return "";
  return slurp(out);
}

struct PageCheck {
  long height = -1;
  std::string first;
};
PageCheck page_check(const std::string& dom) {
  PageCheck c;
  const size_t at = dom.find(" height ");
  if (at == std::string::npos) return c;
  char first[128] = {0};
  if (std::sscanf(dom.c_str() + at, " height %ld first %127[^\"]", &c.height, first) == 2) c.first = first;
  return c;
}

}  // namespace

TEST_CASE("committed record sets render as a reader reads them - verdicts first and short pages", "[report][browser]") {
  const fs::path d = mbtest::temp_dir("reader");
  const std::string data = std::string(MBBENCH_TEST_DATA) + "/records/";
  schmitt2005_records(d / "schmitt2005.jsonl");
  struct Report {
    std::string name, records;
    long max_height;
  };
  // the issue's goals at 1400 px: schmitt2005 <= 20,000 px, schmitt2003 <= 15,000 px
  const std::vector<Report> reports = {{"schmitt2005", (d / "schmitt2005.jsonl").string(), 20000},
                                       {"schmitt2003", data + "schmitt2003.jsonl", 15000},
                                       {"drop", data + "tomcin2014-strandbeest-drop.jsonl", 8000}};
  for (const auto& r : reports) {
    auto rep = mbtest::run_cli("report " + r.records + " --out " + (d / r.name).string());
    INFO(rep.output);
    REQUIRE(rep.code == 0);
  }
  // the verdict table names every published row that is not reproduced (analysis' outcomes)
  const std::string s2005 = slurp(d / "schmitt2005" / "report.html");
  CHECK(s2005.find("<table id=\"t-verdicts\"") < s2005.find("<table id=\"t-paper-"));
  const std::string drop = slurp(d / "drop" / "report.html");
  CHECK_THAT(drop, Catch::Contains("<table id=\"t-verdicts\""));
  const std::string s2003 = slurp(d / "schmitt2003" / "report.html");
  CHECK_THAT(s2003, Catch::Contains("no published values"));

  const std::string chromium = find_chromium();
  if (chromium.empty()) {
    WARN("SKIPPED: Chromium is not installed (scripts/install-deps.sh --with-browser); the reports were not rendered");
    fs::remove_all(d);
    return;
  }
  const fs::path profile = d / "profile";
  for (const auto& r : reports) {
    INFO(r.name);
    const PageCheck c = page_check(chromium_dom(chromium, profile, d / r.name / "report.html", 1400));
    WARN(r.name << ": " << c.height << " px at 1400 px, every fold closed");
    CHECK(c.height > 0);
    CHECK(c.height <= r.max_height);
    CHECK(c.first == "t-verdicts");
  }
  // a page made to break both: a table before the verdicts and a tall block
  {
    std::string broken = s2005;
    broken.insert(broken.find("<h2 id=\"verdicts\">"), "<div style=\"height:30000px\"></div><table id=\"t-other\" data-rows=\"1\"><tbody><tr><td>x</td></tr></tbody></table>");
    write_text(d / "broken.html", broken);
    const PageCheck c = page_check(chromium_dom(chromium, profile, d / "broken.html", 1400));
    CHECK(c.height > 20000);
    CHECK(c.first == "t-other");
  }
  // every figure of the three reports inlined, and two made to break the checks: overlapping
  // texts, and more series than the limit
  std::string page = "<!DOCTYPE html><html><body>\n";
  long svgs = 0;
  for (const auto& r : reports)
    for (const auto& e : fs::directory_iterator(d / r.name / "plots"))
      if (e.path().extension() == ".svg") {
        const std::string svg = slurp(e.path());
        page += "<div data-file=\"" + r.name + "/" + e.path().filename().string() + "\">" + svg.substr(svg.find("<svg")) + "</div>\n";
        ++svgs;
      }
  REQUIRE(svgs > 10);
  page += "<div data-file=\"overlap\" data-broken=\"1\"><svg width=\"200\" height=\"100\" viewBox=\"0 0 200 100\"><text x=\"10\" y=\"50\">LM4 failed</text>"
          "<text x=\"30\" y=\"52\">LM4 failed</text></svg></div>\n";
  std::string many = "<div data-file=\"many\" data-broken=\"1\"><svg width=\"200\" height=\"100\" viewBox=\"0 0 200 100\">";
  for (size_t k = 1; k <= mb::kMaxSeries + 1; ++k)
    many += fmt::format("<g id=\"gnuplot_plot_{}\"><title>m{}</title><path d=\"M0 {} L200 {}\"/></g>", k, k, k, k);
  page += many + "</svg></div>\n";
  std::string script = kSvgCheck;
  script.replace(script.find("MAXSERIES"), 9, std::to_string(mb::kMaxSeries));
  write_text(d / "svgs.html", page + script + "</body></html>\n");
  const std::string dom = chromium_dom(chromium, profile, d / "svgs.html", 1400);
  const size_t at = dom.find("data-svgcheck=\"");
  REQUIRE(at != std::string::npos);
  INFO(dom.substr(at, dom.find('"', at + 15) - at));
  long n = -1, overlaps = -1, series = -1, bn = -1, boverlaps = -1, bseries = -1;
  REQUIRE(std::sscanf(dom.c_str() + at, "data-svgcheck=\"svgs %ld overlaps %ld series %ld broken %ld overlaps %ld series %ld", &n, &overlaps,
                      &series, &bn, &boverlaps, &bseries) == 6);
  CHECK(n == svgs);
  CHECK(overlaps == 0);
  CHECK(series == 0);
  CHECK(bn == 2);
  CHECK(boverlaps == 1);
  CHECK(bseries == 1);
  if (!std::getenv("MBBENCH_KEEP_REPORT")) fs::remove_all(d);
}
