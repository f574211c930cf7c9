// schmitt2003's six-legged walking machine (models/catalog/walker.cpp): its motors make it walk to
// +x on friction; without its motors or without friction it does not get anywhere. The metrics
// walk_distance and slip, and the record's real-time factor.
#include <cmath>

#include <catch2/catch.hpp>

#include "methods/method.hpp"
#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace {
mb::CaseRecord run(const mb::Model& m, double duration, const std::string& method = "sle") {
  mb::RunConfig cfg;
  cfg.h = 0.01;
  cfg.duration = duration;
  cfg.samples = {duration};
  cfg.ref_error = false;
  return mb::run_case(m, method, cfg);
}
double metric(const mb::CaseRecord& r, const char* name) {
  const auto v = r.metrics.get(name);
  REQUIRE(v);
  return *v;
}
}  // namespace

TEST_CASE("walker: the motors walk it forward on friction, not without them or on a frictionless floor", "[walker][schmitt2003]") {
  const mb::Model m = mb::build_model("walker");
  REQUIRE(m.motors.size() == 12);
  // 2 s: the stride ramps up over the first period, then two strides of 0.06 m per period
  const mb::CaseRecord on = run(m, 2.0);
  INFO(on.reason);
  REQUIRE(on.ok());
  const double walked = metric(on, mb::metric::walk_distance);
  CHECK(walked > 0.1);
  CHECK(walked < 0.25);  // at most the commanded 0.06 + 2 x 0.06 m: the feet do not slide it ahead
  CHECK(metric(on, mb::metric::slip) < 0.05);
  CHECK(on.timing.realtime_factor > 0);
  CHECK(on.timing.realtime_factor ==
        Approx(static_cast<double>(on.steps_done) * on.h / on.timing.step_seconds_total).epsilon(1e-12));

  mb::Model off = m;
  off.motors.clear();  // the legs fold under the body
  const mb::CaseRecord limp = run(off, 2.0);
  INFO(limp.reason);
  REQUIRE(limp.ok());
  CHECK(!limp.metrics.get(mb::metric::walk_distance));  // no motors: not a walking machine
  REQUIRE(limp.samples.size() == 1);
  REQUIRE(on.samples.size() == 1);
  CHECK(on.samples[0].positions[0][0] == Approx(walked).margin(1e-12));  // walk_distance: the body's x (it starts at 0)
  CHECK(std::abs(limp.samples[0].positions[0][0]) < 0.06);  // the knees fold forward: it shifts a few cm, no more
  CHECK(limp.samples[0].positions[0][1] < on.samples[0].positions[0][1] - 0.02);  // it sank onto its folded legs

  const mb::CaseRecord ice = run(mb::build_model("walker:mu=0"), 2.0);
  INFO(ice.reason);
  REQUIRE(ice.ok());
  CHECK(std::abs(metric(ice, mb::metric::walk_distance)) < 0.01);  // momentum: nothing pushes the body
  CHECK(metric(ice, mb::metric::slip) > 0.05);
}

TEST_CASE("walker: simbody walks it on Simbody's compliant contacts and the gait tables' jumps", "[walker][schmitt2003][peers]") {
  if (!mb::find_method("simbody")) {
    WARN("simbody is not built, skipped");
    return;
  }
  // its feet on the ground at the ground's mu and on one another at their own (two surfaces a
  // pair), a foot on the body (the adapter's sphere-box tracker), the tables from point to point
  const mb::CaseRecord on = run(mb::build_model("walker"), 2.0, "simbody");
  INFO(on.reason);
  REQUIRE(on.ok());
  const double walked = metric(on, mb::metric::walk_distance);
  CHECK(walked > 0.1);
  CHECK(walked < 0.25);
  CHECK(metric(on, mb::metric::slip) < 0.05);
  CHECK(*on.metrics.get("PEN_max") < 0.005);  // compliant: the feet sink 2.7 mm
}
