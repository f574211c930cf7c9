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

Mat3 world_inertia(const Body& b, const BodyState& s) {
  Mat3 R = s.q.toRotationMatrix();
  return R * b.inertia * R.transpose();
}

Vec3 world_point(const Model&, const State& s, int body, const Vec3& local) {
  if (body == kWorld) return local;
  const BodyState& bs = s.bodies[body];
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
  return e;
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

JointError joint_error(const Model& m, const State& s, const Joint& j) {
  JointError e;
  Vec3 pa = world_point(m, s, j.a, j.anchor_a), pb = world_point(m, s, j.b, j.anchor_b);
  Vec3 va = world_point_velocity(m, s, j.a, j.anchor_a), vb = world_point_velocity(m, s, j.b, j.anchor_b);
  Vec3 d = pa - pb, dv = va - vb;
  switch (j.type) {
    case JointType::Distance: {
      double len = d.norm();
      e.pos = std::abs(len - j.length);
      e.vel = len > 0 ? std::abs(d.dot(dv)) / len : dv.norm();
      return e;
    }
    case JointType::Ball:
      e.pos = d.norm();
      e.vel = dv.norm();
      return e;
    case JointType::Hinge: {
      e.pos = d.norm();
      e.vel = dv.norm();
      Vec3 ua = body_q(s, j.a) * j.axis_a.normalized(), ub = body_q(s, j.b) * j.axis_b.normalized();
      e.rot = std::atan2(ua.cross(ub).norm(), ua.dot(ub));
      Vec3 dw = body_w(s, j.a) - body_w(s, j.b);
      e.rot_vel = (dw - dw.dot(ua) * ua).norm();
      return e;
    }
    case JointType::Fixed: {
      e.pos = d.norm();
      e.vel = dv.norm();
      Quat rel = body_q(s, j.a).conjugate() * body_q(s, j.b);
      e.rot = rel.angularDistance(j.rel_orientation);
      e.rot_vel = (body_w(s, j.a) - body_w(s, j.b)).norm();
      return e;
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

}  // namespace mb
