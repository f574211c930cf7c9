// The gate's child processes and what runs in them: cachegrind counts of `gate-steps` children,
// the `gate-serve` timer of A/B runs, and the child side of both commands.
#include "gate/process.hpp"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <thread>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"
#include "experiments/experiment.hpp"
#include "methods/method.hpp"
#include "methods/plugin.hpp"

extern char** environ;

namespace mb {

namespace fs = std::filesystem;

namespace gate_detail {

double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

double Timed::repetition(double seconds) {
  double total = 0, fastest = 0;
  int windows = 0;
  do {
    timer->restart();
    const double c0 = thread_cpu_seconds();
    timer->window(kWindow);
    const double w = thread_cpu_seconds() - c0;
    fastest = windows == 0 ? w : std::min(fastest, w);
    total += w;
    ++windows;
  } while (total < seconds || windows < kMinWindows);
  return fastest / kWindow;
}

namespace {

// valgrind cannot run a binary built with AddressSanitizer
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kSanitized = true;
#else
constexpr bool kSanitized = false;
#endif

std::string find_on_path(const std::string& name) {
  const char* path = std::getenv("PATH");
  std::stringstream ss(path ? path : "");
  for (std::string dir; std::getline(ss, dir, ':');) {
    const fs::path p = fs::path(dir.empty() ? "." : dir) / name;
    if (::access(p.c_str(), X_OK) == 0) return p.string();
  }
  return "";
}

// runs argv with stdout and stderr into `log`; the exit status (-1: not started)
int run_process(const std::vector<std::string>& args, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&fa, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, argv[0], &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  if (rc != 0) return -1;
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0)
    if (errno != EINTR) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

std::string plugins_refused(const std::string& exe) {
  if (plugins_from_env().empty()) return "";
  const fs::path log = fs::temp_directory_path() / fmt::format("mbbench-gate-plugins-{}.log", ::getpid());
  const int rc = run_process({exe, "list", "methods"}, log.string());
  std::istringstream text(read_text(log.string()));
  std::error_code ec;
  fs::remove(log, ec);
  if (rc != 2) return "";
  std::string first;
  std::getline(text, first);
  return first.empty() ? "exit 2" : first;
}

std::map<GateCaseKey, Counted> count_instructions(const GateConfig& cfg, const std::vector<GateCaseKey>& cases, std::string& note) {
  std::map<GateCaseKey, Counted> out;
  if (cases.empty()) return out;
  if (!cfg.instructions) {
    note = "not measured: turned off (--no-instructions)";
    return out;
  }
  if (kSanitized) {
    note = "not measured: this build has AddressSanitizer, which valgrind cannot run";
    return out;
  }
  const std::string valgrind = cfg.valgrind.empty() ? find_on_path("valgrind") : cfg.valgrind;
  if (valgrind.empty()) {
    note = "not measured: valgrind was not found on PATH (install valgrind)";
    return out;
  }
  const std::string exe = cfg.exe.empty() ? self_exe() : cfg.exe;
  if (exe.empty()) {
    note = "not measured: the path of this binary is unknown";
    return out;
  }
  if (cfg.instruction_steps.size() != 2 || cfg.instruction_steps[1] <= cfg.instruction_steps[0])
    throw Error("gate: instruction_steps needs two step counts, the second larger");
  std::error_code ec;
  const fs::path dir = fs::temp_directory_path() / fmt::format("mbbench-gate-{}", ::getpid());
  fs::create_directories(dir);
  if (cfg.progress) std::cerr << fmt::format("gate: instruction counts of {} cases under cachegrind\n", cases.size());
  struct Run {
    size_t kase;
    int steps;
    std::optional<CachegrindCounts> counts;
    std::string failure;
  };
  std::vector<Run> runs;
  for (size_t i = 0; i < cases.size(); ++i)
    for (int steps : cfg.instruction_steps) runs.push_back({i, steps, std::nullopt, ""});
  std::atomic<size_t> next{0};
  auto worker = [&] {
    for (size_t i; (i = next++) < runs.size();) {
      Run& r = runs[i];
      const auto& [method, joints] = cases[r.kase];
      const std::string out_file = (dir / fmt::format("cg.{}", i)).string(), log = (dir / fmt::format("log.{}", i)).string();
      const int rc = run_process({valgrind, "--tool=cachegrind", "--cache-sim=yes", "--cachegrind-out-file=" + out_file, exe,
                                  "gate-steps", method, std::to_string(joints), std::to_string(r.steps)},
                                 log);
      try {
        if (rc != 0) throw Error(fmt::format("exit {}: {}", rc, read_text(log).substr(0, 2000)));
        r.counts = parse_cachegrind(read_text(out_file), out_file);
      } catch (const std::exception& e) {
        r.failure = e.what();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, cfg.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  fs::remove_all(dir, ec);
  const double dn = cfg.instruction_steps[1] - cfg.instruction_steps[0];
  for (size_t i = 0; i < cases.size(); ++i) {
    const Run &a = runs[2 * i], &b = runs[2 * i + 1];
    Counted c;
    if (a.counts && b.counts)
      c.per_step = CachegrindCounts{(b.counts->instructions - a.counts->instructions) / dn, (b.counts->ll_misses - a.counts->ll_misses) / dn};
    else
      c.failure = !a.failure.empty() ? a.failure : b.failure;
    out[cases[i]] = c;
  }
  return out;
}


ServeChild::ServeChild(const std::string& exe) {
  int to[2], from[2];
  // close-on-exec: a child spawned later must not hold this child's pipe, or closing it here would
  // not end this child (the dup2 of the child's own ends clears the flag on its 0 and 1)
  if (::pipe2(to, O_CLOEXEC) != 0 || ::pipe2(from, O_CLOEXEC) != 0) throw Error("gate: pipe failed");
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to[0], STDIN_FILENO);
  posix_spawn_file_actions_adddup2(&fa, from[1], STDOUT_FILENO);
  posix_spawn_file_actions_addclose(&fa, to[1]);
  posix_spawn_file_actions_addclose(&fa, from[0]);
  std::string cmd = "gate-serve";
  char* argv[] = {const_cast<char*>(exe.c_str()), cmd.data(), nullptr};
  const int rc = posix_spawn(&pid_, exe.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(to[0]);
  ::close(from[1]);
  if (rc != 0) {
    ::close(to[1]);
    ::close(from[0]);
    throw InputError("command line", 0, "against", fmt::format("cannot run '{}'", exe));
  }
  in_ = ::fdopen(to[1], "w");
  out_ = ::fdopen(from[0], "r");
}

ServeChild::~ServeChild() {
  if (in_) std::fclose(in_);
  if (out_) std::fclose(out_);
  int status = 0;
  if (pid_ > 0) ::waitpid(pid_, &status, 0);
}

std::variant<double, std::string> ServeChild::time(const std::string& method, int joints, double seconds) {
  std::fprintf(in_, "%s %d %.17g\n", method.c_str(), joints, seconds);
  std::fflush(in_);
  std::string line;
  for (int ch; (ch = std::fgetc(out_)) != EOF && ch != '\n';) line += static_cast<char>(ch);
  if (line.empty()) return std::string("the child ended (an older build without gate-serve?)");
  if (line.rfind("error: ", 0) == 0) return line.substr(7);
  char* end = nullptr;
  const double v = std::strtod(line.c_str(), &end);
  if (end == line.c_str() || !(v > 0)) return "unexpected answer: " + line;
  return v;
}

}  // namespace gate_detail

using namespace gate_detail;

CachegrindCounts parse_cachegrind(const std::string& text, const std::string& file) {
  std::vector<std::string> events;
  std::vector<double> summary;
  std::istringstream in(text);
  int line = 0;
  for (std::string s; std::getline(in, s);) {
    ++line;
    auto words = [&](size_t from) {
      std::vector<std::string> w;
      std::istringstream ws(s.substr(from));
      for (std::string x; ws >> x;) w.push_back(x);
      return w;
    };
    if (s.rfind("events:", 0) == 0) events = words(7);
    if (s.rfind("summary:", 0) == 0) {
      for (const auto& x : words(8)) {
        char* end = nullptr;
        const double v = std::strtod(x.c_str(), &end);
        if (end == x.c_str() || *end) throw InputError(file, line, "summary", fmt::format("not a number: '{}'", x));
        summary.push_back(v);
      }
    }
  }
  if (events.empty() || summary.empty()) throw InputError(file, 0, "summary", "no events: and summary: lines (not a cachegrind output file)");
  if (summary.size() > events.size()) throw InputError(file, 0, "summary", "more numbers than events");
  CachegrindCounts c;
  bool ir = false;
  for (size_t i = 0; i < summary.size(); ++i) {
    if (events[i] == "Ir") c.instructions = summary[i], ir = true;
    if (events[i] == "ILmr" || events[i] == "DLmr" || events[i] == "DLmw") c.ll_misses += summary[i];
  }
  if (!ir) throw InputError(file, 0, "events", "no Ir (instructions) event");
  return c;
}

bool is_gate_child(const std::string& command) { return command == "gate-steps" || command == "gate-serve"; }

int gate_child(int argc, char** argv) {
  const std::string command = argv[0];
  try {
    if (command == "gate-serve") {
      std::map<int, SharedModel> models;
      std::map<std::pair<std::string, int>, Timed> timers;
      for (std::string line; std::getline(std::cin, line);) {
        std::istringstream in(line);
        std::string method;
        int joints = 0;
        double seconds = 0;
        if (!(in >> method >> joints >> seconds) || joints < 1 || !(seconds > 0)) {
          std::cout << "error: expected METHOD JOINTS SECONDS" << std::endl;
          continue;
        }
        try {
          auto& model = models[joints];
          if (!model) model = build_shared_model(fmt::format("tree:joints={}", joints));
          Timed& x = timers[{method, joints}];
          if (!x.timer) {
            x.method = method;
            x.timer = std::make_unique<StepTimer>(*model, method, 1.0 / 30);
            x.timer->restart();
          }
          std::cout << fmt::format("{:.17g}", x.repetition(seconds)) << std::endl;
        } catch (const std::exception& e) {
          std::string what = e.what();
          std::replace(what.begin(), what.end(), '\n', ' ');
          std::cout << "error: " << what << std::endl;
        }
      }
      return 0;
    }
    if (argc != 4) throw InputError("command line", 0, "gate-steps", "usage: gate-steps METHOD JOINTS STEPS");
    const std::string method = argv[1];
    const int joints = std::atoi(argv[2]), steps = std::atoi(argv[3]);
    if (joints < 1 || steps < 1) throw InputError("command line", 0, "gate-steps", "JOINTS and STEPS must be positive");
    const SharedModel model = build_shared_model(fmt::format("tree:joints={}", joints));
    StepTimer timer(*model, method, 1.0 / 30);
    timer.restart();
    for (int k = 0; k < steps; k += kWindow) timer.window(std::min(kWindow, steps - k));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << command << ": " << e.what() << "\n";
    return 1;
  }
}


}  // namespace mb
