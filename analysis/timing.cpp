#include "analysis/timing.hpp"

#include "core/stats.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "methods/method.hpp"
#include "records/counters.hpp"

namespace mb {

using nlohmann::json;
namespace fs = std::filesystem;

std::string timing_size_option(const std::string& family) {
  return family == "tree" ? "joints" : family == "chain" ? "n" : "";
}

std::string timing_model_spec(const std::string& family, int joints, const std::string& size, const std::string& variant) {
  return fmt::format("{}:{}{}{}={}", family, variant, variant.empty() ? "" : ",", size.empty() ? timing_size_option(family) : size, joints);
}

std::string timing_case_name(const std::string& spec, int joints, const std::string& family, const std::string& size,
                             const std::string& variant) {
  return fmt::format("step/{}/{}", spec, timing_model_spec(family, joints, size, variant));
}

std::string with_options(const std::string& spec, const std::string& options) {
  if (options.empty()) return spec;
  return spec + (spec.find(':') == std::string::npos ? ":" : ",") + options;
}

std::string series_label(const std::string& spec, const std::string& model_variant) {
  return model_variant.empty() ? spec : spec + " @ " + model_variant;
}

const char* to_string(ClaimCheck::Verdict v) {
  switch (v) {
    case ClaimCheck::Verdict::Agrees: return "agrees";
    case ClaimCheck::Verdict::Contradicts: return "contradicts";
    case ClaimCheck::Verdict::NotMeasured: return "not measured";
  }
  return "?";
}

ClaimCheck::Test claim_test(const std::string& relation) {
  using T = ClaimCheck::Test;
  auto has = [&](const char* w) { return relation.find(w) != std::string::npos; };
  if (has("slowest")) return T::Slowest;
  if (relation.rfind("not ", 0) == 0) return T::Below;
  if (has("the same")) return T::Same;
  if (has("more than")) return T::Above;
  if (has("about") || has("almost") || has("nearly")) return T::About;
  return T::AtLeast;
}

namespace {

double to_ms(double t, const std::string& unit) {
  if (unit == "ns") return t * 1e-6;
  if (unit == "us") return t * 1e-3;
  if (unit == "s") return t * 1e3;
  return t;
}

// The band of an approximate statement ("about", "almost", "nearly"): a factor of 1.25 either way.
constexpr double kAboutBand = 1.25;

// The verdict of a statement over its values, and its test as text.
void judge(ClaimCheck& c) {
  using T = ClaimCheck::Test;
  const double f = c.claim.factor > 0 ? c.claim.factor : 1.0;
  const bool real_time = c.kind == ClaimCheck::Kind::RealTime;
  const std::string value = real_time ? "h / time" : c.kind == ClaimCheck::Kind::Relative ? "time(" + c.claim.than + ") / time(" + c.claim.method + ")"
                                                                                         : "";
  auto pass = [&](const ClaimCheck::Value& v) {
    switch (c.test) {
      case T::Slowest: return v.slowest;
      case T::Below: return v.value < f;
      case T::Above: return v.value > f;
      case T::Same: return v.value >= 1 / kAboutBand && v.value <= kAboutBand;
      case T::About: return v.value >= f / kAboutBand && (real_time || v.value <= f * kAboutBand);
      case T::AtLeast: return v.value >= f;
    }
    return false;
  };
  const std::string g = fmt::format("{:g}", f), lo = fmt::format("{:g}", f / kAboutBand), hi = fmt::format("{:g}", f * kAboutBand);
  switch (c.test) {
    case T::Slowest: c.rule = "slower than every other method measured"; break;
    case T::Below: c.rule = fmt::format("{} < {}", value, g); break;
    case T::Above: c.rule = fmt::format("{} > {}", value, g); break;
    case T::Same: c.rule = fmt::format("{} within {:g}..{:g}", value, 1 / kAboutBand, kAboutBand); break;
    case T::About:
      c.rule = real_time ? fmt::format("{} >= {} (a faster machine only raises it)", value, lo) : fmt::format("{} within {}..{}", value, lo, hi);
      break;
    case T::AtLeast: c.rule = fmt::format("{} >= {}", value, g); break;
  }
  c.rule += c.claim.joints > 0 ? fmt::format(", at {} joints", c.claim.joints) : ", at every size measured";
  if (c.values.empty()) {
    c.verdict = ClaimCheck::Verdict::NotMeasured;
    return;
  }
  c.verdict = std::all_of(c.values.begin(), c.values.end(), pass) ? ClaimCheck::Verdict::Agrees : ClaimCheck::Verdict::Contradicts;
}

// a measured point of `spec` at `joints` (no error, at least one repetition), or nullptr
const TimingPoint* measured(const TimingData& d, const std::string& spec, int joints) {
  for (const auto& s : d.series)
    if (s.spec == spec)
      for (const auto& p : s.points)
        if (p.joints == joints && p.error.empty() && p.repetitions > 0) return &p;
  return nullptr;
}

std::optional<double> paper_step_ms(const Paper& p, const std::string& spec, int joints) {
  for (const auto& t : p.timings)
    if (t.method == spec && t.joints == joints && t.quantity == "step") return t.ms;
  return std::nullopt;
}

// the sizes at which `spec` was measured
std::vector<int> sizes_of(const TimingData& d, const std::string& spec) {
  std::vector<int> v;
  for (const auto& s : d.series)
    if (s.spec == spec)
      for (const auto& p : s.points)
        if (p.error.empty() && p.repetitions > 0) v.push_back(p.joints);
  return v;
}

// the speed-up of every base method over the cases (bayer2009 Table 1)
void summarise_speedups(TimingData& d) {
  std::vector<std::string> bases;
  for (const auto& s : d.series)
    if (s.base != d.reference && std::find(bases.begin(), bases.end(), s.base) == bases.end()) bases.push_back(s.base);
  for (const auto& base : bases) {
    SpeedupSummary sum;
    sum.base = base;
    double total = 0;
    for (const auto& s : d.series) {
      if (s.base != base) continue;
      for (const auto& p : s.points) {
        if (!p.ratio || !(*p.ratio > 0)) continue;
        const double x = 1 / *p.ratio;
        const std::string where =
            fmt::format("{}{}{}", s.model_variant, s.model_variant.empty() || s.method_variant.empty() ? "" : ", ", s.method_variant);
        if (sum.cases == 0 || x > sum.best) sum.best = x, sum.best_case = where;
        if (sum.cases == 0 || x < sum.worst) sum.worst = x, sum.worst_case = where;
        total += x;
        ++sum.cases;
      }
    }
    if (sum.cases > 0) sum.average = total / sum.cases;
    d.speedups.push_back(std::move(sum));
  }
}

// our percent of the reference over the cases a published percent names
PercentCheck check_percent(const TimingData& d, const PaperPercent& pp) {
  PercentCheck c;
  c.paper = pp;
  double total = 0, pick = 0;
  for (const auto& s : d.series) {
    if (s.base != pp.method || (!pp.model.empty() && s.model_variant != pp.model) || (!pp.variant.empty() && s.method_variant != pp.variant))
      continue;
    for (const auto& p : s.points) {
      if (!p.ratio) continue;
      const double x = 100 * *p.ratio;
      const bool better = pp.what == "best" ? x < pick : x > pick;
      if (c.cases == 0 || better) {
        pick = x;
        c.our_case = fmt::format("{}{}{}", s.model_variant, s.model_variant.empty() || s.method_variant.empty() ? "" : ", ", s.method_variant);
      }
      total += x;
      ++c.cases;
    }
  }
  if (c.cases == 0) return c;
  // a named case: ours at that case (averaged over what the paper leaves open); else the aggregate
  c.ours = pp.what == "average" || !pp.model.empty() ? total / c.cases : pick;
  if (!pp.model.empty() || pp.what == "average") c.our_case.clear();
  return c;
}

// every published time beside ours, and every published statement with our numbers
void compare_with_paper(TimingData& d, const Paper& p) {
  // an entry tied to another experiment is not compared with this one's cases
  const std::string experiment = d.context.value("mbbench_experiment_name", std::string());
  auto here = [&](const std::string& e) { return e.empty() || e == experiment; };
  for (auto& sum : d.speedups)
    for (const auto& ps : p.speedups)
      if (ps.method == sum.base && here(ps.experiment)) sum.paper = ps;
  for (const auto& pp : p.percents)
    if (here(pp.experiment)) d.percents.push_back(check_percent(d, pp));
  for (const auto& [k, v] : p.context) {
    if (k == "machine") d.paper_machine = v;
    if (k == "h") d.h_ms = 1000.0 * std::strtod(v.c_str(), nullptr);
  }
  if (!(d.h_ms > 0)) d.h_ms = 1000.0 / 30;
  for (const auto& t : p.timings) {
    TimingComparison c;
    c.paper = t;
    const TimingPoint* ours = measured(d, t.method, t.joints);
    const TimingPoint* ref = measured(d, d.reference, t.joints);
    if (ours) {
      if (t.quantity == "step") {
        c.ours_ms = ours->median_ms;
      } else if (t.quantity == "factorisation" && ours->counters.count(counter::factor_ms)) {
        c.ours_ms = ours->counters.at(counter::factor_ms);
      } else if (t.quantity.rfind("solve", 0) == 0 && ours->counters.count(counter::solve_ms)) {
        c.ours_ms = ours->counters.at(counter::solve_ms);
        c.ours_differs = true;  // ours: every iteration of a step
      }
    }
    if (t.quantity == "step") {
      if (auto pl = paper_step_ms(p, d.reference, t.joints)) c.paper_ratio = t.ms / *pl;
      if (ours && ref && ref->median_ms > 0) c.ours_ratio = ours->median_ms / ref->median_ms;
    }
    if (c.ours_ms && *c.ours_ms > 0) c.speedup = t.ms / *c.ours_ms;
    d.beside_paper.push_back(std::move(c));
  }
  for (const auto& claim : p.claims) {
    if (!here(claim.experiment)) continue;
    ClaimCheck c;
    c.claim = claim;
    c.test = claim_test(claim.relation);
    const bool slowest = claim.than.empty() && c.test == ClaimCheck::Test::Slowest;
    c.kind = !claim.than.empty() ? ClaimCheck::Kind::Relative : slowest ? ClaimCheck::Kind::Slowest : ClaimCheck::Kind::RealTime;
    const std::string label = series_label(claim.method, claim.model);
    for (int j : sizes_of(d, label)) {
      if (claim.joints > 0 && j != claim.joints) continue;
      const TimingPoint* a = measured(d, label, j);
      ClaimCheck::Value v;
      v.joints = j;
      v.ms = a->median_ms;
      if (c.kind == ClaimCheck::Kind::RealTime) {
        if (!(a->median_ms > 0)) continue;
        v.value = d.h_ms / a->median_ms;
      } else if (c.kind == ClaimCheck::Kind::Relative) {
        const TimingPoint* b = measured(d, series_label(claim.than, claim.model), j);
        if (!b || !(a->median_ms > 0)) continue;
        v.value = b->median_ms / a->median_ms;
        v.other = claim.than;
      } else {
        // the slowest other method measured at this size
        double next = 0;
        for (const auto& s : d.series) {
          if (s.spec == label || s.model_variant != claim.model) continue;
          if (const TimingPoint* b = measured(d, s.spec, j); b && b->median_ms > next) {
            next = b->median_ms;
            v.other = s.spec;
          }
        }
        if (!(next > 0)) continue;
        v.value = a->median_ms / next;
        v.slowest = v.value > 1;
      }
      c.values.push_back(v);
    }
    judge(c);
    if (c.values.empty())
      c.note = claim.than.empty() ? fmt::format("not measured in this run ({}{})", claim.method,
                                                claim.joints ? fmt::format(" at {} joints", claim.joints) : "")
                                  : fmt::format("not measured in this run ({} and {}{})", claim.method, claim.than,
                                                claim.joints ? fmt::format(" at {} joints", claim.joints) : "");
    d.claims.push_back(std::move(c));
  }
}

}  // namespace

TimingData analyse_timing(const json& bench, const std::string& reference, const std::optional<Paper>& paper) {
  TimingData d;
  d.reference = reference;
  d.paper = paper;
  d.context = bench.value("context", json::object());
  struct Acc {
    std::vector<double> t;
    std::map<std::string, std::vector<double>> counters;  // by counter name (records/counters.hpp)
    std::string error;
  };
  std::map<std::pair<std::string, int>, Acc> acc;
  std::vector<std::string> order;
  std::map<std::string, std::pair<std::string, std::string>> variant_of;  // label -> method, model variant
  // the experiment's method variants ("vc=off;vc=on"), to tell a method spec's base from its variant
  {
    const std::string mv = d.context.value("mbbench_method_variants", std::string());
    for (size_t a = 0; a < mv.size();) {
      size_t b = mv.find(';', a);
      if (b == std::string::npos) b = mv.size();
      d.method_variants.push_back(mv.substr(a, b - a));
      a = b + 1;
    }
  }
  for (const auto& b : bench.value("benchmarks", json::array())) {
    if (b.value("run_type", "iteration") != "iteration") continue;
    std::string name = b.value("run_name", b.value("name", ""));
    if (name.rfind("step/", 0) != 0) continue;
    // step/<spec>/<family>:<size>=<N>[/<Google Benchmark's suffixes>]: the spec (no '/' in it), and
    // the size from the model's last '='
    const size_t k = name.find('/', 5);
    if (k == std::string::npos) continue;
    const size_t end = name.find('/', k + 1);
    const std::string model = name.substr(k + 1, end == std::string::npos ? std::string::npos : end - k - 1);
    const size_t eq = model.rfind('=');
    if (eq == std::string::npos) continue;
    // family:[variant,]size=N
    const size_t colon = model.find(':'), comma = model.rfind(',');
    const std::string variant =
        colon != std::string::npos && comma != std::string::npos && comma > colon ? model.substr(colon + 1, comma - colon - 1) : "";
    const std::string method = name.substr(5, k - 5);
    const std::string spec = series_label(method, variant);
    variant_of[spec] = {method, variant};
    int joints = std::atoi(model.c_str() + eq + 1);
    if (std::find(order.begin(), order.end(), spec) == order.end()) order.push_back(spec);
    Acc& a = acc[{spec, joints}];
    if (b.value("error_occurred", false)) {
      a.error = b.value("error_message", "error");
      continue;
    }
    a.t.push_back(to_ms(b.value("real_time", 0.0), b.value("time_unit", "ns")));
    for (const CounterInfo& c : counter_catalog())
      if (b.contains(c.name)) a.counters[c.name].push_back(b[c.name].get<double>());
  }
  for (const auto& spec : order) {
    TimingSeries s;
    s.spec = spec;
    s.method = variant_of[spec].first;
    s.model_variant = variant_of[spec].second;
    s.base = s.method;
    for (const auto& v : d.method_variants) {
      const std::string tail = v.empty() ? "" : (s.method.size() > v.size() ? s.method.substr(s.method.size() - v.size() - 1) : "");
      if (!v.empty() && (tail == ":" + v || tail == "," + v)) {
        s.method_variant = v;
        s.base = s.method.substr(0, s.method.size() - v.size() - 1);
      }
    }
    d.variants = d.variants || !s.model_variant.empty() || !s.method_variant.empty();
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
        for (const auto& [name, v] : a.counters) p.counters[name] = median(v);
        n.push_back(p.joints);
        t.push_back(p.median_ms);
      }
      s.points.push_back(p);
    }
    std::sort(s.points.begin(), s.points.end(), [](const auto& x, const auto& y) { return x.joints < y.joints; });
    // an exponent from two sizes has no residual to judge it by: three sizes at least
    if (n.size() >= 3) {
      s.fit = least_squares_fit(n, t);
      s.fit_min = static_cast<int>(*std::min_element(n.begin(), n.end()));
      s.fit_max = static_cast<int>(*std::max_element(n.begin(), n.end()));
    } else if (!n.empty()) {
      s.fit_note = fmt::format("not fitted: {} size{} measured, an exponent needs 3", n.size(), n.size() == 1 ? "" : "s");
    }
    d.series.push_back(std::move(s));
  }
  // ratios to the reference measured in the same run (with the same variants)
  for (auto& s : d.series) {
    const std::string ref_label = series_label(with_options(d.reference, s.method_variant), s.model_variant);
    for (auto& p : s.points)
      if (const TimingPoint* ref = measured(d, ref_label, p.joints); ref && p.error.empty() && p.repetitions > 0 && ref->median_ms > 0)
        p.ratio = p.median_ms / ref->median_ms;
  }
  if (d.variants) summarise_speedups(d);
  if (paper) compare_with_paper(d, *paper);
  return d;
}

json parse_bench_json(const std::string& in, const std::string& file) {
  // ": -nan", ": NaN", ": inf" ... (a value, after a colon) -> ": null"
  std::string out;
  out.reserve(in.size());
  for (size_t i = 0; i < in.size();) {
    out += in[i];
    if (in[i++] != ':') continue;
    size_t j = i;
    while (j < in.size() && in[j] == ' ') ++j;
    size_t k = j + (j < in.size() && in[j] == '-');
    size_t e = k;
    while (e < in.size() && std::isalpha(static_cast<unsigned char>(in[e]))) ++e;
    std::string word = in.substr(k, e - k);
    std::transform(word.begin(), word.end(), word.begin(), [](unsigned char c) { return std::tolower(c); });
    if (word == "nan" || word == "inf" || word == "infinity") {
      out += " null";
      i = e;
    }
  }
  try {
    return json::parse(out);
  } catch (const json::parse_error& e) {
    throw InputError(file, 0, "", fmt::format("not Google Benchmark JSON: {}", e.what()));
  }
}

TimingData analyse_bench_dir(const std::string& dir) {
  const fs::path file = fs::path(dir) / "bench.json";
  if (!is_file(file.string()))
    throw InputError("command line", 0, "timing",
                     fmt::format("no bench.json in '{}': run `mbbench bench EXPERIMENT --out {}` first", dir, dir));
  std::ifstream in(file);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const json bench = parse_bench_json(text, file.string());
  const json ctx = bench.value("context", json::object());
  const std::string reference = ctx.value("mbbench_reference", std::string());
  if (reference.empty())
    throw InputError(file.string(), 0, "context.mbbench_reference",
                     "missing: written by an older mbbench bench; run `mbbench bench` again");
  std::optional<Paper> paper;
  const std::string pf = ctx.value("mbbench_paper", std::string());
  if (!pf.empty()) paper = read_paper(pf);
  return analyse_timing(bench, reference, paper);
}

}  // namespace mb
