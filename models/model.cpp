#include "models/model.hpp"

#include <algorithm>
#include <cmath>
#include <utility>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/name_index.hpp"
#include "models/actuators.hpp"
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
    {JointType::Planar, "planar", {TransPart::Plane, RotPart::Axis}},
    {JointType::Cylindrical, "cylindrical", {TransPart::Line, RotPart::Axis}},
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
namespace {
const std::pair<ShapeType, const char*> kShapeTypes[] = {
    {ShapeType::Sphere, "sphere"},   {ShapeType::Box, "box"},           {ShapeType::Capsule, "capsule"},
    {ShapeType::Cylinder, "cylinder"}, {ShapeType::HalfSpace, "half_space"}, {ShapeType::Convex, "convex"}, {ShapeType::Ellipsoid, "ellipsoid"},
};
}  // namespace
const char* shape_type_name(ShapeType t) {
  for (const auto& [type, name] : kShapeTypes)
    if (type == t) return name;
  return "sphere";
}
bool shape_type_from_name(const std::string& name, ShapeType& t) {
  for (const auto& [type, n] : kShapeTypes)
    if (name == n) {
      t = type;
      return true;
    }
  return false;
}

namespace {
const std::pair<TargetKind, const char*> kTargetKinds[] = {
    {TargetKind::Constant, "constant"}, {TargetKind::Ramp, "ramp"}, {TargetKind::Sine, "sine"}, {TargetKind::Table, "table"}};
}  // namespace
const char* target_kind_name(TargetKind k) {
  for (const auto& [kind, name] : kTargetKinds)
    if (kind == k) return name;
  return "constant";
}
bool target_kind_from_name(const std::string& name, TargetKind& k) {
  for (const auto& [kind, n] : kTargetKinds)
    if (name == n) {
      k = kind;
      return true;
    }
  return false;
}

namespace {
// the segment [times[i], times[i + 1]] holding t (times has at least two entries; t inside them)
size_t table_segment(const std::vector<double>& times, double t) {
  const size_t i = static_cast<size_t>(std::upper_bound(times.begin(), times.end(), t) - times.begin());
  return std::min(std::max<size_t>(i, 1), times.size() - 1) - 1;
}
}  // namespace

double MotorTarget::at(double t) const {
  switch (kind) {
    case TargetKind::Constant: return value;
    case TargetKind::Ramp: return value + rate * t;
    case TargetKind::Sine: return value + amplitude * std::sin(2 * M_PI * frequency * t + phase);
    case TargetKind::Table: {
      if (t <= times.front()) return values.front();
      if (t >= times.back()) return values.back();
      const size_t i = table_segment(times, t);
      const double f = (t - times[i]) / (times[i + 1] - times[i]);
      return values[i] + f * (values[i + 1] - values[i]);
    }
  }
  return value;
}

double MotorTarget::rate_at(double t) const {
  switch (kind) {
    case TargetKind::Constant: return 0;
    case TargetKind::Ramp: return rate;
    case TargetKind::Sine: return amplitude * 2 * M_PI * frequency * std::cos(2 * M_PI * frequency * t + phase);
    case TargetKind::Table: {
      if (t < times.front() || t >= times.back()) return 0;
      const size_t i = table_segment(times, t);
      return (values[i + 1] - values[i]) / (times[i + 1] - times[i]);
    }
  }
  return 0;
}

double MotorTarget::accel_at(double t) const {
  if (kind != TargetKind::Sine) return 0;
  const double w = 2 * M_PI * frequency;
  return -amplitude * w * w * std::sin(w * t + phase);
}

Material contact_material(const std::vector<Material>& materials, const std::vector<MaterialPair>& pairs, int a, int b) {
  for (const MaterialPair& p : pairs)
    if ((p.a == a && p.b == b) || (p.a == b && p.b == a)) return {"", p.restitution, p.mu_static, p.mu_dynamic};
  const Material& A = materials[static_cast<size_t>(a)];
  const Material& B = materials[static_cast<size_t>(b)];
  return {"", std::min(A.restitution, B.restitution), std::min(A.mu_static, B.mu_static), std::min(A.mu_dynamic, B.mu_dynamic)};
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

std::string motor_target_problem(const MotorTarget& t) {
  for (double x : {t.value, t.rate, t.amplitude, t.frequency, t.phase})
    if (!std::isfinite(x)) return fmt::format("target numbers must be finite, got {}", x);
  if (t.kind == TargetKind::Sine && !(t.frequency >= 0)) return fmt::format("a sine's frequency must be >= 0 Hz, got {}", t.frequency);
  if (t.kind != TargetKind::Table) return t.times.empty() && t.values.empty() ? "" : "only a table has times and values";
  if (t.times.size() < 2) return fmt::format("a table needs at least two points, got {}", t.times.size());
  if (t.times.size() != t.values.size())
    return fmt::format("a table has as many values as times: {} times, {} values", t.times.size(), t.values.size());
  for (size_t k = 0; k < t.times.size(); ++k) {
    if (!std::isfinite(t.times[k]) || !std::isfinite(t.values[k]))
      return fmt::format("table point {} is not finite (time {}, value {})", k, t.times[k], t.values[k]);
    if (k > 0 && !(t.times[k] > t.times[k - 1]))
      return fmt::format("table times must increase strictly: time {} is {}, after {}", k, t.times[k], t.times[k - 1]);
  }
  return "";
}

namespace {
void check_motor(const Model& m, size_t i, const std::string& src, std::vector<bool>& driven) {
  const Motor& mo = m.motors[i];
  const std::string f = fmt::format("motor[{}] '{}'", i, mo.name);
  if (mo.joint < 0 || mo.joint >= static_cast<int>(m.joints.size())) throw InputError(src, 0, f + ".joint", "no such joint");
  const Joint& j = m.joints[static_cast<size_t>(mo.joint)];
  if (j.type != JointType::Hinge && j.type != JointType::Slider)
    throw InputError(src, 0, f + ".joint",
                     fmt::format("joint '{}' is a {} joint; a motor drives a hinge or a slider", j.name, joint_type_name(j.type)));
  if (driven[static_cast<size_t>(mo.joint)]) throw InputError(src, 0, f + ".joint", fmt::format("joint '{}' has a motor already", j.name));
  driven[static_cast<size_t>(mo.joint)] = true;
  if (!(mo.max_force > 0)) throw InputError(src, 0, f + ".max_force", fmt::format("max_force must be positive, got {}", mo.max_force));
  if (std::string why = motor_target_problem(mo.target); !why.empty()) throw InputError(src, 0, f + ".target", why);
  if (mo.mode == MotorMode::Position && !(std::abs(mo.target.at(0)) <= kMotorStartTolerance))
    throw InputError(src, 0, f + ".target",
                     fmt::format("a position motor's target at t = 0 is {}; it must be 0 (the coordinate is the joint's displacement "
                                 "from the initial state)", mo.target.at(0)));
}
}  // namespace

void check_model(const Model& m, const std::string& src) {
  // the field names of a message are formatted only when there is one
  NameIndex names(m.bodies.size());
  const auto body_name = [&](long k) -> const std::string& { return m.bodies[static_cast<size_t>(k)].name; };
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    const auto f = [&] { return fmt::format("body[{}] '{}'", i, b.name); };
    if (b.name.empty()) throw InputError(src, 0, fmt::format("body[{}].name", i), "empty body name");
    if (names.insert(static_cast<long>(i), body_name) >= 0) throw InputError(src, 0, f() + ".name", "duplicated body name");
    if (b.frame) {
      if (b.is_static || b.particle) throw InputError(src, 0, f() + ".type", "a massless frame is a moving rigid body");
      if (b.mass != 0 || b.inertia != Mat3::Zero()) throw InputError(src, 0, f() + ".mass", "a massless frame has mass 0 and inertia 0");
    } else if (!b.is_static && !(b.mass > 0 && std::isfinite(b.mass))) {
      throw InputError(src, 0, f() + ".mass", fmt::format("mass must be positive and finite, got {}", b.mass));
    }
    if (!b.is_static && !b.particle && !b.frame && !is_spd(b.inertia) && !is_semidefinite(b.inertia))
      throw InputError(src, 0, f() + ".inertia", "inertia tensor is not symmetric positive semi-definite");
    if (!(std::abs(b.orientation.norm() - 1) <= 1e-12))
      throw InputError(src, 0, f() + ".orientation", "orientation is not a unit quaternion");
    if (!b.position.allFinite()) throw InputError(src, 0, f() + ".position", "position must be finite");
    if (!b.velocity.allFinite() || !b.angular_velocity.allFinite()) throw InputError(src, 0, f() + ".velocity", "velocities must be finite");
    if (!b.box.allFinite()) throw InputError(src, 0, f() + ".box", "box must be finite");
  }
  // joint, spring, shape and material names are unique within their kind (a scene names them)
  auto unique_names = [&](const auto& items, const char* kind) {
    NameIndex seen(items.size());
    const auto name_of = [&](long k) -> const std::string& { return items[static_cast<size_t>(k)].name; };
    for (size_t i = 0; i < items.size(); ++i)
      if (seen.insert(static_cast<long>(i), name_of) >= 0)
        throw InputError(src, 0, fmt::format("{}[{}].name", kind, i), fmt::format("duplicated {} name '{}'", kind, items[i].name));
  };
  unique_names(m.joints, "joint");
  unique_names(m.springs, "spring");
  unique_names(m.shapes, "shape");
  unique_names(m.materials, "material");
  unique_names(m.motors, "motor");
  for (size_t i = 0; i < m.loads.size(); ++i) {
    const AppliedLoad& a = m.loads[i];
    std::string f = fmt::format("torque[{}]", i);
    if (a.body < 0 || a.body >= static_cast<int>(m.bodies.size())) throw InputError(src, 0, f + ".body", "no such body");
    if (!a.torque.allFinite()) throw InputError(src, 0, f + ".torque", "torque must be finite");
    if (!a.force.allFinite()) throw InputError(src, 0, f + ".force", "force must be finite");
    if (!std::isfinite(a.t_begin)) throw InputError(src, 0, f + ".t_begin", "t_begin must be finite");
    if (!(a.t_end >= a.t_begin)) throw InputError(src, 0, f + ".t_end", "t_end must not precede t_begin");
  }
  for (size_t i = 0; i < m.info.exact.size(); ++i) {
    const ExactMotion& e = m.info.exact[i];
    const std::string f = fmt::format("exact[{}]", i);
    if (e.body < 0 || e.body >= static_cast<int>(m.bodies.size())) throw InputError(src, 0, f + ".body", "no such body");
    if (!e.acceleration.allFinite()) throw InputError(src, 0, f + ".acceleration", "acceleration must be finite");
  }
  for (size_t i = 0; i < m.springs.size(); ++i) {
    const Spring& sp = m.springs[i];
    std::string f = fmt::format("spring[{}]", i);
    const int n = static_cast<int>(m.bodies.size());
    if (sp.a < kWorld || sp.a >= n || sp.b < kWorld || sp.b >= n)
      throw InputError(src, 0, f, "spring names a body that does not exist");
    if (sp.a == sp.b) throw InputError(src, 0, f, "spring connects a body to itself");
    const std::pair<double, const char*> values[] = {{sp.stiffness, ".stiffness"}, {sp.rest_length, ".rest_length"}, {sp.damping, ".damping"}};
    for (const auto& [v, key] : values)
      if (!(v >= 0 && std::isfinite(v))) throw InputError(src, 0, f + key, fmt::format("must be finite and non-negative, got {}", v));
    if (!sp.anchor_a.allFinite() || !sp.anchor_b.allFinite()) throw InputError(src, 0, f, "anchors must be finite");
  }
  unique_names(m.rolling, "rolling");
  for (size_t i = 0; i < m.rolling.size(); ++i) {
    const Rolling& r = m.rolling[i];
    const std::string f = fmt::format("rolling[{}]", i);
    if (r.body < 0 || r.body >= static_cast<int>(m.bodies.size())) throw InputError(src, 0, f + ".body", "no such body");
    const Body& b = m.bodies[static_cast<size_t>(r.body)];
    if (b.is_static || b.particle || b.frame) throw InputError(src, 0, f + ".body", fmt::format("'{}' is not a moving rigid body", b.name));
    if (!(r.radius > 0 && std::isfinite(r.radius))) throw InputError(src, 0, f + ".radius", fmt::format("radius must be positive, got {}", r.radius));
    if (!(r.axle.norm() > 0) || !r.axle.allFinite()) throw InputError(src, 0, f + ".axle", "axle must be finite and non-zero");
    if (!(std::abs(r.normal.norm() - 1) <= 1e-12)) throw InputError(src, 0, f + ".normal", "normal must be a unit vector");
    if (!r.point.allFinite()) throw InputError(src, 0, f + ".point", "point must be finite");
    if (!((b.orientation * r.axle).normalized().cross(r.normal).norm() > 1e-6))
      throw InputError(src, 0, f + ".axle", "the wheel lies flat on its plane (axle along the normal): no contact point");
  }
  for (size_t j = 0; j < m.joints.size(); ++j) {
    const Joint& J = m.joints[j];
    const auto f = [&] { return fmt::format("joint[{}]", j); };
    int n = static_cast<int>(m.bodies.size());
    if (J.a < kWorld || J.a >= n || J.b < kWorld || J.b >= n)
      throw InputError(src, 0, f(), "joint names a body that does not exist");
    if (J.a == J.b) throw InputError(src, 0, f(), "joint connects a body to itself");
    if (!J.anchor_a.allFinite() || !J.anchor_b.allFinite()) throw InputError(src, 0, f() + ".anchor_a", "anchors must be finite");
    if (!J.axis_a.allFinite() || !J.axis_b.allFinite()) throw InputError(src, 0, f() + ".axis_a", "axes must be finite");
    if (!(std::abs(J.rel_orientation.norm() - 1) <= 1e-12))
      throw InputError(src, 0, f() + ".rel_orientation", "rel_orientation is not a unit quaternion");
    const JointParts parts = joint_parts(J.type);
    const bool two_axes = parts.rot == RotPart::Axis || parts.rot == RotPart::Perpendicular;
    if ((parts.trans == TransPart::Line || parts.trans == TransPart::Plane || two_axes || parts.rot == RotPart::Twist) &&
        !(J.axis_a.norm() > 0))
      throw InputError(src, 0, f() + ".axis_a", "axis must be non-zero");
    if (two_axes && !(J.axis_b.norm() > 0)) throw InputError(src, 0, f() + ".axis_b", "axis must be non-zero");
    if (J.type == JointType::Distance && !(J.length > 0 && std::isfinite(J.length)))
      throw InputError(src, 0, f() + ".length", fmt::format("rod length must be positive, got {}", J.length));
    if (!(J.damping >= 0 && std::isfinite(J.damping)) || (J.damping != 0 && J.type != JointType::Hinge && J.type != JointType::Slider))
      throw InputError(src, 0, f() + ".damping",
                       fmt::format("damping must be finite and >= 0, and only a hinge or a slider has it; got {} on a {} joint", J.damping,
                                   joint_type_name(J.type)));
    if (std::isnan(J.lower) || std::isnan(J.upper) || J.lower > J.upper || J.lower == INFINITY || J.upper == -INFINITY ||
        (J.limited() && J.type != JointType::Hinge && J.type != JointType::Slider))
      throw InputError(src, 0, f() + ".lower",
                       fmt::format("limits need lower <= upper (numbers, or -inf and inf), and only a hinge or a slider has them; got [{}, "
                                   "{}] on a {} joint", J.lower, J.upper, joint_type_name(J.type)));
    if (!(J.extensibility >= 0 && std::isfinite(J.extensibility)) || (J.extensibility != 0 && J.type != JointType::Distance))
      throw InputError(src, 0, f() + ".extensibility",
                       fmt::format("extensibility must be a finite fraction >= 0 of a distance joint's length, got {}", J.extensibility));
    auto fixed = [&](int k) { return k == kWorld || m.bodies[static_cast<size_t>(k)].is_static; };
    if (fixed(J.a) && fixed(J.b)) throw InputError(src, 0, f(), "a joint between two bodies that never move constrains nothing");
  }
  std::vector<bool> driven(m.joints.size(), false);
  for (size_t i = 0; i < m.motors.size(); ++i) check_motor(m, i, src, driven);
  unique_names(m.couplings, "coupling");
  std::vector<bool> follows(m.joints.size(), false);
  for (size_t i = 0; i < m.couplings.size(); ++i) {
    const JointCoupling& c = m.couplings[i];
    const std::string f = fmt::format("coupling[{}] '{}'", i, c.name);
    for (const int k : {c.a, c.b}) {
      const char* key = k == c.a ? ".a" : ".b";
      if (k < 0 || k >= static_cast<int>(m.joints.size())) throw InputError(src, 0, f + key, "no such joint");
      const Joint& j = m.joints[static_cast<size_t>(k)];
      if (j.type != JointType::Hinge && j.type != JointType::Slider)
        throw InputError(src, 0, f + key, fmt::format("joint '{}' is a {} joint; a coupling joins hinges and sliders", j.name, joint_type_name(j.type)));
    }
    if (c.a == c.b) throw InputError(src, 0, f + ".b", "a joint coupled to itself");
    if (follows[static_cast<size_t>(c.a)])
      throw InputError(src, 0, f + ".a", fmt::format("joint '{}' follows another joint already", m.joints[static_cast<size_t>(c.a)].name));
    follows[static_cast<size_t>(c.a)] = true;
    if (!std::isfinite(c.multiplier)) throw InputError(src, 0, f + ".multiplier", fmt::format("multiplier must be finite, got {}", c.multiplier));
    if (!(std::abs(c.offset) <= kCouplingStartTolerance))
      throw InputError(src, 0, f + ".offset",
                       fmt::format("offset {} breaks the coupling at the initial state, where both coordinates are 0; it must be 0", c.offset));
  }
  unique_names(m.actuators, "actuator");
  for (size_t i = 0; i < m.actuators.size(); ++i)
    if (const ActuatorProblem p = actuator_problem(m, i); !p.field.empty())
      throw InputError(src, 0, fmt::format("actuator[{}] '{}'.{}", i, m.actuators[i].name, p.field), p.message);
  check_contact_model(m, src);
}

namespace {
void check_material(const std::string& src, const std::string& f, double restitution, double mu_static, double mu_dynamic) {
  if (!(restitution >= 0 && restitution <= 1))
    throw InputError(src, 0, f + ".restitution", fmt::format("restitution must be in [0, 1], got {}", restitution));
  if (!(mu_static >= 0 && std::isfinite(mu_static)))
    throw InputError(src, 0, f + ".mu_static", fmt::format("friction coefficient must be >= 0 and finite, got {}", mu_static));
  if (!(mu_dynamic >= 0 && mu_dynamic <= mu_static))
    throw InputError(src, 0, f + ".mu_dynamic",
                     fmt::format("dynamic friction coefficient must be in [0, mu_static = {}], got {}", mu_static, mu_dynamic));
}
}  // namespace

void check_contact_model(const Model& m, const std::string& src) {
  if (!m.shapes.empty() && m.materials.empty()) throw InputError(src, 0, "material", "shapes need at least one material");
  const int nmat = static_cast<int>(m.materials.size());
  for (size_t i = 0; i < m.materials.size(); ++i) {
    const Material& x = m.materials[i];
    check_material(src, fmt::format("material[{}]", i), x.restitution, x.mu_static, x.mu_dynamic);
  }
  for (size_t i = 0; i < m.material_pairs.size(); ++i) {
    const MaterialPair& p = m.material_pairs[i];
    const std::string f = fmt::format("material_pair[{}]", i);
    if (p.a < 0 || p.a >= nmat || p.b < 0 || p.b >= nmat) throw InputError(src, 0, f, "names a material that does not exist");
    check_material(src, f, p.restitution, p.mu_static, p.mu_dynamic);
  }
  const int n = static_cast<int>(m.bodies.size());
  auto positive = [](double x) { return x > 0 && std::isfinite(x); };
  for (size_t i = 0; i < m.shapes.size(); ++i) {
    const Shape& sh = m.shapes[i];
    const std::string f = fmt::format("shape[{}] '{}'", i, sh.name);
    if (sh.body < kWorld || sh.body >= n) throw InputError(src, 0, f + ".body", "no such body");
    if (sh.material < 0 || sh.material >= nmat) throw InputError(src, 0, f + ".material", "no such material");
    if (!sh.position.allFinite()) throw InputError(src, 0, f + ".position", "position must be finite");
    if (!(std::abs(sh.orientation.norm() - 1) <= 1e-12)) throw InputError(src, 0, f + ".orientation", "orientation is not a unit quaternion");
    switch (sh.type) {
      case ShapeType::Sphere:
        if (!positive(sh.radius)) throw InputError(src, 0, f + ".radius", fmt::format("radius must be positive, got {}", sh.radius));
        break;
      case ShapeType::Box:
      case ShapeType::Ellipsoid:
        if (!(positive(sh.half_extents.x()) && positive(sh.half_extents.y()) && positive(sh.half_extents.z())))
          throw InputError(src, 0, f + ".half_extents", "half extents must be positive");
        break;
      case ShapeType::Capsule:
      case ShapeType::Cylinder:
        if (!positive(sh.radius)) throw InputError(src, 0, f + ".radius", fmt::format("radius must be positive, got {}", sh.radius));
        if (!positive(sh.length)) throw InputError(src, 0, f + ".length", fmt::format("length must be positive, got {}", sh.length));
        break;
      case ShapeType::HalfSpace:
        if (sh.body != kWorld && !m.bodies[static_cast<size_t>(sh.body)].is_static)
          throw InputError(src, 0, f + ".body", "a half-space belongs to the world or a static body");
        break;
      case ShapeType::Convex: {
        if (sh.vertices.size() < 4) throw InputError(src, 0, f + ".vertices", "a convex shape needs at least 4 vertices");
        for (const Vec3& v : sh.vertices)
          if (!v.allFinite()) throw InputError(src, 0, f + ".vertices", "vertices must be finite");
        if (sh.faces.size() < 4) throw InputError(src, 0, f + ".faces", "a convex shape needs at least 4 faces");
        for (const auto& face : sh.faces)
          for (int k : face)
            if (k < 0 || k >= static_cast<int>(sh.vertices.size())) throw InputError(src, 0, f + ".faces", "a face names a vertex that does not exist");
        break;
      }
    }
  }
}

void average_torques(const Model& m, double t, double h, std::vector<Vec3>& tau) {
  tau.assign(m.bodies.size(), Vec3::Zero());
  for (const AppliedLoad& a : m.loads) {
    const double overlap = std::min(t + h, a.t_end) - std::max(t, a.t_begin);
    if (overlap > 0) tau[a.body] += a.torque * (overlap / h);
  }
}

void add_average_forces(const Model& m, double t, double h, std::vector<Vec3>& force) {
  for (const AppliedLoad& a : m.loads) {
    if (a.force == Vec3::Zero()) continue;
    const double overlap = std::min(t + h, a.t_end) - std::max(t, a.t_begin);
    if (overlap > 0) force[a.body] += a.force * (overlap / h);
  }
}

bool has_applied_forces(const Model& m) {
  for (const AppliedLoad& a : m.loads)
    if (a.force != Vec3::Zero()) return true;
  return false;
}

namespace {
// the spring's points, their velocities and the force f on a (see Spring)
struct SpringState {
  Vec3 pa, pb;
  Vec3 f;  // on a; -f on b
  double stretch;
};
SpringState spring_state(const Model& m, const State& s, const Spring& sp) {
  SpringState r;
  r.pa = world_point(m, s, sp.a, sp.anchor_a);
  r.pb = world_point(m, s, sp.b, sp.anchor_b);
  const Vec3 d = r.pb - r.pa;
  const double l = d.norm();
  r.stretch = l - sp.rest_length;
  r.f.setZero();
  if (!(l > 0)) return r;  // coincident points: no direction, no force
  const Vec3 u = d / l;
  const double rate = (world_point_velocity(m, s, sp.b, sp.anchor_b) - world_point_velocity(m, s, sp.a, sp.anchor_a)).dot(u);
  r.f = (sp.stiffness * r.stretch + sp.damping * rate) * u;
  return r;
}
}  // namespace

bool has_joint_dampers(const Model& m) {
  for (const Joint& j : m.joints)
    if (j.damping > 0) return true;
  return false;
}

bool has_joint_limits(const Model& m) {
  for (const Joint& j : m.joints)
    if (j.limited()) return true;
  return false;
}

void add_joint_damper_loads(const Model& m, const State& s, std::vector<Vec3>& force, std::vector<Vec3>& torque) {
  auto orientation = [&](int k) { return k == kWorld ? Quat::Identity() : s.bodies[static_cast<size_t>(k)].q; };
  auto angular = [&](int k) { return k == kWorld ? Vec3(Vec3::Zero()) : s.bodies[static_cast<size_t>(k)].w; };
  for (const Joint& j : m.joints) {
    if (!(j.damping > 0)) continue;
    // the joint's axis in the world: fixed in a (the hinge's axis, the slider's line)
    const Vec3 u = (orientation(j.a) * j.axis_a).normalized();
    if (j.type == JointType::Hinge) {
      // torque -d (w_b - w_a).u u on b, the opposite on a: power -d rate^2
      const Vec3 tau = -j.damping * (angular(j.b) - angular(j.a)).dot(u) * u;
      if (j.b != kWorld) torque[static_cast<size_t>(j.b)] += tau;
      if (j.a != kWorld) torque[static_cast<size_t>(j.a)] -= tau;
    } else if (j.type == JointType::Slider) {
      // force -d (v_pb - v_pa).u u on b at its joint point, the opposite on a at its own; the
      // points lie on the slider's line, so the rate is that of the joint coordinate
      const Vec3 pa = world_point(m, s, j.a, j.anchor_a), pb = world_point(m, s, j.b, j.anchor_b);
      const double rate = (world_point_velocity(m, s, j.b, j.anchor_b) - world_point_velocity(m, s, j.a, j.anchor_a)).dot(u);
      const Vec3 f = -j.damping * rate * u;
      if (j.b != kWorld) {
        force[static_cast<size_t>(j.b)] += f;
        torque[static_cast<size_t>(j.b)] += (pb - s.bodies[static_cast<size_t>(j.b)].x).cross(f);
      }
      if (j.a != kWorld) {
        force[static_cast<size_t>(j.a)] -= f;
        torque[static_cast<size_t>(j.a)] -= (pa - s.bodies[static_cast<size_t>(j.a)].x).cross(f);
      }
    }
  }
}

void add_spring_loads(const Model& m, const State& s, std::vector<Vec3>& force, std::vector<Vec3>& torque) {
  add_joint_damper_loads(m, s, force, torque);
  for (const Spring& sp : m.springs) {
    const SpringState st = spring_state(m, s, sp);
    if (sp.a != kWorld) {
      force[sp.a] += st.f;
      torque[sp.a] += (st.pa - s.bodies[sp.a].x).cross(st.f);
    }
    if (sp.b != kWorld) {
      force[sp.b] -= st.f;
      torque[sp.b] -= (st.pb - s.bodies[sp.b].x).cross(st.f);
    }
  }
}

double spring_energy(const Model& m, const State& s) {
  double e = 0;
  for (const Spring& sp : m.springs) {
    const double x = spring_state(m, s, sp).stretch;
    e += 0.5 * sp.stiffness * x * x;
  }
  return e;
}

}  // namespace mb
