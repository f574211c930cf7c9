// The work-precision tables and figures (formatting only): what analysis/work_precision.cpp
// computed, one table and one log-log figure per model.
#include <algorithm>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

std::string cost_text(const WorkPoint& p) { return fmt::format("{} s/s (h {:.6g}, error {:.2e})", sig3(p.cost), p.h, p.error); }

std::string metric_or(const std::optional<double>& v) { return v ? fmt::format("{:.2e}", *v) : "not recorded"; }

std::vector<std::string> models_of(const WorkPrecision& wp) {
  std::vector<std::string> models;
  for (const auto& c : wp.curves)
    if (std::find(models.begin(), models.end(), c.model) == models.end()) models.push_back(c.model);
  return models;
}

}  // namespace

std::vector<TextTable> work_precision_tables(const ReportData& d) {
  std::vector<TextTable> out;
  const WorkPrecision& wp = d.work_precision;
  for (const std::string& model : models_of(wp)) {
    TextTable t;
    t.id = "work-precision-" + plot_id(model);
    t.title = "Work-precision: " + model;
    t.caption = "Error = 10^-mescd at the end time against the reference (max over the position coordinates of "
                "|y - r| / (1 + |r|), m); cost = wall time of the steps per simulated second, measured in this sweep "
                "(machine and load in the provenance). For each error target: the cheapest run of the method's step sizes "
                "that reaches it (a measured point, not interpolated), or 'cannot reach' with the best error it reached. "
                "ED and CD_pos_max: energy drift and largest constraint violation of the run that reaches 1e-3 "
                "(the IFToMM report's energy balance and constraint columns).";
    t.header = {"Method"};
    for (double target : work_targets()) t.header.push_back(fmt::format("error <= {:.0e}", target));
    t.header.insert(t.header.end(), {"most accurate run", "ED at 1e-3", "CD_pos_max at 1e-3", "runs failed"});
    for (const WorkRow& row : wp.rows) {
      const WorkCurve& c = wp.curves[row.curve];
      if (c.model != model) continue;
      std::vector<Cell> cells = {c.method};
      if (c.points.empty()) {
        // the reason once, in the first cell; the others say what it is
        const std::string what = !c.unsupported.empty() ? "not supported"
                                 : !c.failures.empty()  ? "every run failed"
                                                        : "no run with an error and a time";
        cells.push_back(Cell(c.unsupported.empty() ? what : what + ": " + c.unsupported, "na"));
        for (size_t i = 1; i < work_targets().size() + 3; ++i) cells.push_back(Cell(what, "na"));
        cells.push_back(std::to_string(c.failures.size()));
        t.rows.push_back(cells);
        continue;
      }
      for (const WorkAtTarget& at : row.at)
        cells.push_back(at.cheapest ? Cell(cost_text(*at.cheapest))
                                    : Cell(fmt::format("cannot reach (best {:.2e})", row.most_accurate->error), "na"));
      cells.push_back(cost_text(*row.most_accurate));
      const auto& first = row.at.front().cheapest;
      cells.push_back(first ? Cell(metric_or(first->energy_drift)) : Cell("does not reach 1e-3", "na"));
      cells.push_back(first ? Cell(metric_or(first->constraint_max)) : Cell("does not reach 1e-3", "na"));
      std::string failed = std::to_string(c.failures.size());
      if (!c.failures.empty()) failed += " (" + c.failures.front() + (c.failures.size() > 1 ? ", ..." : "") + ")";
      cells.push_back(failed);
      t.rows.push_back(cells);
    }
    out.push_back(std::move(t));
  }
  return out;
}

std::vector<Figure> write_work_precision_plots(const ReportData& d, const std::string& dir) {
  std::vector<Figure> figures;
  const WorkPrecision& wp = d.work_precision;
  if (wp.empty()) return figures;
  const fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  const std::string gnuplot = find_gnuplot();
  for (const std::string& model : models_of(wp)) {
    Figure fig;
    fig.model = model;
    fig.metric = "work-precision";
    fig.id = "work_precision_" + plot_id(model);
    fig.title = model + ": work-precision (error at the end time over cost)";
    std::vector<Line> lines;
    for (const auto& c : wp.curves) {
      if (c.model != model || c.points.empty()) continue;
      Line l;
      l.label = c.method;
      for (const auto& p : c.points)
        if (p.error > 0 && p.cost > 0) l.xy.emplace_back(p.error, p.cost);
      if (!l.xy.empty()) lines.push_back(std::move(l));
    }
    if (lines.empty()) {
      fig.note = "no run with an error and a time";
      figures.push_back(fig);
      continue;
    }
    // more accurate to the right: the error axis reversed
    for (auto& f : draw_lines(fig, lines, "max relative error at the end time", "wall time per simulated second [s]",
                              "set format x '%.0e'\nset format y '%.0e'\nset xrange [*:*] reverse\n", plots.string(), gnuplot))
      figures.push_back(std::move(f));
  }
  return figures;
}

}  // namespace mb
