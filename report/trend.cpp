// `mbbench trend HISTORY`: each value of a gate history (one JSON line per gate run, in the order
// of the runs: mbbench gate --history; read by report/history.cpp) over the runs as an SVG figure
// drawn by gnuplot, the change points of its log values (analysis/compare.hpp: a penalised
// segmentation) marked and listed, in one HTML page (docs/usage.md "gate").
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

std::string write_trend(const std::string& history, const std::string& dir) {
  const std::vector<HistoryRun> runs = read_history(history);
  if (runs.empty()) throw InputError(history, 0, "", "no gate runs in the history");
  const std::vector<TrendSeries> series = trend_series(runs);
  const fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  const std::string gnuplot = find_gnuplot();
  std::string body, changes;
  auto label = [&](size_t i) { return runs[i].commit.substr(0, 10); };
  for (const auto& s : series) {
    Figure fig;
    fig.id = plot_id("trend-" + s.name);
    fig.title = s.name;
    std::string data;
    for (size_t k = 0; k < s.run.size(); ++k) data += fmt::format("{} {:.17g} {}\n", s.run[k], s.value[k], label(s.run[k]));
    std::string script = gnuplot_header(fig.id, s.name, "gate run (commit)", s.name.substr(0, s.name.find(' '))) +
                         "unset logscale x\nset xtics rotate by -45 font 'sans,9'\n";
    for (const auto& c : s.changes) script += fmt::format("set arrow from {0},graph 0 to {0},graph 1 nohead lc rgb '#cc0000' dt 2\n", s.run[c.index] - 0.5);
    script += fmt::format("plot '{}.dat' using 1:2:xtic(3) with linespoints pt 7 title {}\n", fig.id, gnuplot_string(s.name));
    draw_figure(fig, plots.string(), data, script, gnuplot);
    body += fmt::format("<h2>{}</h2>\n", html_escape(s.name));
    if (!fig.svg_file.empty()) body += fmt::format("<img width=\"{}\" height=\"{}\" alt=\"{}\" src=\"{}\">\n", kFigureWidth, kFigureHeight,
                                                   html_escape(s.name), html_escape(fig.svg_file));
    else body += fmt::format("<p>{}</p>\n", html_escape(fig.note));
    if (*std::min_element(s.value.begin(), s.value.end()) <= 0)
      body += "<p>Change points not sought: the value is 0 in some runs (they are sought on log values).</p>\n";
    for (const auto& c : s.changes) {
      const size_t r = s.run[c.index];
      changes += fmt::format("<tr><td>{}</td><td>{} ({})</td><td>{:.6g}</td><td>{:.6g}</td><td>{:+.2f} %</td></tr>\n", html_escape(s.name),
                             html_escape(runs[r].commit.substr(0, 12)), html_escape(runs[r].date), c.before, c.after, 100 * (c.after / c.before - 1));
    }
  }
  std::string html = "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>mbbench trend</title>\n"
                     "<style>body{font-family:sans-serif;max-width:1000px;margin:auto} td,th{padding:2px 8px;text-align:left}</style>"
                     "</head><body>\n";
  html += fmt::format("<h1>Gate history: {} runs, {} values</h1>\n<p>{} (first {} {}, last {} {})</p>\n", runs.size(), series.size(),
                      html_escape(history), html_escape(runs.front().commit.substr(0, 12)), html_escape(runs.front().date),
                      html_escape(runs.back().commit.substr(0, 12)), html_escape(runs.back().date));
  html += "<h2>Change points</h2>\n<p>A penalised segmentation of each value's log over the runs (a change point when it lowers the squared "
          "deviations by more than 3 sigma^2 log n; docs/usage.md \"gate\"). The commit is the first run after the change.</p>\n";
  html += changes.empty() ? "<p>none</p>\n"
                          : "<table><tr><th>value</th><th>from commit</th><th>before (median)</th><th>after (median)</th><th>change</th></tr>\n" +
                                changes + "</table>\n";
  html += body + "</body></html>\n";
  const std::string out = (fs::path(dir) / "trend.html").string();
  write_file_atomic(out, html);
  return out;
}

}  // namespace mb
