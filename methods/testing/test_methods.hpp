// Test-only methods for the CI gate's own tests (README "The CI gate"). They exist only when the
// environment variable MBBENCH_TEST_METHODS=1 is set when the registry is first used, so they
// never appear in a normal `mbbench list`, experiment or gate:
//   test-gc4-bias  GC4 stepping under gravity scaled by 1 + 1e-3 (a small bias: an accuracy regression)
//   test-fail      GC4 that throws SimulationError once t >= 1 s (a newly failing case)
//   test-sleep     linear (tol 1e-6) that sleeps 20 ms in each step (a timing regression)
#pragma once
#include <vector>

#include "methods/method.hpp"

namespace mb {

// The environment variable that enables them, and whether it is set to 1.
constexpr const char* kTestMethodsEnv = "MBBENCH_TEST_METHODS";
bool test_methods_enabled();

std::vector<MethodEntry> test_method_entries();

}  // namespace mb
