// Time of the linear-time tree solver (baraff1996, bender2007 s.4): factor + solve of
// A x = b, A = J M^-1 J^T, on catalog chains of 31..16383 rods. The fitted complexity should be
// O(n) (google/benchmark's least-squares fit reports the coefficient and the normalized RMS).
#include <benchmark/benchmark.h>
#include <fmt/format.h>

#include "methods/constraints/constraint_system.hpp"
#include "methods/solvers/tree_solver.hpp"
#include "models/catalog.hpp"
#include "records/counters.hpp"

namespace {

void BM_TreeSolverChain(benchmark::State& st) {
  // model, constraint system and analysis once per size
  const int n = static_cast<int>(st.range(0));
  const mb::Model m = mb::build_model(fmt::format("chain:n={}", n));
  mb::ConstraintSystem cs(m);
  mb::State s = mb::initial_state(m);
  cs.update(m, s);
  mb::TreeSolver ts;
  ts.analyze(m, cs);
  Eigen::VectorXd b = Eigen::VectorXd::LinSpaced(cs.rows(), -1, 1), x(cs.rows());

  // warm up, and check A x = b without forming A: A x = J (M^-1 J^T x) on a state at rest
  ts.factor(cs);
  ts.solve(b, x);
  for (auto& bs : s.bodies) bs.v.setZero();
  cs.apply_impulse(x, s);
  Eigen::VectorXd Ax;
  cs.velocity_error(s, Ax);
  if (!((Ax - b).norm() <= 1e-8 * b.norm())) {
    st.SkipWithError("tree solver residual too large");
    return;
  }

  // timed: factor + solve
  for (auto _ : st) {
    ts.factor(cs);
    ts.solve(b, x);
    benchmark::DoNotOptimize(x.data());
    benchmark::ClobberMemory();
  }
  st.SetComplexityN(n);
  st.counters[mb::counter::rows] = cs.rows();
}

// chains of 2^k - 1 rods, k = 5..14
void chain_sizes(benchmark::internal::Benchmark* b) {
  for (int k = 5; k <= 14; ++k) b->Arg((1 << k) - 1);
}

BENCHMARK(BM_TreeSolverChain)->Apply(chain_sizes)->Complexity(benchmark::oN)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
