// agree_err: a run against another method's run of the same model at the same h, step by step over
// the first agree_time s (metrics/observer.hpp AgreementObserver, sim/run_case.cpp).
#include <catch2/catch.hpp>

#include <cmath>
#include <string>

#include "experiments/experiment.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

namespace {

mb::RunConfig agree_config(const std::string& with, double h, double agree_time) {
  mb::RunConfig cfg;
  cfg.h = h;
  cfg.duration = 0.5;
  cfg.agree_with = with;
  cfg.agree_time = agree_time;
  return cfg;
}

}  // namespace

TEST_CASE("agree_err: 0 against the same method and the error against ref where the other method is ref", "[metrics][agree]") {
  const mb::Model m = mb::build_model("double-pendulum");
  // the same spec at the same h steps the same numbers: exactly 0
  const mb::CaseRecord same = mb::run_case(m, "GC4", agree_config("GC4", 0.01, 0.2));
  REQUIRE(same.ok());
  REQUIRE(same.metrics.get("agree_err"));
  CHECK(*same.metrics.get("agree_err") == 0.0);
  // against ref (tol 1e-10 or finer) the agreement is the method's own error over the steps of the
  // first 0.2 s: the reference error sampled at every step; a step off by one would add v h ~ 3 cm
  for (const char* spec : {"GC4", "linear"}) {
    mb::RunConfig cfg = agree_config("ref", 0.01, 0.2);
    for (int i = 1; i <= 20; ++i) cfg.samples.push_back(0.01 * i);
    const mb::CaseRecord r = mb::run_case(m, spec, cfg);
    REQUIRE(r.ok());
    const auto agree = r.metrics.get("agree_err"), ref = r.metrics.get("ref_error_max");
    REQUIRE(agree);
    REQUIRE(ref);
    INFO(spec << ": agree_err " << *agree << ", ref_error_max over the same steps " << *ref);
    CHECK(*ref > 1e-10);
    CHECK(std::abs(*agree - *ref) < 1e-3 * *ref);
  }
  // over a shorter time the largest difference is no larger, and linear's error grows with t
  const mb::CaseRecord shorter = mb::run_case(m, "linear", agree_config("ref", 0.01, 0.05));
  const mb::CaseRecord longer = mb::run_case(m, "linear", agree_config("ref", 0.01, 0.2));
  REQUIRE(shorter.metrics.get("agree_err"));
  CHECK(*shorter.metrics.get("agree_err") < 0.5 * *longer.metrics.get("agree_err"));
  // not asked: not computed
  mb::RunConfig plain;
  plain.h = 0.01;
  plain.duration = 0.1;
  CHECK_FALSE(mb::run_case(m, "GC4", plain).metrics.get("agree_err"));
}

TEST_CASE("agree_err: an other method that refuses the model leaves a note and the run stands", "[metrics][agree]") {
  const mb::Model m = mb::build_model("loop:n=4");
  const mb::CaseRecord r = mb::run_case(m, "linear", agree_config("GC4", 0.01, 0.1));
  REQUIRE(r.ok());
  CHECK_FALSE(r.metrics.get("agree_err"));
  REQUIRE(r.metrics.note_of("agree_err"));
  CHECK_THAT(*r.metrics.note_of("agree_err"), Catch::StartsWith("agree_with GC4 does not take the model: "));
  CHECK(r.metrics.get("ED"));
}

TEST_CASE("agree_err in an experiment: every case gets agree_with and agree_time only when the metric is named", "[metrics][agree][sweep]") {
  const std::string text = R"(
name = "x"
models = ["pendulum90"]
methods = ["GC4", "linear"]
h = [0.01]
duration = 1
agree_with = "ref:tol=1e-11"
agree_time = 0.5
metrics = ["ED", "agree_err"]
)";
  for (const auto& c : mb::expand_cases(mb::parse_experiment(text, "x.toml"))) {
    CHECK(c.cfg.agree_with == "ref:tol=1e-11");
    CHECK(c.cfg.agree_time == 0.5);
  }
  std::string without = text;
  without.replace(without.find(", \"agree_err\""), 13, "");
  for (const auto& c : mb::expand_cases(mb::parse_experiment(without, "x.toml"))) CHECK(c.cfg.agree_with.empty());
  // agree_time defaults to 0.2 s
  std::string dflt = text;
  dflt.replace(dflt.find("agree_time = 0.5\n"), 17, "");
  CHECK(mb::expand_cases(mb::parse_experiment(dflt, "x.toml")).front().cfg.agree_time == 0.2);
}
