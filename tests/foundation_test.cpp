// Adding a method is one file and one registration line: the example method of
// tests/example_method.cpp, registered by tests/main.cpp, is listed with the others, runs through
// the driver, takes part in the conformance test (method_conformance_test.cpp iterates the
// registry, so it is in it) and in a timing run through the one timing harness.
#include <catch2/catch.hpp>

#include "bench/harness.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "report/listing.hpp"
#include "sim/run_case.hpp"

TEST_CASE("the example method is listed, runs, and is timed", "[foundation]") {
  // listed, with its metadata
  const std::string md = mb::listing("methods", mb::ListFormat::Markdown);
  CHECK_THAT(md, Catch::Contains("`example-midpoint`"));
  CHECK_THAT(mb::listing("methods", mb::ListFormat::Json), Catch::Contains("\"name\": \"example-midpoint\""));
  // runs through the driver, with the error against the reference
  mb::RunConfig c;
  c.h = 0.01;
  c.duration = 1;
  c.round_to_period = false;
  c.samples = {1};
  const mb::CaseRecord r = mb::run_case(mb::build_model("double-pendulum"), "example-midpoint", c);
  REQUIRE(r.ok());
  CHECK(*r.metrics.get("ref_error_max") > 0);
  CHECK(*r.metrics.get("ref_error_max") < 1e-2);
  // timed through the harness the gate and the benchmarks use
  const mb::Model tree = mb::build_model("tree:joints=7,anchor=ball");
  mb::StepTimer timer(tree, "example-midpoint", 1.0 / 240);
  double t = 0;
  for (int i = 0; i < 10; ++i) t += timer.window(1);
  CHECK(timer.timed_steps() == 10);
  CHECK(t > 0);
}
