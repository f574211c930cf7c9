#include "test_methods.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include <cstdint>
#include <vector>

#include <time.h>

#include "bench/harness.hpp"
#include "core/error.hpp"

namespace mbtest {

using namespace mb;

namespace {

enum class Kind { Bias, Fail, Burn, Slow10, Spin, Stall10 };

class TestMethod final : public Method {
 public:
  TestMethod(Kind k, long iterations, std::string inner = "GC4", double percent = 10)
      : kind_(k), info_(describe(k)), iterations_(iterations), inner_name_(inner), stall_percent_(percent) {
    inner_ = make_method(k == Kind::Burn ? "linear:tol_p=1e-6,tol_v=1e-6" : inner);
    calibrated_ = slow_percent() > 0;
  }
  static MethodInfo describe(Kind k) {
    MethodInfo i;
    i.source = "test only (tests/test_methods.cpp)";
    i.family = "test";
    i.fixed_step = true;
    i.supports = find_method(k == Kind::Burn ? "linear" : "GC4")->info.supports;  // those of the method it wraps
    switch (k) {
      case Kind::Bias:
        i.name = "test-gc4-bias";
        i.description = "test only: GC4 stepping under gravity scaled by 1 + 1e-3 (an accuracy regression)";
        break;
      case Kind::Fail:
        i.name = "test-fail";
        i.description = "test only: GC4 that throws SimulationError once t >= 1 s (a new failure)";
        break;
      case Kind::Burn:
        i.name = "test-burn";
        i.description = "test only: linear (tol 1e-6) that burns 2 ms of CPU time in each step (a timing regression)";
        break;
      case Kind::Slow10:
        i.name = "test-gc4-slow10";
        i.description = "test only: GC4 with a busy loop after each step, calibrated at init to 10 % of GC4's step as the gate times it";
        i.timing_table = true;  // timed and counted like GC4
        i.timing_max_joints = find_method("GC4")->info.timing_max_joints;
        break;
      case Kind::Stall10:
        i.name = "test-stall10";
        i.description = "test only: a method with a memory stall after each step (dependent loads that miss every cache), "
                        "calibrated at init in wall time to a percent (10) of the method's step; few instructions";
        i.timing_table = true;
        i.timing_max_joints = find_method("GC4")->info.timing_max_joints;
        i.supports = find_method("GC4")->info.supports;
        i.options = {OptionInfo::choice("method", "GC4", "the method slowed", {"GC4", "LM4"}),
                     OptionInfo::number("percent", "10", "the stall per step, percent of the method's step", 0, 1000)};
        break;
      case Kind::Spin:
        i.name = "test-gc4-spin";
        i.description = "test only: GC4 with a busy loop of a given number of iterations after each step (instructions)";
        i.timing_table = true;
        i.timing_max_joints = find_method("GC4")->info.timing_max_joints;
        i.options = {OptionInfo::integer("iterations", "0", "iterations of the busy loop after each step", 0, 1e9)};
        break;
    }
    return i;
  }
  double slow_percent() const { return kind_ == Kind::Slow10 ? 10 : kind_ == Kind::Stall10 ? stall_percent_ : 0; }
  const MethodInfo& info() const override { return info_; }

 private:
  // a loop of n iterations the compiler keeps; its result is sunk into a member
  void spin(long n) {
    unsigned long x = sink_;
    for (long i = 0; i < n; ++i) {
      x = x * 6364136223846793005UL + 1442695040888963407UL;
      asm volatile("" : "+r"(x));
    }
    sink_ = x;
  }
  static double cpu_now() {
    timespec ts{};
    ::clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
  }
  static double wall_now() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
  // The iterations of `work` per step: slow_percent() of the wrapped method's step as `now`
  // measures it (the fastest window of 4 steps through the one timing harness, the driver's work
  // included, as the gate times a step), one iteration's time the fastest of 15 probes. Slow10
  // calibrates its busy loop in CPU time (what the gate's time signal measures). Stall10 calibrates
  // its memory stall in wall time and then measures it beside the step: a load after a step waits
  // longer than one of the probe's (the probe's loads share page walks), so in 3 passes the time
  // the stall adds to a window is measured as the median difference of windows with and without
  // it, taken in turns, and the stall rescaled to P % of the median window without it.
  template <class Work>
  void calibrate(const Model& model, double (*now)(), Work work) {
    StepTimer timer(model, inner_name_, 1.0 / 30);
    timer.restart();
    constexpr int kWindow = 4;
    double fastest = 0, total = 0;
    for (int w = 0; w < 5 || total < 0.03; ++w) {
      const double t0 = now();
      timer.window(kWindow);
      const double t = now() - t0;
      fastest = w == 0 ? t : std::min(fastest, t);
      total += t;
    }
    constexpr long kProbe = 20000;
    double one = 0;
    for (int r = 0; r < 15; ++r) {
      const double t0 = now();
      work(kProbe);
      const double t = (now() - t0) / kProbe;
      one = r == 0 ? t : std::min(one, t);
    }
    iterations_ = std::lround(slow_percent() / 100 * (fastest / kWindow) / one);
    if (kind_ != Kind::Stall10) return;
    // a window of kWindow steps, one window(1) each (the harness's own time per call then cancels
    // in the difference), with `n` iterations after each step
    auto window = [&](long n) {
      const double t0 = now();
      for (int k = 0; k < kWindow; ++k) {
        timer.window(1);
        if (n > 0) work(n);
      }
      return now() - t0;
    };
    auto median = [](std::vector<double> v) {
      std::sort(v.begin(), v.end());
      return v[v.size() / 2];
    };
    for (int pass = 0; pass < 3 && iterations_ > 0; ++pass) {
      std::vector<double> alone, added;
      const double start = now();
      while (alone.size() < 400 && (alone.size() < 15 || now() - start < 0.2)) {
        const double a = window(0), b = window(iterations_);
        alone.push_back(a);
        added.push_back(b - a);
      }
      const double extra = median(added), base = median(alone);
      if (!(extra > 0)) break;
      iterations_ = std::max(1L, std::lround(static_cast<double>(iterations_) * (slow_percent() / 100 * base) / extra));
    }
  }
  // A chain of dependent loads through a random cycle of 64 MiB (twice the largest last-level
  // cache here): each load waits for memory, so the chain stalls the core for a time that grows with
  // its length while executing about 3 instructions per load. One cycle per process, read only.
  static const std::vector<uint32_t>& chase_cycle() {
    static const std::vector<uint32_t> next = [] {
      const uint32_t n = 1u << 24;  // 16 M entries of 4 bytes
      std::vector<uint32_t> order(n), nx(n);
      for (uint32_t i = 0; i < n; ++i) order[i] = i;
      uint64_t x = 88172645463325252ULL;
      for (uint32_t i = n - 1; i > 0; --i) {  // Fisher-Yates with xorshift64
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        std::swap(order[i], order[x % (i + 1)]);
      }
      for (uint32_t i = 0; i < n; ++i) nx[order[i]] = order[(i + 1) % n];
      return nx;
    }();
    return next;
  }
  void stall(long loads) {
    const auto& next = chase_cycle();
    uint32_t at = chase_;
    for (long i = 0; i < loads; ++i) at = next[at];
    chase_ = at;
  }
  void do_init(const Model& model, const State& state) override {
    if (calibrated_ && iterations_ < 0) {
      if (kind_ == Kind::Stall10) calibrate(model, wall_now, [this](long n) { stall(n); });
      else calibrate(model, cpu_now, [this](long n) { spin(n); });
    }
    if (kind_ == Kind::Bias) {
      biased_ = model;
      biased_->gravity *= 1 + 1e-3;
      inner_->init(*biased_, state);
    } else {
      inner_->init(model, state);
    }
  }
  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    switch (kind_) {
      case Kind::Bias: inner_->step(*biased_, state, h, stats); break;
      case Kind::Fail:
        if (state.t >= 1.0 - 1e-12) throw SimulationError("test-fail: fails by design at t >= 1 s");
        inner_->step(model, state, h, stats);
        break;
      case Kind::Burn: {
        // CPU time, which the gate measures (a sleep would leave it out)
        const double until = cpu_now() + 2e-3;
        while (cpu_now() < until) {
        }
        inner_->step(model, state, h, stats);
        break;
      }
      case Kind::Slow10:
      case Kind::Spin:
        inner_->step(model, state, h, stats);
        spin(iterations_);
        break;
      case Kind::Stall10:
        inner_->step(model, state, h, stats);
        stall(iterations_);
        break;
    }
  }
  Kind kind_;
  MethodInfo info_;
  std::unique_ptr<Method> inner_;
  std::optional<Model> biased_;
  bool calibrated_ = false;  // Slow10, Stall10: calibrated at the first init
  long iterations_ = -1;     // the loop per step (-1 until calibrated)
  unsigned long sink_ = 1;
  std::string inner_name_;
  double stall_percent_ = 10;
  uint32_t chase_ = 0;
};

}  // namespace

namespace {
template <Kind K>
std::unique_ptr<Method> make_test_method(const MethodOptions& s) {
  if constexpr (K == Kind::Stall10) return std::make_unique<TestMethod>(K, -1, s.choice("method"), s.number("percent"));
  return std::make_unique<TestMethod>(K, K == Kind::Spin ? s.integer("iterations") : -1);
}
template <Kind K>
MethodEntry entry() {
  return {TestMethod::describe(K), &make_test_method<K>};
}
}  // namespace

std::vector<MethodEntry> test_method_entries() {
  return {entry<Kind::Bias>(), entry<Kind::Fail>(), entry<Kind::Burn>(), entry<Kind::Slow10>(), entry<Kind::Spin>(), entry<Kind::Stall10>()};
}

bool is_gate_test_method(const std::string& name) {
  return name == "test-gc4-bias" || name == "test-fail" || name == "test-burn" || name == "test-gc4-slow10" || name == "test-gc4-spin" ||
         name == "test-stall10";
}

}  // namespace mbtest
