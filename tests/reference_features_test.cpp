// The reference run checks the model's features (sim/reference.cpp): a model with a feature the
// reference method does not claim (contacts) gets no reference error, and the record says why;
// the same model without that feature gets its number.
#include <catch2/catch.hpp>

#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

TEST_CASE("reference: a model with contacts has no error against ref, and the record says why", "[reference]") {
  const mb::Model m = mb::build_model("bouncing-ball");
  REQUIRE((mb::model_features(m) & mb::kContacts) != 0);
  mb::RunConfig cfg;
  cfg.h = 0.01;
  cfg.duration = 0.2;
  cfg.samples = {0.1, 0.2};
  const mb::CaseRecord r = mb::run_case(m, "sle", cfg);
  REQUIRE(r.ok());
  CHECK_FALSE(r.metrics.get("ref_error_max"));
  REQUIRE(r.ref_error);
  CHECK(r.ref_error->per_sample.empty());
  CHECK_THAT(r.ref_error->note, Catch::Contains("no reference: the reference method ref does not support contacts"));
  // without its shapes the ball falls freely, which ref simulates: the error is measured
  mb::Model free = m;
  free.shapes.clear();
  free.materials.clear();
  free.material_pairs.clear();
  const mb::CaseRecord f = mb::run_case(free, "sle", cfg);
  REQUIRE(f.ok());
  REQUIRE(f.metrics.get("ref_error_max"));
  CHECK(*f.metrics.get("ref_error_max") < 1e-9);  // free fall: exact in sle's free motion
  CHECK((!f.ref_error || f.ref_error->note.empty()));
}
