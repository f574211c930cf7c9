// Free (unconstrained) motion of rigid bodies and particles over one step, bender2007 eqs (1)-(4):
// with the external force F and torque tau constant over the step,
//   v(t+h) = v + F/m h,   c(t+h) = c + v h + F/(2m) h^2                         (exact)
//   w' = J^-1 (tau - w x J w),   q' = 1/2 [0, w] q = 1/2 q [0, w_b]          (one classic RK4 step)
// The rotation is integrated in body coordinates (w_b = R^T w, J constant, tau_b = R(q)^T tau at
// each stage) by Boost.Odeint's runge_kutta4_classic (weights h/6 and h/3, no zero terms of the
// tableau added), and the quaternion is renormalised afterwards.
// Particles have translation only.
#pragma once
#include <vector>

#include "models/model.hpp"

namespace mb {

// Constant loads over the step [t, t+h]: gravity m g and the model's applied torques averaged
// over the step (a torque that ends inside the step acts for its share), and the actuators'
// controls at the step's start, held over the step. The springs', dampers' and actuators' forces
// depend on the state: loads_at adds them (the impulse methods take them at the start of the free
// motion).
struct StepLoads {
  std::vector<Vec3> force, torque;  // (nbody) world frame
  std::vector<double> ctrl;         // (nactuators) models/actuators.hpp controls_at
};
void step_loads(const Model& model, double t, double h, StepLoads& loads);
// The loads at `state`: `step` (step_loads) plus the forces of the model's springs and joint
// dampers (add_spring_loads) and of its actuators (add_actuator_loads, with step.ctrl) at `state`:
// state-dependent, so the multiplier methods evaluate them at every stage.
void loads_at(const Model& model, const State& state, const StepLoads& step, StepLoads& out);

void free_motion_body(const Body& body, const Vec3& force, const Vec3& torque, double h, const BodyState& in,
                      BodyState& out);
// the same with the inverse of the body-frame inertia given (body.inertia.inverse(), which the
// first form computes at every call; ConstraintSystem::inertia_inverse keeps it)
void free_motion_body(const Body& body, const Mat3& inertia_inverse, const Vec3& force, const Vec3& torque, double h,
                      const BodyState& in, BodyState& out);

// out.bodies[k] = free motion of `in`'s body k over h, for each k in `bodies` (dynamic bodies),
// the inverse body-frame inertias from `inertia_inverse` (indexed by body; nullptr: computed).
// Rigid bodies are moved two at a time (pairs of one kind: diagonal inertia or full), one per lane
// of an SSE2 packet (the same operations on each lane: each body gets the bits it gets alone from
// free_motion_body).
void free_motion_bodies(const Model& model, const StepLoads& loads, const std::vector<Mat3>* inertia_inverse,
                        const std::vector<int>& bodies, double h, const State& in, State& out);

// out = free motion of every dynamic body of `in` over h (static bodies are copied).
void free_motion(const Model& model, const StepLoads& loads, double h, const State& in, State& out);

// The free motion of single rigid bodies, remembered: a body whose state, force, torque and step
// are bitwise those of its last prediction gets that prediction back (the same bits without the
// RK4). The Gauss-Seidel correctors predict each body once per joint and sweep, and most of a
// sweep's joints are within tolerance and change no body. Particles are predicted every time
// (their free motion costs less than the comparison).
class RememberedFreeMotion {
 public:
  // forgets every prediction; bodies 0..nbody-1 may be predicted (no allocation in predict)
  void reset(size_t nbody) { key_.assign(nbody, Key{}); }
  // out = free motion of body k. Only predict writes out (it is remembered by its address with
  // the inputs): a caller that writes it otherwise calls reset.
  void predict(const Body& body, int k, const Vec3& force, const Vec3& torque, double h, const BodyState& in,
               BodyState& out);

 private:
  struct Key {
    BodyState in;
    Vec3 force = Vec3::Zero(), torque = Vec3::Zero();
    double h = 0;
    const BodyState* out = nullptr;  // nullptr: nothing remembered
  };
  std::vector<Key> key_;
};

}  // namespace mb
