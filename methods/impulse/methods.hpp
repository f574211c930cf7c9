// The registered impulse-based methods; each is a composition of ImpulseMethod and a Corrector.
#pragma once
#include <memory>

#include "methods/impulse/impulse_method.hpp"

namespace mb {

struct IterativeMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const Spec& spec);
};
struct SleMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const Spec& spec);
};

}  // namespace mb
