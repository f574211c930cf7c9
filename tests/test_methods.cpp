#include "test_methods.hpp"

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

#include "core/error.hpp"

namespace mbtest {

using namespace mb;

namespace {

enum class Kind { Bias, Fail, Sleep };

class TestMethod final : public Method {
 public:
  explicit TestMethod(Kind k) : kind_(k), info_(describe(k)) {
    inner_ = make_method(k == Kind::Sleep ? "linear:tol_p=1e-6,tol_v=1e-6" : "GC4");
  }
  static MethodInfo describe(Kind k) {
    MethodInfo i;
    i.source = "test only (tests/test_methods.cpp)";
    i.family = "test";
    i.fixed_step = true;
    i.supports = find_method(k == Kind::Sleep ? "linear" : "GC4")->info.supports;  // those of the method it wraps
    switch (k) {
      case Kind::Bias:
        i.name = "test-gc4-bias";
        i.description = "test only: GC4 stepping under gravity scaled by 1 + 1e-3 (an accuracy regression)";
        break;
      case Kind::Fail:
        i.name = "test-fail";
        i.description = "test only: GC4 that throws SimulationError once t >= 1 s (a new failure)";
        break;
      case Kind::Sleep:
        i.name = "test-sleep";
        i.description = "test only: linear (tol 1e-6) that sleeps 20 ms in each step (a timing regression)";
        break;
    }
    return i;
  }
  const MethodInfo& info() const override { return info_; }

 private:
  void do_init(const Model& model, const State& state) override {
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
      case Kind::Sleep:
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
        inner_->step(model, state, h, stats);
        break;
    }
  }
  Kind kind_;
  MethodInfo info_;
  std::unique_ptr<Method> inner_;
  std::optional<Model> biased_;
};

}  // namespace

std::vector<MethodEntry> test_method_entries() {
  return {
      {TestMethod::describe(Kind::Bias), [](const Spec&) -> std::unique_ptr<Method> { return std::make_unique<TestMethod>(Kind::Bias); }},
      {TestMethod::describe(Kind::Fail), [](const Spec&) -> std::unique_ptr<Method> { return std::make_unique<TestMethod>(Kind::Fail); }},
      {TestMethod::describe(Kind::Sleep), [](const Spec&) -> std::unique_ptr<Method> { return std::make_unique<TestMethod>(Kind::Sleep); }},
  };
}

bool is_gate_test_method(const std::string& name) {
  return name == "test-gc4-bias" || name == "test-fail" || name == "test-sleep";
}

}  // namespace mbtest
