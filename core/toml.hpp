// toml++ (Debian libtomlplusplus-dev), included through here only. Its internal assertions are
// off in every build: toml++ 3.3 asserts on a table header whose key starts with a character
// that cannot start a key ("[,x]"), where its own parser goes on to report the error; with the
// assertion on, a Debug build aborted on that bad input (found by tests/fuzz/scene_fuzz.cpp).
// Its implementation is compiled once into mbbench_lib (core/toml_impl.cpp).
#pragma once
#ifndef TOML_ASSERT
#define TOML_ASSERT(expr) static_assert(true)
#endif
#include <toml++/toml.h>
