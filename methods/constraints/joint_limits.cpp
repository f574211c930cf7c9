#include "methods/constraints/joint_limits.hpp"

#include <cmath>

namespace mb {

std::vector<LimitSide> limit_sides(const Model& model) {
  std::vector<LimitSide> sides;
  for (size_t j = 0; j < model.joints.size(); ++j) {
    const Joint& J = model.joints[j];
    if (!J.limited()) continue;
    LimitSide l;
    l.joint = static_cast<int>(j);
    l.coordinate.joint = l.joint;
    l.frame = motor_frame(model, l.coordinate);
    for (const double bound : {J.lower, J.upper}) {
      if (!std::isfinite(bound)) continue;
      l.bound = bound;
      l.sign = bound == J.lower ? 1.0 : -1.0;
      sides.push_back(l);
    }
  }
  return sides;
}

double limit_gap(const Model& model, const LimitSide& l, const State& s) {
  return l.sign * (motor_coordinate(model, s, l.coordinate, l.frame) - l.bound);
}

void limit_jacobian(const Model& model, const State& state, const LimitSide& l, LimitRow (&J)[2]) {
  const Joint& j = model.joints[static_cast<size_t>(l.joint)];
  const Vec3 u = joint_axis_world(state, j);
  if (j.type == JointType::Slider) {
    // q' = u . (v_b + w_b x r_b - v_a - w_a x (p_b - x_a)): a's lever reaches b's point (u turns with a)
    const Vec3 rb = j.b == kWorld ? Vec3::Zero() : Vec3(state.bodies[static_cast<size_t>(j.b)].q * j.anchor_b);
    const Vec3 pb = world_point(model, state, j.b, j.anchor_b);
    const Vec3 la = j.a == kWorld ? Vec3::Zero() : Vec3(pb - state.bodies[static_cast<size_t>(j.a)].x);
    J[0] << -u.transpose(), -la.cross(u).transpose();
    J[1] << u.transpose(), rb.cross(u).transpose();
  } else {
    J[0] << 0, 0, 0, -u.transpose();  // q' = u . (w_b - w_a)
    J[1] << 0, 0, 0, u.transpose();
  }
  J[0] *= l.sign;
  J[1] *= l.sign;
}

double limit_rate(const Model& model, const State& s, const LimitSide& l) {
  LimitRow J[2];
  limit_jacobian(model, s, l, J);
  const Joint& j = model.joints[static_cast<size_t>(l.joint)];
  double rate = 0;
  for (int side = 0; side < 2; ++side) {
    const int k = side == 0 ? j.a : j.b;
    if (k == kWorld || model.bodies[static_cast<size_t>(k)].is_static) continue;
    const BodyState& b = s.bodies[static_cast<size_t>(k)];
    rate += J[side].head<3>().dot(b.v) + J[side].tail<3>().dot(b.w);
  }
  return rate;
}

}  // namespace mb
