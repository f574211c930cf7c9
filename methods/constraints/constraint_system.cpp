#include "methods/constraints/constraint_system.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/Dense>
#include <Eigen/SparseQR>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {


namespace {

Vec3 axis_world(const State& s, int body, const Vec3& axis) {
  Vec3 u = axis.normalized();
  return body < 0 ? u : Vec3(s.bodies[body].q * u);
}

}  // namespace

ConstraintSystem::ConstraintSystem(const Model& m, const std::vector<int>& joints, MotorRows motors, WheelRows wheels) {
  const bool only_motors = motors == MotorRows::OnlyBounded || motors == MotorRows::OnlyAll || wheels == WheelRows::Only;
  const int nb = static_cast<int>(m.bodies.size());
  body_dim_.assign(nb, 0);
  body_col_.assign(nb, -1);
  mass_.assign(nb, BodyMass{});
  inertia_inv_.assign(nb, Mat3::Zero());
  for (int k = 0; k < nb; ++k) {
    const Body& b = m.bodies[k];
    if (b.is_static) continue;
    if (!b.particle) inertia_inv_[k] = b.inertia.inverse();
    body_dim_[k] = b.particle ? 3 : 6;
    mass_[k].m = b.mass;
    mass_[k].inv_m = 1.0 / b.mass;
    body_col_[k] = ncols_;
    ncols_ += body_dim_[k];
  }
  std::vector<int> list = joints;
  if (list.empty())
    for (int j = 0; j < static_cast<int>(m.joints.size()); ++j) list.push_back(j);
  for (int j : list) {
    if (only_motors) break;
    const Joint& J = m.joints[j];
    JointBlock b;
    b.joint = j;
    const JointParts parts = joint_parts(J.type);
    b.rot_row = trans_rows(parts.trans);
    b.dim = b.rot_row + rot_rows(parts.rot);
    b.row = nrows_;
    b.ball = parts.trans == TransPart::Point && parts.rot == RotPart::None;
    const int ends[2] = {J.a, J.b};
    for (int s = 0; s < 2; ++s) {
      int k = ends[s];
      b.body[s] = (k >= 0 && !m.bodies[k].is_static) ? k : -1;
      if (b.rot_row < b.dim && k >= 0 && m.bodies[k].particle)
        throw UnsupportedModel(fmt::format("joint '{}' ({}) needs rigid bodies, but '{}' is a particle", J.name,
                                           joint_type_name(J.type), m.bodies[k].name));
    }
    if (b.body[0] < 0 && b.body[1] < 0) continue;  // joins two fixed frames: nothing to do
    for (int s = 0; s < 2; ++s)  // a ball joint's constant part of J, all of it on a particle
      if (b.ball && b.body[s] >= 0) b.J_kept[s].topLeftCorner<3, 3>() = (s == 0 ? 1.0 : -1.0) * Mat3::Identity();
    nrows_ += b.dim;
    blocks_.push_back(b);
  }
  // the motors' rows, after every joint's (a hinge's on rigid bodies, checked above)
  for (size_t mi = 0; mi < m.motors.size(); ++mi) {
    const Motor& mo = m.motors[mi];
    const bool wanted = motors == MotorRows::OnlyAll || (motors == MotorRows::OnlyBounded && mo.limited()) ||
                        (motors == MotorRows::Unbounded && !mo.limited());
    if (!wanted || wheels == WheelRows::Only) continue;
    if (!joints.empty() && std::find(joints.begin(), joints.end(), mo.joint) == joints.end()) continue;
    const Joint& J = m.joints[static_cast<size_t>(mo.joint)];
    JointBlock b;
    b.joint = mo.joint;
    b.motor = static_cast<int>(mi);
    b.dim = 1;
    b.rot_row = J.type == JointType::Slider ? 1 : 0;
    b.row = nrows_;
    const int ends[2] = {J.a, J.b};
    for (int s = 0; s < 2; ++s) {
      const int k = ends[s];
      b.body[s] = (k >= 0 && !m.bodies[k].is_static) ? k : -1;
      if (k >= 0 && m.bodies[k].particle)
        throw UnsupportedModel(fmt::format("motor '{}' needs rigid bodies, but '{}' is a particle", mo.name, m.bodies[k].name));
    }
    if (b.body[0] < 0 && b.body[1] < 0) continue;
    nrows_ += 1;
    blocks_.push_back(b);
    has_motors_ = true;
  }
  // the rolling wheels' rows, after the motors'
  if (m.rolling.size() > 32767) throw UnsupportedModel(fmt::format("{} rolling wheels: at most 32767", m.rolling.size()));
  for (size_t ri = 0; ri < m.rolling.size() && holds_wheels(joints.empty(), motors, wheels); ++ri) {
    const Rolling& r = m.rolling[ri];
    const Body& wheel = m.bodies[static_cast<size_t>(r.body)];
    if (wheel.particle || wheel.is_static)
      throw UnsupportedModel(fmt::format("rolling '{}' needs a moving rigid body, but '{}' is not one", r.name, wheel.name));
    JointBlock b;
    b.rolling = static_cast<std::int16_t>(ri);
    b.dim = b.rot_row = 3;
    b.row = nrows_;
    b.body[0] = r.body;
    nrows_ += 3;
    blocks_.push_back(b);
  }
  motor_q0_.assign(m.motors.size(), 0.0);
  motor_r_.assign(m.motors.size(), 0.0);
  motor_target_.assign(m.motors.size(), 0.0);
  motor_frame_.clear();
  for (const Motor& mo : m.motors) motor_frame_.push_back(motor_frame(m, mo));
  set_motor_targets(m);
  touching_.assign(nb, {});
  for (size_t bi = 0; bi < blocks_.size(); ++bi)
    for (int side = 0; side < 2; ++side)
      if (blocks_[bi].body[side] >= 0) touching_[blocks_[bi].body[side]].push_back(static_cast<int>(bi));
}

void ConstraintSystem::update(const Model& m, const State& s) {
  // masses in world coordinates
  for (size_t k = 0; k < m.bodies.size(); ++k) {
    if (body_dim_[k] == 0) continue;
    const Body& b = m.bodies[k];
    // the translational part is constant (set by the constructor); the rotational one turns with the body
    if (body_dim_[k] == 6) {
      Mat3 R = s.bodies[k].q.toRotationMatrix();
      BodyMass& mk = mass_[k];
      if (!is_diagonal(b.inertia)) {
        mk.I = R * b.inertia * R.transpose();
        mk.Iinv = R * inertia_inv_[k] * R.transpose();
        continue;
      }
      // a diagonal I (principal axes; its inverse's cofactors are then diagonal too): R I scales
      // the columns of R (the numbers of the full product, whose sums add zeros to them, but for
      // the sign of an exact zero), and (R I) R^T is summed as Eigen sums the fixed-size R I R^T
      // (through a temporary, whatever the destination), r_0 + (r_1 + r_2): the same bits
      const Vec3 I = b.inertia.diagonal(), Iinv = inertia_inv_[k].diagonal();
      for (int a = 0; a < 3; ++a)
        for (int c = 0; c < 3; ++c) {
          mk.I(a, c) = (R(a, 0) * I[0]) * R(c, 0) + ((R(a, 1) * I[1]) * R(c, 1) + (R(a, 2) * I[2]) * R(c, 2));
          mk.Iinv(a, c) = (R(a, 0) * Iinv[0]) * R(c, 0) + ((R(a, 1) * Iinv[1]) * R(c, 1) + (R(a, 2) * Iinv[2]) * R(c, 2));
        }
    }
  }
  // Jacobian blocks
  for (size_t bi = 0; bi < blocks_.size(); ++bi) {
    JointBlock& b = blocks_[bi];
    if (b.rolling >= 0) {
      // P (v + w x r d): J = P [I, -(r d)*]
      const Rolling& r = m.rolling[static_cast<size_t>(b.rolling)];
      const RollingContact c = rolling_contact(r, s.bodies[static_cast<size_t>(b.body[0])]);
      b.P_trans.row(0) = r.normal.transpose();
      b.P_trans.bottomRows<2>() = orthogonal_basis(r.normal);
      b.J_kept[0].setZero();
      b.J_kept[0].topLeftCorner<3, 3>() = b.P_trans;
      b.J_kept[0].block<3, 3>(0, 3) = -b.P_trans * skew(c.lever);
      continue;
    }
    const Joint& J = m.joints[b.joint];
    if (b.ball) {
      // P = 1 (the projections stay the identity) and J = sign [I, -r*], whose identity part the
      // constructor wrote: only the lever arms turn (and the blocks, where they are kept)
      const Vec3 anchors[2] = {J.anchor_a, J.anchor_b};
      for (int side = 0; side < 2; ++side) {
        const int k = b.body[side];
        if (k < 0) continue;
        b.lever[side] = s.bodies[k].q * anchors[side];
        if (keep_ball_ && body_dim_[k] == 6) b.J_kept[side].block<3, 3>(0, 3) = -(side == 0 ? 1.0 : -1.0) * skew(b.lever[side]);
      }
      continue;
    }
    // projections of the translational and rotational rows at this state (a motor: the plane row
    // of its slider, the twist row of its hinge)
    const JointParts parts = b.motor < 0 ? joint_parts(J.type)
                             : J.type == JointType::Slider ? JointParts{TransPart::Plane, RotPart::None}
                                                           : JointParts{TransPart::None, RotPart::Twist};
    const bool axial = parts.trans == TransPart::Line || parts.trans == TransPart::Plane || parts.rot == RotPart::Axis ||
                       parts.rot == RotPart::Twist || parts.rot == RotPart::Perpendicular;
    const Vec3 axis = axial ? axis_world(s, J.a, J.axis_a) : Vec3::Zero();
    Mat3& Pt = b.P_trans;
    Pt.setIdentity();
    switch (parts.trans) {
      case TransPart::Rod: {
        const Vec3 d = joint_separation(m, s, J);
        const double n = d.norm();
        if (!(n > 0)) throw SimulationError(fmt::format("rod '{}' has zero length: its direction is undefined", J.name));
        Pt.row(0) = (d / n).transpose();
        break;
      }
      case TransPart::Line: Pt.topRows<2>() = orthogonal_basis(axis.normalized()); break;
      case TransPart::Plane: Pt.row(0) = axis.transpose(); break;
      case TransPart::Point:
      case TransPart::None: break;
    }
    Mat3& Pr = b.P_rot;
    Pr.setIdentity();
    if (parts.rot == RotPart::Axis) Pr.topRows<2>() = orthogonal_basis(axis.normalized());
    if (parts.rot == RotPart::Twist) Pr.row(0) = axis.transpose();
    // perpendicular: d(u_a . u_b)/dt = (u_a x u_b) . (w_a - w_b)
    if (parts.rot == RotPart::Perpendicular) Pr.row(0) = axis.normalized().cross(axis_world(s, J.b, J.axis_b)).transpose();
    const int nt = b.rot_row, nr = b.dim - b.rot_row;
    const Vec3 anchors[2] = {J.anchor_a, J.anchor_b};
    for (int side = 0; side < 2; ++side) {
      const int k = b.body[side];
      if (k < 0) continue;  // its block stays zero (set by the constructor)
      b.J_kept[side].setZero();
      const double sign = side == 0 ? 1.0 : -1.0;
      // lever arm: for a line or plane the force acts at b's point, which slides along the line or
      // plane of a (lever r_a - d); this is the exact derivative of n(q_a).(a - b), including the
      // turning of a's axis
      Vec3 r = s.bodies[k].q * anchors[side];
      if (side == 0 && (parts.trans == TransPart::Line || parts.trans == TransPart::Plane)) r -= joint_separation(m, s, J);
      if (parts.trans == TransPart::Point) {
        // P = 1 (a fixed joint's three translational rows): the blocks without the product by P (the same numbers)
        b.J_kept[side].topLeftCorner<3, 3>() = sign * Mat3::Identity();
        if (body_dim_[k] == 6) b.J_kept[side].block<3, 3>(0, 3) = -sign * skew(r);
      } else {
        b.J_kept[side].block(0, 0, nt, 3) = sign * Pt.topRows(nt);
        if (body_dim_[k] == 6) b.J_kept[side].block(0, 3, nt, 3) = -sign * Pt.topRows(nt) * skew(r);
      }
      if (body_dim_[k] == 6 && nr > 0) b.J_kept[side].block(nt, 3, nr, 3) = sign * Pr.topRows(nr);
    }
  }
}

const Mat6& ConstraintSystem::ball_rows(const JointBlock& b, int side, Mat6& J) const {
  // the three rows of jacobian() on a rigid body, rows 3..5 not set
  const double sign = side == 0 ? 1.0 : -1.0;
  J.topLeftCorner<3, 3>() = b.J_kept[side].topLeftCorner<3, 3>();
  J.block<3, 3>(0, 3) = -sign * skew(b.lever[side]);
  return J;
}

Mat6 ConstraintSystem::jacobian(const JointBlock& b, int side) const {
  if (!formed(b, side)) return b.J_kept[side];
  // a ball joint on a rigid body: sign [I, -r*], whose identity part is kept (the numbers of the
  // general form of update() with P = 1)
  Mat6 J = b.J_kept[side];
  J.block<3, 3>(0, 3) = -(side == 0 ? 1.0 : -1.0) * skew(b.lever[side]);
  return J;
}

namespace {
// diag(s I, R) of a body of dimension dim (R only for a rigid body), zero for a fixed one
Mat6 block_diagonal(int dim, double s, const Mat3& R) {
  Mat6 M = Mat6::Zero();
  if (dim == 0) return M;
  M.topLeftCorner<3, 3>() = s * Mat3::Identity();
  if (dim == 6) M.bottomRightCorner<3, 3>() = R;
  return M;
}
}  // namespace

Mat6 ConstraintSystem::mass(int k) const { return block_diagonal(body_dim_[k], mass_[k].m, mass_[k].I); }
Mat6 ConstraintSystem::mass_inverse(int k) const { return block_diagonal(body_dim_[k], mass_[k].inv_m, mass_[k].Iinv); }

void ConstraintSystem::block_position_error(const Model& m, const State& s, const JointBlock& b, Vec6& e) const {
  // the raw errors of models/kinematics, projected with the rows the Jacobian was built with
  if (b.rolling >= 0) {  // the holonomic row's: the contact's height over the plane
    e.setZero();
    e[0] = rolling_contact(m.rolling[static_cast<size_t>(b.rolling)], s.bodies[static_cast<size_t>(b.body[0])]).height;
    return;
  }
  const Joint& J = m.joints[b.joint];
  if (b.motor >= 0) {
    e.setZero();
    const Motor& mo = m.motors[static_cast<size_t>(b.motor)];
    if (mo.mode != MotorMode::Position && !(motor_h_ > 0)) return;  // a velocity motor has no position error at a time
    const double q = motor_coordinate(m, s, mo, motor_frame_[static_cast<size_t>(b.motor)]);
    const double target = motor_target_[static_cast<size_t>(b.motor)];
    e[0] = J.type == JointType::Slider ? target - q : wrap_angle(target - q);
    return;
  }
  if (b.ball) {  // P = 1: the separation itself (the numbers of the product by P)
    e.head<3>() = joint_separation(m, s, J);
    e.tail<3>().setZero();
    return;
  }
  const JointParts parts = joint_parts(J.type);
  e.setZero();
  const int nt = b.rot_row, nr = b.dim - b.rot_row;
  const Vec3 d = joint_separation(m, s, J);
  if (parts.trans == TransPart::Rod) {
    e[0] = d.norm() - J.length;
  } else if (parts.trans == TransPart::Line || parts.trans == TransPart::Plane) {
    // the line's or plane's axis on this (predicted) state; the rows of update() transported onto
    // the plane orthogonal to it, so they stay continuous and match the Jacobian to first order
    const Vec3 n = joint_axis_world(s, J);
    if (parts.trans == TransPart::Plane) {
      e[0] = n.dot(d);
    } else {
      Vec3 r1 = b.P_trans.row(0).transpose();
      r1 = (r1 - r1.dot(n) * n).normalized();
      const Vec3 r2 = n.cross(r1);
      const double sign = r2.dot(b.P_trans.row(1).transpose()) < 0 ? -1.0 : 1.0;
      e[0] = r1.dot(d);
      e[1] = sign * r2.dot(d);
    }
  } else if (nt == 3) {
    e.head<3>() = b.P_trans * d;  // a ball joint: the product at its compile-time size (the same sums)
  } else if (nt > 0) {
    e.head(nt) = b.P_trans.topRows(nt) * d;
  }
  if (parts.rot == RotPart::Perpendicular) {
    e[nt] = joint_axis_world(s, J).dot(axis_world(s, J.b, J.axis_b));  // u_a . u_b
  } else if (nr == 2) {
    e.segment<2>(nt) = b.P_rot.topRows<2>() * joint_rotation_error(s, J);  // a hinge's axis: at its compile-time size
  } else if (nr > 0) {
    e.segment(nt, nr) = b.P_rot.topRows(nr) * joint_rotation_error(s, J);
  }
}

namespace {
// rows [row, row + dim) of e from the block's vector (a ball joint's 3 at a compile-time size)
void put_block(const Vec6& eb, const JointBlock& b, Eigen::VectorXd& e) {
  if (b.dim == 3)
    e.segment<3>(b.row) = eb.head<3>();
  else if (b.dim == 1)
    e[b.row] = eb[0];
  else if (b.dim == 5)
    e.segment<5>(b.row) = eb.head<5>();
  else
    e.segment(b.row, b.dim) = eb.head(b.dim);
}
}  // namespace

void ConstraintSystem::position_error(const Model& m, const State& s, Eigen::VectorXd& e) const {
  e.resize(nrows_);
  Vec6 eb;
  for (const auto& b : blocks_) {
    block_position_error(m, s, b, eb);
    put_block(eb, b, e);
  }
}

namespace {
// A ball joint's rows on a rigid body, J V = sign (v - r x w), with J = sign [I, -r*]: each row's
// two nonzero products of the rotational part added in the order of the fixed-size product
// J V (columns in ascending order, the zero products left out): the same bits, a tenth of the work.
Vec3 ball_velocity(const Vec3& r, int side, const BodyState& body) {
  const Vec3 &v = body.v, &w = body.w;
  const Vec3 e((v.x() + r.z() * w.y()) - r.y() * w.z(), (v.y() - r.z() * w.x()) + r.x() * w.z(),
               (v.z() + r.y() * w.x()) - r.x() * w.y());
  return side == 0 ? e : Vec3(-e);
}
}  // namespace

void ConstraintSystem::begin_motor_step(const Model& m, const State& start, double h) {
  motor_t_ = start.t + h;
  motor_h_ = h;
  for (const JointBlock& b : blocks_) {
    if (b.motor < 0) continue;
    const Motor& mo = m.motors[static_cast<size_t>(b.motor)];
    if (mo.mode == MotorMode::Velocity) motor_q0_[static_cast<size_t>(b.motor)] = motor_coordinate(m, start, mo, motor_frame_[static_cast<size_t>(b.motor)]);
    motor_r_[static_cast<size_t>(b.motor)] = motor_rate(m, b);
  }
  set_motor_targets(m);
}

void ConstraintSystem::set_motor_time(const Model& m, double t) {
  motor_t_ = t;
  motor_h_ = 0;
  for (const JointBlock& b : blocks_)
    if (b.motor >= 0) motor_r_[static_cast<size_t>(b.motor)] = motor_rate(m, b);
  set_motor_targets(m);
}

void ConstraintSystem::set_motor_targets(const Model& m) {
  for (const JointBlock& b : blocks_) {
    if (b.motor < 0) continue;
    const Motor& mo = m.motors[static_cast<size_t>(b.motor)];
    double& target = motor_target_[static_cast<size_t>(b.motor)];
    if (mo.mode == MotorMode::Position) target = mo.target.at(motor_t_);
    else if (motor_h_ > 0) target = motor_q0_[static_cast<size_t>(b.motor)] + motor_h_ * mo.target.at(motor_t_ - motor_h_ / 2);
    else target = 0;  // no position error (block_position_error)
  }
}

double ConstraintSystem::motor_rate(const Model& m, const JointBlock& b) const {
  const Motor& mo = m.motors[static_cast<size_t>(b.motor)];
  return mo.mode == MotorMode::Position ? mo.target.rate_at(motor_t_) : mo.target.at(motor_t_);
}

double ConstraintSystem::motor_acceleration(const Model& m, const JointBlock& b) const {
  const Motor& mo = m.motors[static_cast<size_t>(b.motor)];
  return mo.mode == MotorMode::Position ? mo.target.accel_at(motor_t_) : mo.target.rate_at(motor_t_);
}

void ConstraintSystem::motor_rates(const Model& m, Eigen::VectorXd& r) const {
  r.setZero(nrows_);
  for (const JointBlock& b : blocks_)
    if (b.motor >= 0) r[b.row] = motor_rate(m, b);
}

void ConstraintSystem::block_velocity_error(const State& s, const JointBlock& b, Vec6& e) const {
  e.setZero();
  if (b.motor >= 0) e[0] = motor_r_[static_cast<size_t>(b.motor)];
  for (int side = 0; side < 2; ++side) {
    const int k = b.body[side];
    if (k < 0) continue;
    Vec6 V;
    V.head<3>() = s.bodies[k].v;
    V.tail<3>() = s.bodies[k].w;
    const int n = body_dim_[k];
    if (n == 6 && b.ball) {
      e.head<3>() += ball_velocity(b.lever[side], side, s.bodies[k]);
      continue;
    }
    if (n == 6) {
      e.noalias() += b.J_kept[side] * V;  // fixed size: the rows past dim are zero in J (not a ball: above)
      continue;
    }
    // a particle (its block is kept, a ball joint's too): each row's sum in the order of Eigen's
    // run-time-size product, e_r + ((J_r0 v_0 + J_r1 v_1) + J_r2 v_2), written out (the same bits,
    // without the general product's dispatch)
    const Vec3& v = s.bodies[k].v;
    const Mat6& J = b.J_kept[side];
    for (int r = 0; r < b.dim; ++r) e[r] += (J(r, 0) * v[0] + J(r, 1) * v[1]) + J(r, 2) * v[2];
  }
}

void ConstraintSystem::velocity_error(const State& s, Eigen::VectorXd& e) const {
  e.resize(nrows_);
  Vec6 eb;
  for (const auto& b : blocks_) {
    if (b.ball && rigid_ends(b)) {  // the path of block_velocity_error, without the call
      Vec3 ej = Vec3::Zero();
      for (int side = 0; side < 2; ++side)
        if (b.body[side] >= 0) ej += ball_velocity(b.lever[side], side, s.bodies[b.body[side]]);
      e.segment<3>(b.row) = ej;
      continue;
    }
    block_velocity_error(s, b, eb);
    put_block(eb, b, e);
  }
}

namespace {
// |(e_0, .., e_n-1)| for n <= 3, summed as Eigen sums the run-time-size norm of a segment that
// starts at an aligned address, ((e0^2 + e1^2) + e2^2): the same bits without its dispatch
double head_squared_norm(const double* e, int n) {
  double s = 0;
  if (n >= 1) s = e[0] * e[0];
  if (n >= 2) s += e[1] * e[1];
  if (n >= 3) s += e[2] * e[2];
  return s;
}
double head_norm(const double* e, int n) { return std::sqrt(head_squared_norm(e, n)); }
}  // namespace

double ConstraintSystem::joint_norm(const JointBlock& b, const Vec6& e) {
  const double t = head_norm(e.data(), b.rot_row);
  return b.dim > b.rot_row ? std::max(t, e.segment(b.rot_row, b.dim - b.rot_row).norm()) : t;
}

double ConstraintSystem::max_joint_norm(const Eigen::VectorXd& e) const {
  // the translational-only blocks by their squared norms, and one square root of their largest
  // (the square root is monotone and correctly rounded: the same number as the largest root)
  double m = 0, m2 = 0;
  Vec6 eb = Vec6::Zero();
  for (const auto& b : blocks_) {
    if (b.dim == b.rot_row) {  // translational rows only (a ball joint, a rod)
      m2 = std::max(m2, head_squared_norm(e.data() + b.row, b.dim));
      continue;
    }
    if (b.dim - b.rot_row <= 2) {  // at most two rotational rows (a hinge's axis, a motor): joint_norm's sums
      const double* p = e.data() + b.row;
      m = std::max({m, head_norm(p, b.rot_row), head_norm(p + b.rot_row, b.dim - b.rot_row)});
      continue;
    }
    eb.head(b.dim) = e.segment(b.row, b.dim);
    m = std::max(m, joint_norm(b, eb));
  }
  return std::max(m, std::sqrt(m2));
}

namespace {
// A ball joint's impulse x on a rigid body: J^T x = sign (x, r x x), and M^-1 = diag(1/m, the
// world inverse inertia W): the products of the fixed-size M^-1 (J^T x) that are not zero, in
// their order (each sum of J^T x has two nonzero terms; the 6 x 6 M^-1 times a vector sums its
// columns in ascending order, which a 3 x 3 product does not for its last row): the same bits
inline void ball_impulse(double inv_m, const Mat3& W, const Vec3& r, int side, const Vec3& x, BodyState& body) {
  const Vec3 xs = side == 0 ? x : Vec3(-x);
  const Vec3 y = r.cross(xs);
  body.v += inv_m * xs;
  for (int a = 0; a < 3; ++a) body.w[a] += (W(a, 0) * y[0] + W(a, 1) * y[1]) + W(a, 2) * y[2];
}
}  // namespace

void ConstraintSystem::apply_block_impulse(const JointBlock& b, const Vec6& x, State& s) const {
  for (int side = 0; side < 2; ++side)
    if (const int k = b.body[side]; k >= 0) apply_side_impulse(b, side, x, s.bodies[k]);
}

void ConstraintSystem::apply_side_impulse(const JointBlock& b, int side, const Vec6& x, BodyState& body) const {
  const int k = b.body[side];
  const int n = body_dim_[k];
  if (n == 6 && b.ball) {
    ball_impulse(mass_[k].inv_m, mass_[k].Iinv, b.lever[side], side, x.head<3>(), body);
    return;
  }
  if (n == 6) {
    rigid_impulse(b, side, x, body);
    return;
  }
  // a particle: M^-1 = 1/m (diagonal, set by the constructor), so M^-1 J^T x is J^T x scaled, and
  // for one row (a rod) J^T x is one product per entry: the numbers of the general products,
  // without their dispatch
  const double inv_m = mass_[k].inv_m;
  if (b.dim == 1) {
    body.v += inv_m * (b.J_kept[side].row(0).head<3>().transpose() * x[0]);  // a rod: not a ball
    return;
  }
  const Vec3 y = b.J_kept[side].topLeftCorner(b.dim, 3).transpose() * x.head(b.dim);  // kept on a particle
  body.v += inv_m * y;
}

// GCC 12 cannot see that a block's dim is at most 6 and, with the particle path inlined, warns of a
// read past the local Vec6 (-Warray-bounds); the constructor gives every block 1 to 6 rows.
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Warray-bounds"
void ConstraintSystem::apply_impulse_to_body(const Eigen::VectorXd& x, int body, BodyState& out) const {
  Vec6 xb = Vec6::Zero();
  for (int bi : touching_[static_cast<size_t>(body)]) {
    const JointBlock& b = blocks_[static_cast<size_t>(bi)];
    xb.head(b.dim) = x.segment(b.row, b.dim);
    apply_side_impulse(b, b.body[0] == body ? 0 : 1, xb, out);
  }
}
#pragma GCC diagnostic pop

void ConstraintSystem::rigid_impulse(const JointBlock& b, int side, const Vec6& x, BodyState& body) const {
  // fixed-size products (the rows of J past dim are zero; the entries of x past dim are ignored
  // that way, and the callers of apply_block_impulse pass finite ones); one row (a motor, a rod):
  // its products alone, the numbers of the 6 x 6 product, whose other terms are zero
  Vec6 y;
  if (b.dim == 1)
    y = b.J_kept[side].row(0).transpose() * x[0];
  else
    y = (b.J_kept[side].transpose() * x).eval();  // not a ball
  // M^-1 y by the blocks of M^-1 = diag(I / m, W): the sums of the 6 x 6 product without its zero
  // terms, in its order (the same bits; checked on 2 million random products)
  const BodyMass& mk = mass_[static_cast<size_t>(b.body[side])];
  const Mat3& W = mk.Iinv;
  body.v += mk.inv_m * y.head<3>();
  body.w += (W.col(0) * y[3] + W.col(1) * y[4]) + W.col(2) * y[5];
}

void ConstraintSystem::apply_impulse(const Eigen::VectorXd& x, State& s) const {
  Vec6 xb = Vec6::Zero();
  for (const auto& b : blocks_) {
    if (b.ball && rigid_ends(b)) {  // the path of apply_block_impulse, without the call
      const Vec3 xj = x.segment<3>(b.row);
      for (int side = 0; side < 2; ++side)
        if (const int k = b.body[side]; k >= 0) ball_impulse(mass_[k].inv_m, mass_[k].Iinv, b.lever[side], side, xj, s.bodies[k]);
      continue;
    }
    if (b.dim == 3)
      xb.head<3>() = x.segment<3>(b.row);  // a ball joint: the copy at a compile-time size
    else
      xb.head(b.dim) = x.segment(b.row, b.dim);
    apply_block_impulse(b, xb, s);
  }
}

Mat6 ConstraintSystem::coupling(const JointBlock& i, const JointBlock& j) const {
  Mat6 A = Mat6::Zero();
  for (int si = 0; si < 2; ++si)
    for (int sj = 0; sj < 2; ++sj) {
      const int k = i.body[si];
      if (k < 0 || k != j.body[sj]) continue;
      const int n = body_dim_[k];
      // only the top-left parts the product reads are formed: M_k^-1's n x n, a ball joint's three
      // rows (once where i and j are one block and side); the kept blocks by reference
      Mat6 Minv, scratch_i, scratch_j;
      Minv.topLeftCorner<3, 3>() = mass_[k].inv_m * Mat3::Identity();
      if (n == 6) {
        Minv.topRightCorner<3, 3>().setZero();
        Minv.bottomLeftCorner<3, 3>().setZero();
        Minv.bottomRightCorner<3, 3>() = mass_[k].Iinv;
      }
      const Mat6& Ji = formed(i, si) ? ball_rows(i, si, scratch_i) : i.J_kept[si];
      const Mat6& Jj = &i == &j && si == sj ? Ji : (formed(j, sj) ? ball_rows(j, sj, scratch_j) : j.J_kept[sj]);
      A.topLeftCorner(i.dim, j.dim) += Ji.topLeftCorner(i.dim, n) * Minv.topLeftCorner(n, n) *
                                       Jj.topLeftCorner(j.dim, n).transpose();
    }
  return A;
}

void ConstraintSystem::assemble_dense(Eigen::MatrixXd& A) const {
  A.setZero(nrows_, nrows_);
  for_each_coupling([&](int i, int j, const Mat6& Aij) {
    const JointBlock &bi = blocks_[i], &bj = blocks_[j];
    A.block(bi.row, bj.row, bi.dim, bj.dim) = Aij.topLeftCorner(bi.dim, bj.dim);
  });
}

void ConstraintSystem::assemble_dense_lower(Eigen::MatrixXd& A) const {
  // a block's rows all follow those of the blocks before it: the pairs j <= i cover the lower
  // triangle (a diagonal block whole)
  A.setZero(nrows_, nrows_);
  for_each_block_pair(true, [&](int i, int j, const Mat6& Aij) {
    const JointBlock &bi = blocks_[i], &bj = blocks_[j];
    A.block(bi.row, bj.row, bi.dim, bj.dim) = Aij.topLeftCorner(bi.dim, bj.dim);
  });
}

long ConstraintSystem::redundant_rows() const {
  if (nrows_ == 0) return 0;
  Eigen::SparseMatrix<double> L;
  assemble_sparse_lower(L);
  Eigen::SparseMatrix<double> A = L.selfadjointView<Eigen::Lower>();
  A.makeCompressed();
  Eigen::SparseQR<Eigen::SparseMatrix<double>, Eigen::COLAMDOrdering<int>> qr;
  qr.compute(A);
  return nrows_ - static_cast<long>(qr.rank());
}

long redundant_constraints(const Model& model) {
  ConstraintSystem cs(model);
  cs.update(model, initial_state(model));
  return cs.redundant_rows();
}

void ConstraintSystem::assemble_sparse_lower(Eigen::SparseMatrix<double>& A) const {
  std::vector<Eigen::Triplet<double>> t;
  for_each_block_pair(true, [&](int i, int j, const Mat6& Aij) {
    const JointBlock &bi = blocks_[i], &bj = blocks_[j];
    for (int r = 0; r < bi.dim; ++r)
      for (int c = 0; c < bj.dim; ++c)
        if (bi.row + r >= bj.row + c) t.emplace_back(bi.row + r, bj.row + c, Aij(r, c));
  });
  A.resize(nrows_, nrows_);
  A.setFromTriplets(t.begin(), t.end());
}

void ConstraintSystem::refill_sparse_lower(Eigen::SparseMatrix<double>& A) const {
  const int* outer = A.outerIndexPtr();
  const int* inner = A.innerIndexPtr();
  double* value = A.valuePtr();
  for_each_block_pair(true, [&](int i, int j, const Mat6& Aij) {
    const JointBlock &bi = blocks_[i], &bj = blocks_[j];
    for (int c = 0; c < bj.dim; ++c) {
      const int col = bj.row + c;
      const int first = std::max(bi.row, col);  // the rows of block i on or below the diagonal
      if (first >= bi.row + bi.dim) continue;
      // those rows are consecutive, and so are their entries in the column's sorted rows
      const int* at = std::lower_bound(inner + outer[col], inner + outer[col + 1], first);
      double* v = value + (at - inner);
      for (int r = first - bi.row; r < bi.dim; ++r) *v++ = Aij(r, c);
    }
  });
}

}  // namespace mb
