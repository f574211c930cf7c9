// The Method interface (docs/method-notes.md). A method is created from a spec string by the registry
// (methods/registry/registry.cpp), initialised once from a Model and its initial State, then stepped.
// Every method, whatever its internal coordinates, leaves the Cartesian State of every body
// after each step, so every metric works with every method.
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "core/error.hpp"
#include "core/spec.hpp"
#include "models/model.hpp"
#include "records/stats.hpp"

namespace mb {

// StepStats, what one step did: records/stats.hpp.

// The model features a method may support. A model needs the features model_features() finds
// in it; a method runs on a model when it supports all of them (supports()).
enum Feature : unsigned {
  kParticles = 1u << 0,       // point masses
  kRigidBodies = 1u << 1,     // bodies with orientation and inertia
  kTrees = 1u << 2,           // joints whose graph (world as one node) has no cycle
  kLoops = 1u << 3,           // closed kinematic loops
  kRedundant = 1u << 4,       // redundant constraints (dependent rows)
  kContacts = 1u << 5,        // collision geometry and contacts
  kAppliedTorques = 1u << 6,  // time-dependent applied torques (the tree's pulse)
  kForces = 1u << 7,          // force elements: spring-dampers (Model::springs), state-dependent loads
  kAppliedForces = 1u << 8,   // applied forces (a load with a nonzero force: rolling-box's push)
  kMasslessFrames = 1u << 9,  // massless joint frames (Body::frame: a body's joints in sequence)
  kJointDampers = 1u << 10,   // viscous dampers in hinges and sliders (Joint::damping)
  kMotors = 1u << 11,         // motors on hinges and sliders (Model::motors)
  kBrokenJoints = 1u << 12,   // joints open at the start beyond kBrokenJointTolerance (models/kinematics.hpp)
  kActuators = 1u << 13,      // force actuators on hinges and sliders under a control source (Model::actuators)
  // unilateral limits on hinges and sliders (Joint::lower, upper). Not a reason to refuse: a method
  // that does not claim them runs the model without them (limits_note).
  kJointLimits = 1u << 14,
  // rigid bodies whose inertia is singular (positive semi-definite: a point mass, a thin rod) on a
  // tree whose joint-space mass matrix is positive definite (a URDF import checks it at the
  // initial pose)
  kSingularInertia = 1u << 15,
  kRolling = 1u << 16,  // wheels rolling without slipping (Model::rolling): nonholonomic rows
  kCoupledJoints = 1u << 17,  // joints whose coordinates are coupled (Model::couplings): a row on four bodies
};
std::string features_text(unsigned features);  // "particles, rigid bodies, trees"
unsigned model_features(const Model& model);

// An order a method declares: the global error of `quantity` behaves as h^order on `problem`
// (a catalog model spec) over [h_min, h_max] (the asymptotic range, measured at t = t_end), with
// the method's options `options` (e.g. tight tolerances). The conformance test checks it within
// 0.3 (tests/method_conformance_test.cpp).
struct DeclaredOrder {
  std::string quantity = "position";  // "position": ref_error_max at t_end
  std::string problem;                // catalog model spec, e.g. "pendulum90"
  double order = 0;
  double h_min = 0, h_max = 0;        // s
  double t_end = 1;                   // s
  std::string options;                // spec options added for the measurement ("tol_p=1e-12")
  std::string note;
};

struct MethodInfo {
  std::string name;
  std::string family;       // "impulse", "lagrange", "reduced", "higher-order", ...: groups in docs and reports
  std::string paper_name;   // the name in the paper's tables ("iter.", "LMBS4"); empty: ours
  std::string description;
  std::string source;       // citation key and section, e.g. "schmitt2005 s.5"
  std::string version;      // a peer engine's name and version ("ODE 0.16.2"); empty: ours
  std::vector<OptionInfo> options;  // accepted options with type, default, range and doc
  std::string expands_to;   // for a paper alias: the composition it names
  std::vector<DeclaredOrder> orders;  // the first is the primary order (records, docs)
  // the order the scheme is stated to have (its source's claim) where the measured primary order
  // differs from it; 0: the measured order is the stated one
  double stated_order = 0;
  unsigned supports = kParticles | kRigidBodies | kTrees;  // Feature bits
  // why the method lacks a feature whose cause is its engine's (a refusal by name with its cause):
  // unsupported_reason adds the text when the model needs that feature
  std::vector<std::pair<unsigned, std::string>> refusals;
  // takes a singular body as a particle where it has that form (models/particle_form.hpp): a method
  // that claims particles but not singular inertias runs such a model's particle form, exact
  bool particle_form = false;
  bool fixed_step = true;   // false: adaptive; may step to any time
  bool reference = false;   // a reference method: the error of the others is measured against it
  bool timing_table = false;       // timed by the timing experiments and the gate
  int timing_max_joints = 255;     // the largest tree it is timed on (O(n) methods: 16383)
  bool timing_reference = false;   // the method timing ratios are taken to (one method)
  // the tree sizes at which the gate's time signal times this method as the one time test of its
  // family at that size (docs/usage.md "gate"); the instruction counts cover every method with
  // timing_table at every size it is timed at
  std::vector<int> gate_time_joints;
  // a plugin's method (methods/plugin.hpp): the shared library it came from and the plugin's
  // version string, set by the loader and recorded in every record's provenance; empty: built in
  std::string plugin, plugin_version;

  double order() const { return orders.empty() ? 0.0 : orders.front().order; }
};

// Why `info` cannot run a model with `features` (empty: it can).
// Empty when the method runs on the model, else why not. kRedundant is decided here, by the rank
// of the constraints at the initial state (redundant_constraints), when it matters: for a method
// that supports loops but not redundant constraints, on a model with a loop. Defined with the
// registry (methods/registry/support.cpp), above the constraint system it asks for the rank.
std::string unsupported_reason(const MethodInfo& info, const Model& model);
// The model `info`'s method runs for `model`: `model` itself, or its particle form (MethodInfo::
// particle_form) made in `storage`, with a line per body made a particle in `changes`; `model`
// where it has none (unsupported_reason says why).
const Model& method_model(const MethodInfo& info, const Model& model, std::optional<Model>& storage,
                          std::vector<std::string>* changes = nullptr);
// The line a run prints and records when the model has joint limits and the method does not claim
// them ("GC4 runs without the joint limits of 4 joints"); empty otherwise.
std::string limits_note(const MethodInfo& info, const Model& model);

// What helps a method whose correction did not converge (ConvergenceError), from the options its
// MethodInfo declares: a direct solver, a tolerance above the error reached, more sweeps
// ("; try solver=sle|linear (direct), tol_v=1e-15 or a larger max_iter"); empty when it declares
// none of them.
std::string convergence_hint(const MethodInfo& info, const ConvergenceError& e);

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
  // the method from its options, parsed and typed against info.options (defaults applied)
  std::unique_ptr<Method> (*make)(const MethodOptions& options);
};

const std::vector<MethodEntry>& method_registry();
// The built-in methods, sorted by name (methods/registry/registry.cpp: one line per method).
std::vector<MethodEntry> builtin_methods();

// Adds a method to the registry at run time (the test binary registers its example method this
// way: tests/example_method.cpp). Throws if the name is taken. Call before the registry is used
// from several threads.
void register_method(MethodEntry entry);

// The registry entry of a name (nullptr if none), and the reference method's name.
const MethodEntry* find_method(const std::string& name);
std::string reference_method_name();
std::string timing_reference_name();

// Creates a method from "name:key=value,..."; throws InputError listing the valid names/options.
std::unique_ptr<Method> make_method(const std::string& spec, const std::string& source = "command line",
                                    int line = 0);

}  // namespace mb
