// The one timing harness (docs/metrics.md, timing): `mbbench gate`, `mbbench bench` and the Google
// Benchmark programs in bench/ all time steps with it. A StepTimer builds the method once, runs a
// fresh run's first `warm_steps` untimed (the tree's torque pulse), and then times windows of
// steps through the driver (sim/driver.hpp), whose clock measures the method's step alone (not
// the driver's checks). A run is restarted, untimed, before it would pass `run_steps` steps, so
// every window times the same scenario (a tree flailing far beyond the paper's 2 s is not timed).
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "methods/method.hpp"
#include "models/model.hpp"
#include "records/record.hpp"

namespace mb {

class StepTimer {
 public:
  StepTimer(const Model& model, const std::string& method_spec, double h, int warm_steps = 3, int run_steps = 60);

  // A fresh run: the initial state, init, and the warm-up steps, untimed. Throws what init
  // throws (UnsupportedModel) and SimulationError when a warm-up step fails.
  void restart();
  // Times the next k steps (restarting first, untimed, when the run would pass run_steps);
  // returns their wall time in s. Throws SimulationError when a step fails or diverges.
  double window(int k);

  long timed_steps() const { return timed_; }
  const StatsSummary& stats() const { return stats_; }  // sums over the timed steps
  const CaseTiming& phases() const { return phases_; }   // phase sums over the timed steps, s

 private:
  double run(int k, bool timed);
  std::unique_ptr<Method> method_;
  std::optional<Model> particle_form_;
  const Model& model_;  // the model the method runs (methods/method.hpp method_model)
  State state_;
  double h_;
  int warm_, run_steps_;
  long taken_ = 0, timed_ = 0;
  bool started_ = false;
  StatsSummary stats_;
  CaseTiming phases_;
};

}  // namespace mb
