// `sle` (bender2007 s.3, "SLE"): the impulse step with all joint impulses at once from
// A x = dv, A = J M^-1 J^T factored once per step (dense LDL^T from Eigen, or CHOLMOD with AMD).
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/impulse/methods.hpp"

namespace mb {

MethodInfo SleMethod::describe() {
  MethodInfo i = impulse_method_info();
  i.name = "sle";
  i.description = "impulse-based: all joint impulses at once from A x = dv, A factored once per step";
  i.source = "bender2007 s.3";
  i.options.push_back(OptionInfo::choice("solver", "dense", "dense (Eigen LDL^T) or cholmod (sparse Cholesky, AMD ordering)",
                                         {"dense", "cholmod"}));
  i.paper_name = "SLE";
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
