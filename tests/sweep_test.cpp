// End-to-end tests of mbbench sweep and merge: a killed sweep resumes to the same record set,
// shards merge to the unsharded sweep, --jobs does not change a number, and every bad experiment
// file stops with file, line and field before any case runs.
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <thread>

#include <fmt/format.h>

#include "cli_util.hpp"
#include "models/catalog.hpp"
#include "experiments/experiment.hpp"
#include "records/store.hpp"
#include "sim/run_case.hpp"
#include "sweep/sweep.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kSmall = std::string(MBBENCH_TEST_DATA) + "/experiments/small.toml";

// case id -> record without provenance (what must be bit-identical), checking ids are unique
std::map<std::string, std::string> record_set(const fs::path& file) {
  std::map<std::string, std::string> set;
  for (const mb::CaseRecord& r : mb::read_records_file(file.string()).records) {
    REQUIRE(r.experiment);
    std::string id = r.experiment->case_id;
    INFO("case " << id);
    CHECK(set.count(id) == 0);
    set[id] = mb::accuracy_fields(r);
  }
  return set;
}

// complete lines only: a line the writer has not finished (no '\n' yet) does not count
long line_count(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  long n = 0;
  for (char c; in.get(c);) n += c == '\n';
  return n;
}

// drops a tail cut short by the kill, so lines the test appends start on a fresh line
void truncate_to_last_newline(const fs::path& file) {
  std::string text;
  {
    std::ifstream in(file, std::ios::binary);
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  const auto end = text.rfind('\n');
  fs::resize_file(file, end == std::string::npos ? 0 : end + 1);
}

}  // namespace

TEST_CASE("a sweep killed mid-way and resumed gives the uninterrupted record set", "[sweep][resume]") {
  const long total = static_cast<long>(mb::expand_cases(mb::read_experiment(kSmall)).size());
  fs::path d = mbtest::temp_dir("sweep_resume");
  // the uninterrupted sweep, 2 jobs
  auto full = mbtest::run_cli("sweep " + kSmall + " --jobs 2 --out " + (d / "full").string());
  REQUIRE(full.code == 0);
  auto expected = record_set(d / "full" / "records.jsonl");
  REQUIRE(static_cast<long>(expected.size()) == total);

  // a sweep with 1 job, killed (SIGKILL) once some but not all cases are written
  const fs::path records = d / "killed" / "records.jsonl";
  pid_t pid = fork();
  REQUIRE(pid >= 0);
  if (pid == 0) {
    freopen("/dev/null", "w", stdout);
    execl(MBBENCH_EXE, MBBENCH_EXE, "sweep", kSmall.c_str(), "--jobs", "1", "--out", (d / "killed").c_str(), (char*)nullptr);
    _exit(127);
  }
  auto t0 = std::chrono::steady_clock::now();
  while (!(fs::exists(records) && line_count(records) >= 3) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60))
    std::this_thread::sleep_for(std::chrono::milliseconds(2));
  kill(pid, SIGKILL);
  int status = 0;
  waitpid(pid, &status, 0);
  REQUIRE(WIFSIGNALED(status));
  const long before = line_count(records);
  INFO("records before the kill: " << before << " of " << total);
  REQUIRE(before >= 3);
  REQUIRE(before < total);
  // the kill may land mid-write: that half line is what resume must drop; the test's own half line
  // below stands for it, so the real one goes first (appending after it would break a middle line)
  truncate_to_last_newline(records);
  // a complete line written twice (e.g. a copy) is kept once, and a write cut short (a half line
  // at the end) is dropped, never duplicated
  std::string first_line;
  {
    std::ifstream in(records);
    std::getline(in, first_line);
  }
  REQUIRE(!first_line.empty());
  { std::ofstream(records, std::ios::app) << first_line << "\n" << R"({"schema_version":3,"experiment":{"case_id":"pendul)"; }

  // without --resume the existing file is refused; with it the sweep completes
  auto refused = mbtest::run_cli("sweep " + kSmall + " --out " + (d / "killed").string());
  CHECK(refused.code == 2);
  CHECK_THAT(refused.output, Catch::Contains("--resume"));
  auto resumed = mbtest::run_cli("sweep " + kSmall + " --jobs 1 --resume --out " + (d / "killed").string());
  INFO(resumed.output);
  REQUIRE(resumed.code == 0);
  CHECK_THAT(resumed.output, Catch::Contains("appeared more than once"));
  CHECK_THAT(resumed.output, Catch::Contains(fmt::format("{} already done", before)));
  CHECK(line_count(records) == total);
  CHECK(record_set(records) == expected);
  // and a second resume has nothing left to do
  auto again = mbtest::run_cli("sweep " + kSmall + " --resume --out " + (d / "killed").string());
  CHECK_THAT(again.output, Catch::Contains("0 run now"));
  CHECK(record_set(records) == expected);
  // a line of another experiment in the file: refused, naming the case, nothing changed
  {
    std::string other = first_line;
    const std::string from = "\"name\":\"small\"";
    REQUIRE(other.find(from) != std::string::npos);
    other.replace(other.find(from), from.size(), "\"name\":\"other\"");
    std::ofstream(records, std::ios::app) << other << "\n";
  }
  auto foreign = mbtest::run_cli("sweep " + kSmall + " --resume --out " + (d / "killed").string());
  CHECK(foreign.code == 2);
  CHECK_THAT(foreign.output, Catch::Contains("not a case of this experiment"));
  CHECK(line_count(records) == total + 1);
  fs::remove_all(d);
}

TEST_CASE("shards 1/3, 2/3, 3/3 merged equal the unsharded sweep", "[sweep][shard]") {
  fs::path d = mbtest::temp_dir("sweep_shard");
  REQUIRE(mbtest::run_cli("sweep " + kSmall + " --jobs 2 --out " + (d / "all").string()).code == 0);
  std::string shards;
  for (int k = 1; k <= 3; ++k) {
    auto r = mbtest::run_cli(fmt::format("sweep {} --shard {}/3 --out {}", kSmall, k, (d / "sh").string()));
    REQUIRE(r.code == 0);
    shards += fmt::format(" {}", (d / "sh" / fmt::format("records.shard-{}-of-3.jsonl", k)).string());
  }
  // merging twice the same shard must not duplicate a case
  auto m = mbtest::run_cli("merge" + shards + " " + (d / "sh" / "records.shard-2-of-3.jsonl").string() + " --out " +
                           (d / "merged.jsonl").string());
  REQUIRE(m.code == 0);
  CHECK_THAT(m.output, Catch::Contains("duplicated"));
  // same records, same order, same numbers (provenance aside)
  auto a = mb::read_records_file((d / "all" / "records.jsonl").string()).records;
  auto b = mb::read_records_file((d / "merged.jsonl").string()).records;
  REQUIRE(a.size() == b.size());
  for (size_t i = 0; i < a.size(); ++i) CHECK(mb::accuracy_fields(a[i]) == mb::accuracy_fields(b[i]));
  CHECK(mbtest::run_cli("sweep " + kSmall + " --shard 4/3").code == 2);
  fs::remove_all(d);
}

TEST_CASE("a bad experiment file names file, line and field and runs no case", "[sweep][errors]") {
  const std::string bad = std::string(MBBENCH_TEST_DATA) + "/experiments/bad/";
  struct Expect {
    const char* file;
    const char* where;  // file:line: field '...'
  };
  const Expect cases[] = {
      {"unknown_model.toml", "unknown_model.toml:4: field 'models[1]': unknown model 'pendulum45'"},
      {"unknown_option.toml", "unknown_option.toml:3: field 'methods[1]': unknown option 'tolerance'"},
      {"negative_h.toml", "negative_h.toml:5: field 'h[1]': step size must be positive"},
      {"missing_key.toml", "missing_key.toml:1: field 'methods': missing required field"},
      {"unknown_key.toml", "unknown_key.toml:5: field 'durration': unknown field"},
      {"unknown_metric.toml", "unknown_metric.toml:4: field 'metrics[1]': unknown metric 'XD'"},
      {"unknown_reading.toml", "unknown_reading.toml:7: field 'readings.steps'"},
      {"unknown_method.toml", "unknown_method.toml:3: field 'methods[1]': unknown method 'LM5'"},
  };
  fs::path d = mbtest::temp_dir("sweep_bad");
  for (const auto& c : cases) {
    auto r = mbtest::run_cli("sweep " + bad + c.file + " --out " + (d / c.file).string());
    INFO(c.file << ": " << r.output);
    CHECK(r.code == 2);
    CHECK_THAT(r.output, Catch::Contains(c.where));
    CHECK(!fs::exists(d / c.file));  // nothing was run or written
  }
  fs::remove_all(d);
}

TEST_CASE("experiment cases: stable ids, deterministic order, swept readings", "[sweep]") {
  auto e = mb::parse_experiment(R"(
name = "x"
models = ["pendulum90"]
methods = ["GC4"]
h = [0.01, 0.02]
metrics = ["LD"]
[readings]
steps = ["ceil", "floor"]
ld_periods = ["whole", "half"]
)", "x.toml");
  auto cases = mb::expand_cases(e);
  REQUIRE(cases.size() == 8);
  CHECK(cases[0].id == "pendulum90 GC4 h=0.01 steps=ceil ld=whole");
  CHECK(cases[1].id == "pendulum90 GC4 h=0.02 steps=ceil ld=whole");
  CHECK(cases[7].id == "pendulum90 GC4 h=0.02 steps=floor ld=half");
  for (size_t i = 0; i < cases.size(); ++i) CHECK(cases[i].index == static_cast<long>(i));
  // the half-period reading needs an even number of steps per period
  auto plan = mb::plan_steps(mb::build_model("pendulum90"), cases[2].cfg);
  CHECK(*plan.steps_per_period % 2 == 0);
  // the step-count readings: the step crossing the duration counts (ceil) or not (floor)
  mb::RunConfig cfg;
  cfg.h = 0.04;
  cfg.duration = 60;
  cfg.steps = mb::StepCount::Floor;
  auto fl = mb::plan_steps(mb::build_model("pendulum10"), cfg);
  cfg.steps = mb::StepCount::Ceil;
  auto ce = mb::plan_steps(mb::build_model("pendulum10"), cfg);
  CHECK(fl.steps == 1492);  // 60 / (T10 / 50) = 1492.6
  CHECK(ce.steps == 1493);
}

TEST_CASE("each model spec is built once and its cases share it", "[sweep]") {
  const auto e = mb::parse_experiment(R"(
name = "x"
models = ["pendulum90", "double-pendulum"]
methods = ["GC4", "LM4"]
h = [0.01, 0.02]
metrics = ["LD"]
)", "x.toml");
  REQUIRE(e.built.size() == 2);
  const auto cases = mb::expand_cases(e);
  REQUIRE(cases.size() == 8);
  for (const auto& c : cases) {
    INFO(c.id);
    CHECK(c.built == e.built[c.model == "pendulum90" ? 0 : 1]);
  }
  // the experiment and its 4 cases hold the one model of each spec
  CHECK(e.built[0].use_count() == 5);
  CHECK(e.built[1].use_count() == 5);
  CHECK(e.built[0]->info.name == mb::build_model("pendulum90").info.name);
}

TEST_CASE("an experiment may name a scene file, relative to the experiment file", "[sweep][scene]") {
  const fs::path d = mbtest::temp_dir("sweep_scene");
  fs::create_directories(d / "scenes");
  REQUIRE(mbtest::run_cli("export-scene double-pendulum -o " + (d / "scenes" / "dp.toml").string()).code == 0);
  std::ofstream(d / "exp.toml") << "name = \"scene-exp\"\nmodels = [\"scenes/dp.toml\"]\nmethods = [\"GC4\"]\n"
                                   "h = [0.01]\nduration = 1.0\nmetrics = [\"ED\"]\n";
  const mb::Experiment e = mb::read_experiment((d / "exp.toml").string());
  const auto cases = mb::expand_cases(e);
  REQUIRE(cases.size() == 1);
  const mb::CaseRecord r = mb::run_sweep_case(e, cases[0]);
  INFO(r.reason);
  CHECK(r.ok());
  // the same numbers as the catalog model the scene was written from
  mb::RunConfig c;
  c.h = 0.01;
  c.duration = 1;
  const mb::CaseRecord direct = mb::run_case(mb::build_model("double-pendulum"), "GC4", c);
  CHECK(r.metrics.get("ED") == direct.metrics.get("ED"));
  fs::remove_all(d);
}

TEST_CASE("a sweep's summary counts refusals by name apart from failures", "[sweep]") {
  const fs::path d = mbtest::temp_dir("sweep_refused");
  // GC4 refuses a loop by name; linear runs it
  std::ofstream(d / "exp.toml") << "name = \"refusals\"\nmodels = [\"loop:n=4\"]\nmethods = [\"GC4\", \"linear\"]\n"
                                   "h = [0.01]\nduration = 0.1\nmetrics = [\"ED\"]\n";
  const auto r = mbtest::run_cli("sweep " + (d / "exp.toml").string() + " --quiet --out " + (d / "out").string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("2 run now (0 failed, 1 unsupported)"));
  fs::remove_all(d);
}

TEST_CASE("a sweep with a peer engine resumes and merges - the engine's version is not the build's", "[sweep][resume][merge]") {
  // a peer engine's record carries the engine's version among its libraries (run_case): resume
  // and merge compare the build's libraries, and the engine's only between records of that engine
  fs::path d = mbtest::temp_dir("sweep_peer_resume");
  const fs::path exp = d / "peer.toml";
  std::ofstream(exp) << "name = \"peer\"\nreproduces = \"tests only\"\nmodels = [\"pendulum10\"]\nmethods = [\"ode\", \"GC4\"]\n"
                        "h = [0.01]\nduration = 0.1\nmetrics = [\"ED\"]\n";
  auto full = mbtest::run_cli(fmt::format("sweep {} --jobs 1 --out {}", exp.string(), (d / "a").string()));
  INFO(full.output);
  REQUIRE(full.code == 0);
  const fs::path records = d / "a" / "records.jsonl";
  const auto all = mb::read_records_file(records.string()).records;
  REQUIRE(all.size() == 2);
  const auto peer = std::find_if(all.begin(), all.end(), [](const mb::CaseRecord& r) { return r.method.name == "ode"; });
  REQUIRE(peer != all.end());
  REQUIRE(peer->provenance.libraries.count("ode") == 1);
  // merge: records of the engine and of ours in one file, the engine's first
  mb::write_records((d / "peer_first.jsonl").string(), {*peer, all[peer == all.begin() ? 1 : 0]});
  auto merged = mbtest::run_cli(fmt::format("merge {} --out {}", (d / "peer_first.jsonl").string(), (d / "m.jsonl").string()));
  INFO(merged.output);
  CHECK(merged.code == 0);
  // resume from the engine's record alone
  mb::write_records(records.string(), {*peer});
  auto resumed = mbtest::run_cli(fmt::format("sweep {} --jobs 1 --resume --out {}", exp.string(), (d / "a").string()));
  INFO(resumed.output);
  CHECK(resumed.code == 0);
  CHECK(mb::read_records_file(records.string()).records.size() == 2);
  // another version of the engine in one of two records of it: another build
  mb::CaseRecord other = *peer;
  other.provenance.libraries["ode"] += "-other";
  mb::write_records((d / "two.jsonl").string(), {*peer, other});
  auto refused = mbtest::run_cli(fmt::format("merge {} --out {}", (d / "two.jsonl").string(), (d / "bad.jsonl").string()));
  CHECK(refused.code == 2);
  CHECK_THAT(refused.output, Catch::Contains("provenance.libraries"));
}
