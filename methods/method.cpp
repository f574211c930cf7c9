#include "methods/method.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <mutex>
#include <numeric>

#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {

std::string features_text(unsigned f) {
  static const std::pair<unsigned, const char*> names[] = {
      {kParticles, "particles"}, {kRigidBodies, "rigid bodies"}, {kTrees, "trees"},       {kLoops, "loops"},
      {kRedundant, "redundant constraints"}, {kContacts, "contacts"}, {kAppliedTorques, "applied torques"},
      {kForces, "force elements"}, {kAppliedForces, "applied forces"}, {kMasslessFrames, "massless frames"},
      {kJointDampers, "joint dampers"}, {kMotors, "motors"}, {kBrokenJoints, "broken joints"}, {kActuators, "actuators"},
      {kJointLimits, "joint limits"}};
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
  // a cycle in the joint graph, the world (and every static body) as one node: union-find
  const int n = static_cast<int>(model.bodies.size());
  std::vector<int> parent(static_cast<size_t>(n) + 1);
  std::iota(parent.begin(), parent.end(), 0);
  auto node = [&](int b) { return b < 0 || model.bodies[static_cast<size_t>(b)].is_static ? n : b; };
  auto find = [&](int x) {
    while (parent[static_cast<size_t>(x)] != x) x = parent[static_cast<size_t>(x)] = parent[static_cast<size_t>(parent[static_cast<size_t>(x)])];
    return x;
  };
  bool loop = false;
  for (const Joint& j : model.joints) {
    const int a = find(node(j.a)), b = find(node(j.b));
    if (a == b) loop = true;
    else parent[static_cast<size_t>(a)] = b;
  }
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

std::unique_ptr<Method> make_method(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "method", source, line);
  if (const MethodEntry* e = find_method(spec.name())) {
    spec.check_options(e->info.options);
    return e->make(spec);
  }
  std::string names;
  for (const auto& e : method_registry()) names += (names.empty() ? "" : ", ") + e.info.name;
  throw InputError(source, line, "method", fmt::format("unknown method '{}'; known methods: {}", spec.name(), names));
}

}  // namespace mb
