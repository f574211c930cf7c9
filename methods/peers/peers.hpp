// The peer engines (docs/peers.md): each a Method that translates our Model into an external
// engine (Debian package), steps it and writes the Cartesian State back after every step. One file
// per engine (methods/peers/<engine>.cpp), built when CMake finds the engine's package
// (MBBENCH_WITH_<ENGINE>); the registry lists the ones built, `mbbench list` the others with why
// (peers_not_built, methods/peers/common.hpp). The engine's headers stay in its file.
#pragma once
#include <memory>

#include "methods/method.hpp"

namespace mb {

MethodInfo describe_ode();
std::unique_ptr<Method> make_ode(const Spec& spec);

MethodInfo describe_mujoco();
std::unique_ptr<Method> make_mujoco(const Spec& spec);

MethodInfo describe_bullet();
std::unique_ptr<Method> make_bullet(const Spec& spec);

MethodInfo describe_simbody();
std::unique_ptr<Method> make_simbody(const Spec& spec);

MethodInfo describe_dart();
std::unique_ptr<Method> make_dart(const Spec& spec);

}  // namespace mb
