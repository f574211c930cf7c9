// Log-log plots of each metric over h, one line per method, failed cases marked and named
// (schmitt2005 figs 2-9), drawn by gnuplot from data files the report writes. A method keeps one
// colour and marker in every figure of a report (method_style); axes carry the metric's unit.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <cmath>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/io.hpp"
#include "methods/method.hpp"
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

// a series of a method spec that sets the experiment's x_option (anytime: budget=20) on a model
// drawn over that option (OptionSeries): not drawn over h, where it would be one dot per value
bool over_option(const ReportData& d, const Series& s) {
  for (const auto& o : d.option_series)
    if (o.model == s.model && s.method.find(o.option + "=") != std::string::npos) return true;
  return false;
}

}  // namespace

std::string method_style(const std::string& spec) {
  // the method's name: the spec before its options and before a model variant (" @ ...")
  const std::string label = spec.substr(0, spec.find(" @ "));
  const size_t colon = label.find(':');
  const std::string name = label.substr(0, colon);
  auto fnv = [](const std::string& s) {
    uint64_t h = 1469598103934665603ull;
    for (unsigned char c : s) h = (h ^ c) * 1099511628211ull;
    return h;
  };
  // k: the name's place among the registered names (sorted), so colour k mod 10 and marker
  // 1 + k mod 13 differ for any two of the first 130; a name not registered takes a place above
  // them from its hash (FNV-1a), the same in every report
  std::vector<std::string> names;
  for (const auto& e : method_registry()) names.push_back(e.info.name);
  std::sort(names.begin(), names.end());
  const auto it = std::find(names.begin(), names.end(), name);
  const size_t k = it != names.end() ? static_cast<size_t>(it - names.begin()) : names.size() + fnv(name) % 1000;
  // the options (and the model variant) of one name: the name's colour, a marker and a dash
  // pattern of their own (from the hash of what follows the name)
  if (label == spec && colon == std::string::npos) return fmt::format("lc rgb '{}' pt {} dt 1", kColours[k % 10], 1 + k % 13);
  const uint64_t h = fnv(spec.substr(name.size()));
  return fmt::format("lc rgb '{}' pt {} dt {}", kColours[k % 10], 1 + (k + 1 + h % 12) % 13, 2 + static_cast<int>(h / 12 % 4));
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

std::vector<Figure> draw_lines(const Figure& base, const std::vector<Line>& lines, const std::string& xlabel,
                               const std::string& ylabel, const std::string& settings, const std::string& plots_dir,
                               const std::string& gnuplot) {
  // the key entries of a line: its values, its failures; the paper's fits (dashed, in the colour
  // of their method) share one entry per figure
  auto entries = [](const Line& l) { return (l.xy.empty() ? 0u : 1u) + (l.failed_x.empty() ? 0u : 1u); };
  // the parts about equally full: as many as kMaxSeries needs, each up to the mean share
  size_t total = 0;
  bool any = false;
  for (const Line& l : lines) total += entries(l), any = any || (l.paper && entries(l));
  total += any ? 1 : 0;
  const size_t n_parts = std::max<size_t>(1, (total + kMaxSeries - 1) / kMaxSeries);
  const size_t share = std::min(kMaxSeries, (total + n_parts - 1) / n_parts + 1);
  std::vector<std::vector<const Line*>> parts(1);
  size_t used = 0;
  bool paper = false;
  for (const Line& l : lines) {
    const size_t n = entries(l);
    if (n == 0) continue;
    const size_t key = (paper || l.paper) ? 1 : 0;
    if (used + n + key > share && !parts.back().empty()) parts.emplace_back(), used = 0, paper = false;
    parts.back().push_back(&l);
    used += n;
    paper = paper || l.paper;
  }
  std::vector<Figure> out;
  for (size_t k = 0; k < parts.size(); ++k) {
    Figure fig = base;
    if (parts.size() > 1) {
      fig.id += fmt::format("_{}", k + 1);
      fig.title += fmt::format(" ({} of {})", k + 1, parts.size());
    }
    std::string data, plot, zeros;
    int block = 0;
    double x_min = 1e300, x_max = -1e300;
    for (const Line* l : parts[k])
      for (const auto& [x, y] : l->xy) x_min = std::min(x_min, x), x_max = std::max(x_max, x);
    for (const Line* l : parts[k])
      for (double x : l->failed_x) x_min = std::min(x_min, x), x_max = std::max(x_max, x);
    auto add = [&](const std::string& rows, const std::string& how) {
      data += rows + "\n\n";
      plot += fmt::format("{}'{}.dat' index {} {}", plot.empty() ? "plot " : ", \\\n     ", fig.id, block++, how);
    };
    // failures: in a band at the top of the frame (y2 0.93), each method's marks a little apart
    size_t failing = 0, fail_index = 0;
    for (const Line* l : parts[k]) failing += !l->failed_x.empty();
    bool any_paper = false;
    for (const Line* l : parts[k]) {
      const std::string style = method_style(l->label);
      if (!l->xy.empty()) {
        std::string rows = "# " + l->label + "\n";
        for (const auto& [x, y] : l->xy) rows += fmt::format("{:.17g} {:.17g}\n", x, y);
        add(rows, fmt::format("using 1:2 with linespoints lw 1.5 {} title {}", style, gnuplot_string(l->title.empty() ? l->label : l->title)));
      }
      if (!l->failed_x.empty()) {
        const double shift = std::pow(1.04, static_cast<double>(fail_index++) - (static_cast<double>(failing) - 1) / 2);
        std::string rows = "# " + l->label + " failed\n";
        for (double x : l->failed_x) rows += fmt::format("{:.17g} 0.93\n", x * shift);
        add(rows, fmt::format("using 1:2 axes x1y2 with points ps 1.3 {} title {}", style, gnuplot_string(l->label + " failed")));
      }
      if (l->paper && x_max > x_min) {
        const auto [c, p] = *l->paper;
        add(fmt::format("# the paper's fit of {}: {:.17g} h^{:.17g}\n{:.17g} {:.17g}\n{:.17g} {:.17g}\n", l->label, c, p, x_min,
                        c * std::pow(x_min, p), x_max, c * std::pow(x_max, p)),
            fmt::format("using 1:2 with lines lw 1.2 {} dt 2 notitle", style.substr(0, style.find(" pt "))));
        any_paper = true;
      }
      if (l->nonpositive) zeros += fmt::format("{}{} ({})", zeros.empty() ? "" : ", ", l->label, l->nonpositive);
    }
    if (any_paper) plot += ", \\\n     keyentry with lines lw 1.2 dt 2 lc rgb '#555555' title \"dashed: the paper's c h^p\"";
    if (!zeros.empty()) fig.note = "values <= 0 not drawn on the log scale: " + zeros;
    // the key right of the plot; below it, in two columns, when its texts are long (method
    // specs with options), so the plot keeps its width
    size_t longest = 0, entries_of_part = any_paper ? 1 : 0;
    for (const Line* l : parts[k]) entries_of_part += entries(*l);
    for (const Line* l : parts[k]) longest = std::max(longest, (l->title.empty() ? l->label : l->title).size() + (l->failed_x.empty() ? 0 : 7));
    std::string head = gnuplot_header(fig.id, fig.title, xlabel, ylabel) + settings +
                       (longest > 30 ? fmt::format("set key outside below center vertical maxrows {} Left reverse width -2 font 'sans,{}'\n",
                                                   (entries_of_part + 1) / 2, longest > 45 ? 9 : 11)
                                     : std::string("set key outside right top Left reverse width 1 font 'sans,11'\n"));
    if (failing) head += "set y2range [0:1]\nset y2tics ('failed' 0.93) tc rgb '#a00000'\nset offsets graph 0.02, graph 0.02, graph 0.3, graph 0.02\n";
    const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat (one block per line)\n", fig.title, fig.id) + head +
                           plot + "\n";
    draw_figure(fig, plots_dir, data, gp, gnuplot);
    out.push_back(std::move(fig));
  }
  return out;
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

  std::vector<Figure> figures;
  // the models whose figures would have one h: their values go to one table per model
  std::vector<std::string> single_models;
  std::vector<std::string> all_failed;  // "model metric" of the figures where every case failed
  for (const auto& [model, metric] : keys) {
    Figure fig;
    fig.model = model;
    fig.metric = metric;
    fig.id = plot_id(fmt::format("{}_{}", model, metric));
    fig.paper_figure = paper_figure(d, model, metric);
    fig.title = fmt::format("{}: {} over h{}", model, metric, fig.paper_figure.empty() ? "" : " (" + d.paper->citation + " " + fig.paper_figure + ")");
    // the paper's table of this model and metric, for its fitted c h^p
    const PaperTable* table = nullptr;
    if (d.paper)
      for (const auto& t : d.paper->tables)
        if (t.model == model && t.metric == metric) table = &t;
    std::vector<Line> lines;
    std::set<double> xs;
    long values = 0, failed = 0;
    for (const auto& s : d.series) {
      if (!s.primary || s.model != model || s.metric != metric || over_option(d, s)) continue;
      Line l;
      l.label = s.method;
      for (const auto& p : s.points) {
        xs.insert(p.h);
        if (p.failed) l.failed_x.push_back(p.h), ++failed;
        else if (p.w && *p.w > 0) l.xy.emplace_back(p.h, *p.w), ++values;
        else if (p.w) ++l.nonpositive;
      }
      if (table)
        for (const auto& r : table->rows)
          if (r.method == s.method && r.factor > 0) l.paper = std::make_pair(r.factor, r.order);
      lines.push_back(std::move(l));
    }
    if (values == 0 && failed > 0) {
      all_failed.push_back(fmt::format("{} {}", model, metric));
      continue;
    }
    if (xs.size() == 1) {
      if (std::find(single_models.begin(), single_models.end(), model) == single_models.end()) single_models.push_back(model);
      continue;
    }
    if (values == 0) {
      fig.note = "no positive values to draw on a log scale";
      figures.push_back(fig);
      continue;
    }
    for (auto& f : draw_lines(fig, lines, "h [s]", axis_label(metric), "set format y '%.0e'\n", plots.string(), gnuplot))
      figures.push_back(std::move(f));
  }
  if (!all_failed.empty()) {
    Figure f;
    f.id = "every-case-failed";
    f.title = "Every case failed (nothing to draw)";
    f.note = fmt::format("{}", fmt::join(all_failed, "; "));
    figures.push_back(f);
  }

  // one table per model whose cases share one h: method x metric, the value or 'failed'
  const size_t first_table = figures.size();
  for (const std::string& model : single_models) {
    Figure f;
    f.model = model;
    f.id = plot_id("values_" + model);
    std::vector<std::string> metrics, methods;
    double h = 0;
    for (const auto& s : d.series) {
      if (!s.primary || s.model != model) continue;
      if (std::find(metrics.begin(), metrics.end(), s.metric) == metrics.end()) metrics.push_back(s.metric);
      if (std::find(methods.begin(), methods.end(), s.method) == methods.end()) methods.push_back(s.method);
      if (!s.points.empty()) h = s.points.front().h;
    }
    f.title = fmt::format("{}: every metric at its one step h = {:g} s", model, h);
    f.table.id = f.id;
    f.table.title = f.title;
    f.table.caption = "One h: the values (a figure would be one dot per method).";
    // the values of each metric by method; a column without any value, and a method failed in
    // every metric, are said in the caption rather than drawn as cells
    struct Value {
      bool failed = false, unsupported = false;
      std::optional<double> w;
    };
    std::map<std::pair<std::string, std::string>, Value> at;  // (method, metric)
    for (const auto& s : d.series)
      if (s.primary && s.model == model && !s.points.empty())
        at[{s.method, s.metric}] = {s.points.front().failed, s.points.front().unsupported, s.points.front().w};
    std::vector<std::string> shown, failed, refused;
    for (const auto& m : metrics) {
      bool any = false;
      for (const auto& method : methods) {
        const auto it = at.find({method, m});
        any = any || (it != at.end() && !it->second.failed && it->second.w);
      }
      if (any) shown.push_back(m);
    }
    std::vector<std::string> rows_of;
    for (const auto& method : methods) {
      bool all_failed = true, all_refused = true;
      for (const auto& m : shown) {
        const auto it = at.find({method, m});
        all_failed = all_failed && it != at.end() && it->second.failed;
        all_refused = all_refused && it != at.end() && it->second.unsupported;
      }
      (all_refused ? refused : all_failed ? failed : rows_of).push_back(method);
    }
    if (shown.empty()) continue;
    if (!failed.empty()) f.table.caption += fmt::format(" Failed: {}.", fmt::join(failed, ", "));
    if (!refused.empty()) f.table.caption += fmt::format(" Unsupported (refused by the method): {}.", fmt::join(refused, ", "));
    f.table.header = {"Method"};
    for (const auto& m : shown) f.table.header.push_back(axis_label(m));
    for (const auto& method : rows_of) {
      std::vector<Cell> row = {Cell(method)};
      for (const auto& m : shown) {
        const auto it = at.find({method, m});
        row.push_back(it == at.end()           ? Cell("not run", "na")
                      : it->second.failed      ? Cell("failed", "bad")
                      : it->second.w           ? Cell(fmt::format("{:.2e}", *it->second.w))
                                               : Cell("no value", "na"));
      }
      f.table.rows.push_back(std::move(row));
    }
    // whole numbers (counts) without an exponent
    for (size_t col = 1; col < f.table.header.size(); ++col) {
      bool whole = true;
      for (const auto& method : rows_of) {
        const auto it = at.find({method, shown[col - 1]});
        if (it != at.end() && !it->second.failed && it->second.w) whole = whole && *it->second.w == std::round(*it->second.w) && std::abs(*it->second.w) < 1e9;
      }
      if (!whole) continue;
      for (size_t r = 0; r < rows_of.size(); ++r) {
        const auto it = at.find({rows_of[r], shown[col - 1]});
        if (it != at.end() && !it->second.failed && it->second.w) f.table.rows[r][col].text = fmt::format("{:.0f}", *it->second.w);
      }
    }
    figures.push_back(std::move(f));
  }

  // models of one or two methods each with the same columns (the runs of a drop at k = 0..20):
  // one table, a row per model and method
  std::vector<Figure> tables(std::make_move_iterator(figures.begin() + static_cast<long>(first_table)),
                             std::make_move_iterator(figures.end()));
  figures.resize(first_table);
  for (size_t i = 0; i < tables.size();) {
    size_t j = i + 1;
    while (j < tables.size() && tables[j].table.header == tables[i].table.header && tables[j].table.rows.size() <= 2 &&
           tables[i].table.rows.size() <= 2 && tables[j].table.caption == tables[i].table.caption)
      ++j;
    if (j - i == 1) {
      figures.push_back(std::move(tables[i++]));
      continue;
    }
    Figure f = tables[i];
    std::vector<std::string> models;
    f.table.header.insert(f.table.header.begin(), "Model");
    f.table.rows.clear();
    for (size_t k = i; k < j; ++k) {
      models.push_back(tables[k].model);
      for (auto row : tables[k].table.rows) {
        row.insert(row.begin(), Cell(tables[k].model));
        f.table.rows.push_back(std::move(row));
      }
    }
    f.id = plot_id("values_" + models.front() + "_and_more");
    f.table.id = f.id;
    f.title = f.table.title = fmt::format("{} models, every metric at its one step h", models.size());
    figures.push_back(std::move(f));
    i = j;
  }

  // over a method option (an experiment's x_option): one figure per model x metric x h, a line per
  // method spec without the option
  std::vector<std::tuple<std::string, std::string, double>> option_keys;
  for (const auto& o : d.option_series)
    if (std::find(option_keys.begin(), option_keys.end(), std::make_tuple(o.model, o.metric, o.h)) == option_keys.end())
      option_keys.emplace_back(o.model, o.metric, o.h);
  for (const auto& [model, metric, h] : option_keys) {
    Figure fig;
    fig.model = model;
    fig.metric = metric;
    std::string option;
    std::vector<Line> lines;
    long values = 0;
    for (const auto& o : d.option_series) {
      if (o.model != model || o.metric != metric || o.h != h) continue;
      option = o.option;
      Line l;
      l.label = o.method;
      for (const auto& p : o.points) {
        if (p.failed) l.failed_x.push_back(p.x);
        else if (p.w && *p.w > 0) l.xy.emplace_back(p.x, *p.w), ++values;
        else if (p.w) ++l.nonpositive;
      }
      lines.push_back(std::move(l));
    }
    fig.id = plot_id(fmt::format("{}_{}_over_{}_h{:g}", model, metric, option, h));
    fig.title = fmt::format("{}: {} over {} (h = {:g} s)", model, metric, option, h);
    if (values == 0) {
      fig.note = "no values to draw";
      figures.push_back(fig);
      continue;
    }
    for (auto& f : draw_lines(fig, lines, option, axis_label(metric), "set format y '%.0e'\n", plots.string(), gnuplot))
      figures.push_back(std::move(f));
  }
  return figures;
}

}  // namespace mb
