// `sle` (bender2007 s.3, "SLE"): the impulse step with all joint impulses at once from
// A x = dv, A = J M^-1 J^T factored once per step (by blocks in a fill-reducing order where the
// joints form a tree, dense LDL^T from Eigen, or CHOLMOD with AMD). Redundant constraints (loops)
// make A semi-definite: the dense LDL^T solves it on A's range (methods/solvers/linear_solver.hpp),
// and the velocity floor ends a correction whose redundant rows disagree at the joint errors' order.
#include "methods/impulse/methods.hpp"

namespace mb {

MethodInfo SleMethod::describe() {
  MethodInfo i = impulse_method_info();
  i.name = "sle";
  i.description = "impulse-based: all joint impulses at once from A x = dv, A factored once per step";
  i.source = "bender2007 s.3";
  i.options.push_back(OptionInfo::choice("solver", "block",
                                         "block (Cholesky by joint blocks, leaves first; dense LDL^T where joints close a loop), "
                                         "dense (Eigen LDL^T; redundant rows' null pivots count as zero) or cholmod (sparse "
                                         "Cholesky, AMD ordering; A definite: no redundant rows)",
                                         {"block", "dense", "cholmod"}));
  i.options.push_back(velocity_floor_option());
  i.options.push_back(rolling_slip_option());
  i.paper_name = "SLE";
  i.timing_max_joints = 1023;  // the dense solver (a loop's); solver=cholmod scales to 16383
  i.gate_time_joints = {63, 255};
  i.supports |= kRedundant | kRolling | kCoupledJoints;  // the wheels' and couplings' rows after A's (with_extra_rows)
  return i;
}

std::unique_ptr<Method> SleMethod::make(const MethodOptions& s) {
  const std::string& solver = s.choice("solver");
  ImpulseOptions o = parse_impulse_options(s);
  o.velocity_floor = parse_velocity_floor(s);
  o.rolling_slip_in_position = parse_rolling_slip(s);
  return std::make_unique<ImpulseMethod>(describe(), o,
                                         make_group_corrector({}, solver == "block"   ? make_block_solver
                                                                     : solver == "dense" ? make_dense_solver
                                                                                         : make_cholmod_solver,
                                                                    MotorRows::Unbounded, WheelRows::None));
}

}  // namespace mb
