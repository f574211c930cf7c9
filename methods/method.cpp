#include "methods/method.hpp"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <cmath>
#include <mutex>
#include <numeric>

#include "core/disjoint_sets.hpp"
#include "core/error.hpp"
#include "core/suggest.hpp"
#include "models/kinematics.hpp"

namespace mb {

std::string features_text(unsigned f) {
  static const std::pair<unsigned, const char*> names[] = {
      {kParticles, "particles"}, {kRigidBodies, "rigid bodies"}, {kTrees, "trees"},       {kLoops, "loops"},
      {kRedundant, "redundant constraints"}, {kContacts, "contacts"}, {kAppliedTorques, "applied torques"},
      {kForces, "force elements"}, {kAppliedForces, "applied forces"}, {kMasslessFrames, "massless frames"},
      {kJointDampers, "joint dampers"}, {kMotors, "motors"}, {kBrokenJoints, "broken joints"}, {kActuators, "actuators"},
      {kJointLimits, "joint limits"}, {kSingularInertia, "singular inertias"},
      {kRolling, "rolling constraints"}, {kCoupledJoints, "coupled joints"}};
  std::string s;
  for (const auto& [bit, name] : names)
    if (f & bit) s += (s.empty() ? "" : ", ") + std::string(name);
  return s.empty() ? "none" : s;
}

unsigned model_features(const Model& model) {
  unsigned f = 0;
  for (const Body& b : model.bodies) {
    if (!b.is_static) f |= b.particle ? kParticles : kRigidBodies;
    if (b.frame) f |= kMasslessFrames;
    if (!b.is_static && !b.particle && !b.frame && !is_spd(b.inertia)) f |= kSingularInertia;
  }
  for (const AppliedLoad& a : model.loads)
    if (a.torque != Vec3::Zero()) f |= kAppliedTorques;
  if (has_applied_forces(model)) f |= kAppliedForces;
  if (!model.shapes.empty()) f |= kContacts;
  if (!model.springs.empty()) f |= kForces;
  if (has_joint_dampers(model)) f |= kJointDampers;
  if (!model.motors.empty()) f |= kMotors;
  if (!model.actuators.empty()) f |= kActuators;
  if (has_joint_limits(model)) f |= kJointLimits;
  if (!model.rolling.empty()) f |= kRolling;
  if (!model.couplings.empty()) f |= kCoupledJoints;
  // a cycle in the joint graph, the world (and every static body) as one node: union-find
  const int n = static_cast<int>(model.bodies.size());
  DisjointSets sets(n + 1);
  auto node = [&](int b) { return b < 0 || model.bodies[static_cast<size_t>(b)].is_static ? n : b; };
  bool loop = false;
  for (const Joint& j : model.joints)
    if (!sets.unite(node(j.a), node(j.b))) loop = true;
  f |= loop ? kLoops : kTrees;
  if (!model.joints.empty()) {
    const JointError e = max_joint_error(model, initial_state(model));
    if (!(std::max(e.pos, e.rot) <= kBrokenJointTolerance)) f |= kBrokenJoints;
  }
  return f;
}

void Method::init(const Model& model, const State& state) {
  if (state.bodies.size() != model.bodies.size())
    throw Error(fmt::format("{}: state has {} bodies, model {}", info().name, state.bodies.size(), model.bodies.size()));
  nbodies_ = model.bodies.size();
  do_init(model, state);
}

void Method::step(const Model& model, State& state, double h, StepStats& stats) {
  if (state.bodies.size() != nbodies_)
    throw Error(fmt::format("{}: step called with a state of {} bodies after init with {}", info().name,
                            state.bodies.size(), nbodies_));
  if (!(h > 0)) throw Error(fmt::format("{}: step size must be positive, got {}", info().name, h));
  const double t0 = state.t;
  do_step(model, state, h, stats);
  state.t = t0 + h;
}

namespace {
std::vector<MethodEntry>& registry_storage() {
  static std::vector<MethodEntry> entries = builtin_methods();
  return entries;
}
}  // namespace

const std::vector<MethodEntry>& method_registry() { return registry_storage(); }

void register_method(MethodEntry entry) {
  if (find_method(entry.info.name)) throw Error(fmt::format("register_method: '{}' is registered already", entry.info.name));
  registry_storage().push_back(std::move(entry));
}

const MethodEntry* find_method(const std::string& name) {
  for (const auto& e : method_registry())
    if (e.info.name == name) return &e;
  return nullptr;
}

std::string reference_method_name() {
  for (const auto& e : method_registry())
    if (e.info.reference) return e.info.name;
  throw Error("no reference method is registered (MethodInfo::reference)");
}

std::string timing_reference_name() {
  for (const auto& e : method_registry())
    if (e.info.timing_reference) return e.info.name;
  throw Error("no timing reference method is registered (MethodInfo::timing_reference)");
}

std::string convergence_hint(const MethodInfo& info, const ConvergenceError& e) {
  std::vector<std::string> helps;
  for (const OptionInfo& o : info.options) {
    if (o.name == "solver" && o.type == OptionType::Choice && o.default_value == "iterative") {
      std::vector<std::string> direct;
      for (const auto& c : o.choices)
        if (c != "iterative") direct.push_back(c);
      if (!direct.empty()) helps.push_back(fmt::format("solver={} (direct)", fmt::join(direct, "|")));
    } else if (o.name == e.tolerance_option && std::isfinite(e.error) && e.error > 0) {
      helps.push_back(fmt::format("{}={:g}", o.name, std::pow(10.0, std::ceil(std::log10(e.error)))));
    }
  }
  const bool more = std::any_of(info.options.begin(), info.options.end(), [](const OptionInfo& o) { return o.name == "max_iter"; });
  if (helps.empty() && !more) return "";
  return fmt::format("; try {}{}{}", fmt::join(helps, ", "), helps.empty() || !more ? "" : " or ", more ? "a larger max_iter" : "");
}

std::unique_ptr<Method> make_method(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "method", source, line);
  if (const MethodEntry* e = find_method(spec.name())) {
    spec.check_options(e->info.options);
    return e->make(MethodOptions(spec, e->info.options));
  }
  std::string names;
  std::vector<std::string> list;
  for (const auto& e : method_registry()) {
    names += (names.empty() ? "" : ", ") + e.info.name;
    list.push_back(e.info.name);
  }
  throw InputError(source, line, "method",
                   fmt::format("unknown method '{}'{}; known methods: {}", spec.name(), did_you_mean(spec.name(), list), names));
}

}  // namespace mb
