// The report's tables as text cells (report_tables) and their Markdown rendering. Formatting only:
// every number comes from analyse() (runners/lib/report_data.cpp).
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "runners/lib/report.hpp"

namespace mb {

namespace {

std::string order_text(double a) { return fmt::format("{:.2f}", a); }
std::string factor_text(double c) { return fmt::format("{:.6g}", c); }
std::string h_text(double h) { return fmt::format("{:.6g}", h); }

// ours beside the paper's: order difference (absolute) and factor ratio, and the verdict
void compare_cells(const SeriesFit& f, const std::optional<PaperRow>& p, std::vector<std::string>& row) {
  if (!f.two_point) {
    row.insert(row.end(), {"-", "-"});
  } else {
    row.push_back(order_text(f.two_point->order));
    row.push_back(factor_text(f.two_point->factor));
  }
  row.push_back(p ? fmt::format("{:.2f}", p->order) : "-");
  row.push_back(p ? fmt::format("{:.6f}", p->factor) : "-");
  if (f.two_point && p) {
    double da = f.two_point->order - p->order, ratio = f.two_point->factor / p->factor;
    row.push_back(fmt::format("{:+.2f}", da));
    row.push_back(fmt::format("{:.4f}", ratio));
    // the paper prints orders to 2 decimals: compare ours rounded the same way
    bool ok = std::abs(std::round(f.two_point->order * 100) / 100 - p->order) <= kOrderTolerance + 1e-9 &&
              std::abs(ratio - 1) <= kFactorTolerance;
    row.push_back(ok ? "reproduced" : "differs");
  } else {
    row.insert(row.end(), {"-", "-", f.two_point ? "no published value" : f.two_point_note});
  }
}

std::string ls_cells(const SeriesFit& f) {
  if (!f.least_squares) return "-";
  return fmt::format("{:.2f} / {} (rms {:.2g}, h {}..{})", f.least_squares->order, factor_text(f.least_squares->factor),
                     f.least_squares->residual, h_text(f.h_min), h_text(f.h_max));
}

std::string points_cell(const Series& s) {
  int used = s.fit.least_squares ? s.fit.least_squares->points : 0;
  return fmt::format("{} used, {} failed{}", used, s.fit.failed, s.fit.unusable ? fmt::format(", {} without value", s.fit.unusable) : "");
}

}  // namespace

std::vector<TextTable> report_tables(const ReportData& d) {
  std::vector<TextTable> out;
  const std::vector<std::string> cmp = {"Order", "Factor", "Order (paper)", "Factor (paper)", "Δ order", "factor ratio", "status"};

  // the paper's tables: Model / Function / Method / Order / Factor, published values beside ours
  if (d.paper)
    for (const auto& t : d.paper->tables) {
      TextTable tt;
      tt.id = fmt::format("paper-{}-{}", t.model, t.metric);
      tt.title = fmt::format("Model: {}  Function: {}", t.paper_model, t.function);
      tt.caption = fmt::format("{} {} (metric {}, model {}). Two-point fit at h1 = 0.005, h2 = 0.04; 'reproduced' = order within "
                               "{} and factor within {} % of the published value. Least squares over all non-failed points.",
                               d.paper->citation, t.source, t.metric, t.model, kOrderTolerance, kFactorTolerance * 100);
      tt.header = {"Model", "Function", "Method"};
      tt.header.insert(tt.header.end(), cmp.begin(), cmp.end());
      tt.header.insert(tt.header.end(), {"least squares order / factor", "points"});
      for (const auto& r : d.rows) {
        if (r.table != &t) continue;
        std::vector<std::string> row = {t.paper_model, t.function, r.method};
        if (!r.ours) {
          row.insert(row.end(), {"not run", "-"});
          row.push_back(r.paper ? fmt::format("{:.2f}", r.paper->order) : "-");
          row.push_back(r.paper ? fmt::format("{:.6f}", r.paper->factor) : "-");
          row.insert(row.end(), {"-", "-", "method not registered", "-", "-"});
        } else {
          compare_cells(r.ours->fit, r.paper, row);
          row.push_back(ls_cells(r.ours->fit));
          row.push_back(points_cell(*r.ours));
        }
        tt.rows.push_back(row);
      }
      out.push_back(std::move(tt));
    }

  // findings: for each published row we ran, the reading closest to it and whether any reproduces it
  if (d.paper) {
    TextTable fd;
    fd.id = "findings";
    fd.title = "Findings: which reading reproduces each published row";
    fd.caption = "Over every run reading in the records and both fit readings. 'closest' minimises |Δ order| / 0.02 + "
                 "|log factor ratio| / 0.01. When no reading reproduces a row, the difference is not a reading of the "
                 "paper's text; the pair table below shows how the order depends on the pair of steps.";
    fd.header = {"Model", "Function", "Method", "main reading", "closest reading", "order / factor there", "readings tried",
                 "reproduced by", "order range", "factor ratio range"};
    for (const auto& r : d.rows) {
      if (!r.ours || !r.paper) continue;
      const PaperTable& t = *r.table;
      double best = 1e300, amin = 1e300, amax = -1e300, rmin = 1e300, rmax = -1e300;
      std::string best_text, best_fit;
      int tried = 0, good = 0;
      for (const auto& s : d.series) {
        if (s.model != t.model || s.metric != t.metric || s.method != r.method) continue;
        for (const SeriesFit* f : {&s.fit, &s.fit_other}) {
          if (!f->two_point) continue;
          FitH fh = f == &s.fit ? s.fit_h : (s.fit_h == FitH::Simulated ? FitH::Nominal : FitH::Simulated);
          double da = f->two_point->order - r.paper->order, ratio = f->two_point->factor / r.paper->factor;
          double score = std::abs(da) / kOrderTolerance + std::abs(std::log(ratio)) / kFactorTolerance;
          ++tried;
          if (std::abs(std::round(f->two_point->order * 100) / 100 - r.paper->order) <= kOrderTolerance + 1e-9 &&
              std::abs(ratio - 1) <= kFactorTolerance)
            ++good;
          amin = std::min(amin, f->two_point->order), amax = std::max(amax, f->two_point->order);
          rmin = std::min(rmin, ratio), rmax = std::max(rmax, ratio);
          if (score < best) {
            best = score;
            best_text = fmt::format("{}, fit h {}", s.readings, to_string(fh));
            best_fit = fmt::format("{:.4f} / {:.7g} (ratio {:.6f})", f->two_point->order, f->two_point->factor, ratio);
          }
        }
      }
      if (!tried) continue;
      fd.rows.push_back({t.paper_model, t.function, r.method, fmt::format("{}, fit h {}", r.ours->readings, to_string(r.ours->fit_h)),
                         best_text, best_fit, std::to_string(tried), good ? fmt::format("{} of {}", good, tried) : "none",
                         fmt::format("{:.2f} .. {:.2f}", amin, amax), fmt::format("{:.4f} .. {:.4f}", rmin, rmax)});
    }
    if (!fd.rows.empty()) out.push_back(std::move(fd));
  }

  // the readings: every reading of the runs and of the fit, for the rows the paper publishes
  if (d.paper) {
    TextTable rd;
    rd.id = "readings";
    rd.title = "Readings where the paper is not explicit";
    rd.caption = "Each row: one reading of the run (steps: does the step crossing 60 s count; ld: which period ends LD "
                 "averages) and of the fit (h put into the two-point formula: the simulated T/k or the nominal grid step).";
    rd.header = {"Model", "Function", "Method", "run reading", "fit h"};
    rd.header.insert(rd.header.end(), cmp.begin(), cmp.end());
    for (const auto& t : d.paper->tables)
      for (const auto& s : d.series) {
        if (s.model != t.model || s.metric != t.metric) continue;
        std::optional<PaperRow> p;
        for (const auto& r : t.rows)
          if (r.method == s.method.substr(0, s.method.find(':'))) p = r;
        for (const SeriesFit* f : {&s.fit, &s.fit_other}) {
          FitH fh = f == &s.fit ? s.fit_h : (s.fit_h == FitH::Simulated ? FitH::Nominal : FitH::Simulated);
          std::vector<std::string> row = {t.paper_model, t.function, s.method, s.readings + (s.primary ? " (main)" : ""), to_string(fh)};
          compare_cells(*f, p, row);
          rd.rows.push_back(row);
        }
      }
    if (!rd.rows.empty()) out.push_back(std::move(rd));
  }

  // the two-point fit at every pair of grid points h, 8h: where on the curve a published order sits
  TextTable pf;
  pf.id = "pairs";
  pf.title = "Two-point fits at every pair (h, 8 h) of the grid";
  pf.caption = "The paper's fit uses the pair (0.005, 0.04); where the error curve is not a power law, the order depends on "
               "the pair. Main readings, simulated h.";
  pf.header = {"Model", "Metric", "Method", "h1", "h2", "order", "factor"};
  if (d.paper)
    for (const auto& t : d.paper->tables)
      for (const auto& s : d.series) {
        if (!s.primary || s.model != t.model || s.metric != t.metric) continue;
        for (size_t i = 0; i < s.pair_fits.size(); ++i)
          pf.rows.push_back({t.paper_model, s.metric, s.method, h_text(s.pairs[i].first), h_text(s.pairs[i].second),
                             order_text(s.pair_fits[i].order), factor_text(s.pair_fits[i].factor)});
      }
  if (!pf.rows.empty()) out.push_back(std::move(pf));

  // every series: both fits
  TextTable all;
  all.id = "fits";
  all.title = "All fits";
  all.caption = "Every model x method x metric x reading. Two-point: the paper's fit; least squares: log w on log h over every "
                "non-failed point with a positive value, with the RMS of the log residuals and the h range used.";
  all.header = {"Model", "Metric", "Method", "run reading", "two-point order", "two-point factor", "least squares order",
                "least squares factor", "rms", "h range", "points", "failures"};
  for (const auto& s : d.series) {
    std::vector<std::string> row = {s.model, s.metric, s.method, s.readings + (s.primary ? " (main)" : "")};
    if (s.fit.two_point) row.insert(row.end(), {order_text(s.fit.two_point->order), factor_text(s.fit.two_point->factor)});
    else row.insert(row.end(), {"-", s.fit.two_point_note});
    if (s.fit.least_squares)
      row.insert(row.end(), {order_text(s.fit.least_squares->order), factor_text(s.fit.least_squares->factor),
                             fmt::format("{:.2g}", s.fit.least_squares->residual),
                             fmt::format("{}..{}", h_text(s.fit.h_min), h_text(s.fit.h_max))});
    else row.insert(row.end(), {"-", "-", "-", "-"});
    row.push_back(points_cell(s));
    std::string fails;
    for (const auto& f : s.failures) fails += (fails.empty() ? "" : "; ") + f;
    row.push_back(fails.empty() ? "-" : fails);
    all.rows.push_back(row);
  }
  out.push_back(std::move(all));
  return out;
}

std::string markdown_tables(const ReportData& d) {
  std::string s = "# mbbench report: tables\n";
  for (const auto& t : report_tables(d)) {
    s += fmt::format("\n## {}\n\n{}\n\n|", t.title, t.caption);
    for (const auto& h : t.header) s += " " + h + " |";
    s += "\n|";
    for (size_t i = 0; i < t.header.size(); ++i) s += "---|";
    s += "\n";
    for (const auto& r : t.rows) {
      s += "|";
      for (const auto& c : r) s += " " + c + " |";
      s += "\n";
    }
  }
  return s;
}

}  // namespace mb
