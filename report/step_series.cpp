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
      std::string data, plot;
      int block = 0;
      for (const auto& r : d.records) {
        if (r.model.spec != model || !r.step_series) continue;
        const StepSeries& s = *r.step_series;
        std::string rows;
        for (size_t i = 0; i < s.t.size(); ++i) {
          const double y = q.log_y ? s.condition[i] : static_cast<double>(s.pos_iterations[i]);
          if (q.log_y && !(y > 0)) continue;  // not computed by this method
          rows += fmt::format("{:.17g} {:.17g}\n", s.t[i], y);
        }
        if (rows.empty()) continue;
        const std::string label = fmt::format("{} h={:.6g}", r.method.spec, r.h);
        data += fmt::format("# {}\n{}\n\n", label, rows);
        plot += fmt::format("{}'{}.dat' index {} using 1:2 with lines lw 1.5 title {}", plot.empty() ? "plot " : ", \\\n     ", fig.id,
                            block++, gnuplot_string(label));
      }
      if (plot.empty()) {
        fig.note = q.log_y ? "no method in these records computed the condition (tomcin: spectrum=on)" : "no step series";
        figures.push_back(fig);
        continue;
      }
      std::string head = gnuplot_header(fig.id, fig.title, "t [s]", q.ylabel);
      head += q.log_y ? "unset logscale x\nset format y '%.0e'\n" : "unset logscale xy\n";
      const std::string gp = fmt::format("# {}\n# drawn by mbbench report; data in {}.dat (t, {})\n", fig.title, fig.id, q.ylabel) + head +
                             "set key outside right top Left reverse width -2 font 'sans,11'\n" + plot + "\n";
      draw_figure(fig, plots.string(), data, gp, gnuplot);
      figures.push_back(fig);
    }
  }
  return figures;
}

}  // namespace mb
