// Actuators and their controls (models/model.hpp: Actuator, ControlSource; docs/robots.md
// "Actuators and controls"): the controls at a time, an actuator's force, the loads the actuators
// put on the bodies, and the model options that add them (ctrl=, actuate=).
#pragma once
#include <string>
#include <vector>

#include "models/model.hpp"

namespace mb {

// The actuators' controls at time t (one per actuator), by the model's control source, each
// clamped to its actuator's ctrlrange.
void controls_at(const Model& model, double t, std::vector<double>& ctrl);
// Times in (t0, t1) where the controls jump: a noise cell's start, a table row's time (sorted). An
// adaptive method ends its internal steps there, so that it integrates the piecewise-constant
// controls exactly.
std::vector<double> control_breaks(const Model& model, double t0, double t1);

// The generalized force of actuator `a` on its joint's coordinate (gear f, models/model.hpp) with
// control `ctrl` (already clamped), the file's coordinate q (offset included) and its rate qd.
double actuator_force(const Actuator& a, double ctrl, double q, double qd);

// The file's coordinate of actuator a's joint at state s (the motor coordinate plus the offset:
// a hinge's angle wrapped into (-pi, pi] before the offset) and its rate.
double actuator_coordinate(const Model& model, const State& s, const Actuator& a);
double actuator_rate(const Model& model, const State& s, const Actuator& a);

// Adds the actuators' loads at state s with controls ctrl to force and torque (nbody each): on a
// hinge the torque gear f about its world axis on b and the opposite on a; on a slider the force
// gear f along its axis on b at its joint point and the opposite on a at its own.
void add_actuator_loads(const Model& model, const State& s, const std::vector<double>& ctrl, std::vector<Vec3>& force,
                        std::vector<Vec3>& torque);

// What is wrong with actuator i (a joint that is not a hinge or slider, a non-finite gain, a
// ctrlrange or forcerange whose low end is above its high end): the field and the message, or an
// empty field.
struct ActuatorProblem {
  std::string field, message;
};
ActuatorProblem actuator_problem(const Model& model, size_t i);

// The model options every model takes (load_model): ctrl= (the control source) and actuate=
// (all:KP,KV: a position servo of stiffness KP and damping KV, gear 1, on every hinge and slider
// that has no actuator). Errors are InputErrors at `source`, `line`, field "model" (the option
// named), or at a control file's own line.
void actuate_all(Model& model, const std::string& value, const std::string& source, int line);
ControlSource parse_control(const std::string& value, const Model& model, const std::string& source, int line);

}  // namespace mb
