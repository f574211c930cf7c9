// Time of one step of each timing-table method of the registry (MethodInfo::timing_table, at its
// defaults) on the tree of bender2007 s.6 (tree:joints=J, h = 1/30 s), for the scaling
// exponents, and on chains of N
// boxes with ball joints (chain:n=N,body=box, h = 1/240 s, the first 0.25 s of each run; names
// step/<spec>/chain:n=N). Each benchmark builds
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
#include "methods/method.hpp"

int main(int argc, char** argv) {
  // the tree of bender2007 s.6, and chains of boxes with ball joints (chain:n=N,body=box)
  // the methods: every timing-table method of the registry (MethodInfo::timing_table) at its
  // defaults, up to its timing_max_joints
  for (const std::string family : {"tree", "chain"}) {
    for (const auto& entry : mb::method_registry()) {
      if (!entry.info.timing_table) continue;
      for (int joints = 31; joints <= entry.info.timing_max_joints; joints = 2 * joints + 1) {
        const std::string spec = entry.info.name;
        const std::string model = family == "tree" ? fmt::format("tree:joints={}", joints) : fmt::format("chain:n={}", joints);
        benchmark::RegisterBenchmark(fmt::format("step/{}/{}", spec, model).c_str(),
                                     [spec, family, joints](benchmark::State& st) {
                                       // tree: h = 1/30 s, runs of 2 s (the paper's scenario); chain: a chain of boxes released
                                       // horizontally whips its free end into violent motion within about a second (at h = 0.005
                                       // the impulse methods stop converging at 0.8 s on 255 boxes), so its runs are the first
                                       // 0.25 s at h = 1/240 s
                                       const bool tree = family == "tree";
                                       mb::step_benchmark(st, spec, tree ? fmt::format("tree:joints={}", joints) : fmt::format("chain:n={},body=box", joints),
                                                          joints, tree ? 1.0 / 30 : 1.0 / 240);
                                     })
            ->Unit(benchmark::kMillisecond)
            ->UseManualTime();
      }
    }
  }
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
