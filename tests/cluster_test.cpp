// End-to-end tests of a sweep beyond one machine (docs/cluster.md):
//   - the record set is the same, accuracy fields bit for bit and in the same order, whatever the
//     distribution: --jobs 1, --jobs 2, mpirun -n 2, mpirun -n 4 and 4 merged shards;
//   - a rank killed (SIGKILL) mid-sweep loses only its case in flight: every record written before
//     is kept and `--resume` under mpirun completes the set;
//   - merge refuses shards of another experiment file or another build, naming the file and field.
// The MPI runs need OpenMPI's mpiexec (CMake's MPIEXEC_EXECUTABLE, MBBENCH_TEST_MPIEXEC); without
// MPI the test checks that --mpi says "built without MPI".
#include <catch2/catch.hpp>

#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "cli_util.hpp"
#include "experiments/experiment.hpp"
#include "records/store.hpp"

namespace fs = std::filesystem;

namespace {

const std::string kSmall = std::string(MBBENCH_TEST_DATA) + "/experiments/small.toml";
// small.toml with 5 times the duration: a sweep killed after 2 records is not finished, though rank 0
// goes on writing until mpirun ends it (about a second)
const std::string kLong = std::string(MBBENCH_TEST_DATA) + "/experiments/small-long.toml";
const std::string kSlurmScript = std::string(MBBENCH_TEST_DATA) + "/../../docs/slurm/sweep-array.sh";

// the accuracy fields of every record, in file order (what must be bit-identical)
[[maybe_unused]] std::vector<std::string> accuracy_list(const fs::path& file) {
  std::vector<std::string> v;
  for (const mb::CaseRecord& r : mb::read_records_file(file.string()).records) v.push_back(mb::accuracy_fields(r));
  return v;
}

long line_count(const fs::path& file) {
  std::ifstream in(file);
  long n = 0;
  std::string s;
  while (std::getline(in, s)) ++n;
  return n;
}

std::string read_text(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

#ifdef MBBENCH_TEST_MPIEXEC
// The environment of the MPI runs (docs/cluster.md):
//  - ASAN_OPTIONS=detect_leaks=0: the Debug build uses AddressSanitizer, and OpenMPI keeps memory
//    allocated in MPI_Init to the end of the process (hwloc topology, PMIx, MCA components), which
//    LeakSanitizer reports as leaks at exit and turns into a non-zero exit code;
//  - root (CI runs as root): mpiexec refuses root unless told (--allow-run-as-root);
//  - --oversubscribe: more ranks than cores (the CI machine has 2).
std::vector<std::string> mpi_argv(int ranks) {
  std::vector<std::string> v = {MBBENCH_TEST_MPIEXEC};
  if (geteuid() == 0) v.push_back("--allow-run-as-root");
  v.insert(v.end(), {"--oversubscribe", "-n", std::to_string(ranks), MBBENCH_EXE});
  return v;
}

std::string mpi_command(int ranks, const std::string& args) {
  std::string cmd = "ASAN_OPTIONS=detect_leaks=0:abort_on_error=1";
  for (const auto& a : mpi_argv(ranks)) cmd += " " + a;
  return cmd + " " + args;
}

// the pids of mpiexec's children (the ranks on this node) whose OMPI_COMM_WORLD_RANK is `rank`
std::vector<pid_t> rank_pids(pid_t mpiexec, int rank) {
  std::vector<pid_t> pids;
  const std::string want = fmt::format("OMPI_COMM_WORLD_RANK={}", rank);
  for (const auto& e : fs::directory_iterator("/proc")) {
    const std::string name = e.path().filename().string();
    if (name.find_first_not_of("0123456789") != std::string::npos) continue;
    std::istringstream stat(read_text(e.path() / "stat"));
    std::string pid, comm, state;
    long ppid = 0;
    if (!(stat >> pid >> comm >> state >> ppid) || ppid != mpiexec) continue;
    std::string env = read_text(e.path() / "environ");
    for (size_t pos = 0; pos < env.size();) {
      const size_t end = env.find('\0', pos);
      if (env.compare(pos, (end == std::string::npos ? env.size() : end) - pos, want) == 0) pids.push_back(std::stoi(name));
      if (end == std::string::npos) break;
      pos = end + 1;
    }
  }
  return pids;
}
#endif

}  // namespace

#ifdef MBBENCH_TEST_MPIEXEC

TEST_CASE("cluster: the record set is the same with --jobs 1 and 2, mpirun -n 2 and 4, and 4 merged shards",
          "[cluster][mpi][full]") {
  fs::path d = mbtest::temp_dir("cluster_same");
  REQUIRE(mbtest::run_cli(fmt::format("sweep {} --jobs 1 --out {}", kSmall, (d / "j1").string())).code == 0);
  const auto expected = accuracy_list(d / "j1" / "records.jsonl");
  REQUIRE(expected.size() == mb::expand_cases(mb::read_experiment(kSmall)).size());

  REQUIRE(mbtest::run_cli(fmt::format("sweep {} --jobs 2 --out {}", kSmall, (d / "j2").string())).code == 0);
  CHECK(accuracy_list(d / "j2" / "records.jsonl") == expected);

  for (int n : {2, 4}) {
    INFO("mpirun -n " << n);
    const fs::path out = d / fmt::format("n{}", n);
    auto r = mbtest::run_command(mpi_command(n, fmt::format("sweep {} --mpi --out {}", kSmall, out.string())));
    INFO(r.output);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.output, Catch::Contains(fmt::format("over {} MPI rank(s): {} run now", n, expected.size())));
    // the cases were spread: rank 1 (a worker, not rank 0) ran at least one
    const std::string per = "cases run by rank 0, 1, ...: ";
    const size_t at = r.output.find(per);
    REQUIRE(at != std::string::npos);
    std::istringstream counts(r.output.substr(at + per.size()));
    long c0 = 0, c1 = 0;
    char comma = 0;
    counts >> c0 >> comma >> c1;
    CHECK(c1 > 0);
    CHECK(accuracy_list(out / "records.jsonl") == expected);
  }

  // 4 shards, each a task of the Slurm array script (its environment as sbatch --array=1-4 sets it)
  std::string shards;
  for (int k = 1; k <= 4; ++k) {
    auto t = mbtest::run_command(fmt::format("SLURM_ARRAY_TASK_ID={} SLURM_ARRAY_TASK_MIN=1 SLURM_ARRAY_TASK_MAX=4 "
                                             "SLURM_ARRAY_TASK_COUNT=4 SLURM_CPUS_PER_TASK=1 MBBENCH={} bash {} {} {}",
                                             k, MBBENCH_EXE, kSlurmScript, kSmall, (d / "sh").string()));
    INFO(t.output);
    REQUIRE(t.code == 0);
    CHECK_THAT(t.output, Catch::Contains(fmt::format("(shard {}/4)", k)));
    shards += fmt::format(" {}", (d / "sh" / fmt::format("records.shard-{}-of-4.jsonl", k)).string());
  }
  auto m = mbtest::run_cli("merge" + shards + " --out " + (d / "merged.jsonl").string());
  INFO(m.output);
  REQUIRE(m.code == 0);
  CHECK(accuracy_list(d / "merged.jsonl") == expected);
  fs::remove_all(d);
}

TEST_CASE("cluster: a rank killed mid-sweep loses only its case in flight and --resume completes the set",
          "[cluster][mpi][resume]") {
  const long total = static_cast<long>(mb::expand_cases(mb::read_experiment(kLong)).size());
  fs::path d = mbtest::temp_dir("cluster_kill");
  REQUIRE(mbtest::run_cli(fmt::format("sweep {} --jobs 2 --out {}", kLong, (d / "full").string())).code == 0);
  const auto expected = accuracy_list(d / "full" / "records.jsonl");

  // mpirun -n 2; once 2 records are written, rank 0 (the writer) is frozen (SIGSTOP) so that the
  // sweep cannot finish whatever the build's speed (a Release build runs it in 0.2 s), and rank 1 is
  // killed (SIGKILL); mpirun notices the dead rank and ends the job, rank 0 with it
  const fs::path records = d / "killed" / "records.jsonl";
  std::vector<std::string> args = mpi_argv(2);
  args.insert(args.end(), {"sweep", kLong, "--mpi", "--out", (d / "killed").string()});
  pid_t mpiexec = fork();
  REQUIRE(mpiexec >= 0);
  if (mpiexec == 0) {
    std::freopen("/dev/null", "w", stdout);
    std::freopen("/dev/null", "w", stderr);
    setenv("ASAN_OPTIONS", "detect_leaks=0:abort_on_error=1", 1);
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    execv(argv[0], argv.data());
    _exit(127);
  }
  // the ranks' pids first (reading /proc takes milliseconds), then the records file every millisecond
  auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> writer, victims;
  while ((writer.empty() || victims.empty()) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(60)) {
    writer = rank_pids(mpiexec, 0);
    victims = rank_pids(mpiexec, 1);
  }
  while (!(fs::exists(records) && line_count(records) >= 2) && std::chrono::steady_clock::now() - t0 < std::chrono::seconds(120))
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  for (pid_t p : writer) kill(p, SIGSTOP);
  for (pid_t p : victims) kill(p, SIGKILL);
  int status = 0;
  t0 = std::chrono::steady_clock::now();
  while (waitpid(mpiexec, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() - t0 > std::chrono::seconds(60))  // mpirun did not end the job
      for (pid_t p : writer) kill(p, SIGKILL);
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  REQUIRE(writer.size() == 1);
  REQUIRE(victims.size() == 1);
  CHECK(!(WIFEXITED(status) && WEXITSTATUS(status) == 0));
  const long before = line_count(records);
  INFO("records before the kill: " << before << " of " << total);
  REQUIRE(before >= 2);
  REQUIRE(before < total);
  // what was written is whole records of this sweep (a last line cut short would be dropped)
  const auto kept = mb::read_records_file(records.string());
  CHECK(static_cast<long>(kept.records.size()) >= before - 1);

  auto resumed = mbtest::run_command(mpi_command(2, fmt::format("sweep {} --mpi --resume --out {}", kLong, (d / "killed").string())));
  INFO(resumed.output);
  REQUIRE(resumed.code == 0);
  CHECK_THAT(resumed.output, Catch::Contains(fmt::format("{} already done", kept.records.size())));
  CHECK_THAT(resumed.output, Catch::Contains(fmt::format("{} run now", total - static_cast<long>(kept.records.size()))));
  CHECK(line_count(records) == total);
  CHECK(accuracy_list(records) == expected);
  fs::remove_all(d);
}

TEST_CASE("cluster: bad input to sweep --mpi stops every rank with exit code 2 and one message", "[cluster][mpi][errors][full]") {
  fs::path d = mbtest::temp_dir("cluster_bad");
  auto jobs = mbtest::run_command(mpi_command(2, fmt::format("sweep {} --mpi --jobs 2 --out {}", kSmall, d.string())));
  CHECK(jobs.code == 2);
  CHECK_THAT(jobs.output, Catch::Contains("jobs") && Catch::Contains("mpirun -n N"));
  auto missing = mbtest::run_command(mpi_command(2, fmt::format("sweep {} --mpi", (d / "nope.toml").string())));
  CHECK(missing.code == 2);
  CHECK_THAT(missing.output, Catch::Contains("nope.toml") && Catch::Contains("cannot open experiment file"));
  // an existing records file without --resume: rank 0 refuses, the worker is told to stop
  REQUIRE(mbtest::run_cli(fmt::format("sweep {} --shard 1/8 --out {}", kSmall, d.string())).code == 0);
  auto exists = mbtest::run_command(mpi_command(2, fmt::format("sweep {} --mpi --shard 1/8 --out {}", kSmall, d.string())));
  CHECK(exists.code == 2);
  CHECK_THAT(exists.output, Catch::Contains("records.shard-1-of-8.jsonl") && Catch::Contains("--resume"));
  fs::remove_all(d);
}

TEST_CASE("cluster: mbbench --version lists MPI", "[cluster][mpi]") {
  auto v = mbtest::run_cli("--version");
  CHECK(v.code == 0);
  CHECK_THAT(v.output, Catch::Contains("MPI: ") && Catch::Contains("(sweep --mpi)"));
  CHECK_THAT(v.output, !Catch::Contains("built without MPI"));
}

#else

TEST_CASE("cluster: without MPI, sweep --mpi says so (exit code 2) and --version lists no MPI", "[cluster][mpi]") {
  auto r = mbtest::run_cli("sweep " + kSmall + " --mpi");
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("built without MPI"));
  CHECK_THAT(mbtest::run_cli("--version").output, Catch::Contains("MPI: no"));
}

#endif

TEST_CASE("cluster: merge refuses shards of another experiment file or another build", "[cluster][merge][full]") {
  fs::path d = mbtest::temp_dir("cluster_merge");
  // the same experiment file, written again with one more comment: another experiment hash
  const fs::path edited = d / "small.toml";
  {
    std::string text = read_text(kSmall);
    // paper is relative to the experiment file's folder: keep it pointing at the same file
    const std::string from = "paper = \"../../../results/paper/schmitt2005.toml\"";
    REQUIRE(text.find(from) != std::string::npos);
    text.replace(text.find(from), from.size(),
                 fmt::format("paper = \"{}\"", (fs::path(kSmall).parent_path() / "../../../results/paper/schmitt2005.toml").string()));
    std::ofstream(edited) << text;
  }
  for (int k = 1; k <= 2; ++k)
    REQUIRE(mbtest::run_cli(fmt::format("sweep {} --shard {}/2 --out {}", kSmall, k, (d / "a").string())).code == 0);
  const fs::path s1 = d / "a" / "records.shard-1-of-2.jsonl", s2 = d / "a" / "records.shard-2-of-2.jsonl";
  auto ok = mbtest::run_cli(fmt::format("merge {} {} --out {}", s1.string(), s2.string(), (d / "ok.jsonl").string()));
  INFO(ok.output);
  REQUIRE(ok.code == 0);

  // shard 2 of the edited file (another experiment hash and file, the same name)
  REQUIRE(mbtest::run_cli(fmt::format("sweep {} --shard 2/2 --out {}", edited.string(), (d / "b").string())).code == 0);
  const fs::path b2 = d / "b" / "records.shard-2-of-2.jsonl";
  auto exp = mbtest::run_cli(fmt::format("merge {} {} --out {}", s1.string(), b2.string(), (d / "bad.jsonl").string()));
  CHECK(exp.code == 2);
  CHECK_THAT(exp.output, Catch::Contains(b2.string()) && Catch::Contains("another experiment file") &&
                             Catch::Contains("provenance.experiment_hash"));
  CHECK(!fs::exists(d / "bad.jsonl"));

  // shard 2 of another experiment (its name changed in every record)
  auto rewrite = [&](const std::string& from, const std::string& to, const fs::path& out) {
    std::string text = read_text(s2);
    size_t n = 0;
    for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size()), ++n)
      text.replace(pos, from.size(), to);
    REQUIRE(n == static_cast<size_t>(line_count(s2)));
    std::ofstream(out) << text;
  };
  rewrite("\"name\":\"small\"", "\"name\":\"other\"", d / "other.jsonl");
  auto other = mbtest::run_cli(fmt::format("merge {} {} --out {}", s1.string(), (d / "other.jsonl").string(), (d / "bad.jsonl").string()));
  CHECK(other.code == 2);
  CHECK_THAT(other.output, Catch::Contains("other.jsonl") && Catch::Contains("experiment.name"));

  // shard 2 of another build: another commit, and other compiler flags
  const std::string commit = mb::read_records_file(s2.string()).records.front().provenance.git_commit;
  rewrite("\"git_commit\":\"" + commit + "\"", "\"git_commit\":\"0000000000000000000000000000000000000000\"", d / "commit.jsonl");
  auto build = mbtest::run_cli(fmt::format("merge {} {} --out {}", s1.string(), (d / "commit.jsonl").string(), (d / "bad.jsonl").string()));
  CHECK(build.code == 2);
  CHECK_THAT(build.output, Catch::Contains("commit.jsonl") && Catch::Contains("another build") &&
                               Catch::Contains("provenance.git_commit"));
  const std::string flags = mb::read_records_file(s2.string()).records.front().provenance.flags;
  rewrite("\"flags\":\"" + flags + "\"", "\"flags\":\"" + flags + " -ffast-math\"", d / "flags.jsonl");
  auto fl = mbtest::run_cli(fmt::format("merge {} {} --out {}", (d / "flags.jsonl").string(), s1.string(), (d / "bad.jsonl").string()));
  CHECK(fl.code == 2);
  CHECK_THAT(fl.output, Catch::Contains(s1.string()) && Catch::Contains("provenance.flags"));
  CHECK(!fs::exists(d / "bad.jsonl"));

  // --resume refuses to continue a records file of another build too
  fs::create_directories(d / "c");
  fs::copy_file(d / "commit.jsonl", d / "c" / "records.shard-2-of-2.jsonl");
  auto resume = mbtest::run_cli(fmt::format("sweep {} --shard 2/2 --resume --out {}", kSmall, (d / "c").string()));
  CHECK(resume.code == 2);
  CHECK_THAT(resume.output, Catch::Contains("provenance.git_commit"));
  fs::remove_all(d);
}
