#include "methods/method.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

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

std::unique_ptr<Method> make_method(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "method", source, line);
  for (const auto& e : method_registry()) {
    if (e.info.name != spec.name()) continue;
    spec.check_options(e.info.options);
    return e.make(spec);
  }
  std::string names;
  for (const auto& e : method_registry()) names += (names.empty() ? "" : ", ") + e.info.name;
  throw InputError(source, line, "method", fmt::format("unknown method '{}'; known methods: {}", spec.name(), names));
}

}  // namespace mb
