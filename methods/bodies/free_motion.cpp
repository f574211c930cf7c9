#include "methods/bodies/free_motion.hpp"

#include <array>
#include <cmath>
#include <cstring>

#include <boost/numeric/odeint/stepper/runge_kutta4_classic.hpp>

#include "methods/bodies/lanes.hpp"
#include "models/actuators.hpp"
#include "models/kinematics.hpp"

namespace mb {

void step_loads(const Model& m, double t, double h, StepLoads& loads) {
  average_torques(m, t, h, loads.torque);
  loads.force.resize(m.bodies.size());
  for (size_t k = 0; k < m.bodies.size(); ++k) loads.force[k] = m.bodies[k].mass * m.gravity;
  add_average_forces(m, t, h, loads.force);
  controls_at(m, t, loads.ctrl);
}

void loads_at(const Model& m, const State& s, const StepLoads& step, StepLoads& out) {
  if (&out != &step) out = step;
  add_spring_loads(m, s, out.force, out.torque);
  if (!m.actuators.empty()) add_actuator_loads(m, s, step.ctrl, out.force, out.torque);
}

namespace {

// The rotation of a free motion on a number type T: double (one body) or Eigen::Array2d (two
// bodies, one per lane of an SSE2 packet), by the lane helpers (lanes.hpp): a body gets the same
// bits on a lane as alone, and the formulas are Eigen's, term by term, so they give the bits of the
// Eigen expressions they replace (tests/impulse_test.cpp checks both against those expressions).
// Two bodies per pass save about a tenth of the instructions.
using lanes::conjugate;
using lanes::cross;
using lanes::M3;
using lanes::product;
using lanes::Q;
using lanes::rotate;
using lanes::sqrt_of;
using lanes::times;
using lanes::V3;

// One RK4 step (Boost.Odeint's runge_kutta4_classic) of w' = J^-1 (tau_b - w x J w) and
// q' = 1/2 q [0, w] in body coordinates (w_b = q^-1 w, tau_b = q^-1 tau at every stage, none
// when `torque` is false), then q renormalised (/ sqrt((x^2 + z^2) + (y^2 + w^2))) and w turned
// back to world coordinates.
template <bool Diagonal, class T>
void rotate_free(const M3<T>& J, const M3<T>& Jinv, const V3<T>& tau, bool torque, double h, Q<T>& q, V3<T>& w) {
  using Rot = std::array<T, 7>;  // body angular velocity (3), quaternion w, x, y, z (4)
  const V3<T> wb = rotate(conjugate(q), w);
  Rot x = {wb.x, wb.y, wb.z, q.w, q.x, q.y, q.z};
  const T zero = T(0.0);
  auto rhs = [&](const Rot& s, Rot& ds, double) {
    const V3<T> ws{s[0], s[1], s[2]};
    const Q<T> qs{s[3], s[4], s[5], s[6]};
    const V3<T> tb = torque ? rotate(conjugate(qs), tau) : V3<T>{zero, zero, zero};
    const V3<T> c = cross(ws, times<Diagonal>(J, ws));
    const V3<T> dw = times<Diagonal>(Jinv, V3<T>{tb.x - c.x, tb.y - c.y, tb.z - c.z});
    const Q<T> dq = product(qs, Q<T>{zero, ws.x, ws.y, ws.z});  // q' = 1/2 q [0, w_b]
    ds = {dw.x, dw.y, dw.z, 0.5 * dq.w, 0.5 * dq.x, 0.5 * dq.y, 0.5 * dq.z};
  };
  boost::numeric::odeint::runge_kutta4_classic<Rot> rk4;
  rk4.do_step(rhs, x, 0.0, h);
  const T n = sqrt_of((x[4] * x[4] + x[6] * x[6]) + (x[5] * x[5] + x[3] * x[3]));
  q = {x[3] / n, x[4] / n, x[5] / n, x[6] / n};
  w = rotate(q, V3<T>{x[0], x[1], x[2]});
}

void translate(const Body& b, const Vec3& F, double h, const BodyState& in, BodyState& out) {
  // translation: exact for a constant force
  out.x = in.x + in.v * h + F / (2 * b.mass) * h * h;
  out.v = in.v + F / b.mass * h;
}

// The rotations of n = 1 or 2 rigid bodies (lane l: body `body[l]`), T = double or Array2d.
template <bool Diagonal, class T>
void rotate_bodies(int n, const Body* const* body, const Mat3* const* Jinv, const Vec3* const* tau, double h,
                   const BodyState* const* in, BodyState* const* out) {
  using lanes::lane;
  M3<T> J{}, Ji{};
  V3<T> w{}, tq{};
  Q<T> q{};
  bool torque = false;
  for (int l = 0; l < n; ++l) {
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) {
        if (Diagonal && r != c) continue;  // times<true> reads the diagonal only
        lane(J.m[r][c], l) = body[l]->inertia(r, c);
        lane(Ji.m[r][c], l) = (*Jinv[l])(r, c);
      }
    lane(q.w, l) = in[l]->q.w(), lane(q.x, l) = in[l]->q.x(), lane(q.y, l) = in[l]->q.y(), lane(q.z, l) = in[l]->q.z();
    lane(w.x, l) = in[l]->w.x(), lane(w.y, l) = in[l]->w.y(), lane(w.z, l) = in[l]->w.z();
    lane(tq.x, l) = tau[l]->x(), lane(tq.y, l) = tau[l]->y(), lane(tq.z, l) = tau[l]->z();
    // without a torque its body-frame image is zero: not rotated at every stage (a lane without
    // one beside a lane with one gets q^-1 0 = 0, the same numbers but for the sign of a zero)
    torque = torque || (tau[l]->array() != 0.0).any();
  }
  rotate_free<Diagonal>(J, Ji, tq, torque, h, q, w);
  for (int l = 0; l < n; ++l) {
    out[l]->q = Quat(lane(q.w, l), lane(q.x, l), lane(q.y, l), lane(q.z, l));
    out[l]->w = Vec3(lane(w.x, l), lane(w.y, l), lane(w.z, l));
  }
}

}  // namespace

void free_motion_body(const Body& b, const Vec3& F, const Vec3& tau, double h, const BodyState& in, BodyState& out) {
  free_motion_body(b, b.particle ? Mat3::Zero() : Mat3(b.inertia.inverse()), F, tau, h, in, out);
}

void free_motion_body(const Body& b, const Mat3& Jinv, const Vec3& F, const Vec3& tau, double h, const BodyState& in,
                      BodyState& out) {
  translate(b, F, h, in, out);
  if (b.particle) {
    out.q = in.q;
    out.w = in.w;
    return;
  }
  const Body* body[1] = {&b};
  const Mat3* ji[1] = {&Jinv};
  const Vec3* t[1] = {&tau};
  const BodyState* i[1] = {&in};
  BodyState* o[1] = {&out};
  if (is_diagonal(b.inertia))
    rotate_bodies<true, double>(1, body, ji, t, h, i, o);
  else
    rotate_bodies<false, double>(1, body, ji, t, h, i, o);
}

namespace {
// free_motion_bodies over the bodies for_each(f) passes to f: the rigid ones in pairs of the same
// kind (diagonal inertia or not), in the order they come
template <class ForEach>
void free_motion_each(const Model& m, const StepLoads& loads, const std::vector<Mat3>* inertia_inverse, double h,
                      const State& in, State& out, ForEach&& for_each) {
  std::array<Mat3, 2> computed;  // inverse inertias when none are given
  auto Jinv = [&](int k, int slot) -> const Mat3* {
    if (inertia_inverse) return &(*inertia_inverse)[static_cast<size_t>(k)];
    computed[static_cast<size_t>(slot)] = m.bodies[k].inertia.inverse();
    return &computed[static_cast<size_t>(slot)];
  };
  int pending[2] = {-1, -1};  // a rigid body waiting for a second of its kind: [0] full inertia, [1] diagonal
  auto move = [&](int n, const int* ks, bool diagonal) {
    const Body* body[2];
    const Mat3* ji[2];
    const Vec3* t[2];
    const BodyState* i[2];
    BodyState* o[2];
    for (int l = 0; l < n; ++l) {
      const int k = ks[l];
      body[l] = &m.bodies[k], ji[l] = Jinv(k, l), t[l] = &loads.torque[k], i[l] = &in.bodies[k], o[l] = &out.bodies[k];
      translate(m.bodies[k], loads.force[k], h, in.bodies[k], out.bodies[k]);
    }
    if (n == 2 && diagonal) rotate_bodies<true, Eigen::Array2d>(2, body, ji, t, h, i, o);
    if (n == 2 && !diagonal) rotate_bodies<false, Eigen::Array2d>(2, body, ji, t, h, i, o);
    if (n == 1 && diagonal) rotate_bodies<true, double>(1, body, ji, t, h, i, o);
    if (n == 1 && !diagonal) rotate_bodies<false, double>(1, body, ji, t, h, i, o);
  };
  for_each([&](int k) {
    const Body& b = m.bodies[k];
    if (b.particle) {
      free_motion_body(b, Mat3::Zero(), loads.force[k], loads.torque[k], h, in.bodies[k], out.bodies[k]);
      return;
    }
    const int kind = is_diagonal(b.inertia) ? 1 : 0;
    if (pending[kind] < 0) {
      pending[kind] = k;
      return;
    }
    const int ks[2] = {pending[kind], k};
    pending[kind] = -1;
    move(2, ks, kind == 1);
  });
  for (int kind = 0; kind < 2; ++kind)
    if (pending[kind] >= 0) move(1, &pending[kind], kind == 1);
}
}  // namespace

void free_motion_bodies(const Model& m, const StepLoads& loads, const std::vector<Mat3>* inertia_inverse,
                        const std::vector<int>& bodies, double h, const State& in, State& out) {
  free_motion_each(m, loads, inertia_inverse, h, in, out, [&](auto&& f) {
    for (int k : bodies) f(k);
  });
}

namespace {
bool same_bits(const double* a, const double* b, size_t n) { return std::memcmp(a, b, n * sizeof(double)) == 0; }
bool same_bits(const Vec3& a, const Vec3& b) { return same_bits(a.data(), b.data(), 3); }
bool same_bits(const BodyState& a, const BodyState& b) {
  return same_bits(a.x, b.x) && same_bits(a.v, b.v) && same_bits(a.w, b.w) && same_bits(a.q.coeffs().data(), b.q.coeffs().data(), 4);
}
}  // namespace

void RememberedFreeMotion::predict(const Body& body, int k, const Vec3& force, const Vec3& torque, double h,
                                   const BodyState& in, BodyState& out) {
  if (body.particle) {
    free_motion_body(body, force, torque, h, in, out);
    return;
  }
  Key& key = key_.at(static_cast<size_t>(k));
  if (key.out == &out && same_bits(&key.h, &h, 1) && same_bits(key.in, in) && same_bits(key.force, force) &&
      same_bits(key.torque, torque))
    return;  // out still holds the free motion of these inputs
  free_motion_body(body, force, torque, h, in, out);
  key.in = in;
  key.force = force;
  key.torque = torque;
  key.h = h;
  key.out = &out;
}

void free_motion(const Model& m, const StepLoads& loads, double h, const State& in, State& out) {
  out.t = in.t;
  out.bodies.resize(in.bodies.size());
  for (size_t k = 0; k < m.bodies.size(); ++k)
    if (m.bodies[k].is_static) out.bodies[k] = in.bodies[k];
  free_motion_each(m, loads, nullptr, h, in, out, [&](auto&& f) {
    for (size_t k = 0; k < m.bodies.size(); ++k)
      if (!m.bodies[k].is_static) f(static_cast<int>(k));
  });
}

}  // namespace mb
