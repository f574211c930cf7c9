// The gate's own machinery, shared by its measuring (gate/measure.cpp) and its child processes
// (gate/children.cpp): a timed method, child processes, the cachegrind counts. Internal to gate/.
#pragma once
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <sys/types.h>

#include "bench/harness.hpp"
#include "gate/gate.hpp"

namespace mb::gate_detail {

// A timed window is always the same work: a fresh run (initial state, init, and the first 3
// steps with the torque pulse, untimed), then kWindow timed steps (bench/harness.hpp).
constexpr int kWindow = 4;
// the fewest windows of a repetition, whose fastest is taken
constexpr int kMinWindows = 3;

// the CPU time this thread has run, in s
double thread_cpu_seconds();

struct Timed {
  std::string method;
  std::unique_ptr<StepTimer> timer;
  std::vector<double> per_step;  // one entry per repetition
  std::string failure;
  // One repetition: fresh windows until `seconds` of CPU time have passed, and at least
  // kMinWindows; the CPU time of this thread per timed step of the fastest window. CPU time, not
  // wall time: on a shared machine the scheduler shares a core between runnable processes in
  // slices of a few ms, so a window longer than a slice waits in every window, and its wall time
  // measures the load; the thread's CPU time leaves the waiting out. The fastest window leaves out
  // what remains (an interrupt, a cache another process emptied), also for a method whose one
  // window outlasts `seconds`.
  double repetition(double seconds);
};

std::string self_exe();

// The plugins of MBBENCH_PLUGINS, which the gate's children load, as the binary `exe` takes them:
// "" when there are none or `exe list methods` loads them; else its error (exit 2), which names
// the file it refused.
std::string plugins_refused(const std::string& exe);

// instructions per step of each (method, joints) case under cachegrind, in child processes of
// cfg.exe (or this binary); `note` says why nothing was measured
struct Counted {
  std::optional<CachegrindCounts> per_step;
  std::string failure;
};
using GateCaseKey = std::pair<std::string, int>;
std::map<GateCaseKey, Counted> count_instructions(const GateConfig& cfg, const std::vector<GateCaseKey>& cases, std::string& note);

// a gate-serve child with pipes to its stdin and from its stdout
class ServeChild {
 public:
  explicit ServeChild(const std::string& exe);
  ServeChild(const ServeChild&) = delete;
  ServeChild& operator=(const ServeChild&) = delete;
  ~ServeChild();
  // one repetition: seconds per step, or the child's error
  std::variant<double, std::string> time(const std::string& method, int joints, double seconds);

 private:
  pid_t pid_ = 0;
  std::FILE* in_ = nullptr;
  std::FILE* out_ = nullptr;
};

}  // namespace mb::gate_detail
