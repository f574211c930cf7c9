// The records do not change unless a change says so: a fresh schmitt2005 sweep gives the accuracy
// fields (status, failure, h, step counts, every metric, step statistics) of the committed set
// (tests/data/records/schmitt2005.jsonl; its README states its history: made before "Foundation
// v2" by the schema 2 code, equal bit for bit after it).
//   [records]       in the suite: the cheap cases (h >= 0.02), every method and model;
//   [.records-full] every one of the 520 cases (3 min on 2 cores in Release): .ci/run runs it on
//                   the Release build, where the numbers must be equal bit for bit.
// A Debug build (-O1, sanitizers) may differ from the Release numbers in the last bits of a
// chaotic model: there the comparison is relative 1e-9 on non-chaotic models only.
#include <catch2/catch.hpp>

#include <atomic>
#include <cmath>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "experiments/experiment.hpp"
#include "sweep/sweep.hpp"

namespace {

using nlohmann::json;

const std::string kRoot = std::string(MBBENCH_TEST_DATA) + "/../..";

std::map<std::string, json> committed() {
  std::map<std::string, json> m;
  std::ifstream in(std::string(MBBENCH_TEST_DATA) + "/records/schmitt2005.jsonl");
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    m[j["case_id"].get<std::string>()] = j;
  }
  return m;
}

#ifdef NDEBUG
constexpr bool kExact = true;
#else
constexpr bool kExact = false;
#endif

bool same(double a, double b) { return kExact ? a == b : std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)) + 1e-300; }

void compare(const mb::CaseRecord& r, const json& c) {
  INFO("case " << r.experiment->case_id);
  CHECK(mb::to_string(r.status) == c["status"].get<std::string>());
  CHECK(r.reason == c["reason"].get<std::string>());
  CHECK(same(r.fail_time, c["fail_t"].get<double>()));
  CHECK(r.h == c["h"].get<double>());
  CHECK(r.h_requested == c["h_requested"].get<double>());
  CHECK(r.steps == c["steps"].get<long>());
  CHECK(r.steps_done == c["steps_done"].get<long>());
  size_t n = 0;
  for (const auto& [k, v] : c["metrics"].items()) {
    INFO("metric " << k);
    auto now = r.metrics.get(k);
    REQUIRE(now);
    CHECK(same(*now, v.get<double>()));
    ++n;
  }
  CHECK(n == r.metrics.values.size());
  const json& s = c["stats"];
  CHECK(r.stats.pos_iterations == s["pos_iterations"].get<long>());
  CHECK(r.stats.vel_iterations == s["vel_iterations"].get<long>());
  CHECK(same(r.stats.pos_residual_last, s["pos_residual_last"].get<double>()));
  CHECK(same(r.stats.vel_residual_last, s["vel_residual_last"].get<double>()));
}

void check_cases(bool all) {
  // the experiment as the sweep reads it (its paths relative to the repository root)
  mb::Experiment e = mb::read_experiment(kRoot + "/results/experiments/schmitt2005.toml");
  e.file = "results/experiments/schmitt2005.toml";
  const auto before = committed();
  REQUIRE(before.size() == 520);
  std::vector<mb::Case> cases;
  for (auto& c : mb::expand_cases(e)) {
    if (!all && (c.h_nominal < 0.02 || (!kExact && (c.model == "double-pendulum" || c.model == "triple-pendulum")))) continue;
    cases.push_back(c);
  }
  REQUIRE(!cases.empty());
  std::vector<mb::CaseRecord> out(cases.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t i; (i = next++) < cases.size();) out[i] = mb::run_sweep_case(e, cases[i]);
  };
  std::vector<std::thread> pool;
  for (unsigned j = 0; j < std::max(1u, std::thread::hardware_concurrency()); ++j) pool.emplace_back(work);
  for (auto& t : pool) t.join();
  for (const auto& r : out) {
    auto it = before.find(r.experiment->case_id);
    REQUIRE(it != before.end());
    compare(r, it->second);
  }
}

}  // namespace

TEST_CASE("records: the schmitt2005 accuracy fields equal the committed set (cheap cases)", "[records][full]") {
  check_cases(false);
}

TEST_CASE("records: every schmitt2005 case equals the committed set bit for bit", "[.records-full]") { check_cases(true); }
