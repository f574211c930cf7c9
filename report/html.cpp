// report.html: one self-contained page (figures embedded as base64 SVG) with the tables, the
// figures and a short provenance block. A small script at the end checks, in the browser, that
// every figure decoded and every table has its rows, and writes the result into <body data-check>
// (tests/report_browser_test.cpp reads it back from headless Chromium).
#include <filesystem>
#include <fstream>
#include <sstream>

#include <set>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

std::string esc(const std::string& s) {
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

std::string table_html(const TextTable& t) {
  std::string s = fmt::format("<h3 id=\"{}\">{}</h3>\n<p class=\"caption\">{}</p>\n<table data-rows=\"{}\">\n<thead><tr>", esc(t.id),
                              esc(t.title), esc(t.caption), t.rows.size());
  for (const auto& h : t.header) s += "<th>" + esc(h) + "</th>";
  s += "</tr></thead>\n<tbody>\n";
  for (const auto& r : t.rows) {
    s += "<tr>";
    for (const auto& c : r) s += "<td" + (c.style.empty() ? std::string() : " class=\"" + c.style + "\"") + ">" + esc(c.text) + "</td>";
    s += "</tr>\n";
  }
  return s + "</tbody></table>\n";
}

std::string list_text(const std::set<std::string>& a) {
  std::string s;
  for (const auto& v : a) s += (s.empty() ? "" : ", ") + v;
  return s;
}

}  // namespace

std::string report_html(const ReportData& d, const std::vector<Figure>& figures, const std::string& dir,
                        const std::string& timing_md) {
  const ProvenanceSummary& p = d.provenance;
  std::string s = R"(<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>mbbench report</title>
<style>
body{font-family:sans-serif;max-width:1200px;margin:1em auto;padding:0 1em;color:#222}
table{border-collapse:collapse;margin:.5em 0 1.5em;font-size:13px}
th,td{border:1px solid #bbb;padding:2px 6px;text-align:left}
th{background:#eee}
td.ok{background:#dfd}
td.bad{background:#fdd}
.caption{color:#555;font-size:13px;max-width:1100px}
figure{display:inline-block;margin:.5em;vertical-align:top}
figcaption{font-size:13px;max-width:720px}
.note{color:#a00}
pre{background:#f6f6f6;padding:.5em;font-size:12px;white-space:pre-wrap}
</style></head>
<body>
<h1>mbbench report</h1>
)";
  // provenance: where the numbers come from
  s += "<h2>Provenance</h2>\n<pre>";
  for (const auto& e : p.experiments)
    s += esc(fmt::format("experiment {} ({}): reproduces {}\n", e.name, e.file, e.reproduces));
  s += esc(fmt::format("records: {} ({} failed)\n", p.records, p.failed));
  s += esc(fmt::format("mbbench {}, git commit {}\nbuild: {}; compiler: {}\ncpu: {}\nrun between {} and {}\n",
                       list_text(p.versions), list_text(p.git_commits), list_text(p.build_types), list_text(p.compilers),
                       list_text(p.cpus), p.first_date, p.last_date));
  if (d.paper) s += esc(fmt::format("published values: {} ({})\n", d.paper->file, d.paper->title));
  s += "</pre>\n";
  for (const auto& b : p.build_types)
    if (b != "Release") s += "<p class=\"note\">Warning: some records come from a " + esc(b) + " build.</p>\n";

  // tables
  s += "<h2>Tables</h2>\n";
  for (const auto& t : report_tables(d)) s += table_html(t);

  // timing tables of `mbbench bench` (Markdown as written there)
  if (!timing_md.empty()) s += "<h2>Timing</h2>\n<pre class=\"timing\">" + esc(timing_md) + "</pre>\n";

  // figures, embedded
  s += "<h2>Figures</h2>\n";
  for (const auto& f : figures) {
    s += "<figure>";
    if (!f.svg_file.empty())
      s += fmt::format("<img class=\"figure\" alt=\"{}\" src=\"data:image/svg+xml;base64,{}\">", esc(f.title),
                       base64(read_file(fs::path(dir) / f.svg_file)));
    s += "<figcaption>" + esc(f.title);
    if (!f.note.empty()) s += " <span class=\"note\">" + esc(f.note) + "</span>";
    s += "</figcaption></figure>\n";
  }
  s += R"(<script>
window.addEventListener('load', function () {
  var imgs = document.querySelectorAll('img.figure'), ok = 0;
  imgs.forEach(function (i) { if (i.complete && i.naturalWidth > 0) ok++; });
  var tabs = document.querySelectorAll('table[data-rows]'), full = 0;
  tabs.forEach(function (t) { if (t.tBodies[0].rows.length == +t.dataset.rows && t.tBodies[0].rows.length > 0) full++; });
  document.body.setAttribute('data-check', 'figures ' + ok + '/' + imgs.length + ' tables ' + full + '/' + tabs.length);
});
</script>
</body></html>
)";
  return s;
}

}  // namespace mb
