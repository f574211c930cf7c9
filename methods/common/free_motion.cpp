#include "methods/common/free_motion.hpp"

#include <array>
#include <cstring>
#include <type_traits>

#include <boost/numeric/odeint/stepper/runge_kutta4_classic.hpp>

#include "models/kinematics.hpp"

namespace mb {

void step_loads(const Model& m, double t, double h, StepLoads& loads) {
  average_torques(m, t, h, loads.torque);
  loads.force.resize(m.bodies.size());
  for (size_t k = 0; k < m.bodies.size(); ++k) loads.force[k] = m.bodies[k].mass * m.gravity;
  add_average_forces(m, t, h, loads.force);
}

void loads_at(const Model& m, const State& s, const StepLoads& step, StepLoads& out) {
  if (&out != &step) out = step;
  add_spring_loads(m, s, out.force, out.torque);
}

namespace {
using Rot = std::array<double, 7>;  // body angular velocity (3), quaternion w, x, y, z (4)
}

void free_motion_body(const Body& b, const Vec3& F, const Vec3& tau, double h, const BodyState& in, BodyState& out) {
  free_motion_body(b, b.particle ? Mat3::Zero() : Mat3(b.inertia.inverse()), F, tau, h, in, out);
}

void free_motion_body(const Body& b, const Mat3& Jinv, const Vec3& F, const Vec3& tau, double h, const BodyState& in,
                      BodyState& out) {
  // translation: exact for a constant force
  out.x = in.x + in.v * h + F / (2 * b.mass) * h * h;
  out.v = in.v + F / b.mass * h;
  if (b.particle) {
    out.q = in.q;
    out.w = in.w;
    return;
  }
  // rotation: one RK4 step of Euler's equation and the quaternion equation in body coordinates
  const Mat3& J = b.inertia;
  const Vec3 wb = in.q.conjugate() * in.w;
  Rot x = {wb.x(), wb.y(), wb.z(), in.q.w(), in.q.x(), in.q.y(), in.q.z()};
  // without a torque its body-frame image is zero: not rotated at every stage (the same numbers)
  const bool torque = (tau.array() != 0.0).any();
  // a body-frame inertia that is diagonal (principal axes: boxes, spheres, cylinders) has a
  // diagonal inverse (the cofactors of the zeros are zero), and the products J w and J^-1 y are
  // then their diagonal products: the sums of the full 3 x 3 products add zeros to them (the same
  // numbers, but for the sign of an exact zero). The choice is made once per step, not per stage
  // (a branch inside the stage's function made it slower than the full products).
  auto rhs_of = [&](auto diagonal) {
    return [&](const Rot& s, Rot& ds, double) {
      const Vec3 w(s[0], s[1], s[2]);
      const Quat q(s[3], s[4], s[5], s[6]);
      const Vec3 tb = torque ? Vec3(q.conjugate() * tau) : Vec3::Zero();  // Eigen normalises nothing here: q is near unit within a step
      Vec3 dw;
      if constexpr (decltype(diagonal)::value) {
        const Vec3 Jw(J(0, 0) * w[0], J(1, 1) * w[1], J(2, 2) * w[2]);
        const Vec3 y = tb - w.cross(Jw);
        dw = Vec3(Jinv(0, 0) * y[0], Jinv(1, 1) * y[1], Jinv(2, 2) * y[2]);
      } else {
        dw = Jinv * (tb - w.cross(J * w));
      }
      // q' = 1/2 q [0, w_b]
      const Quat dq = q * Quat(0, w.x(), w.y(), w.z());
      ds = {dw.x(), dw.y(), dw.z(), 0.5 * dq.w(), 0.5 * dq.x(), 0.5 * dq.y(), 0.5 * dq.z()};
    };
  };
  boost::numeric::odeint::runge_kutta4_classic<Rot> rk4;
  if (is_diagonal(J))
    rk4.do_step(rhs_of(std::true_type{}), x, 0.0, h);
  else
    rk4.do_step(rhs_of(std::false_type{}), x, 0.0, h);
  out.q = Quat(x[3], x[4], x[5], x[6]).normalized();
  out.w = out.q * Vec3(x[0], x[1], x[2]);
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
  for (size_t k = 0; k < m.bodies.size(); ++k) {
    if (m.bodies[k].is_static) {
      out.bodies[k] = in.bodies[k];
      continue;
    }
    free_motion_body(m.bodies[k], loads.force[k], loads.torque[k], h, in.bodies[k], out.bodies[k]);
  }
}

}  // namespace mb
