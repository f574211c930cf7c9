// `iterative` (schmitt2003; bender2007 s.3, "iter."): the impulse step with joint-by-joint
// Gauss-Seidel position and velocity correction. Claimed order 2 (schmitt2005 s.2: O(h^3) local).
#include "methods/impulse/methods.hpp"

namespace mb {

MethodInfo IterativeMethod::describe() {
  MethodInfo i = impulse_method_info();
  i.name = "iterative";
  i.description = "impulse-based: look-ahead position correction and velocity correction joint by joint (Gauss-Seidel)";
  i.source = "schmitt2003; bender2007 s.3";
  i.paper_name = "iter.";
  i.timing_max_joints = 1023;
  i.supports |= kRolling | kCoupledJoints;  // the wheels' and couplings' rows after the joints' (with_extra_rows)
  i.options.push_back(rolling_slip_option());
  return i;
}

std::unique_ptr<Method> IterativeMethod::make(const MethodOptions& s) {
  ImpulseOptions o = parse_impulse_options(s);
  o.rolling_slip_in_position = parse_rolling_slip(s);
  return std::make_unique<ImpulseMethod>(describe(), o, make_joint_corrector());
}

}  // namespace mb
