#include "records/counters.hpp"

namespace mb {

const std::vector<CounterInfo>& counter_catalog() {
  using namespace counter;
  static const std::vector<CounterInfo> c = {
      {assembly_ms, "ms", "assembly of the step's system, per step (StepStats::t_assembly)", ""},
      {factor_ms, "ms", "its factorisation, per step (StepStats::t_factorization)", ""},
      {solve_ms, "ms", "its solves, per step (StepStats::t_solve)", ""},
      {integration_ms, "ms", "the integration of the step, per step (StepStats::t_integration)", ""},
      {pos_sweeps, "", "position-correction iterations per step (StepStats::pos_iterations)", ""},
      {vel_sweeps, "", "velocity-correction iterations per step (StepStats::vel_iterations)", ""},
      {joint_corrections_per_s, "1/s",
       "joint visits of the correction sweeps per second of step time: (pos_sweeps + vel_sweeps) x joints / step time", ""},
      {internal_steps, "", "internal steps (accepted and rejected) of an adaptive method per step", ""},
      {rows, "", "constraint rows nC of the model (the order of the step's system A = J M^-1 J^T)", "a paper file's [[table]] key"},
      {nnz_a, "", "the most nonzeros of the lower triangle of A, diagonal included, over the steps (StatsSummary::nnz_a_max)", ""},
      {nnz_l, "", "the most nonzeros of A's factor L over the steps (StatsSummary::nnz_l_max)", ""},
      {joints, "", "the model's joints: the size the complexity fit is over",
       "a tree's size option (tree:joints=J) and a column of the timing tables"},
      {bodies, "", "scene loading: the bodies of the scene (bench/scene_bench.cpp)", "a record's model size and words of messages"},
      {file_MiB, "MiB", "scene loading: the size of the scene file", ""},
      {peak_MiB, "MiB", "scene loading: the process's peak resident set (VmHWM) after loading", ""},
  };
  return c;
}

const CounterInfo* counter_info(const std::string& name) {
  for (const auto& c : counter_catalog())
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace mb
