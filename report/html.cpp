// report.html: one self-contained page (figures embedded as base64 SVG, all kFigureWidth x
// kFigureHeight), titled by its experiments: a table of contents, a summary (the counts of the
// analysis' verdicts), the figures, the paper's tables and the timing tables of `mbbench bench` as
// HTML tables (numbers right-aligned, wide tables scrolling in their box), the provenance, and an
// appendix with the long tables (every reading, pair, fit and timing case) folded in <details>. A
// small script at the end checks, in the browser, that every figure decoded and is at least 600 px
// wide, every table has its rows, no cell reads "-" and no pre block holds a Markdown table, and
// writes the result into <body data-check> (tests/report_browser_test.cpp reads it back from
// headless Chromium).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <cctype>
#include <set>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

std::string html_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

namespace {

std::string esc(const std::string& s) { return html_escape(s); }

std::string base64(const std::string& in) {
  static const char* t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8 | (unsigned char)in[i + 2];
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], t[v & 63]};
  }
  if (i + 1 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16;
    out += {t[v >> 18], t[(v >> 12) & 63], '=', '='};
  } else if (i + 2 == in.size()) {
    unsigned v = (unsigned char)in[i] << 16 | (unsigned char)in[i + 1] << 8;
    out += {t[v >> 18], t[(v >> 12) & 63], t[(v >> 6) & 63], '='};
  }
  return out;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// a number, a range of numbers, a ratio "3.2x" or a signed difference: right-aligned
bool numeric(const std::string& t) {
  if (t.empty()) return false;
  bool digit = false;
  for (size_t i = 0; i < t.size(); ++i) {
    const char c = t[i];
    if (std::isdigit(static_cast<unsigned char>(c))) digit = true;
    else if (c == '.' || c == '+' || c == '-' || c == '/' || c == ' ') continue;
    else if ((c == 'e' || c == 'E') && i > 0 && i + 1 < t.size()) continue;
    else if (c == 'x' && i + 1 == t.size()) continue;
    else return false;
  }
  return digit;
}

std::string table_html(const TextTable& t) {
  // without a title (a section's only table) the section's heading names it
  std::string s = t.title.empty() ? std::string() : fmt::format("<h3 id=\"{}\">{}</h3>\n", esc(t.id), esc(t.title));
  s += fmt::format("<p class=\"caption\">{}</p>\n<div class=\"scroll\"><table id=\"t-{}\" data-rows=\"{}\">\n<thead><tr>", esc(t.caption),
                   esc(t.id), t.rows.size());
  for (const auto& h : t.header) s += "<th>" + esc(h) + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const auto& r : t.rows) {
    s += "<tr>";
    for (const auto& c : r) {
      std::string cls = c.style;
      if (numeric(c.text)) cls += cls.empty() ? "num" : " num";
      // one token (a method spec such as iterative:tol_p=1e-6): never broken at its hyphens
      else if (!c.text.empty() && c.text.find(' ') == std::string::npos && c.text.size() <= 60) cls += cls.empty() ? "token" : " token";
      const std::string text = c.href.empty() ? esc(c.text) : "<a href=\"#" + esc(c.href) + "\">" + esc(c.text) + "</a>";
      s += "<td" + (cls.empty() ? std::string() : " class=\"" + cls + "\"") + ">" + text + "</td>";
    }
    s += "</tr>\n";
  }
  return s + "</tbody></table></div>\n";
}

// the long tables (every reading, every two-point pair, every fit, every timing case): folded in
// the appendix, after the summary, the figures and the paper's tables
bool appendix_table(const std::string& id) {
  // "timing-cases", or "<experiment>-timing-cases" in a report of several timing experiments
  const std::string cases = "timing-cases";
  const bool timing_cases = id.size() >= cases.size() && id.compare(id.size() - cases.size(), cases.size(), cases) == 0;
  return id == "readings" || id == "pairs" || id == "fits" || timing_cases;
}

// the tables of the records' own step times: shown under Timing, beside `mbbench bench`'s tables
bool timing_section_table(const std::string& id) { return id == "realtime"; }

// a table longer than this is folded (<details>), its title and row count in the summary line
constexpr size_t kFoldRows = 40;

std::string folded_html(const TextTable& t) {
  return fmt::format("<details id=\"d-{}\"><summary>{} ({} rows)</summary>\n", esc(t.id), esc(t.title), t.rows.size()) + table_html(t) +
         "</details>\n";
}

std::string list_text(const std::set<std::string>& a) {
  std::string s;
  for (const auto& v : a) s += (s.empty() ? "" : "; ") + (v.empty() ? std::string("not recorded") : v);
  return s.empty() ? "not recorded" : s;
}

}  // namespace

std::string repository_path(const std::string& path) {
  std::error_code ec;
  const fs::path p = fs::absolute(path, ec).lexically_normal();
  if (ec) return path;
  for (fs::path dir = p.parent_path(); !dir.empty(); dir = dir.parent_path()) {
    if (fs::exists(dir / ".git", ec)) return p.lexically_relative(dir).string();
    if (dir == dir.root_path()) break;
  }
  return path;
}

std::string report_html(const ReportData& d, const std::vector<Figure>& figures, const std::string& dir,
                        const std::vector<TextTable>& timing, const std::string& timing_summary, const TextTable& verdicts) {
  const ProvenanceSummary& p = d.provenance;
  std::vector<TextTable> tables, timing_tables = timing;
  for (auto& t : report_tables(d)) (timing_section_table(t.id) ? timing_tables : tables).push_back(std::move(t));
  std::string names;
  for (const auto& e : p.experiments) names += (names.empty() ? "" : ", ") + e.name;
  const std::string title = names.empty() ? std::string("mbbench report") : "mbbench report: " + names;
  std::string s = fmt::format(R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{}</title>
<style>
body{{font-family:sans-serif;max-width:1400px;margin:1em auto;padding:0 1em;color:#222;line-height:1.35}}
h2{{border-bottom:1px solid #ccc;padding-bottom:.2em;margin-top:1.6em}}
h3{{overflow-wrap:anywhere}}
nav.toc{{background:#f6f6f6;padding:.4em 1em;font-size:14px}}
nav.toc ul{{margin:.2em 0;padding-left:1.4em}}
nav.toc > ul > li{{display:inline;margin-right:1.2em}}
nav.toc > ul{{padding-left:0}}
.scroll{{overflow-x:auto;max-width:100%}}
details{{margin:.3em 0}}
summary{{cursor:pointer;font-weight:bold}}
ul.summary li{{margin:.15em 0}}
table{{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}}
th,td{{border:1px solid #bbb;padding:2px 6px;text-align:left;vertical-align:top}}
th{{background:#eee}}
td.num{{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}}
td.token{{white-space:nowrap}}
td.ok{{background:#dfd}}
td.bad{{background:#fdd;color:#a00}}
td.finding{{background:#ffefc2}}
td.na{{color:#666;font-style:italic}}
table.prov td:first-child{{font-weight:bold;white-space:nowrap}}
.caption{{color:#555;font-size:13px;max-width:1100px}}
div.figs{{display:grid;grid-template-columns:minmax(0,1fr);gap:.6em}}
@media (min-width:1300px){{div.figs{{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}}}
figure{{margin:0;max-width:{}px}}
img.figure{{width:100%;height:auto;aspect-ratio:{}/{};border:1px solid #ddd}}
figcaption{{font-size:13px}}
ul.notdrawn{{font-size:13px}}
.note{{color:#a00}}
@media print{{div.figs{{grid-template-columns:minmax(0,1fr) minmax(0,1fr)}}nav.toc{{display:none}}h2{{margin-top:1em}}}}
</style></head>
<body>
<h1>{}</h1>
)",
                              esc(title), kFigureWidth, kFigureWidth, kFigureHeight, esc(title));

  // contents, folded to the top level: each section's tables in a fold of their own
  std::vector<const TextTable*> main_tables, folded;
  for (const auto& t : tables) (appendix_table(t.id) ? folded : main_tables).push_back(&t);
  for (const auto& t : timing_tables) (appendix_table(t.id) ? folded : main_tables).push_back(&t);
  auto sub_list = [&](const std::vector<TextTable>& ts, const char* what) {
    std::string items;
    long n = 0;
    for (const auto& t : ts)
      if (!appendix_table(t.id)) items += fmt::format("<li><a href=\"#{}\">{}</a></li>\n", esc(t.id), esc(t.title)), ++n;
    return n == 0 ? std::string() : fmt::format("<details><summary>{}: {} tables</summary><ul>\n{}</ul></details>\n", what, n, items);
  };
  s += "<nav class=\"toc\"><b>Contents</b><ul>\n";
  if (!verdicts.rows.empty()) s += "<li><a href=\"#verdicts\">Verdicts</a></li>\n";
  s += "<li><a href=\"#summary\">Summary</a></li>\n";
  if (d.modes) s += "<li><a href=\"#meijaard2007\">Meijaard 2007</a></li>\n";
  s += "<li><a href=\"#figures\">Figures</a></li>\n<li><a href=\"#tables\">Tables</a></li>\n";
  if (!timing_tables.empty()) s += "<li><a href=\"#timing\">Timing</a></li>\n";
  s += "<li><a href=\"#provenance\">Provenance</a></li>\n";
  if (!folded.empty()) s += "<li><a href=\"#appendix\">Appendix (folded)</a></li>\n";
  s += "</ul>\n" + sub_list(tables, "Tables") + (timing_tables.empty() ? "" : sub_list(timing_tables, "Timing")) + "</nav>\n";

  // the verdicts, first: the analysis' outcomes, every row that is not reproduced named
  if (!verdicts.rows.empty()) {
    TextTable v = verdicts;
    v.title = "";  // the section's heading says it
    s += "<h2 id=\"verdicts\">Verdicts</h2>\n" + table_html(v);
  }

  // summary: the counts of what the analysis decided (the verdicts are its, not this page's)
  long published = 0, run = 0, reproduced = 0, findings = 0;
  long other_settings = 0;
  for (const ComparedRow& r : d.rows)
    if (r.paper) {
      ++published;
      if (r.ours) ++run;
      if (r.comparison.verdict == Verdict::Reproduced) ++reproduced;
      if (r.ours && !r.settings_differ.empty()) ++other_settings;
    }
  for (const Finding& f : d.findings)
    if (f.reproduced > 0) ++findings;
  s += "<h2 id=\"summary\">Summary</h2>\n<ul class=\"summary\">\n";
  s += fmt::format("<li>{} records, {} failed, {} unsupported (a failure is data: its reason is in the records and the figures; "
                   "an unsupported case is a method's recorded refusal of a model)</li>\n",
                   p.records, p.failed, p.unsupported);
  if (published > 0) {
    s += fmt::format("<li>published rows: {} of the {} run reproduced by the main reading (order within 0.02, factor within 1 %); "
                     "{} published rows not run by these experiments</li>\n",
                     reproduced, run, published - run);
    if (other_settings > 0)
      s += fmt::format("<li>{} of the rows run used other settings than the paper's (a shorter run or another h range): "
                       "their verdicts compare unlike runs, as the verdict column says</li>\n",
                       other_settings);
    s += fmt::format("<li>findings: {} of {} published rows are reproduced by some reading of the paper's text (table "
                     "<a href=\"#findings\">Findings</a>)</li>\n",
                     findings, d.findings.size());
  }
  if (!d.not_applicable.empty())
    s += fmt::format("<li>{} model x metric pairs do not apply, each with its reason (table <a href=\"#not-applicable\">not "
                     "applicable</a>)</li>\n",
                     d.not_applicable.size());
  if (!timing_tables.empty())
    s += "<li>" + esc(timing_summary.empty() ? std::string("timing: our times per step") : timing_summary) +
         " (under <a href=\"#timing\">Timing</a>)</li>\n";
  s += "</ul>\n";

  std::vector<const Figure*> modes_figures;
  for (const auto& f : figures)
    if (f.id.rfind("meijaard2007", 0) == 0) modes_figures.push_back(&f);
  // the benchmark bicycle (meijaard2007): its figures and tables together
  if (d.modes) {
    s += "<h2 id=\"meijaard2007\">Meijaard 2007: the benchmark bicycle</h2>\n<p class=\"caption\">The Whipple bicycle's "
         "linearized lean and steer dynamics about upright, straight-ahead running (meijaard2007): the eigenvalues of the published "
         "matrices over the speed v, those of ref's own linearization, and those each method's motion shows (eig_err, "
         "docs/metrics.md: the transition matrix fitted to lean, steer and their rates every 16 ms over the first 2 s after a "
         "small perturbation). Energy and constraint drift: the figures and tables of ED and CD_pos_max below.</p>\n"
         "<div class=\"figs\">\n";
    std::string modes_not_drawn;
    for (const Figure* f : modes_figures) {
      if (f->svg_file.empty()) {
        modes_not_drawn += "<li>" + esc(f->title) + ": " + esc(f->note.empty() ? std::string("not drawn") : f->note) + "</li>\n";
        continue;
      }
      s += fmt::format("<figure id=\"fig-{}\"><img class=\"figure\" width=\"{}\" height=\"{}\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">",
                       esc(f->id), kFigureWidth, kFigureHeight, esc(f->title), base64(read_file(fs::path(dir) / f->svg_file)));
      if (!f->note.empty()) s += "<figcaption><span class=\"note\">" + esc(f->note) + "</span></figcaption>";
      s += "</figure>\n";
    }
    s += "</div>\n";
    if (!modes_not_drawn.empty()) s += "<ul class=\"notdrawn\">\n" + modes_not_drawn + "</ul>\n";
    for (const auto& t : modes_tables(d)) s += table_html(t);
  }
  // figures, embedded, in a grid of two columns on a wide window; those not drawn one line each
  s += "<h2 id=\"figures\">Figures</h2>\n<div class=\"figs\">\n";
  std::string not_drawn, value_tables;
  for (const auto& f : figures) {
    if (f.id.rfind("meijaard2007", 0) == 0) continue;  // in their own section
    if (!f.table.rows.empty()) {
      value_tables += "<div>" + table_html(f.table) + "</div>\n";
      continue;
    }
    if (f.svg_file.empty()) {
      not_drawn += "<li>" + esc(f.title) + ": " + esc(f.note.empty() ? std::string("not drawn") : f.note) + "</li>\n";
      continue;
    }
    s += fmt::format("<figure id=\"fig-{}\">", esc(f.id));
    s += fmt::format("<img class=\"figure\" width=\"{}\" height=\"{}\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">", kFigureWidth,
                     kFigureHeight, esc(f.title), base64(read_file(fs::path(dir) / f.svg_file)));
    // the title is drawn in the figure; a caption only for what the figure leaves out
    if (!f.note.empty()) s += "<figcaption><span class=\"note\">" + esc(f.note) + "</span></figcaption>";
    s += "</figure>\n";
  }
  s += "</div>\n";
  if (!not_drawn.empty()) s += "<ul class=\"notdrawn\">\n" + not_drawn + "</ul>\n";
  if (!value_tables.empty()) s += "<div class=\"figs\">\n" + value_tables + "</div>\n";
  // tables: over kFoldRows rows folded
  s += "<h2 id=\"tables\">Tables</h2>\n";
  for (const auto& t : tables)
    if (!appendix_table(t.id)) s += t.rows.size() > kFoldRows ? folded_html(t) : table_html(t);

  // the timing tables of `mbbench bench` and the real-time factors of the records, as tables
  if (!timing_tables.empty()) {
    s += "<h2 id=\"timing\">Timing</h2>\n";
    for (const auto& t : timing_tables)
      if (!appendix_table(t.id)) s += t.rows.size() > kFoldRows ? folded_html(t) : table_html(t);
  }
  // provenance: where the numbers come from
  TextTable prov;
  prov.id = "provenance-table";
  prov.header = {"", ""};
  for (const auto& e : p.experiments)
    prov.rows.push_back({"experiment " + e.name, fmt::format("{} (reproduces {})", repository_path(e.file), e.reproduces.empty() ? "nothing stated" : e.reproduces)});
  prov.rows.push_back({"records", fmt::format("{} ({} failed, {} unsupported)", p.records, p.failed, p.unsupported)});
  prov.rows.push_back({"mbbench", list_text(p.versions)});
  prov.rows.push_back({"git commit", list_text(p.git_commits)});
  prov.rows.push_back({"build type", list_text(p.build_types)});
  prov.rows.push_back({"compiler", list_text(p.compilers)});
  prov.rows.push_back({"flags", list_text(p.flags)});
  prov.rows.push_back({"CPU", list_text(p.cpus)});
  prov.rows.push_back({"date", p.first_date == p.last_date ? p.first_date : fmt::format("{} .. {}", p.first_date, p.last_date)});
  if (d.paper) prov.rows.push_back({"published values", fmt::format("{} ({})", repository_path(d.paper->file), d.paper->title)});
  s += "<h2 id=\"provenance\">Provenance</h2>\n<table class=\"prov\" data-rows=\"" + std::to_string(prov.rows.size()) + "\"><tbody>\n";
  for (const auto& r : prov.rows) s += "<tr><td>" + esc(r[0].text) + "</td><td>" + esc(r[1].text) + "</td></tr>\n";
  s += "</tbody></table>\n";
  for (const auto& b : p.build_types)
    if (b != "Release") s += "<p class=\"note\">Warning: some records come from a " + esc(b) + " build.</p>\n";

  if (!folded.empty()) {
    s += "<h2 id=\"appendix\">Appendix</h2>\n";
    for (const TextTable* t : folded) s += folded_html(*t);
  }


  // the page checks itself in the browser (tests/report_browser_test.cpp reads data-check):
  // figures decoded and at least 600 px wide, tables with their rows, no cell that reads "-",
  // no Markdown table left in a pre block, no page wider than the window (wide tables scroll in
  // their box); and it measures its height with every fold closed and names its first table
  s += R"(<script>
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.figure'), ok = 0, wide = 0;
  imgs.forEach(function (i) {
    if (i.complete && i.naturalWidth > 0) ok++;
    if (i.complete && i.naturalWidth >= 600 && i.getBoundingClientRect().width >= 600) wide++;
  });
  var tabs = document.querySelectorAll('table[data-rows]'), full = 0;
  tabs.forEach(function (t) { if (t.tBodies[0].rows.length == +t.dataset.rows && t.tBodies[0].rows.length > 0) full++; });
  var dash = 0;
  document.querySelectorAll('td').forEach(function (c) { var x = c.textContent.trim(); if (x == '-' || x == '\u2013' || x == '') dash++; });
  var md = 0;
  document.querySelectorAll('pre').forEach(function (p) { if (/\|\s*-{3,}\s*\|/.test(p.textContent)) md++; });
  var overflow = document.documentElement.scrollWidth > window.innerWidth + 1 ? 1 : 0;
  // the page's height with every fold closed, and the first table (the verdicts)
  document.querySelectorAll('details').forEach(function (d) { d.open = false; });
  var first = document.querySelector('table');
  document.body.setAttribute('data-check', 'figures ' + ok + '/' + imgs.length + ' wide ' + wide + ' tables ' + full + '/' +
                             tabs.length + ' dash ' + dash + ' mdpre ' + md + ' overflow ' + overflow + ' height ' +
                             document.documentElement.scrollHeight + ' first ' + (first && first.id ? first.id : 'none'));
});
</script>
</body></html>
)";
  return s;
}

}  // namespace mb
