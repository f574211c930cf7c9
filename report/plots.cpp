// Log-log plots of each metric over h, one line per method, failed cases marked and named
// (schmitt2005 figs 2-9), drawn by gnuplot from data files the report writes. A method keeps one
// colour and marker in every figure of a report (method_style); axes carry the metric's unit.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>

#include <fmt/format.h>

#include "core/io.hpp"
#include "metrics/observer.hpp"
#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

std::string find_gnuplot() {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    fs::path p = fs::path(dir.empty() ? "." : dir) / "gnuplot";
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

namespace {

std::string shell_quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// the paper's figure number for this model and metric, if any
std::string paper_figure(const ReportData& d, const std::string& model, const std::string& metric) {
  if (!d.paper) return "";
  for (const auto& f : d.paper->figures)
    if ((f.model == model || f.model == "*") && f.metric == metric) return "fig. " + f.number;
  return "";
}

// Ten colours distinguishable in print and by most colour-blind readers (Okabe-Ito and Tol)
const char* const kColours[] = {"#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00",
                                "#56B4E9", "#000000", "#882255", "#44AA99", "#999933"};

}  // namespace

std::string method_style(const std::vector<std::string>& methods, const std::string& method) {
  const auto it = std::find(methods.begin(), methods.end(), method);
  const size_t k = static_cast<size_t>(it - methods.begin());
  // colour k mod 10 and marker 1 + k mod 13: distinct for the first 130 methods of a report
  return fmt::format("lc rgb '{}' pt {}", kColours[k % 10], 1 + k % 13);
}

std::vector<std::string> report_methods(const ReportData& d) {
  std::vector<std::string> methods;
  for (const auto& s : d.series)
    if (std::find(methods.begin(), methods.end(), s.method) == methods.end()) methods.push_back(s.method);
  for (const auto& c : d.work_precision.curves)
    if (std::find(methods.begin(), methods.end(), c.method) == methods.end()) methods.push_back(c.method);
  return methods;
}

std::string axis_label(const std::string& metric) {
  const std::string& unit = metric_unit(metric);
  return unit.empty() ? metric : fmt::format("{} [{}]", metric, unit);
}

std::string plot_id(const std::string& s) {
  std::string id = s;
  for (char& c : id)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') c = '_';
  return id;
}

bool run_gnuplot(const std::string& gnuplot, const std::string& plots_dir, const std::string& id, std::string* note) {
  const std::string cmd =
      fmt::format("cd {} && {} {}.gp 2> {}.log", shell_quote(plots_dir), shell_quote(gnuplot), shell_quote(id), shell_quote(id));
  const int rc = std::system(cmd.c_str());
  const fs::path dir(plots_dir);
  if (rc != 0 || !fs::exists(dir / (id + ".svg"))) {
    if (note) *note = fmt::format("gnuplot failed (exit {}); see plots/{}.log", rc, id);
    return false;
  }
  fs::remove(dir / (id + ".log"));
  return true;
}

void draw_figure(Figure& fig, const std::string& plots_dir, const std::string& data, const std::string& script,
                 const std::string& gnuplot) {
  const fs::path dir(plots_dir);
  write_file_atomic((dir / (fig.id + ".dat")).string(), data);
  write_file_atomic((dir / (fig.id + ".gp")).string(), script);
  if (gnuplot.empty()) {
    fig.note = "not drawn: gnuplot was not found on PATH (install gnuplot-nox); the .gp script and data are in plots/";
    return;
  }
  if (run_gnuplot(gnuplot, plots_dir, fig.id, &fig.note)) fig.svg_file = "plots/" + fig.id + ".svg";
}

std::string gnuplot_string(const std::string& s) {
  std::string q = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') q += '\\';
    q += c;
  }
  return q + "\"";
}

std::string gnuplot_header(const std::string& name, const std::string& title, const std::string& xlabel, const std::string& ylabel) {
  return fmt::format(
      "set terminal svg size {},{} fixed noenhanced font 'sans,13' background rgb 'white'\n"
      "set termoption noenhanced\n"  // labels literally: CD_pos_mean, not CD with subscripts
      "set output '{}.svg'\nset title {}\nset xlabel {}\nset ylabel {}\n"
      "set logscale xy\nset grid\nset border lw 1.2\nset tics font 'sans,12'\n",
      kFigureWidth, kFigureHeight, name, gnuplot_string(title), gnuplot_string(xlabel), gnuplot_string(ylabel));
}

std::vector<Figure> write_plots(const ReportData& d, const std::string& dir) {
  const fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  const std::string gnuplot = find_gnuplot();

  // one figure per model x metric, over the main-reading series
  std::vector<std::pair<std::string, std::string>> keys;
  for (const auto& s : d.series)
    if (s.primary && std::find(keys.begin(), keys.end(), std::make_pair(s.model, s.metric)) == keys.end())
      keys.emplace_back(s.model, s.metric);

  const std::vector<std::string> methods = report_methods(d);

  std::vector<Figure> figures;
  for (const auto& [model, metric] : keys) {
    Figure fig;
    fig.model = model;
    fig.metric = metric;
    fig.id = plot_id(fmt::format("{}_{}", model, metric));
    fig.paper_figure = paper_figure(d, model, metric);
    fig.title = fmt::format("{}: {} over h{}", model, metric, fig.paper_figure.empty() ? "" : " (" + d.paper->citation + " " + fig.paper_figure + ")");

    // data: one block per method (h, w > 0); failed cases become red marks inside the top of the
    // frame, one per h, labelled below with the methods that failed there
    std::string data, labels, plot;
    int block = 0, failed = 0, nonpositive = 0, values = 0;
    std::vector<std::pair<double, std::string>> failed_at;  // h, the methods that failed at it
    for (const auto& s : d.series) {
      if (!s.primary || s.model != model || s.metric != metric) continue;
      std::string rows;
      for (const auto& p : s.points) {
        if (p.failed) {
          ++failed;
          auto at = std::find_if(failed_at.begin(), failed_at.end(), [&](const auto& f) { return f.first == p.h; });
          if (at == failed_at.end()) failed_at.emplace_back(p.h, s.method);
          else at->second += ", " + s.method;
        } else if (p.w && *p.w > 0) {
          ++values;
          rows += fmt::format("{:.17g} {:.17g}\n", p.h, *p.w);
        } else if (p.w) {
          ++nonpositive;
        }
      }
      if (rows.empty()) continue;
      data += fmt::format("# {}\n{}\n\n", s.method, rows);
      plot += fmt::format("{}'{}.dat' index {} using 1:2 with linespoints lw 1.5 {} title {}", plot.empty() ? "plot " : ", \\\n     ",
                          fig.id, block++, method_style(methods, s.method), gnuplot_string(s.method));
    }
    // the names one per line (gnuplot's "\n" in a double-quoted string)
    for (const auto& [h, who] : failed_at) {
      std::string text = gnuplot_string(who + " failed");
      for (size_t at = text.find(", "); at != std::string::npos; at = text.find(", ", at)) text.replace(at, 2, "\\n");
      labels += fmt::format("set label {} at first {:.17g}, graph 0.96 center point pt 2 ps 1.2 lc rgb 'red' "
                            "tc rgb 'red' offset 0,-1.1 font 'sans,10'\n",
                            text, h);
    }
    if (plot.empty()) {
      fig.note = values == 0 && failed > 0 && nonpositive == 0 ? "every case failed" : "no positive values to draw on a log scale";
      figures.push_back(fig);
      continue;
    }
    if (nonpositive) fig.note = fmt::format("{} point(s) with value 0 not drawn (log scale)", nonpositive);
    if (failed) plot += ", \\\n     keyentry with points pt 2 ps 1.2 lc rgb 'red' title 'failed (at its h, named)'";
    const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat (one block per method: h, {})\n", fig.title,
                                       fig.id, metric) +
                           gnuplot_header(fig.id, fig.title, "h [s]", axis_label(metric)) +
                           "set format y '%.0e'\nset key outside right top Left reverse width 1 font 'sans,11'\n"
                           "set offsets graph 0.02, graph 0.02, graph 0.25, graph 0.02\n" +
                           labels + plot + "\n";
    draw_figure(fig, plots.string(), data, gp, gnuplot);
    figures.push_back(fig);
  }

  // over a method option (an experiment's x_option): one figure per model x metric x h, a line per
  // method spec without the option; failed cases and values <= 0 are counted in the note
  std::vector<std::tuple<std::string, std::string, double>> option_keys;
  for (const auto& o : d.option_series)
    if (std::find(option_keys.begin(), option_keys.end(), std::make_tuple(o.model, o.metric, o.h)) == option_keys.end())
      option_keys.emplace_back(o.model, o.metric, o.h);
  for (const auto& [model, metric, h] : option_keys) {
    Figure fig;
    fig.model = model;
    fig.metric = metric;
    std::string option, data, plot;
    std::vector<std::string> lines;
    for (const auto& o : d.option_series)
      if (o.model == model && o.metric == metric && o.h == h) lines.push_back(o.method);
    int block = 0, failed = 0, nonpositive = 0;
    for (const auto& o : d.option_series) {
      if (o.model != model || o.metric != metric || o.h != h) continue;
      option = o.option;
      std::string rows;
      for (const auto& p : o.points) {
        if (p.failed) ++failed;
        else if (p.w && *p.w > 0) rows += fmt::format("{:.17g} {:.17g}\n", p.x, *p.w);
        else if (p.w) ++nonpositive;
      }
      if (rows.empty()) continue;
      data += fmt::format("# {}\n{}\n\n", o.method, rows);
      plot += fmt::format("{}'{}.dat' index {} using 1:2 with linespoints lw 1.5 {} title {}", plot.empty() ? "plot " : ", \\\n     ",
                          plot_id(fmt::format("{}_{}_over_{}_h{:g}", model, metric, option, h)), block++, method_style(lines, o.method),
                          gnuplot_string(o.method));
    }
    fig.id = plot_id(fmt::format("{}_{}_over_{}_h{:g}", model, metric, option, h));
    fig.title = fmt::format("{}: {} over {} (h = {:g} s)", model, metric, option, h);
    std::vector<std::string> notes;
    if (failed) notes.push_back(fmt::format("{} failed case(s) not drawn", failed));
    if (nonpositive) notes.push_back(fmt::format("{} point(s) with value 0 not drawn (log scale)", nonpositive));
    if (plot.empty()) {
      fig.note = notes.empty() ? "no values" : fmt::format("{}", fmt::join(notes, "; "));
      figures.push_back(fig);
      continue;
    }
    fig.note = fmt::format("{}", fmt::join(notes, "; "));
    const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat (one block per method: {}, {})\n", fig.title,
                                       fig.id, option, metric) +
                           gnuplot_header(fig.id, fig.title, option, axis_label(metric)) +
                           "set format y '%.0e'\nset key outside right top Left reverse width 1 font 'sans,11'\n"
                           "set offsets graph 0.02, graph 0.02, graph 0.1, graph 0.02\n" + plot + "\n";
    draw_figure(fig, plots.string(), data, gp, gnuplot);
    figures.push_back(fig);
  }
  return figures;
}

}  // namespace mb
