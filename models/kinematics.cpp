#include "models/kinematics.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Eigenvalues>

namespace mb {

bool is_spd(const Mat3& m) {
  if (!m.allFinite()) return false;
  if ((m - m.transpose()).cwiseAbs().maxCoeff() > 1e-12 * std::max(1.0, m.cwiseAbs().maxCoeff())) return false;
  Eigen::SelfAdjointEigenSolver<Mat3> es(m, Eigen::EigenvaluesOnly);
  return es.eigenvalues().minCoeff() > 0;
}

bool is_semidefinite(const Mat3& m) {
  if (!m.allFinite()) return false;
  if ((m - m.transpose()).cwiseAbs().maxCoeff() > 1e-12 * std::max(1.0, m.cwiseAbs().maxCoeff())) return false;
  const Vec3 e = Eigen::SelfAdjointEigenSolver<Mat3>(m, Eigen::EigenvaluesOnly).eigenvalues();
  return e.minCoeff() >= -1e-12 * e.cwiseAbs().maxCoeff();
}

Mat3 world_inertia(const Body& b, const BodyState& s) {
  Mat3 R = s.q.toRotationMatrix();
  return R * b.inertia * R.transpose();
}

namespace {
// all three components +0.0 (not -0.0)
bool is_positive_zero(const Vec3& v) {
  return !std::signbit(v.x()) && !std::signbit(v.y()) && !std::signbit(v.z()) && v.x() == 0 && v.y() == 0 && v.z() == 0;
}
}  // namespace

Vec3 world_point(const Model&, const State& s, int body, const Vec3& local) {
  if (body == kWorld) return local;
  const BodyState& bs = s.bodies[body];
  // a point at the centre of mass (every particle's): q * (+0, +0, +0) is (+0, +0, +0) for every
  // q, so x + 0 gives the bits of the rotation without it
  if (is_positive_zero(local)) return bs.x + Vec3::Zero();
  return bs.x + bs.q * local;
}

Vec3 world_point_velocity(const Model&, const State& s, int body, const Vec3& local) {
  if (body == kWorld) return Vec3::Zero();
  const BodyState& bs = s.bodies[body];
  return bs.v + bs.w.cross(bs.q * local);
}

double kinetic_energy(const Model& m, const State& s) {
  double e = 0;
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    if (b.is_static) continue;
    const BodyState& bs = s.bodies[i];
    e += 0.5 * b.mass * bs.v.squaredNorm();
    if (!b.particle) e += 0.5 * bs.w.dot(world_inertia(b, bs) * bs.w);
  }
  return e;
}

double potential_energy(const Model& m, const State& s) {
  double e = 0;
  for (size_t i = 0; i < m.bodies.size(); ++i)
    if (!m.bodies[i].is_static) e -= m.bodies[i].mass * m.gravity.dot(s.bodies[i].x);
  return e + spring_energy(m, s);
}

Vec3 linear_momentum(const Model& m, const State& s) {
  Vec3 p = Vec3::Zero();
  for (size_t i = 0; i < m.bodies.size(); ++i)
    if (!m.bodies[i].is_static) p += m.bodies[i].mass * s.bodies[i].v;
  return p;
}

Vec3 angular_momentum(const Model& m, const State& s) {
  Vec3 L = Vec3::Zero();
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const Body& b = m.bodies[i];
    if (b.is_static) continue;
    const BodyState& bs = s.bodies[i];
    L += b.mass * bs.x.cross(bs.v);
    if (!b.particle) L += world_inertia(b, bs) * bs.w;
  }
  return L;
}

namespace {
Quat body_q(const State& s, int body) { return body == kWorld ? Quat::Identity() : s.bodies[body].q; }
Vec3 body_w(const State& s, int body) { return body == kWorld ? Vec3::Zero() : s.bodies[body].w; }
}  // namespace

Eigen::Matrix<double, 2, 3> orthogonal_basis(const Vec3& n) {
  const Vec3 t = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : (std::abs(n.y()) < 0.6 ? Vec3::UnitY() : Vec3::UnitZ());
  const Vec3 e1 = (t - t.dot(n) * n).normalized(), e2 = n.cross(e1);
  Eigen::Matrix<double, 2, 3> P;
  P.row(0) = e1.transpose();
  P.row(1) = e2.transpose();
  return P;
}

Vec3 rotation_vector(Quat q) {
  if (q.w() < 0) q.coeffs() = -q.coeffs();
  const Vec3 v = q.vec();
  const double sn = v.norm();
  if (sn < 1e-12) return 2 * v;
  return 2 * std::atan2(sn, q.w()) / sn * v;
}

Vec3 joint_separation(const Model& m, const State& s, const Joint& j) {
  return world_point(m, s, j.a, j.anchor_a) - world_point(m, s, j.b, j.anchor_b);
}

Vec3 joint_axis_world(const State& s, const Joint& j) { return body_q(s, j.a) * j.axis_a.normalized(); }

Vec3 joint_rotation_error(const State& s, const Joint& j) {
  if (joint_parts(j.type).rot == RotPart::Perpendicular) {
    const Vec3 ua = body_q(s, j.a) * j.axis_a.normalized(), ub = body_q(s, j.b) * j.axis_b.normalized();
    const Vec3 n = ua.cross(ub);
    const double sn = n.norm();
    return ua.dot(ub) * (sn > 0 ? Vec3(n / sn) : Vec3(orthogonal_basis(ua).row(0).transpose()));
  }
  if (joint_parts(j.type).rot == RotPart::Axis) {
    const Vec3 ua = body_q(s, j.a) * j.axis_a.normalized(), ub = body_q(s, j.b) * j.axis_b.normalized();
    return ub.cross(ua);
  }
  Quat r = (body_q(s, j.a) * j.rel_orientation) * body_q(s, j.b).conjugate();
  if (joint_parts(j.type).rot == RotPart::Twist) {
    // swing-twist decomposition of r about a's axis n: the twist angle, as a vector along n
    if (r.w() < 0) r.coeffs() = -r.coeffs();
    const Vec3 n = joint_axis_world(s, j);
    return 2 * std::atan2(r.vec().dot(n), r.w()) * n;
  }
  return rotation_vector(r);
}

JointError joint_error(const Model& m, const State& s, const Joint& j) {
  JointError e;
  const JointParts parts = joint_parts(j.type);
  const Vec3 d = joint_separation(m, s, j);
  const Vec3 dv = world_point_velocity(m, s, j.a, j.anchor_a) - world_point_velocity(m, s, j.b, j.anchor_b);
  const Vec3 n = joint_axis_world(s, j);
  // the line's and the plane's directions turn with body a: the rate of their constraint P d is
  // P (dv - w_a x d), not P dv (which would count a slide along the axis of a turning body)
  const Vec3 dv_a = dv - body_w(s, j.a).cross(d);
  // translational part
  switch (parts.trans) {
    case TransPart::None: break;
    case TransPart::Rod: {
      const double len = d.norm();
      e.pos = std::abs(len - j.length);
      e.vel = len > 0 ? std::abs(d.dot(dv)) / len : dv.norm();
      break;
    }
    case TransPart::Point: e.pos = d.norm(), e.vel = dv.norm(); break;
    case TransPart::Line: {
      const auto P = orthogonal_basis(n);
      e.pos = (P * d).norm(), e.vel = (P * dv_a).norm();
      break;
    }
    case TransPart::Plane: e.pos = std::abs(n.dot(d)), e.vel = std::abs(n.dot(dv_a)); break;
  }
  // rotational part
  const Vec3 dw = body_w(s, j.a) - body_w(s, j.b);
  switch (parts.rot) {
    case RotPart::None: break;
    case RotPart::Orientation: e.rot = joint_rotation_error(s, j).norm(), e.rot_vel = dw.norm(); break;
    case RotPart::Axis: {
      const Vec3 ua = n, ub = body_q(s, j.b) * j.axis_b.normalized();
      e.rot = std::atan2(ua.cross(ub).norm(), ua.dot(ub));
      e.rot_vel = (dw - dw.dot(ua) * ua).norm();
      break;
    }
    case RotPart::Twist: e.rot = joint_rotation_error(s, j).norm(), e.rot_vel = std::abs(n.dot(dw)); break;
    case RotPart::Perpendicular: {
      // the angle between the axes differs from 90 degrees by asin(u_a . u_b); the forbidden
      // relative rotation is about u_a x u_b
      const Vec3 ub = body_q(s, j.b) * j.axis_b.normalized(), c = n.cross(ub);
      e.rot = std::abs(std::asin(std::clamp(n.dot(ub), -1.0, 1.0)));
      e.rot_vel = c.norm() > 0 ? std::abs(c.normalized().dot(dw)) : dw.norm();
      break;
    }
  }
  return e;
}

JointError max_joint_error(const Model& m, const State& s) {
  JointError mx;
  for (const Joint& j : m.joints) {
    JointError e = joint_error(m, s, j);
    mx.pos = std::max(mx.pos, e.pos);
    mx.vel = std::max(mx.vel, e.vel);
    mx.rot = std::max(mx.rot, e.rot);
    mx.rot_vel = std::max(mx.rot_vel, e.rot_vel);
  }
  return mx;
}

bool state_is_finite(const State& s) {
  if (!std::isfinite(s.t)) return false;
  for (const auto& b : s.bodies)
    if (!b.x.allFinite() || !b.v.allFinite() || !b.w.allFinite() || !b.q.coeffs().allFinite()) return false;
  return true;
}


double wrap_angle(double x) {
  constexpr double kTwoPi = 2 * M_PI;
  x = std::remainder(x, kTwoPi);  // in [-pi, pi]
  return x <= -M_PI ? x + kTwoPi : x;
}

namespace {
// q_a^-1 q_b (b's orientation in a's frame) of the initial state or of s
Quat relative_orientation(const Model& m, const State* s, const Joint& j) {
  auto q = [&](int k) { return k < 0 ? Quat::Identity() : s ? s->bodies[static_cast<size_t>(k)].q : m.bodies[static_cast<size_t>(k)].orientation; };
  return q(j.a).conjugate() * q(j.b);
}
// the slider's (p_b - p_a) . u at the initial state
double initial_slide(const Model& m, const Joint& j) {
  auto point = [&](int k, const Vec3& r) {
    return k < 0 ? r : Vec3(m.bodies[static_cast<size_t>(k)].position + m.bodies[static_cast<size_t>(k)].orientation * r);
  };
  const Quat qa = j.a < 0 ? Quat::Identity() : m.bodies[static_cast<size_t>(j.a)].orientation;
  return (point(j.b, j.anchor_b) - point(j.a, j.anchor_a)).dot(qa * j.axis_a.normalized());
}
}  // namespace

MotorFrame motor_frame(const Model& m, const Motor& motor) {
  const Joint& j = m.joints[static_cast<size_t>(motor.joint)];
  MotorFrame f;
  if (j.type == JointType::Slider) {
    f.initial_slide = initial_slide(m, j);
  } else {
    f.rest_inverse = relative_orientation(m, nullptr, j).conjugate();
    f.axis = j.axis_a.normalized();
  }
  return f;
}

double motor_coordinate(const Model& m, const State& s, const Motor& motor, const MotorFrame& frame) {
  const Joint& j = m.joints[static_cast<size_t>(motor.joint)];
  if (j.type == JointType::Slider) return -joint_separation(m, s, j).dot(joint_axis_world(s, j)) - frame.initial_slide;
  // the rotation taking b's initial orientation relative to a to its present one, in a's frame:
  // about axis_a by q on an exact hinge (its twist about axis_a otherwise)
  const Quat d = relative_orientation(m, &s, j) * frame.rest_inverse;
  return wrap_angle(2 * std::atan2(d.vec().dot(frame.axis), d.w()));
}

double motor_coordinate(const Model& m, const State& s, const Motor& motor) {
  return motor_coordinate(m, s, motor, motor_frame(m, motor));
}

double motor_rate(const Model& m, const State& s, const Motor& motor) {
  const Joint& j = m.joints[static_cast<size_t>(motor.joint)];
  const Vec3 u = joint_axis_world(s, j);
  if (j.type != JointType::Slider) return u.dot(body_w(s, j.b) - body_w(s, j.a));
  const Vec3 d = joint_separation(m, s, j);  // p_a - p_b
  const Vec3 dv = world_point_velocity(m, s, j.a, j.anchor_a) - world_point_velocity(m, s, j.b, j.anchor_b);
  return -(dv.dot(u) + d.dot(body_w(s, j.a).cross(u)));
}

namespace {
Motor motor_of(int joint) {
  Motor mo;
  mo.joint = joint;
  return mo;
}
}  // namespace

double coupling_error(const Model& m, const State& s, const JointCoupling& c) {
  return motor_coordinate(m, s, motor_of(c.a)) - c.multiplier * motor_coordinate(m, s, motor_of(c.b)) - c.offset;
}

double coupling_rate(const Model& m, const State& s, const JointCoupling& c) {
  return motor_rate(m, s, motor_of(c.a)) - c.multiplier * motor_rate(m, s, motor_of(c.b));
}

RollingContact rolling_contact(const Rolling& r, const BodyState& b) {
  // u the world axle, mu = u . n, d = (mu u - n) / s with s = |u x n| = sqrt(1 - mu^2); with
  // u' = w x u: mu' = u' . n, s' = -mu mu' / s, d' = (mu' u + mu u') / s + d mu mu' / s^2
  const Vec3& n = r.normal;
  const Vec3 u = (b.q * r.axle).normalized();
  const double mu = u.dot(n);
  const double s = u.cross(n).norm();
  const Vec3 d = (mu * u - n) / s;
  const Vec3 ud = b.w.cross(u);
  const double mud = ud.dot(n);
  RollingContact c;
  c.lever = r.radius * d;
  c.lever_rate = r.radius * ((mud * u + mu * ud) / s + d * (mu * mud / (s * s)));
  c.height = n.dot(b.x + c.lever - r.point);
  c.slip = b.v + b.w.cross(c.lever);
  return c;
}

double lowest_shape_point(const Model& m, const State& s) {
  double z = INFINITY;
  for (const Shape& sh : m.shapes) {
    const BodyState b = sh.body == kWorld ? BodyState{} : s.bodies[static_cast<size_t>(sh.body)];
    const Vec3 p = b.x + b.q * sh.position;
    const Mat3 R = (b.q * sh.orientation).toRotationMatrix();
    const double c = std::abs(R(2, 2));  // the shape's z axis against the vertical
    double reach = 0;                      // how far the shape reaches below its centre
    switch (sh.type) {
      case ShapeType::Sphere: reach = sh.radius; break;
      case ShapeType::Box: reach = std::abs(R(2, 0)) * sh.half_extents.x() + std::abs(R(2, 1)) * sh.half_extents.y() + c * sh.half_extents.z(); break;
      case ShapeType::Cylinder: reach = c * sh.length / 2 + sh.radius * std::sqrt(std::max(0.0, 1 - c * c)); break;
      case ShapeType::Capsule: reach = c * sh.length / 2 + sh.radius; break;
      case ShapeType::Convex:
        reach = -INFINITY;
        for (const Vec3& v : sh.vertices) reach = std::max(reach, -(R * v).z());
        break;
      default: break;
    }
    z = std::min(z, p.z() - reach);
  }
  return z;
}

}  // namespace mb
