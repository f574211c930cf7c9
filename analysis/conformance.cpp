#include "analysis/conformance.hpp"

#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/fit.hpp"
#include "core/error.hpp"
#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "records/record.hpp"
#include "sim/run_case.hpp"

namespace mb {

const std::vector<ConformanceModel>& conformance_models() {
  static const std::vector<ConformanceModel> v = {
      {"pendulum10", 0.01, 0.5},      {"pendulum90", 0.01, 0.5},          {"double-pendulum", 0.005, 0.5},
      {"triple-pendulum", 0.005, 0.5}, {"chain:n=4", 0.005, 0.3},          {"chain:n=3,body=box", 1.0 / 240, 0.1},
      {"tree:joints=7", 1.0 / 120, 0.1}, {"tree:joints=7,anchor=ball", 1.0 / 120, 0.1}, {"loop:n=8", 0.005, 0.3}, {"peaucellier", 0.03, 0.3},
      {"spider:legs=2", 0.01, 0.1}, {"scissor-lift:segments=1", 0.01, 0.1}, {"strandbeest:legs=1", 0.01, 0.1},
      {"octahedron-tube:rings=1,around=3", 0.01, 0.03}, {"octahedron-cube:n=1", 0.01, 0.05},
      {"bouncing-ball:height=0.1", 0.005, 0.5}, {"incline-cubes:cubes=2", 0.01, 0.3}, {"sledge-pendulum", 0.01, 0.3},
      {"heavy-rod", 0.01, 0.2}, {"rolling-box", 0.001, 0.05}, {"spinning-egg", 0.0005, 0.05},
      {"spring-mass", 0.001, 0.5}, {"andrews", 1e-5, 0.001}, {"iftomm-a01", 0.01, 0.5}, {"four-bar:n=2", 0.005, 0.3},
      {"bricard", 0.01, 0.2}, {"conical-pendulum", 0.01, 0.5}, {"flyball-governor", 1e-4, 0.005},
      {"cloth:n=4,ext=0.001", 0.01, 0.2}, {"bicycle", 0.001, 0.1},
  };
  return v;
}

namespace {

RunConfig config(double h, double duration) {
  RunConfig c;
  c.h = h;
  c.duration = duration;
  c.round_to_period = false;
  return c;
}

}  // namespace

std::vector<ConformanceCheck> check_models(const MethodEntry& e, KnownFailure known) {
  std::vector<ConformanceCheck> out;
  const std::string& name = e.info.name;
  auto add = [&](const std::string& check, const std::string& model, bool ok, std::string detail) {
    out.push_back({name, check, model, ok, std::move(detail)});
  };
  for (const ConformanceModel& sm : conformance_models()) {
    const Model model = build_model(sm.spec);
    const std::string why = unsupported_reason(e.info, model);
    if (!why.empty()) {
      // listed as not supported: refused, never run
      try {
        run_case(model, name, config(sm.h, sm.duration));
        add("refused", sm.spec, false, "not claimed (" + why + ") but it ran");
      } catch (const UnsupportedModel&) {
        add("refused", sm.spec, true, why);
      } catch (const std::exception& x) {
        add("refused", sm.spec, false, fmt::format("not claimed ({}) but threw other than UnsupportedModel: {}", why, x.what()));
      }
      continue;
    }
    // a joint type or shape type the method has no rows or geometry for is refused at init by name
    // (UnsupportedModel: the sweep records it as unsupported, with the reason); the feature
    // metadata has no joint or shape types (ODE has no ellipsoid)
    CaseRecord a;
    try {
      a = run_case(model, name, config(sm.h, sm.duration));
    } catch (const UnsupportedModel& x) {
      const std::string w = x.what();
      add("runs", sm.spec, w.find("joint") != std::string::npos || w.find("shape") != std::string::npos,
          "refused at init (a claimed model may be refused for a joint or shape type only): " + w);
      continue;
    } catch (const std::exception& x) {
      add("runs", sm.spec, false, fmt::format("threw: {}", x.what()));
      continue;
    }
    const std::string status = fmt::format("status {}: {}", to_string(a.status), a.reason);
    if (const char* reason = known ? known(name, sm.spec) : nullptr) {
      add("runs", sm.spec, !a.ok() && a.reason.find(reason) != std::string::npos,
          fmt::format("a known failure ('{}'); {}", reason, status));
      continue;
    }
    add("runs", sm.spec, a.ok() && a.steps_done == a.steps, fmt::format("{}; {} of {} steps", status, a.steps_done, a.steps));
    if (!a.ok()) continue;
    try {
      const CaseRecord b = run_case(model, name, config(sm.h, sm.duration));
      add("deterministic", sm.spec, accuracy_fields(a) == accuracy_fields(b), "two runs, the accuracy fields compared");
    } catch (const std::exception& x) {
      add("deterministic", sm.spec, false, fmt::format("the second run threw: {}", x.what()));
    }
    // bounded: joints held to 1 mm, energy within 1 % of its scale where it is conserved. The
    // peer engines (docs/peers.md) hold joints at the velocity level with their own drift
    // feedback (ODE's ERP) or soft constraints (MuJoCo) and most step by semi-implicit Euler, whose
    // energy error is O(h): joints to 10 cm, energy to 50 % of its scale at these steps (ODE on
    // chain:n=4 at 5 ms: 0.27 J of a scale of 1 J); their accuracy is tested against ref
    // (tests/peers_test.cpp). MuJoCo's soft equality constraints let heavy-rod's hanger, closing
    // its loop under the 7.5 t block, stretch 5.8 cm: the peers' joints to 10 cm.
    const bool peer = e.info.family == "peer";
    const double cd = a.metrics.get(metric::CD_pos_max).value_or(NAN);
    add("bounded", sm.spec, cd < (peer ? 0.1 : 1e-3), fmt::format("max constraint error {:.3g} m", cd));
    // contact models: penetration bounded (the impulse methods hold it to their tolerances;
    // MuJoCo's soft contacts let the ball of bouncing-ball:height=0.1 sink 2.6 cm)
    if (!model.shapes.empty()) {
      const double pen = a.metrics.get(metric::PEN_max).value_or(NAN);
      add("bounded", sm.spec, pen < (peer ? 5e-2 : 1e-4), fmt::format("max penetration {:.3g} m", pen));
    }
    // A first-order method (gc-contact: the engines' semi-implicit Euler) takes the engines'
    // energy bound: on spider:legs=2 at 10 ms it loses the 0.12 J that dart and bullet do.
    if (model.info.energy_conserved && model.loads.empty()) {
      const double e0 = a.metrics.get("E0").value_or(NAN), e1 = a.metrics.get("E_end").value_or(NAN);
      // the scheme's order (stated where the measured position order differs from it)
      const double scheme = e.info.stated_order > 0 ? e.info.stated_order : e.info.order();
      const bool first_order = scheme > 0 && scheme < 2;
      const double bound = (peer || first_order ? 0.5 : 1e-2) * std::max(1.0, std::abs(e0));
      add("bounded", sm.spec, std::abs(e1 - e0) <= bound, fmt::format("energy {:.6g} J -> {:.6g} J (bound {:.3g} J)", e0, e1, bound));
    }
  }
  return out;
}

std::vector<ConformanceCheck> check_orders(const MethodEntry& e) {
  std::vector<ConformanceCheck> out;
  for (const DeclaredOrder& d : e.info.orders) {
    const std::string subject = fmt::format("{} ({} error, h {:g}..{:g}, t = {:g} s)", d.problem, d.quantity, d.h_min, d.h_max, d.t_end);
    auto add = [&](bool ok, std::string detail) { out.push_back({e.info.name, "order", subject, ok, std::move(detail)}); };
    if (d.quantity != "position" || !(d.h_min > 0) || !(d.h_max > d.h_min)) {
      add(false, "a declared order needs quantity \"position\" and 0 < h_min < h_max");
      continue;
    }
    try {
      const Model model = build_model(d.problem);
      const std::string spec = d.options.empty() ? e.info.name : e.info.name + ":" + d.options;
      // h_max, h_max/2, ... down to h_min (each a divisor of t_end)
      std::vector<double> hs, errs;
      std::string failed;
      for (double h = d.h_max; h >= d.h_min * (1 - 1e-9); h /= 2) {
        RunConfig c = config(h, d.t_end);
        c.samples = {d.t_end};
        const CaseRecord r = run_case(model, spec, c);
        if (!r.ok()) {
          failed = fmt::format("h = {:g}: {} {}", h, to_string(r.status), r.reason);
          break;
        }
        hs.push_back(h);
        errs.push_back(r.metrics.get(metric::ref_error_max).value_or(NAN));
      }
      if (!failed.empty() || hs.size() < 2) {
        add(false, failed.empty() ? "fewer than two step sizes in the range" : failed);
        continue;
      }
      const PowerFit f = least_squares_fit(hs, errs);
      std::string local;
      for (size_t i = 1; i < hs.size(); ++i) local += fmt::format(" {:.2f}", std::log(errs[i - 1] / errs[i]) / std::log(hs[i - 1] / hs[i]));
      add(std::abs(f.order - d.order) <= 0.3,
          fmt::format("declared {:g}, fitted {:.2f} (within 0.3); errors at t_end {:.3g}; local orders{}", d.order, f.order,
                      fmt::join(errs, ", "), local));
    } catch (const std::exception& x) {
      add(false, fmt::format("threw: {}", x.what()));
    }
  }
  return out;
}

std::vector<ConformanceCheck> check_options(const MethodEntry& e) {
  std::vector<ConformanceCheck> out;
  const std::string& name = e.info.name;
  auto add = [&](const std::string& subject, bool ok, std::string detail) {
    out.push_back({name, "options", subject, ok, std::move(detail)});
  };
  // an error naming `what`, or none at all
  auto refused = [](const std::string& spec, const std::string& what) -> std::string {
    try {
      make_method(spec);
      return "accepted";
    } catch (const InputError& x) {
      const std::string w = x.what();
      return w.find(what) != std::string::npos ? "" : "an error not naming " + what + ": " + w;
    } catch (const std::exception& x) {
      return std::string("not an InputError: ") + x.what();
    }
  };
  const std::string unknown = refused(name + ":no_such_option=1", "no_such_option");
  add("no_such_option", unknown.empty(), unknown.empty() ? "an unknown option is an InputError naming it" : unknown);
  for (const OptionInfo& o : e.info.options) {
    // the default is accepted (with the options it needs beside it)
    const std::string with = name + ":" + (o.applies_with.empty() ? "" : o.applies_with + ",");
    try {
      make_method(with + o.name + "=" + o.default_value);
      add(o.name, true, "its default is accepted");
    } catch (const std::exception& x) {
      add(o.name, false, fmt::format("its default {} is refused: {}", o.default_value, x.what()));
    }
    std::string bad;
    if (o.type == OptionType::Choice) bad = "not-a-choice";
    else if ((o.type == OptionType::Number || o.type == OptionType::Integer) && o.min > -1e308) bad = fmt::format("{:g}", o.min - 1);
    else if (o.type == OptionType::Number || o.type == OptionType::Integer) bad = "x";
    if (bad.empty()) continue;
    const std::string r = refused(with + o.name + "=" + bad, "'" + o.name + "'");
    add(o.name, r.empty(), r.empty() ? fmt::format("the value '{}' is an InputError naming it", bad) : fmt::format("the value '{}': {}", bad, r));
  }
  return out;
}

std::vector<ConformanceCheck> check_record(const MethodEntry& e) {
  std::vector<ConformanceCheck> out;
  const MethodInfo& info = e.info;
  for (const ConformanceModel& sm : conformance_models()) {
    const Model model = build_model(sm.spec);
    if (!unsupported_reason(info, model).empty()) continue;
    auto add = [&](bool ok, std::string detail) { out.push_back({info.name, "record", sm.spec, ok, std::move(detail)}); };
    try {
      RunConfig c = config(sm.h, sm.duration);
      c.samples = {sm.duration};
      const CaseRecord r = run_case(model, info.name, c);
      const std::string line = record_to_json_line(r);
      add(record_to_json_line(record_from_json_line(line, "memory", 1)) == line, "the record survives the JSON round trip");
      add(r.method.name == info.name && r.method.order == info.order(),
          fmt::format("method.name '{}', method.order {:g}", r.method.name, r.method.order));
      add(r.provenance.plugin == info.plugin && r.provenance.plugin_version == info.plugin_version,
          fmt::format("provenance.plugin '{}', plugin_version '{}'", r.provenance.plugin, r.provenance.plugin_version));
      bool finite = r.samples.size() == 1 && !r.samples.front().positions.empty();
      for (const Sample& smp : r.samples)
        for (const auto& p : smp.positions)
          for (double x : p) finite = finite && std::isfinite(x);
      add(finite, "one sample at the end, its positions finite");
    } catch (const std::exception& x) {
      add(false, fmt::format("threw: {}", x.what()));
    }
    break;  // one model the method claims
  }
  if (out.empty()) out.push_back({info.name, "record", "-", false, "it claims none of the small catalog models"});
  return out;
}

}  // namespace mb
