// The report (docs/usage.md#report): what analyse() (analysis/analysis.hpp) computed, formatted as
// tables beside the published values, CSV, gnuplot figures and one self-contained HTML page.
// Formatting only (docs/architecture.md): markdown.cpp, csv.cpp, plots.cpp, html.cpp, timing.cpp.
#pragma once
#include <optional>
#include <map>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/outcome.hpp"
#include "analysis/timing.hpp"

namespace mb {

// --- writers (formatting only) ---
// The tables of the report as text cells, rendered to Markdown and HTML by the writers.
// A cell: its text, a style the HTML writer maps to a class ("ok", "bad" for verdicts) and the
// id of a part of the page it links to ("" none; the HTML writer only).
struct Cell {
  std::string text, style, href;
  Cell(std::string t = "", std::string s = "", std::string h = "") : text(std::move(t)), style(std::move(s)), href(std::move(h)) {}
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
// The report's tables as Markdown, opening with `verdicts` (nullptr: verdict_table of the
// records' own outcomes).
std::string markdown_tables(const ReportData& d, const TextTable* verdicts = nullptr);
// One table as Markdown under a heading of the given level ("##", "###").
std::string markdown_table(const TextTable& t, const std::string& heading = "##");
// One number format per column: where a column's numbers mix plain (0.00108) and exponent
// (9.19e-04) forms, every number in it is written as an exponent with 3 significant digits.
void uniform_columns(TextTable& t);
// x with 3 significant digits, without an exponent for 1e-3 <= |x| < 1e6 (tables, timing)
std::string sig3(double x);
std::string records_csv(const ReportData& d);

// Text for HTML: & < > " as entities.
std::string html_escape(const std::string& s);

// The most series (key entries) one figure holds; more are split over several figures.
constexpr size_t kMaxSeries = 12;
struct Figure {
  std::string id, title, paper_figure;  // paper_figure: "fig. 2" or ""
  std::string model, metric;
  std::string svg_file;                 // relative to the output folder; empty if not drawn
  std::string note;                     // why not drawn
  TextTable table;                      // shown instead of a drawing when it has rows (one h: a dot per method)
};
// One line of a figure: a method spec's values over x, the x where it failed (drawn in a band
// at the top, one key entry per method), the count of values <= 0 (not on a log axis), and the
// paper's fit c x^p (dashed) where the paper gives one.
struct Line {
  std::string label;  // the method spec: its style (method_style)
  std::string title;  // the key's text ("": label)
  std::vector<std::pair<double, double>> xy;
  std::vector<double> failed_x;
  int nonpositive = 0;
  std::optional<std::pair<double, double>> paper;  // c, p
};
// Draws `lines` as one figure, or several (base.id + "_k") when they need more than kMaxSeries
// key entries; the key outside the plot. settings: gnuplot lines after the common header.
std::vector<Figure> draw_lines(const Figure& base, const std::vector<Line>& lines, const std::string& xlabel,
                               const std::string& ylabel, const std::string& settings, const std::string& plots_dir,
                               const std::string& gnuplot);
// Writes DIR/plots/<id>.dat and .gp for each model x metric and runs gnuplot (if found) to SVG.
std::vector<Figure> write_plots(const ReportData& d, const std::string& dir);
// Every figure has this size (px) in report.html and in its SVG.
constexpr int kFigureWidth = 800, kFigureHeight = 500;
// The verdict table a report opens with (report/verdicts.cpp): the analysis' outcomes, every row
// that differs, is a finding or was not measured named on its own line, the reproduced rows of one
// published table (or kind) on one line. claims_anchor[k]: the id of the statements table of the
// k-th timing analysis.
TextTable verdict_table(const std::vector<OutcomeRow>& outcomes, const std::vector<std::string>& claims_anchor = {});
// timing: the tables of `mbbench bench` (timing_tables), shown in their own section if not empty;
// timing_summary: the summary's line about them (timing_summary); verdicts: verdict_table's
std::string report_html(const ReportData& d, const std::vector<Figure>& figures, const std::string& dir,
                        const std::vector<TextTable>& timing = {}, const std::string& timing_summary = "",
                        const TextTable& verdicts = {});
// A path as the report prints it: relative to the git checkout that holds it (the folder above it
// with a .git entry), else unchanged.
std::string repository_path(const std::string& path);

// The timing report (report/timing.cpp): its tables (HTML in report.html, Markdown in timing.md),
// and DIR/plots/timing.{dat,gp,svg} (returns the svg or "" with `note` saying why not).
std::vector<TextTable> timing_tables(const TimingData& d);
std::string timing_markdown(const TimingData& d);
// One line for the report's summary: the published statements by verdict, the published times measured.
std::string timing_summary(const TimingData& d);
// id: the files' name, DIR/plots/<id>.{dat,gp,svg} (<id>_k.* when split: more than kMaxSeries
// series). Returns the first svg, or "" with `note` saying why there is none (one size measured:
// the times are a table).
std::string write_timing_plot(const TimingData& d, const std::string& dir, std::string* note = nullptr,
                              const std::string& id = "timing");
// The same as the report's figures: every part, or one figure with its note.
std::vector<Figure> timing_figures(const TimingData& d, const std::string& dir, const std::string& id, const std::string& title);
// gnuplot on PATH, or "" if absent
std::string find_gnuplot();
// A file name from a label: every character but letters, digits, '_' and '-' becomes '_'.
std::string plot_id(const std::string& s);
// The gnuplot style of a method spec (a timing label "spec @ variant" too): colour and marker
// keyed by the method's name, the same in every figure of every report; a spec with options (or
// a model variant) keeps the name's colour and takes a marker and dash pattern of its own.
std::string method_style(const std::string& spec);

// A metric as an axis label with its unit ("ED [J]"; a dimensionless metric alone).
std::string axis_label(const std::string& metric);
// Runs gnuplot on plots_dir/<id>.gp (which writes <id>.svg); false, with `note` saying why, if it
// failed (its messages stay in plots/<id>.log).
bool run_gnuplot(const std::string& gnuplot, const std::string& plots_dir, const std::string& id, std::string* note);
// Writes plots_dir/<id>.dat and .gp and draws <id>.svg with gnuplot (if found): fig.svg_file,
// or fig.note saying why not.
void draw_figure(Figure& fig, const std::string& plots_dir, const std::string& data, const std::string& script,
                 const std::string& gnuplot);
// The benchmark bicycle's section (report/modes.cpp): its tables and figures (ids meijaard2007*),
// empty without ReportData::modes.
std::vector<TextTable> modes_tables(const ReportData& d);
std::vector<Figure> write_modes_plots(const ReportData& d, const std::string& dir);
// The work-precision tables and figures, one per model (report/work_precision.cpp).
std::vector<TextTable> work_precision_tables(const ReportData& d);
std::vector<Figure> write_work_precision_plots(const ReportData& d, const std::string& dir);
// The per-step series (records' step_series): iterations and condition over time per model
// (report/step_series.cpp).
std::vector<Figure> write_step_series_plots(const ReportData& d, const std::string& dir);
// A gnuplot string literal, and the common head of every script: the SVG terminal at
// kFigureWidth x kFigureHeight, labels taken literally (noenhanced: CD_pos_mean is no subscript),
// log-log axes, a title and axis labels.
std::string gnuplot_string(const std::string& s);
std::string gnuplot_header(const std::string& name, const std::string& title, const std::string& xlabel, const std::string& ylabel);

// The published values records are compared with: paper_file when given, else the paper their
// experiment names (empty: none). The sweep records that path absolute; a relative one is relative
// to the folder the sweep ran in. A path not found is looked for from each records file's folder
// upward: a relative one whole, an absolute one (another checkout's) by its last 4, 3 or 2 parts,
// with a note. A named paper found nowhere is an InputError saying to give --paper.
std::string records_paper(const std::vector<CaseRecord>& records, const std::vector<std::string>& record_files,
                          const std::string& paper_file);

// A gate history (mbbench gate --history: one JSON line per run) and its trend page
// (report/trend.cpp). A malformed line is an InputError naming the file and the line.
struct HistoryRun {
  std::string commit, date, build, machine;
  std::map<std::string, double> values;
};
std::vector<HistoryRun> read_history(const std::string& file);
// the same for the text of a history file named `file`
std::vector<HistoryRun> parse_history(const std::string& text, const std::string& file);
struct TrendChange {
  size_t index = 0;  // into the series' points: the first point after the change
  double before = 0, after = 0;  // the medians of the segments either side
};
struct TrendSeries {
  std::string name;
  std::vector<size_t> run;   // the runs that have this value
  std::vector<double> value;
  std::vector<TrendChange> changes;
};
std::vector<TrendSeries> trend_series(const std::vector<HistoryRun>& runs);
// Writes DIR/trend.html and DIR/plots/; returns the page's path.
std::string write_trend(const std::string& history, const std::string& dir);

// Writes tables.md, records.csv, plots/ and report.html into dir; returns report.html's path.
// timing_dirs: output folders of `mbbench bench`; each bench.json is analysed again
// (analyse_bench_dir) into its timing tables, compared with the paper its experiment names, and
// its log-log plot of time per step. With several, each table's id and title and each plot are
// prefixed with the timing experiment's name.
std::string write_report(const std::vector<std::string>& record_files, const std::string& dir,
                         const std::string& paper_file, const std::vector<std::string>& timing_dirs = {});

}  // namespace mb
