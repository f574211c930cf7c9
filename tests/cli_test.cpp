// End-to-end tests of the mbbench binary: exit codes, messages, records, samples, scene export.
#include <catch2/catch.hpp>

#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

using Result = mbtest::CliResult;
Result run(const std::string& args) { return mbtest::run_cli(args); }
fs::path temp_dir() { return mbtest::temp_dir("cli"); }

json read_json(const fs::path& p) {
  std::ifstream in(p);
  return json::parse(in);
}

}  // namespace

TEST_CASE("mbbench list methods is one line a method, in 40 lines of 100 columns", "[cli]") {
  auto r = run("list methods");
  CHECK(r.code == 0);
  std::istringstream in(r.output);
  int lines = 0;
  for (std::string line; std::getline(in, line); ++lines) CHECK(line.size() <= 100);
  CHECK(lines <= 40);
  CHECK(lines >= 20);
  // the stated order beside the measured one: Imp10 states 10 and shows 3
  std::string squeezed;  // runs of spaces as one
  for (char c : r.output)
    if (c != ' ' || squeezed.empty() || squeezed.back() != ' ') squeezed += c;
  CHECK_THAT(squeezed, Catch::Contains("\n Imp10 higher-order 10 3 P"));
  CHECK_THAT(squeezed, Catch::Contains("\n gc-contact reduced 1 1 - - - C J A - D - - T X - I\n"));
}

TEST_CASE("mbbench list prints models, methods with options and metrics", "[cli]") {
  auto r = run("list --long");
  CHECK(r.code == 0);
  for (const char* s : {"pendulum10", "pendulum90", "double-pendulum", "triple-pendulum", "chain:n=4", "GC4", "ref",
                        "tol (number, default auto", "ED", "EID", "LD"})
    CHECK_THAT(r.output, Catch::Contains(s));
  auto j = run("list --json");
  CHECK(j.code == 0);
  CHECK(json::parse(j.output)["methods"].size() >= 2);
}

TEST_CASE("mbbench run states the correction phases whose contacts stopped at the sweep limit", "[cli]") {
  // heavy-rod with the contacts alternating with the joints: the sweeps reach max_iter in every
  // step, the contacts keep their impulses (stats.contact_stops) and the run goes on
  fs::path d = temp_dir();
  auto r = run("run heavy-rod sle:coupling=off --h 0.01 --duration 0.05 --no-ref --out " + (d / "rec.json").string());
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("status: ok") &&
                           Catch::Contains("correction phases ended above the tolerance: 9 with their contacts at the sweep limit"));
  json rec = read_json(d / "rec.json");
  CHECK(rec["stats"]["contact_stops"] == 9);
  auto quiet = run("run pendulum90 GC4 --h 0.01 --duration 0.1 --no-ref");
  CHECK_THAT(quiet.output, !Catch::Contains("correction phases ended"));
}

TEST_CASE("mbbench run prints the metrics and writes the record", "[cli]") {
  fs::path d = temp_dir();
  auto r = run("run pendulum90 GC4 --h 0.005 --duration 6 --out " + (d / "rec.json").string());
  REQUIRE(r.code == 0);
  for (const char* s : {"ED ", "EID", "LD ", "constraint drift", "fail: no", "status: ok"}) CHECK_THAT(r.output, Catch::Contains(s));
  json rec = read_json(d / "rec.json");
  CHECK(rec["schema_version"] == 3);
  CHECK(rec["status"] == "ok");
  CHECK(rec["method"]["name"] == "GC4");
  CHECK(rec["model"]["name"] == "pendulum90");
  CHECK(rec["h_requested"] == 0.005);
  CHECK(std::abs(rec["model"]["period"].get<double>() / rec["h"].get<double>() - 474) < 1e-9);
  for (const char* k : {"ED", "EID", "LD", "CD_pos_mean", "CD_pos_max", "CD_vel_mean", "CD_vel_max"})
    CHECK(rec["metrics"][k].is_number());
  for (const char* k : {"git_commit", "compiler", "flags", "cpu", "date", "libraries"}) CHECK(rec["provenance"].contains(k));
  fs::remove_all(d);
}

TEST_CASE("samples land exactly on the requested times", "[cli][samples]") {
  fs::path d = temp_dir();
  auto r = run("run triple-pendulum ref --duration 10 --samples 0.5,1,2,5,10 --out " + (d / "traj.json").string());
  REQUIRE(r.code == 0);
  json rec = read_json(d / "traj.json");
  const json& s = rec["samples"];
  REQUIRE(s.size() == 5);
  const double times[] = {0.5, 1, 2, 5, 10};
  for (int i = 0; i < 5; ++i) {
    CHECK(s[i]["t"] == times[i]);
    CHECK(s[i]["positions"].size() == 3);
    CHECK(s[i]["velocities"].size() == 3);
    CHECK(s[i]["positions"][2].size() == 3);
    CHECK(s[i]["energy"].is_number());
    CHECK(std::abs(s[i]["energy"].get<double>()) < 1e-9);  // energy is conserved (E0 = 0)
  }
  // a fixed-step method refuses a sample time off its grid, naming it
  auto bad = run("run triple-pendulum GC4 --h 0.003 --duration 1 --samples 0.5");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.output, Catch::Contains("sample time 0.5 is not a whole multiple of h = 0.003"));
  // and on its grid it also reports the error against ref
  auto ok = run("run double-pendulum GC4 --h 0.01 --duration 1 --samples 0.5,1 --out " + (d / "gc4.json").string());
  REQUIRE(ok.code == 0);
  json g = read_json(d / "gc4.json");
  CHECK(g["samples"].size() == 2);
  CHECK(g["metrics"]["ref_error_max"].get<double>() > 0);
  CHECK(g["metrics"]["ref_error_max"].get<double>() < 1e-5);
  fs::remove_all(d);
}

TEST_CASE("an exported scene gives bit-identical numbers to the catalog model", "[cli][scene]") {
  fs::path d = temp_dir();
  REQUIRE(run("export-scene double-pendulum -o " + (d / "dp.toml").string()).code == 0);
  REQUIRE(run("run double-pendulum GC4 --h 0.01 --duration 5 --samples 5 --no-ref --quiet --out " + (d / "a.json").string()).code == 0);
  REQUIRE(run("run " + (d / "dp.toml").string() + " GC4 --h 0.01 --duration 5 --samples 5 --no-ref --quiet --out " +
              (d / "b.json").string()).code == 0);
  json a = read_json(d / "a.json"), b = read_json(d / "b.json");
  CHECK(a["metrics"].dump() == b["metrics"].dump());
  CHECK(a["samples"].dump() == b["samples"].dump());
  fs::remove_all(d);
}

TEST_CASE("bad input exits with code 2 and names file, line and field", "[cli][errors]") {
  const std::string data = std::string(MBBENCH_TEST_DATA) + "/bad/scenes/";
  for (const char* f : {"missing_mass.toml", "misspelled_key.toml", "negative_mass.toml", "zero_mass.toml", "nonfinite.toml",
                        "unknown_body.toml", "zero_length_rod.toml", "non_spd_inertia.toml", "duplicate_body.toml",
                        "not_toml.toml"}) {
    auto r = run("run " + data + f + " GC4 --duration 1");
    INFO(f << ": " << r.output);
    CHECK(r.code == 2);
    CHECK_THAT(r.output, Catch::Contains(data + f + ":"));
  }
  auto h = run("run pendulum10 GC4 --h -0.01");
  CHECK(h.code == 2);
  CHECK_THAT(h.output, Catch::Contains("field 'h'"));
  auto h0 = run("run pendulum10 GC4 --h 0");
  CHECK(h0.code == 2);
  auto m = run("run pendulum10 NoSuchMethod");
  CHECK(m.code == 2);
  CHECK_THAT(m.output, Catch::Contains("known methods: GC4, ") && Catch::Contains("ref"));
  auto o = run("run pendulum10 ref:tolerance=1");
  CHECK(o.code == 2);
  CHECK_THAT(o.output, Catch::Contains("valid options: tol, stepper"));
  auto u = run("run nosuchmodel GC4");
  CHECK(u.code == 2);
  CHECK_THAT(u.output, Catch::Contains("unknown model 'nosuchmodel'"));
}

TEST_CASE("a failing case is recorded with its reason and time", "[cli][fail]") {
  fs::path d = temp_dir();
  // a threshold below round-off makes the first step fail: the mechanism, not the physics, is tested here
  auto r = run("run pendulum10 GC4 --h 0.01 --duration 1 --no-round --fail-threshold 1e-300 --out " + (d / "f.json").string());
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("status: failed"));
  json rec = read_json(d / "f.json");
  CHECK(rec["status"] == "failed");
  // the first step whose joint error is not exactly zero fails; the clock says which one
  CHECK(rec["failure"]["t"].get<double>() == (rec["steps_done"].get<long>() + 1) * rec["h"].get<double>());
  CHECK_THAT(rec["failure"]["reason"].get<std::string>(), Catch::Contains("max constraint error"));
  CHECK(rec["steps_done"].get<long>() < rec["steps"].get<long>());
  // the failed record holds the failing step: its largest error is at least the one that failed it
  // (printed in the reason with 3 significant digits)
  const std::string reason = rec["failure"]["reason"].get<std::string>();
  const double failing = std::stod(reason.substr(reason.find("error ") + 6));
  CHECK(failing > 0);
  CHECK(rec["metrics"]["CD_pos_max"].get<double>() >= failing * (1 - 5e-3));
  // a threshold that is not a positive number is bad input
  for (const char* t : {"-1", "0", "nan", "inf"}) {
    auto b = run(std::string("run pendulum10 GC4 --duration 1 --fail-threshold ") + t);
    CHECK(b.code == 2);
    CHECK_THAT(b.output, Catch::Contains("fail_threshold"));
  }
  fs::remove_all(d);
}

namespace {

const fs::path kRoot = fs::path(MBBENCH_TEST_DATA) / ".." / "..";
const std::string kSmallExperiment = std::string(MBBENCH_TEST_DATA) + "/experiments/small.toml";

// The line of `output` that starts with `prefix` ("" if none).
std::string line_starting(const std::string& output, const std::string& prefix) {
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

bool ends_with(const std::string& s, const std::string& tail) {
  return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("run prints every value with its unit", "[cli][units]") {
  auto r = run("run pendulum90 GC4 --h 0.005 --duration 6");
  REQUIRE(r.code == 0);
  INFO(r.output);
  CHECK(ends_with(line_starting(r.output, "ED   = "), " J"));
  CHECK(ends_with(line_starting(r.output, "EID  = "), " J"));
  CHECK_THAT(line_starting(r.output, "LD   = "), Catch::Matches("LD   = \\S+ m  \\(.*periods.*\\)"));
  CHECK_THAT(line_starting(r.output, "constraint drift:"),
             Catch::Matches("constraint drift: position mean \\S+ m max \\S+ m; velocity mean \\S+ m/s max \\S+ m/s"));
}

TEST_CASE("run prints scd and mescd at t_end for a model whose source publishes the end state", "[cli][digits]") {
  // andrews: the Test Set's y(t_end = 0.03 s); no --samples needed
  auto a = run("run andrews tomcin");
  INFO(a.output);
  REQUIRE(a.code == 0);
  const std::string digits = line_starting(a.output, "significant correct digits at t = 0.03 s");
  REQUIRE(!digits.empty());
  const double mescd = std::stod(digits.substr(digits.find("mescd = ") + 8));
  CHECK(mescd > 3);  // tomcin at the model's default step agrees with the reference to several digits
  // a model without published end values prints none unless samples are asked for
  auto p = run("run pendulum10 GC4 --h 0.01 --duration 2");
  REQUIRE(p.code == 0);
  CHECK_THAT(p.output, !Catch::Contains("significant correct digits"));
}

TEST_CASE("a run above 10^8 steps needs --force and states its size and time", "[cli][force]") {
  auto r = run("run pendulum10 GC4 --h 1e-7");
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("field 'steps': ") && Catch::Contains(" steps (h = 1e-07 s over 60 s) take about ") &&
                           Catch::Contains("add --force to run them"));
  // with --force it runs (here it fails at its first step on purpose, so the test stays short)
  auto f = run("run pendulum10 GC4 --h 1e-7 --force --fail-threshold 1e-300");
  CHECK(f.code == 0);
  CHECK_THAT(f.output, Catch::Contains("status: failed"));
  // the h/64 run of --self-consistency counts: 60 s / 1e-5 s x 65 is above the limit
  auto s = run("run pendulum10 GC4 --h 1e-5 --self-consistency");
  CHECK(s.code == 2);
  CHECK_THAT(s.output, Catch::Contains("with the h/64 run"));
}

TEST_CASE("the progress line is drawn on a terminal only", "[cli][progress][full]") {
  // a run of several seconds in the Debug+ASan build (6 10^5 steps; the line appears after 3 s) in
  // a pipe: no progress line, no carriage return
  const std::string args = "run pendulum10 GC4 --h 1e-4 --no-ref";
  const auto start = std::chrono::steady_clock::now();
  auto p = run(args);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  REQUIRE(p.code == 0);
  CHECK(p.output.find('\r') == std::string::npos);
  CHECK_THAT(p.output, !Catch::Contains("run: "));
  if (seconds < 4) {
    WARN("the run took " << seconds << " s, too short for the progress line: the terminal case is not tested");
    return;
  }
  // on a pseudo-terminal (util-linux script) it is drawn, then cleared before the summary
  if (mbtest::run_command("command -v script").code != 0) {
    WARN("util-linux `script` not found: the terminal case is not tested");
    return;
  }
  auto t = mbtest::run_command("script -qec '" + std::string(MBBENCH_EXE) + " " + args + "' /dev/null");
  INFO(t.output);
  REQUIRE(t.code == 0);
  CHECK_THAT(t.output, Catch::Contains("\rrun: ") && Catch::Contains(" % of 600002 steps, ") && Catch::Contains(" elapsed, about "));
  CHECK_THAT(t.output, Catch::Contains("\r\033[K") && Catch::Contains("status: ok"));
}

TEST_CASE("LD does not apply when a scene's period does not match its motion", "[cli][period]") {
  fs::path d = temp_dir();
  REQUIRE(run("export-scene pendulum10 -o " + (d / "p.toml").string()).code == 0);
  std::string text = read_text(d / "p.toml");
  // the rod edited from 1 m to 2 m (the mass moved with it); the exported period kept
  auto replace = [&](const std::string& from, const std::string& to) {
    const size_t at = text.find(from);
    REQUIRE(at != std::string::npos);
    text.replace(at, from.size(), to);
  };
  replace("position = [0.0, -1.0, 0.0]", "position = [0.0, -2.0, 0.0]");
  replace("length = 1.0", "length = 2.0");
  std::ofstream(d / "p2.toml") << text;
  auto r = run("run " + (d / "p2.toml").string() + " GC4 --duration 10 --out " + (d / "r.json").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("mbbench: warning: LD not applicable: period mismatch: the motion's first period is 2.8"));
  CHECK_THAT(line_starting(r.output, "LD   = "), Catch::StartsWith("LD   = -  (not applicable: period mismatch"));
  json rec = read_json(d / "r.json");
  CHECK(rec["metrics"]["LD"].is_null());
  CHECK_THAT(rec["metrics"]["LD_note"].get<std::string>(), Catch::StartsWith("not applicable: period mismatch"));
  // the scene as exported: its period is its motion's, LD is a number
  auto ok = run("run " + (d / "p.toml").string() + " GC4 --duration 10");
  REQUIRE(ok.code == 0);
  CHECK_THAT(ok.output, !Catch::Contains("period mismatch"));
  CHECK_THAT(line_starting(ok.output, "LD   = "), Catch::Matches("LD   = [0-9.e+-]+ m .*"));
  // a method's own period error is what LD measures, never a mismatch: at the coarsest step of
  // schmitt2005 LMBS4's first period on pendulum90 is 10 % short
  for (const char* c : {"pendulum90 LMBS4 --h 0.08", "pendulum90 LM4 --h 0.04", "pendulum10 Imp2 --h 0.08", "conical-pendulum GC4"}) {
    auto m = run(std::string("run ") + c + " --duration 10");
    INFO(c << "\n" << m.output);
    CHECK(m.code == 0);
    CHECK_THAT(m.output, !Catch::Contains("period mismatch"));
  }
  fs::remove_all(d);
}

TEST_CASE("report and table find the experiment's paper from any directory", "[cli][paper]") {
  fs::path d = temp_dir();
  REQUIRE(run("sweep " + kSmallExperiment + " --out " + (d / "s").string()).code == 0);
  const fs::path records = d / "s" / "records.jsonl";
  // the records name the paper by its absolute path
  std::string paper;
  {
    std::ifstream in(records);
    std::string first;
    std::getline(in, first);
    paper = json::parse(first)["experiment"]["paper"].get<std::string>();
  }
  CHECK(fs::path(paper).is_absolute());
  CHECK(fs::equivalent(paper, kRoot / "results" / "paper" / "schmitt2005.toml"));
  // the tables beside the paper, as with --paper given
  const auto given = run("table " + records.string() + " --paper " + paper);
  REQUIRE(given.code == 0);
  CHECK_THAT(given.output, Catch::Contains("schmitt2005"));
  fs::create_directories(d / "elsewhere");
  const std::string cd = "cd " + (d / "elsewhere").string() + " && " + MBBENCH_EXE + " ";
  const auto table = mbtest::run_command(cd + "table ../s/records.jsonl");
  INFO(table.output);
  REQUIRE(table.code == 0);
  CHECK(table.output == given.output);
  const auto report = mbtest::run_command(cd + "report ../s/records.jsonl --out rep");
  INFO(report.output);
  REQUIRE(report.code == 0);
  CHECK(read_text(d / "elsewhere" / "rep" / "tables.md") == given.output);

  // a relative paper path is relative to the folder the sweep ran in: found from the records'
  // folder upward (records kept in results/out/<name>/ of a checkout)
  const fs::path tree = d / "checkout";
  fs::create_directories(tree / "results" / "paper");
  fs::create_directories(tree / "results" / "out" / "small");
  fs::copy_file(kRoot / "results/paper/schmitt2005.toml", tree / "results/paper/schmitt2005.toml");
  // the records with their paper path replaced by `to`, written to `out`
  auto with_paper = [&](const std::string& to, const fs::path& out) {
    std::string text = read_text(records);
    const std::string abs = json(paper).dump(), into = json(to).dump();
    size_t n = 0;
    for (size_t at = text.find(abs); at != std::string::npos; at = text.find(abs, at + into.size()), ++n)
      text.replace(at, abs.size(), into);
    REQUIRE(n > 0);
    std::ofstream(out) << text;
  };
  with_paper("results/paper/schmitt2005.toml", tree / "results/out/small/records.jsonl");
  const auto relative = mbtest::run_command(cd + "table " + (tree / "results/out/small/records.jsonl").string());
  INFO(relative.output);
  REQUIRE(relative.code == 0);
  CHECK(relative.output == given.output);
  // an absolute path of another checkout: found by its last parts above the records' folder, noted
  with_paper("/nonexistent/checkout/results/paper/schmitt2005.toml", tree / "results/out/small/moved.jsonl");
  const auto moved = mbtest::run_command(cd + "table " + (tree / "results/out/small/moved.jsonl").string() + " --out moved.md");
  INFO(moved.output);
  REQUIRE(moved.code == 0);
  CHECK(read_text(d / "elsewhere" / "moved.md") == given.output);
  CHECK_THAT(moved.output, Catch::Contains("mbbench: note: the experiment's paper /nonexistent/checkout/results/paper/schmitt2005.toml "
                                          "is not there; using " + (tree / "results/paper/schmitt2005.toml").string()));
  // not found: says so and how to give it
  fs::remove(tree / "results/paper/schmitt2005.toml");
  fs::remove(tree / "results/out/small/moved.jsonl");
  const auto missing = mbtest::run_command(cd + "table " + (tree / "results/out/small/records.jsonl").string());
  CHECK(missing.code == 2);
  CHECK_THAT(missing.output, Catch::Contains("field 'experiment.paper': the experiment's paper 'results/paper/schmitt2005.toml'") &&
                                 Catch::Contains("give it with --paper FILE"));
  fs::remove_all(d);
}

TEST_CASE("a file of another kind given as published values or experiment names what it is", "[cli][errors][kinds]") {
  fs::path d = temp_dir();
  const std::string recs = (d / "recs.jsonl").string();
  REQUIRE(run("run pendulum10 GC4 --h 0.01 --duration 1 --quiet --append " + recs).code == 0);
  const std::string paper_dir = (kRoot / "results" / "paper").string() + "/";
  // a paper file without tables (the Test Set's end values)
  auto none = run("table " + recs + " --paper " + paper_dir + "mazzia2008.toml");
  CHECK(none.code == 2);
  CHECK_THAT(none.output, Catch::Contains("mazzia2008.toml: field 'table': this paper file has no tables a report sets beside records"));
  auto none_report = run("report " + recs + " --out " + (d / "rep").string() + " --paper " + paper_dir + "mazzia2008.toml");
  CHECK(none_report.code == 2);
  CHECK_THAT(none_report.output, Catch::Contains("this paper file has no tables"));
  // a paper of timing claims only, for `table`
  auto timing = run("table " + recs + " --paper " + paper_dir + "bender2007.toml");
  CHECK(timing.code == 2);
  CHECK_THAT(timing.output, Catch::Contains("bender2007.toml: field 'table': this paper file has no [[table]] of published values") &&
                                Catch::Contains("--timing DIR"));
  // an experiment file as the paper
  auto exp = run("table " + recs + " --paper " + (kRoot / "results/experiments/schmitt2005.toml").string());
  CHECK(exp.code == 2);
  CHECK_THAT(exp.output, Catch::Contains("this is an experiment file, not published values"));
  // an accuracy experiment given to bench
  auto bench = run("bench " + kSmallExperiment + " --out " + (d / "b").string());
  if (bench.output.find("built without Google Benchmark") == std::string::npos) {
    CHECK(bench.code == 2);
    CHECK_THAT(bench.output, Catch::Contains("field 'kind': this is an accuracy experiment: use `mbbench sweep " + kSmallExperiment + "`"));
  }
  fs::remove_all(d);
}

TEST_CASE("a sweep off a terminal prints a plain progress line every --progress-every s and none with --quiet", "[cli][progress]") {
  fs::path d = temp_dir();
  // a ticker prints while cases run, a finished case when the interval has passed: with an interval
  // of 1 ms every case of the small experiment prints one
  auto p = run("sweep " + kSmallExperiment + " --out " + (d / "a").string() + " --progress-every 0.001");
  REQUIRE(p.code == 0);
  CHECK(p.output.find('\r') == std::string::npos);
  CHECK_THAT(p.output, Catch::Contains("sweep: ") && Catch::Contains("/16 cases, 0 failed, ") && Catch::Contains(" s elapsed"));
  auto q = run("sweep " + kSmallExperiment + " --out " + (d / "b").string() + " --progress-every 0.001 --quiet");
  REQUIRE(q.code == 0);
  CHECK_THAT(q.output, !Catch::Contains("sweep: "));
  // the default interval, 10 s: the small experiment ends before any line
  auto r = run("sweep " + kSmallExperiment + " --out " + (d / "c").string());
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, !Catch::Contains(" cases, "));
  fs::remove_all(d);
}

TEST_CASE("did-you-mean for commands and options and methods and models and choices", "[cli][hints]") {
  auto c = run("runn pendulum90 GC4");
  CHECK(c.code == 2);
  CHECK_THAT(c.output, Catch::Contains("unknown command 'runn'; did you mean 'run'?"));
  auto o = run("run pendulum90 GC4 --step 0.01");
  CHECK(o.code == 2);
  CHECK_THAT(o.output, Catch::Contains("`mbbench run` has no option '--step'; did you mean '--h'?"));
  auto o2 = run("run pendulum90 GC4 --duraton 1");
  CHECK_THAT(o2.output, Catch::Contains("did you mean '--duration'?"));
  auto m = run("run pendulum90 gc4");
  CHECK(m.code == 2);
  CHECK_THAT(m.output, Catch::Contains("unknown method 'gc4'; did you mean 'GC4'?"));
  auto md = run("run pendulm90 GC4");
  CHECK(md.code == 2);
  CHECK_THAT(md.output, Catch::Contains("unknown model 'pendulm90'; did you mean 'pendulum90'?"));
  auto k = run("run pendulum90 iterative:max_itr=5");
  CHECK(k.code == 2);
  CHECK_THAT(k.output, Catch::Contains("unknown option 'max_itr'") && Catch::Contains("did you mean 'max_iter'?"));
  // a choice in another case is the choice; a misspelt one is named
  auto ch = run("run pendulum90 Imp4:solver=LINEAR --duration 0.1 --no-ref");
  CHECK(ch.code == 0);
  CHECK_THAT(ch.output, Catch::Contains("status: ok"));
  // run --help names every kind of model it takes
  auto help = run("run --help");
  CHECK_THAT(help.output, Catch::Contains(".toml scene file") && Catch::Contains(".urdf robot") && Catch::Contains("MJCF .xml file"));
  auto bad = run("run pendulum90 Imp4:solver=linera --duration 0.1");
  CHECK(bad.code == 2);
  CHECK_THAT(bad.output, Catch::Contains("did you mean 'linear'?"));
}

TEST_CASE("run prints the model's own metrics with their units", "[cli][units]") {
  auto r = run("run walker sle --duration 1 --no-ref");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("walk_distance = ") && Catch::Contains("PEN_max = "));
}

TEST_CASE("a convergence failure names the options that help", "[cli][hints]") {
  // Imp4 on the UR5 (tolerance 0: to round-off) stalls at 3.7e-14 in its velocity correction at
  // t = 0.365 s; a direct solver, the first option the message names, runs the same 0.4 s
  const std::string ur5 = std::string(MBBENCH_TEST_DATA) + "/robots/ur5.urdf";
  auto r = run("run " + ur5 + " Imp4 --duration 0.4 --no-ref");
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("velocity correction did not converge in 1000 sweeps (error 3.67e-14 > tolerance 0 = round-off); try "
                                       "tol_v=1e-13, solver=sle|cholmod|linear (direct) or a larger max_iter"));
  for (const char* fix : {"Imp4:solver=linear", "Imp4:solver=sle"}) {
    auto f = run("run " + ur5 + " " + fix + " --duration 0.4 --no-ref");
    INFO(fix << "\n" << f.output);
    CHECK(f.code == 0);
    CHECK_THAT(f.output, Catch::Contains("status: ok"));
  }
}

TEST_CASE("a verdict on settings other than the paper's says so", "[cli][paper]") {
  // the small experiment runs 4 s at h 0.005..0.04; schmitt2005 s.6 ran 60 s at h 0.00125..0.08
  fs::path d = temp_dir();
  REQUIRE(run("sweep " + kSmallExperiment + " --out " + (d / "s").string() + " --quiet").code == 0);
  auto t = run("table " + (d / "s" / "records.jsonl").string());
  REQUIRE(t.code == 0);
  CHECK_THAT(t.output, Catch::Contains("(settings differ: 4 s, the paper's 60 s; h 0.005..0.04, the paper's 0.00125..0.08)"));
  auto r = run("report " + (d / "s" / "records.jsonl").string() + " --out " + (d / "r").string());
  REQUIRE(r.code == 0);
  std::ifstream in(d / "r" / "report.html");
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK_THAT(html, Catch::Contains("used other settings than the paper's"));
  fs::remove_all(d);
}
