// Time of one step of each method on the tree of bender2007 s.6 (tree:joints=J, h = 1/30 s, the
// paper's tolerances), for the Fig. 4 comparison and the scaling exponents. Each benchmark builds
// the model and the method once and times `step` alone over runs of the tree's default 2 s (60
// steps; the first 3 steps of each run, with the torque pulse, and the restart are untimed; a
// benchmark that ran on would time a tree flailing far beyond the paper's scenario); counters give
// the per-step split into assembly,
// factorisation, solve and integration (free motion and predictions) and the correction sweeps.
// Run: build/release/bench/step_bench --benchmark_out=steps.json --benchmark_out_format=json
// (readable by Google Benchmark's tools/compare.py). Sizes: 31..255 for every method, up to
// 16383 for the O(n)/sparse ones (--benchmark_filter selects).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "bench/step_benchmark.hpp"

namespace {

struct Case {
  const char* spec;
  int max_joints;  // largest tree timed
};

// the configurations of bender2007 s.6 (iter. at 3 tolerances, SLE at 2, lin.) and ours
const Case kCases[] = {
    {"iterative:tol_p=1e-6,tol_v=1e-6", 1023}, {"iterative:tol_p=1e-4,tol_v=1e-4", 1023},
    {"iterative:tol_p=1e-3,tol_v=1e-3", 1023}, {"sle:tol_p=1e-3,tol_v=1e-3", 1023},
    {"sle:tol_p=1e-6,tol_v=1e-6", 1023},       {"sle:solver=cholmod,tol_p=1e-6,tol_v=1e-6", 16383},
    {"linear:tol_p=1e-6,tol_v=1e-6", 16383},
    {"lagrange", 255},  // bender2007's Lagrange: Baumgarte, RK4, dense LU
    {"baraff", 16383},  // Baumgarte, RK4, Baraff's O(n) LDL^T
    {"GC4", 16383},     // reduced coordinates, Featherstone's articulated-body algorithm
};

}  // namespace

int main(int argc, char** argv) {
  for (const Case& c : kCases) {
    for (int joints = 31; joints <= c.max_joints; joints = 2 * joints + 1) {
      const std::string spec = c.spec;
      benchmark::RegisterBenchmark(fmt::format("step/{}/tree:joints={}", spec, joints).c_str(),
                                   [spec, joints](benchmark::State& st) { mb::step_benchmark(st, spec, joints); })
          ->Unit(benchmark::kMillisecond)
          ->MeasureProcessCPUTime()
          ->UseRealTime();
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
