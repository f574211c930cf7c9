// The CI gate (docs/usage.md "gate"): it passes on the committed baseline, and fails, naming the
// metric and the case, on a small accuracy bias, a new failure and a timing ratio beyond its
// tolerance, simulated with the test-only methods the test binary registers (tests/test_methods.cpp;
// the mbbench binary never has them, so these run the gate in-process). Baselines for the test
// methods are made by the gate itself from GC4 / linear and renamed. Cases are kept short
// (pendulum10, 2 s; tree:joints=15) so the suite stays fast under the sanitizers.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>
#include <sstream>

#include "analysis/analysis.hpp"
#include "analysis/fit.hpp"
#include "cli_util.hpp"
#include "test_methods.hpp"
#include "gate/gate.hpp"
#include "methods/method.hpp"
#include "report/report.hpp"

#include <fmt/format.h>

namespace fs = std::filesystem;

namespace {

const std::string kBaseline = std::string(MBBENCH_TEST_DATA) + "/../../results/baselines/gate.json";

// the baseline `from` ran, as if method `to` had run it
mb::GateRecord rename_method(mb::GateRecord b, const std::string& from, const std::string& to) {
  for (auto& m : b.methods)
    if (m == from) m = to;
  for (auto& c : b.cases)
    if (c.method == from) c.method = to;
  for (auto& t : b.timing)
    if (t.method == from) t.method = to;
  return b;
}

// the quick configuration: pendulum10 for 2 s, no timing
mb::GateConfig quick(std::vector<std::string> methods) {
  mb::GateConfig c;
  c.methods = std::move(methods);
  c.models = {"pendulum10"};
  c.duration = 2;
  c.timing_joints = {};
  return c;
}

const std::string kQuick = "--models pendulum10 --duration 2 --timing-joints none";

// this test binary, which answers the gate's children with the test-only methods
std::string self_exe() { return fs::read_symlink("/proc/self/exe").string(); }

}  // namespace

TEST_CASE("the gate passes on the committed baseline", "[gate]") {
  REQUIRE(fs::exists(kBaseline));
  // a subset (the full gate runs in .ci/run on the Release build): non-chaotic models only, so
  // that the Debug build's numbers match the Release baseline's
  auto r = mbtest::run_cli("gate --baseline " + kBaseline +
                           " --methods GC4,linear,Imp4,LMBS4 --models pendulum10,pendulum90 --timing-joints none");
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("0 regression(s)") != std::string::npos);
  CHECK(r.output.find("gate: passed") != std::string::npos);
}

TEST_CASE("a rerun is bit-identical and --update writes a baseline the gate passes", "[gate]") {
  fs::path d = mbtest::temp_dir("gate_update");
  auto u = mbtest::run_cli("gate --update --baseline " + (d / "b.json").string() + " --methods GC4,Imp2 " + kQuick);
  INFO(u.output);
  REQUIRE(u.code == 0);
  CHECK(u.output.find("wrote the baseline") != std::string::npos);
  auto r = mbtest::run_cli("gate --baseline " + (d / "b.json").string() + " --methods GC4,Imp2 " + kQuick);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("0 moved") != std::string::npos);  // deterministic: nothing moved at all
  // a method since added is "new", not a failure
  auto n = mbtest::run_cli("gate --baseline " + (d / "b.json").string() + " --methods GC4,Imp2,Imp4 " + kQuick);
  INFO(n.output);
  CHECK(n.code == 0);
  CHECK(n.output.find("new (not in the baseline)") != std::string::npos);
}

TEST_CASE("a baseline with a failed case whose drift is not a number reads back, the metric absent", "[gate]") {
  // an engine that fails mid-run leaves ED = NaN, which JSON writes as null (the committed
  // baseline has such a case: simbody on pendulum90 at h = 0.01)
  mb::GateRecord g;
  mb::GateCase c;
  c.method = "m";
  c.model = "pendulum90";
  c.h = c.h_simulated = 0.01;
  c.status = mb::Status::Failed;
  c.failure = "integrator step failed";
  c.metrics.set("ED", std::nan(""));
  c.metrics.set("LD", 3e-6);
  g.cases.push_back(c);
  const mb::GateRecord back = mb::gate_record_from_json(mb::gate_record_to_json(g), "baseline.json");
  REQUIRE(back.cases.size() == 1);
  CHECK(!back.cases[0].metrics.get("ED"));
  CHECK(back.cases[0].metrics.get("LD") == 3e-6);
  CHECK(back.cases[0].status == mb::Status::Failed);
}

TEST_CASE("the gate fails on a small bias of GC4, naming the metric and the case", "[gate]") {
  const mb::GateRecord base = rename_method(mb::run_gate(quick({"GC4"})), "GC4", "test-gc4-bias");
  const mb::GateComparison c = mb::compare_gate(base, mb::run_gate(quick({"test-gc4-bias"})));
  const std::string out = mb::gate_text(c);
  INFO(out);
  CHECK(c.regressions > 0);
  // the analysis decides (a typed verdict with its factor), the report words it
  const auto worse = std::find_if(c.rows.begin(), c.rows.end(), [](const mb::GateRow& r) { return r.verdict == mb::GateVerdict::Worse; });
  REQUIRE(worse != c.rows.end());
  CHECK(worse->regression);
  CHECK(worse->value > 1.1);
  CHECK(mb::gate_verdict_text(*worse) == fmt::format("REGRESSION (x{:.3g} worse)", worse->value));
  CHECK(out.find("REGRESSION") != std::string::npos);
  CHECK(out.find("ED ") != std::string::npos);
  CHECK(out.find("test-gc4-bias pendulum10 h=0.01") != std::string::npos);
}

TEST_CASE("the gate fails when a case newly fails", "[gate]") {
  const mb::GateRecord base = rename_method(mb::run_gate(quick({"GC4"})), "GC4", "test-fail");
  const mb::GateComparison c = mb::compare_gate(base, mb::run_gate(quick({"test-fail"})));
  const std::string out = mb::gate_text(c);
  INFO(out);
  CHECK(c.regressions > 0);
  CHECK(out.find("REGRESSION (newly failed)") != std::string::npos);
  CHECK(out.find("test-fail pendulum10 h=0.02") != std::string::npos);
}

TEST_CASE("the gate fails when a timing ratio to the timing reference exceeds its tolerance", "[gate][timing]") {
  mb::GateConfig cfg;
  cfg.models = {};
  cfg.timing_joints = {15};
  cfg.timing_reps = 9;
  cfg.methods = {mb::timing_reference_name()};
  mb::GateRecord base = mb::run_gate(cfg);
  // the baseline: test-burn as fast as the reference (ratio 1)
  REQUIRE(base.timing.size() == 1);
  mb::GateTiming t = base.timing[0];
  t.method = "test-burn";
  base.timing.push_back(t);
  base.methods.push_back("test-burn");
  cfg.methods.push_back("test-burn");
  const mb::GateComparison c = mb::compare_gate(base, mb::run_gate(cfg));
  const std::string out = mb::gate_text(c);
  INFO(out);
  CHECK(c.regressions == 1);
  CHECK(out.find("time/" + mb::timing_reference_name()) != std::string::npos);
  CHECK(out.find("test-burn tree:joints=15") != std::string::npos);
  CHECK(out.find("slower") != std::string::npos);
}

TEST_CASE("the test-only methods are absent from the mbbench binary", "[gate]") {
  auto r = mbtest::run_cli("list methods");
  REQUIRE(r.code == 0);
  CHECK(r.output.find("test-") == std::string::npos);
  CHECK(r.output.find("example-") == std::string::npos);
  auto t = mbtest::run_cli("run pendulum10 test-fail --duration 1");
  CHECK(t.code == 2);
  CHECK(t.output.find("unknown method") != std::string::npos);
}

TEST_CASE("gate comparison: tolerances of orders, drifts and timing", "[gate]") {
  // the repetitions' ratios: 9 values within +-2 % of `ratio`
  auto reps = [](double ratio) {
    std::vector<double> v;
    for (int i = 0; i < 9; ++i) v.push_back(ratio * (1 + 0.005 * (i - 4)));
    return v;
  };
  auto make = [&](double ed1, double ed4, double ratio, const std::string& status, double instructions = 1e6) {
    mb::GateRecord g;
    g.models = {"pendulum10"};
    g.h = {0.01, 0.04};
    g.duration = 10;
    g.timing_reference = "ref-method";
    g.methods = {"GC4"};
    mb::GateCase a, b;
    a.method = b.method = "GC4";
    a.model = b.model = "pendulum10";
    a.h = a.h_simulated = 0.01;
    b.h = b.h_simulated = 0.04;
    a.metrics.set("ED", ed1);
    b.metrics.set("ED", ed4);
    b.status = status == "ok" ? mb::Status::Ok : mb::Status::Failed;
    g.cases = {a, b};
    mb::GateTiming t;
    t.method = "GC4";
    t.joints = 63;
    t.ratio = ratio;
    t.ratios = reps(ratio);
    t.ratio_min = t.ratios.front();
    t.ratio_max = t.ratios.back();
    if (instructions > 0) {
      t.instructions = instructions;
      t.ll_misses = 100;
      g.instruction_steps = {4, 12};
    } else {
      g.instructions_note = "not measured: valgrind was not found on PATH (install valgrind)";
    }
    g.timing = {t};
    return g;
  };
  const mb::GateRecord base = make(1e-8, 1e-8 * std::pow(4.0, 4), 2.0, "ok");
  CHECK(mb::compare_gate(base, base).regressions == 0);
  CHECK(mb::compare_gate(base, base).rows.empty());
  // 20 % worse energy drift at both steps: a regression (order unchanged)
  auto c = mb::compare_gate(base, make(1.2e-8, 1.2e-8 * std::pow(4.0, 4), 2.0, "ok"));
  CHECK(c.regressions == 2);
  // 5 % is within
  CHECK(mb::compare_gate(base, make(1.05e-8, 1.05e-8 * std::pow(4.0, 4), 2.0, "ok")).regressions == 0);
  // better: improved, not a regression
  CHECK(mb::compare_gate(base, make(0.5e-8, 0.5e-8 * std::pow(4.0, 4), 2.0, "ok")).regressions == 0);
  // the order moves by 0.5 (ED at the large step x 2): ED and order regress
  auto o = mb::compare_gate(base, make(1e-8, 2e-8 * std::pow(4.0, 4), 2.0, "ok"));
  bool order_row = false;
  for (const auto& r : o.rows) order_row = order_row || (r.metric == "order ED" && r.regression);
  CHECK(order_row);
  // wall time: 3 % slower than the baseline's repetitions is below the effect size (x1.05), 10 %
  // is a regression (p = 1/48620, the samples do not overlap), 10 % faster is listed as faster
  const double ed4 = 1e-8 * std::pow(4.0, 4);
  CHECK(mb::compare_gate(base, make(1e-8, ed4, 2.06, "ok")).regressions == 0);
  auto slow = mb::compare_gate(base, make(1e-8, ed4, 2.2, "ok"));
  CHECK(slow.regressions == 1);
  CHECK(mb::gate_text(slow).find("REGRESSION (slower x1.100, 99% CI") != std::string::npos);
  CHECK(mb::gate_text(slow).find("p = 2.1e-05") != std::string::npos);
  auto fast = mb::compare_gate(base, make(1e-8, ed4, 1.8, "ok"));
  CHECK(fast.regressions == 0);
  CHECK(mb::gate_text(fast).find("faster (x0.900") != std::string::npos);
  // instructions per step: +0.5 % is within x1.01, +2 % is a regression naming the numbers
  CHECK(mb::compare_gate(base, make(1e-8, ed4, 2.0, "ok", 1.005e6)).regressions == 0);
  auto more = mb::compare_gate(base, make(1e-8, ed4, 2.0, "ok", 1.02e6));
  CHECK(more.regressions == 1);
  CHECK(mb::gate_text(more).find("instructions/step  GC4 tree:joints=63  1000000   1020000") != std::string::npos);
  CHECK(mb::gate_text(more).find("REGRESSION (+2.00 %") != std::string::npos);
  // not measured (no valgrind): said in a row and the summary, never a silent pass
  auto none = mb::compare_gate(base, make(1e-8, ed4, 2.0, "ok", 0));
  CHECK(none.regressions == 0);
  CHECK(none.not_measured == 1);
  CHECK(mb::gate_text(none).find("NOT MEASURED (see the note)") != std::string::npos);
  CHECK(mb::gate_text(none).find("note: 1 instruction count(s) of the baseline not measured: valgrind was not found") != std::string::npos);
  CHECK(mb::gate_text(none).find("; 1 NOT MEASURED") != std::string::npos);
  // a new failure; the reverse is reported, not failed
  CHECK(mb::compare_gate(base, make(1e-8, 1e-8, 2.0, "failed")).regressions == 1);
  CHECK(mb::compare_gate(make(1e-8, 1e-8, 2.0, "failed"), base).regressions == 0);
  // the baseline file round trip
  const mb::GateRecord back = mb::gate_record_from_json(mb::gate_record_to_json(base), "round trip");
  CHECK(mb::gate_record_to_json(back) == mb::gate_record_to_json(base));
}

TEST_CASE("the scaling fit recovers the exponent of synthetic n^p timings exactly", "[fit][timing]") {
  for (double p : {1.0, 2.0, 3.0, 1.37}) {
    std::vector<double> n, t;
    for (int j = 31; j <= 16383; j = 2 * j + 1) {
      n.push_back(j);
      t.push_back(2.5e-6 * std::pow(static_cast<double>(j), p));
    }
    mb::PowerFit f = mb::least_squares_fit(n, t);
    INFO("p = " << p);
    CHECK(f.order == Approx(p).margin(1e-12));
    CHECK(f.factor == Approx(2.5e-6).epsilon(1e-10));
    CHECK(f.residual < 1e-12);
    CHECK(f.points == static_cast<int>(n.size()));
  }
}

TEST_CASE("results/paper/bender2007.toml holds every time s.6 prints", "[paper][timing]") {
  const mb::Paper p = mb::read_paper(std::string(MBBENCH_TEST_DATA) + "/../../results/paper/bender2007.toml");
  CHECK(p.citation == "bender2007");
  auto ms = [&](const std::string& method, int joints, const std::string& quantity) {
    for (const auto& t : p.timings)
      if (t.method == method && t.joints == joints && t.quantity == quantity) return t.ms;
    return -1.0;
  };
  CHECK(ms("baraff", 255, "step") == 82.05);
  CHECK(ms("iterative:tol_p=1e-6,tol_v=1e-6", 255, "step") == 494.15);
  CHECK(ms("iterative:tol_p=1e-3,tol_v=1e-3", 255, "step") == 51.47);
  CHECK(ms("sle:solver=dense,tol_p=1e-3,tol_v=1e-3", 255, "step") == 57.72);
  CHECK(ms("sle:solver=dense,tol_p=1e-6,tol_v=1e-6", 255, "step") == 59.48);
  CHECK(ms("sle:solver=dense,tol_p=1e-6,tol_v=1e-6", 127, "factorisation") == 15.81);
  CHECK(ms("sle:solver=dense,tol_p=1e-6,tol_v=1e-6", 127, "solve (one iteration)") == 1.01);
  CHECK(ms("linear:tol_p=1e-6,tol_v=1e-6", 31, "step") == 1.26);
  CHECK(ms("linear:tol_p=1e-6,tol_v=1e-6", 255, "step") == 13.70);
  CHECK(p.timings.size() == 9);
  CHECK(p.claims.size() == 10);
  // every number stands in its quote, typed in from the paper
  for (const auto& t : p.timings) CHECK(t.quote.find(fmt::format("{:.2f}", t.ms)) != std::string::npos);
  bool six = false;
  for (const auto& c : p.claims) six = six || (c.than == "baraff" && c.factor == 6.0);
  CHECK(six);
}

TEST_CASE("instruction counts under cachegrind, or why not", "[gate][timing]") {
  mb::GateConfig cfg;
  cfg.models = {};
  cfg.timing_joints = {15};
  cfg.timing_reps = 2;
  cfg.methods = {"GC4"};
  const mb::GateRecord g = mb::run_gate(cfg);
  REQUIRE(g.timing.size() == 1);
#if defined(__SANITIZE_ADDRESS__)
  // valgrind cannot run this build: said, never a silent pass
  CHECK(!g.timing[0].instructions);
  CHECK(g.instructions_note.find("AddressSanitizer") != std::string::npos);
#else
  if (g.instructions_note.find("valgrind was not found") != std::string::npos) {
    WARN("valgrind not installed: " << g.instructions_note);
    return;
  }
  INFO(g.instructions_note);
  REQUIRE(g.timing[0].instructions);
  // GC4 on 15 joints: RK4, four O(n) articulated-body passes: thousands of instructions per step,
  // not millions (setup subtracted)
  CHECK(*g.timing[0].instructions > 2e3);
  CHECK(*g.timing[0].instructions < 1e6);
  // deterministic: a second run counts the same to far below the 1 % tolerance
  const mb::GateRecord h = mb::run_gate(cfg);
  REQUIRE(h.timing[0].instructions);
  CHECK(*h.timing[0].instructions == Approx(*g.timing[0].instructions).epsilon(1e-3));
#endif
}

namespace {

// the instruction detection goal: test-gc4-spin with a busy loop calibrated under cachegrind to
// 3 % of GC4's instructions per step at each size, against GC4's counts renamed; `runs` gate runs,
// each counted. Returns false (with a warning) when this build cannot count instructions.
bool instruction_goal(const std::vector<int>& sizes, int runs) {
  mb::GateConfig cfg;
  cfg.models = {};
  cfg.timing_joints = sizes;
  cfg.timing_reps = 1;
  cfg.timing_rep_seconds = 1e-4;
  cfg.jobs = 2;
  // the loop's instructions per iteration: 100000 iterations against none
  const std::string probe = "test-gc4-spin:iterations=100000";
  cfg.methods = {"GC4", probe};
  const mb::GateRecord g = mb::run_gate(cfg);
  if (!g.instructions_note.empty()) {
    WARN("instructions not counted: " << g.instructions_note);
    return false;
  }
  auto count = [&](const std::string& m, int j) {
    for (const auto& t : g.timing)
      if (t.method == m && t.joints == j && t.instructions) return *t.instructions;
    FAIL("no instruction count of " << m << " at " << j);
    return 0.0;
  };
  for (int j : sizes) {
    const double gc4 = count("GC4", j), per_iteration = (count(probe, j) - gc4) / 100000;
    REQUIRE(per_iteration > 1);  // a multiply, an add and the loop's count at least
    const long n3 = std::lround(0.03 * gc4 / per_iteration), n05 = std::lround(0.005 * gc4 / per_iteration);
    const std::string slow = fmt::format("test-gc4-spin:iterations={}", n3), slight = fmt::format("test-gc4-spin:iterations={}", n05);
    // the baseline: GC4's counts at this size, as if the slow copies had run
    mb::GateRecord base;
    base.timing_reference = g.timing_reference;
    base.duration = g.duration;
    base.methods = {slow, slight};
    for (const auto& t : g.timing)
      if (t.method == "GC4" && t.joints == j) {
        mb::GateTiming a = t, b = t;
        a.method = slow;
        b.method = slight;
        base.timing = {a, b};
      }
    mb::GateConfig now = cfg;
    now.timing_joints = {j};
    now.methods = {slow, slight};
    int found = 0, false_alarms = 0;
    for (int r = 0; r < runs; ++r) {
      const mb::GateRecord x = mb::run_gate(now);
      for (const auto& t : x.timing) {
        INFO(t.method << " at " << j << " joints: " << x.instructions_note);
        REQUIRE(t.instructions);
        const double q = *t.instructions / gc4;
        // calibrated in instructions: the copy does 3 % (0.5 %) more, to a tenth of a percent
        CHECK(q == Approx(t.method == slow ? 1.03 : 1.005).margin(1e-3));
      }
      const mb::GateComparison c = mb::compare_gate(base, x);
      for (const auto& row : c.rows) {
        if (row.metric != "instructions/step") continue;
        std::cout << fmt::format("run {} {}: {} -> {} {}\n", r + 1, row.kase, row.baseline, row.now, mb::gate_verdict_text(row));
        if (row.regression && row.kase == fmt::format("{} tree:joints={}", slow, j)) ++found;
        if (row.regression && row.kase != fmt::format("{} tree:joints={}", slow, j)) ++false_alarms;
      }
    }
    std::cout << fmt::format("instructions, {} joints: GC4 {:.2f} per step, the loop {:.4f} per iteration; 3 % ({} iterations) found "
                             "in {} of {} runs; 0.5 % ({} iterations) failed {} times\n",
                             j, gc4, per_iteration, n3, found, runs, n05, false_alarms);
    CHECK(found == runs);
    CHECK(false_alarms == 0);  // within the x1.01 tolerance
  }
  return true;
}

}  // namespace

TEST_CASE("a 3 % instruction slowdown is found by the instruction signal and 0.5 % is not", "[.gate-goals]") {
  // tree:joints=15, one run: 6 cachegrind children of the test binary, 25 s in Release (no
  // valgrind under ASan)
  instruction_goal({15}, 1);
}

TEST_CASE("the detection goal by instructions: 3 % on the gate's trees in every run", "[.gate-goals]") {
  // docs/usage.md "gate": MBBENCH_GOAL_RUNS runs (default 20)
  const char* env = std::getenv("MBBENCH_GOAL_RUNS");
  CHECK(instruction_goal({63, 255}, env ? std::atoi(env) : 20));
}

TEST_CASE("the detection goal by CPU time: 10 % among the gate's time tests", "[.gate-goals]") {
  // docs/usage.md "gate": test-gc4-slow10 (GC4 with a busy loop calibrated to 10 % of its step
  // time) against GC4's values, in a run of the gate's default time cases, so that its tests are
  // one family of the gate's size (Holm); MBBENCH_GOAL_RUNS runs (default 20), each counted, with
  // every regression row printed (a row of another method is a false alarm)
  const char* env = std::getenv("MBBENCH_GOAL_RUNS");
  const int runs = env ? std::atoi(env) : 20;
  mb::GateConfig cfg;
  cfg.models = {};
  cfg.instructions = false;
  const std::string slow = "test-gc4-slow10";
  cfg.time_cases = mb::gate_cases(cfg).time;
  for (int j : cfg.timing_joints) cfg.time_cases.push_back({slow, j});
  // the baseline: MBBENCH_GOAL_BASELINE (a committed gate.json, seen from this machine, as the gate
  // compares in CI) or else this binary's first run
  const char* base_file = std::getenv("MBBENCH_GOAL_BASELINE");
  mb::GateRecord base;
  if (base_file) {
    std::ifstream in(base_file);
    REQUIRE(in);
    std::stringstream text;
    text << in.rdbuf();
    const mb::GateMachine* entry = nullptr;
    base = mb::baseline_for_machine(mb::gate_record_from_json(text.str(), base_file), mb::machine_key(mb::current_provenance()), &entry);
    REQUIRE(entry);
  } else {
    base = mb::run_gate(cfg);
  }
  for (auto t : std::vector<mb::GateTiming>(base.timing))
    if (t.method == "GC4") {
      t.method = slow;
      base.timing.push_back(t);
    }
  base.methods.push_back(slow);
  int found = 0, others = 0, missed_runs = 0, alarm_runs = 0;
  for (int r = 0; r < runs; ++r) {
    const mb::GateComparison c = mb::compare_gate(base, mb::run_gate(cfg));
    int here = 0;
    const int others_before = others;
    for (const auto& row : c.rows) {
      const bool mine = row.kase.rfind(slow + " ", 0) == 0;
      if (mine || row.regression)
        std::cout << fmt::format("run {} {} {}: {} -> {} {}\n", r + 1, row.metric, row.kase, row.baseline, row.now, mb::gate_verdict_text(row));
      if (mine && row.regression) ++here;
      if (!mine && row.regression) ++others;
    }
    found += here;
    if (here == 0) ++missed_runs;
    if (others > others_before) ++alarm_runs;
  }
  std::cout << fmt::format("{}: {} runs; found in {} of {} method x size cases; runs that found it at no size: {}; "
                           "regressions of other (unchanged) methods: {}, in {} runs\n",
                           slow, runs, found, 2 * runs, missed_runs, others, alarm_runs);
  CHECK(runs - missed_runs >= runs * 19 / 20);
  CHECK(alarm_runs == 0);
}

TEST_CASE("gate --history appends one JSON line per run, which trend reads", "[gate]") {
  fs::path d = mbtest::temp_dir("gate_history");
  const std::string hist = (d / "h.jsonl").string();
  const std::string args = " --baseline " + (d / "b.json").string() + " --history " + hist +
                           " --methods linear,GC4 --models none --timing-joints 15 --timing-reps 2 --no-instructions";
  auto u = mbtest::run_cli("gate --update" + args);
  INFO(u.output);
  REQUIRE(u.code == 0);
  auto r = mbtest::run_cli("gate" + args);
  INFO(r.output);
  CHECK(r.output.find("instruction counts not measured: turned off") != std::string::npos);
  const auto runs = mb::read_history(hist);
  REQUIRE(runs.size() == 2);
  CHECK(runs[1].values.count("time/" + mb::timing_reference_name() + " GC4 tree:joints=15") == 1);
  CHECK(!runs[1].commit.empty());
  auto t = mbtest::run_cli("trend " + hist + " --out " + (d / "trend").string());
  INFO(t.output);
  CHECK(t.code == 0);
  CHECK(fs::exists(d / "trend" / "trend.html"));
}

TEST_CASE("A/B of two builds: both timed interleaved, a verdict per method", "[gate][timing]") {
  // the same binary on both sides, no baseline file: each method gets a row with both medians and
  // a verdict, and the instruction counts of both builds where counted
  fs::path d = mbtest::temp_dir("gate_ab");
  auto r = mbtest::run_cli(fmt::format("gate --baseline {} --against {} --methods GC4 --timing-joints 15 --timing-reps 9",
                                       (d / "none.json").string(), MBBENCH_EXE));
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("time A/B  GC4 tree:joints=15") != std::string::npos);
  CHECK(r.output.find("signals that gated: time A/B against") != std::string::npos);
  CHECK(r.output.find("not timed") == std::string::npos);
}

namespace {

// a baseline of GC4 and linear on 15 joints whose time values are those of machine `key`
mb::GateRecord keyed_baseline(const std::string& key, bool instructions = false) {
  mb::GateConfig cfg;
  cfg.models = {"pendulum10"};
  cfg.duration = 2;
  cfg.timing_joints = {15};
  cfg.timing_reps = 2;
  cfg.methods = {mb::timing_reference_name(), "GC4"};
  cfg.instructions = instructions;
  std::vector<std::string> notes;
  mb::GateRecord b = mb::updated_baseline(std::nullopt, mb::run_gate(cfg), notes);
  REQUIRE(b.machines.size() == 1);
  b.machines[0].key = key;
  return b;
}

}  // namespace

TEST_CASE("baselines keyed by machine: time gates only on a machine with an entry", "[gate]") {
  const std::string here = mb::machine_key(mb::current_provenance());
  // the key names the CPU, its caches and its cores
  CHECK(here.find(" | ") != std::string::npos);
  CHECK(here.find(" cores") != std::string::npos);
  const mb::GateRecord mine = keyed_baseline(here), foreign = keyed_baseline("Some Other CPU | L1d 48K L2 2048K | 8 cores");
  const mb::GateMachine* entry = nullptr;
  const mb::GateRecord a = mb::baseline_for_machine(mine, here, &entry);
  REQUIRE(entry);
  bool timed = false;
  for (const auto& t : a.timing) timed = timed || t.ratio.has_value();
  CHECK(timed);
  const mb::GateRecord b = mb::baseline_for_machine(foreign, here, &entry);
  CHECK(!entry);
  for (const auto& t : b.timing) CHECK(!t.ratio);
  // the baseline file round trip keeps the machines
  const mb::GateRecord back = mb::gate_record_from_json(mb::gate_record_to_json(foreign), "round trip");
  REQUIRE(back.machines.size() == 1);
  CHECK(back.machines[0].key == foreign.machines[0].key);
  CHECK(mb::gate_record_to_json(back) == mb::gate_record_to_json(foreign));
  // a duplicated machine is refused, naming the field
  mb::GateRecord twice = foreign;
  twice.machines.push_back(twice.machines[0]);
  CHECK_THROWS_WITH(mb::gate_record_from_json(mb::gate_record_to_json(twice), "b.json"), Catch::Contains("machines[1].key"));

  // the CLI on a baseline without this machine: accuracy gates, time is said not to
  fs::path d = mbtest::temp_dir("gate_keyed");
  const std::string file = (d / "b.json").string();
  {
    std::ofstream out(file);
    out << mb::gate_record_to_json(foreign);
  }
  const std::string args = " --baseline " + file + " --methods " + mb::timing_reference_name() +
                           ",GC4 --models pendulum10 --duration 2 --timing-joints 15 --timing-reps 2 --no-instructions";
  auto w = mbtest::run_cli("gate --which --baseline " + file);
  INFO(w.output);
  CHECK(w.output.find("machine: " + here) != std::string::npos);
  CHECK(w.output.find("entry: no") != std::string::npos);
  auto r = mbtest::run_cli("gate" + args);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK(r.output.find("time not gated: the baseline has no time values of this machine") != std::string::npos);
  CHECK(r.output.find("signals that gated: accuracy (6 cases)") != std::string::npos);
  CHECK(r.output.find("time against the baseline") == std::string::npos);
  // --update adds this machine's entry beside the other's (the counts did not move) ...
  auto u = mbtest::run_cli("gate --update" + args);
  INFO(u.output);
  REQUIRE(u.code == 0);
  auto w2 = mbtest::run_cli("gate --which --baseline " + file);
  INFO(w2.output);
  CHECK(w2.output.find("entry: yes") != std::string::npos);
  CHECK(w2.output.find("machines: Some Other CPU") != std::string::npos);
  // ... and then time gates here
  auto t = mbtest::run_cli("gate" + args);
  INFO(t.output);
  CHECK(t.code == 0);
  CHECK(t.output.find("time against the baseline (1 tests)") != std::string::npos);
}

TEST_CASE("gate --update drops other machines' time when the instruction counts moved", "[gate]") {
  mb::GateRecord old;
  mb::GateTiming counted;
  counted.method = "GC4";
  counted.joints = 63;
  counted.instructions = 1e6;
  old.timing = {counted};
  mb::GateMachine other;
  other.key = "Other | caches | 4 cores";
  other.commit = "abc";
  mb::GateTiming timed = counted;
  timed.instructions.reset();
  timed.reps = 3;
  timed.ratio = 1.5;
  timed.ratios = {1.4, 1.5, 1.6};
  other.timing = {timed};
  old.machines = {other};
  mb::GateRecord run;
  run.provenance = mb::current_provenance();
  mb::GateTiming now = timed;
  now.instructions = 1.005e6;  // within the tolerance: the other machine's time stays
  run.timing = {now};
  std::vector<std::string> notes;
  mb::GateRecord kept = mb::updated_baseline(old, run, notes);
  CHECK(notes.empty());
  REQUIRE(kept.machines.size() == 2);
  // the shared part holds the counts alone; this machine's entry the time
  REQUIRE(kept.timing.size() == 1);
  CHECK(kept.timing[0].instructions == 1.005e6);
  CHECK(!kept.timing[0].ratio);
  run.timing[0].instructions = 1.05e6;  // +5 %: the code the other machine timed is gone
  mb::GateRecord dropped = mb::updated_baseline(old, run, notes);
  REQUIRE(dropped.machines.size() == 1);
  CHECK(dropped.machines[0].key == mb::machine_key(run.provenance));
  REQUIRE(notes.size() == 1);
  CHECK(notes[0].find("dropped the time baseline of machine 'Other | caches | 4 cores' (commit abc)") != std::string::npos);
  CHECK(notes[0].find("GC4 at 63 joints +5.00 %") != std::string::npos);
}

TEST_CASE("A/B fails the gate on a stall that adds no instructions", "[gate][timing]") {
  // test-stall10 with a stall of 50 % of GC4's step (dependent loads through 64 MiB) against GC4
  // itself, both in children of this binary, interleaved: the stall is slower beyond x1.05
  mb::GateConfig cfg;
  cfg.timing_joints = {15};
  cfg.ab_reps = 15;
  const std::string stalled = "test-stall10:method=GC4,percent=50";
  const auto ab = mb::gate_ab_cases(cfg, self_exe(), {{stalled, "GC4", 15}, {"GC4", "GC4", 15}}, false);
  mb::GateComparison c;
  mb::compare_ab(ab, "GC4", c);
  const std::string out = mb::gate_text(c);
  INFO(out);
  CHECK(c.regressions == 1);
  CHECK(out.find("time A/B  " + stalled + " tree:joints=15") != std::string::npos);
  CHECK(out.find("REGRESSION (slower") != std::string::npos);
}

TEST_CASE("A/B names a method that does not run the tree and passes", "[gate][timing]") {
  // particles takes no trees: it is not timed, and the row says why, as gate() skips it
  mb::GateConfig cfg;
  cfg.timing_joints = {15};
  cfg.ab_reps = 2;
  const auto ab = mb::gate_ab_cases(cfg, self_exe(), {{"particles", "particles", 15}}, false);
  REQUIRE(ab.size() == 1);
  CHECK(ab[0].unsupported);
  CHECK(ab[0].self.empty());
  mb::GateComparison c;
  mb::compare_ab(ab, "this binary", c);
  const std::string out = mb::gate_text(c);
  INFO(out);
  CHECK(c.regressions == 0);
  CHECK(out.find("not compared (particles does not support rigid bodies, trees") != std::string::npos);
}

TEST_CASE("the A/B goal: a 10 % stall of GC4 or LM4 fails, the unchanged methods pass", "[.gate-goals]") {
  // docs/usage.md "gate": the gate's default time cases, each against itself, with
  // test-stall10 (a 10 % memory stall calibrated in wall time) of GC4 at 63 and 255 joints and of
  // LM4 at 63 joints beside them, in MBBENCH_GOAL_RUNS runs (default 10); a regression of an
  // unchanged case is a false alarm
  const char* env = std::getenv("MBBENCH_GOAL_RUNS");
  const int runs = env ? std::atoi(env) : 10;
  mb::GateConfig cfg;
  if (const char* reps = std::getenv("MBBENCH_GOAL_REPS")) cfg.ab_reps = std::atoi(reps);
  std::vector<mb::AbCase> cases;
  for (const auto& [m, j] : mb::gate_cases(cfg).time) cases.push_back({m, m, j});
  const std::vector<mb::AbCase> stalls = {{"test-stall10:method=GC4", "GC4", 63}, {"test-stall10:method=GC4", "GC4", 255},
                                          {"test-stall10:method=LM4", "LM4", 63}};
  cases.insert(cases.end(), stalls.begin(), stalls.end());
  std::map<std::string, int> found;
  int false_alarms = 0, alarm_runs = 0;
  for (int r = 0; r < runs; ++r) {
    mb::GateComparison c;
    mb::compare_ab(mb::gate_ab_cases(cfg, self_exe(), cases, false), "this binary", c);
    int here = 0;
    for (const auto& row : c.rows) {
      const bool stall = row.kase.rfind("test-stall10", 0) == 0;
      if (stall || row.regression) std::cout << fmt::format("run {} {}: {} -> {} {}\n", r + 1, row.kase, row.baseline, row.now, mb::gate_verdict_text(row));
      if (stall && row.regression) ++found[row.kase];
      if (!stall && row.regression) ++here;
    }
    false_alarms += here;
    if (here) ++alarm_runs;
  }
  for (const auto& s : stalls) {
    const std::string kase = fmt::format("{} tree:joints={}", s.self, s.joints);
    std::cout << fmt::format("{}: found in {} of {} runs\n", kase, found[kase], runs);
  }
  std::cout << fmt::format("unchanged cases: {} false alarm(s) in {} of {} runs\n", false_alarms, alarm_runs, runs);
  CHECK(found["test-stall10:method=GC4 tree:joints=63"] + found["test-stall10:method=GC4 tree:joints=255"] > 0);
  CHECK(found["test-stall10:method=LM4 tree:joints=63"] == runs);
  CHECK(alarm_runs == 0);
}
