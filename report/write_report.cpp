// Writes the report's files: tables.md, records.csv, plots/ and report.html (formatting only).
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "report/report.hpp"
#include "records/store.hpp"

namespace mb {

namespace fs = std::filesystem;

std::string records_paper(const std::vector<CaseRecord>& records, const std::vector<std::string>& record_files,
                          const std::string& paper_file) {
  if (!paper_file.empty()) return data_file(paper_file);
  std::string named;
  for (const auto& r : records)
    if (named.empty() && r.experiment) named = r.experiment->paper;
  std::error_code ec;
  if (named.empty() || fs::is_regular_file(named, ec)) return named;
  // the tail looked for above the records' folder: a relative path whole; an absolute one (of
  // another checkout or machine) by its last parts, at least its folder and name
  const fs::path path = fs::path(named).relative_path();
  std::vector<fs::path> tails;
  if (fs::path(named).is_absolute()) {
    const std::vector<fs::path> parts(path.begin(), path.end());
    for (size_t k = std::min<size_t>(parts.size(), 4); k >= 2; --k) {
      fs::path t;
      for (size_t i = parts.size() - k; i < parts.size(); ++i) t /= parts[i];
      tails.push_back(t);
    }
  } else {
    tails.push_back(path);
  }
  for (const auto& tail : tails)
    for (const auto& f : record_files)
      for (fs::path d = fs::absolute(f).parent_path(); !d.empty(); d = d.parent_path()) {
        if (fs::is_regular_file(d / tail, ec)) {
          const std::string found = (d / tail).lexically_normal().string();
          if (fs::path(named).is_absolute())
            fmt::print(stderr, "mbbench: note: the experiment's paper {} is not there; using {}\n", named, found);
          return found;
        }
        if (d == d.root_path()) break;
      }
  // an installed mbbench's own published values (core/io.hpp)
  for (const auto& tail : tails)
    if (const std::string installed = data_file(tail.string()); is_file(installed)) return installed;
  throw InputError(record_files.front(), 0, "experiment.paper",
                   fmt::format("the experiment's paper '{}' is found neither there nor above the records' folder; give it "
                               "with --paper FILE",
                               named));
}

std::string write_report(const std::vector<std::string>& record_files, const std::string& dir, const std::string& paper_file,
                         const std::vector<std::string>& timing_dirs) {
  auto records = read_records(record_files);
  if (records.empty()) throw InputError(record_files.front(), 0, "", "no records");
  // the published values: --paper, or the file the experiment names
  const std::string pf = records_paper(records, record_files, paper_file);
  std::optional<Paper> paper;
  if (!pf.empty()) paper = read_paper(pf);
  ReportData d = analyse(std::move(records), paper);

  fs::create_directories(dir);
  std::string timing_md;
  auto figures = write_plots(d, dir);
  for (auto& f : write_work_precision_plots(d, dir)) figures.push_back(std::move(f));
  for (auto& f : write_step_series_plots(d, dir)) figures.push_back(std::move(f));
  for (auto& f : write_modes_plots(d, dir)) figures.push_back(std::move(f));
  // the timing of `mbbench bench` (each bench.json analysed again): tables and plot in this report
  std::vector<TextTable> timing;
  std::string timing_line;
  std::vector<TimingData> analysed;  // kept for the verdicts
  std::vector<std::string> claims_anchor;
  analysed.reserve(timing_dirs.size());
  for (const auto& timing_dir : timing_dirs) {
    const TimingData& td = analysed.emplace_back(analyse_bench_dir(timing_dir));
    std::string name = td.context.value("mbbench_experiment_name", std::string());
    if (name.empty()) name = fs::path(timing_dir).lexically_normal().filename().string();
    const bool several = timing_dirs.size() > 1;
    claims_anchor.push_back(several ? plot_id(name) + "-timing-claims" : "timing-claims");
    for (auto t : timing_tables(td)) {
      if (several) {
        t.id = plot_id(name) + "-" + t.id;
        t.title = name + ": " + t.title;
      }
      timing.push_back(std::move(t));
    }
    const std::string line = timing_summary(td);
    timing_line += (timing_line.empty() ? "" : "; ") + (several ? name + ": " + line : line);
    for (auto& f : timing_figures(td, dir, several ? "timing-" + plot_id(name) : "timing",
                                  fmt::format("{}: time per step over model size, fitted exponents p", name)))
      figures.push_back(std::move(f));
    timing_md += '\n';
    timing_md += timing_markdown(td);
  }
  std::vector<const TimingData*> timing_data;
  for (const auto& td : analysed) timing_data.push_back(&td);
  const TextTable verdicts = verdict_table(outcomes(d, timing_data), claims_anchor);
  write_file_atomic((fs::path(dir) / "tables.md").string(), markdown_tables(d, &verdicts) + timing_md);
  write_file_atomic((fs::path(dir) / "records.csv").string(), records_csv(d));
  std::string html = (fs::path(dir) / "report.html").string();
  write_file_atomic(html, report_html(d, figures, dir, timing, timing_line, verdicts));
  return html;
}

}  // namespace mb
