// Whether a method runs on a model: the features the model needs against the ones the method
// supports, with the rank of the constraints where it decides (declared in methods/method.hpp).
#include <fmt/format.h>

#include "methods/constraints/constraint_system.hpp"
#include "methods/method.hpp"
#include "models/particle_form.hpp"

namespace mb {

namespace {
bool takes_particle_form(const MethodInfo& info, const Model& model) {
  return info.particle_form && !(info.supports & kSingularInertia) && has_singular_inertia(model);
}
}  // namespace

std::string unsupported_reason(const MethodInfo& info, const Model& model) {
  std::string no_form;  // why the model has no particle form, where that decides
  if (takes_particle_form(info, model)) {
    try {
      return unsupported_reason(info, particle_form(model).model);
    } catch (const UnsupportedModel& e) {
      no_form = e.what();
    }
  }
  unsigned features = model_features(model);
  // only a loop can make rows dependent (a tree's joints constrain independent relative motions);
  // the rank is computed only when it decides whether the method runs
  long redundant = 0;
  if ((features & kLoops) && (info.supports & kLoops) && !(info.supports & kRedundant) &&
      (redundant = redundant_constraints(model)) > 0)
    features |= kRedundant;
  const unsigned missing = features & ~info.supports & ~kJointLimits;
  if (!missing) return "";
  std::string why = fmt::format("{} does not support {} (it supports: {})", info.name, features_text(missing), features_text(info.supports));
  if (redundant > 0) why += fmt::format("; the model has {} redundant constraint rows", redundant);
  for (const auto& [bit, cause] : info.refusals)
    if (missing & bit) why += "; " + cause;
  if ((missing & kSingularInertia) && !no_form.empty()) why += "; " + no_form;
  if (missing & kMasslessFrames) {  // the chains they sit in, by name (an import's "body/joint")
    std::string names;
    int n = 0;
    for (const Body& b : model.bodies)
      if (b.frame && n++ < 4) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", b.name);
    why += fmt::format("; its massless frames: {}{}", names, n > 4 ? fmt::format(" and {} more", n - 4) : "");
  }
  return why;
}

const Model& method_model(const MethodInfo& info, const Model& model, std::optional<Model>& storage,
                          std::vector<std::string>* changes) {
  if (!takes_particle_form(info, model)) return model;
  try {
    ParticleForm f = particle_form(model);
    if (changes) *changes = std::move(f.changes);
    storage = std::move(f.model);
    return *storage;
  } catch (const UnsupportedModel&) {
    return model;  // it has none: unsupported_reason says why
  }
}

std::string limits_note(const MethodInfo& info, const Model& model) {
  if (info.supports & kJointLimits) return "";
  int n = 0;
  for (const Joint& j : model.joints) n += j.limited();
  return n ? fmt::format("{} runs without the joint limits of {} joint(s) (it does not claim them)", info.name, n) : "";
}

}  // namespace mb
