// The driver (sim/driver.hpp): the clock is t_i = i h, computed, never accumulated; the step
// count follows the documented rule for a duration that is not a multiple of h; a failure stops
// the run with its reason and time.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "models/catalog.hpp"
#include "sim/driver.hpp"

namespace {

// a method that does nothing and adds h to state.t (and one that records the t it was handed)
class NullMethod final : public mb::Method {
 public:
  const mb::MethodInfo& info() const override {
    static const mb::MethodInfo i = [] {
      mb::MethodInfo x;
      x.name = "null";
      return x;
    }();
    return i;
  }
  double last_t = -1;

 private:
  void do_init(const mb::Model&, const mb::State&) override {}
  void do_step(const mb::Model&, mb::State& s, double, mb::StepStats&) override { last_t = s.t; }
};

class Counter final : public mb::Observer {
 public:
  void begin(const mb::Model&, const mb::State&, const mb::RunContext&, const mb::StepView&) override {}
  void observe(const mb::Model&, const mb::State& s, const mb::StepView& v) override {
    ok = ok && s.t == static_cast<double>(v.step) * h;
    ++n;
  }
  void write(mb::Metrics&) const override {}
  double h = 0;
  long n = 0;
  bool ok = true;
};

}  // namespace

TEST_CASE("driver: t after 10^7 steps is exactly k h", "[driver][full]") {
  const mb::Model model = mb::build_model("pendulum10");
  NullMethod m;
  mb::State s = mb::initial_state(model);
  m.init(model, s);
  mb::StepPlan plan;
  plan.h = plan.h_requested = 0.001;  // not a binary fraction: an accumulated t drifts
  plan.steps = 10'000'000;
  plan.duration = 1e4;
  Counter c;
  c.h = plan.h;
  // the state does not move, so the driver's checks pass; only the clock is under test
  const mb::RunOutcome out = mb::simulate(model, m, s, plan, {&c});
  CHECK(out.steps_done == plan.steps);
  CHECK(c.n == plan.steps);
  CHECK(c.ok);                                     // t_i == i h at every step
  CHECK(s.t == 10'000'000.0 * 0.001);              // exactly k h
  CHECK(m.last_t == 9'999'999.0 * 0.001);          // the method was handed t_{k-1} = (k-1) h
  double acc = 0;
  for (long i = 0; i < plan.steps; ++i) acc += plan.h;
  CHECK(acc != s.t);  // an accumulated clock would not have been exact
}

TEST_CASE("driver: the step count for a duration that is not a multiple of h", "[driver]") {
  const mb::Model model = mb::build_model("double-pendulum");
  auto steps = [&](double h, double d, mb::StepCount rule) {
    mb::RunConfig c;
    c.h = h;
    c.duration = d;
    c.steps = rule;
    return mb::plan_steps(model, c).steps;
  };
  // 1 s at h = 0.3: floor takes the 3 steps ending at or before 1 s; ceil 4; round 3 (1.2 is 0.2 past)
  CHECK(steps(0.3, 1.0, mb::StepCount::Floor) == 3);
  CHECK(steps(0.3, 1.0, mb::StepCount::Ceil) == 4);
  CHECK(steps(0.3, 1.0, mb::StepCount::Round) == 3);
  CHECK(steps(0.4, 1.0, mb::StepCount::Round) == 3);  // 1.2 is 0.2 past: nearer than h/2
  // a whole multiple in decimal is a whole multiple for every rule, whatever D/h rounds to
  for (auto rule : {mb::StepCount::Floor, mb::StepCount::Ceil, mb::StepCount::Round}) {
    CHECK(steps(0.1, 60, rule) == 600);
    CHECK(steps(0.01, 0.3, rule) == 30);
  }
  // a step longer than the duration, or a step count past the limit, is an input error
  CHECK_THROWS_AS(steps(2, 1, mb::StepCount::Floor), mb::InputError);
  CHECK_THROWS_AS(steps(1e-300, 1, mb::StepCount::Floor), mb::InputError);
  CHECK_THROWS_AS(steps(-1, 1, mb::StepCount::Floor), mb::InputError);
  CHECK_THROWS_AS(steps(0.1, 1e300, mb::StepCount::Floor), mb::InputError);
}

TEST_CASE("driver: a divergence stops the run with its reason and time", "[driver]") {
  const mb::Model model = mb::build_model("pendulum90");
  auto m = mb::make_method("LM4");
  mb::State s = mb::initial_state(model);
  m->init(model, s);
  mb::RunConfig c;
  c.h = 0.08;  // schmitt2005 marks LM4 'fail' on Pendulum90 at large steps (rounded to T/30)
  c.duration = 60;
  const mb::StepPlan plan = mb::plan_steps(model, c);
  const mb::RunOutcome out = mb::simulate(model, *m, s, plan, {});
  REQUIRE(out.failure);
  CHECK_THAT(*out.failure, Catch::Contains("exceeds 1 m"));
  CHECK(out.fail_time == static_cast<double>(out.steps_done + 1) * plan.h);
  CHECK(out.steps_done < plan.steps);
}
