// strandbeest:motor=on (models/catalog/mechanisms.cpp): a velocity motor on the crank's bearing.
// With the frame fixed the crank turns at the motor's 1 rev/s and every pin holds; on its floor the
// machine walks to -x (docs/findings.md, "The Strandbeest on its crank"). Jansen's stride from his
// lengths.
#include <cmath>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace {
mb::CaseRecord run(const mb::Model& m, const std::string& method, double duration, std::vector<double> samples) {
  mb::RunConfig cfg;
  cfg.h = 0.01;
  cfg.duration = duration;
  cfg.samples = std::move(samples);
  cfg.ref_error = false;
  return mb::run_case(m, method, cfg);
}
// A foot is on the ground (its path within 2 mm of its lowest point) for 31 % of a turn and moves
// one stride relative to the frame in that time; 12 legs in 6 crank phases always have a foot
// there, so the frame goes stride / 0.31 per turn, less the slip, and more or less where the
// stance's curvature hands the load on (docs/findings.md, "The Strandbeest on its crank")
double walk_per_turn(double stride) { return stride / 0.31; }
}  // namespace

TEST_CASE("strandbeest: motor=on turns the crank at 1 rev/s", "[strandbeest][motors]") {
  const mb::Model fixed = mb::build_model("strandbeest:legs=2,motor=on,fixed=on");
  REQUIRE(fixed.motors.size() == 1);
  REQUIRE(fixed.bodies[0].is_static);
  const mb::CaseRecord turn = run(fixed, "tomcin", 0.5, {0.5});
  INFO(turn.reason);
  REQUIRE(turn.ok());
  REQUIRE(turn.samples.size() == 1);
  // the crank (body 1; the static frame has no sample)
  CHECK(turn.samples[0].angular_velocities[0][2] == Approx(2 * M_PI).margin(1e-6));
  CHECK(*turn.metrics.get(mb::metric::CD_pos_max) < 1e-8);

  // the foot path's horizontal extent within 2 mm of its lowest point (the ground phase)
  const double stride = mb::strandbeest_stride(0.002);
  CHECK(stride > 0.40);
  CHECK(stride < 0.45);
  CHECK(mb::strandbeest_stride(0.005) > stride);
}

TEST_CASE("strandbeest: on its floor it walks to -x, stride / 0.31 per crank turn", "[strandbeest][motors]") {
  const double stride = mb::strandbeest_stride(0.002);
  const mb::CaseRecord walk = run(mb::build_model("strandbeest:legs=12,motor=on"), "tomcin", 1, {0.5, 1});
  INFO(walk.reason);
  REQUIRE(walk.ok());
  REQUIRE(walk.samples.size() == 2);
  // the second half turn (the first starts with the frame at rest and the legs moving)
  const double per_turn = 2 * (walk.samples[1].positions[0][0] - walk.samples[0].positions[0][0]);
  INFO("distance per crank turn " << per_turn << " m, stride " << stride << " m");
  // to -x: the way a wheel on the crank's shaft (counter-clockwise seen from +z) would roll
  CHECK(per_turn < 0);
  CHECK(-per_turn == Approx(walk_per_turn(stride)).epsilon(0.25));
  // the velocity floor of the linkage's redundant rows: within 10 eps_V
  CHECK(*walk.metrics.get(mb::metric::CD_vel_max) <= 1e-8);
  CHECK(*walk.metrics.get(mb::metric::CD_pos_max) < 1e-8);
  // and the record counts the velocity phases that ended there
  CHECK(walk.stats.floor_stops > 0);

  // without the floor the velocity correction fails (4 legs: at t = 0.46 s), its error stuck above eps_V
  const mb::CaseRecord strict = run(mb::build_model("strandbeest:legs=4,motor=on"), "tomcin:velocity_floor=off", 1, {});
  CHECK(!strict.ok());
  CHECK(strict.reason.find("velocity correction did not converge") != std::string::npos);
}

TEST_CASE("strandbeest: five crank turns, each within 15 % of stride / 0.31", "[.strandbeest-walk]") {
  const double stride = mb::strandbeest_stride(0.002);
  const mb::CaseRecord walk = run(mb::build_model("strandbeest:legs=12,motor=on"), "tomcin", 5, {1, 2, 3, 4, 5});
  INFO(walk.reason);
  REQUIRE(walk.ok());
  REQUIRE(walk.samples.size() == 5);
  for (size_t k = 1; k < walk.samples.size(); ++k) {
    const double turn = walk.samples[k].positions[0][0] - walk.samples[k - 1].positions[0][0];
    INFO("turn " << k + 1 << ": " << turn << " m");
    CHECK(-turn == Approx(walk_per_turn(stride)).epsilon(0.15));
  }
}
