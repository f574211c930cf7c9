// Typed records (records/record.hpp): the JSON round trip is exact for a finished and a failed
// case; a record with a missing or mistyped field is an InputError naming the file, the line and
// the field.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "cli_util.hpp"
#include "core/error.hpp"
#include "models/catalog.hpp"
#include "records/store.hpp"
#include "sim/run_case.hpp"

namespace {

mb::CaseRecord finished() {
  mb::RunConfig c;
  c.h = 0.01;
  c.duration = 1;
  c.round_to_period = false;
  c.samples = {0.5, 1};
  mb::CaseRecord r = mb::run_case(mb::build_model("double-pendulum"), "GC4", c);
  r.experiment = mb::ExperimentRef{"exp", "exp.toml", "a table", "paper.toml", {"ED", "LD"}, 0.005, 0.04, "nominal", "case 1", 7, false, "budget"};
  return r;
}

std::string replace(std::string s, const std::string& from, const std::string& to) {
  const size_t k = s.find(from);
  REQUIRE(k != std::string::npos);
  return s.replace(k, from.size(), to);
}

}  // namespace

TEST_CASE("records: to JSON and back is equal, for a finished and a failed case", "[records]") {
  const mb::CaseRecord ok = finished();
  REQUIRE(ok.ok());
  REQUIRE(ok.samples.size() == 2);
  REQUIRE(ok.ref_error);
  const std::string line = mb::record_to_json_line(ok);
  const mb::CaseRecord back = mb::record_from_json_line(line, "mem", 1);
  CHECK(mb::record_to_json_line(back) == line);
  CHECK(back.metrics.get("ED") == ok.metrics.get("ED"));  // bit for bit
  CHECK(back.samples[1].positions[1][0] == ok.samples[1].positions[1][0]);
  CHECK(back.experiment->case_index == 7);

  mb::RunConfig c;
  c.h = 0.08;  // LM4 on Pendulum90 exceeds the 1 m threshold after about 21 s
  mb::CaseRecord failed = mb::run_case(mb::build_model("pendulum90"), "LM4", c);
  REQUIRE(failed.status == mb::Status::Failed);
  const std::string fl = mb::record_to_json_line(failed);
  const mb::CaseRecord fb = mb::record_from_json_line(fl, "mem", 1);
  CHECK(mb::record_to_json_line(fb) == fl);
  CHECK(fb.reason == failed.reason);
  CHECK(fb.fail_time == failed.fail_time);
  CHECK(mb::accuracy_fields(fb) == mb::accuracy_fields(failed));
  // a metric that does not apply keeps its note
  const mb::CaseRecord dp = mb::record_from_json_line(mb::record_to_json_line(mb::run_case(mb::build_model("pendulum90"), "GC4", [] {
                                                        mb::RunConfig x;
                                                        x.h = 0.01;
                                                        x.duration = 1;
                                                        x.round_to_period = false;
                                                        return x;
                                                      }())),
                                                      "mem", 1);
  REQUIRE(dp.metrics.note_of("LD"));
  CHECK(!dp.metrics.get("LD"));
}

TEST_CASE("records: a missing or mistyped field is an error with the file, the line and the field", "[records][errors]") {
  const std::string line = mb::record_to_json_line(finished());
  struct Bad {
    std::string text, field;
  };
  const Bad bad[] = {
      {replace(line, "\"steps_done\":", "\"steps_dune\":"), "steps_done"},
      {replace(line, "\"status\":\"ok\"", "\"status\":\"fine\""), "status"},
      {replace(line, "\"h_requested\":0.01", "\"h_requested\":\"0.01\""), "h_requested"},
      {replace(line, "\"case_index\":7", "\"case_index\":7.5"), "experiment.case_index"},
      {replace(line, "\"schema_version\":3", "\"schema_version\":2"), "schema_version"},
      {replace(line, "\"ED\":", "\"ED\":\"x\",\"ED_\":"), "metrics.ED"},
      {"{}", "schema_version"},
      {"not json", ""},
  };
  for (const auto& b : bad) {
    INFO(b.text.substr(0, 200));
    try {
      mb::record_from_json_line(b.text, "records.jsonl", 42);
      FAIL("accepted");
    } catch (const mb::InputError& e) {
      CHECK(e.file == "records.jsonl");
      CHECK(e.line == 42);
      CHECK(e.field == b.field);
    }
  }
  // through the store: the line number is the file's
  const auto d = mbtest::temp_dir("records");
  const auto f = d / "r.jsonl";
  std::ofstream(f) << line << "\n" << line << "\n" << "{}\n";
  try {
    mb::read_records_file(f.string());
    FAIL("accepted");
  } catch (const mb::InputError& e) {
    CHECK(e.line == 3);
  }
  std::filesystem::remove_all(d);
}
