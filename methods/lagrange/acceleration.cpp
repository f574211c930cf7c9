#include "methods/lagrange/acceleration.hpp"

#include <algorithm>
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

// The motion of b's point against a's frame for the axial parts (line, plane) and the axial rows
// (twist; motors and limits), only dynamic bodies moving (body: -1 else):
//   s = v_a + w_a x (p_b - x_a) - v_b - w_b x r_b   (a line's rows P s, a plane's u . s)
//   sd = w_a x (v_b + w_b x r_b - v_a) - w_b x (w_b x r_b)   (the rate of s's Jacobian times V:
//        (p_b - x_a)' = p_b' - v_a, r_b' = w_b x r_b)
// u = R_a axis_a (unit), u' = w_a x u, dw = w_a - w_b.
struct AxialMotion {
  Vec3 u, ud, s, sd, dw;
};

AxialMotion axial_motion(const Model& m, const State& st, const Joint& J, const int (&body)[2]) {
  auto rigid = [&](int k) { return k >= 0 && !m.bodies[static_cast<size_t>(k)].particle; };
  auto omega = [&](int k) { return rigid(k) ? Vec3(st.bodies[static_cast<size_t>(k)].w) : Vec3(Vec3::Zero()); };
  auto vel = [&](int k) { return k >= 0 ? Vec3(st.bodies[static_cast<size_t>(k)].v) : Vec3(Vec3::Zero()); };
  AxialMotion r;
  const Vec3 wa = omega(body[0]), wb = omega(body[1]);
  r.u = joint_axis_world(st, J);
  r.ud = wa.cross(r.u);
  const Vec3 rb = rigid(body[1]) ? Vec3(st.bodies[static_cast<size_t>(body[1])].q * J.anchor_b) : Vec3(Vec3::Zero());
  const Vec3 la = body[0] >= 0 ? Vec3(world_point(m, st, J.b, J.anchor_b) - st.bodies[static_cast<size_t>(body[0])].x)
                               : Vec3(Vec3::Zero());
  const Vec3 vpb = vel(body[1]) + wb.cross(rb);
  r.s = vel(body[0]) + wa.cross(la) - vpb;
  r.sd = wa.cross(vpb - vel(body[0])) - wb.cross(wb.cross(rb));
  r.dw = wa - wb;
  return r;
}

// Jdot V of a joint's axial row: a slider's u . s (its motor's plane row), a hinge's u . (w_a - w_b)
// (its motor's twist row); a limit's row is -sign times it (J V = sign q' = -sign times the row)
double axial_row_rate(const Model& m, const State& st, const Joint& J, const int (&body)[2]) {
  const AxialMotion a = axial_motion(m, st, J, body);
  return J.type == JointType::Slider ? a.ud.dot(a.s) + a.u.dot(a.sd) : a.ud.dot(a.dw);
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
      if (J.type == JointType::Slider) {  // the plane row u . s
        out[b.row] = axial_row_rate(m, s, J, b.body);
        continue;
      }
      // a hinge motor's row u . (w_a - w_b), u = R_a axis_a: u' = w_a x u
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
      // a line's rows P s, P = orthogonal_basis(u): P' s + P sd; a plane's u . s: u' . s + u . sd
      const AxialMotion a = axial_motion(m, s, J, b.body);
      if (parts.trans == TransPart::Line)
        out.segment<2>(b.row) = orthogonal_basis_rate(a.u, a.ud) * a.s + orthogonal_basis(a.u) * a.sd;
      else
        out[b.row] = a.ud.dot(a.s) + a.u.dot(a.sd);
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
    if (parts.rot == RotPart::Twist) {  // u . (w_a - w_b): u' . (w_a - w_b)
      const AxialMotion a = axial_motion(m, s, J, b.body);
      out[b.row + b.rot_row] = a.ud.dot(a.dw);
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
  for (const Motor& mo : model.motors)
    if (mo.limited())
      throw UnsupportedModel(fmt::format("lagrange: motor '{}' has a force bound (max_force); the multiplier methods drive "
                                         "motors without one (a bounded motor is an inequality, not a rheonomic row)",
                                         mo.name));
  terms_ = terms;
  limits_ = limit_sides(model);
  active_.clear();
  limit_x_.resize(0);
  cs_ = ConstraintSystem(model);
  solver_ = make_solver();
  cs_.keep_ball_jacobians(solver_->reads_ball_jacobians());
  if (cs_.rows() > 0) solver_->analyze(cs_);
  tmp_.bodies.assign(model.bodies.size(), BodyState{});
  dstate_ = tmp_;
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
  if (!active_.empty()) {
    // the active limits' rows: gap'' = -Jdot V - c1 gap' - c0 gap, with gap'' = Jl a; their
    // multipliers x by the active-set rules, the joints' then A^-1 b - Y x
    limit_coupling(m, s);
    for (size_t i = 0; i < active_.size(); ++i) {
      const LimitSide& l = limits_[static_cast<size_t>(active_[i])];
      const LimitColumn& c = lcol_[i];
      // Jdot V of the row: -sign times the joint's axial row's (axial_row_rate)
      const double jdv = -l.sign * axial_row_rate(m, s, m.joints[static_cast<size_t>(l.joint)], c.body);
      double jla = 0;  // Jl a of the accelerations without the constraint forces
      for (int side = 0; side < 2; ++side)
        if (c.body[side] >= 0) {
          const BodyState& a = acc.bodies[static_cast<size_t>(c.body[side])];
          jla += c.J[side].head<3>().dot(a.v) + c.J[side].tail<3>().dot(a.w);
        }
      const double rate = limit_row_velocity(static_cast<int>(i), s);
      lr_[static_cast<Eigen::Index>(i)] = -jla - jdv - terms_.c1() * rate - terms_.c0() * limit_gap(m, l, s);
    }
    lr_ -= lB_.transpose() * mu_;
    limit_active_set(m);
    mu_ -= lY_ * limit_x_;
    apply_limit_impulse(limit_x_, acc);
  }
  cs_.apply_impulse(mu_, acc);  // a += M^-1 J^T lambda
  lambda = mu_.array() / scale_.array();
  stats.t_solve += since(t0);
}

void AccelerationSolver::limit_coupling(const Model& m, const State& s) {
  const Eigen::Index k = static_cast<Eigen::Index>(active_.size());
  lcol_.resize(active_.size());
  lB_.resize(cs_.rows(), k);
  lr_.setZero(k);
  if (cs_.has_motors()) cs_.motor_rates(m, rates_);
  for (Eigen::Index i = 0; i < k; ++i) {
    const LimitSide& l = limits_[static_cast<size_t>(active_[static_cast<size_t>(i)])];
    const Joint& j = m.joints[static_cast<size_t>(l.joint)];
    LimitColumn& c = lcol_[static_cast<size_t>(i)];
    limit_jacobian(m, s, l, c.J);
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? j.a : j.b;
      c.body[side] = body >= 0 && cs_.body_dim(body) > 0 ? body : -1;
      c.dv[side].setZero(), c.dw[side].setZero();
      if (c.body[side] < 0) continue;
      c.dv[side] = cs_.inverse_mass(body) * c.J[side].head<3>().transpose();
      if (cs_.body_dim(body) == 6) c.dw[side] = cs_.world_inertia_inverse(body) * c.J[side].tail<3>().transpose();
    }
    // B's column J M^-1 Jl^T: J V on the velocity change of this side's unit impulse
    for (int side = 0; side < 2; ++side)
      if (c.body[side] >= 0) {
        BodyState& b = dstate_.bodies[static_cast<size_t>(c.body[side])];
        b.v += c.dv[side], b.w += c.dw[side];
      }
    cs_.velocity_error(dstate_, lcolv_);
    if (cs_.has_motors()) lcolv_ -= rates_;
    lB_.col(i) = lcolv_;
    for (int side = 0; side < 2; ++side)
      if (c.body[side] >= 0) dstate_.bodies[static_cast<size_t>(c.body[side])] = BodyState{};
  }
  solver_->solve_columns(lB_, lY_);
  // K_ij = Jl_i M^-1 Jl_j^T on the bodies the two sides share
  lS_.resize(k, k);
  for (Eigen::Index i = 0; i < k; ++i)
    for (Eigen::Index jj = 0; jj < k; ++jj) {
      const LimitColumn &ci = lcol_[static_cast<size_t>(i)], &cj = lcol_[static_cast<size_t>(jj)];
      double kij = 0;
      for (int si = 0; si < 2; ++si)
        for (int sj = 0; sj < 2; ++sj)
          if (ci.body[si] >= 0 && ci.body[si] == cj.body[sj])
            kij += ci.J[si].head<3>().dot(cj.dv[sj]) + ci.J[si].tail<3>().dot(cj.dw[sj]);
      lS_(i, jj) = kij;
    }
  lS_ -= lB_.transpose() * lY_;
  if (!lY_.allFinite() || !lS_.allFinite())
    throw SimulationError("the joint limits' rows are not finite (J M^-1 J^T singular: redundant or degenerate constraints?)");
}

void AccelerationSolver::limit_active_set(const Model& m) {
  // S x = r on the sides in the set, x = 0 on the others. A change of the set: the side in it whose
  // multiplier pulls most (S_ii x_i < -tol), or the side out of it whose row would be violated most
  // ((S x - r)_i < -tol: its gap'' below the row's); the larger first. tol: round-off of r's size.
  const Eigen::Index k = lr_.size();
  const double tol = 1e-10 * (1.0 + lr_.cwiseAbs().maxCoeff());
  std::vector<char> in(static_cast<size_t>(k), 1);
  std::vector<std::vector<char>> seen{in};
  Eigen::MatrixXd Sw;
  Eigen::VectorXd rw, xw;
  for (;;) {
    std::vector<Eigen::Index> idx;
    for (Eigen::Index i = 0; i < k; ++i)
      if (in[static_cast<size_t>(i)]) idx.push_back(i);
    const Eigen::Index n = static_cast<Eigen::Index>(idx.size());
    Sw.resize(n, n), rw.resize(n);
    for (Eigen::Index a = 0; a < n; ++a) {
      rw[a] = lr_[idx[static_cast<size_t>(a)]];
      for (Eigen::Index b = 0; b < n; ++b) Sw(a, b) = lS_(idx[static_cast<size_t>(a)], idx[static_cast<size_t>(b)]);
    }
    xw = n > 0 ? Eigen::VectorXd(Sw.partialPivLu().solve(rw)) : Eigen::VectorXd();
    if (!xw.allFinite())
      throw SimulationError("the active joint limits' rows are singular (a limit dependent on the joints' rows?)");
    limit_x_.setZero(k);
    for (Eigen::Index a = 0; a < n; ++a) limit_x_[idx[static_cast<size_t>(a)]] = xw[a];
    const Eigen::VectorXd res = lS_ * limit_x_ - lr_;
    Eigen::Index worst = -1;
    double most = tol;
    for (Eigen::Index i = 0; i < k; ++i) {
      const double v = in[static_cast<size_t>(i)] ? -lS_(i, i) * limit_x_[i] : -res[i];
      if (v > most) most = v, worst = i;
    }
    if (worst < 0) return;
    in[static_cast<size_t>(worst)] ^= 1;
    if (std::find(seen.begin(), seen.end(), in) != seen.end()) {
      const LimitSide& l = limits_[static_cast<size_t>(active_[static_cast<size_t>(worst)])];
      throw SimulationError(fmt::format("the active set of the joint limits cycles at joint '{}' ({} limit {}): a side "
                                        "dropped for its pulling multiplier is wanted again",
                                        m.joints[static_cast<size_t>(l.joint)].name, l.sign > 0 ? "lower" : "upper", l.bound));
    }
    seen.push_back(in);
  }
}

double AccelerationSolver::limit_row_velocity(int i, const State& s) const {
  const LimitColumn& c = lcol_[static_cast<size_t>(i)];
  double u = 0;
  for (int side = 0; side < 2; ++side)
    if (c.body[side] >= 0) {
      const BodyState& b = s.bodies[static_cast<size_t>(c.body[side])];
      u += c.J[side].head<3>().dot(b.v) + c.J[side].tail<3>().dot(b.w);
    }
  return u;
}

void AccelerationSolver::apply_limit_impulse(const Eigen::VectorXd& x, State& s) const {
  for (size_t i = 0; i < lcol_.size(); ++i) {
    const LimitColumn& c = lcol_[i];
    for (int side = 0; side < 2; ++side)
      if (c.body[side] >= 0) {
        BodyState& b = s.bodies[static_cast<size_t>(c.body[side])];
        b.v += x[static_cast<Eigen::Index>(i)] * c.dv[side];
        b.w += x[static_cast<Eigen::Index>(i)] * c.dw[side];
      }
  }
}

void AccelerationSolver::limit_impulse(const Model& m, State& s, StepStats& stats) {
  if (active_.empty()) return;
  auto t0 = Clock::now();
  cs_.update(m, s);
  if (cs_.has_motors()) cs_.set_motor_time(m, s.t);
  stats.t_assembly += since(t0);
  t0 = Clock::now();
  solver_->factor(cs_);
  stats.t_factorization += since(t0);
  t0 = Clock::now();
  limit_coupling(m, s);
  for (size_t i = 0; i < active_.size(); ++i) lr_[static_cast<Eigen::Index>(i)] = -limit_row_velocity(static_cast<int>(i), s);
  limit_active_set(m);
  lcolv_ = -lY_ * limit_x_;  // the joints' impulses that keep their rows' J V
  cs_.apply_impulse(lcolv_, s);
  apply_limit_impulse(limit_x_, s);
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
