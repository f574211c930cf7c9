// The analysis stage: published values, series, fits, compared rows with their verdicts,
// findings, provenance summary.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>


#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/spec.hpp"
#include "core/toml_reader.hpp"
#include "analysis/analysis.hpp"
#include "metrics/registry.hpp"

namespace mb {


Paper read_paper(const std::string& path) {
  toml::table root = read_toml_file(path);
  // files of another kind are named as such before their keys read as unknown fields
  if (root.contains("kind") || (root.contains("models") && root.contains("methods")))
    throw InputError(path, 0, "", "this is an experiment file, not published values: run it with `mbbench sweep` (`mbbench bench` "
                                  "for kind = \"timing\"); --paper takes a file of results/paper/");
  bool sections = false;
  for (const char* k : {"table", "figure", "timing", "claim", "speedup", "percent", "run", "matrices"}) sections = sections || root.contains(k);
  if (!sections)
    throw InputError(path, 0, "table", "this paper file has no tables a report sets beside records ([[table]], [[figure]], "
                                       "[[timing]], [[claim]], [[speedup]], [[percent]], [[run]] or [matrices]); the tests citing it read its values");
  // [[count]], [[statement]] and [figure3]: values the tests compare with (tests/tomcin2014_test.cpp), not the report
  TableReader r(root, path, "", {"citation", "title", "fit", "table", "figure", "context", "timing", "claim", "speedup", "percent", "run",
                                 "count", "statement", "figure3", "settings", "matrices", "speeds", "eigenvalues"});
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
  if (r.has("settings")) {
    TableReader st(*r.subtable("settings"), path, "settings", {"duration", "h_min", "h_max", "source"});
    p.settings = PaperSettings{st.positive("duration"), st.positive("h_min"), st.positive("h_max"), st.str("source")};
  }
  // [eigenvalues]: Table 2 (b), which the tests compare with; the report takes the matrices' own
  if (r.has("matrices")) {
    TableReader mt(*r.subtable("matrices"), path, "matrices", {"source", "M", "C1", "K0", "K2"});
    PaperLinear l;
    l.source = mt.str("source", "");
    auto matrix = [&](const char* key) {
      const std::vector<double> x = mt.numbers(key, 4);
      Eigen::Matrix2d m;
      m << x[0], x[1], x[2], x[3];
      return m;
    };
    l.matrices.M = matrix("M");
    l.matrices.C1 = matrix("C1");
    l.matrices.K0 = matrix("K0");
    l.matrices.K2 = matrix("K2");
    if (const toml::table* c = root["context"].as_table()) l.matrices.g = TableReader(*c, path, "context", {"g", "coordinates"}).num("g", 9.81);
    if (!r.has("speeds")) r.fail("speeds", "published matrices need their [speeds] (weave, capsize)");
    TableReader sp(*r.subtable("speeds"), path, "speeds", {"source", "weave", "capsize", "weave_imag"});
    l.weave_speed = sp.positive("weave");
    l.capsize_speed = sp.positive("capsize");
    p.linear = std::move(l);
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
    TableReader t(*claims[i], path, fmt::format("claim[{}]", i), {"method", "than", "joints", "relation", "factor", "source", "quote", "model", "experiment"});
    PaperClaim pc{t.str("method"), t.str("than", ""), t.str("relation"), t.str("source"), t.str("quote"),
                  static_cast<int>(t.num("joints", 0)), t.num("factor", 0), t.str("model", ""), t.str("experiment", "")};
    p.claims.push_back(std::move(pc));
  }
  auto speedups = r.tables("speedup");
  for (size_t i = 0; i < speedups.size(); ++i) {
    TableReader t(*speedups[i], path, fmt::format("speedup[{}]", i), {"method", "label", "best", "worst", "average", "source", "quote", "experiment"});
    p.speedups.push_back({t.str("method"), t.str("label", ""), t.str("source"), t.str("quote", ""), t.str("experiment", ""),
                          t.positive("best"), t.positive("worst"), t.positive("average")});
  }
  auto percents = r.tables("percent");
  for (size_t i = 0; i < percents.size(); ++i) {
    TableReader t(*percents[i], path, fmt::format("percent[{}]", i),
                  {"figure", "method", "what", "model", "variant", "percent", "source", "quote", "reading", "experiment"});
    PaperPercent pp{t.str("figure"), t.str("method"), t.choice("what", {"average", "best", "worst"}, "average"), t.str("model", ""),
                    t.str("variant", ""), t.str("source"), t.str("quote"), t.str("reading", ""), t.str("experiment", ""),
                    t.positive("percent")};
    p.percents.push_back(std::move(pp));
  }
  auto runs = r.tables("run");
  for (size_t i = 0; i < runs.size(); ++i) {
    TableReader t(*runs[i], path, fmt::format("run[{}]", i),
                  {"experiment", "model", "method", "paper_method", "h", "duration", "tc_ms", "metric", "error_max", "error", "source"});
    PaperRun pr{t.str("experiment"), t.str("model"), t.str("method"), t.str("paper_method"), t.str("metric"),
                t.str("source"), t.positive("h"), t.positive("duration"), t.positive("tc_ms"), std::nullopt, std::nullopt};
    if (t.has("error_max") == t.has("error")) t.fail("error", "give the published error either as a bound (error_max) or as a value (error)");
    if (t.has("error_max")) pr.error_max = t.positive("error_max");
    else pr.error = t.positive("error");
    p.runs.push_back(std::move(pr));
  }
  return p;
}

const char* to_string(RunComparison::Verdict v) {
  switch (v) {
    case RunComparison::Verdict::Within: return "below the bound";
    case RunComparison::Verdict::Exceeds: return "above the bound";
    case RunComparison::Verdict::NoBound: return "no bound published";
    case RunComparison::Verdict::Failed: return "failed";
    case RunComparison::Verdict::NotRun: return "not run";
  }
  return "?";
}

std::vector<RunComparison> compare_runs(const std::vector<CaseRecord>& records, const std::vector<PaperRun>& runs,
                                        const std::vector<std::string>& metrics) {
  std::set<std::string> experiments;
  for (const auto& r : records)
    if (r.experiment) experiments.insert(r.experiment->name);
  std::vector<RunComparison> out;
  for (const PaperRun& p : runs) {
    if (!experiments.count(p.experiment)) continue;
    RunComparison c;
    c.paper = p;
    const CaseRecord* ours = nullptr;
    for (const auto& r : records)
      if (r.model.spec == p.model && r.method.spec == p.method && std::abs(r.h_requested - p.h) <= 1e-9 * p.h &&
          std::abs(r.duration - p.duration) <= 1e-9 * p.duration)
        ours = &r;
    if (ours) {
      const double tc = p.tc_ms / 1e3;
      if (ours->timing.step_seconds_total > 0) {
        c.step_s = ours->timing.step_seconds_total;
        c.step_ratio = *c.step_s / tc;
      }
      if (ours->timing.cpu_seconds_total > 0) {
        c.cpu_s = ours->timing.cpu_seconds_total;
        c.cpu_ratio = *c.cpu_s / tc;
      }
      c.error = ours->metrics.get(p.metric);
      if (c.error && p.error) c.error_ratio = *c.error / *p.error;
      for (const auto& m : metrics)
        if (m != p.metric)
          if (auto v = ours->metrics.get(m)) c.metrics.emplace_back(m, *v);
      if (!ours->ok()) {
        c.verdict = RunComparison::Verdict::Failed;
        c.note = ours->reason;
      } else if (!c.error) {
        c.verdict = RunComparison::Verdict::Failed;
        c.note = "no value of " + p.metric;
      } else if (!p.error_max) {
        c.verdict = RunComparison::Verdict::NoBound;
      } else {
        c.verdict = c.error && *c.error < *p.error_max ? RunComparison::Verdict::Within : RunComparison::Verdict::Exceeds;
      }
    }
    out.push_back(std::move(c));
  }
  return out;
}

const char* to_string(Verdict v) {
  switch (v) {
    case Verdict::Reproduced: return "reproduced";
    case Verdict::Differs: return "differs";
    case Verdict::NoPublishedValue: return "no published value";
    case Verdict::NoFit: return "no fit";
    case Verdict::NotRun: return "not run";
  }
  return "?";
}

Comparison compare_fit(const SeriesFit& f, const std::optional<PaperRow>& p) {
  Comparison c;
  c.ours = f.two_point;
  c.paper = p;
  if (!f.two_point) {
    c.verdict = Verdict::NoFit;
    c.note = f.two_point_note;
    return c;
  }
  if (!p) {
    c.verdict = Verdict::NoPublishedValue;
    return c;
  }
  c.order_diff = f.two_point->order - p->order;
  c.factor_ratio = f.two_point->factor / p->factor;
  // the paper prints orders to 2 decimals: compare ours rounded the same way
  const bool ok = std::abs(std::round(f.two_point->order * 100) / 100 - p->order) <= kOrderTolerance + 1e-9 &&
                  std::abs(c.factor_ratio - 1) <= kFactorTolerance;
  c.verdict = ok ? Verdict::Reproduced : Verdict::Differs;
  return c;
}

namespace {

std::string readings_text(const CaseRecord& r) { return fmt::format("steps={} ld={}", r.readings.steps, r.readings.ld_periods); }
// a method spec's registered name ("name:key=value" -> "name")
std::string method_name(const std::string& spec) { return spec.substr(0, spec.find(':')); }

// the same case (whatever experiment ran it): model, method, h, duration and readings
std::string content_key(const CaseRecord& r) {
  return fmt::format("{}|{}|{}|{}|{}", r.model.spec, r.method.spec, r.h_requested, r.duration, readings_text(r));
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

ProvenanceSummary provenance_summary(const std::vector<CaseRecord>& recs, long failed, long unsupported) {
  ProvenanceSummary p;
  p.records = static_cast<long>(recs.size());
  p.failed = failed;
  p.unsupported = unsupported;
  std::map<std::string, ProvenanceSummary::Exp> experiments;
  for (const auto& r : recs) {
    p.git_commits.insert(r.provenance.git_commit);
    p.build_types.insert(r.provenance.build_type);
    p.compilers.insert(r.provenance.compiler);
    p.flags.insert(r.provenance.flags);
    p.cpus.insert(r.provenance.cpu);
    p.versions.insert(r.provenance.mbbench);
    const std::string& d = r.provenance.date;
    if (p.first_date.empty() || d < p.first_date) p.first_date = d;
    if (d > p.last_date) p.last_date = d;
    if (r.experiment) experiments[r.experiment->name] = {r.experiment->name, r.experiment->file, r.experiment->reproduces};
  }
  for (auto& [k, v] : experiments) p.experiments.push_back(v);
  return p;
}

FitH other(FitH f) { return f == FitH::Simulated ? FitH::Nominal : FitH::Simulated; }

Finding find_closest(const ReportData& d, const ComparedRow& r) {
  Finding fd;
  fd.row = &r;
  const PaperTable& t = *r.table;
  fd.main_reading = fmt::format("{}, fit h {}", r.ours->readings, to_string(r.ours->fit_h));
  double best = 1e300;
  fd.order_min = fd.ratio_min = 1e300;
  fd.order_max = fd.ratio_max = -1e300;
  for (const auto& s : d.series) {
    if (s.model != t.model || s.metric != t.metric || s.method != r.method) continue;
    for (const SeriesFit* f : {&s.fit, &s.fit_other}) {
      const Comparison c = compare_fit(*f, r.paper);
      if (!c.ours) continue;
      const FitH fh = f == &s.fit ? s.fit_h : other(s.fit_h);
      const double score = std::abs(c.order_diff) / kOrderTolerance + std::abs(std::log(c.factor_ratio)) / kFactorTolerance;
      ++fd.tried;
      if (c.verdict == Verdict::Reproduced) ++fd.reproduced;
      fd.order_min = std::min(fd.order_min, c.ours->order), fd.order_max = std::max(fd.order_max, c.ours->order);
      fd.ratio_min = std::min(fd.ratio_min, c.factor_ratio), fd.ratio_max = std::max(fd.ratio_max, c.factor_ratio);
      if (score < best) {
        best = score;
        fd.closest_reading = fmt::format("{}, fit h {}", s.readings, to_string(fh));
        fd.closest = *c.ours;
        fd.closest_ratio = c.factor_ratio;
      }
    }
  }
  return fd;
}

}  // namespace

ReportData analyse(std::vector<CaseRecord> records, const std::optional<Paper>& paper) {
  ReportData d;
  d.paper = paper;
  // one record per case content, in the order given (merge/sweep order)
  std::set<std::string> seen;
  for (auto& r : records)
    if (seen.insert(content_key(r)).second) d.records.push_back(std::move(r));
  for (const auto& r : d.records) {
    d.failed += r.status == Status::Failed;
    d.unsupported += r.status == Status::Unsupported;
  }

  // the metrics asked for (records without an experiment: the paper's)
  for (const auto& r : d.records) {
    std::vector<std::string> ms = paper_metrics();
    if (r.experiment) ms = r.experiment->metrics;
    for (const auto& m : ms)
      if (std::find(d.metrics.begin(), d.metrics.end(), m) == d.metrics.end()) d.metrics.push_back(m);
  }

  // group records into series: model x method x readings, then one series per metric
  using Key = std::tuple<std::string, std::string, std::string>;
  std::map<Key, std::vector<const CaseRecord*>> groups;
  std::vector<Key> order;
  for (const auto& r : d.records) {
    Key key{r.model.spec, r.method.spec, readings_text(r)};
    if (!groups.count(key)) order.push_back(key);
    groups[key].push_back(&r);
  }
  for (const auto& key : order) {
    auto& rs = groups[key];
    std::sort(rs.begin(), rs.end(), [](const CaseRecord* a, const CaseRecord* b) { return a->h < b->h; });
    const CaseRecord& r0 = *rs.front();
    for (const auto& metric : d.metrics) {
      Series s;
      std::tie(s.model, s.method, s.readings) = key;
      s.metric = metric;
      if (r0.experiment) {
        const ExperimentRef& e = *r0.experiment;
        s.primary = e.readings_primary;
        s.fit_h = fit_h_from(e.fit_h);
        s.fit_h1 = e.fit_h1;
        s.fit_h2 = e.fit_h2;
      }
      bool any = false, value = false, ok_case = false;
      std::string why;  // the records' note when the metric has no value
      for (const CaseRecord* r : rs) {
        if (r->metrics.get(metric)) value = true;
        if (r->ok()) ok_case = true;
        else if (const std::string* n = r->metrics.note_of(metric); n && why.empty()) why = *n;
        s.duration = std::max(s.duration, r->duration);
        SeriesPoint p;
        p.h_nominal = r->h_requested;
        p.h = r->h;
        p.failed = !r->ok();
        p.unsupported = r->status == Status::Unsupported;
        if (auto w = r->metrics.get(metric)) {
          p.w = *w;
          any = true;
        }
        if (p.failed) {
          s.failures.push_back(fmt::format("h={:.6g}: {}{} at t = {:.6g} s", p.h, r->status == Status::Unsupported ? "unsupported: " : "",
                                           r->reason, r->fail_time));
          any = true;
        }
        s.points.push_back(p);
      }
      // not applicable (e.g. LD of a model without a period): no value in any case, and a case that
      // finished without it or a note saying why; a series whose every case failed stays a series
      if (!value && (ok_case || !why.empty())) {
        if (why.empty())
          why = metric_needs(metric, kNeedsPeriod) && !r0.model.period
                    ? "the model has no known period (LD is measured at whole periods)"
                    : "no case of this model records it";
        auto it = std::find_if(d.not_applicable.begin(), d.not_applicable.end(),
                               [&](const NotApplicable& x) { return x.model == s.model && x.metric == metric && x.reason == why; });
        if (it == d.not_applicable.end()) d.not_applicable.push_back({s.model, metric, why, static_cast<int>(rs.size())});
        else it->cases += static_cast<int>(rs.size());
        continue;
      }
      if (!any) continue;
      s.fit = fit_series(s.points, s.fit_h1, s.fit_h2, s.fit_h);
      s.fit_other = fit_series(s.points, s.fit_h1, s.fit_h2, other(s.fit_h));
      pair_fits(s);
      d.series.push_back(std::move(s));
    }
  }

  // over a method option: model x (spec without the option) x h x metric, by the option's value
  for (const auto& r : d.records) {
    if (!r.experiment || r.experiment->x_option.empty() || !r.experiment->readings_primary) continue;
    const std::string& option = r.experiment->x_option;
    const Spec spec = Spec::parse(r.method.spec, "method");
    const std::optional<double> x = option_number(spec, option);
    if (!x) continue;
    const std::string base = spec_without(spec, option);
    for (const auto& metric : r.experiment->metrics) {
      auto it = std::find_if(d.option_series.begin(), d.option_series.end(), [&](const OptionSeries& o) {
        return o.model == r.model.spec && o.method == base && o.metric == metric && o.h == r.h;
      });
      if (it == d.option_series.end()) {
        d.option_series.push_back({r.model.spec, base, option, metric, r.h, {}});
        it = d.option_series.end() - 1;
      }
      it->points.push_back({*x, !r.ok(), r.metrics.get(metric)});
    }
  }
  for (auto& o : d.option_series)
    std::stable_sort(o.points.begin(), o.points.end(), [](const auto& a, const auto& b) { return a.x < b.x; });

  // every row of the paper's tables beside our primary series; then our methods it does not list
  if (d.paper)
    for (const auto& t : d.paper->tables) {
      std::set<std::string> listed;
      for (const auto& row : t.rows) {
        listed.insert(row.method);
        bool found = false;
        for (const auto& s : d.series)
          if (s.primary && s.model == t.model && s.metric == t.metric && method_name(s.method) == row.method) {
            d.rows.push_back({&t, s.method, row, &s, compare_fit(s.fit, row), ""});
            found = true;
          }
        if (!found) d.rows.push_back({&t, row.method, row, nullptr, Comparison{std::nullopt, row, 0, 0, Verdict::NotRun, ""}, ""});
      }
      for (const auto& s : d.series)
        if (s.primary && s.model == t.model && s.metric == t.metric && !listed.count(method_name(s.method)))
          d.rows.push_back({&t, s.method, std::nullopt, &s, compare_fit(s.fit, std::nullopt), ""});
    }

  // the rows whose series ran other settings than the paper's: said beside the verdict
  if (d.paper && d.paper->settings)
    for (auto& r : d.rows) {
      if (!r.ours || r.ours->points.empty()) continue;
      const PaperSettings& ps = *d.paper->settings;
      std::vector<std::string> diff;
      if (std::abs(r.ours->duration - ps.duration) > 1e-9 * ps.duration)
        diff.push_back(fmt::format("{:g} s, the paper's {:g} s", r.ours->duration, ps.duration));
      double lo = r.ours->points.front().h_nominal, hi = lo;
      for (const auto& p : r.ours->points) lo = std::min(lo, p.h_nominal), hi = std::max(hi, p.h_nominal);
      if (lo > ps.h_min * (1 + 1e-9) || hi < ps.h_max * (1 - 1e-9))
        diff.push_back(fmt::format("h {:g}..{:g}, the paper's {:g}..{:g}", lo, hi, ps.h_min, ps.h_max));
      r.settings_differ = fmt::format("{}", fmt::join(diff, "; "));
    }

  // findings and readings: every reading of the rows the paper publishes
  if (d.paper) {
    for (const auto& r : d.rows) {
      if (!r.ours || !r.paper) continue;
      Finding f = find_closest(d, r);
      if (f.tried) d.findings.push_back(f);
    }
    for (const auto& t : d.paper->tables)
      for (const auto& s : d.series) {
        if (s.model != t.model || s.metric != t.metric) continue;
        std::optional<PaperRow> p;
        for (const auto& r : t.rows)
          if (r.method == method_name(s.method)) p = r;
        for (const SeriesFit* f : {&s.fit, &s.fit_other})
          d.readings.push_back({&t, &s, f == &s.fit ? s.fit_h : other(s.fit_h), f, compare_fit(*f, p)});
      }
  }
  d.provenance = provenance_summary(d.records, d.failed, d.unsupported);
  d.work_precision = work_precision(d.records);
  d.contacts = contact_timing(d.records);
  if (d.paper) d.runs = compare_runs(d.records, d.paper->runs, d.metrics);
  if (d.paper && d.paper->linear) d.modes = analyse_modes(d.records, *d.paper->linear);
  return d;
}

std::vector<ContactTiming> contact_timing(const std::vector<CaseRecord>& records) {
  std::vector<ContactTiming> out;
  for (const CaseRecord& r : records) {
    if (r.stats.contacts_max <= 0 || r.steps_done <= 0) continue;
    ContactTiming c;
    c.model = r.model.spec;
    c.method = r.method.spec;
    c.h = r.h;
    c.steps = r.steps_done;
    c.contacts_max = r.stats.contacts_max;
    c.step_ms = 1e3 * r.timing.step_seconds_total / static_cast<double>(r.steps_done);
    c.contact_ms = 1e3 * r.timing.contact / static_cast<double>(r.steps_done);
    c.share = c.step_ms > 0 ? c.contact_ms / c.step_ms : 0.0;
    c.measured = r.timing.contact > 0;
    out.push_back(c);
  }
  return out;
}

}  // namespace mb
