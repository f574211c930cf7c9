// Writes the report's files: tables.md, records.csv, plots/ and report.html (formatting only).
#include <filesystem>
#include <fstream>
#include <iterator>

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
  // the timing tables and plot of `mbbench bench`, gathered into this report
  std::string timing_md;
  if (!timing_dir.empty()) {
    const fs::path md = fs::path(timing_dir) / "timing.md", svg = fs::path(timing_dir) / "plots" / "timing.svg";
    if (!fs::exists(md))
      throw InputError("command line", 0, "timing", fmt::format("no timing.md in '{}': run `mbbench bench EXPERIMENT --out {}` first", timing_dir, timing_dir));
    std::ifstream in(md);
    timing_md.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    Figure f;
    f.id = "timing";
    f.title = "time per step over joints (bender2007 s.6, Fig. 4), with the fitted scaling exponents";
    f.paper_figure = "fig. 4";
    if (fs::exists(svg)) {
      fs::create_directories(fs::path(dir) / "plots");
      if (!fs::equivalent(svg.parent_path(), fs::path(dir) / "plots"))
        fs::copy_file(svg, fs::path(dir) / "plots" / "timing-bench.svg", fs::copy_options::overwrite_existing);
      f.svg_file = fs::equivalent(svg.parent_path(), fs::path(dir) / "plots") ? "plots/timing.svg" : "plots/timing-bench.svg";
    } else {
      f.note = "no plot (gnuplot was not found when the bench ran)";
    }
    figures.push_back(f);
    write_file_atomic((fs::path(dir) / "tables.md").string(), markdown_tables(d) + "\n" + timing_md);
  }
  std::string html = (fs::path(dir) / "report.html").string();
  write_file_atomic(html, report_html(d, figures, dir, timing_md));
  return html;
}

}  // namespace mb
