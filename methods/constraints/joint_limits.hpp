// The geometry of joint limits (Joint::lower, upper), shared by the methods that hold them: the
// impulse family's limit rows (methods/contacts/contacts.hpp) and the Lagrange family's active
// rows (methods/lagrange/acceleration.hpp). A limited hinge or slider has one side per finite
// bound; a side's gap at a state is sign (q - bound) (lower side +1, upper -1) on the joint's
// coordinate q (models/kinematics.hpp motor_coordinate: a hinge's angle wrapped into (-pi, pi], a
// slider's displacement), so that gap >= 0 is allowed. Its rate gap' = J V is one row on the two
// bodies: a hinge's sign u . (w_b - w_a), a slider's sign times the rate of (p_b - p_a) . u, with
// u = R_a axis_a (joint_axis_world); an impulse lambda >= 0 on the row pushes the joint away from
// its bound.
#pragma once
#include <vector>

#include <Eigen/Core>

#include "models/kinematics.hpp"
#include "models/model.hpp"

namespace mb {

struct LimitSide {
  int joint = 0;
  double bound = 0, sign = 1;  // the lower side: +1, the upper: -1
  Motor coordinate;            // the joint's coordinate (Motor::joint), read by motor_coordinate
  MotorFrame frame;
};
using LimitRow = Eigen::Matrix<double, 1, 6>;

// The sides of the model's limited joints, joint by joint, lower before upper.
std::vector<LimitSide> limit_sides(const Model& model);
// sign (q - bound) at state s
double limit_gap(const Model& model, const LimitSide& side, const State& s);
// The row J of the gap's rate on the joint's bodies a (J[0]) and b (J[1]) at `state`: (v, w)
// columns of a rigid body (a particle's: the v columns); zero for the world.
void limit_jacobian(const Model& model, const State& state, const LimitSide& side, LimitRow (&J)[2]);
// gap' = J V at state s
double limit_rate(const Model& model, const State& s, const LimitSide& side);

}  // namespace mb
