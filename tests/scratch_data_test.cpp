// A const system and its scratch apart: two data objects on one const MaximalSystem (maximal
// coordinates with projection, `ref` on closed loops) and on one factored TreeSolver, used from two
// threads at once, give the bits each gives alone. The systems are taken by const reference, so a
// system that wrote itself while evaluating would not compile; these runs catch scratch shared
// some other way (a static), which would mix the two threads' different inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <thread>
#include <vector>

#include <Eigen/Core>

#include "methods/constraints/constraint_system.hpp"
#include "methods/reduced/maximal_system.hpp"
#include "methods/solvers/tree_solver.hpp"
#include "models/catalog.hpp"

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// `steps` explicit Euler steps of h with the projection after each (the calls ref's stepper makes:
// set_loads, derivative, normalize), from the model's initial state with its velocities scaled by
// `speed`; returns the final x followed by every step's projection error
std::vector<double> run_maximal(const mb::MaximalSystem& sys, mb::MaximalData& data, double speed, double h, int steps) {
  const mb::Model& model = sys.model();
  mb::State s = mb::initial_state(model);
  for (auto& b : s.bodies) b.v *= speed, b.w *= speed;
  std::vector<double> x, dxdt, errors;
  sys.read(s, x);
  sys.normalize(data, x);
  for (int k = 0; k < steps; ++k) {
    sys.set_loads(data, model, k * h, h);
    sys.derivative(data, x, dxdt);
    for (size_t i = 0; i < x.size(); ++i) x[i] += h * dxdt[i];
    sys.normalize(data, x);
    errors.push_back(data.projected_error);
  }
  x.insert(x.end(), errors.begin(), errors.end());
  return x;
}

// `count` solves with right-hand sides from `seed`, every solution and block count appended
std::vector<double> run_tree(const mb::TreeSolver& ts, mb::TreeSolveData& data, int seed, int count) {
  std::vector<double> out;
  Eigen::VectorXd b(ts.rows()), x;
  for (int k = 0; k < count; ++k) {
    for (int i = 0; i < ts.rows(); ++i) b[i] = std::sin(seed * 0.37 + k * 1.3 + i * 0.11);
    ts.solve(b, x, data);
    out.insert(out.end(), x.data(), x.data() + x.size());
    out.push_back(static_cast<double>(data.block_ops));
  }
  return out;
}

}  // namespace

TEST_CASE("two MaximalData on one const four-bar system in two threads give the bits of each alone", "[data]") {
  const mb::MaximalSystem sys = mb::MaximalSystem::extract(mb::build_model("four-bar:n=2"));
  constexpr double kH = 2e-3;
  constexpr int kSteps = 300;
  mb::MaximalData alone_a(sys), alone_b(sys);
  const std::vector<double> a = run_maximal(sys, alone_a, 1.0, kH, kSteps);
  const std::vector<double> b = run_maximal(sys, alone_b, -0.7, kH, kSteps);
  REQUIRE(a.size() == b.size());
  REQUIRE(!same_bits(a, b));  // different inputs: a mix of the two runs would show
  for (int round = 0; round < 3; ++round) {
    mb::MaximalData da(sys), db(sys);
    std::vector<double> ta, tb;
    std::thread first([&] { ta = run_maximal(sys, da, 1.0, kH, kSteps); });
    std::thread second([&] { tb = run_maximal(sys, db, -0.7, kH, kSteps); });
    first.join();
    second.join();
    CHECK(same_bits(ta, a));
    CHECK(same_bits(tb, b));
  }
}

TEST_CASE("two TreeSolveData on one factored TreeSolver in two threads give the bits of each alone", "[data][tree_solver]") {
  const mb::Model m = mb::build_model("chain:n=100");
  mb::ConstraintSystem cs(m);
  cs.update(m, mb::initial_state(m));
  mb::TreeSolver solver;
  solver.analyze(cs);
  solver.factor(cs);
  const mb::TreeSolver& ts = solver;
  constexpr int kSolves = 400;
  mb::TreeSolveData alone_a, alone_b;
  const std::vector<double> a = run_tree(ts, alone_a, 1, kSolves);
  const std::vector<double> b = run_tree(ts, alone_b, 2, kSolves);
  REQUIRE(!same_bits(a, b));
  CHECK(alone_a.block_ops == 3 * static_cast<long>(ts.nodes().size()) - 2 * ts.roots());
  for (int round = 0; round < 3; ++round) {
    mb::TreeSolveData da, db;
    std::vector<double> ta, tb;
    std::thread first([&] { ta = run_tree(ts, da, 1, kSolves); });
    std::thread second([&] { tb = run_tree(ts, db, 2, kSolves); });
    first.join();
    second.join();
    CHECK(same_bits(ta, a));
    CHECK(same_bits(tb, b));
  }
}
