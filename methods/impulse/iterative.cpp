// `iterative` (schmitt2003; bender2007 s.3, "iter."): the impulse step with joint-by-joint
// Gauss-Seidel position and velocity correction. Claimed order 2 (schmitt2005 s.2: O(h^3) local).
#include "methods/impulse/methods.hpp"

namespace mb {

MethodInfo IterativeMethod::describe() {
  MethodInfo i;
  i.name = "iterative";
  i.description = "impulse-based: look-ahead position correction and velocity correction joint by joint (Gauss-Seidel)";
  i.source = "schmitt2003; bender2007 s.3";
  i.options = impulse_options_info();
  i.family = "impulse";
  i.paper_name = "iter.";
  // O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 the order is lost once
  // the error nears the tolerance, so the declaration holds with tight ones
  i.orders = {{"position", "pendulum90", 2, 0.0025, 0.04, 1, "tol_p=1e-12,tol_v=1e-12",
               "O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 only while the error is above about 1e-5"}};
  i.supports = kParticles | kRigidBodies | kTrees | kLoops | kAppliedTorques;
  i.timing_table = true;
  i.timing_max_joints = 1023;
  return i;
}

std::unique_ptr<Method> IterativeMethod::make(const Spec& s) {
  return std::make_unique<ImpulseMethod>(describe(), parse_impulse_options(s), make_joint_corrector());
}

}  // namespace mb
