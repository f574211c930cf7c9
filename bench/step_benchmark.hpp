// One step of a method on a catalog model under Google Benchmark (bench/step_bench.cpp and
// `mbbench bench`, runners/bench_run.cpp), through the one timing harness (bench/harness.hpp):
// the model and the method are built once; each iteration times one step through the driver
// (manual time: the method's step alone); runs restart, untimed, after `run_steps` steps; the
// first 3 steps of each run (the torque pulse) are untimed. Counters (records/counters.hpp) give the per-step split
// into assembly, factorisation, solve and integration, the correction sweeps and the internal
// steps of adaptive methods.
#pragma once
#include <string>

#include <benchmark/benchmark.h>

#include "bench/harness.hpp"
#include "records/counters.hpp"
#include "models/catalog.hpp"

namespace mb {

// model_spec: a catalog model; joints: its size, for the complexity fit. per_run: one iteration
// times a whole run (the run_steps - warm_steps steps after the warm-up), reported per step.
inline void step_benchmark(benchmark::State& st, const std::string& spec, const std::string& model_spec, int joints,
                           double h = 1.0 / 30, int run_steps = 60, int warm_steps = 3, bool per_run = false) {
  const Model model = build_model(model_spec);
  try {
    StepTimer timer(model, spec, h, warm_steps, run_steps);
    timer.restart();
    const int k = per_run ? run_steps - warm_steps : 1;
    for (auto _ : st) st.SetIterationTime(timer.window(k) / k);
    const double n = static_cast<double>(std::max(1L, timer.timed_steps()));
    st.counters[counter::assembly_ms] = 1e3 * timer.phases().assembly / n;
    st.counters[counter::factor_ms] = 1e3 * timer.phases().factorization / n;
    st.counters[counter::solve_ms] = 1e3 * timer.phases().solve / n;
    st.counters[counter::integration_ms] = 1e3 * timer.phases().integration / n;
    st.counters[counter::pos_sweeps] = static_cast<double>(timer.stats().pos_iterations) / n;
    st.counters[counter::vel_sweeps] = static_cast<double>(timer.stats().vel_iterations) / n;
    // joint visits of the correction sweeps per second of step time: every sweep visits every
    // joint once; for the joint-by-joint `iterative` these are schmitt2003's "joint corrections
    // per second" (670,000 on a 1.7 GHz machine)
    if (timer.phases().step_seconds_total > 0)
      st.counters[counter::joint_corrections_per_s] =
          static_cast<double>(timer.stats().pos_iterations + timer.stats().vel_iterations) *
          static_cast<double>(model.joints.size()) / timer.phases().step_seconds_total;
    // adaptive methods: internal steps (accepted + rejected) per step, so that the time per
    // right-hand side can be told from a growing number of internal steps
    st.counters[counter::internal_steps] = static_cast<double>(timer.stats().internal_steps + timer.stats().rejected_steps) / n;
    // the step's linear system, where the method factors a sparse one (tomcin2014 Fig. 6)
    long rows = 0;
    for (const Joint& j : model.joints) rows += trans_rows(joint_parts(j.type).trans) + rot_rows(joint_parts(j.type).rot);
    st.counters[counter::rows] = static_cast<double>(rows);
    // the summary fields with a counter (records/stats.hpp), where the method reports them
    const StatsSummary& sum = timer.stats();
    StatsSummary::fields([&](const auto& f) {
      if (f.counter && is_written(sum, f)) st.counters[f.counter] = static_cast<double>(sum.*f.member);
    });
  } catch (const std::exception& e) {
    st.SkipWithError(e.what());
    return;
  }
  st.counters[counter::joints] = joints;
  st.SetComplexityN(joints);
}

}  // namespace mb
