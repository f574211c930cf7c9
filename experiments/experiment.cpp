#include "experiments/experiment.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/timing.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "methods/method.hpp"
#include "metrics/observer.hpp"
#include "models/catalog.hpp"

namespace mb {

namespace {

const std::vector<std::string> kTopKeys = {"name", "description", "reproduces", "paper", "models", "methods",
                                           "h", "duration", "metrics", "fit", "readings", "step_series",
                                           "x_option", "agree_with", "agree_time"};
const std::vector<std::string> kFitKeys = {"h1", "h2", "h"};
const std::vector<std::string> kReadingKeys = {"steps", "ld_periods"};

// rethrows a registry's error with this file's line and field
template <class F>
auto at_field(const std::string& file, int line, const std::string& field, F&& f) {
  try {
    return f();
  } catch (const InputError& e) {
    throw InputError(file, line, field, e.message);
  }
}

// the record metrics an experiment may name
std::vector<std::string> metric_names() {
  std::vector<std::string> v;
  for (const auto& m : metric_catalog())
    if (m.per_case) v.push_back(m.name);
  return v;
}

// [readings]: each key a string or an array of strings (swept)
template <class E>
std::vector<E> reading(const TableReader& r, const std::string& key, E (*from)(const std::string&), E fallback) {
  if (!r.has(key)) return {fallback};
  std::vector<E> v;
  for (const auto& s : r.string_or_strings(key)) {
    try {
      E x = from(s);
      if (std::find(v.begin(), v.end(), x) != v.end()) r.fail(key, fmt::format("\"{}\" listed twice", s));
      v.push_back(x);
    } catch (const std::invalid_argument& e) {
      r.fail(key, e.what());
    }
  }
  return v;
}

}  // namespace

Experiment parse_experiment(const std::string& text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  // a timing experiment has its own subcommand; its keys would read as unknown fields here
  if (const toml::node* k = root.get("kind"); k && k->value<std::string>() == "timing")
    throw InputError(file, toml_line(*k), "kind", fmt::format("this is a timing experiment: use `mbbench bench {}`", file));
  TableReader r(root, file, "", kTopKeys);
  Experiment e;
  e.file = file;
  e.hash = experiment_hash(text);
  e.name = r.str("name");
  if (e.name.empty() || e.name.find_first_of("/\\ ") != std::string::npos)
    r.fail("name", fmt::format("must be a non-empty name without '/', '\\\\' or spaces (it names a folder), got \"{}\"", e.name));
  e.description = r.str("description", "");
  e.reproduces = r.str("reproduces", "");
  if (r.has("paper")) {
    namespace fs = std::filesystem;
    const std::string paper = r.str("paper");
    if (paper.empty()) r.fail("paper", "must name a file (a path relative to the experiment file)");
    // absolute, so that records name it whatever folder they are read from
    fs::path p = fs::absolute(fs::path(file).parent_path() / paper);
    e.paper = p.lexically_normal().string();
    if (!is_file(e.paper)) r.fail("paper", fmt::format("no such file '{}'", e.paper));
  }

  // models and methods: every spec is built once here, so a bad one stops the sweep before any case
  std::vector<int> model_lines, method_lines;
  e.models = r.strings("models", &model_lines);
  e.methods = r.strings("methods", &method_lines);
  if (e.models.empty()) r.fail("models", "needs at least one model");
  if (e.methods.empty()) r.fail("methods", "needs at least one method");
  for (size_t i = 0; i < e.models.size(); ++i) {
    std::string field = fmt::format("models[{}]", i);
    if (std::find(e.models.begin(), e.models.begin() + i, e.models[i]) != e.models.begin() + i)
      throw InputError(file, model_lines[i], field, fmt::format("model '{}' listed twice", e.models[i]));
    // a scene path is relative to the experiment file's folder
    if (is_scene_path(e.models[i]) || e.models[i].find('/') != std::string::npos) {
      const std::filesystem::path p = std::filesystem::path(e.models[i]);
      if (p.is_relative()) e.models[i] = (std::filesystem::path(file).parent_path() / p).lexically_normal().string();
    }
    e.built.push_back(at_field(file, model_lines[i], field, [&] { return build_shared_model(e.models[i], file, model_lines[i]); }));
  }
  for (size_t i = 0; i < e.methods.size(); ++i) {
    std::string field = fmt::format("methods[{}]", i);
    if (std::find(e.methods.begin(), e.methods.begin() + i, e.methods[i]) != e.methods.begin() + i)
      throw InputError(file, method_lines[i], field, fmt::format("method '{}' listed twice", e.methods[i]));
    at_field(file, method_lines[i], field, [&] { return make_method(e.methods[i], file, method_lines[i]); });
  }

  // step sizes and duration
  if (r.has("h")) {
    e.h = r.numbers("h");
    if (e.h.empty()) r.fail("h", "needs at least one step size (or leave it out for each model's grid)");
    const toml::array& a = r.array("h");
    for (size_t i = 0; i < e.h.size(); ++i) {
      if (!(e.h[i] > 0))
        throw InputError(file, toml_line(a[i]), fmt::format("h[{}]", i), fmt::format("step size must be positive, got {}", e.h[i]));
      // a repeated step would be two cases with one id
      if (std::find(e.h.begin(), e.h.begin() + static_cast<long>(i), e.h[i]) != e.h.begin() + static_cast<long>(i))
        throw InputError(file, toml_line(a[i]), fmt::format("h[{}]", i), fmt::format("step size {} listed twice", e.h[i]));
    }
  }
  if (r.has("duration")) e.duration = r.positive("duration");
  e.step_series = r.boolean("step_series", false);
  // x_option: a numeric method option some of the methods set, the figures' x axis
  e.x_option = r.str("x_option", "");
  if (r.has("x_option")) {
    long with = 0;
    for (const auto& m : e.methods) {
      const Spec spec = Spec::parse(m, "method", file);
      if (!spec.has(e.x_option)) continue;
      ++with;
      if (!option_number(spec, e.x_option))
        r.fail("x_option", fmt::format("method '{}' sets {} to a value that is not a number", m, e.x_option));
    }
    if (with == 0) r.fail("x_option", fmt::format("no method sets the option '{}'", e.x_option));
  }

  // metrics
  std::vector<int> metric_lines;
  e.metrics = r.strings("metrics", &metric_lines);
  if (e.metrics.empty()) r.fail("metrics", "needs at least one metric");
  const auto valid = metric_names();
  for (size_t i = 0; i < e.metrics.size(); ++i)
    if (std::find(valid.begin(), valid.end(), e.metrics[i]) == valid.end())
      throw InputError(file, metric_lines[i], fmt::format("metrics[{}]", i),
                       fmt::format("unknown metric '{}'; valid metrics: {}", e.metrics[i], fmt::join(valid, ", ")));

  // agree_with, agree_time: the other method of agree_err (its run is checked by every case's plan below)
  if (r.has("agree_with")) {
    e.agree_with = r.str("agree_with");
    at_field(file, r.at(r.need("agree_with")), "agree_with", [&] { return make_method(e.agree_with, file, r.at(r.need("agree_with"))); });
  }
  if (r.has("agree_time")) e.agree_time = r.positive("agree_time");
  for (size_t i = 0; i < e.metrics.size(); ++i)
    if (metric_needs(e.metrics[i], kNeedsOtherRun) && e.agree_with.empty())
      throw InputError(file, metric_lines[i], "agree_with",
                       fmt::format("metric '{}' needs agree_with = \"METHOD\", the method spec to compare with", e.metrics[i]));

  // [fit]
  if (const toml::table* ft = r.subtable("fit")) {
    TableReader f(*ft, file, "fit", kFitKeys);
    e.fit_h1 = f.has("h1") ? f.positive("h1") : e.fit_h1;
    e.fit_h2 = f.has("h2") ? f.positive("h2") : e.fit_h2;
    if (e.fit_h1 == e.fit_h2) f.fail("h2", "h1 and h2 must differ");
    e.fit_h = fit_h_from(f.choice("h", fit_h_names(), "simulated"));
  }
  // [readings]
  if (const toml::table* rt = r.subtable("readings")) {
    TableReader rr(*rt, file, "readings", kReadingKeys);
    e.steps = reading<StepCount>(rr, "steps", step_count_from, StepCount::Floor);
    e.ld_periods = reading<LdPeriods>(rr, "ld_periods", ld_periods_from, LdPeriods::Whole);
  }

  // every step of every model must plan (e.g. not longer than the duration)
  for (const Case& c : expand_cases(e)) {
    size_t mi = std::find(e.models.begin(), e.models.end(), c.model) - e.models.begin();
    size_t hi = 0;
    while (hi < e.h.size() && e.h[hi] != c.h_nominal) ++hi;
    int line = e.h.empty() ? model_lines[mi] : toml_line(r.array("h")[hi]);
    std::string field = e.h.empty() ? fmt::format("models[{}]", mi) : fmt::format("h[{}]", hi);
    const StepPlan plan = at_field(file, line, field, [&] { return plan_steps(*c.built, c.cfg); });
    if (!c.cfg.agree_with.empty() && (e.agree_time > plan.duration * (1 + 1e-12) || e.agree_time < plan.h * (1 - 1e-12)))
      r.fail("agree_time", fmt::format("{} s is not within [h, duration] = [{}, {}] s of {}", e.agree_time, plan.h, plan.duration, c.id));
  }
  return e;
}

Experiment read_experiment(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open experiment file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_experiment(ss.str(), path);
}

std::string experiment_hash(const std::string& text) {
  std::uint64_t h = 14695981039346656037ull;  // FNV-1a 64
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:016x}", h);
}

SharedModel build_shared_model(const std::string& spec, const std::string& source, int line) {
  return std::make_shared<const Model>(load_model(spec, source, line));
}

std::vector<Case> expand_cases(const Experiment& e) {
  std::vector<Case> cases;
  for (size_t mi = 0; mi < e.models.size(); ++mi) {
    const std::string& model_spec = e.models[mi];
    // built by parse_experiment; an Experiment put together otherwise has its models built here
    const SharedModel model = mi < e.built.size() && e.built[mi] ? e.built[mi] : build_shared_model(model_spec);
    // each model's own grid unless the experiment gives one
    std::vector<double> grid = e.h.empty() ? model->info.h_grid : e.h;
    for (const auto& method : e.methods)
      for (StepCount steps : e.steps)
        for (LdPeriods ld : e.ld_periods)
          for (double h : grid) {
            Case c;
            c.index = static_cast<long>(cases.size());
            c.model = model_spec;
            c.built = model;
            c.method = method;
            c.h_nominal = h;
            c.cfg.h = h;
            c.cfg.duration = e.duration;
            c.cfg.step_series = e.step_series;
            c.cfg.steps = steps;
            c.cfg.ld_periods = ld;
            // the significant digits are measured at the end of the run, against the reference
            auto any_needs = [&](unsigned needs) {
              return std::any_of(e.metrics.begin(), e.metrics.end(), [&](const std::string& m) { return metric_needs(m, needs); });
            };
            c.cfg.sample_end = any_needs(kNeedsEndSample);
            // the self-consistency error: the same method at h / 64, compared at the end
            c.cfg.self_consistency = any_needs(kNeedsFineRun);
            // the agreement with another method: its run at this h
            if (any_needs(kNeedsOtherRun)) {
              c.cfg.agree_with = e.agree_with;
              c.cfg.agree_time = e.agree_time;
            }
            c.id = fmt::format("{} {} h={} steps={} ld={}", model_spec, method, h, to_string(steps), to_string(ld));
            cases.push_back(std::move(c));
          }
  }
  return cases;
}

ExperimentRef experiment_ref(const Experiment& e) {
  ExperimentRef r;
  r.name = e.name;
  r.file = e.file;
  r.reproduces = e.reproduces;
  r.paper = e.paper;
  r.metrics = e.metrics;
  r.fit_h1 = e.fit_h1;
  r.fit_h2 = e.fit_h2;
  r.fit_h = to_string(e.fit_h);
  r.x_option = e.x_option;
  return r;
}

std::string experiment_kind(const std::string& path) {
  toml::table root = read_toml_file(path);
  if (auto k = root["kind"].value<std::string>()) return *k;
  return "accuracy";
}

TimingExperiment read_timing_experiment(const std::string& path) {
  toml::table root = read_toml_file(path);
  // an accuracy experiment (no kind) has its own subcommand; its keys would read as unknown fields here
  if (!root.contains("kind") && root.contains("models") && root.contains("methods"))
    throw InputError(path, 0, "kind", fmt::format("this is an accuracy experiment: use `mbbench sweep {}`", path));
  TableReader r(root, path, "",
                {"name", "kind", "description", "reproduces", "paper", "model", "size", "joints", "h", "repetitions", "min_time",
                 "reference", "method", "model_variants", "method_variants", "per", "run_steps", "warm_steps"});
  TimingExperiment e;
  e.file = path;
  e.name = r.str("name");
  if (r.str("kind") != "timing") r.fail("kind", "a timing experiment has kind = \"timing\"");
  e.model = r.str("model", "tree");
  const ModelEntry* family = nullptr;
  for (const auto& m : model_catalog())
    if (m.name == e.model) family = &m;
  if (!family) r.fail("model", fmt::format("'{}' is not a catalog family (mbbench list models)", e.model));
  e.size = r.str("size", timing_size_option(e.model));
  const OptionInfo* size = nullptr;
  for (const auto& o : family->options)
    if (o.name == e.size && o.type == OptionType::Integer) size = &o;
  if (!size)
    r.fail(e.size.empty() ? "model" : "size", fmt::format("'{}' needs `size`, the name of one of its integer options", e.model));
  e.description = r.str("description", "");
  e.reproduces = r.str("reproduces", "");
  if (r.has("paper")) {
    const std::string paper = r.str("paper");
    if (paper.empty()) r.fail("paper", "must name a file (a path relative to the experiment file)");
    e.paper = (std::filesystem::path(path).parent_path() / paper).lexically_normal().string();
  }
  for (double j : r.numbers("joints")) {
    if (!(j == std::floor(j) && j >= static_cast<double>(size->min) && j <= static_cast<double>(size->max) && j <= 1e9))
      r.fail("joints", fmt::format("{} is not a whole number in {} of {}:{}", j, size->range_text(), e.model, e.size));
    const int ji = static_cast<int>(j);
    if (e.model == "tree" && (ji < 1 || ((ji + 1) & ji) != 0)) r.fail("joints", fmt::format("{} is not 2^k - 1", j));
    e.joints.push_back(ji);
  }
  if (e.joints.empty()) r.fail("joints", "at least one tree size");
  e.h = r.positive("h");
  e.repetitions = static_cast<int>(r.integer("repetitions", 9, 1, 1000000));
  e.min_time = r.has("min_time") ? r.positive("min_time") : 0.1;
  e.reference = r.str("reference");
  auto ms = r.tables("method");
  for (size_t i = 0; i < ms.size(); ++i) {
    TableReader m(*ms[i], path, fmt::format("method[{}]", i), {"spec", "max_joints"});
    TimingMethod tm{m.str("spec"), static_cast<int>(m.integer("max_joints", e.joints.back(), 1, static_cast<long>(std::min(size->max, 1e9))))};
    make_method(tm.spec, path, m.line());
    e.methods.push_back(tm);
  }
  bool has_ref = false;
  for (const auto& m : e.methods) has_ref = has_ref || m.spec == e.reference;
  if (!has_ref) r.fail("reference", fmt::format("'{}' is not one of the [[method]] specs", e.reference));
  if (r.has("model_variants")) {
    std::vector<int> lines;
    e.model_variants = r.strings("model_variants", &lines);
    for (size_t i = 0; i < e.model_variants.size(); ++i)
      at_field(path, lines[i], fmt::format("model_variants[{}]", i),
               [&] { return build_model(timing_model_spec(e.model, e.joints.front(), e.size, e.model_variants[i])); });
  }
  if (r.has("method_variants")) {
    std::vector<int> lines;
    e.method_variants = r.strings("method_variants", &lines);
    for (size_t i = 0; i < e.method_variants.size(); ++i)
      for (const auto& m : e.methods)
        at_field(path, lines[i], fmt::format("method_variants[{}]", i), [&] { return make_method(with_options(m.spec, e.method_variants[i])); });
  }
  e.per = r.choice("per", {"step", "run"}, "step");
  e.run_steps = static_cast<int>(r.integer("run_steps", 60, 1, 1000000000));
  e.warm_steps = static_cast<int>(r.integer("warm_steps", 3, 0, 1000000000));
  if (e.run_steps <= e.warm_steps) r.fail("run_steps", fmt::format("must exceed warm_steps = {}", e.warm_steps));
  return e;
}

std::vector<TimingCase> timing_grid(const TimingExperiment& e) {
  const std::vector<std::string> none = {""};
  const auto& models = e.model_variants.empty() ? none : e.model_variants;
  const auto& variants = e.method_variants.empty() ? none : e.method_variants;
  std::vector<TimingCase> out;
  for (const auto& mv : models)
    for (const auto& [spec, joints] : timing_cases(e))
      for (const auto& v : variants) {
        TimingCase c;
        c.base = spec;
        c.method_variant = v;
        c.method = with_options(spec, v);
        c.model_variant = mv;
        c.joints = joints;
        c.model = timing_model_spec(e.model, joints, e.size, mv);
        c.name = timing_case_name(c.method, joints, e.model, e.size, mv);
        out.push_back(std::move(c));
      }
  return out;
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

}  // namespace mb
