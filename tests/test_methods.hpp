// Test-only methods for the CI gate's own tests. They live in the test binary, which registers
// them (with register_method) before any test runs; the mbbench binary never has them:
//   test-gc4-bias  GC4 stepping under gravity scaled by 1 + 1e-3 (a small bias: an accuracy regression)
//   test-fail      GC4 that throws SimulationError once t >= 1 s (a newly failing case)
//   test-burn      linear (tol 1e-6) that burns 2 ms of CPU time in each step (a timing regression)
//   test-gc4-slow10 GC4 with a busy loop after each step, calibrated at init to 10 % of the
//                  median time of GC4's step on the same model (the wall-time detection goal:
//                  docs/usage.md "gate")
//   test-gc4-spin:iterations=N  GC4 with a busy loop of N iterations after each step: a fixed
//                  number of instructions, which a test calibrates under cachegrind (the
//                  instruction detection goal)
//   test-stall10:method=GC4|LM4  the method with a memory stall after each step (dependent loads
//                  through 64 MiB), calibrated at init in wall time to 10 % of its step: slower
//                  by 10 % with a few hundred instructions more per step (the A/B goal)
#pragma once
#include <vector>

#include "methods/method.hpp"

namespace mbtest {

std::vector<mb::MethodEntry> test_method_entries();
// the names above: excluded from the conformance test (they are wrong on purpose)
bool is_gate_test_method(const std::string& name);

}  // namespace mbtest
