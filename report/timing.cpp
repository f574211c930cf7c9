// The timing report (bender2007 Fig. 4 and every timing experiment): the tables (TextTable, rendered as Markdown in timing.md
// and as HTML tables in report.html) and the log-log plot of what analyse_timing()
// (analysis/timing.cpp) computed. Formatting only: every ratio, speed-up and claim value comes
// from the analysis.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/io.hpp"
#include "records/counters.hpp"
#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

std::string opt(const std::optional<double>& x, std::string (*f)(double), const char* missing) {
  return x ? f(*x) : std::string(missing);
}
std::string ratio_text(double x) { return sig3(x); }
std::string times_text(double x) { return sig3(x) + "x"; }

// a counter's median at a point (3 digits), or n/a
std::string counter_cell(const TimingPoint& p, const char* name) {
  auto it = p.counters.find(name);
  return it == p.counters.end() ? std::string("n/a") : sig3(it->second);
}

std::string claim_text(const ClaimCheck& c, double h_ms) {
  if (c.values.empty()) return c.note;
  std::string s;
  for (const auto& v : c.values) {
    if (!s.empty()) s += "; ";
    switch (c.kind) {
      case ClaimCheck::Kind::RealTime:
        s += fmt::format("{} joints: {} faster than real time ({} ms per {} ms step)", v.joints, times_text(v.value), sig3(v.ms),
                         sig3(h_ms));
        break;
      case ClaimCheck::Kind::Relative:
        s += fmt::format("{} joints: time({}) / time({}) = {}", v.joints, v.other, c.claim.method, sig3(v.value));
        break;
      case ClaimCheck::Kind::Slowest:
        s += fmt::format("{} joints: {} ({} ms, {} the next slowest, {})", v.joints, v.slowest ? "slowest" : "not the slowest",
                         sig3(v.ms), times_text(v.value), v.other);
        break;
    }
  }
  return s;
}

}  // namespace

std::string timing_summary(const TimingData& d) {
  std::string s = fmt::format("timing: {} series timed", d.series.size());
  if (!d.beside_paper.empty()) {
    long measured = 0;
    for (const auto& c : d.beside_paper) measured += c.ours_ms.has_value();
    s += fmt::format("; {} of the paper's {} published times measured beside ours", measured, d.beside_paper.size());
  }
  if (!d.claims.empty()) {
    auto count = [&](ClaimCheck::Verdict v) { return std::count_if(d.claims.begin(), d.claims.end(), [&](const auto& c) { return c.verdict == v; }); };
    s += fmt::format("; the paper's {} statements: {} agree, {} contradicted, {} not measured", d.claims.size(),
                     count(ClaimCheck::Verdict::Agrees), count(ClaimCheck::Verdict::Contradicts), count(ClaimCheck::Verdict::NotMeasured));
  }
  return s;
}

std::vector<TextTable> timing_tables(const TimingData& d) {
  std::vector<TextTable> out;
  if (d.paper && !d.beside_paper.empty()) {
    TextTable t;
    t.id = "timing-paper";
    t.title = "Time per step beside the paper's (bender2007 s.6, Fig. 4)";
    t.caption = fmt::format(
        "Paper: {}. Ours: {}. Ratios are to {} measured in the same run (the paper's ratios to its own linear-time "
        "method beside them); the speed-up is the paper's time over ours, context only (another machine). Times in ms, "
        "medians over the repetitions; the paper's as printed.",
        d.paper_machine.empty() ? "machine not given" : d.paper_machine,
        d.context.value("mbbench_cpu", d.context.value("host_name", std::string("this machine"))), d.reference);
    t.header = {"method", "joints", "quantity", "paper ms", "paper / linear", "ours ms", "ours / linear", "speed-up"};
    for (const auto& c : d.beside_paper) {
      const bool step = c.paper.quantity == "step";
      t.rows.push_back({c.paper.method, std::to_string(c.paper.joints),
                        c.paper.quantity + (c.ours_differs ? " (ours: all iterations of a step)" : ""),
                        fmt::format("{:.2f}", c.paper.ms), step ? opt(c.paper_ratio, ratio_text, "not published") : "n/a (part of a step)",
                        opt(c.ours_ms, sig3, "not measured"),
                        step ? opt(c.ours_ratio, ratio_text, "not measured") : "n/a (part of a step)",
                        opt(c.speedup, times_text, "not measured")});
    }
    out.push_back(std::move(t));
  }
  if (d.paper) {
    TextTable cl;
    cl.id = "timing-claims";
    cl.title = fmt::format("The paper's statements with our numbers ({})", d.paper->citation);
    cl.caption = fmt::format("Real time: the simulated {} ms of one step (the paper's h). Relative statements: our ratio of the "
                             "two methods' times per step, measured in the same run. The verdict (docs/metrics.md#timing) applies the test "
                             "the statement's wording names: at least, more than, below, or within a factor of 1.25 for "
                             "'about', 'almost' and 'nearly'.",
                             sig3(d.h_ms));
    cl.header = {"statement (" + d.paper->citation + ")", "verdict", "method", "ours", "test"};
    for (const auto& c : d.claims) {
      const std::string style = c.verdict == ClaimCheck::Verdict::Agrees ? "ok" : c.verdict == ClaimCheck::Verdict::Contradicts ? "bad" : "na";
      cl.rows.push_back({c.claim.quote, Cell(to_string(c.verdict), style), series_label(c.claim.method, c.claim.model),
                         claim_text(c, d.h_ms), c.rule});
    }
    if (!cl.rows.empty()) out.push_back(std::move(cl));
  }
  if (d.variants) {
    // bayer2009 Table 1: speed-ups over the cases beside the published summary
    TextTable sp;
    sp.id = "timing-speedup";
    sp.title = "Speed-up over every case beside the paper's summary";
    sp.caption = fmt::format("Speed-up = the time of {} / the method's time, with the same variants and size, measured in the "
                             "same run; best, worst and the mean over the cases. The paper's beside it where it publishes one.",
                             d.reference);
    sp.header = {"method", "cases", "best", "worst", "average", "paper", "paper best", "paper worst", "paper average", "our best case",
                 "our worst case"};
    for (const auto& s : d.speedups)
      sp.rows.push_back({s.base, std::to_string(s.cases), sig3(s.best), sig3(s.worst), sig3(s.average), s.paper ? s.paper->label : "-",
                         s.paper ? sig3(s.paper->best) : "-", s.paper ? sig3(s.paper->worst) : "-", s.paper ? sig3(s.paper->average) : "-",
                         s.best_case, s.worst_case});
    out.push_back(std::move(sp));
    if (!d.percents.empty()) {
      TextTable pc;
      pc.id = "timing-percent";
      pc.title = "Runtime in percent of the reference beside the paper's";
      pc.caption = fmt::format("Ours: 100 x the method's time / the time of {} with the same variants, measured in the same run; "
                               "over the cases the paper's statement selects (model and method variant; all where it names none): "
                               "the mean (average), the smallest (best) or the largest (worst).",
                               d.reference);
      pc.header = {"figure", "method", "what", "model", "variant", "paper %", "ours %", "cases", "our case"};
      for (const auto& c : d.percents)
        pc.rows.push_back({c.paper.figure, c.paper.method, c.paper.what, c.paper.model.empty() ? "all" : c.paper.model,
                           c.paper.variant.empty() ? "all" : c.paper.variant, fmt::format("{:g}", c.paper.percent),
                           c.ours ? fmt::format("{:.0f}", *c.ours) : "not measured", std::to_string(c.cases), c.our_case});
      out.push_back(std::move(pc));
    }
    // every case: percent of the reference per method (bayer2009 Figures 2 and 3 as a table)
    TextTable g;
    g.id = "timing-variants";
    g.title = "Every case in percent of the reference";
    g.caption = fmt::format("Per model variant, method variant and size: the reference's median time per step (ms) and each "
                            "method's in percent of it, measured in the same run.");
    std::vector<std::string> bases;
    for (const auto& s : d.series)
      if (s.base != d.reference && std::find(bases.begin(), bases.end(), s.base) == bases.end()) bases.push_back(s.base);
    g.header = {"model", "variant", "size", d.reference + " ms/step"};
    for (const auto& b : bases) g.header.push_back(b + " %");
    for (const auto& ref : d.series) {
      if (ref.base != d.reference) continue;
      for (const auto& p : ref.points) {
        std::vector<Cell> row = {ref.model_variant.empty() ? "-" : ref.model_variant,
                                        ref.method_variant.empty() ? "-" : ref.method_variant, std::to_string(p.joints),
                                        p.error.empty() ? sig3(p.median_ms) : "error"};
        for (const auto& b : bases) {
          std::string cell = "n/a";
          for (const auto& s : d.series)
            if (s.base == b && s.model_variant == ref.model_variant && s.method_variant == ref.method_variant)
              for (const auto& q : s.points)
                if (q.joints == p.joints) cell = q.ratio ? fmt::format("{:.0f}", 100 * *q.ratio) : (q.error.empty() ? "n/a" : "error");
          row.push_back(cell);
        }
        g.rows.push_back(std::move(row));
      }
    }
    out.push_back(std::move(g));
  }
  TextTable all;
  all.id = "timing-cases";
  all.title = "Every timing case";
  auto ctx = [&](const char* k) {
    std::string v = d.context.value(std::string("mbbench_") + k, std::string("not recorded"));
    v.erase(0, v.find_first_not_of(' '));
    return v;
  };
  all.caption = fmt::format("Median time per step over the repetitions (min..max), its ratio to {} at the same size, the "
                            "phase split (ms, medians) and the correction sweeps per step (position / velocity). Timed by "
                            "mbbench {} (git commit {}), {} build, {}, flags {}, on {}, {}.",
                            d.reference, ctx("mbbench"), ctx("git_commit"), ctx("build_type"), ctx("compiler"), ctx("flags"),
                            ctx("cpu"), ctx("date"));
  all.header = {"method", "size", "ms per step", "min..max", "/ " + d.reference, "assembly", "factor", "solve", "integration", "sweeps p/v"};
  for (const auto& s : d.series)
    for (const auto& p : s.points) {
      if (!p.error.empty() || p.repetitions == 0) {
        const std::string why = "failed: " + (p.error.empty() ? std::string("no repetition") : p.error);
        all.rows.push_back({s.spec, std::to_string(p.joints), Cell(why, "bad"), "n/a", "n/a", "n/a", "n/a", "n/a", "n/a", "n/a"});
        continue;
      }
      all.rows.push_back({s.spec, std::to_string(p.joints), sig3(p.median_ms), fmt::format("{}..{}", sig3(p.min_ms), sig3(p.max_ms)),
                          opt(p.ratio, ratio_text, "not measured"), counter_cell(p, counter::assembly_ms),
                          counter_cell(p, counter::factor_ms), counter_cell(p, counter::solve_ms), counter_cell(p, counter::integration_ms),
                          fmt::format("{}/{}", counter_cell(p, counter::pos_sweeps), counter_cell(p, counter::vel_sweeps))});
    }
  out.push_back(std::move(all));

  // the structure of the factored system, where a method reports it (tomcin2014 Fig. 6)
  TextTable st;
  st.id = "timing-structure";
  st.title = "The factored system";
  st.caption = "Constraint rows nC of the model, the structural off-diagonal nonzeros of one half of A = J M^-1 J^T "
               "(nnz of its lower triangle minus its diagonal), the nonzeros of CHOLMOD's factor L (AMD ordering) and the "
               "portion of L that is fill-in, (nnz L - nnz lower A) / nnz L.";
  st.header = {"method", "size", "rows nC", "off-diagonal (half of A)", "nnz L", "fill-in portion"};
  for (const auto& s : d.series)
    for (const auto& p : s.points) {
      auto a = p.counters.find(counter::nnz_a), l = p.counters.find(counter::nnz_l), r = p.counters.find(counter::rows);
      if (a == p.counters.end() || l == p.counters.end() || r == p.counters.end() || !(l->second > 0)) continue;
      st.rows.push_back({s.spec, std::to_string(p.joints), fmt::format("{:.0f}", r->second), fmt::format("{:.0f}", a->second - r->second),
                         fmt::format("{:.0f}", l->second), fmt::format("{:.3f}", (l->second - a->second) / l->second)});
    }
  if (!st.rows.empty()) out.push_back(std::move(st));

  TextTable sc;
  sc.id = "timing-scaling";
  sc.title = "Scaling exponents";
  sc.caption = "Least squares of log time on log joints: time ~ c joints^p, with the RMS of the log residuals.";
  sc.header = {"method", "exponent p", "residual", "joints", "sizes"};
  // the series without a fit share one row per reason: their count and the sizes they measured
  std::vector<std::pair<std::string, std::pair<long, std::set<int>>>> no_fit;
  for (const auto& s : d.series) {
    if (s.fit) {
      sc.rows.push_back({s.spec, fmt::format("{:.2f}", s.fit->order), fmt::format("{:.3f}", s.fit->residual),
                         fmt::format("{}..{}", s.fit_min, s.fit_max), std::to_string(s.fit->points)});
    } else if (!s.fit_note.empty()) {
      auto it = std::find_if(no_fit.begin(), no_fit.end(), [&](const auto& x) { return x.first == s.fit_note; });
      if (it == no_fit.end()) it = no_fit.insert(no_fit.end(), {s.fit_note, {0, {}}});
      ++it->second.first;
      for (const auto& p : s.points)
        if (p.median_ms > 0) it->second.second.insert(p.joints);
    }
  }
  for (const auto& [note, what] : no_fit)
    sc.rows.push_back({Cell(what.first == 1 ? std::string("1 series") : fmt::format("{} series", what.first)), Cell("no fit: " + note, "na"),
                       Cell("n/a", "na"), Cell(what.second.empty() ? std::string("none") : fmt::format("{}", fmt::join(what.second, ", "))),
                       Cell(std::to_string(what.second.size()))});
  if (!sc.rows.empty()) out.push_back(std::move(sc));
  for (auto& t : out) uniform_columns(t);
  return out;
}

std::string timing_markdown(const TimingData& d) {
  std::string o = d.paper ? fmt::format("## Time per step ({})\n", d.paper->citation) : "## Time per step\n";
  for (const auto& t : timing_tables(d)) {
    o += "\n";
    o += markdown_table(t, "###");
  }
  return o;
}

std::vector<Figure> timing_figures(const TimingData& d, const std::string& dir, const std::string& id, const std::string& title) {
  fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  Figure fig;
  fig.id = id;
  fig.title = title;
  std::vector<Line> lines;
  std::set<int> sizes;
  for (const auto& s : d.series) {
    Line l;
    l.label = s.spec;
    l.title = s.spec + (s.fit ? fmt::format(" (p = {:.2f})", s.fit->order) : "");
    for (const auto& p : s.points) {
      if (!p.error.empty()) l.failed_x.push_back(p.joints), sizes.insert(p.joints);
      else if (p.repetitions > 0 && p.median_ms > 0) l.xy.emplace_back(p.joints, p.median_ms), sizes.insert(p.joints);
    }
    lines.push_back(std::move(l));
  }
  if (sizes.empty()) {
    fig.note = "no timing case was measured";
    return {fig};
  }
  if (sizes.size() == 1) {
    fig.note = fmt::format("one model size measured ({}): the times are in the table of every timing case", *sizes.begin());
    return {fig};
  }
  // a tic at each size measured (a log axis over one decade has one labelled tic otherwise)
  std::string settings = "set autoscale fix\nset offsets graph 0.06, graph 0.06, graph 0.1, graph 0.1\nset format x '%g'\n";
  if (sizes.size() <= 12) {
    std::string xtics;
    for (int j : sizes) xtics += fmt::format("{}{}", xtics.empty() ? "set xtics (" : ", ", j);
    settings += xtics + ")\n";
  }
  return draw_lines(fig, lines, "joints", "time per step [ms]", settings, plots.string(), find_gnuplot());
}

std::string write_timing_plot(const TimingData& d, const std::string& dir, std::string* note, const std::string& id) {
  const auto figures = timing_figures(d, dir, id,
                                      d.paper ? fmt::format("Time per step over model size ({}), fitted exponents p", d.paper->citation)
                                              : "Time per step over model size, fitted exponents p");
  for (const auto& f : figures)
    if (!f.svg_file.empty()) return (fs::path(dir) / f.svg_file).string();
  if (note) *note = figures.empty() ? "no timing case was measured" : figures.front().note;
  return "";
}

}  // namespace mb
