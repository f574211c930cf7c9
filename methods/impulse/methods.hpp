// The registered impulse-based methods; each is a composition of ImpulseMethod and a Corrector.
#pragma once
#include <memory>

#include "methods/impulse/impulse_method.hpp"

namespace mb {

struct IterativeMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
};
struct LinearMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
};
// the `linear` corrector: acyclic parts (split at init), each by the O(n) tree solver
std::unique_ptr<Corrector> make_linear_corrector();
// `particles` (bayer2009): its own step, methods/impulse/particles.cpp
struct ParticlesMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
};
struct SleMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
};
struct TomcinMethod {
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
};

}  // namespace mb
