#include "gate/gate.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <iostream>
#include <map>
#include <mutex>
#include <set>
#include <thread>
#include <variant>

#include <fcntl.h>
#include <spawn.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/compare.hpp"
#include "analysis/fit.hpp"
#include "bench/harness.hpp"
#include "core/error.hpp"
#include "core/stats.hpp"
#include "methods/method.hpp"
#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "sim/run_case.hpp"

extern char** environ;

namespace mb {

namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kMetrics = {metric::ED, metric::LD, metric::CD_pos_mean, metric::ref_error_max};
// A timed window is always the same work: a fresh run (initial state, init, and the first 3
// steps with the torque pulse, untimed), then kWindow timed steps (bench/harness.hpp).
constexpr int kWindow = 4;
// the fewest windows of a repetition, whose fastest is taken
constexpr int kMinWindows = 3;

std::vector<std::string> gate_methods(const GateConfig& cfg) {
  if (!cfg.methods.empty()) return cfg.methods;
  std::vector<std::string> m;
  for (const auto& e : method_registry())
    if (!e.info.reference) m.push_back(e.info.name);
  return m;
}

std::string hkey(double h) { return fmt::format("{:g}", h); }

// one accuracy case: its record's gated metrics; never throws for a simulation problem
GateCase accuracy_case(const std::string& model_spec, const std::string& method, double h, double duration) {
  GateCase c;
  c.method = method;
  c.model = model_spec;
  c.h = h;
  try {
    Model model = load_model(model_spec);
    RunConfig rc;
    rc.h = h;
    rc.duration = duration;
    StepPlan plan = plan_steps(model, rc);
    rc.samples = {static_cast<double>(plan.steps) * plan.h};  // the end of the run: error against the reference
    CaseRecord rec = run_case(model, method, rc);
    c.h_simulated = rec.h;
    c.status = rec.status;
    c.failure = rec.reason;
    for (const auto& k : kMetrics)
      if (auto v = rec.metrics.get(k)) c.metrics.set(k, *v);
  } catch (const UnsupportedModel& e) {
    c.status = Status::Unsupported;
    c.failure = e.what();
  } catch (const InputError&) {
    throw;
  } catch (const std::exception& e) {
    c.status = Status::Failed;
    c.failure = e.what();
  }
  return c;
}

// the CPU time this thread has run, in s
double thread_cpu_seconds() {
  timespec ts{};
  ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}

struct Timed {
  std::string method;
  std::unique_ptr<StepTimer> timer;
  std::vector<double> per_step;  // one entry per repetition
  std::string failure;
  // one repetition: fresh windows until `seconds` of CPU time have passed, and at least
  // kMinWindows; the CPU time of this thread per timed step of the fastest window. CPU time, not
  // wall time: on a shared machine the scheduler shares a core between runnable processes in
  // slices of a few ms, so a window longer than a slice (4 steps of LM4 on 63 joints take 6 ms,
  // of Imp10 160 ms) waits in every window, and its wall time measures the load; the thread's CPU
  // time leaves the waiting out. The fastest window leaves out what remains (an interrupt, a
  // cache another process emptied), also for a method whose one window outlasts `seconds`.
  double repetition(double seconds) {
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
};

std::vector<GateTiming> timing_set(const GateConfig& cfg, const std::vector<std::string>& methods, const std::string& reference,
                                   std::vector<GateUnsupported>& unsupported) {
  std::vector<GateTiming> out;
  for (int joints : cfg.timing_joints) {
    const std::string spec = fmt::format("tree:joints={}", joints);
    if (cfg.progress) std::cerr << fmt::format("gate: timing on {}\n", spec);
    const Model model = load_model(spec);
    std::vector<Timed> st;
    for (const auto& name : methods) {
      if (!gate_times(name, joints)) continue;
      Timed x;
      x.method = name;
      try {
        x.timer = std::make_unique<StepTimer>(model, name, 1.0 / 30);
        x.timer->restart();
      } catch (const UnsupportedModel& e) {
        unsupported.push_back({name, spec, e.what()});
        continue;
      } catch (const std::exception& e) {
        x.failure = e.what();
      }
      st.push_back(std::move(x));
    }
    // interleaved and paired: in each repetition the reference runs right before each method,
    // and the ratio of the two is taken there, so that a change of the machine's load between
    // repetitions falls alike on both; the gated number is the median of these ratios
    Timed* ref = nullptr;
    for (auto& x : st)
      if (x.method == reference && x.failure.empty()) ref = &x;
    std::map<std::string, std::vector<double>> ratios;
    for (int r = 0; r < cfg.timing_reps; ++r)
      for (auto& x : st) {
        if (!x.failure.empty()) continue;
        try {
          const double tr = ref && ref != &x ? ref->repetition(cfg.timing_rep_seconds) : 0;
          const double tx = x.repetition(cfg.timing_rep_seconds);
          x.per_step.push_back(tx);
          if (ref) ratios[x.method].push_back(ref == &x ? 1.0 : tx / tr);
        } catch (const std::exception& e) {
          x.failure = e.what();
        }
      }
    for (auto& x : st) {
      GateTiming t;
      t.method = x.method;
      t.joints = joints;
      t.reps = static_cast<long>(x.per_step.size());
      if (!x.failure.empty()) {
        t.status = Status::Failed;
        t.failure = x.failure;
      } else {
        t.median_s = median(x.per_step);
        t.min_s = *std::min_element(x.per_step.begin(), x.per_step.end());
        t.max_s = *std::max_element(x.per_step.begin(), x.per_step.end());
        if (ref) {
          auto& q = ratios[x.method];
          t.ratio = median(q);
          t.ratio_min = *std::min_element(q.begin(), q.end());
          t.ratio_max = *std::max_element(q.begin(), q.end());
          t.ratios = q;
        }
      }
      out.push_back(t);
    }
  }
  return out;
}

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

std::string self_exe() {
  std::error_code ec;
  const fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

struct Counted {
  std::optional<CachegrindCounts> per_step;
  std::string failure;
};

// instructions per step of each method with the timing flag at each timed size, keyed by
// (method, joints); `note` says why nothing was measured
std::map<std::pair<std::string, int>, Counted> count_instructions(const GateConfig& cfg, const std::vector<std::string>& methods,
                                                                  std::string& note) {
  std::map<std::pair<std::string, int>, Counted> out;
  std::vector<std::pair<std::string, int>> cases;
  for (int joints : cfg.timing_joints)
    for (const auto& m : methods) {
      const MethodEntry* e = find_method(Spec::parse(m, "method").name());
      if (e && e->info.timing_table && gate_times(m, joints)) cases.push_back({m, joints});
    }
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

}  // namespace

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
      std::map<int, std::unique_ptr<Model>> models;
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
          if (!model) model = std::make_unique<Model>(load_model(fmt::format("tree:joints={}", joints)));
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
    const Model model = load_model(fmt::format("tree:joints={}", joints));
    StepTimer timer(model, method, 1.0 / 30);
    timer.restart();
    for (int k = 0; k < steps; k += kWindow) timer.window(std::min(kWindow, steps - k));
    return 0;
  } catch (const std::exception& e) {
    std::cerr << command << ": " << e.what() << "\n";
    return 1;
  }
}

namespace {

// a gate-serve child with pipes to its stdin and from its stdout
class ServeChild {
 public:
  explicit ServeChild(const std::string& exe) {
    int to[2], from[2];
    if (::pipe(to) != 0 || ::pipe(from) != 0) throw Error("gate: pipe failed");
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
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;
  ~ServeChild() {
    if (in_) std::fclose(in_);
    if (out_) std::fclose(out_);
    int status = 0;
    if (pid_ > 0) ::waitpid(pid_, &status, 0);
  }
  // one repetition: seconds per step, or the child's error
  std::variant<double, std::string> time(const std::string& method, int joints, double seconds) {
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

 private:
  pid_t pid_ = 0;
  std::FILE* in_ = nullptr;
  std::FILE* out_ = nullptr;
};

}  // namespace

int gate_ab(const GateConfig& cfg, const std::string& other, std::ostream& out, const GateTolerances& tol) {
  const std::string self = cfg.exe.empty() ? self_exe() : cfg.exe;
  if (::access(other.c_str(), X_OK) != 0) throw InputError("command line", 0, "against", fmt::format("'{}' is not an executable", other));
  const std::vector<std::string> methods = gate_methods(cfg);
  for (const auto& m : methods) make_method(m);
  ServeChild a(self), b(other);
  struct AB {
    std::vector<double> self, other;
    std::string failure;
  };
  std::map<std::pair<std::string, int>, AB> t;
  std::vector<std::pair<std::string, int>> order;
  for (int joints : cfg.timing_joints) {
    if (cfg.progress) std::cerr << fmt::format("gate: A/B timing on tree:joints={}\n", joints);
    for (const auto& m : methods)
      if (gate_times(m, joints)) order.push_back({m, joints});
    for (int r = 0; r < cfg.timing_reps; ++r)
      for (const auto& key : order) {
        if (key.second != joints) continue;
        AB& x = t[key];
        if (!x.failure.empty()) continue;
        auto one = [&](ServeChild& c, std::vector<double>& into, const char* who) {
          auto v = c.time(key.first, key.second, cfg.timing_rep_seconds);
          if (auto* s = std::get_if<double>(&v)) into.push_back(*s);
          else x.failure = fmt::format("{}: {}", who, std::get<std::string>(v));
        };
        if (r % 2 == 0) {
          one(a, x.self, "this build");
          if (x.failure.empty()) one(b, x.other, "other build");
        } else {
          one(b, x.other, "other build");
          if (x.failure.empty()) one(a, x.self, "this build");
        }
      }
  }
  // instruction counts of both builds
  std::string note_a, note_b;
  GateConfig ca = cfg, cb = cfg;
  ca.exe = self;
  cb.exe = other;
  const auto ia = count_instructions(ca, methods, note_a), ib = count_instructions(cb, methods, note_b);
  GateTolerances abt = tol;
  abt.timing_effect = tol.ab_effect;
  // the tests of the timed cases, decided as one family (Holm)
  std::map<std::pair<std::string, int>, size_t> index;
  std::vector<TimingVerdict> verdicts;
  for (const auto& key : order) {
    const AB& x = t[key];
    if (!x.failure.empty()) continue;
    index[key] = verdicts.size();
    verdicts.push_back(timing_verdict(x.self, x.other, abt));
  }
  decide_timing_family(verdicts, abt);
  out << fmt::format("A/B: this build ({}) against {}, {} interleaved repetitions; a change: U test p < {:g} (Holm over the {} tests) and "
                     "x{:g} either way\n",
                     self, other, cfg.timing_reps, tol.timing_alpha, verdicts.size(), tol.ab_effect);
  for (const auto& key : order) {
    const AB& x = t[key];
    const std::string kase = fmt::format("{} tree:joints={}", key.first, key.second);
    std::string line;
    if (!x.failure.empty()) {
      line = fmt::format("{:<28} not timed: {}", kase, x.failure);
    } else {
      const TimingVerdict& v = verdicts[index.at(key)];
      line = fmt::format("{:<28} other {:10.4g} ms  this {:10.4g} ms  {:<10} this/other {}", kase, 1e3 * median(x.other),
                         1e3 * median(x.self), v.change > 0 ? "SLOWER" : v.change < 0 ? "FASTER" : "no change", v.text);
    }
    auto fa = ia.find(key), fb = ib.find(key);
    if (fa != ia.end() && fb != ib.end() && fa->second.per_step && fb->second.per_step) {
      const double q = fa->second.per_step->instructions / fb->second.per_step->instructions;
      line += fmt::format("; instructions/step other {:.0f} this {:.0f} ({:+.2f} %)", fb->second.per_step->instructions,
                          fa->second.per_step->instructions, 100 * (q - 1));
    }
    out << line << "\n";
  }
  if (!note_a.empty()) out << "note: instructions of this build " << note_a << "\n";
  if (!note_b.empty()) out << "note: instructions of the other build " << note_b << "\n";
  return 0;
}

bool gate_times(const std::string& method, int joints) {
  const MethodEntry* e = find_method(Spec::parse(method, "method").name());
  return joints <= 63 || (e && e->info.timing_max_joints >= 1023);
}

GateRecord run_gate(const GateConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  const std::vector<std::string> methods = gate_methods(cfg);
  for (const auto& m : methods) make_method(m);  // an unknown name stops here, before any case
  for (const auto& m : cfg.models) load_model(m);
  const std::string reference = timing_reference_name();

  struct Job {
    std::string model, method;
    double h;
  };
  std::vector<Job> jobs;
  for (const auto& model : cfg.models)
    for (const auto& method : methods)
      for (double h : cfg.h) jobs.push_back({model, method, h});
  if (cfg.progress) std::cerr << fmt::format("gate: {} accuracy cases on {} thread(s)\n", jobs.size(), cfg.jobs);
  std::vector<GateCase> results(jobs.size());
  std::atomic<size_t> next{0};
  std::mutex err_mutex;
  std::exception_ptr err;
  auto worker = [&] {
    for (size_t i; (i = next++) < jobs.size();) {
      try {
        results[i] = accuracy_case(jobs[i].model, jobs[i].method, jobs[i].h, cfg.duration);
      } catch (...) {
        std::lock_guard<std::mutex> lock(err_mutex);
        err = std::current_exception();
      }
    }
  };
  std::vector<std::thread> pool;
  for (int j = 0; j < std::max(1, cfg.jobs); ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (err) std::rethrow_exception(err);

  GateRecord g;
  std::set<std::string> seen_unsupported;
  for (auto& c : results) {
    if (c.status == Status::Unsupported) {
      if (seen_unsupported.insert(c.method + " " + c.model).second) g.unsupported.push_back({c.method, c.model, c.failure});
      continue;
    }
    g.cases.push_back(std::move(c));
  }
  const auto t1 = std::chrono::steady_clock::now();
  // the cachegrind children first (in parallel: counts do not depend on the load), then the
  // timed repetitions alone
  const auto counts = count_instructions(cfg, methods, g.instructions_note);
  g.timing = timing_set(cfg, methods, reference, g.unsupported);
  for (auto& t : g.timing) {
    auto it = counts.find({t.method, t.joints});
    if (it == counts.end()) continue;
    if (it->second.per_step) {
      t.instructions = it->second.per_step->instructions;
      t.ll_misses = it->second.per_step->ll_misses;
    } else {
      g.instructions_note = fmt::format("not measured for {} at {} joints: {}", t.method, t.joints, it->second.failure);
    }
  }
  if (!counts.empty()) g.instruction_steps = {static_cast<double>(cfg.instruction_steps[0]), static_cast<double>(cfg.instruction_steps[1])};
  const auto t2 = std::chrono::steady_clock::now();

  g.models = cfg.models;
  g.h = cfg.h;
  g.duration = cfg.duration;
  g.timing_joints = cfg.timing_joints;
  g.timing_reps = cfg.timing_reps;
  g.timing_rep_seconds = cfg.timing_rep_seconds;
  g.timing_window_steps = kWindow;
  g.timing_reference = reference;
  g.metrics = kMetrics;
  g.methods = methods;
  g.provenance = current_provenance();
  g.accuracy_seconds = std::chrono::duration<double>(t1 - t0).count();
  g.timing_seconds = std::chrono::duration<double>(t2 - t1).count();
  return g;
}

namespace {

std::string num(double x) { return fmt::format("{:.6g}", x); }

struct Key {
  std::string method, model;
  double h;
  bool operator<(const Key& o) const { return std::tie(method, model, h) < std::tie(o.method, o.model, o.h); }
};

std::map<Key, const GateCase*> index_cases(const GateRecord& r) {
  std::map<Key, const GateCase*> m;
  for (const auto& c : r.cases) m[{c.method, c.model, c.h}] = &c;
  return m;
}

// two-point orders of each method x model x metric between the smallest and the largest h
std::map<std::string, double> orders(const std::map<Key, const GateCase*>& cases, const std::vector<double>& hs,
                                     double floor, std::map<std::string, std::string>& labels) {
  std::map<std::string, double> out;
  if (hs.size() < 2) return out;
  const double h1 = *std::min_element(hs.begin(), hs.end()), h2 = *std::max_element(hs.begin(), hs.end());
  std::set<std::pair<std::string, std::string>> mm;
  for (const auto& [k, c] : cases) mm.insert({k.method, k.model});
  for (const auto& [method, model] : mm) {
    auto a = cases.find({method, model, h1}), b = cases.find({method, model, h2});
    if (a == cases.end() || b == cases.end()) continue;
    const GateCase &ca = *a->second, &cb = *b->second;
    if (ca.status != Status::Ok || cb.status != Status::Ok) continue;
    for (const auto& metric : kMetrics) {
      auto w1 = ca.metrics.get(metric), w2 = cb.metrics.get(metric);
      if (!w1 || !w2) continue;
      if (!(*w1 > 10 * floor) || !(*w2 > 10 * floor)) continue;  // round-off: no order
      PowerFit f = two_point_fit(ca.h_simulated, *w1, cb.h_simulated, *w2);
      std::string key = fmt::format("{}|{}|{}", method, model, metric);
      out[key] = f.order;
      labels[key] = fmt::format("{} {} (h {:g}..{:g})", method, model, h1, h2);
    }
  }
  return out;
}

}  // namespace

GateComparison compare_gate(const GateRecord& base, const GateRecord& now, const GateTolerances& tol) {
  GateComparison c;
  auto add = [&](std::string metric, std::string kase, std::string b, std::string n, std::string t, std::string v,
                 bool reg) {
    c.rows.push_back({std::move(metric), std::move(kase), std::move(b), std::move(n), std::move(t), std::move(v), reg});
    if (reg) ++c.regressions;
  };
  if (base.duration != now.duration)
    throw Error(fmt::format("gate: the baseline ran {} s cases, this run {} s: not comparable (update the baseline)",
                            base.duration, now.duration));
  if (base.timing_reference != now.timing_reference)
    c.notes.push_back(fmt::format("the timing reference changed from {} to {}: timing ratios not comparable",
                                  base.timing_reference, now.timing_reference));

  std::set<std::string> registered;
  for (const auto& e : method_registry()) registered.insert(e.info.name);
  std::set<std::string> base_methods(base.methods.begin(), base.methods.end()), now_methods(now.methods.begin(), now.methods.end());
  for (const auto& m : now_methods)
    if (!base_methods.count(m)) add("method", m, "-", "run", "-", "new (not in the baseline)", false);
  for (const auto& m : base_methods)
    if (!registered.count(Spec::parse(m, "method").name())) add("method", m, "in baseline", "-", "-", "no longer registered", false);
  for (const auto& u : now.unsupported) c.notes.push_back(fmt::format("skipped: {} cannot run {}: {}", u.method, u.model, u.reason));

  // accuracy: each case the baseline and this run both have
  auto bcases = index_cases(base), ncases = index_cases(now);
  const double lf = std::log(tol.metric_factor);
  long filtered = 0;
  for (const auto& [k, b] : bcases) {
    auto it = ncases.find(k);
    if (it == ncases.end()) {
      const bool model_run = std::find(now.models.begin(), now.models.end(), k.model) != now.models.end();
      const bool h_run = std::find(now.h.begin(), now.h.end(), k.h) != now.h.end();
      if (now_methods.count(k.method) && model_run && h_run) {
        add("status", fmt::format("{} {} h={}", k.method, k.model, hkey(k.h)), to_string(b->status), "not run", "-",
            "missing now", false);
        continue;
      }
      ++filtered;
      continue;
    }
    const GateCase& n = *it->second;
    const std::string kase = fmt::format("{} {} h={}", k.method, k.model, hkey(k.h));
    ++c.compared;
    if (b->status == Status::Ok && n.status != Status::Ok) {
      add("status", kase, "ok", fmt::format("failed: {}", n.failure), "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    if (b->status != Status::Ok && n.status == Status::Ok) {
      add("status", kase, "failed", "ok", "no new failures", "fixed (was failed)", false);
      continue;
    }
    if (b->status != Status::Ok) continue;
    for (const auto& metric : kMetrics) {
      auto bv = b->metrics.get(metric), nv = n.metrics.get(metric);
      if (!bv && !nv) continue;
      if (!bv || !nv) {
        add(metric, kase, bv ? num(*bv) : "-", nv ? num(*nv) : "-", "-", "metric appeared/disappeared", false);
        continue;
      }
      ++c.compared;
      if (*bv == *nv) continue;  // bit-identical: not listed
      // r > 0: worse by the registry's direction
      const MetricInfo* info = metric_info(metric);
      const double worse = info && info->better == Better::Higher ? -1.0 : 1.0;
      const double r = worse * std::log(std::max(*nv, tol.metric_floor) / std::max(*bv, tol.metric_floor));
      const std::string t = fmt::format("x{:g}", tol.metric_factor);
      if (std::abs(r) <= lf + 1e-15) add(metric, kase, num(*bv), num(*nv), t, "ok (within)", false);
      else if (r > 0) add(metric, kase, num(*bv), num(*nv), t, fmt::format("REGRESSION (x{:.3g} worse)", std::exp(r)), true);
      else {
        add(metric, kase, num(*bv), num(*nv), t, fmt::format("improved (x{:.3g} better)", std::exp(-r)), false);
        ++c.improved;
      }
    }
  }
  if (filtered) c.notes.push_back(fmt::format("{} baseline cases not selected in this run (not compared)", filtered));

  // orders over the step sizes
  std::map<std::string, std::string> labels;
  auto bo = orders(bcases, now.h, tol.metric_floor, labels), no = orders(ncases, now.h, tol.metric_floor, labels);
  for (const auto& [key, bv] : bo) {
    auto it = no.find(key);
    if (it == no.end()) continue;  // a failed case is counted above
    ++c.compared;
    const double nv = it->second;
    if (bv == nv) continue;
    const std::string metric = "order " + key.substr(key.rfind('|') + 1);
    const std::string t = fmt::format("+-{:g}", tol.order_abs);
    const bool reg = std::abs(nv - bv) > tol.order_abs + 1e-12;
    add(metric, labels[key], fmt::format("{:.4f}", bv), fmt::format("{:.4f}", nv), t,
        reg ? fmt::format("REGRESSION (moved {:+.3f})", nv - bv) : "ok (within)", reg);
  }

  // timing: ratios to the timing reference in the same run
  std::map<std::pair<std::string, int>, const GateTiming*> bt;
  for (const auto& t : base.timing) bt[{t.method, t.joints}] = &t;
  const std::string ratio_name = "time/" + now.timing_reference;
  // the time tests of this run, decided as one family (the reference's own ratio is 1 by
  // construction: no test); keyed by the index of the timing in `now`
  const bool same_reference = base.timing_reference == now.timing_reference;
  std::vector<size_t> tested;
  std::vector<TimingVerdict> verdicts;
  for (size_t i = 0; i < now.timing.size(); ++i) {
    const GateTiming& t = now.timing[i];
    auto it = bt.find({t.method, t.joints});
    if (it == bt.end() || !it->second->ratio || !t.ratio || !same_reference || t.method == now.timing_reference) continue;
    if (it->second->status == Status::Ok && t.status != Status::Ok) continue;
    // the repetitions of both runs (a baseline without them: its median as one value)
    const GateTiming& b = *it->second;
    const std::vector<double> bs = b.ratios.empty() ? std::vector<double>{*b.ratio} : b.ratios;
    const std::vector<double> ns = t.ratios.empty() ? std::vector<double>{*t.ratio} : t.ratios;
    tested.push_back(i);
    verdicts.push_back(timing_verdict(ns, bs, tol));
  }
  decide_timing_family(verdicts, tol);
  std::map<size_t, const TimingVerdict*> verdict_of;
  for (size_t k = 0; k < tested.size(); ++k) verdict_of[tested[k]] = &verdicts[k];
  for (size_t ti = 0; ti < now.timing.size(); ++ti) {
    const GateTiming& t = now.timing[ti];
    const std::string kase = fmt::format("{} tree:joints={}", t.method, t.joints);
    auto it = bt.find({t.method, t.joints});
    if (it == bt.end()) continue;  // a new method is reported above
    const GateTiming& b = *it->second;
    if (b.status == Status::Ok && t.status != Status::Ok) {
      add("timing status", kase, "ok", "failed", "no new failures", "REGRESSION (newly failed)", true);
      continue;
    }
    // instructions per step (deterministic): a relative change beyond the factor
    if (b.instructions && t.instructions) {
      ++c.compared;
      const double q = *t.instructions / *b.instructions;
      const std::string tt = fmt::format("x{:g}", tol.instructions_factor);
      const std::string bv = fmt::format("{:.0f}", *b.instructions), nv = fmt::format("{:.0f}", *t.instructions);
      const std::string misses = t.ll_misses && b.ll_misses ? fmt::format("; LL misses/step {:.0f} -> {:.0f}", *b.ll_misses, *t.ll_misses) : "";
      if (q > tol.instructions_factor)
        add("instructions/step", kase, bv, nv, tt, fmt::format("REGRESSION ({:+.2f} %{})", 100 * (q - 1), misses), true);
      else if (q < 1 / tol.instructions_factor) {
        add("instructions/step", kase, bv, nv, tt, fmt::format("improved ({:+.2f} %{})", 100 * (q - 1), misses), false);
        ++c.improved;
      } else if (q != 1)
        add("instructions/step", kase, bv, nv, tt, fmt::format("ok ({:+.3f} %)", 100 * (q - 1)), false);
    } else if (b.instructions) {
      ++c.not_measured;
      add("instructions/step", kase, fmt::format("{:.0f}", *b.instructions), "-", "-", "NOT MEASURED (see the note)", false);
    }
    if (!b.ratio || !t.ratio || !same_reference) continue;
    ++c.compared;
    const double bv = *b.ratio, nv = *t.ratio;
    auto vi = verdict_of.find(ti);
    if (vi == verdict_of.end()) continue;  // the reference itself
    const TimingVerdict& v = *vi->second;
    const std::string tt = fmt::format("Holm p<{:g}, x{:g}", tol.timing_alpha, tol.timing_effect);
    if (v.change > 0) add(ratio_name, kase, num(bv), num(nv), tt, "REGRESSION (slower " + v.text + ")", true);
    else if (v.change < 0) add(ratio_name, kase, num(bv), num(nv), tt, "faster (" + v.text + ")", false);
    else if (bv != nv) add(ratio_name, kase, num(bv), num(nv), tt, "ok (" + v.text + ")", false);
  }
  if (c.not_measured)
    c.notes.push_back(fmt::format("{} instruction count(s) of the baseline {}", c.not_measured,
                                  now.instructions_note.empty() ? "not measured in this run" : now.instructions_note));
  return c;
}

std::string gate_text(const GateComparison& c) {
  std::vector<std::string> head = {"metric", "case", "baseline", "now", "tolerance", "verdict"};
  std::vector<size_t> w(head.size());
  for (size_t i = 0; i < head.size(); ++i) w[i] = head[i].size();
  auto cells = [](const GateRow& r) { return std::vector<std::string>{r.metric, r.kase, r.baseline, r.now, r.tolerance, r.verdict}; };
  for (const auto& r : c.rows) {
    auto v = cells(r);
    for (size_t i = 0; i < v.size(); ++i) w[i] = std::max(w[i], v[i].size());
  }
  auto line = [&](const std::vector<std::string>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); ++i) s += fmt::format("{:<{}}{}", v[i], w[i], i + 1 < v.size() ? "  " : "\n");
    return s;
  };
  std::string out;
  if (!c.rows.empty()) {
    out += line(head);
    for (const auto& r : c.rows) out += line(cells(r));
  }
  for (const auto& n : c.notes) out += "note: " + n + "\n";
  out += fmt::format("gate: {} values compared; {} moved; {} regression(s); {} improved{}\n", c.compared, c.rows.size(),
                     c.regressions, c.improved, c.not_measured ? fmt::format("; {} NOT MEASURED", c.not_measured) : "");
  return out;
}

TimingVerdict timing_verdict(const std::vector<double>& now, const std::vector<double>& base, const GateTolerances& tol) {
  TimingVerdict v;
  const MannWhitney mw = mann_whitney(now, base);
  const RatioEstimate r = ratio_estimate(now, base, tol.interval_level);
  v.p_slower = mw.p_greater;
  v.p_faster = mw.p_less;
  v.ratio = r.ratio;
  v.low = r.low;
  v.high = r.high;
  std::vector<TimingVerdict> one = {v};
  decide_timing_family(one, tol);
  return one[0];
}

void decide_timing_family(std::vector<TimingVerdict>& family, const GateTolerances& tol) {
  std::vector<double> ps, pf;
  for (const auto& v : family) {
    ps.push_back(v.p_slower);
    pf.push_back(v.p_faster);
  }
  const std::vector<double> as = holm_adjust(ps), af = holm_adjust(pf);
  for (size_t i = 0; i < family.size(); ++i) {
    TimingVerdict& v = family[i];
    v.p_slower_adjusted = as[i];
    v.p_faster_adjusted = af[i];
    v.family = family.size();
    // slower by more than the effect with the interval's confidence, and significant
    v.change = 0;
    if (v.p_slower_adjusted < tol.timing_alpha && v.low > tol.timing_effect) v.change = 1;
    if (v.p_faster_adjusted < tol.timing_alpha && v.high < 1 / tol.timing_effect) v.change = -1;
    const bool slower = v.ratio >= 1;
    v.text = fmt::format("x{:.3f}, {:g}% CI {:.3f}..{:.3f}, p = {:.2g}", v.ratio, 100 * tol.interval_level, v.low, v.high,
                         slower ? v.p_slower : v.p_faster);
    if (v.family > 1)
      v.text += fmt::format(" (Holm {:.2g} of {} tests)", slower ? v.p_slower_adjusted : v.p_faster_adjusted, v.family);
  }
}

std::string gate_history_line(const GateRecord& g) {
  nlohmann::json j;
  j["commit"] = g.provenance.git_commit;
  j["date"] = g.provenance.date;
  j["build"] = fmt::format("{} {} {}", g.provenance.build_type, g.provenance.compiler, g.provenance.flags);
  j["machine"] = g.provenance.cpu;
  nlohmann::json v = nlohmann::json::object();
  for (const auto& t : g.timing) {
    const std::string kase = fmt::format("{} tree:joints={}", t.method, t.joints);
    if (t.ratio) v["time/" + g.timing_reference + " " + kase] = *t.ratio;
    if (t.instructions) v["instructions " + kase] = *t.instructions;
    if (t.ll_misses) v["ll_misses " + kase] = *t.ll_misses;
  }
  j["values"] = v;
  return j.dump();
}

}  // namespace mb
