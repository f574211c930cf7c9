#include "models/model.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {

const char* joint_type_name(JointType t) {
  switch (t) {
    case JointType::Distance: return "distance";
    case JointType::Ball: return "ball";
    case JointType::Hinge: return "hinge";
    case JointType::Fixed: return "fixed";
  }
  return "?";
}

int Model::body_index(const std::string& name) const {
  for (size_t i = 0; i < bodies.size(); ++i)
    if (bodies[i].name == name) return static_cast<int>(i);
  return -1;
}

int Model::dynamic_body_count() const {
  int n = 0;
  for (const auto& b : bodies) n += b.is_static ? 0 : 1;
  return n;
}

State initial_state(const Model& model) {
  State s;
  s.t = 0;
  s.bodies.resize(model.bodies.size());
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    const Body& b = model.bodies[i];
    s.bodies[i] = BodyState{b.position, b.orientation, b.velocity, b.angular_velocity};
  }
  return s;
}

std::vector<double> default_h_grid() {
  std::vector<double> g;
  for (int i = 0; i <= 12; ++i) g.push_back(0.00125 * std::pow(2.0, i / 2.0));
  return g;
}

void check_model(const Model& m, const std::string& src) {
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    std::string f = fmt::format("body[{}] '{}'", i, b.name);
    if (b.name.empty()) throw InputError(src, 0, fmt::format("body[{}].name", i), "empty body name");
    if (m.body_index(b.name) != static_cast<int>(i))
      throw InputError(src, 0, f + ".name", "duplicated body name");
    if (!b.is_static && !(b.mass > 0 && std::isfinite(b.mass)))
      throw InputError(src, 0, f + ".mass", fmt::format("mass must be positive and finite, got {}", b.mass));
    if (!b.is_static && !b.particle && !is_spd(b.inertia))
      throw InputError(src, 0, f + ".inertia", "inertia tensor is not symmetric positive definite");
    if (std::abs(b.orientation.norm() - 1) > 1e-12)
      throw InputError(src, 0, f + ".orientation", "orientation is not a unit quaternion");
  }
  for (size_t i = 0; i < m.torques.size(); ++i) {
    const AppliedTorque& a = m.torques[i];
    std::string f = fmt::format("torque[{}]", i);
    if (a.body < 0 || a.body >= static_cast<int>(m.bodies.size())) throw InputError(src, 0, f + ".body", "no such body");
    if (!a.torque.allFinite()) throw InputError(src, 0, f + ".torque", "torque must be finite");
    if (!(a.t_end >= a.t_begin)) throw InputError(src, 0, f + ".t_end", "t_end must not precede t_begin");
  }
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& J = m.joints[j];
    std::string f = fmt::format("joint[{}]", j);
    int n = static_cast<int>(m.bodies.size());
    if (J.a < kWorld || J.a >= n || J.b < kWorld || J.b >= n)
      throw InputError(src, 0, f, "joint names a body that does not exist");
    if (J.a == J.b) throw InputError(src, 0, f, "joint connects a body to itself");
    if (J.type == JointType::Distance && !(J.length > 0 && std::isfinite(J.length)))
      throw InputError(src, 0, f + ".length", fmt::format("rod length must be positive, got {}", J.length));
  }
}

void average_torques(const Model& m, double t, double h, std::vector<Vec3>& tau) {
  tau.assign(m.bodies.size(), Vec3::Zero());
  for (const AppliedTorque& a : m.torques) {
    const double overlap = std::min(t + h, a.t_end) - std::max(t, a.t_begin);
    if (overlap > 0) tau[a.body] += a.torque * (overlap / h);
  }
}

}  // namespace mb
