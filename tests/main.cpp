// Catch2's main, with the test binary's own methods registered before any test runs: the gate's
// test-only methods (tests/test_methods.cpp) and the example method (tests/example_method.cpp).
// GCC 12 at -O1 with the sanitizers reports a false -Wmaybe-uninitialized inside libstdc++'s
// std::function, instantiated by Catch2's own code; with -Werror (CI) that stops the build, so it
// is silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <string>

#include "gate/gate.hpp"
#include "methods/method.hpp"
#include "test_methods.hpp"

namespace mbtest {
mb::MethodEntry example_method_entry();
}

int main(int argc, char** argv) {
  for (auto& e : mbtest::test_method_entries()) mb::register_method(std::move(e));
  mb::register_method(mbtest::example_method_entry());
  // the gate's child processes run this binary, with the test-only methods
  if (argc > 1 && mb::is_gate_child(argv[1])) return mb::gate_child(argc - 1, argv + 1);
  return Catch::Session().run(argc, argv);
}
