// The report's tables as text cells (report_tables) and their Markdown rendering. Formatting only:
// every number and every verdict comes from analyse() (analysis/analysis.cpp).
#include <algorithm>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "report/report.hpp"

namespace mb {

namespace {

std::string order_text(double a) { return fmt::format("{:.2f}", a); }
std::string factor_text(double c) { return fmt::format("{:.6g}", c); }
std::string h_text(double h) { return fmt::format("{:.6g}", h); }

// what stands in a cell without a value: why there is none (never a bare "-")
const char* kNotPublished = "not published";
const char* kNoFit = "no fit";

// ours beside the paper's: order difference (absolute), factor ratio and the analysis' verdict
void compare_cells(const Comparison& c, std::vector<Cell>& row, const std::string& settings_differ = "") {
  if (c.verdict == Verdict::Reproduced || c.verdict == Verdict::Differs)
    row.push_back(Cell(std::string(to_string(c.verdict)) + (settings_differ.empty() ? "" : " (settings differ: " + settings_differ + ")"),
                       verdict_style(c.verdict)));
  else
    row.push_back(Cell(c.verdict == Verdict::NoFit ? c.note : to_string(c.verdict), verdict_style(c.verdict)));
  if (!c.ours) {
    row.insert(row.end(), {Cell(kNoFit, "na"), Cell(kNoFit, "na")});
  } else {
    row.push_back(order_text(c.ours->order));
    row.push_back(factor_text(c.ours->factor));
  }
  row.push_back(c.paper ? Cell(fmt::format("{:.2f}", c.paper->order)) : Cell(kNotPublished, "na"));
  row.push_back(c.paper ? Cell(fmt::format("{:.6f}", c.paper->factor)) : Cell(kNotPublished, "na"));
  if (c.verdict == Verdict::Reproduced || c.verdict == Verdict::Differs) {
    row.push_back(fmt::format("{:+.2f}", c.order_diff));
    row.push_back(fmt::format("{:.4f}", c.factor_ratio));
  } else {
    row.insert(row.end(), {Cell("n/a", "na"), Cell("n/a", "na")});
  }
}

std::string ls_cells(const SeriesFit& f) {
  if (!f.least_squares) return kNoFit;
  return fmt::format("{:.2f} / {} (rms {:.2g}, h {}..{})", f.least_squares->order, factor_text(f.least_squares->factor),
                     f.least_squares->residual, h_text(f.h_min), h_text(f.h_max));
}

std::string points_cell(const Series& s) {
  int used = s.fit.least_squares ? s.fit.least_squares->points : 0;
  return fmt::format("{} used, {} failed{}", used, s.fit.failed, s.fit.unusable ? fmt::format(", {} without value", s.fit.unusable) : "");
}

}  // namespace

std::string verdict_style(Verdict v) {
  return v == Verdict::Reproduced ? "ok" : v == Verdict::Differs ? "bad" : "na";
}

std::string sig3(double x) {
  const double a = std::abs(x);
  if (!std::isfinite(x)) return fmt::format("{}", x);
  if (a == 0) return "0";
  if (a < 1e-3 || a >= 1e6) return fmt::format("{:.2e}", x);
  const int decimals = std::max(0, 2 - static_cast<int>(std::floor(std::log10(a))));
  std::string s = fmt::format("{:.{}f}", x, decimals);
  // rounding up may add a digit (9.995 -> 10.00): keep three
  if (decimals > 0 && std::abs(std::stod(s)) >= std::pow(10.0, 3 - decimals)) s = fmt::format("{:.{}f}", x, decimals - 1);
  return s;
}

void uniform_columns(TextTable& t) {
  auto number = [](const std::string& text, double& x) {
    if (text.empty() || text.find_first_of("0123456789") == std::string::npos) return false;
    char* end = nullptr;
    x = std::strtod(text.c_str(), &end);
    return end == text.c_str() + text.size() && text.find_first_of("xXnN ") == std::string::npos;
  };
  for (size_t col = 0; col < t.header.size(); ++col) {
    bool plain = false, exponent = false;
    double x = 0;
    for (const auto& r : t.rows)
      if (col < r.size() && number(r[col].text, x)) (r[col].text.find_first_of("eE") == std::string::npos ? plain : exponent) = true;
    if (!(plain && exponent)) continue;
    for (auto& r : t.rows)
      if (col < r.size() && number(r[col].text, x) && r[col].text.find('.') != std::string::npos) r[col].text = fmt::format("{:.2e}", x);
  }
}

std::vector<TextTable> report_tables(const ReportData& d) {
  std::vector<TextTable> out;
  const std::vector<std::string> cmp = {"verdict", "Order", "Factor", "Order (paper)", "Factor (paper)", "Δ order", "factor ratio"};

  // the paper's tables: Model / Function / Method / Order / Factor, published values beside ours
  if (d.paper)
    for (const auto& t : d.paper->tables) {
      TextTable tt;
      tt.id = fmt::format("paper-{}-{}", t.model, t.metric);
      tt.title = fmt::format("Model: {}  Function: {}", t.paper_model, t.function);
      tt.caption = fmt::format("{} {} (metric {}, model {}). Two-point fit at h1 = 0.005, h2 = 0.04; 'reproduced' = order within "
                               "{} and factor within {} % of the published value. Least squares over all non-failed points.",
                               d.paper->citation, t.source, t.metric, t.model, kOrderTolerance, kFactorTolerance * 100);
      // the model and function are the table's title; the method names each row, its verdict next
      tt.header = {"Method"};
      tt.header.insert(tt.header.end(), cmp.begin(), cmp.end());
      tt.header.insert(tt.header.end(), {"least squares order / factor", "points"});
      for (const auto& r : d.rows) {
        if (r.table != &t) continue;
        std::vector<Cell> row = {r.method};
        if (!r.ours) {
          row.insert(row.end(), {Cell("not run in these records", "na"), Cell("not run", "na"), Cell("not run", "na")});
          row.push_back(r.paper ? Cell(fmt::format("{:.2f}", r.paper->order)) : Cell(kNotPublished, "na"));
          row.push_back(r.paper ? Cell(fmt::format("{:.6f}", r.paper->factor)) : Cell(kNotPublished, "na"));
          row.insert(row.end(), {Cell("n/a", "na"), Cell("n/a", "na"), Cell("not run", "na"), Cell("not run", "na")});
        } else {
          compare_cells(r.comparison, row, r.settings_differ);
          row.push_back(ls_cells(r.ours->fit));
          row.push_back(points_cell(*r.ours));
        }
        tt.rows.push_back(row);
      }
      out.push_back(std::move(tt));
    }

  // the paper's whole runs (computation time and error of a run) beside ours
  if (d.paper && !d.runs.empty()) {
    TextTable rn;
    rn.id = "paper-runs";
    rn.title = fmt::format("Whole runs beside the paper's ({})", d.paper->citation);
    std::string machine = "not given";
    for (const auto& [k, v] : d.paper->context)
      if (k == "machine") machine = v;
    rn.caption = fmt::format(
        "Each published run (model, step h, duration) with its computation time tc and its largest error as printed, beside our "
        "case of the same model, step and duration: the wall time of its steps (the driver's clock), the CPU time of its "
        "thread (steps and metrics), each over the paper's tc (context only: the paper's machine is {}), and our value of the "
        "paper's error metric against its bound. Times in s.",
        machine);
    std::vector<std::string> others;
    for (const auto& c : d.runs)
      for (const auto& [m, v] : c.metrics)
        if (std::find(others.begin(), others.end(), m) == others.end()) others.push_back(m);
    rn.header = {"Model", "verdict", "h", "paper: method", "paper: tc", "ours: method", "ours: step time", "ours: CPU time",
                 "step time / tc", "CPU time / tc", "error metric", "paper: error", "ours: error"};
    rn.header.insert(rn.header.end(), others.begin(), others.end());
    auto value = [](const std::optional<double>& x, const char* missing) { return x ? Cell(sig3(*x)) : Cell(missing, "na"); };
    for (const auto& c : d.runs) {
      const PaperRun& p = c.paper;
      std::string style = c.verdict == RunComparison::Verdict::Within   ? "ok"
                          : c.verdict == RunComparison::Verdict::Exceeds || c.verdict == RunComparison::Verdict::Failed ? "bad"
                                                                                                                       : "na";
      std::vector<Cell> row = {p.model, Cell(std::string(to_string(c.verdict)) + (c.note.empty() ? "" : ": " + c.note), style),
                               h_text(p.h), p.paper_method, sig3(p.tc_ms / 1e3), p.method};
      if (c.verdict == RunComparison::Verdict::NotRun) {
        row.insert(row.end(), {Cell("not run", "na"), Cell("not run", "na"), Cell("n/a", "na"), Cell("n/a", "na")});
      } else {
        row.insert(row.end(), {value(c.step_s, "not timed"), value(c.cpu_s, "not recorded"), value(c.step_ratio, "n/a"),
                               value(c.cpu_ratio, "n/a")});
      }
      row.push_back(p.metric);
      row.push_back(p.error_max ? Cell("< " + sig3(*p.error_max)) : value(p.error, "n/a"));
      std::string ours = c.error ? sig3(*c.error) : "n/a";
      if (c.error_ratio) ours += fmt::format(" ({} x the paper's)", sig3(*c.error_ratio));
      row.push_back(ours);
      for (const auto& m : others) {
        Cell cell("n/a", "na");
        for (const auto& [name, v] : c.metrics)
          if (name == m) cell = Cell(sig3(v));
        row.push_back(cell);
      }
      rn.rows.push_back(std::move(row));
    }
    out.push_back(std::move(rn));
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
    for (const Finding& f : d.findings) {
      const ComparedRow& r = *f.row;
      fd.rows.push_back({r.table->paper_model, r.table->function, r.method, f.main_reading, f.closest_reading,
                         fmt::format("{:.4f} / {:.7g} (ratio {:.6f})", f.closest.order, f.closest.factor, f.closest_ratio),
                         std::to_string(f.tried), f.reproduced ? fmt::format("{} of {}", f.reproduced, f.tried) : "none",
                         fmt::format("{:.2f} .. {:.2f}", f.order_min, f.order_max),
                         fmt::format("{:.4f} .. {:.4f}", f.ratio_min, f.ratio_max)});
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
    for (const ReadingRow& x : d.readings) {
      const Series& s = *x.series;
      std::vector<Cell> row = {x.table->paper_model, x.table->function, s.method, s.readings + (s.primary ? " (main)" : ""),
                                      to_string(x.fit_h)};
      compare_cells(x.comparison, row);
      rd.rows.push_back(row);
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
    std::vector<Cell> row = {s.model, s.metric, s.method, s.readings + (s.primary ? " (main)" : "")};
    if (s.fit.two_point) row.insert(row.end(), {order_text(s.fit.two_point->order), factor_text(s.fit.two_point->factor)});
    else row.insert(row.end(), {Cell(kNoFit, "na"), Cell(s.fit.two_point_note, "na")});
    if (s.fit.least_squares)
      row.insert(row.end(), {order_text(s.fit.least_squares->order), factor_text(s.fit.least_squares->factor),
                             fmt::format("{:.2g}", s.fit.least_squares->residual),
                             fmt::format("{}..{}", h_text(s.fit.h_min), h_text(s.fit.h_max))});
    else row.insert(row.end(), {Cell(kNoFit, "na"), Cell(kNoFit, "na"), Cell("n/a", "na"), Cell("n/a", "na")});
    row.push_back(points_cell(s));
    std::string fails;
    for (const auto& f : s.failures) fails += (fails.empty() ? "" : "; ") + f;
    row.push_back(fails.empty() ? Cell("none") : Cell(fails, "bad"));
    all.rows.push_back(row);
  }
  out.push_back(std::move(all));

  // metrics that do not apply to a model: not applicable, which is not failed
  TextTable na;
  na.id = "not-applicable";
  na.title = "Metrics that do not apply";
  na.caption = "No case of these model x metric pairs has a value, and the records say why (e.g. LD needs a known period). "
               "They are not failures and have no fit and no figure.";
  na.header = {"Model", "Metric", "cases", "why"};
  for (const auto& x : d.not_applicable) na.rows.push_back({x.model, x.metric, std::to_string(x.cases), Cell(x.reason, "na")});
  if (!na.rows.empty()) out.push_back(std::move(na));

  // the real-time factor of every timed case (simulated s per wall s of its steps)
  TextTable rt;
  rt.id = "realtime";
  rt.title = "Real-time factor";
  rt.caption = "Every case whose steps were timed: the simulated time per wall time of its steps (the record's "
               "provenance.timing.realtime_factor; above 1: faster than real time), one core, on the machine in the provenance.";
  rt.header = {"Model", "Method", "h", "steps", "ms / step", "real-time factor"};
  for (const CaseRecord& r : d.records)
    if (r.timing.realtime_factor > 0 && r.steps_done > 0)
      rt.rows.push_back({r.model.spec, r.method.spec, h_text(r.h), std::to_string(r.steps_done),
                         sig3(1e3 * r.timing.step_seconds_total / static_cast<double>(r.steps_done)), sig3(r.timing.realtime_factor)});
  if (!rt.rows.empty()) out.push_back(std::move(rt));

  // the contact phases' share of the step time
  TextTable ct;
  ct.id = "contact-time";
  ct.title = "Time per step of the contact phases";
  ct.caption = "Every case whose steps found contacts: the wall time per step of the whole step and of the contact phases "
               "(detection at the step's start and on its preview, and the contact impulses of the collision, position and "
               "velocity phases; docs/contacts.md), and the contact phases' share. A peer engine's contacts are inside its "
               "step: not measured apart. Wall times on the machine in the provenance.";
  ct.header = {"Model", "Method", "h", "steps", "most contacts", "ms / step", "contact ms / step", "contact share"};
  for (const ContactTiming& c : d.contacts) {
    std::vector<Cell> row = {c.model, c.method, h_text(c.h), std::to_string(c.steps), std::to_string(c.contacts_max), sig3(c.step_ms)};
    if (c.measured) row.insert(row.end(), {sig3(c.contact_ms), fmt::format("{:.0f} %", 100 * c.share)});
    else row.insert(row.end(), {Cell("not measured: inside the engine's step", "na"), Cell("n/a", "na")});
    ct.rows.push_back(row);
  }
  if (!ct.rows.empty()) out.push_back(std::move(ct));

  // work-precision: error at the end time over cost, one table per model
  for (auto& t : work_precision_tables(d)) out.push_back(std::move(t));
  for (auto& t : out) uniform_columns(t);
  return out;
}

std::string markdown_table(const TextTable& t, const std::string& heading) {
  std::string s = fmt::format("{} {}\n\n{}\n\n|", heading, t.title, t.caption);
  for (const auto& h : t.header) s += " " + h + " |";
  s += "\n|";
  for (size_t i = 0; i < t.header.size(); ++i) s += "---|";
  s += "\n";
  for (const auto& r : t.rows) {
    s += "|";
    for (const auto& c : r) {
      std::string text = c.text;
      for (size_t p = text.find('|'); p != std::string::npos; p = text.find('|', p + 2)) text.replace(p, 1, "\\|");
      s += " " + text + " |";
    }
    s += "\n";
  }
  return s;
}

std::string markdown_tables(const ReportData& d, const TextTable* verdicts) {
  std::string s = "# mbbench report: tables\n";
  // the verdicts first: the given table, or the outcomes of the records alone
  const TextTable own = verdicts ? TextTable() : verdict_table(outcomes(d, {}));
  const TextTable& v = verdicts ? *verdicts : own;
  if (!v.rows.empty()) {
    s += "\n";
    s += markdown_table(v);
  }
  for (const auto& t : report_tables(d)) {
    s += "\n";
    s += markdown_table(t);
  }
  for (const auto& t : modes_tables(d)) {
    s += "\n";
    s += markdown_table(t);
  }
  return s;
}

}  // namespace mb
