#include "methods/lagrange/acceleration.hpp"

#include <chrono>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/stopwatch.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// Relative motion of a joint's points: d = p_a - p_b, u = d' = J_ball V, c = the centripetal part
// of d'' (d'' = J_ball a + c), and the relative angular velocity dw = w_a - w_b; only dynamic
// bodies move (the ConstraintSystem has no columns for static bodies and the world).
struct PointMotion {
  Vec3 d, u = Vec3::Zero(), c = Vec3::Zero(), dw = Vec3::Zero();
};

PointMotion point_motion(const Model& m, const State& s, const JointBlock& b) {
  const Joint& J = m.joints[b.joint];
  PointMotion p;
  p.d = world_point(m, s, J.a, J.anchor_a) - world_point(m, s, J.b, J.anchor_b);
  const Vec3 anchors[2] = {J.anchor_a, J.anchor_b};
  for (int side = 0; side < 2; ++side) {
    const int k = b.body[side];
    if (k < 0) continue;
    const double sign = side == 0 ? 1.0 : -1.0;
    const BodyState& bs = s.bodies[k];
    p.u += sign * bs.v;
    if (m.bodies[k].particle) continue;
    const Vec3 r = bs.q * anchors[side];
    p.u += sign * bs.w.cross(r);
    p.c += sign * bs.w.cross(bs.w.cross(r));
    p.dw += sign * bs.w;
  }
  return p;
}

// d/dt of the rows of orthogonal_basis(n) (models/kinematics.cpp) for n' = ndot: the same
// piecewise choice of the helper vector t, differentiated (docs/lagrange.md, hinge).
Eigen::Matrix<double, 2, 3> orthogonal_basis_rate(const Vec3& u, const Vec3& ndot_of_unit) {
  const Vec3 n = u.normalized();
  const Vec3 t = std::abs(n.x()) < 0.6 ? Vec3::UnitX() : (std::abs(n.y()) < 0.6 ? Vec3::UnitY() : Vec3::UnitZ());
  const Vec3& nd = ndot_of_unit;
  const Vec3 g = t - t.dot(n) * n;
  const double gn = g.norm();
  const Vec3 e1 = g / gn;
  const Vec3 gd = -t.dot(nd) * n - t.dot(n) * nd;
  const Vec3 e1d = (gd - e1 * e1.dot(gd)) / gn;
  const Vec3 e2d = nd.cross(e1) + n.cross(e1d);
  Eigen::Matrix<double, 2, 3> R;
  R.row(0) = e1d.transpose();
  R.row(1) = e2d.transpose();
  return R;
}

}  // namespace

const char* rod_form_name(RodForm f) {
  switch (f) {
    case RodForm::Length: return "length";
    case RodForm::HalfSquared: return "half_squared";
    case RodForm::Squared: return "squared";
  }
  return "?";
}

const char* baumgarte_gains_name(BaumgarteGains g) {
  switch (g) {
    case BaumgarteGains::TwoAlphaBetaSquared: return "2alpha_beta2";
    case BaumgarteGains::AlphaBeta: return "alpha_beta";
    case BaumgarteGains::AlphaBetaSquared: return "alpha_beta2";
    case BaumgarteGains::TwoAlphaBeta: return "2alpha_beta";
  }
  return "?";
}

double AccelerationTerms::c1() const {
  return gains == BaumgarteGains::TwoAlphaBetaSquared || gains == BaumgarteGains::TwoAlphaBeta ? 2 * alpha : alpha;
}
double AccelerationTerms::c0() const {
  return gains == BaumgarteGains::TwoAlphaBetaSquared || gains == BaumgarteGains::AlphaBetaSquared ? beta * beta : beta;
}

void constraint_function(const Model& m, const State& s, const ConstraintSystem& cs, RodForm form, Eigen::VectorXd& phi,
                         Eigen::VectorXd& scale) {
  cs.position_error(m, s, phi);
  scale.setOnes(cs.rows());
  if (form == RodForm::Length) return;
  const double k = form == RodForm::Squared ? 2.0 : 1.0;
  for (const JointBlock& b : cs.blocks()) {
    if (b.rolling >= 0) continue;
    const Joint& J = m.joints[b.joint];
    if (J.type != JointType::Distance) continue;
    const double n = (world_point(m, s, J.a, J.anchor_a) - world_point(m, s, J.b, J.anchor_b)).norm();
    phi[b.row] = k * 0.5 * (n * n - J.length * J.length);
    scale[b.row] = k * n;
  }
}

void velocity_product(const Model& m, const State& s, const ConstraintSystem& cs, RodForm form, Eigen::VectorXd& out) {
  out.setZero(cs.rows());
  for (const JointBlock& b : cs.blocks()) {
    if (b.rolling >= 0) {
      // P (v + w x r d) with P constant: P (w x (r d)'), (r d)' the contact moving round the rim
      const BodyState& w = s.bodies[static_cast<size_t>(b.body[0])];
      const RollingContact c = rolling_contact(m.rolling[static_cast<size_t>(b.rolling)], w);
      out.segment<3>(b.row) = b.P_trans * w.w.cross(c.lever_rate);
      continue;
    }
    const Joint& J = m.joints[b.joint];
    if (b.motor >= 0) {
      // a hinge motor's row u . (w_a - w_b), u = R_a axis_a: u' = w_a x u (sliders are refused at init)
      const Vec3 wa = b.body[0] < 0 ? Vec3(Vec3::Zero()) : Vec3(s.bodies[b.body[0]].w);
      const Vec3 wb = b.body[1] < 0 ? Vec3(Vec3::Zero()) : Vec3(s.bodies[b.body[1]].w);
      out[b.row] = wa.cross(joint_axis_world(s, J)).dot(wa - wb);
      continue;
    }
    const PointMotion p = point_motion(m, s, b);
    const JointParts parts = joint_parts(J.type);
    // translational part
    if (parts.trans == TransPart::Rod) {
      const double n = p.d.norm();
      if (form == RodForm::Length) {
        // (d/|d|)' . u + (d/|d|) . c
        const Vec3 dh = p.d / n;
        const double ua = dh.dot(p.u);
        out[b.row] = dh.dot(p.c) + (p.u.squaredNorm() - ua * ua) / n;
      } else {
        // (s d/|d|)' . u + s (d/|d|) . c with s d/|d| = k d:  k (u.u + d.c)
        const double k = form == RodForm::Squared ? 2.0 : 1.0;
        out[b.row] = k * (p.u.squaredNorm() + p.d.dot(p.c));
      }
    } else if (parts.trans == TransPart::Point) {
      out.segment<3>(b.row) = p.c;
    } else if (parts.trans == TransPart::Line || parts.trans == TransPart::Plane) {
      // P(n) g with g = u - w_a x d, the rate of b's point off a's line or plane seen from a
      // (n = R_a axis_a turns with a): P' g + P g', the velocity part of g' = c - w_a x u
      const int ka = b.body[0];
      const bool turns = ka >= 0 && !m.bodies[ka].particle;
      const Vec3 wa = turns ? Vec3(s.bodies[ka].w) : Vec3(Vec3::Zero());
      const Vec3 n = joint_axis_world(s, J), nd = wa.cross(n);
      const Vec3 g = p.u - wa.cross(p.d), gd = p.c - wa.cross(p.u);
      if (parts.trans == TransPart::Plane) {
        out[b.row] = nd.dot(g) + n.dot(gd);
      } else {
        out.segment<2>(b.row) = orthogonal_basis_rate(n, nd) * g + orthogonal_basis(n) * gd;
      }
    }
    // rotational part: orientation rows w_a - w_b have a constant Jacobian (no term); axis rows
    // P(u_a) (w_a - w_b), u_a = R_a axis_a: P' (w_a - w_b) with u_a' = w_a x u_a
    if (parts.rot == RotPart::Axis) {
      const int ka = b.body[0];
      if (ka < 0 || m.bodies[ka].particle) continue;
      const Vec3 ua = s.bodies[ka].q * J.axis_a.normalized();
      const Vec3 ud = s.bodies[ka].w.cross(ua);
      out.segment<2>(b.row + b.rot_row) = orthogonal_basis_rate(ua, ud) * p.dw;
    }
    // perpendicular row (u_a x u_b) . (w_a - w_b): (w_a x u_a) x u_b + u_a x (w_b x u_b) is the rate of the
    // row's vector (u_a normalized, u_b as ConstraintSystem takes it)
    if (parts.rot == RotPart::Perpendicular) {
      auto axis = [&](int k, const Vec3& a) { return k < 0 ? Vec3(a.normalized()) : Vec3(s.bodies[k].q * a.normalized()); };
      auto omega = [&](int k) { return k < 0 ? Vec3(Vec3::Zero()) : Vec3(s.bodies[k].w); };
      const Vec3 ua = axis(J.a, J.axis_a), ub = axis(J.b, J.axis_b), wa = omega(J.a), wb = omega(J.b);
      out[b.row + b.rot_row] = (wa.cross(ua).cross(ub) + ua.cross(wb.cross(ub))).dot(wa - wb);
    }
  }
}

void AccelerationSolver::init(const Model& model, LinearSolverFactory make_solver, const AccelerationTerms& terms) {
  // velocity-product terms are derived (docs/lagrange.md) for rods, points, lines, planes, orientation, axis and
  // perpendicular parts
  for (const Joint& j : model.joints) {
    const JointParts parts = joint_parts(j.type);
    if (parts.rot == RotPart::Twist)
      throw UnsupportedModel(fmt::format(
          "lagrange: joint '{}' is a {} joint; the multiplier methods support every joint type but twist (the velocity-product "
          "term of a twist part is not derived yet)",
          j.name, joint_type_name(j.type)));
  }
  for (const Motor& mo : model.motors) {
    const Joint& j = model.joints[static_cast<size_t>(mo.joint)];
    if (j.type == JointType::Slider)
      throw UnsupportedModel(fmt::format("lagrange: motor '{}' drives the slider '{}'; the multiplier methods drive hinges (the "
                                         "velocity-product term of a slider motor's row is not derived yet)",
                                         mo.name, j.name));
  }
  for (const Motor& mo : model.motors)
    if (mo.limited())
      throw UnsupportedModel(fmt::format("lagrange: motor '{}' has a force bound (max_force); the multiplier methods drive "
                                         "motors without one (a bounded motor is an inequality, not a rheonomic row)",
                                         mo.name));
  terms_ = terms;
  cs_ = ConstraintSystem(model);
  solver_ = make_solver();
  cs_.keep_ball_jacobians(solver_->reads_ball_jacobians());
  if (cs_.rows() > 0) solver_->analyze(cs_);
  tmp_.bodies.assign(model.bodies.size(), BodyState{});
}

void AccelerationSolver::solve(const Model& m, const State& s, const StepLoads& loads, Eigen::VectorXd& lambda,
                               State& acc, StepStats& stats) {
  auto t0 = Clock::now();
  cs_.update(m, s);
  if (cs_.has_motors()) cs_.set_motor_time(m, s.t);  // the motors' rows at the state's time
  // unconstrained accelerations M^-1 (f - w x I_w w)
  acc.t = s.t;
  acc.bodies.assign(s.bodies.size(), BodyState{});
  for (size_t k = 0; k < m.bodies.size(); ++k) {
    const int dim = cs_.body_dim(static_cast<int>(k));
    if (dim == 0) continue;
    BodyState& a = acc.bodies[k];
    a.v = loads.force[k] / m.bodies[k].mass;
    if (dim == 6) {
      const Vec3& w = s.bodies[k].w;
      const Mat3& Iw = cs_.world_inertia(static_cast<int>(k));
      const Mat3& Iwinv = cs_.world_inertia_inverse(static_cast<int>(k));
      a.w = Iwinv * (loads.torque[k] - w.cross(Iw * w));
    }
  }
  if (cs_.rows() == 0) {
    lambda.resize(0);
    stats.t_assembly += since(t0);
    return;
  }
  // right-hand side in the length-form rows (see the header)
  velocity_product(m, s, cs_, terms_.form, jdv_);
  cs_.velocity_error(acc, jmf_);
  if (cs_.has_motors()) {
    // J M^-1 f without the motors' rates r, and their rows' q'' = r': J a = -Jdot V - r'
    cs_.motor_rates(m, rates_);
    jmf_ -= rates_;
    for (const JointBlock& b : cs_.blocks())
      if (b.motor >= 0) jmf_[b.row] += cs_.motor_acceleration(m, b);
  }
  b_ = -jmf_;
  const double c1 = terms_.c1(), c0 = terms_.c0();
  if (terms_.form != RodForm::Length || c0 != 0) constraint_function(m, s, cs_, terms_.form, phi_, scale_);
  else scale_.setOnes(cs_.rows());
  b_.array() -= jdv_.array() / scale_.array();
  if (terms_.stab_on && (c1 != 0 || c0 != 0)) {
    // the terms of another quantity C (C' = s_C J V), in the form's row scaling
    constraint_function(m, s, cs_, *terms_.stab_on, phi_c_, scale_c_);
    cs_.velocity_error(s, jv_);
    b_.array() -= (c1 * scale_c_.array() * jv_.array() + c0 * phi_c_.array()) / scale_.array();
  } else {
    if (c1 != 0) {
      cs_.velocity_error(s, jv_);
      b_ -= c1 * jv_;
    }
    if (c0 != 0) b_.array() -= c0 * phi_.array() / scale_.array();
  }
  stats.t_assembly += since(t0);
  // factor and solve A lambda = b
  t0 = Clock::now();
  solver_->factor(cs_);
  stats.t_factorization += since(t0);
  t0 = Clock::now();
  solver_->solve(b_, mu_);
  if (!mu_.allFinite())
    throw SimulationError("Lagrange multipliers are not finite (J M^-1 J^T singular: redundant or degenerate constraints?)");
  cs_.apply_impulse(mu_, acc);  // a += M^-1 J^T lambda
  lambda = mu_.array() / scale_.array();
  stats.t_solve += since(t0);
}

double AccelerationSolver::last_residual() const {
  if (cs_.rows() == 0) return 0;
  State t = tmp_;  // zero velocities
  cs_.apply_impulse(mu_, t);
  Eigen::VectorXd Amu;
  cs_.velocity_error(t, Amu);
  if (cs_.has_motors()) Amu -= rates_;  // A mu without the motors' rates
  const double nb = b_.norm();
  return (Amu - b_).norm() / (nb > 0 ? nb : 1.0);
}

Eigen::VectorXd lagrange_multipliers(const Model& model, const State& state, const StepLoads& loads,
                                     LinearSolverFactory make_solver, const AccelerationTerms& terms) {
  AccelerationSolver a;
  a.init(model, make_solver, terms);
  Eigen::VectorXd lambda;
  State acc;
  StepStats st;
  a.solve(model, state, loads, lambda, acc, st);
  return lambda;
}

}  // namespace mb
