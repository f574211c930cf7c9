// Writes the report's files: tables.md, records.csv, plots/ and report.html (formatting only).
#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "report/report.hpp"
#include "records/store.hpp"

namespace mb {

namespace fs = std::filesystem;

std::string write_report(const std::vector<std::string>& record_files, const std::string& dir, const std::string& paper_file,
                         const std::string& timing_dir) {
  auto records = read_records(record_files);
  if (records.empty()) throw InputError(record_files.front(), 0, "", "no records");
  // the published values: --paper, or the file the experiment names
  std::string pf = paper_file;
  for (const auto& r : records)
    if (pf.empty() && r.experiment) pf = r.experiment->paper;
  std::optional<Paper> paper;
  if (!pf.empty()) paper = read_paper(pf);
  ReportData d = analyse(std::move(records), paper);

  fs::create_directories(dir);
  write_file_atomic((fs::path(dir) / "tables.md").string(), markdown_tables(d));
  write_file_atomic((fs::path(dir) / "records.csv").string(), records_csv(d));
  auto figures = write_plots(d, dir);
  for (auto& f : write_work_precision_plots(d, dir)) figures.push_back(std::move(f));
  for (auto& f : write_step_series_plots(d, dir)) figures.push_back(std::move(f));
  // the timing of `mbbench bench` (its bench.json analysed again): tables and plot in this report
  std::vector<TextTable> timing;
  if (!timing_dir.empty()) {
    const TimingData td = analyse_bench_dir(timing_dir);
    timing = timing_tables(td);
    Figure f;
    f.id = "timing";
    f.title = "Time per step over joints (bender2007 s.6, Fig. 4), with the fitted scaling exponents";
    f.paper_figure = "fig. 4";
    std::string note;
    if (write_timing_plot(td, dir, &note).empty()) f.note = note;
    else f.svg_file = "plots/timing.svg";
    figures.push_back(f);
    write_file_atomic((fs::path(dir) / "tables.md").string(), markdown_tables(d) + "\n" + timing_markdown(td));
  }
  std::string html = (fs::path(dir) / "report.html").string();
  write_file_atomic(html, report_html(d, figures, dir, timing));
  return html;
}

}  // namespace mb
