// The Method interface (design.md s.3). A method is created from a spec string by the registry
// (methods/registry.cpp), initialised once from a Model and its initial State, then stepped.
// Every method, whatever its internal coordinates, leaves the Cartesian State of every body
// after each step, so every metric works with every method.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "models/model.hpp"

namespace mb {

// What one step did; summed by the runner. Timings are in seconds.
struct StepStats {
  long pos_iterations = 0;   // position (joint) correction iterations
  long vel_iterations = 0;   // velocity correction iterations
  double pos_residual = 0;   // final max joint position error of the correction, m
  double vel_residual = 0;   // final max joint velocity error of the correction, m/s
  long internal_steps = 0;   // accepted internal steps of an adaptive integrator
  long rejected_steps = 0;   // rejected internal steps of an adaptive integrator
  double t_assembly = 0, t_factorization = 0, t_solve = 0, t_integration = 0;
};

struct MethodInfo {
  std::string name;
  std::string description;
  std::string source;               // citation key, e.g. "schmitt2005 s.5"
  std::vector<OptionInfo> options;  // accepted options with defaults
  std::string expands_to;           // for a paper alias: the composition it names
  int order = 0;                    // claimed order of the global error (0: not applicable)
  bool fixed_step = true;           // false: adaptive; may step to any time
};

class Method {
 public:
  virtual ~Method() = default;
  virtual const MethodInfo& info() const = 0;

  // Reads the model and the initial state into the method's own representation. Throws
  // UnsupportedModel naming why when the method cannot simulate the model.
  void init(const Model& model, const State& state);

  // Advances state by h (> 0) and sets state.t += h. Throws SimulationError on breakdown.
  void step(const Model& model, State& state, double h, StepStats& stats);

 private:
  virtual void do_init(const Model& model, const State& state) = 0;
  virtual void do_step(const Model& model, State& state, double h, StepStats& stats) = 0;
  size_t nbodies_ = 0;
};

struct MethodEntry {
  MethodInfo info;
  std::unique_ptr<Method> (*make)(const Spec& spec);
};

const std::vector<MethodEntry>& method_registry();

// Creates a method from "name:key=value,..."; throws InputError listing the valid names/options.
std::unique_ptr<Method> make_method(const std::string& spec, const std::string& source = "command line",
                                    int line = 0);

}  // namespace mb
