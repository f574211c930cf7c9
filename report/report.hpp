// The report (design.md s.6): what analyse() (analysis/analysis.hpp) computed, formatted as
// tables beside the published values, CSV, gnuplot figures and one self-contained HTML page.
// Formatting only (style.md 13): markdown.cpp, csv.cpp, plots.cpp, html.cpp, timing.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/timing.hpp"

namespace mb {

// --- writers (formatting only) ---
// The tables of the report as text cells, rendered to Markdown and HTML by the writers.
// A cell: its text and a style the HTML writer maps to a class ("ok", "bad" for verdicts).
struct Cell {
  std::string text, style;
  Cell(std::string t = "", std::string s = "") : text(std::move(t)), style(std::move(s)) {}
  Cell(const char* t) : text(t) {}
};
struct TextTable {
  std::string id, title, caption;
  std::vector<std::string> header;
  std::vector<std::vector<Cell>> rows;
};
// The style of a verdict's cell.
std::string verdict_style(Verdict v);
std::vector<TextTable> report_tables(const ReportData& d);
std::string markdown_tables(const ReportData& d);
std::string records_csv(const ReportData& d);

struct Figure {
  std::string id, title, paper_figure;  // paper_figure: "fig. 2" or ""
  std::string model, metric;
  std::string svg_file;                 // relative to the output folder; empty if not drawn
  std::string note;                     // why not drawn
};
// Writes DIR/plots/<id>.dat and .gp for each model x metric and runs gnuplot (if found) to SVG.
std::vector<Figure> write_plots(const ReportData& d, const std::string& dir);
// timing_md: the timing tables of `mbbench bench` (timing.md), shown in their own section if not empty
std::string report_html(const ReportData& d, const std::vector<Figure>& figures, const std::string& dir,
                        const std::string& timing_md = "");

// The timing report (report/timing.cpp): the Markdown tables, and DIR/plots/timing.{dat,gp,svg}
// (returns the svg or "" with `note` saying why not).
std::string timing_markdown(const TimingData& d);
std::string write_timing_plot(const TimingData& d, const std::string& dir, std::string* note = nullptr);
// gnuplot on PATH, or "" if absent
std::string find_gnuplot();

// Writes tables.md, records.csv, plots/ and report.html into dir; returns report.html's path.
// timing_dir: the output folder of `mbbench bench` (timing.md, plots/timing.svg), gathered into
// the report (the Fig. 4 timing table and the log-log plot of time per step); empty for none.
std::string write_report(const std::vector<std::string>& record_files, const std::string& dir,
                         const std::string& paper_file, const std::string& timing_dir = "");

}  // namespace mb
