// Observers (metrics). The runner computes a StepView once per step (energy and joint errors,
// shared by every observer) and hands it to each observer; an observer never knows which method
// ran. Adding a metric = one observer class + one line in make_observers() (metrics/observers.cpp).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/kinematics.hpp"
#include "models/model.hpp"

namespace mb {

struct RunContext {
  double h = 0;                        // step actually used
  long steps = 0;                      // steps planned
  std::optional<long> steps_per_period;  // when h = T/k for the model's period T
  bool ld_half_periods = false;   // LD reading: |x| at every crossover i T/2 (k even) instead of i T
  bool ld_with_start = false;     // LD reading: x(0) = 0 counts as a period end (divides by m + 1)
};

struct StepView {
  long step = 0;  // i = 0 (initial state) .. n
  double t = 0;
  double energy = 0;
  JointError joint;  // max over joints
  bool finite = true;
};

StepView view_state(const Model& model, const State& state, long step);

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void begin(const Model& model, const RunContext& ctx, const StepView& initial) = 0;
  virtual void observe(const Model& model, const State& state, const StepView& view) = 0;
  // adds this observer's metrics to `metrics` (a JSON object)
  virtual void write(nlohmann::json& metrics) const = 0;
};

// The observers that apply to a model (LD only where the model has a period).
std::vector<std::unique_ptr<Observer>> make_observers(const Model& model);

// Names and one-line definitions, for `mbbench list`.
struct MetricInfo {
  std::string name, definition;
  bool per_case = true;  // a number in every record's "metrics" (what experiments may name and fit)
};
const std::vector<MetricInfo>& metric_catalog();

}  // namespace mb
