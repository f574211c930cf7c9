// `sle` (bender2007 s.3, "SLE"): the impulse step with all joint impulses at once from
// A x = dv, A = J M^-1 J^T factored once per step (dense LDL^T from Eigen, or CHOLMOD with AMD).
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/impulse/methods.hpp"

namespace mb {

MethodInfo SleMethod::describe() {
  MethodInfo i;
  i.name = "sle";
  i.description = "impulse-based: all joint impulses at once from A x = dv, A factored once per step";
  i.source = "bender2007 s.3";
  i.options = impulse_options_info();
  i.options.push_back(OptionInfo::choice("solver", "dense", "dense (Eigen LDL^T) or cholmod (sparse Cholesky, AMD ordering)",
                                         {"dense", "cholmod"}));
  i.family = "impulse";
  i.paper_name = "SLE";
  // O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 the order is lost once
  // the error nears the tolerance, so the declaration holds with tight ones
  i.orders = {{"position", "pendulum90", 2, 0.0025, 0.04, 1, "tol_p=1e-12,tol_v=1e-12",
               "O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 only while the error is above about 1e-5"}};
  i.supports = kParticles | kRigidBodies | kTrees | kLoops | kAppliedTorques;
  i.timing_table = true;
  i.timing_max_joints = 1023;  // the dense solver; solver=cholmod scales to 16383
  return i;
}

std::unique_ptr<Method> SleMethod::make(const Spec& s) {
  const std::string solver = s.get_string("solver", "dense");
  if (solver != "dense" && solver != "cholmod")
    s.fail(fmt::format("sle: solver must be dense or cholmod, got '{}'", solver));
  return std::make_unique<ImpulseMethod>(describe(), parse_impulse_options(s),
                                         make_group_corrector({}, solver == "dense" ? make_dense_solver : make_cholmod_solver));
}

}  // namespace mb
