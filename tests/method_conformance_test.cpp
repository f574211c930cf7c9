// The conformance test (docs/architecture.md): every registered method -- the built-in ones, and whatever
// the test binary registers (tests/example_method.cpp) -- on every catalog model (small sizes)
// its metadata says it supports:
//   - it runs through the driver and the case is ok;
//   - two runs give bit-identical records (accuracy fields);
//   - the constraint error stays bounded and, where energy is conserved, the energy too;
//   - the order it declares (MethodInfo::orders) is the order it shows, within 0.3, on the
//     declared problem and step range, measured as the position error against the reference;
//   - a model it does not claim is refused with UnsupportedModel, never run;
//   - an unknown option, or an option out of its declared range, is an InputError naming it.
// The gate's deliberately wrong test methods (tests/test_methods.cpp) are left out.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "analysis/fit.hpp"
#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"
#include "test_methods.hpp"

namespace {

struct SmallModel {
  const char* spec;
  double h, duration;  // a short run at a step the model is made for
};
// every catalog family, small
const SmallModel kModels[] = {
    {"pendulum10", 0.01, 0.5},      {"pendulum90", 0.01, 0.5},          {"double-pendulum", 0.005, 0.5},
    {"triple-pendulum", 0.005, 0.5}, {"chain:n=4", 0.005, 0.3},          {"chain:n=3,body=box", 1.0 / 240, 0.1},
    {"tree:joints=7", 1.0 / 120, 0.1}, {"tree:joints=7,anchor=ball", 1.0 / 120, 0.1}, {"loop:n=8", 0.005, 0.3}, {"peaucellier", 0.03, 0.3},
    {"spider:legs=2", 0.01, 0.1}, {"scissor-lift:segments=1", 0.01, 0.1}, {"strandbeest:legs=1", 0.01, 0.1},
    {"octahedron-tube:rings=1,around=3", 0.01, 0.03}, {"octahedron-cube:n=1", 0.01, 0.05},
    {"bouncing-ball:height=0.1", 0.005, 0.5}, {"incline-cubes:cubes=2", 0.01, 0.3}, {"sledge-pendulum", 0.01, 0.3},
    {"heavy-rod", 0.01, 0.2}, {"rolling-box", 0.001, 0.05}, {"spinning-egg", 0.0005, 0.05},
    {"spring-mass", 0.001, 0.5}, {"andrews", 1e-5, 0.001}, {"iftomm-a01", 0.01, 0.5}, {"four-bar:n=2", 0.005, 0.3},
    {"bricard", 0.01, 0.2}, {"conical-pendulum", 0.01, 0.5}, {"flyball-governor", 1e-4, 0.005},
    {"cloth:n=4,ext=0.001", 0.01, 0.2},
};

// Claimed models a method fails on, each a documented finding (docs/findings.md): the run must
// fail with this reason, so a fix (or a new failure) shows here and the list is kept true.
struct KnownFailure {
  const char* method_prefix;  // "Imp": Imp2 .. Imp10
  const char* model;
  const char* reason;
};
const KnownFailure kKnownFailures[] = {
    // the stiff flyball governor: Gauss-Seidel sweeps on its ill-conditioned joints (the shaft's
    // spin inertia 5e-6 kg m^2 beside 5 kg balls) reach 1e-11, not round-off, in 1000 sweeps;
    // `iterative` misses its 1e-6 velocity tolerance likewise ("flyball-governor" in findings.md)
    {"Imp", "flyball-governor", "did not converge in 1000 sweeps"},
    {"iterative", "flyball-governor", "did not converge in 1000 sweeps"},
    // the 7.5 t block on the 50 kg rod: joint-by-joint sweeps with the contacts alternating do not
    // converge at the mass ratio 150 (tomcin2014 s.1; "Heavy rod" in findings.md)
    {"iterative", "heavy-rod", "did not converge in 1000 sweeps"},
    // `linear` splits the loop the hanger closes into two acyclic groups, so its contacts alternate
    // with the joints as with coupling=off (docs/contacts.md, "Coupling to the articulation")
    {"linear", "heavy-rod", "did not converge in 1000 sweeps"},
};
const KnownFailure* known_failure(const std::string& method, const std::string& model) {
  for (const auto& k : kKnownFailures)
    if (method.rfind(k.method_prefix, 0) == 0 && model == k.model) return &k;
  return nullptr;
}

std::vector<const mb::MethodEntry*> subjects() {
  std::vector<const mb::MethodEntry*> v;
  for (const auto& e : mb::method_registry())
    if (!mbtest::is_gate_test_method(e.info.name)) v.push_back(&e);
  return v;
}

mb::RunConfig config(double h, double duration) {
  mb::RunConfig c;
  c.h = h;
  c.duration = duration;
  c.round_to_period = false;
  return c;
}

}  // namespace

TEST_CASE("conformance: every method runs every model it claims, deterministically and bounded", "[conformance]") {
  for (const auto* e : subjects()) {
    for (const auto& sm : kModels) {
      const mb::Model model = mb::build_model(sm.spec);
      const std::string why = mb::unsupported_reason(e->info, model);
      INFO("method " << e->info.name << " on " << sm.spec);
      if (!why.empty()) {
        // listed as not supported: refused, never run
        CHECK_THROWS_AS(mb::run_case(model, e->info.name, config(sm.h, sm.duration)), mb::UnsupportedModel);
        continue;
      }
      // a joint type or shape type the method has no rows or geometry for is refused at init by
      // name (UnsupportedModel: the sweep records it as unsupported, with the reason); the feature
      // metadata has no joint or shape types (ODE has no ellipsoid)
      mb::CaseRecord a;
      try {
        a = mb::run_case(model, e->info.name, config(sm.h, sm.duration));
      } catch (const mb::UnsupportedModel& x) {
        INFO("refused: " << x.what());
        CHECK_THAT(std::string(x.what()), Catch::Contains("joint") || Catch::Contains("shape"));
        continue;
      }
      INFO("status " << mb::to_string(a.status) << ": " << a.reason);
      if (const KnownFailure* k = known_failure(e->info.name, sm.spec)) {
        CHECK_FALSE(a.ok());
        CHECK_THAT(a.reason, Catch::Contains(k->reason));
        continue;
      }
      CHECK(a.ok());
      if (!a.ok()) continue;  // the next pairs still run: every failure is listed
      CHECK(a.steps_done == a.steps);
      const mb::CaseRecord b = mb::run_case(model, e->info.name, config(sm.h, sm.duration));
      CHECK(mb::accuracy_fields(a) == mb::accuracy_fields(b));
      // bounded: joints held to 1 mm, energy within 1 % of its scale where it is conserved. The
      // peer engines (docs/peers.md) hold joints at the velocity level with their own drift
      // feedback (ODE's ERP) or soft constraints (MuJoCo) and most step by semi-implicit Euler, whose energy error is O(h):
      // joints to 10 cm, energy to 50 % of its scale at these steps (ODE on chain:n=4 at 5 ms:
      // 0.27 J of a scale of 1 J); their accuracy is tested against ref (tests/peers_test.cpp)
      const bool peer = e->info.family == "peer";
      // MuJoCo's soft equality constraints (time constant 0.02 s) let heavy-rod's hanger, closing
      // its loop under the 7.5 t block, stretch 5.8 cm: the peers' joints to 10 cm
      CHECK(*a.metrics.get("CD_pos_max") < (peer ? 0.1 : 1e-3));
      // contact models: penetration bounded (the impulse methods hold it to their tolerances;
      // MuJoCo's soft contacts let the ball of bouncing-ball:height=0.1 sink 2.6 cm)
      if (!model.shapes.empty()) CHECK(*a.metrics.get("PEN_max") < (peer ? 5e-2 : 1e-4));
      // A first-order method of ours (gc-contact: the engines' semi-implicit Euler) takes the
      // engines' energy bound: on spider:legs=2 at 10 ms it loses the 0.12 J that dart and bullet do.
      if (model.info.energy_conserved && model.loads.empty()) {
        const double e0 = *a.metrics.get("E0"), e1 = *a.metrics.get("E_end");
        const bool first_order = e->info.order() > 0 && e->info.order() < 2;
        CHECK(std::abs(e1 - e0) <= (peer || first_order ? 0.5 : 1e-2) * std::max(1.0, std::abs(e0)));
      }
    }
  }
}

TEST_CASE("conformance: the declared order is the observed order within 0.3", "[conformance][order]") {
  for (const auto* e : subjects()) {
    for (const auto& d : e->info.orders) {
      INFO("method " << e->info.name << " declares order " << d.order << " for the " << d.quantity << " error on " << d.problem
                     << " over h " << d.h_min << ".." << d.h_max << " at t = " << d.t_end);
      REQUIRE(d.quantity == "position");
      REQUIRE(d.h_min > 0);
      REQUIRE(d.h_max > d.h_min);
      const mb::Model model = mb::build_model(d.problem);
      const std::string spec = d.options.empty() ? e->info.name : e->info.name + ":" + d.options;
      // h_max, h_max/2, ... down to h_min (each a divisor of t_end)
      std::vector<double> hs, errs;
      for (double h = d.h_max; h >= d.h_min * (1 - 1e-9); h /= 2) {
        mb::RunConfig c = config(h, d.t_end);
        c.samples = {d.t_end};
        const mb::CaseRecord r = mb::run_case(model, spec, c);
        INFO("h = " << h << ": " << mb::to_string(r.status) << " " << r.reason);
        REQUIRE(r.ok());
        hs.push_back(h);
        errs.push_back(*r.metrics.get("ref_error_max"));
      }
      REQUIRE(hs.size() >= 2);
      const mb::PowerFit f = mb::least_squares_fit(hs, errs);
      std::string local;
      for (size_t i = 1; i < hs.size(); ++i) local += fmt::format(" {:.2f}", std::log(errs[i - 1] / errs[i]) / std::log(hs[i - 1] / hs[i]));
      INFO("errors at t_end: " << fmt::format("{}", fmt::join(errs, ", ")) << "; local orders" << local << "; fitted " << f.order);
      CHECK(std::abs(f.order - d.order) <= 0.3);
    }
  }
}

TEST_CASE("conformance: unknown and out-of-range options are errors naming the option", "[conformance][options]") {
  for (const auto* e : subjects()) {
    INFO("method " << e->info.name);
    try {
      mb::make_method(e->info.name + ":no_such_option=1");
      FAIL("an unknown option was accepted");
    } catch (const mb::InputError& x) {
      CHECK_THAT(x.what(), Catch::Contains("no_such_option"));
    }
    for (const auto& o : e->info.options) {
      INFO("option " << o.name);
      // the default is accepted (with the options it needs beside it)
      const std::string with = e->info.name + ":" + (o.applies_with.empty() ? "" : o.applies_with + ",");
      CHECK_NOTHROW(mb::make_method(with + o.name + "=" + o.default_value));
      std::string bad;
      if (o.type == mb::OptionType::Choice) bad = "not-a-choice";
      else if ((o.type == mb::OptionType::Number || o.type == mb::OptionType::Integer) && o.min > -1e308)
        bad = fmt::format("{:g}", o.min - 1);
      else if (o.type == mb::OptionType::Number || o.type == mb::OptionType::Integer)
        bad = "x";
      if (bad.empty()) continue;
      try {
        mb::make_method(with + o.name + "=" + bad);
        FAIL("option value '" << bad << "' was accepted");
      } catch (const mb::InputError& x) {
        CHECK_THAT(x.what(), Catch::Contains("'" + o.name + "'"));
      }
    }
  }
}
