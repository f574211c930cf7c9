// One step of a method on a catalog model (tree:joints=J, chain:n=N,body=box) under Google Benchmark (bench/step_bench.cpp and
// `mbbench bench`, runners/bench_run.cpp): the model and the method are built once, `step` alone
// is timed over runs of the tree's default 2 s (60 steps of h = 1/30 s); the first 3 steps of each
// run (the torque pulse) and each restart are untimed; counters give the per-step split into
// assembly, factorisation, solve and integration and the correction sweeps (style.md 12).
#pragma once
#include <string>

#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "methods/method.hpp"
#include "models/catalog.hpp"

namespace mb {

// model_spec: a catalog model; joints: its size, for the complexity fit.
inline void step_benchmark(benchmark::State& st, const std::string& spec, const std::string& model_spec, int joints,
                           double h = 1.0 / 30) {
  const Model model = build_model(model_spec);
  const int steps_per_run = 60;  // the tree's default 2 s run; then start again (untimed)
  auto method = make_method(spec);
  State s;
  int taken = 0;
  StepStats warm, stats;
  // a fresh run: initial state, init, and the first steps (the torque step) untimed
  auto restart = [&] {
    s = initial_state(model);
    method->init(model, s);
    for (taken = 0; taken < 3; ++taken) {
      method->step(model, s, h, warm);
      s.t = (taken + 1) * h;
    }
  };
  try {
    restart();
    for (auto _ : st) {
      method->step(model, s, h, stats);
      s.t = ++taken * h;
      benchmark::ClobberMemory();
      if (taken == steps_per_run) {
        st.PauseTiming();
        restart();
        st.ResumeTiming();
      }
    }
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  const auto per_step = benchmark::Counter::kAvgIterations;
  st.counters["assembly_ms"] = benchmark::Counter(1e3 * stats.t_assembly, per_step);
  st.counters["factor_ms"] = benchmark::Counter(1e3 * stats.t_factorization, per_step);
  st.counters["solve_ms"] = benchmark::Counter(1e3 * stats.t_solve, per_step);
  st.counters["integration_ms"] = benchmark::Counter(1e3 * stats.t_integration, per_step);
  st.counters["pos_sweeps"] = benchmark::Counter(static_cast<double>(stats.pos_iterations), per_step);
  st.counters["vel_sweeps"] = benchmark::Counter(static_cast<double>(stats.vel_iterations), per_step);
  st.counters["joints"] = joints;
  st.SetComplexityN(joints);
}

}  // namespace mb
