// Time of one GC4 step (four articulated-body evaluations, featherstone2008 ch. 7, + RK4) on
// tree:joints=J, J = 31..16383, with the fitted complexity (goal: O(n), exponent <= 1.1), and one
// `linear` step on the same trees for the ratio GC4 / linear (design.md s.7: timings as ratios to a
// reference method measured in the same run).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"

namespace {

void step_bench(benchmark::State& st, const char* method) {
  // model and method once per size, warmed up by one step
  const int n = static_cast<int>(st.range(0));
  const mb::Model m = mb::build_model(fmt::format("tree:joints={},anchor=ball", n));
  auto meth = mb::make_method(method);
  const mb::State s0 = mb::initial_state(m);
  mb::State s = s0;
  meth->init(m, s);
  const double h = m.info.default_h;
  mb::StepStats stats;
  // timed: one step each, restarting (untimed) from the initial state every `episode` steps: at
  // h = 1/30 s the big trees whip their small leaves after about 0.7 s, and `linear` stops converging
  const long episode = 10;
  long k = 0;
  try {
    meth->step(m, s, h, stats);
    ++k;
    for (auto _ : st) {
      if (k == episode) {
        st.PauseTiming();
        s = s0;
        meth->init(m, s);
        k = 0;
        st.ResumeTiming();
      }
      s.t = static_cast<double>(k) * h;
      meth->step(m, s, h, stats);
      ++k;
      benchmark::DoNotOptimize(s.bodies.data());
      benchmark::ClobberMemory();
    }
  } catch (const mb::SimulationError& e) {
    st.SkipWithError(e.what());
    return;
  }
  if (!mb::state_is_finite(s)) st.SkipWithError("the state became non-finite");
  st.SetComplexityN(n);
}

void BM_Gc4StepTree(benchmark::State& st) { step_bench(st, "GC4"); }
void BM_LinearStepTree(benchmark::State& st) { step_bench(st, "linear"); }

// trees of 2^k - 1 joints, k = 5..14
void tree_sizes(benchmark::internal::Benchmark* b) {
  for (int k = 5; k <= 14; ++k) b->Arg((1 << k) - 1);
}

BENCHMARK(BM_Gc4StepTree)->Apply(tree_sizes)->Complexity(benchmark::oN)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_LinearStepTree)->Apply(tree_sizes)->Complexity(benchmark::oN)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
