// The cloth of bayer2009 s.5 and the `particles` method (bayer2009 s.3-4): the cloth's structure
// and its bad input; every rod within its extensibility after every step for every combination of
// the optimizations; 4.2 and 4.3 leave the result as it is (4.4 does not: the test can tell);
// a free particle falls exactly; a rod pendulum converges to `ref` at first order.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "analysis/timing.hpp"
#include "core/error.hpp"
#include "experiments/experiment.hpp"
#include "models/catalog.hpp"
#include "report/report.hpp"
#include "test_util.hpp"

namespace {

// the combinations of bayer2009's Table 1 and Figures 2-3, plus 4.1 off
const char* const kVariants[] = {"o41=off", "", "o43=on", "o42=on", "o42=on,o43=on", "o44=on", "o43=on,o44=on", "o42=on,o44=on",
                                 "o42=on,o43=on,o44=on"};

std::string spec(const std::string& opts) { return opts.empty() ? "particles" : "particles:" + opts; }

// the largest rod error after a step relative to its allowed stretch, | |b - a| - L | / (ext L)
double worst_stretch(const mb::Model& m, const mb::State& s) {
  double worst = 0;
  for (const mb::Joint& j : m.joints) {
    const double d = (s.bodies[j.b].x - s.bodies[j.a].x).norm();
    worst = std::max(worst, std::abs(d - j.length) / (j.extensibility * j.length));
  }
  return worst;
}

// the cloth of a scenario (make_cloth), checked
mb::Model cloth(int n, double ext_percent, int scenario) {
  mb::ClothParams p;
  p.n = n;
  p.extensibility = ext_percent / 100;
  p.scenario = scenario;
  mb::Model m = mb::make_cloth(p, fmt::format("cloth:n={},ext={},scenario={}", n, ext_percent, scenario));
  mb::check_model(m, m.info.name);
  return m;
}

// steps `method` over `steps` steps of h = 0.01 s; the worst relative stretch after any step
double run(const mb::Model& m, const std::string& method, int steps, mb::State& s, mb::StepStats& st) {
  auto meth = mb::make_method(method);
  s = mb::initial_state(m);
  meth->init(m, s);
  double worst = 0;
  for (int i = 1; i <= steps; ++i) {
    meth->step(m, s, 0.01, st);
    worst = std::max(worst, worst_stretch(m, s));
  }
  return worst;
}

}  // namespace

TEST_CASE("cloth: the grid, its fixed rows and its rods", "[particles][cloth]") {
  const mb::Model m1 = mb::build_model("cloth");
  CHECK(m1.bodies.size() == 400);
  CHECK(m1.dynamic_body_count() == 380);            // the left row is fixed
  CHECK(m1.joints.size() == 380 + 380 - 19);        // no rod between two fixed particles
  CHECK(m1.gravity == mb::Vec3(0, -10, 0));
  CHECK(m1.info.default_h == 0.01);
  CHECK(m1.info.duration == 2);
  for (const mb::Joint& j : m1.joints) {
    CHECK(mbtest::is_close(j.length, 1.0 / 19, 1e-15));
    CHECK(j.extensibility == 0.01);                  // 1 % by default
  }
  mb::ClothParams p3;
  p3.n = 5;
  p3.scenario = 3;
  p3.extensibility = 1e-5;
  const mb::Model m3 = mb::make_cloth(p3, "cloth3");
  CHECK(m3.dynamic_body_count() == 15 + 1);         // the first and last rows along z are fixed; the heavy sphere
  CHECK(m3.joints.size() == 20 + 20 - 8);
  CHECK(m3.joints[0].extensibility == 1e-5);
  // the fixed rows 0.9 m apart at y = 0, every column hanging between them as an arc of rods of
  // their full length (at rest, unstretched), its lowest point in the middle
  for (int i = 0; i < 5; ++i) {
    const mb::Vec3 top = m3.bodies[i * 5].position, bottom = m3.bodies[i * 5 + 4].position;
    CHECK(top.y() == 0);
    CHECK(bottom.y() == 0);
    CHECK(bottom.z() - top.z() == Approx(0.9).epsilon(1e-12));
    CHECK(m3.bodies[i * 5 + 2].position.y() < -0.1);
    CHECK(m3.bodies[i * 5 + 2].position.z() == Approx(0.5).epsilon(1e-12));
  }
  for (const mb::Joint& j : m3.joints) CHECK(mbtest::is_close((m3.bodies[j.b].position - m3.bodies[j.a].position).norm(), j.length, 1e-12));
  // particles with a radius of a quarter of the spacing, and the sphere (1 kg, r = 0.2 m, 0.1 m above)
  REQUIRE(m3.shapes.size() == 26);
  CHECK(m3.shapes[0].radius == 0.25 * 0.25);
  const mb::Body& ball = m3.bodies[m3.shapes[25].body];
  CHECK(ball.mass == 1);
  CHECK(m3.shapes[25].radius == 0.2);
  CHECK(ball.position.y() - 0.2 - m3.bodies[12].position.y() == Approx(0.1));
  // span = 1: the taut cloth parallel to the floor
  const mb::Model taut = mb::build_model("cloth:n=5,scenario=3,span=1,sphere_mass=10");
  for (int k = 0; k < 25; ++k) CHECK(taut.bodies[k].position.y() == 0);
  CHECK(taut.bodies.back().mass == 10);
  CHECK_THROWS_AS(mb::build_model("cloth:scenario=3,span=1.5"), mb::InputError);
  CHECK_THROWS_AS(mb::build_model("cloth:scenario=3,sphere_mass=0"), mb::InputError);
  CHECK(m1.shapes.empty());  // scenario 1: no contacts
  const mb::Model m2 = mb::build_model("cloth:scenario=2");
  REQUIRE(m2.shapes.size() == 401);
  CHECK(m2.bodies[m2.shapes[400].body].is_static);
}

TEST_CASE("cloth: n = 1, a negative extensibility and an unfixed particle without mass are errors", "[particles][cloth]") {
  CHECK_THROWS_WITH(mb::build_model("cloth:n=1"), Catch::Contains("n = 1"));
  CHECK_THROWS_AS(mb::build_model("cloth:n=1"), mb::InputError);
  CHECK_THROWS_WITH(mb::build_model("cloth:ext=-1"), Catch::Contains("extensibility"));
  CHECK_THROWS_AS(mb::build_model("cloth:ext=-1"), mb::InputError);
  CHECK_THROWS_AS(mb::build_model("cloth:scenario=4"), mb::InputError);
  // the method's contacts are between spheres: another shape is refused with the reason
  mb::Model boxed = mb::build_model("cloth:n=3,scenario=2");
  boxed.shapes.back().type = mb::ShapeType::Box;
  boxed.shapes.back().half_extents = mb::Vec3(0.1, 0.1, 0.1);
  auto meth = mb::make_method("particles");
  CHECK_THROWS_WITH(meth->init(boxed, mb::initial_state(boxed)), Catch::Contains("between spheres"));
  mb::ClothParams p;
  p.n = 4;
  p.mass = 0;
  const mb::Model m = mb::make_cloth(p, "massless");
  CHECK_THROWS_WITH(mb::check_model(m, "massless"), Catch::Contains("mass must be positive"));
}

TEST_CASE("particles: every rod within its extensibility after every step, every optimization", "[particles][full]") {
  for (double ext : {0.001, 1.0, 10.0}) {
    for (int scenario : {1, 3}) {
      const mb::Model m = cloth(8, ext, scenario);
      for (const char* v : kVariants) {
        for (const char* vc : {"on", "off"}) {
          const std::string method = spec(std::string(v) + (*v ? "," : "") + "vc=" + vc);
          INFO(method << " on " << m.info.name);
          mb::State s;
          mb::StepStats st;
          const double worst = run(m, method, 60, s, st);
          CHECK(worst <= 1 + 1e-9);
          CHECK(st.pos_iterations >= 60);
          // the cloth has moved (it is not held up by a method that does nothing): it swings down,
          // or the sphere has fallen onto the hanging cloth and pressed it down
          double lowest = 0;
          for (const mb::BodyState& b : s.bodies) lowest = std::min(lowest, b.x.y());
          double lowest0 = 0;
          for (const mb::Body& b : m.bodies) lowest0 = std::min(lowest0, b.position.y());
          CHECK(lowest < (scenario == 1 ? -0.3 : lowest0 - 1e-3));
        }
      }
    }
  }
}

TEST_CASE("particles: the cloth meets the spheres of scenarios 2 and 3", "[particles][cloth][contacts]") {
  // after every step: no particle deeper in a sphere (or in another particle) than eps_d = 0.1 of
  // the two radii, every rod within its extensibility; and the spheres did stop the cloth (or the
  // cloth the sphere): without the contacts the checks on the motion fail
  for (double ext : {10.0, 1.0}) {
    for (int scenario : {2, 3}) {
      if (scenario == 3 && ext < 10) continue;  // 1 %: 500 sweeps per step, too long under ASan
      const mb::Model m = cloth(8, ext, scenario);
      auto meth = mb::make_method("particles");
      mb::State s = mb::initial_state(m);
      meth->init(m, s);
      mb::StepStats st;
      double worst_stretch_rel = 0, worst_pen_rel = 0;
      for (int i = 1; i <= 200; ++i) {
        meth->step(m, s, 0.01, st);
        s.t = i * 0.01;
        worst_stretch_rel = std::max(worst_stretch_rel, worst_stretch(m, s));
        for (size_t a = 0; a < m.shapes.size(); ++a)
          for (size_t b = a + 1; b < m.shapes.size(); ++b) {
            const double L = m.shapes[a].radius + m.shapes[b].radius;
            const double d = (s.bodies[m.shapes[a].body].x - s.bodies[m.shapes[b].body].x).norm();
            worst_pen_rel = std::max(worst_pen_rel, (L - d) / (0.1 * L));
          }
      }
      INFO(m.info.name << ": worst stretch / allowed " << worst_stretch_rel << ", worst penetration / eps_d " << worst_pen_rel
                       << ", contacts at most " << st.contacts);
      CHECK(worst_stretch_rel <= 1 + 1e-9);
      CHECK(worst_pen_rel <= 1 + 1e-9);
      CHECK(st.contacts > 0);
      if (scenario == 2) {
        // the free edge's middle rests on the sphere: it is above the sphere's bottom and out of it
        const mb::Vec3 edge = s.bodies[m.info.tracked_body].x, centre = m.bodies.back().position;
        INFO("free edge middle at " << edge.transpose());
        CHECK(edge.y() > centre.y() - 0.25);
        CHECK((edge - centre).norm() > 0.25 * 0.9);
      } else {
        // the sphere has fallen onto the cloth and is held by it: 1.1 m of cloth between rows 0.9 m
        // apart hangs at most sqrt(0.55^2 - 0.45^2) = 0.32 m deep at 10 %
        const double y = s.bodies.back().x.y(), y0 = m.bodies.back().position.y();
        INFO("the sphere's centre at y = " << y << " m, from y = " << y0 << " m (free fall: " << y0 - 19.8 << " m)");
        CHECK(y < y0 - 0.1);
        CHECK(y > -0.32 + 0.2 - 0.03);
      }
    }
  }
}

TEST_CASE("particles: 4.2 and 4.3 change the runtime, not the result - 4.4 changes the result", "[particles]") {
  for (const auto& [ext, scenario] : {std::pair{1.0, 1}, std::pair{0.001, 1}, std::pair{10.0, 3}, std::pair{10.0, 2}}) {
    const mb::Model m = cloth(10, ext, scenario);
    const std::string model = m.info.name;
    mb::State plain, plain44;
    mb::StepStats st;
    run(m, "particles", 100, plain, st);
    run(m, "particles:o44=on", 100, plain44, st);
    const double eps = m.joints[0].extensibility * m.joints[0].length;
    for (const char* v : {"o43=on", "o42=on", "o42=on,o43=on"}) {
      mb::State s;
      run(m, spec(v), 100, s, st);
      const double d = mbtest::max_position_difference(plain, s);
      INFO(model << ": " << v << " differs from the plain solver by " << d << " m after 100 steps (eps " << eps << " m)");
      CHECK(d <= 1e-3 * eps);
    }
    // (not on scenario 3: there, while the heavy sphere lands, 4.4's stopping points turn a
    // round-off difference (5e-16 m after 20 steps) into another tolerance decision, and the o44
    // runs part by up to 3.7 cm after 100 steps; docs/findings.md "bayer2009")
    if (scenario == 3) continue;
    for (const char* v : {"o43=on,o44=on", "o42=on,o44=on", "o42=on,o43=on,o44=on"}) {
      mb::State s;
      run(m, spec(v), 100, s, st);
      const double d = mbtest::max_position_difference(plain44, s);
      INFO(model << ": " << v << " differs from o44=on by " << d << " m after 100 steps (eps " << eps << " m)");
      CHECK(d <= 1e-3 * eps);
    }
    // the check can fail: 4.4 stops at another point within the tolerance
    const double d44 = mbtest::max_position_difference(plain, plain44);
    INFO(model << ": o44=on differs from the plain solver by " << d44 << " m");
    CHECK(d44 > 1e-2 * eps);
  }
}

TEST_CASE("particles: p'_max limits each correction - more sweeps, the same tolerance, and a large one changes nothing", "[particles]") {
  const mb::Model m = cloth(6, 1.0, 1);
  for (const char* v : {"", "o42=on,", "o42=on,o43=on,o44=on,"}) {
    INFO(v);
    mb::State free_s, limited_s, large_s;
    mb::StepStats free_st, limited_st, large_st;
    run(m, spec(std::string(v) + "vc=on"), 20, free_s, free_st);
    // a particle of the 6 x 6 cloth weighs 1/36 kg; 1e-6 kg m is a 0.07 mm step of a particle pair
    const double worst = run(m, spec(std::string(v) + "pmax=1e-6"), 20, limited_s, limited_st);
    run(m, spec(std::string(v) + "pmax=1e3"), 20, large_s, large_st);
    CHECK(worst <= 1 + 1e-9);
    CHECK(limited_st.pos_iterations > 2 * free_st.pos_iterations);
    CHECK(large_st.pos_iterations == free_st.pos_iterations);
    CHECK(mbtest::max_position_difference(large_s, free_s) == 0);
  }
  CHECK_THROWS_AS(mb::make_method("particles:pmax=0"), mb::InputError);
}

TEST_CASE("particles: a free particle falls exactly - a rod pendulum converges to ref at order 1", "[particles]") {
  mb::Model m;
  m.gravity = mb::Vec3(0, -10, 0);
  mb::Body b;
  b.name = "free";
  b.particle = true;
  b.mass = 2;
  b.velocity = mb::Vec3(1, 2, 3);
  m.bodies.push_back(b);
  m.info.name = "free particle";
  const mb::State s = mbtest::simulate(m, "particles", 0.01, 1.0);
  CHECK(mbtest::is_close(s.bodies[0].x.x(), 1.0, 1e-12));
  CHECK(mbtest::is_close(s.bodies[0].x.y(), 2.0 - 5.0, 1e-12));
  CHECK(mbtest::is_close(s.bodies[0].v.y(), 2.0 - 10.0, 1e-12));

  // the pendulum: particles converges to ref at first order (the impulse along the previews'
  // direction, bayer2009 s.4.2, leaves an O(h^2) tangential velocity error per step)
  const mb::Model p = mb::build_model("pendulum90");
  const mb::State r = mbtest::simulate(p, "ref", 0.05, 1.0);
  const double e1 = mbtest::max_position_difference(mbtest::simulate(p, "particles:tol_p=1e-12,eps_v=1e-12", 0.01, 1.0), r);
  const double e2 = mbtest::max_position_difference(mbtest::simulate(p, "particles:tol_p=1e-12,eps_v=1e-12", 0.005, 1.0), r);
  INFO("after 1 s: h = 0.01: " << e1 << " m from ref, h = 0.005: " << e2 << " m; order " << std::log2(e1 / e2));
  CHECK(e2 < 0.1);
  CHECK(std::log2(e1 / e2) > 0.7);
  CHECK(std::log2(e1 / e2) < 1.5);
}

TEST_CASE("bayer2009 timing: the grid of variants, ratios to the reference with the same variants, Table 1 and the percents", "[particles][timing]") {
  const std::string root = std::string(MBBENCH_TEST_DATA) + "/../..";
  const mb::TimingExperiment e = mb::read_timing_experiment(root + "/results/experiments/bayer2009.toml");
  CHECK(e.per == "run");
  CHECK(e.run_steps == 200);
  CHECK(e.warm_steps == 0);
  const auto grid = mb::timing_grid(e);
  CHECK(grid.size() == 9 * 8 * 2);  // 3 scenarios x 3 extensibilities x 8 optimization sets x vc on/off
  CHECK(grid[1].model == "cloth:scenario=1,ext=0.001,n=20");
  CHECK(grid[1].method == "particles:vc=on");
  CHECK(grid[1].name == "step/particles:vc=on/cloth:scenario=1,ext=0.001,n=20");
  CHECK(mb::read_timing_experiment(root + "/results/experiments/bayer2009-fig4.toml").joints.back() == 40);

  // synthetic times: the reference 10 ms per step at every case; a method 5 ms, but 20 ms with vc=on
  // at scenario 2. Its speed-ups: 2 (x3 cases) and 0.5 (x1): best 2, worst 0.5, mean 1.625
  nlohmann::json b;
  b["context"] = {{"mbbench_method_variants", "vc=off;vc=on"}, {"mbbench_experiment_name", "bayer2009"}};
  for (const char* mv : {"scenario=1,ext=1", "scenario=2,ext=1"})
    for (const char* v : {"vc=off", "vc=on"}) {
      const std::string m = std::string("particles:") + v, o = std::string("particles:o42=on,") + v;
      const bool slow = std::string(mv) == "scenario=2,ext=1" && std::string(v) == "vc=on";
      b["benchmarks"].push_back({{"name", mb::timing_case_name(m, 20, "cloth", "n", mv)}, {"run_type", "iteration"},
                                 {"real_time", 10.0}, {"time_unit", "ms"}});
      b["benchmarks"].push_back({{"name", mb::timing_case_name(o, 20, "cloth", "n", mv)}, {"run_type", "iteration"},
                                 {"real_time", slow ? 20.0 : 5.0}, {"time_unit", "ms"}});
    }
  const mb::Paper paper = mb::read_paper(root + "/results/paper/bayer2009.toml");
  const mb::TimingData d = mb::analyse_timing(b, "particles", paper);
  REQUIRE(d.series.size() == 8);
  CHECK(d.variants);
  CHECK(d.series[1].spec == "particles:o42=on,vc=off @ scenario=1,ext=1");
  CHECK(d.series[1].base == "particles:o42=on");
  CHECK(d.series[1].method_variant == "vc=off");
  REQUIRE(d.speedups.size() == 1);
  CHECK(d.speedups[0].cases == 4);
  CHECK(d.speedups[0].best == Approx(2.0));
  CHECK(d.speedups[0].worst == Approx(0.5));
  CHECK(d.speedups[0].average == Approx(1.625));
  CHECK(d.speedups[0].worst_case == "scenario=2,ext=1, vc=on");
  REQUIRE(d.speedups[0].paper);
  CHECK(d.speedups[0].paper->average == 1.46);  // Table 1, 4.2
  // Figure 2, 4.2: average without vc 72 % (ours 50), with vc 66 % (ours (50 + 200) / 2 = 125)
  int checked = 0;
  for (const auto& c : d.percents) {
    if (c.paper.method != "particles:o42=on" || c.paper.what != "average") continue;
    REQUIRE(c.ours);
    CHECK(*c.ours == Approx(c.paper.variant == "vc=off" ? 50.0 : 125.0));
    ++checked;
  }
  CHECK(checked == 2);
  CHECK(d.claims.empty());  // Figure 4's statements belong to bayer2009-fig4
  const std::string md = mb::timing_markdown(d);
  CHECK_THAT(md, Catch::Contains("Speed-up over every case"));
  CHECK_THAT(md, Catch::Contains("| scenario=2,ext=1 | vc=on | 20 | 10.0 | 200 |"));
}
