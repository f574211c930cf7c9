// The report's data and its formatting, in memory and fast (report/, analysis/): a metric that does
// not apply is "not applicable", never "every case failed"; a series whose every case failed stays a
// failure; the timing claims (incl. "slowest") are computed by the analysis; the timing tables and
// the report's tables have no bare "-" cell; numbers keep 3 significant digits; Markdown cells
// escape '|'.
#include <catch2/catch.hpp>

#include <cmath>

#include <nlohmann/json.hpp>

#include "analysis/analysis.hpp"
#include "analysis/timing.hpp"
#include "report/report.hpp"
#include "cli_util.hpp"

using nlohmann::json;

namespace {

mb::CaseRecord record(const std::string& model, const std::string& method, double h, bool failed, std::optional<double> period) {
  mb::CaseRecord r;
  r.model.spec = r.model.name = model;
  r.model.period = period;
  r.method.spec = r.method.name = method;
  r.h = r.h_requested = h;
  r.duration = 10;
  r.status = failed ? mb::Status::Failed : mb::Status::Ok;
  if (failed) {
    r.reason = "constraint error above 1 m";
    r.fail_time = 3;
  }
  r.metrics.set("ED", 1e-3 * std::pow(h, 4));
  if (period) r.metrics.set("LD", 1e-2 * std::pow(h, 4));
  r.experiment = mb::ExperimentRef{};
  r.experiment->name = "unit";
  r.experiment->metrics = {"ED", "LD"};
  return r;
}

void no_dash(const std::vector<mb::TextTable>& tables) {
  for (const auto& t : tables)
    for (const auto& row : t.rows) {
      CHECK(row.size() == t.header.size());
      for (const auto& c : row) {
        INFO("table " << t.id);
        CHECK(c.text != "-");
        CHECK(!c.text.empty());
      }
    }
}

}  // namespace

TEST_CASE("report data: a metric without a value is not applicable, a series whose cases all failed is failed", "[report]") {
  std::vector<mb::CaseRecord> recs;
  for (double h : {0.005, 0.01, 0.02, 0.04}) {
    recs.push_back(record("double-pendulum", "GC4", h, h == 0.04, std::nullopt));  // LD: no period
    recs.push_back(record("pendulum10", "GC4", h, false, 2.0));
    recs.push_back(record("pendulum10", "LM4", h, true, 2.0));                     // every case failed
  }
  const mb::ReportData d = mb::analyse(recs, std::nullopt);
  REQUIRE(d.not_applicable.size() == 1);
  CHECK(d.not_applicable[0].model == "double-pendulum");
  CHECK(d.not_applicable[0].metric == "LD");
  CHECK(d.not_applicable[0].cases == 4);
  CHECK_THAT(d.not_applicable[0].reason, Catch::Contains("no known period"));
  bool lm4_ld = false;
  for (const auto& s : d.series) {
    CHECK(!(s.model == "double-pendulum" && s.metric == "LD"));
    if (s.model == "pendulum10" && s.method == "LM4" && s.metric == "LD") {
      lm4_ld = true;
      CHECK(s.failures.size() == 4);
    }
  }
  CHECK(lm4_ld);
  const auto tables = mb::report_tables(d);
  no_dash(tables);
  bool na_table = false;
  for (const auto& t : tables) na_table = na_table || t.id == "not-applicable";
  CHECK(na_table);
}

TEST_CASE("report summary: a recorded refusal counts as unsupported and not as failed", "[report]") {
  std::vector<mb::CaseRecord> recs = {record("pendulum10", "GC4", 0.01, false, 2.0), record("pendulum10", "LM4", 0.01, true, 2.0),
                                      record("pendulum10", "LM4", 0.02, true, 2.0), record("bicycle", "ode", 0.01, false, std::nullopt)};
  recs.back().status = mb::Status::Unsupported;
  recs.back().reason = "ode: the model has rolling constraints";
  const mb::ReportData d = mb::analyse(recs, std::nullopt);
  CHECK(d.failed == 2);
  CHECK(d.unsupported == 1);
  CHECK(d.provenance.records == 4);
  CHECK(d.provenance.failed == 2);
  CHECK(d.provenance.unsupported == 1);
  const std::string html = mb::report_html(d, {}, "");
  CHECK_THAT(html, Catch::Contains("4 records, 2 failed, 1 unsupported"));
}

TEST_CASE("report figures: at one h a method that refused the model is named unsupported, not failed", "[report]") {
  std::vector<mb::CaseRecord> recs = {record("pendulum10", "GC4", 0.01, false, 2.0), record("pendulum10", "LM4", 0.01, true, 2.0),
                                      record("pendulum10", "ode", 0.01, false, 2.0)};
  for (auto& r : recs) r.metrics = mb::Metrics{};
  recs[0].metrics.set("ED", 1e-6);
  recs[2].status = mb::Status::Unsupported;
  recs[2].reason = "ode: the model has massless frames";
  const mb::ReportData d = mb::analyse(recs, std::nullopt);
  const std::string dir = mbtest::temp_dir("report_one_h").string();
  bool found = false;
  for (const mb::Figure& f : mb::write_plots(d, dir)) {
    if (f.table.title.find("every metric at its one step") == std::string::npos) continue;
    found = true;
    INFO(f.table.caption);
    CHECK_THAT(f.table.caption, Catch::Contains("Failed: LM4.") && Catch::Contains("Unsupported (refused by the method): ode."));
    REQUIRE(f.table.rows.size() == 1);
    CHECK(f.table.rows[0][0].text == "GC4");
  }
  CHECK(found);
}

TEST_CASE("timing analysis: the paper's times and claims beside ours, as data - tables without '-'", "[report][timing]") {
  json b;
  b["context"] = {{"host_name", "unit"}};
  auto add = [&](const std::string& spec, int j, double ms) {
    b["benchmarks"].push_back({{"name", mb::timing_case_name(spec, j)}, {"run_type", "iteration"}, {"real_time", ms}, {"time_unit", "ms"}});
  };
  for (int j : {31, 63}) {
    add("linear", j, 0.1 * j / 31);
    add("baraff", j, 0.3 * j / 31);
    add("lagrange", j, 2.0 * (j / 31.0) * (j / 31.0));
  }
  mb::Paper p;
  p.citation = "bender2007";
  p.context = {{"machine", "a Pentium 4"}, {"h", "0.0333333333333333333"}};
  p.timings.push_back({"linear", "lin.", "step", "s.6", "quote", 31, 1.26});
  p.timings.push_back({"baraff", "Baraff", "step", "s.6", "quote", 255, 82.05});  // not measured here
  p.claims.push_back({"lagrange", "", "slowest method", "s.6", "The Lagrange multiplier method ... was the slowest method.", 0, 0, "", ""});
  p.claims.push_back({"linear", "baraff", "nearly times faster than", "s.6", "nearly six times faster", 0, 6, "", ""});
  p.claims.push_back({"linear", "", "more than times faster than real time", "s.6", "26 times", 31, 26, "", ""});
  const mb::TimingData d = mb::analyse_timing(b, "linear", p);
  REQUIRE(d.beside_paper.size() == 2);
  REQUIRE(d.beside_paper[0].ours_ms);
  CHECK(*d.beside_paper[0].ours_ms == Approx(0.1));
  CHECK(*d.beside_paper[0].speedup == Approx(12.6));
  CHECK(*d.beside_paper[0].ours_ratio == Approx(1.0));
  CHECK(!d.beside_paper[1].ours_ms);  // 255 joints not measured
  REQUIRE(d.claims.size() == 3);
  const auto& slowest = d.claims[0];
  CHECK(slowest.kind == mb::ClaimCheck::Kind::Slowest);
  REQUIRE(slowest.values.size() == 2);
  CHECK(slowest.values[0].slowest);
  CHECK(slowest.values[0].other == "baraff");
  CHECK(slowest.values[0].value == Approx(2.0 / 0.3));
  CHECK(d.claims[1].kind == mb::ClaimCheck::Kind::Relative);
  CHECK(d.claims[1].values.at(1).value == Approx(3.0));
  CHECK(d.claims[2].kind == mb::ClaimCheck::Kind::RealTime);
  CHECK(d.claims[2].values.at(0).value == Approx(1000.0 / 30 / 0.1));
  CHECK(d.series[0].points[1].ratio.value() == Approx(1.0));
  // verdicts: lagrange is the slowest at both sizes; linear is 3x faster than baraff, not "nearly
  // six"; 1000/30/0.1 = 333 > 26 times real time
  CHECK(slowest.verdict == mb::ClaimCheck::Verdict::Agrees);
  CHECK(d.claims[1].verdict == mb::ClaimCheck::Verdict::Contradicts);
  CHECK_THAT(d.claims[1].rule, Catch::Contains("within 4.8..7.5"));
  CHECK(d.claims[2].verdict == mb::ClaimCheck::Verdict::Agrees);
  const auto tables = mb::timing_tables(d);
  REQUIRE(tables.size() == 4);
  no_dash(tables);
  CHECK_THAT(tables[1].rows[0][3].text, Catch::Contains("31 joints: slowest"));
  // the verdict next to the statement, a contradiction in red
  CHECK(tables[1].header[1] == "verdict");
  CHECK(tables[1].rows[1][1].style == "bad");
  // the verdict table: the contradicted statement named on its own line, the two that agree on one
  const mb::ReportData none;
  const auto outcomes = mb::outcomes(none, {&d});
  REQUIRE(outcomes.size() == 3);
  CHECK(outcomes[1].outcome == mb::Outcome::Differs);
  const mb::TextTable v = mb::verdict_table(outcomes, {"timing-claims"});
  REQUIRE(v.rows.size() == 2);
  CHECK(v.header[2] == "Verdict");
  CHECK(v.rows[0][2].text == "reproduced");
  CHECK(v.rows[0][1].text == "2 statements");
  CHECK(v.rows[1][1].text == "nearly six times faster");
  CHECK(v.rows[1][2].text == "differs");
  CHECK(v.rows[1][2].style == "bad");
  CHECK(v.rows[1][1].href == "timing-claims");
  CHECK_THAT(v.rows[1][3].text, Catch::Contains("31 joints: 3"));
  // the Markdown rendering of the same tables (timing.md)
  const std::string md = mb::timing_markdown(d);
  CHECK_THAT(md, Catch::Contains("| lagrange | 31 |"));
  CHECK(md.find("| - |") == std::string::npos);
}

TEST_CASE("timing verdicts: the test a statement's wording names, at the sizes it is about", "[report][timing]") {
  using T = mb::ClaimCheck::Test;
  CHECK(mb::claim_test("slowest method") == T::Slowest);
  CHECK(mb::claim_test("not faster than real time (only 10 % is)") == T::Below);
  CHECK(mb::claim_test("nearly the same time as, every size") == T::Same);
  CHECK(mb::claim_test("more than times faster than real time") == T::Above);
  CHECK(mb::claim_test("almost times faster than") == T::About);
  CHECK(mb::claim_test("faster than, every size") == T::AtLeast);
  json b;
  auto add = [&](const std::string& spec, int j, double ms) {
    b["benchmarks"].push_back({{"name", mb::timing_case_name(spec, j)}, {"run_type", "iteration"}, {"real_time", ms}, {"time_unit", "ms"}});
  };
  // a is faster than b at 31 joints only; c takes the same time as a at 31, 1.3x at 63
  add("a", 31, 1.0), add("b", 31, 1.1), add("c", 31, 1.0);
  add("a", 63, 2.0), add("b", 63, 1.9), add("c", 63, 2.6);
  mb::Paper p;
  p.context = {{"h", "0.01"}};
  p.claims.push_back({"a", "b", "faster than, every size", "s", "q", 0, 1, "", ""});   // 1.1, 0.95: contradicts
  p.claims.push_back({"a", "b", "faster than", "s", "q", 31, 1, "", ""});              // 1.1 at 31: agrees
  p.claims.push_back({"c", "a", "nearly the same time as", "s", "q", 0, 1, "", ""});   // 1.0, 0.77: contradicts
  p.claims.push_back({"a", "", "almost times faster than real time", "s", "q", 63, 6, "", ""});  // 10/2 = 5 >= 4.8
  p.claims.push_back({"a", "", "not faster than real time", "s", "q", 63, 1, "", ""});  // 5 > 1: contradicts
  p.claims.push_back({"a", "", "faster than real time", "s", "q", 127, 1, "", ""});     // not measured
  const mb::TimingData d = mb::analyse_timing(b, "a", p);
  REQUIRE(d.claims.size() == 6);
  using V = mb::ClaimCheck::Verdict;
  CHECK(d.claims[0].verdict == V::Contradicts);
  CHECK(d.claims[1].verdict == V::Agrees);
  CHECK(d.claims[2].verdict == V::Contradicts);
  CHECK(d.claims[3].verdict == V::Agrees);
  CHECK(d.claims[4].verdict == V::Contradicts);
  CHECK(d.claims[5].verdict == V::NotMeasured);
  CHECK(std::string(mb::to_string(d.claims[5].verdict)) == "not measured");
  CHECK_THAT(mb::timing_summary(d), Catch::Contains("6 statements: 2 agree, 3 contradicted, 1 not measured"));
}

TEST_CASE("report formatting: 3 significant digits, Markdown cells escape '|'", "[report]") {
  CHECK(mb::sig3(0.0891) == "0.0891");
  CHECK(mb::sig3(13.7) == "13.7");
  CHECK(mb::sig3(494.15) == "494");
  CHECK(mb::sig3(1.0) == "1.00");
  CHECK(mb::sig3(9.996) == "10.0");
  CHECK(mb::sig3(16383.0) == "16383");
  CHECK(mb::sig3(2.5e-5) == "2.50e-05");
  mb::TextTable t;
  t.title = "T";
  t.header = {"a"};
  t.rows.push_back({mb::Cell("x|y")});
  CHECK_THAT(mb::markdown_table(t), Catch::Contains("| x\\|y |"));
  // one number format per column: a column mixing 0.00108 and 9.19e-04 becomes exponents; a
  // column of plain numbers, and text, stay
  mb::TextTable u;
  u.header = {"ms", "n", "why"};
  u.rows = {{mb::Cell("0.00108"), mb::Cell("12.5"), mb::Cell("no fit")}, {mb::Cell("9.19e-04"), mb::Cell("3"), mb::Cell("0.5x")}};
  mb::uniform_columns(u);
  CHECK(u.rows[0][0].text == "1.08e-03");
  CHECK(u.rows[1][0].text == "9.19e-04");
  CHECK(u.rows[0][1].text == "12.5");
  CHECK(u.rows[1][2].text == "0.5x");
}

TEST_CASE("work-precision: the cheapest run that reaches each error target, or 'cannot reach' with the best error", "[report][work-precision]") {
  // a 4th-order method (error 50 h^4, cost 1e-3 / h) and a 1st-order one (error h / 15, cost 1e-4 / h)
  auto wp_record = [](const std::string& method, double h, double error, double seconds_per_s) {
    mb::CaseRecord r = record("pendulum10", method, h, false, 2.0);
    r.experiment->metrics = {"mescd", "ED"};
    r.steps_done = static_cast<long>(std::lround(r.duration / h));
    r.metrics.set("mescd", -std::log10(error));
    r.timing.step_seconds_total = seconds_per_s * r.duration;
    return r;
  };
  std::vector<mb::CaseRecord> recs;
  for (double h : {0.04, 0.02, 0.01, 0.005}) {
    recs.push_back(wp_record("high", h, 50 * std::pow(h, 4), 1e-3 / h));
    recs.push_back(wp_record("low", h, h / 15, 1e-4 / h));
  }
  mb::CaseRecord failed = record("pendulum10", "low", 0.0025, true, 2.0);
  failed.experiment->metrics = {"mescd"};
  recs.push_back(failed);
  mb::CaseRecord unsupported = record("pendulum10", "none", 0.01, false, 2.0);
  unsupported.status = mb::Status::Unsupported;
  unsupported.reason = "loops";
  unsupported.experiment->metrics = {"mescd"};
  recs.push_back(unsupported);
  recs.push_back(record("pendulum10", "no-mescd", 0.01, false, 2.0));  // its experiment does not ask for mescd: ignored

  const mb::WorkPrecision wp = mb::work_precision(recs);
  REQUIRE(wp.curves.size() == 3);
  REQUIRE(wp.rows.size() == 3);
  const auto& high = wp.rows[0];
  REQUIRE(wp.curves[high.curve].method == "high");
  REQUIRE(wp.curves[high.curve].points.size() == 4);
  // 1e-3: h = 0.04 gives 1.28e-4 at the least cost 0.025 s/s
  REQUIRE(high.at[0].cheapest);
  CHECK(high.at[0].cheapest->h == 0.04);
  CHECK(high.at[0].cheapest->cost == Approx(0.025).epsilon(1e-12));
  CHECK(high.at[0].cheapest->error == Approx(1.28e-4).epsilon(1e-9));
  // 1e-6: h = 0.02 gives 8e-6, h = 0.01 gives 5e-7
  REQUIRE(high.at[1].cheapest);
  CHECK(high.at[1].cheapest->h == 0.01);
  CHECK_FALSE(high.at[2].cheapest);  // 1e-9: best 3.125e-8 at h = 0.005
  CHECK(high.most_accurate->error == Approx(3.125e-8).epsilon(1e-9));

  const auto& low = wp.rows[1];
  REQUIRE(wp.curves[low.curve].method == "low");
  CHECK(wp.curves[low.curve].failures.size() == 1);
  REQUIRE(low.at[0].cheapest);
  CHECK(low.at[0].cheapest->h == 0.01);  // 6.67e-4; h = 0.005 reaches it too, at twice the cost
  CHECK_FALSE(low.at[1].cheapest);
  const auto& none = wp.curves[wp.rows[2].curve];
  CHECK(none.method == "none");
  CHECK(none.unsupported == "loops");
  CHECK(none.points.empty());

  // the tables: a row per curve, "cannot reach" with the best error, "not supported" with the reason
  mb::ReportData d = mb::analyse(recs, std::nullopt);
  const auto tables = mb::report_tables(d);
  const mb::TextTable* t = nullptr;
  for (const auto& x : tables)
    if (x.id == "work-precision-pendulum10") t = &x;
  REQUIRE(t);
  REQUIRE(t->rows.size() == 3);
  CHECK(t->rows[0][3].text.rfind("cannot reach (best 3.1", 0) == 0);
  CHECK(t->rows[2][1].text == "not supported: loops");
  no_dash(tables);
}

TEST_CASE("contact time: the contact phases' time per step of the cases that found contacts, and their share", "[report][contacts]") {
  std::vector<mb::CaseRecord> recs;
  mb::CaseRecord touch = record("rolling-box", "sle", 0.001, false, std::nullopt);
  touch.steps_done = 4000;
  touch.stats.contacts_max = 54;
  touch.timing.step_seconds_total = 3.6;  // 0.9 ms per step
  touch.timing.contact = 2.7;             // 0.675 ms per step: 75 %
  recs.push_back(touch);
  mb::CaseRecord engine = touch;  // an engine's step holds its contacts: not measured apart
  engine.method.spec = engine.method.name = "ode";
  engine.timing.contact = 0;
  recs.push_back(engine);
  mb::CaseRecord none = record("pendulum10", "sle", 0.001, false, 2.0);  // no contacts: no row
  none.steps_done = 1000;
  none.timing.step_seconds_total = 0.1;
  recs.push_back(none);
  const mb::ReportData d = mb::analyse(recs, std::nullopt);
  REQUIRE(d.contacts.size() == 2);
  CHECK(d.contacts[0].measured);
  CHECK_FALSE(d.contacts[1].measured);
  CHECK(d.contacts[0].model == "rolling-box");
  CHECK(d.contacts[0].step_ms == Approx(0.9).epsilon(1e-12));
  CHECK(d.contacts[0].contact_ms == Approx(0.675).epsilon(1e-12));
  CHECK(d.contacts[0].share == Approx(0.75).epsilon(1e-12));
  const auto tables = mb::report_tables(d);
  const mb::TextTable* t = nullptr;
  for (const auto& x : tables)
    if (x.id == "contact-time") t = &x;
  REQUIRE(t);
  REQUIRE(t->rows.size() == 2);
  CHECK(t->rows[1][6].text.rfind("not measured", 0) == 0);
  CHECK(t->rows[0][4].text == "54");
  CHECK(t->rows[0][5].text == "0.900");
  CHECK(t->rows[0][6].text == "0.675");
  CHECK(t->rows[0][7].text == "75 %");
  no_dash(tables);
}
