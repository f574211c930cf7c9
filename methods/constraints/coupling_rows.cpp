#include "methods/constraints/coupling_rows.hpp"

#include <cmath>

namespace mb {

namespace {
Motor motor_on(int joint) {
  Motor mo;
  mo.joint = joint;
  return mo;
}
bool dynamic(const Model& m, int k) { return k >= 0 && !m.bodies[static_cast<size_t>(k)].is_static; }
}  // namespace

CouplingRows::CouplingRows(const Model& model, const State& state) {
  for (const JointCoupling& c : model.couplings) {
    Row r;
    r.side[0].joint = c.a;
    r.side[1].joint = c.b;
    r.side[1].weight = -c.multiplier;
    r.offset = c.offset;
    for (Side& s : r.side) {
      s.frame = motor_frame(model, motor_on(s.joint));
      s.raw = s.q = motor_coordinate(model, state, motor_on(s.joint), s.frame);
    }
    for (const Side& s : r.side) {
      const Joint& j = model.joints[static_cast<size_t>(s.joint)];
      for (const int k : {j.a, j.b}) {
        if (!dynamic(model, k)) continue;
        bool seen = false;
        for (const Entry& e : r.entries) seen = seen || e.body == k;
        if (seen) continue;
        Entry e;
        e.body = k;
        r.entries.push_back(e);
        r.bodies.push_back(k);
      }
    }
    rows_.push_back(std::move(r));
  }
}

double CouplingRows::coordinate(const Model& model, const State& s, const Side& side) const {
  const double raw = motor_coordinate(model, s, motor_on(side.joint), side.frame);
  if (model.joints[static_cast<size_t>(side.joint)].type == JointType::Slider) return raw;
  return side.q + wrap_angle(raw - side.raw);
}

void CouplingRows::update(const Model& model, const State& state) {
  for (Row& r : rows_) {
    for (Side& s : r.side) {
      s.q = coordinate(model, state, s);
      s.raw = motor_coordinate(model, state, motor_on(s.joint), s.frame);
    }
    for (Entry& e : r.entries) {
      e.jv.setZero();
      e.jw.setZero();
      const Body& b = model.bodies[static_cast<size_t>(e.body)];
      const BodyState& bs = state.bodies[static_cast<size_t>(e.body)];
      e.inv_m = 1 / b.mass;
      if (b.particle) {
        e.inv_i.setZero();
      } else {
        const Mat3 R = bs.q.toRotationMatrix();
        e.inv_i = R * b.inertia.inverse() * R.transpose();
      }
    }
    auto add = [&](int k, const Vec3& jv, const Vec3& jw) {
      for (Entry& e : r.entries)
        if (e.body == k) {
          e.jv += jv;
          e.jw += jw;
        }
    };
    for (const Side& s : r.side) {
      const Joint& j = model.joints[static_cast<size_t>(s.joint)];
      const Vec3 u = joint_axis_world(state, j);
      if (j.type == JointType::Hinge) {
        add(j.a, Vec3::Zero(), -s.weight * u);
        add(j.b, Vec3::Zero(), s.weight * u);
      } else {
        const Vec3 pa = world_point(model, state, j.a, j.anchor_a), pb = world_point(model, state, j.b, j.anchor_b);
        const Vec3 ca = j.a < 0 ? pa : Vec3(state.bodies[static_cast<size_t>(j.a)].x);
        const Vec3 cb = j.b < 0 ? pb : Vec3(state.bodies[static_cast<size_t>(j.b)].x);
        add(j.a, -s.weight * u, -s.weight * (pb - ca).cross(u));  // r_a - d = p_b - c_a
        add(j.b, s.weight * u, s.weight * (pb - cb).cross(u));
      }
    }
    double a = 0;
    for (const Entry& e : r.entries) a += e.inv_m * e.jv.squaredNorm() + e.jw.dot(e.inv_i * e.jw);
    r.inv_a = a > 0 ? 1 / a : 0;
  }
}

double CouplingRows::position_error(int i, const Model& model, const State& s) const {
  const Row& r = rows_[static_cast<size_t>(i)];
  return coordinate(model, s, r.side[0]) + r.side[1].weight * coordinate(model, s, r.side[1]) - r.offset;
}

double CouplingRows::velocity_error(int i, const State& s) const {
  double e = 0;
  for (const Entry& en : rows_[static_cast<size_t>(i)].entries) {
    const BodyState& b = s.bodies[static_cast<size_t>(en.body)];
    e += en.jv.dot(b.v) + en.jw.dot(b.w);
  }
  return e;
}

void CouplingRows::apply_impulse(int i, double x, State& s) const {
  for (const Entry& en : rows_[static_cast<size_t>(i)].entries) {
    BodyState& b = s.bodies[static_cast<size_t>(en.body)];
    b.v += (x * en.inv_m) * en.jv;
    b.w += x * (en.inv_i * en.jw);
  }
}

}  // namespace mb
