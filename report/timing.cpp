// The timing report (bender2007 Fig. 4): the Markdown tables and the log-log plot of what
// analyse_timing() (analysis/timing.cpp) computed.
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "core/io.hpp"
#include "report/report.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

const TimingPoint* point(const TimingData& d, const std::string& spec, int joints) {
  for (const auto& s : d.series)
    if (s.spec == spec)
      for (const auto& p : s.points)
        if (p.joints == joints && p.error.empty() && p.repetitions > 0) return &p;
  return nullptr;
}
std::optional<double> paper_ms(const Paper& p, const std::string& spec, int joints) {
  for (const auto& t : p.timings)
    if (t.method == spec && t.joints == joints && t.quantity == "step") return t.ms;
  return std::nullopt;
}
std::string cell(std::optional<double> x, const char* f = "{:.3g}") {
  return x ? fmt::format(fmt::runtime(f), *x) : std::string("-");
}

}  // namespace

std::string timing_markdown(const TimingData& d) {
  std::string o;
  o += "## Time per step (bender2007 Fig. 4)\n\n";
  o += fmt::format("Ratios are to `{}` measured in the same run. Median over the repetitions (min..max).\n\n", d.reference);
  if (d.paper) {
    const Paper& p = *d.paper;
    o += "### Beside the paper's times (s.6)\n\n";
    std::string machine;
    for (const auto& [k, v] : p.context)
      if (k == "machine") machine = v;
    o += fmt::format("Paper: {}. Ours: {}. The speed-up is the paper's time over ours (context only; the\n"
                     "comparison is the ratio to linear).\n\n",
                     machine.empty() ? "?" : machine, d.context.value("host_name", std::string("this machine")));
    o += "| method | joints | quantity | paper ms | paper / linear | ours ms | ours / linear | speed-up |\n";
    o += "|---|---|---|---|---|---|---|---|\n";
    for (const auto& t : p.timings) {
      const TimingPoint* ours = point(d, t.method, t.joints);
      const TimingPoint* lin = point(d, d.reference, t.joints);
      std::optional<double> pl = paper_ms(p, d.reference, t.joints);
      std::optional<double> ours_ms, ours_ratio;
      std::string q = t.quantity;
      if (ours) {
        if (t.quantity == "step") ours_ms = ours->median_ms;
        else if (t.quantity == "factorisation" && ours->phases_ms.count("factor_ms")) ours_ms = ours->phases_ms.at("factor_ms");
        else if (t.quantity.rfind("solve", 0) == 0 && ours->phases_ms.count("solve_ms")) {
          ours_ms = ours->phases_ms.at("solve_ms");
          q += " (ours: all iterations of a step)";
        }
      }
      if (ours && lin && t.quantity == "step") ours_ratio = ours->median_ms / lin->median_ms;
      std::optional<double> paper_ratio;
      if (pl && t.quantity == "step") paper_ratio = t.ms / *pl;
      std::optional<double> speed;
      if (ours_ms && *ours_ms > 0) speed = t.ms / *ours_ms;
      o += fmt::format("| {} | {} | {} | {:.2f} | {} | {} | {} | {} |\n", t.method, t.joints, q, t.ms, cell(paper_ratio, "{:.2f}"),
                       cell(ours_ms, "{:.3g}"), cell(ours_ratio, "{:.2f}"), speed ? fmt::format("{:.0f}x", *speed) : "-");
    }
    o += "\nThe paper's statements (s.6), with ours:\n\n| statement | ours |\n|---|---|\n";
    const double h_ms = 1000.0 / 30;
    for (const auto& c : p.claims) {
      std::string ours = "-";
      if (c.than.empty() && c.joints > 0) {
        if (const TimingPoint* x = point(d, c.method, c.joints))
          ours = fmt::format("{:.1f}x faster than real time ({:.3g} ms per 33.3 ms step)", h_ms / x->median_ms, x->median_ms);
      } else if (!c.than.empty()) {
        std::vector<std::string> parts;
        for (const auto& s : d.series)
          if (s.spec == c.method)
            for (const auto& pt : s.points) {
              if (c.joints > 0 && pt.joints != c.joints) continue;
              const TimingPoint* a = point(d, c.method, pt.joints);
              const TimingPoint* b = point(d, c.than, pt.joints);
              if (a && b) parts.push_back(fmt::format("{}: {:.2f}x", pt.joints, b->median_ms / a->median_ms));
            }
        if (!parts.empty()) {
          ours = fmt::format("time({}) / time({}) at joints ", c.than, c.method);
          for (size_t i = 0; i < parts.size(); ++i) ours += (i ? ", " : "") + parts[i];
        }
      }
      o += fmt::format("| {} | {} |\n", c.quote, ours);
    }
    o += "\n";
  }
  o += "### Every case\n\n| method | joints | ms per step | min..max | / linear | assembly | factor | solve | integration | sweeps p/v |\n";
  o += "|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& s : d.series)
    for (const auto& p : s.points) {
      if (!p.error.empty() || p.repetitions == 0) {
        o += fmt::format("| {} | {} | error: {} | | | | | | | |\n", s.spec, p.joints, p.error);
        continue;
      }
      const TimingPoint* lin = point(d, d.reference, p.joints);
      auto ph = [&](const char* k) { return p.phases_ms.count(k) ? fmt::format("{:.3g}", p.phases_ms.at(k)) : std::string("-"); };
      o += fmt::format("| {} | {} | {:.4g} | {:.4g}..{:.4g} | {} | {} | {} | {} | {} | {}/{} |\n", s.spec, p.joints, p.median_ms,
                       p.min_ms, p.max_ms, lin ? fmt::format("{:.2f}", p.median_ms / lin->median_ms) : "-", ph("assembly_ms"),
                       ph("factor_ms"), ph("solve_ms"), ph("integration_ms"), ph("pos_sweeps"), ph("vel_sweeps"));
    }
  o += "\n### Scaling exponents (least squares of log time on log joints)\n\n| method | exponent p | residual | joints |\n|---|---|---|---|\n";
  for (const auto& s : d.series)
    if (s.fit) o += fmt::format("| {} | {:.2f} | {:.3f} | {}..{} ({} sizes) |\n", s.spec, s.fit->order, s.fit->residual, s.fit_min, s.fit_max, s.fit->points);
  return o;
}

std::string write_timing_plot(const TimingData& d, const std::string& dir, std::string* note) {
  fs::path plots = fs::path(dir) / "plots";
  fs::create_directories(plots);
  std::string dat, gp;
  int idx = 0;
  std::string plot_cmd;
  for (const auto& s : d.series) {
    dat += fmt::format("# {}\n", s.spec);
    for (const auto& p : s.points)
      if (p.error.empty() && p.repetitions > 0) dat += fmt::format("{} {:.9g}\n", p.joints, p.median_ms);
    dat += "\n\n";
    std::string title = s.spec + (s.fit ? fmt::format(" (p = {:.2f})", s.fit->order) : "");
    plot_cmd += fmt::format("{}'timing.dat' index {} with linespoints title \"{}\"", idx ? ", \\\n  " : "", idx, title);
    ++idx;
  }
  gp = "set terminal svg size 900,600 dynamic\nset output 'timing.svg'\nset logscale xy\n"
       "set xlabel 'joints'\nset ylabel 'time per step [ms]'\nset key left top font ',9'\n"
       "set title 'Time per step over tree size (bender2007 Fig. 4), fitted exponents'\nplot " +
       plot_cmd + "\n";
  write_file_atomic((plots / "timing.dat").string(), dat);
  write_file_atomic((plots / "timing.gp").string(), gp);
  const std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    if (note) *note = "gnuplot not found: plots/timing.gp and timing.dat written, not drawn";
    return "";
  }
  std::string cmd = fmt::format("cd '{}' && '{}' timing.gp 2> timing.log", plots.string(), gnuplot);
  if (std::system(cmd.c_str()) != 0) {
    if (note) *note = "gnuplot failed: see plots/timing.log";
    return "";
  }
  return (plots / "timing.svg").string();
}

}  // namespace mb
