// Free (unconstrained) motion of rigid bodies and particles over one step, bender2007 eqs (1)-(4):
// with the external force F and torque tau constant over the step,
//   v(t+h) = v + F/m h,   c(t+h) = c + v h + F/(2m) h^2                         (exact)
//   w' = J^-1 (tau - w x J w),   q' = 1/2 [0, w] q = 1/2 q [0, w_b]          (one classic RK4 step)
// The rotation is integrated in body coordinates (w_b = R^T w, J constant, tau_b = R(q)^T tau at
// each stage) by Boost.Odeint's runge_kutta4, and the quaternion is renormalised afterwards.
// Particles have translation only.
#pragma once
#include <vector>

#include "models/model.hpp"

namespace mb {

// Constant loads over the step [t, t+h]: gravity m g and the model's applied torques averaged
// over the step (a torque that ends inside the step acts for its share).
struct StepLoads {
  std::vector<Vec3> force, torque;  // (nbody) world frame
};
void step_loads(const Model& model, double t, double h, StepLoads& loads);

void free_motion_body(const Body& body, const Vec3& force, const Vec3& torque, double h, const BodyState& in,
                      BodyState& out);

// out = free motion of every dynamic body of `in` over h (static bodies are copied).
void free_motion(const Model& model, const StepLoads& loads, double h, const State& in, State& out);

}  // namespace mb
