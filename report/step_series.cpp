// The per-step series of records that kept them (records' step_series; tomcin2014 Figure 3):
// per model, the position-correction iterations of each step and the spectral condition of its
// system over time, one line per method spec. Formatting only.
#include <algorithm>
#include <filesystem>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

std::vector<Figure> write_step_series_plots(const ReportData& d, const std::string& dir) {
  std::vector<Figure> figures;
  std::vector<std::string> models;
  for (const auto& r : d.records)
    if (r.step_series && std::find(models.begin(), models.end(), r.model.spec) == models.end()) models.push_back(r.model.spec);
  if (models.empty()) return figures;
  const fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  const std::string gnuplot = find_gnuplot();
  struct Quantity {
    const char* id;
    const char* title;
    const char* ylabel;
    bool log_y;
  };
  const Quantity quantities[] = {{"iterations", "position-correction iterations per step", "iterations", false},
                                 {"condition", "lambda_max / lambda_min of the step's system", "condition", true}};
  for (const std::string& model : models) {
    for (const Quantity& q : quantities) {
      Figure fig;
      fig.model = model;
      fig.metric = q.id;
      fig.id = plot_id(fmt::format("steps_{}_{}", model, q.id));
      fig.title = fmt::format("{}: {} over time", model, q.title);
      // one line per record (method spec and h); at most kMaxSeries lines a figure, split beyond
      std::vector<std::pair<std::string, std::string>> lines;  // label, rows
      for (const auto& r : d.records) {
        if (r.model.spec != model || !r.step_series) continue;
        const StepSeries& s = *r.step_series;
        std::string rows;
        for (size_t i = 0; i < s.t.size(); ++i) {
          const double y = q.log_y ? s.condition[i] : static_cast<double>(s.pos_iterations[i]);
          if (q.log_y && !(y > 0)) continue;  // not computed by this method
          rows += fmt::format("{:.17g} {:.17g}\n", s.t[i], y);
        }
        if (!rows.empty()) lines.emplace_back(fmt::format("{} h={:.6g}", r.method.spec, r.h), std::move(rows));
      }
      if (lines.empty()) {
        fig.note = q.log_y ? "no method in these records computed the condition (tomcin: spectrum=on)" : "no step series";
        figures.push_back(fig);
        continue;
      }
      const size_t parts = (lines.size() + kMaxSeries - 1) / kMaxSeries;
      for (size_t k = 0; k < parts; ++k) {
        Figure part = fig;
        if (parts > 1) {
          part.id += fmt::format("_{}", k + 1);
          part.title += fmt::format(" ({} of {})", k + 1, parts);
        }
        std::string data, plot;
        int block = 0;
        for (size_t i = k * kMaxSeries; i < std::min(lines.size(), (k + 1) * kMaxSeries); ++i) {
          data += fmt::format("# {}\n{}\n\n", lines[i].first, lines[i].second);
          plot += fmt::format("{}'{}.dat' index {} using 1:2 with lines lw 1.5 title {}", plot.empty() ? "plot " : ", \\\n     ", part.id,
                              block++, gnuplot_string(lines[i].first));
        }
        std::string head = gnuplot_header(part.id, part.title, "t [s]", q.ylabel);
        head += q.log_y ? "unset logscale x\nset format y '%.0e'\n" : "unset logscale xy\n";
        const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat (t, {})\n", part.title, part.id, q.ylabel) +
                               head + "set key outside right top Left reverse width -2 font 'sans,11'\n" + plot + "\n";
        draw_figure(part, plots.string(), data, gp, gnuplot);
        figures.push_back(part);
      }
    }
  }
  return figures;
}

}  // namespace mb
