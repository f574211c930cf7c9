#include "runners/lib/timing.hpp"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "methods/method.hpp"

namespace mb {

using nlohmann::json;
namespace fs = std::filesystem;

TimingExperiment read_timing_experiment(const std::string& path) {
  toml::table root = read_toml_file(path);
  TableReader r(root, path, "",
                {"name", "kind", "description", "reproduces", "paper", "model", "joints", "h", "repetitions", "min_time",
                 "reference", "method"});
  TimingExperiment e;
  e.file = path;
  e.name = r.str("name");
  if (r.str("kind") != "timing") r.fail("kind", "a timing experiment has kind = \"timing\"");
  if (r.str("model", "tree") != "tree") r.fail("model", "only the tree of bender2007 (tree:joints=J) is timed");
  e.description = r.str("description", "");
  e.reproduces = r.str("reproduces", "");
  if (r.has("paper")) e.paper = (fs::path(path).parent_path() / r.str("paper")).lexically_normal().string();
  for (double j : r.numbers("joints")) {
    int ji = static_cast<int>(j);
    if (ji != j || ji < 1 || ((ji + 1) & ji) != 0) r.fail("joints", fmt::format("{} is not 2^k - 1", j));
    e.joints.push_back(ji);
  }
  if (e.joints.empty()) r.fail("joints", "at least one tree size");
  e.h = r.positive("h");
  e.repetitions = static_cast<int>(r.num("repetitions", 9));
  if (e.repetitions < 1) r.fail("repetitions", "at least 1");
  e.min_time = r.num("min_time", 0.1);
  e.reference = r.str("reference");
  auto ms = r.tables("method");
  for (size_t i = 0; i < ms.size(); ++i) {
    TableReader m(*ms[i], path, fmt::format("method[{}]", i), {"spec", "max_joints"});
    TimingMethod tm{m.str("spec"), static_cast<int>(m.num("max_joints", e.joints.back()))};
    try {
      make_method(tm.spec, path, m.line());
    } catch (const InputError&) {
      throw;
    }
    e.methods.push_back(tm);
  }
  bool has_ref = false;
  for (const auto& m : e.methods) has_ref = has_ref || m.spec == e.reference;
  if (!has_ref) r.fail("reference", fmt::format("'{}' is not one of the [[method]] specs", e.reference));
  return e;
}

std::vector<std::pair<std::string, int>> timing_cases(const TimingExperiment& e) {
  std::vector<std::pair<std::string, int>> out;
  for (const auto& m : e.methods) {
    std::set<int> sizes;
    for (int j : e.joints)
      if (j <= m.max_joints) sizes.insert(j);
    for (int j = e.joints.back(); j <= m.max_joints; j = 2 * j + 1) sizes.insert(j);
    for (int j : sizes) out.emplace_back(m.spec, j);
  }
  return out;
}

std::string timing_case_name(const std::string& spec, int joints) { return fmt::format("step/{}/tree:joints={}", spec, joints); }

namespace {

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

double to_ms(double t, const std::string& unit) {
  if (unit == "ns") return t * 1e-6;
  if (unit == "us") return t * 1e-3;
  if (unit == "s") return t * 1e3;
  return t;
}

}  // namespace

TimingData analyse_timing(const json& bench, const std::string& reference, const std::optional<Paper>& paper) {
  TimingData d;
  d.reference = reference;
  d.paper = paper;
  d.context = bench.value("context", json::object());
  struct Acc {
    std::vector<double> t;
    std::map<std::string, std::vector<double>> phases;
    std::string error;
  };
  std::map<std::pair<std::string, int>, Acc> acc;
  std::vector<std::string> order;
  const std::vector<std::string> phase_keys = {"assembly_ms", "factor_ms", "solve_ms", "integration_ms", "pos_sweeps", "vel_sweeps"};
  for (const auto& b : bench.value("benchmarks", json::array())) {
    if (b.value("run_type", "iteration") != "iteration") continue;
    std::string name = b.value("run_name", b.value("name", ""));
    if (name.rfind("step/", 0) != 0) continue;
    size_t k = name.find("/tree:joints=");
    if (k == std::string::npos) continue;
    std::string spec = name.substr(5, k - 5);
    int joints = std::atoi(name.c_str() + k + 13);
    if (std::find(order.begin(), order.end(), spec) == order.end()) order.push_back(spec);
    Acc& a = acc[{spec, joints}];
    if (b.value("error_occurred", false)) {
      a.error = b.value("error_message", "error");
      continue;
    }
    a.t.push_back(to_ms(b.value("real_time", 0.0), b.value("time_unit", "ns")));
    for (const auto& p : phase_keys)
      if (b.contains(p)) a.phases[p].push_back(b[p].get<double>());
  }
  for (const auto& spec : order) {
    TimingSeries s;
    s.spec = spec;
    std::vector<double> n, t;
    for (const auto& [key, a] : acc) {
      if (key.first != spec) continue;
      TimingPoint p;
      p.joints = key.second;
      p.error = a.error;
      p.repetitions = static_cast<int>(a.t.size());
      if (!a.t.empty()) {
        p.median_ms = median(a.t);
        p.min_ms = *std::min_element(a.t.begin(), a.t.end());
        p.max_ms = *std::max_element(a.t.begin(), a.t.end());
        for (const auto& [ph, v] : a.phases) p.phases_ms[ph] = median(v);
        n.push_back(p.joints);
        t.push_back(p.median_ms);
      }
      s.points.push_back(p);
    }
    std::sort(s.points.begin(), s.points.end(), [](const auto& x, const auto& y) { return x.joints < y.joints; });
    if (n.size() >= 2) {
      s.fit = least_squares_fit(n, t);
      s.fit_min = static_cast<int>(*std::min_element(n.begin(), n.end()));
      s.fit_max = static_cast<int>(*std::max_element(n.begin(), n.end()));
    }
    d.series.push_back(std::move(s));
  }
  return d;
}

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
  std::string gnuplot;
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  for (std::string p; std::getline(ss, p, ':');)
    if (::access((fs::path(p.empty() ? "." : p) / "gnuplot").c_str(), X_OK) == 0) {
      gnuplot = (fs::path(p.empty() ? "." : p) / "gnuplot").string();
      break;
    }
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
