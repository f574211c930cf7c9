#include "report/listing.hpp"

#include <map>
#include <algorithm>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "methods/method.hpp"
#include "methods/peers/translation.hpp"
#include "metrics/observer.hpp"
#include "models/catalog.hpp"

namespace mb {

using nlohmann::json;

namespace {

std::string orders_text(const MethodInfo& i) {
  std::string s;
  for (const auto& o : i.orders)
    s += fmt::format("{}{:g} ({} error on {} at t = {:g} s, h {:g}..{:g}{})", s.empty() ? "" : "; ", o.order, o.quantity,
                     o.problem, o.t_end, o.h_min, o.h_max, o.options.empty() ? "" : ", with " + o.options);
  return s.empty() ? "none declared" : s;
}

std::string flags_text(const MethodInfo& i) {
  std::string s = i.fixed_step ? "fixed step" : "adaptive";
  if (i.reference) s += "; reference method";
  if (i.timing_table) s += fmt::format("; timing table (up to {} joints)", i.timing_max_joints);
  if (i.timing_reference) s += "; timing reference";
  return s;
}

// Markdown cell: no pipes or newlines
std::string md(std::string s) {
  for (auto& c : s)
    if (c == '\n') c = ' ';
  std::string o;
  for (char c : s) o += c == '|' ? std::string("\\|") : std::string(1, c);
  return o;
}

std::string methods_text() {
  std::string s = "Methods (METHOD is name[:key=value,...]):\n";
  for (const auto& e : method_registry()) {
    const auto& i = e.info;
    s += fmt::format("  {:<18} {}\n", i.name, i.description);
    s += fmt::format("  {:<18} family {}; source: {}{}\n", "", i.family.empty() ? "-" : i.family, i.source,
                     i.paper_name.empty() ? "" : "; paper name " + i.paper_name);
    if (!i.version.empty()) s += fmt::format("  {:<18} engine: {}\n", "", i.version);
    if (!i.plugin.empty())
      s += fmt::format("  {:<18} plugin: {}{}\n", "", i.plugin, i.plugin_version.empty() ? "" : " (" + i.plugin_version + ")");
    s += fmt::format("  {:<18} order: {}{}\n", "", orders_text(i), i.stated_order > 0 ? fmt::format("; stated {:g}", i.stated_order) : "");
    s += fmt::format("  {:<18} supports: {}; {}\n", "", features_text(i.supports), flags_text(i));
    if (!i.expands_to.empty()) s += fmt::format("  {:<18} = {}\n", "", i.expands_to);
    for (const auto& op : i.options) {
      const std::string r = op.range_text();
      s += fmt::format("  {:<18}   {} ({}, default {}{}{}): {}\n", "", op.name, to_string(op.type), op.default_value,
                       r.empty() ? "" : ", " + r, op.applies_with.empty() ? "" : ", only with " + op.applies_with, op.description);
    }
  }
  for (const auto& [name, why] : peers_not_built()) s += fmt::format("  {:<18} not built: {}\n", name, why);
  return s;
}

// the features beyond rigid trees, a letter each in a fixed column ('-': not supported)
constexpr std::pair<unsigned, char> kFeatureLetters[] = {
    {kParticles, 'P'}, {kLoops, 'L'},     {kRedundant, 'R'},     {kContacts, 'C'},     {kJointLimits, 'J'},
    {kActuators, 'A'}, {kMotors, 'M'},    {kJointDampers, 'D'},  {kForces, 'S'},       {kAppliedForces, 'F'},
    {kAppliedTorques, 'T'}, {kMasslessFrames, 'X'}, {kBrokenJoints, 'B'},
    {kSingularInertia, 'I'}};

constexpr const char* kFeatureLegend =
    "What each takes beyond rigid bodies in trees (which all but particles take): P particles,\n"
    "L loops, R redundant constraints, C contacts, J joint limits, A actuators, M motors, D joint\n"
    "dampers, S springs (force elements), F applied forces, T applied torques, X massless frames,\n"
    "B broken joints, I singular link inertias.\n";

std::string features_letters(unsigned f) {
  std::string s;
  for (const auto& [bit, letter] : kFeatureLetters) {
    if (!s.empty()) s += ' ';
    s += (f & bit) ? letter : '-';
  }
  return s;
}

// one line a method: name, family, stated and measured order, the features it takes
std::string methods_short() {
  std::string s = "Methods (METHOD is name[:key=value,...]; `mbbench list methods --long`: options and sources):\n";
  s += fmt::format("  {:<12} {:<12} {:>5} {:>5}  {}\n", "name", "family", "order", "meas.", features_letters(~0u));
  for (const auto& e : method_registry()) {
    const auto& i = e.info;
    const double measured = i.order();
    const std::string stated = measured == 0 ? "-" : fmt::format("{:g}", i.stated_order > 0 ? i.stated_order : measured);
    s += fmt::format("  {:<12} {:<12} {:>5} {:>5}  {}\n", i.name, i.family.empty() ? "-" : i.family, stated,
                     measured == 0 ? "-" : fmt::format("{:g}", measured), features_letters(i.supports));
    if (!i.plugin.empty()) s += fmt::format("  {:<12} plugin {}\n", "", i.plugin);
  }
  for (const auto& [name, why] : peers_not_built()) s += fmt::format("  {:<12} not built: {}\n", name, why);
  s += "order: the scheme's stated order; meas.: its measured order (position error; --long: where)\n";
  s += kFeatureLegend;
  return s;
}

std::string models_text() {
  std::string s = "Models (MODEL is one of these specs, or a .toml scene file):\n";
  for (const auto& e : model_catalog()) {
    std::string o;
    for (const auto& op : e.options) o += fmt::format("{}{}={}", o.empty() ? "" : ",", op.name, op.default_value);
    s += fmt::format("  {:<18} {}\n", e.name + (o.empty() ? "" : ":" + o), e.description);
    s += fmt::format("  {:<18} source: {}\n", "", e.source);
    for (const auto& op : e.options) s += fmt::format("  {:<18}   {} (default {}): {}\n", "", op.name, op.default_value, op.description);
  }
  return s;
}

std::string metrics_text() {
  std::string s = "Metrics:\n";
  for (const auto& m : metric_catalog()) s += fmt::format("  {:<24} {}\n", m.name, m.definition);
  return s;
}

json options_json(const std::vector<OptionInfo>& opts) {
  json a = json::array();
  for (const auto& o : opts)
    a.push_back({{"name", o.name}, {"type", to_string(o.type)}, {"default", o.default_value}, {"range", o.range_text()},
                 {"applies_with", o.applies_with}, {"description", o.description}});
  return a;
}

json methods_json() {
  json a = json::array();
  for (const auto& e : method_registry()) {
    const auto& i = e.info;
    json orders = json::array();
    for (const auto& o : i.orders)
      orders.push_back({{"quantity", o.quantity}, {"problem", o.problem}, {"order", o.order}, {"h_min", o.h_min},
                        {"h_max", o.h_max}, {"t_end", o.t_end}, {"options", o.options}, {"note", o.note}});
    a.push_back({{"name", i.name}, {"family", i.family}, {"paper_name", i.paper_name}, {"version", i.version}, {"description", i.description},
                 {"source", i.source}, {"orders", orders}, {"stated_order", i.stated_order}, {"supports", features_text(i.supports)},
                 {"fixed_step", i.fixed_step}, {"reference", i.reference}, {"timing_table", i.timing_table},
                 {"timing_max_joints", i.timing_max_joints}, {"timing_reference", i.timing_reference},
                 {"expands_to", i.expands_to}, {"options", options_json(i.options)}});
    if (!i.plugin.empty()) {
      a.back()["plugin"] = i.plugin;
      a.back()["plugin_version"] = i.plugin_version;
    }
  }
  return a;
}

json models_json() {
  json a = json::array();
  for (const auto& e : model_catalog())
    a.push_back({{"name", e.name}, {"description", e.description}, {"source", e.source}, {"options", options_json(e.options)}});
  return a;
}

json metrics_json() {
  json a = json::array();
  for (const auto& m : metric_catalog())
    a.push_back({{"name", m.name}, {"definition", m.definition}, {"unit", m.unit}, {"needs", needs_text(m.needs)},
                 {"lower_is_better", m.lower_is_better()}});
  return a;
}

std::string methods_markdown() {
  std::string s =
      "# Methods\n\n"
      "Generated by `mbbench list methods --markdown` from the registry (methods/registry/registry.cpp); "
      "do not edit (tests/docs_test.cpp fails when it is stale).\n\n"
      "| name | family | paper name | declared order | takes | flags | source |\n|---|---|---|---|---|---|---|\n";
  for (const auto& e : method_registry()) {
    const auto& i = e.info;
    std::string letters = features_letters(i.supports);
    std::erase_if(letters, [](char c) { return c == ' ' || c == '-'; });
    s += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", i.name, md(i.family), md(i.paper_name.empty() ? "-" : i.paper_name),
                     md(orders_text(i)), letters.empty() ? "-" : letters, md(flags_text(i)), md(i.source));
  }
  s += std::string("\n") + kFeatureLegend;
  // an option row that several methods declare alike is printed once, in the table of shared
  // options at the end, with the methods that take it
  // a choice's accepted values without range_text's "one of: " (the type column says choice)
  auto accepted = [](const OptionInfo& o) {
    const std::string r = o.range_text();
    return o.type == OptionType::Choice && r.rfind("one of: ", 0) == 0 ? r.substr(8) : r;
  };
  auto row = [&accepted](const OptionInfo& o) {
    return fmt::format("| `{}` | {} | `{}` | {}{} | {} |", o.name, to_string(o.type), o.default_value, md(accepted(o)),
                       o.applies_with.empty() ? "" : "; only with `" + o.applies_with + "`", md(o.description));
  };
  std::map<std::string, std::vector<std::string>> takers;  // row -> methods
  std::vector<std::string> shared_order;
  for (const auto& e : method_registry())
    for (const auto& o : e.info.options) {
      auto& t = takers[row(o)];
      if (t.empty()) shared_order.push_back(row(o));
      t.push_back(e.info.name);
    }
  for (const auto& e : method_registry()) {
    const auto& i = e.info;
    s += fmt::format("\n## `{}`\n\n{}\n\n", i.name, i.description);
    if (!i.expands_to.empty()) s += fmt::format("Expands to `{}`.\n\n", i.expands_to);
    if (!i.version.empty()) s += fmt::format("Engine: {} (docs/peers.md).\n\n", i.version);
    for (const auto& o : i.orders)
      if (!o.note.empty()) s += fmt::format("Order {:g} on {}: {}.\n\n", o.order, o.problem, o.note);
    if (i.options.empty()) {
      s += "No options.\n";
      continue;
    }
    std::string own, shared;
    for (const auto& o : i.options) {
      if (takers[row(o)].size() > 1) shared += fmt::format("{}`{}`", shared.empty() ? "" : ", ", o.name);
      else own += row(o) + "\n";
    }
    if (!own.empty()) s += "| option | type | default | accepted | meaning |\n|---|---|---|---|---|\n" + own;
    if (!shared.empty())
      s += fmt::format("{}Shared ([below](#shared-options)): {}.\n", own.empty() ? "" : "\n", shared);
  }
  std::string table;
  for (const auto& r : shared_order) {
    const auto& t = takers[r];
    if (t.size() < 2) continue;
    std::string names;
    for (const auto& n : t) names += fmt::format("{}`{}`", names.empty() ? "" : ", ", n);
    table += r + " " + names + " |\n";
  }
  if (!table.empty())
    s += "\n## Shared options\n\nEach once, with the methods that declare it alike.\n\n"
         "| option | type | default | accepted | meaning | methods |\n|---|---|---|---|---|---|\n" + table;
  return s;
}

std::string models_markdown() {
  std::string s =
      "# Models\n\n"
      "Generated by `mbbench list models --markdown` from the catalog (models/catalog.cpp); do not edit "
      "(tests/docs_test.cpp fails when it is stale). Every model is also a scene file: "
      "`mbbench export-scene MODEL -o FILE`.\n\n"
      "| model | description | source | options (default) |\n|---|---|---|---|\n";
  for (const auto& e : model_catalog()) {
    std::string o;
    for (const auto& op : e.options) o += fmt::format("{}`{}` (`{}`): {}", o.empty() ? "" : "; ", op.name, op.default_value, op.description);
    s += fmt::format("| `{}` | {} | {} | {} |\n", e.name, md(e.description), md(e.source), md(o.empty() ? "-" : o));
  }
  s += "\n## Options of every model\n\nEvery model, scene and robot file takes these beside its own "
       "(`robot.urdf:base=free,actuate=all:40,1,ctrl=hold`; [robots.md](robots.md#actuators-and-controls)).\n\n"
       "| option | default | meaning |\n|---|---|---|\n";
  for (const auto& op : model_options())
    s += fmt::format("| `{}` | {} | {} |\n", op.name, op.default_value.empty() ? "-" : "`" + op.default_value + "`", md(op.description));
  s += "\n## Metrics\n\nFrom the metric registry (metrics/registry.cpp); the definitions in full: [metrics.md](metrics.md).\n\n"
       "| metric | unit | applies with | better | definition |\n|---|---|---|---|---|\n";
  for (const auto& m : metric_catalog()) {
    const char* better = m.better == Better::Lower ? "lower" : m.better == Better::Higher ? "higher" : "-";
    const std::string needs = needs_text(m.needs);
    s += fmt::format("| `{}` | {} | {} | {} | {} |\n", m.name, m.unit.empty() ? "-" : m.unit, needs.empty() ? "every model" : needs,
                     better, md(m.definition));
  }
  return s;
}

// sections separated by an empty line (appended in two steps: GCC 12 at -O3 warns, falsely,
// -Wrestrict on `s += (c ? "" : "\n") + t`)
void append_section(std::string& s, const std::string& section) {
  if (!s.empty()) s += "\n";
  s += section;
}

}  // namespace

std::string listing(const std::string& what, ListFormat format) {
  const bool all = what == "all";
  if (format == ListFormat::Json) {
    json j = json::object();
    if (all || what == "models") j["models"] = models_json();
    if (all || what == "methods") j["methods"] = methods_json();
    if (all || what == "metrics") j["metrics"] = metrics_json();
    return j.dump(2) + "\n";
  }
  if (format == ListFormat::Markdown) {
    std::string s;
    if (all || what == "methods") s += methods_markdown();
    if (all || what == "models" || what == "metrics") append_section(s, models_markdown());
    return s;
  }
  std::string s;
  if (all || what == "models") s += models_text();
  if (all || what == "methods") append_section(s, format == ListFormat::Long ? methods_text() : methods_short());
  if (all || what == "metrics") append_section(s, metrics_text());
  return s;
}

}  // namespace mb
