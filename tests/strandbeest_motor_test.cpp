// strandbeest:motor=on (models/catalog/mechanisms.cpp): a velocity motor on the crank's bearing.
// With the frame fixed the crank turns at the motor's 1 rev/s and every pin holds; on its floor the
// machine moves (docs/findings.md, tomcin2014: how far it gets). Jansen's stride from his lengths.
#include <cmath>

#include <catch2/catch.hpp>

#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace {
mb::CaseRecord run(const mb::Model& m, double duration) {
  mb::RunConfig cfg;
  cfg.h = 0.01;
  cfg.duration = duration;
  cfg.samples = {duration};
  cfg.ref_error = false;
  return mb::run_case(m, "tomcin", cfg);
}
}  // namespace

TEST_CASE("strandbeest: motor=on turns the crank at 1 rev/s, and on its floor the frame moves", "[strandbeest][motors]") {
  const mb::Model fixed = mb::build_model("strandbeest:legs=2,motor=on,fixed=on");
  REQUIRE(fixed.motors.size() == 1);
  REQUIRE(fixed.bodies[0].is_static);
  const mb::CaseRecord turn = run(fixed, 0.5);
  INFO(turn.reason);
  REQUIRE(turn.ok());
  REQUIRE(turn.samples.size() == 1);
  // the crank (body 1; the static frame has no sample)
  CHECK(turn.samples[0].angular_velocities[0][2] == Approx(2 * M_PI).margin(1e-6));
  CHECK(*turn.metrics.get(mb::metric::CD_pos_max) < 1e-8);

  // the feet on the floor: in 0.4 s (tomcin's velocity correction stalls at 0.46 s) it goes to -x
  const mb::CaseRecord walk = run(mb::build_model("strandbeest:legs=4,motor=on"), 0.4);
  INFO(walk.reason);
  REQUIRE(walk.ok());
  const auto d = walk.metrics.get(mb::metric::walk_distance);
  REQUIRE(d);
  CHECK(*d < -0.1);

  // the foot path's horizontal extent within 2 mm of its lowest point (the ground phase)
  const double stride = mb::strandbeest_stride(0.002);
  CHECK(stride > 0.40);
  CHECK(stride < 0.45);
  CHECK(mb::strandbeest_stride(0.005) > stride);
}
