// The computing half of the report: published values, series, fits, compared rows, provenance.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include <fstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "runners/lib/report.hpp"
#include "runners/lib/sweep.hpp"

namespace mb {

using nlohmann::json;
namespace fs = std::filesystem;

Paper read_paper(const std::string& path) {
  toml::table root = read_toml_file(path);
  TableReader r(root, path, "", {"citation", "title", "fit", "table", "figure", "context", "timing", "claim"});
  Paper p;
  p.file = path;
  p.citation = r.str("citation");
  p.title = r.str("title", "");
  p.fit = r.str("fit", "");
  auto tables = r.tables("table");
  for (size_t i = 0; i < tables.size(); ++i) {
    TableReader t(*tables[i], path, fmt::format("table[{}]", i), {"model", "paper_model", "function", "metric", "source", "rows"});
    PaperTable pt{t.str("model"), t.str("paper_model"), t.str("function"), t.str("metric"), t.str("source"), {}};
    const toml::array& rows = t.array("rows");
    for (size_t k = 0; k < rows.size(); ++k) {
      const toml::table* rt = rows[k].as_table();
      std::string ctx = fmt::format("table[{}].rows[{}]", i, k);
      if (!rt) throw InputError(path, toml_line(rows[k]), ctx, "expected { method = ..., order = ..., factor = ... }");
      TableReader row(*rt, path, ctx, {"method", "order", "factor"});
      pt.rows.push_back({row.str("method"), row.num("order"), row.positive("factor")});
    }
    p.tables.push_back(std::move(pt));
  }
  auto figures = r.tables("figure");
  for (size_t i = 0; i < figures.size(); ++i) {
    TableReader f(*figures[i], path, fmt::format("figure[{}]", i), {"number", "model", "metric"});
    p.figures.push_back({f.str("number"), f.str("model"), f.str("metric")});
  }
  if (const toml::table* ctx = root["context"].as_table())
    for (const auto& [k, v] : *ctx) {
      if (auto s = v.value<std::string>()) p.context.emplace_back(std::string(k.str()), *s);
      else if (auto x = v.value<double>()) p.context.emplace_back(std::string(k.str()), fmt::format("{:.12g}", *x));
    }
  auto timings = r.tables("timing");
  for (size_t i = 0; i < timings.size(); ++i) {
    TableReader t(*timings[i], path, fmt::format("timing[{}]", i), {"method", "paper_method", "joints", "ms", "quantity", "source", "quote"});
    PaperTiming pt{t.str("method"), t.str("paper_method"), t.str("quantity"), t.str("source"), t.str("quote"),
                   static_cast<int>(t.num("joints")), t.positive("ms")};
    p.timings.push_back(std::move(pt));
  }
  auto claims = r.tables("claim");
  for (size_t i = 0; i < claims.size(); ++i) {
    TableReader t(*claims[i], path, fmt::format("claim[{}]", i), {"method", "than", "joints", "relation", "factor", "source", "quote"});
    PaperClaim pc{t.str("method"), t.str("than", ""), t.str("relation"), t.str("source"), t.str("quote"),
                  static_cast<int>(t.num("joints", 0)), t.num("factor", 0)};
    p.claims.push_back(std::move(pc));
  }
  return p;
}

namespace {

std::string readings_text(const json& r) {
  if (!r.contains("readings")) return "steps=floor ld=whole";
  return fmt::format("steps={} ld={}", r["readings"].value("steps", "floor"), r["readings"].value("ld_periods", "whole"));
}
std::string model_of(const json& r) {
  return r["model"].contains("spec") ? r["model"]["spec"].get<std::string>() : r["model"].value("name", "?");
}
std::string method_of(const json& r) { return r["method"].value("spec", "?"); }
// a method spec's registered name ("LMBS4:alpha=10" -> "LMBS4")
std::string method_name(const std::string& spec) { return spec.substr(0, spec.find(':')); }

// the same case (whatever experiment ran it): model, method, h, duration and readings
std::string content_key(const json& r) {
  return fmt::format("{}|{}|{}|{}|{}", model_of(r), method_of(r), r.value("h_requested", 0.0), r.value("duration", 0.0),
                     readings_text(r));
}

// two-point fits at every pair of grid points with the ratio h2 / h1
void pair_fits(Series& s) {
  const double ratio = s.fit_h2 / s.fit_h1;
  for (const auto& a : s.points)
    for (const auto& b : s.points) {
      if (std::abs(b.h_nominal / a.h_nominal - ratio) > 1e-9 * ratio) continue;
      if (a.failed || b.failed || !a.w || !b.w || !(*a.w > 0) || !(*b.w > 0)) continue;
      s.pair_fits.push_back(two_point_fit(a.h, *a.w, b.h, *b.w));
      s.pairs.emplace_back(a.h_nominal, b.h_nominal);
    }
}

json provenance_summary(const std::vector<json>& recs, long failed) {
  std::set<std::string> commits, builds, compilers, cpus, versions;
  std::map<std::string, json> experiments;
  std::string first, last;
  for (const auto& r : recs) {
    if (r.contains("provenance")) {
      const json& p = r["provenance"];
      commits.insert(p.value("git_commit", "?"));
      builds.insert(p.value("build_type", "?"));
      compilers.insert(p.value("compiler", "?"));
      cpus.insert(p.value("cpu", "?"));
      versions.insert(p.value("mbbench", "?"));
      std::string d = p.value("date", "");
      if (first.empty() || d < first) first = d;
      if (d > last) last = d;
    }
    if (r.contains("experiment"))
      experiments[r["experiment"].value("name", "")] = {{"name", r["experiment"].value("name", "")},
                                                        {"file", r["experiment"].value("file", "")},
                                                        {"reproduces", r["experiment"].value("reproduces", "")}};
  }
  json e = json::array();
  for (auto& [k, v] : experiments) e.push_back(v);
  return {{"records", recs.size()}, {"failed", failed}, {"experiments", e}, {"git_commits", commits},
          {"build_types", builds}, {"compilers", compilers}, {"cpus", cpus}, {"mbbench", versions},
          {"first_date", first}, {"last_date", last}};
}

}  // namespace

ReportData analyse(std::vector<json> records, const std::optional<Paper>& paper) {
  ReportData d;
  d.paper = paper;
  // one record per case content, in the order given (merge/sweep order)
  std::set<std::string> seen;
  for (auto& r : records)
    if (seen.insert(content_key(r)).second) d.records.push_back(std::move(r));
  for (const auto& r : d.records)
    if (r.value("status", "") != "ok") ++d.failed;

  // the metrics asked for (records without an experiment: the paper's)
  for (const auto& r : d.records) {
    std::vector<std::string> ms = {"ED", "EID", "LD", "CD_pos_mean"};
    if (r.contains("experiment")) ms = r["experiment"]["metrics"].get<std::vector<std::string>>();
    for (const auto& m : ms)
      if (std::find(d.metrics.begin(), d.metrics.end(), m) == d.metrics.end()) d.metrics.push_back(m);
  }

  // group records into series: model x method x readings, then one series per metric
  std::map<std::tuple<std::string, std::string, std::string>, std::vector<const json*>> groups;
  std::vector<std::tuple<std::string, std::string, std::string>> order;
  for (const auto& r : d.records) {
    auto key = std::make_tuple(model_of(r), method_of(r), readings_text(r));
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    auto& rs = groups[key];
    std::sort(rs.begin(), rs.end(), [](const json* a, const json* b) { return a->value("h", 0.0) < b->value("h", 0.0); });
    const json& r0 = *rs.front();
    for (const auto& metric : d.metrics) {
      Series s;
      std::tie(s.model, s.method, s.readings) = key;
      s.metric = metric;
      if (r0.contains("experiment")) {
        const json& e = r0["experiment"];
        s.primary = e.value("readings_primary", true);
        s.fit_h = fit_h_from(e["fit"].value("h", "simulated"));
        s.fit_h1 = e["fit"].value("h1", 0.005);
        s.fit_h2 = e["fit"].value("h2", 0.04);
      }
      bool any = false;
      for (const json* r : rs) {
        SeriesPoint p;
        p.h_nominal = r->value("h_requested", 0.0);
        p.h = r->value("h", 0.0);
        p.failed = r->value("status", "") != "ok";
        const json& m = (*r)["metrics"];
        if (m.contains(metric) && m[metric].is_number()) {
          p.w = m[metric].get<double>();
          any = true;
        }
        if (p.failed) {
          const json& f = (*r)["failure"];
          s.failures.push_back(fmt::format("h={:.6g}: {} at t = {:.6g} s", p.h, f.value("reason", "?"), f.value("t", 0.0)));
          any = true;
        }
        s.points.push_back(p);
      }
      if (!any) continue;  // e.g. LD of a model without a period
      s.fit = fit_series(s.points, s.fit_h1, s.fit_h2, s.fit_h);
      s.fit_other = fit_series(s.points, s.fit_h1, s.fit_h2, s.fit_h == FitH::Simulated ? FitH::Nominal : FitH::Simulated);
      pair_fits(s);
      d.series.push_back(std::move(s));
    }
  }

  // every row of the paper's tables beside our primary series; then our methods it does not list
  if (d.paper)
    for (const auto& t : d.paper->tables) {
      std::set<std::string> listed;
      for (const auto& row : t.rows) {
        listed.insert(row.method);
        bool found = false;
        for (const auto& s : d.series)
          if (s.primary && s.model == t.model && s.metric == t.metric && method_name(s.method) == row.method) {
            d.rows.push_back({&t, s.method, row, &s});
            found = true;
          }
        if (!found) d.rows.push_back({&t, row.method, row, nullptr});
      }
      for (const auto& s : d.series)
        if (s.primary && s.model == t.model && s.metric == t.metric && !listed.count(method_name(s.method)))
          d.rows.push_back({&t, s.method, std::nullopt, &s});
    }
  d.provenance = provenance_summary(d.records, d.failed);
  return d;
}

std::string write_report(const std::vector<std::string>& record_files, const std::string& dir, const std::string& paper_file,
                         const std::string& timing_dir) {
  auto records = read_records(record_files);
  if (records.empty()) throw InputError(record_files.front(), 0, "", "no records");
  // the published values: --paper, or the file the experiment names
  std::string pf = paper_file;
  for (const auto& r : records)
    if (pf.empty() && r.contains("experiment")) pf = r["experiment"].value("paper", "");
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
