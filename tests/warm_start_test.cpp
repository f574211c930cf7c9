// Warm starting the impulse methods (ImpulseOptions::warm_start): each phase begins with the
// impulses the same phase of the step before ended with. On the six-legged walker without
// friction (models/catalog/walker.cpp), standing on its feet, the joints and contacts carry the
// body's weight with nearly the same impulses every step: `iterative` then needs fewer sweeps per
// step than from zero, and reaches the same fixed points within the tolerances. A warm start with
// a wrong sign starts farther from them than zero does, and needs more sweeps than cold.
#include <algorithm>
#include <cmath>

#include <catch2/catch.hpp>

#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace {
mb::CaseRecord run(const char* model, const char* method, double duration) {
  mb::RunConfig cfg;
  cfg.h = 0.01;
  cfg.duration = duration;
  cfg.samples = {duration};
  cfg.ref_error = false;
  return mb::run_case(mb::build_model(model), method, cfg);
}
// the largest distance between the two records' body positions (or velocities) at their last sample
double difference(const mb::CaseRecord& a, const mb::CaseRecord& b, bool velocities) {
  REQUIRE(a.samples.size() == 1);
  REQUIRE(b.samples.size() == 1);
  const auto& pa = velocities ? a.samples[0].velocities : a.samples[0].positions;
  const auto& pb = velocities ? b.samples[0].velocities : b.samples[0].positions;
  REQUIRE(pa.size() == pb.size());
  double d = 0;
  for (size_t k = 0; k < pa.size(); ++k)
    d = std::max(d, std::hypot(pa[k][0] - pb[k][0], pa[k][1] - pb[k][1], pa[k][2] - pb[k][2]));
  return d;
}
}  // namespace

TEST_CASE("warm start: iterative on the frictionless walker needs fewer sweeps and reaches the cold run's states",
          "[warm_start][walker][impulse][full]") {
  // 1 s: the stance of the first tripod, its lift and the second tripod's stance
  const mb::CaseRecord cold = run("walker:mu=0", "iterative:max_iter=100000,warm_start=off", 1.0);
  const mb::CaseRecord warm = run("walker:mu=0", "iterative:max_iter=100000,warm_start=on", 1.0);
  INFO(cold.reason);
  INFO(warm.reason);
  REQUIRE(cold.ok());
  REQUIRE(warm.ok());
  const double steps = static_cast<double>(cold.steps_done);
  REQUIRE(warm.steps_done == cold.steps_done);
  const double cold_p = static_cast<double>(cold.stats.pos_iterations) / steps;
  const double cold_v = static_cast<double>(cold.stats.vel_iterations) / steps;
  const double warm_p = static_cast<double>(warm.stats.pos_iterations) / steps;
  const double warm_v = static_cast<double>(warm.stats.vel_iterations) / steps;
  INFO("sweeps per step: position " << cold_p << " cold, " << warm_p << " warm; velocity " << cold_v << " cold, " << warm_v
                                    << " warm");
  // from zero the joints' Gauss-Seidel passes the body's motion through the light bars one joint
  // per visit (docs/findings.md, the walker); the impulses of the step before are within a
  // fraction of a percent of the step's, which the sweeps still take hundreds to remove, but fewer
  CHECK(cold_p > 600);
  CHECK(warm_p < cold_p / 2);
  CHECK(warm_v < 0.8 * cold_v);
  // the joints within the tolerance (1e-6 m) every step
  CHECK(*warm.metrics.get(mb::metric::CD_pos_max) < 1e-6);
  // the same motion: the two runs' fixed points differ within the tolerances (1e-6 m, m/s)
  CHECK(difference(cold, warm, false) < 1e-5);
  CHECK(difference(cold, warm, true) < 1e-5);
}
