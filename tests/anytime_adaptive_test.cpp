// schmitt2003 s.3's anytime loop (the impulse methods' `budget`) and adaptive step (`adaptive`).
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {
mb::CaseRecord run(const mb::Model& m, const std::string& spec, double h, double duration) {
  mb::RunConfig cfg;
  cfg.h = h;
  cfg.duration = duration;
  return mb::run_case(m, spec, cfg);
}
}  // namespace

TEST_CASE("anytime: budget=N stops each correction after N sweeps, and the error falls as N grows", "[impulse][schmitt2003]") {
  // the closed loop of 8 rods: Gauss-Seidel joint by joint needs many sweeps per correction, so a
  // small budget leaves the joints visibly open
  const mb::Model m = mb::build_model("loop:n=8");
  double last = INFINITY;
  for (int budget : {1, 3, 10, 30}) {
    const mb::CaseRecord r = run(m, "iterative:budget=" + std::to_string(budget), 0.01, 1.0);
    INFO("budget " << budget << ": " << r.reason);
    REQUIRE(r.ok());
    CHECK(r.stats.budget_stops > 0);
    const double cd = *r.metrics.get("CD_pos_max");
    CHECK(cd < 0.5 * last);  // each tripling of the budget at least halves the joints' gap
    last = cd;
  }
  // a budget the corrections never reach: the same numbers as without one, bit for bit
  const mb::CaseRecord plain = run(m, "iterative", 0.01, 1.0), big = run(m, "iterative:budget=1000", 0.01, 1.0);
  REQUIRE(plain.ok());
  REQUIRE(big.ok());
  CHECK(big.stats.budget_stops == 0);
  CHECK(*big.metrics.get("CD_pos_max") == *plain.metrics.get("CD_pos_max"));
  CHECK(*big.metrics.get("E_end") == *plain.metrics.get("E_end"));
  CHECK(*plain.metrics.get("CD_pos_max") < 1e-5);
}

TEST_CASE("adaptive: a step that does not converge is halved, and the step grows back", "[impulse][schmitt2003]") {
  // the chain of 10 point masses at h = 0.2 s: the joint-by-joint position correction diverges
  const mb::Model m = mb::build_model("chain:n=10");
  const mb::CaseRecord fixed = run(m, "iterative", 0.2, 2.0);
  CHECK(!fixed.ok());
  CHECK_THAT(fixed.reason, Catch::Contains("did not converge"));
  const mb::CaseRecord adaptive = run(m, "iterative:adaptive=on", 0.2, 2.0);
  INFO(adaptive.reason);
  REQUIRE(adaptive.ok());
  CHECK(adaptive.stats.rejected_steps > 0);
  CHECK(adaptive.stats.h_min <= 0.1 + 1e-12);
  CHECK(std::abs(adaptive.stats.h_max - 0.2) < 1e-12);  // grown back to the driver's step
  CHECK(adaptive.stats.internal_steps > 10);
  CHECK(*adaptive.metrics.get("CD_pos_max") < 1e-5);
  // where every step converges, adaptive=on changes nothing: one internal step per step
  const mb::CaseRecord plain = run(m, "iterative", 0.01, 0.5), same = run(m, "iterative:adaptive=on", 0.01, 0.5);
  REQUIRE(plain.ok());
  REQUIRE(same.ok());
  CHECK(same.stats.rejected_steps == 0);
  CHECK(same.stats.internal_steps == 50);
  CHECK(std::abs(same.stats.h_min - 0.01) < 1e-12);
  CHECK(std::abs(same.stats.h_max - 0.01) < 1e-12);
  CHECK(*same.metrics.get("E_end") == *plain.metrics.get("E_end"));
  CHECK(*same.metrics.get("CD_pos_max") == *plain.metrics.get("CD_pos_max"));
}

TEST_CASE("repair: joints that start broken are brought back to 1e-9", "[impulse][schmitt2003]") {
  const mb::Model m = mb::build_model("broken-chain");
  const mb::JointError e0 = mb::max_joint_error(m, mb::initial_state(m));
  CHECK(e0.pos > 0.3);
  CHECK(e0.rot > 0.5);
  CHECK((mb::model_features(m) & mb::kBrokenJoints) != 0);
  // moved off by 0.5 m, or turned by 45 degrees: the methods that solve the joints at once repair
  // them within two steps and go on; the joints hold to the tolerance to the end
  for (const char* model : {"broken-chain:displace=0.5,rotate=0", "broken-chain:displace=0,rotate=45"}) {
    const mb::Model b = mb::build_model(model);
    for (const char* spec : {"sle:tol_p=1e-10,tol_v=1e-10", "linear:tol_p=1e-10,tol_v=1e-10", "tomcin"}) {
      const mb::CaseRecord r = run(b, spec, 0.01, 0.5);
      INFO(model << " " << spec << ": " << r.reason);
      REQUIRE(r.ok());
      const auto steps = r.metrics.get("repair_steps");
      REQUIRE(steps);
      CHECK(*steps <= 2);
      const mb::JointError e = mb::max_joint_error(b, mbtest::simulate(b, spec, 0.01, 0.5));
      CHECK(std::max(e.pos, e.rot) < 1e-9);
    }
  }
  // 0.5 m and 90 degrees: every impulse method reaches 1e-9 (the record keeps the step, whatever
  // happens after it); a run that then fails is a recorded failure with its reason
  for (const char* spec : {"iterative:tol_p=1e-10,tol_v=1e-10", "sle:tol_p=1e-10,tol_v=1e-10", "linear:tol_p=1e-10,tol_v=1e-10",
                           "tomcin"}) {
    const mb::CaseRecord r = run(m, spec, 0.01, 0.6);
    INFO(spec << ": " << r.reason);
    const auto steps = r.metrics.get("repair_steps");
    REQUIRE(steps);
    CHECK(*steps >= 1);
    CHECK(*steps <= 55);
    if (!r.ok()) CHECK_THAT(r.reason, Catch::Contains("did not converge"));
  }
  // with repair=step the look-ahead correction cannot close 0.5 m and 90 degrees in one step
  const mb::CaseRecord step = run(m, "sle:tol_p=1e-10,tol_v=1e-10,repair=step", 0.01, 0.1);
  CHECK(!step.ok());
  // a method without position correction refuses the model by name
  CHECK_THROWS_WITH(run(m, "GC4", 0.01, 0.5), Catch::Contains("GC4 does not support broken joints"));
  // the catalog's other models start with their joints closed
  for (const auto& entry : mb::model_catalog()) {
    if (entry.name == "broken-chain") continue;
    INFO(entry.name);
    CHECK((mb::model_features(mb::build_model(entry.name)) & mb::kBrokenJoints) == 0);
  }
}
