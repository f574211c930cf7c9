// The report (design.md s.6): records -> series of each metric over h -> fits (metrics/fit.hpp)
// -> tables beside the published values, CSV, gnuplot figures, one self-contained HTML page.
// analyse() is the only place that computes (it calls the fits); the writers only format
// (style.md 13): report_markdown.cpp, report_csv.cpp, report_plots.cpp, report_html.cpp.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "metrics/fit.hpp"

namespace mb {

// --- published values (results/paper/*.toml) ---
struct PaperRow {
  std::string method;
  double order = 0, factor = 0;
};
struct PaperTable {
  std::string model, paper_model, function, metric, source;
  std::vector<PaperRow> rows;
};
struct PaperFigure {
  std::string number, model, metric;  // model "*": every model
};
// A published time (ms) per step, or of one part of a step (quantity), at a tree size.
struct PaperTiming {
  std::string method, paper_method, quantity, source, quote;
  int joints = 0;
  double ms = 0;
};
// A published statement relative to real time or to another method (`than`).
struct PaperClaim {
  std::string method, than, relation, source, quote;
  int joints = 0;        // 0: every size
  double factor = 0;     // the speed-up stated (0: none)
};
struct Paper {
  std::string file, citation, title, fit;
  std::vector<PaperTable> tables;
  std::vector<PaperFigure> figures;
  std::vector<std::pair<std::string, std::string>> context;  // [context]: machine, h, integrator, ...
  std::vector<PaperTiming> timings;
  std::vector<PaperClaim> claims;
};
Paper read_paper(const std::string& path);

// --- what the report shows, computed once ---
// One metric of one model x method (x readings) over the step sizes.
struct Series {
  std::string model, method, metric;
  std::string readings;      // "steps=floor ld=whole"
  bool primary = true;       // the experiment's first (main) reading
  FitH fit_h = FitH::Simulated;
  double fit_h1 = 0.005, fit_h2 = 0.04;
  std::vector<SeriesPoint> points;  // by h
  std::vector<std::string> failures;  // "h=0.08: reason at t = ..."
  SeriesFit fit;             // with the experiment's fit reading
  SeriesFit fit_other;       // with the other fit reading (nominal <-> simulated)
  std::vector<PowerFit> pair_fits;  // two-point fits at every (h_i, h_j) with h_j / h_i = h2 / h1
  std::vector<std::pair<double, double>> pairs;  // their (h_i, h_j), nominal
};

// A row of a paper table: ours beside the published values.
struct ComparedRow {
  const PaperTable* table = nullptr;
  std::string method;
  std::optional<PaperRow> paper;
  const Series* ours = nullptr;  // the primary series; nullptr: not run
};

struct ReportData {
  std::vector<nlohmann::json> records;  // deduplicated, in case order
  std::vector<Series> series;
  std::optional<Paper> paper;
  std::vector<ComparedRow> rows;        // every paper table row, and our extra methods
  std::vector<std::string> metrics;     // the metrics the experiments ask for
  nlohmann::json provenance;            // summary: experiments, commits, builds, dates, counts
  long failed = 0;
};

// Tolerances within which a row counts as reproduced (issue 8): order 0.02 absolute, factor 1 %.
constexpr double kOrderTolerance = 0.02;
constexpr double kFactorTolerance = 0.01;

ReportData analyse(std::vector<nlohmann::json> records, const std::optional<Paper>& paper);

// --- writers (formatting only) ---
// The tables of the report as text cells, rendered to Markdown and HTML by the writers.
struct TextTable {
  std::string id, title, caption;
  std::vector<std::string> header;
  std::vector<std::vector<std::string>> rows;
};
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

// Writes tables.md, records.csv, plots/ and report.html into dir; returns report.html's path.
// timing_dir: the output folder of `mbbench bench` (timing.md, plots/timing.svg), gathered into
// the report (the Fig. 4 timing table and the log-log plot of time per step); empty for none.
std::string write_report(const std::vector<std::string>& record_files, const std::string& dir,
                         const std::string& paper_file, const std::string& timing_dir = "");

}  // namespace mb
