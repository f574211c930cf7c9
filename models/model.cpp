#include "models/model.hpp"

#include <algorithm>
#include <cmath>
#include <unordered_set>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {
struct JointTypeRow {
  JointType type;
  const char* name;
  JointParts parts;
};
const JointTypeRow kJointTypes[] = {
    {JointType::Distance, "distance", {TransPart::Rod, RotPart::None}},
    {JointType::Ball, "ball", {TransPart::Point, RotPart::None}},
    {JointType::Hinge, "hinge", {TransPart::Point, RotPart::Axis}},
    {JointType::Fixed, "fixed", {TransPart::Point, RotPart::Orientation}},
    {JointType::Slider, "slider", {TransPart::Line, RotPart::Orientation}},
    {JointType::PointOnLine, "point_on_line", {TransPart::Line, RotPart::None}},
    {JointType::PointOnPlane, "point_on_plane", {TransPart::Plane, RotPart::None}},
    {JointType::Orientation, "orientation", {TransPart::None, RotPart::Orientation}},
    {JointType::Axis, "axis", {TransPart::None, RotPart::Axis}},
    {JointType::Twist, "twist", {TransPart::None, RotPart::Twist}},
    {JointType::Cardan, "cardan", {TransPart::Point, RotPart::Perpendicular}},
};
const JointTypeRow& row_of(JointType t) {
  for (const auto& r : kJointTypes)
    if (r.type == t) return r;
  return kJointTypes[0];
}
}  // namespace

JointParts joint_parts(JointType t) { return row_of(t).parts; }
const char* joint_type_name(JointType t) { return row_of(t).name; }
bool joint_type_from_name(const std::string& name, JointType& t) {
  for (const auto& r : kJointTypes)
    if (name == r.name) {
      t = r.type;
      return true;
    }
  return false;
}
const std::vector<JointType>& all_joint_types() {
  static const std::vector<JointType> v = [] {
    std::vector<JointType> out;
    for (const auto& r : kJointTypes) out.push_back(r.type);
    return out;
  }();
  return v;
}
int trans_rows(TransPart p) {
  switch (p) {
    case TransPart::None: return 0;
    case TransPart::Rod: return 1;
    case TransPart::Point: return 3;
    case TransPart::Line: return 2;
    case TransPart::Plane: return 1;
  }
  return 0;
}
int rot_rows(RotPart p) {
  switch (p) {
    case RotPart::None: return 0;
    case RotPart::Orientation: return 3;
    case RotPart::Axis: return 2;
    case RotPart::Twist: return 1;
    case RotPart::Perpendicular: return 1;
  }
  return 0;
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
  std::unordered_set<std::string> names;
  names.reserve(m.bodies.size());
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    std::string f = fmt::format("body[{}] '{}'", i, b.name);
    if (b.name.empty()) throw InputError(src, 0, fmt::format("body[{}].name", i), "empty body name");
    if (!names.insert(b.name).second) throw InputError(src, 0, f + ".name", "duplicated body name");
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
    const JointParts parts = joint_parts(J.type);
    const bool two_axes = parts.rot == RotPart::Axis || parts.rot == RotPart::Perpendicular;
    if ((parts.trans == TransPart::Line || parts.trans == TransPart::Plane || two_axes || parts.rot == RotPart::Twist) &&
        !(J.axis_a.norm() > 0))
      throw InputError(src, 0, f + ".axis_a", "axis must be non-zero");
    if (two_axes && !(J.axis_b.norm() > 0)) throw InputError(src, 0, f + ".axis_b", "axis must be non-zero");
    if (J.type == JointType::Distance && !(J.length > 0 && std::isfinite(J.length)))
      throw InputError(src, 0, f + ".length", fmt::format("rod length must be positive, got {}", J.length));
    if (!(J.extensibility >= 0 && std::isfinite(J.extensibility)) || (J.extensibility != 0 && J.type != JointType::Distance))
      throw InputError(src, 0, f + ".extensibility",
                       fmt::format("extensibility must be a finite fraction >= 0 of a distance joint's length, got {}", J.extensibility));
    auto fixed = [&](int k) { return k == kWorld || m.bodies[static_cast<size_t>(k)].is_static; };
    if (fixed(J.a) && fixed(J.b)) throw InputError(src, 0, f, "a joint between two bodies that never move constrains nothing");
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
