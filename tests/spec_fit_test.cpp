// Spec strings, the registries' errors, and the order/factor fits.
#include <catch2/catch.hpp>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "core/error.hpp"
#include "core/spec.hpp"
#include "methods/method.hpp"
#include "analysis/fit.hpp"
#include "models/catalog.hpp"

TEST_CASE("spec strings parse names and options", "[spec]") {
  auto s = mb::Spec::parse("ref:tol=1e-12,stepper=bs");
  CHECK(s.name() == "ref");
  CHECK(s.get_double("tol", 0) == 1e-12);
  CHECK(s.get_string("stepper", "") == "bs");
  CHECK(s.text() == "ref:stepper=bs,tol=1e-12");
  CHECK_THROWS_AS(mb::Spec::parse("ref:tol"), mb::InputError);
  CHECK_THROWS_AS(mb::Spec::parse("ref:tol=1,tol=2"), mb::InputError);
  CHECK_THROWS_AS(mb::Spec::parse(":x=1"), mb::InputError);
  CHECK_THROWS_AS(mb::Spec::parse("chain:n=abc").get_int("n", 0), mb::InputError);
}

TEST_CASE("method options hold every declared option typed with its declared default", "[spec]") {
  const std::vector<mb::OptionInfo> declared = {mb::OptionInfo::number("tol", "auto", "", 0, 1, true, {"auto"}),
                                                mb::OptionInfo::integer("n", "7", "", 1, 100),
                                                mb::OptionInfo::choice("mode", "fast", "", {"fast", "slow"}),
                                                mb::OptionInfo::text("split", "off", ""), mb::OptionInfo::number("h", "0.25", "")};
  mb::Spec s = mb::Spec::parse("m:n=12,mode=SLOW,h=1e-3");
  s.check_options(declared);
  const mb::MethodOptions o(s, declared);
  CHECK(o.name() == "m");
  CHECK(o.is("tol", "auto"));
  CHECK_FALSE(o.given("tol"));
  CHECK(o.integer("n") == 12);
  CHECK(o.given("n"));
  CHECK(o.choice("mode") == "slow");  // as check_options spelled it
  CHECK(o.text("split") == "off");
  CHECK(o.number("h") == 1e-3);
  CHECK(o.given_options().size() == 3);
  // the defaults come from the declaration alone
  const mb::MethodOptions d(mb::Spec::parse("m:tol=0.5"), declared);
  CHECK_FALSE(d.is("tol", "auto"));
  CHECK(d.number("tol") == 0.5);
  CHECK(d.integer("n") == 7);
  CHECK(d.number("h") == 0.25);
  CHECK(d.choice("mode") == "fast");
  CHECK_FALSE(d.given("h"));
  // a method asking for what it did not declare, or as another type, is a bug: std::logic_error
  CHECK_THROWS_AS(o.number("nope"), std::logic_error);
  CHECK_THROWS_AS(o.given("nope"), std::logic_error);
  CHECK_THROWS_AS(o.number("n"), std::logic_error);     // an integer
  CHECK_THROWS_AS(o.integer("h"), std::logic_error);    // a number
  CHECK_THROWS_AS(o.text("mode"), std::logic_error);    // a choice
  CHECK_THROWS_AS(o.choice("split"), std::logic_error); // a text
  CHECK_THROWS_AS(o.number("tol"), std::logic_error);   // the word "auto"
  CHECK_THROWS_AS(o.is("tol", "never"), std::logic_error);
  CHECK_THROWS_AS(o.is("mode", "fast"), std::logic_error);  // a choice has no words
  CHECK_THROWS_AS(mb::MethodOptions(mb::Spec::parse("m:x=1"), declared), std::logic_error);  // not checked
  // a wrong value stays an input error: an integer that strtol does not read whole
  mb::Spec e = mb::Spec::parse("m:n=1e1");
  e.check_options(declared);
  CHECK_THROWS_AS(mb::MethodOptions(e, declared), mb::InputError);
  // make_method hands a method its typed options, every default from its declaration
  CHECK(mb::make_method("ref:stepper=bs,tol=1e-9") != nullptr);
  CHECK(mb::make_method("particles:margin=0.01,pmax=2") != nullptr);
}

TEST_CASE("unknown methods, models and options list what exists", "[spec][errors]") {
  CHECK_THROWS_WITH(mb::make_method("GC5"), Catch::Contains("unknown method 'GC5'") && Catch::Contains("GC4") &&
                                                Catch::Contains("ref"));
  CHECK_THROWS_WITH(mb::make_method("ref:tolerance=1"),
                    Catch::Contains("unknown option 'tolerance'") && Catch::Contains("tol, stepper"));
  CHECK_THROWS_WITH(mb::make_method("GC4:x=1"), Catch::Contains("valid options: (none)"));
  CHECK_THROWS_WITH(mb::build_model("pendulum45"), Catch::Contains("unknown model") && Catch::Contains("pendulum90"));
  CHECK_THROWS_WITH(mb::build_model("chain:m=3"), Catch::Contains("unknown option 'm'"));
  CHECK_THROWS_AS(mb::build_model("chain:n=0"), mb::InputError);
  CHECK_THROWS_AS(mb::make_method("ref:tol=-1"), mb::InputError);
}

TEST_CASE("fits recover order and factor of c h^a", "[fits]") {
  const double a = 4.37, c = 123.4;
  auto f = [&](double h) { return c * std::pow(h, a); };
  auto tp = mb::two_point_fit(0.005, f(0.005), 0.04, f(0.04));
  CHECK(std::abs(tp.order - a) < 1e-12);
  CHECK(std::abs(tp.factor / c - 1) < 1e-10);
  // hand-computed: w1 = 1e-10 at 0.005, w2 = 1e-6 at 0.04 -> a = log(1e-4)/log(1/8) = 4.4292..., c = 1e-6/0.04^a
  auto hand = mb::two_point_fit(0.005, 1e-10, 0.04, 1e-6);
  CHECK(std::abs(hand.order - 4.0 * std::log(10.0) / std::log(8.0)) < 1e-12);
  CHECK(std::abs(hand.factor - 1e-6 / std::pow(0.04, hand.order)) < 1e-9 * hand.factor);
  std::vector<double> hs, ws;
  for (double h : mb::default_h_grid()) hs.push_back(h), ws.push_back(f(h));
  auto ls = mb::least_squares_fit(hs, ws);
  CHECK(std::abs(ls.order - a) < 1e-10);
  CHECK(std::abs(ls.factor / c - 1) < 1e-8);
  CHECK(ls.residual < 1e-10);
  CHECK(ls.points == 13);
}

TEST_CASE("the default step-size grid", "[models]") {
  auto g = mb::default_h_grid();
  REQUIRE(g.size() == 13);
  CHECK(g.front() == 0.00125);
  CHECK(std::abs(g[4] - 0.005) < 1e-15);
  CHECK(std::abs(g[10] - 0.04) < 1e-15);
  CHECK(std::abs(g.back() - 0.08) < 1e-15);
}

TEST_CASE("fit_series: the paper's two-point selection and least squares with failures", "[fits]") {
  const double a = 4.0, c = 12.1;
  const double T = 2.00989262729860;
  // the default grid rounded to T/k, like a model with a period
  std::vector<mb::SeriesPoint> pts;
  for (double hn : mb::default_h_grid()) {
    mb::SeriesPoint p;
    p.h_nominal = hn;
    p.h = T / std::round(T / hn);
    p.w = c * std::pow(p.h, a);
    pts.push_back(p);
  }
  auto f = mb::fit_series(pts);
  REQUIRE(f.two_point);
  CHECK(std::abs(f.two_point->order - a) < 1e-12);       // simulated h: exact
  CHECK(std::abs(f.two_point->factor / c - 1) < 1e-10);
  CHECK(f.h1 == pts[4].h);
  CHECK(f.h2 == pts[10].h);
  REQUIRE(f.least_squares);
  CHECK(std::abs(f.least_squares->order - a) < 1e-10);
  CHECK(f.least_squares->points == 13);
  CHECK(f.h_min == pts.front().h);
  CHECK(f.h_max == pts.back().h);
  // nominal h: the formula with 0.005 and 0.04, equal to the hand computation
  auto n = mb::fit_series(pts, 0.005, 0.04, mb::FitH::Nominal);
  REQUIRE(n.two_point);
  const double hand = (std::log(*pts[4].w) - std::log(*pts[10].w)) / (std::log(0.005) - std::log(0.04));
  CHECK(n.two_point->order == hand);
  CHECK(n.two_point->factor == *pts[10].w / std::pow(0.04, hand));
  // failed points are excluded and counted; a failed h2 leaves no two-point fit
  pts.back().failed = true;
  pts[10].failed = true;
  pts[0].w.reset();
  auto g = mb::fit_series(pts);
  CHECK(!g.two_point);
  CHECK_THAT(g.two_point_note, Catch::Contains("failed at h = 0.04"));
  REQUIRE(g.least_squares);
  CHECK(g.failed == 2);
  CHECK(g.unusable == 1);
  CHECK(g.least_squares->points == 10);
  CHECK(std::abs(g.least_squares->order - a) < 1e-10);
  CHECK(g.h_max == pts[11].h);
  CHECK(g.h_min == pts[1].h);
  // no grid point at h1
  auto none = mb::fit_series(pts, 0.006, 0.04);
  CHECK_THAT(none.two_point_note, Catch::Contains("no grid point at h = 0.006"));
}
