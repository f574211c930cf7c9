#include "methods/contacts/contacts.hpp"

#include <chrono>
#include <cmath>
#include <utility>

#include <Eigen/Dense>

#include "methods/constraints/constraint_system.hpp"
#include "methods/stopwatch.hpp"

namespace mb {

ContactSet::ContactSet(const Model& model, double margin, bool from_start, bool limits)
    : margin_(margin), enabled_(!model.shapes.empty()), from_start_(from_start) {
  if (enabled_) detector_ = std::make_unique<CollisionDetector>(model, margin);
  if (limits) limits_ = limit_sides(model);
  enabled_ = enabled_ || !limits_.empty();
  inv_mass_.assign(model.bodies.size(), 0.0);
  inv_inertia_.assign(model.bodies.size(), Mat3::Zero());
  for (size_t k = 0; k < model.bodies.size(); ++k)
    if (!model.bodies[k].is_static) inv_mass_[k] = 1.0 / model.bodies[k].mass;
}

void ContactSet::detect(const Model& model, const State& preview, const State& state, StepStats& stats,
                        ArticulationCoupling* coupling) {
  rows_.clear();
  coupling_ = coupling;
  model_ = &model;
  pending_any_ = false;
  if (!enabled_) return;
  const auto t0 = Clock::now();
  found_.clear();
  if (detector_) detector_->detect(model, preview, found_);
  merge_start(model, state);
  update_inertia(model, state);
  auto make_row = [&](const Contact& c, bool at_start) {
    Row r;
    r.c = c;
    r.mat = contact_material(model.materials, model.material_pairs, model.shapes[static_cast<size_t>(c.shape_a)].material,
                             model.shapes[static_cast<size_t>(c.shape_b)].material);
    r.P = contact_frame(c.normal);
    // the lever arms: the contact point where it was found (on the preview, or at the start), from
    // each body's centre of mass, in world axes (the spatial point, not the material one: a ball
    // rolling over the step would tilt a material point's lever by its turn w h, and its normal
    // impulse would then brake its spin)
    const State& found_on = at_start ? state : preview;
    auto lever = [&](int body, const Vec3& local) -> Vec3 {
      return body == kWorld ? Vec3::Zero() : Vec3(found_on.bodies[static_cast<size_t>(body)].q * local);
    };
    r.ra = lever(c.a, c.local_a);
    r.rb = lever(c.b, c.local_b);
    prepare(model, r);
    return r;
  };
  // a pair of shapes with one contact: one row with its friction; with several (a box on a
  // plane): their normal rows, then one friction row at their centroid bounded by the sum of their
  // normal impulses (patch friction, as PhysX's default)
  for (size_t i = 0; i < merged_.size();) {
    size_t j = i + 1;
    while (j < merged_.size() && merged_[j].shape_a == merged_[i].shape_a && merged_[j].shape_b == merged_[i].shape_b) ++j;
    const bool at_start = at_start_[i] != 0;
    if (j == i + 1) {
      rows_.push_back(make_row(merged_[i], at_start));
    } else {
      Contact centre = merged_[i];
      centre.local_a.setZero();
      centre.local_b.setZero();
      Row patch;
      for (size_t k = i; k < j; ++k) {
        Row r = make_row(merged_[k], at_start);
        r.normal_only = true;
        patch.members.push_back(static_cast<int>(rows_.size()));
        rows_.push_back(r);
        centre.local_a += merged_[k].local_a / static_cast<double>(j - i);
        centre.local_b += merged_[k].local_b / static_cast<double>(j - i);
      }
      const std::vector<int> members = patch.members;
      patch = make_row(centre, at_start);
      patch.members = members;
      rows_.push_back(patch);
    }
    i = j;
  }
  stats.contacts = std::max(stats.contacts, static_cast<long>(rows_.size()));
  add_limit_rows(model, preview, state);
  stats.t_contact += since(t0);
}

// a side is a row while its gap on the preview or at the step's start is within the margin
void ContactSet::add_limit_rows(const Model& model, const State& preview, const State& state) {
  limit_rows_ = 0;
  if (limits_.empty()) return;
  limit_state_ = state;
  for (size_t k = 0; k < limits_.size(); ++k) {
    const LimitSide& l = limits_[k];
    const double gap = std::min(limit_gap(model, l, preview), limit_gap(model, l, state));
    if (gap > margin_) continue;
    const Joint& j = model.joints[static_cast<size_t>(l.joint)];
    Row r;
    r.c.a = j.a;
    r.c.b = j.b;
    r.c.shape_a = -1 - static_cast<int>(k);  // the warm start's key: no shape pair has it
    r.c.shape_b = -1;
    r.c.depth = -gap;
    r.P.setIdentity();
    r.limit = static_cast<int>(k);
    r.normal_only = true;
    prepare(model, r);
    rows_.push_back(r);
    ++limit_rows_;
  }
}

// merged_ = the preview's contacts; with from_start_, also the shape pairs found at the start
// (within the margin) that the preview has apart, and the start's contacts replace a pair's preview
// contacts whose normal turned by more than 60 degrees from the start's (the preview passed through:
// a box-box query then pushes out on the far side). Otherwise the preview's stay (tomcin2014 s.7):
// their points are where the step will have the bodies, which the levers at the end of the step need
// (a rolling ball's start point has turned away from the floor by then). A start contact's depth,
// which only decides whether it collides, is the pair's deepest on the preview, or its own gap
// (negative: speculative) when the preview has the pair apart.
void ContactSet::merge_start(const Model& model, const State& state) {
  merged_.clear();
  at_start_.clear();
  if (!from_start_ || !detector_) {
    merged_ = found_;
    at_start_.assign(found_.size(), 0);
    return;
  }
  detector_->detect(model, state, start_found_);
  // the detector orders its contacts by the shape pair (lower index, higher index)
  auto key = [](const Contact& c) { return std::make_pair(std::min(c.shape_a, c.shape_b), std::max(c.shape_a, c.shape_b)); };
  auto take = [&](const Contact& c, bool at_start) {
    merged_.push_back(c);
    at_start_.push_back(at_start ? 1 : 0);
  };
  size_t i = 0, k = 0;
  while (i < found_.size() || k < start_found_.size()) {
    if (k == start_found_.size() || (i < found_.size() && key(found_[i]) < key(start_found_[k]))) {
      take(found_[i++], false);  // a pair new over the step
      continue;
    }
    const size_t k0 = k, i0 = i;
    while (k < start_found_.size() && key(start_found_[k]) == key(start_found_[k0])) ++k;
    while (i < found_.size() && key(found_[i]) == key(start_found_[k0])) ++i;
    // the start's normal from a to b of the preview's orientation of the pair
    auto start_normal = [&](const Contact& p) {
      const Contact& s0 = start_found_[k0];
      return s0.shape_a == p.shape_a ? s0.normal : Vec3(-s0.normal);
    };
    bool turned = false;
    double deepest = -INFINITY;
    for (size_t j = i0; j < i; ++j) {
      turned = turned || found_[j].normal.dot(start_normal(found_[j])) < 0.5;
      deepest = std::max(deepest, found_[j].depth);
    }
    if (i > i0 && !turned) {
      for (size_t j = i0; j < i; ++j) take(found_[j], false);
      continue;
    }
    for (size_t j = k0; j < k; ++j) {
      take(start_found_[j], true);
      if (i > i0) merged_.back().depth = deepest;
    }
  }
}

void ContactSet::update_inertia(const Model& model, const State& state) {
  for (size_t k = 0; k < model.bodies.size(); ++k) {
    const Body& b = model.bodies[k];
    if (b.is_static || b.particle) continue;
    const Mat3 R = state.bodies[k].q.toRotationMatrix();
    inv_inertia_[k] = R * b.inertia.inverse() * R.transpose();
  }
}

void ContactSet::prepare(const Model& model, Row& r) {
  if (r.limit >= 0) {
    limit_jacobian(model, limit_state_, limits_[static_cast<size_t>(r.limit)], r.Jl);
    double k = 0;  // J M^-1 J^T
    for (int side = 0; side < 2; ++side) {
      const int body = side == 0 ? r.c.a : r.c.b;
      if (body == kWorld) continue;
      const Eigen::Matrix<double, 1, 6>& J = r.Jl[side];
      k += inv_mass_[static_cast<size_t>(body)] * J.head<3>().squaredNorm() +
           J.tail<3>() * inv_inertia_[static_cast<size_t>(body)] * J.tail<3>().transpose();
    }
    r.K.setIdentity();
    r.K(0, 0) = k;
    r.Y.resize(0, 3);
    r.coupled = coupling_ == nullptr;
    return;
  }
  const Contact& c = r.c;
  Mat3 W = Mat3::Zero();  // the compliance of the two points: dv_rel = W p
  auto add = [&](int body, const Vec3& lever) {
    if (body == kWorld) return;
    W += inv_mass_[static_cast<size_t>(body)] * Mat3::Identity();
    if (!model.bodies[static_cast<size_t>(body)].particle) {
      const Mat3 rx = skew(lever);
      W -= rx * inv_inertia_[static_cast<size_t>(body)] * rx;
    }
  };
  add(c.a, r.ra);
  add(c.b, r.rb);
  r.K = r.P * W * r.P.transpose();
  r.Y.resize(0, 3);
  r.coupled = coupling_ == nullptr;
}

void ContactSet::couple(Row& r) {
  if (r.coupled) return;
  r.coupled = true;
  const Model& model = *model_;
  const Contact& c = r.c;
  // the rows' Jacobian blocks: u = P (v_b + w_b x r_b) - P (v_a + w_a x r_a)
  auto jacobian = [&](int body, const Vec3& lever, double sign) {
    Eigen::Matrix<double, 3, 6> J = Eigen::Matrix<double, 3, 6>::Zero();
    if (body == kWorld || model.bodies[static_cast<size_t>(body)].is_static) return J;
    if (r.limit >= 0) {  // its one row
      J.row(0) = r.Jl[sign > 0 ? 1 : 0];
      return J;
    }
    J.leftCols<3>() = sign * r.P;
    if (!model.bodies[static_cast<size_t>(body)].particle) J.rightCols<3>() = -sign * r.P * skew(lever);
    return J;
  };
  auto moving = [&](int body) { return body != kWorld && !model.bodies[static_cast<size_t>(body)].is_static ? body : -1; };
  Mat3 BtY;
  if (coupling_->couple(moving(c.a), jacobian(c.a, r.ra, -1), moving(c.b), jacobian(c.b, r.rb, 1), r.Y, BtY))
    r.K -= BtY;
  else
    r.Y.resize(0, 3);
}

void ContactSet::refresh(const Model& model, const State& state) {
  if (rows_.empty()) return;
  model_ = &model;
  update_inertia(model, state);
  if (!limits_.empty()) limit_state_ = state;
  // at the end of the step the contact points are where the bodies now are
  for (Row& r : rows_) {
    if (r.limit >= 0) {
      prepare(model, r);
      continue;
    }
    if (r.c.a != kWorld) r.ra = state.bodies[static_cast<size_t>(r.c.a)].q * r.c.local_a;
    if (r.c.b != kWorld) r.rb = state.bodies[static_cast<size_t>(r.c.b)].q * r.c.local_b;
    prepare(model, r);
  }
}

const BodyState& ContactSet::body(const State& s, int k, BodyState& scratch) {
  const BodyState& stored = s.bodies[static_cast<size_t>(k)];
  if (!pending_any_) return stored;
  scratch = stored;
  coupling_->joint_impulse_on_body(pending_, k, scratch);
  return scratch;
}

void ContactSet::flush(State& s) {
  if (!pending_any_) return;
  coupling_->apply_joint_impulse(pending_, s);
  pending_.setZero();
  pending_any_ = false;
}

Vec3 ContactSet::relative_velocity(const Row& r, const State& s) {
  if (r.limit >= 0) {
    double u = 0;
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? r.c.a : r.c.b;
      if (k == kWorld) continue;
      const BodyState& b = body(s, k, side == 0 ? va_ : vb_);
      u += r.Jl[side].head<3>().dot(b.v) + r.Jl[side].tail<3>().dot(b.w);
    }
    return Vec3(u, 0, 0);
  }
  auto point_velocity = [&](int k, const Vec3& lever, BodyState& scratch) -> Vec3 {
    if (k == kWorld) return Vec3::Zero();
    const BodyState& b = body(s, k, scratch);
    return b.v + b.w.cross(lever);
  };
  return r.P * (point_velocity(r.c.b, r.rb, vb_) - point_velocity(r.c.a, r.ra, va_));
}

void ContactSet::apply(const Row& r, const Vec3& dlambda, State& s) {
  const Vec3 p = r.P.transpose() * dlambda;  // world impulse on b; -p on a
  auto push = [&](int body, const Vec3& lever, const Vec3& impulse) {
    if (body == kWorld || inv_mass_[static_cast<size_t>(body)] == 0) return;
    BodyState& b = s.bodies[static_cast<size_t>(body)];
    b.v += inv_mass_[static_cast<size_t>(body)] * impulse;
    b.w += inv_inertia_[static_cast<size_t>(body)] * lever.cross(impulse);
  };
  if (r.limit >= 0) {  // M^-1 J^T dlambda
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? r.c.a : r.c.b;
      if (k == kWorld || inv_mass_[static_cast<size_t>(k)] == 0) continue;
      BodyState& b = s.bodies[static_cast<size_t>(k)];
      b.v += inv_mass_[static_cast<size_t>(k)] * dlambda(0) * r.Jl[side].head<3>().transpose();
      b.w += inv_inertia_[static_cast<size_t>(k)] * (dlambda(0) * r.Jl[side].tail<3>().transpose());
    }
  } else {
    push(r.c.b, r.rb, p);
    push(r.c.a, r.ra, -p);
  }
  if (r.Y.rows() > 0) {
    if (!pending_any_) pending_.setZero(r.Y.rows());
    // row by row (a general product's dispatch costs more, at three columns, than its sums)
    const Eigen::Index n = r.Y.rows();
    const double *y0 = r.Y.col(0).data(), *y1 = r.Y.col(1).data(), *y2 = r.Y.col(2).data();
    double* p = pending_.data();
    for (Eigen::Index i = 0; i < n; ++i) p[i] -= (y0[i] * dlambda[0] + y1[i] * dlambda[1]) + y2[i] * dlambda[2];
    pending_any_ = true;
  }
}

double ContactSet::normal_impulse(const Row& r) const {
  if (r.members.empty()) return r.lambda(0);
  double sum = 0;
  for (int m : r.members) sum += rows_[static_cast<size_t>(m)].lambda(0);
  return sum;
}

// the comment in contacts.hpp; lambda(nu) = (Ktt + nu 1)^-1 Ktt lambda_s, whose length falls
// monotonically with nu: |lambda(nu)| = radius is solved in Ktt's eigenbasis by Newton's method on
// 1 / |lambda(nu)| (concave in nu, so from nu = 0 the iterates rise monotonically to the root),
// safeguarded by bisection.
Eigen::Matrix3d contact_frame(const Vec3& n) {
  const Vec3 t1 = n.unitOrthogonal(), t2 = n.cross(t1);
  Eigen::Matrix3d P;
  P.row(0) = n.transpose();
  P.row(1) = t1.transpose();
  P.row(2) = t2.transpose();
  return P;
}

Eigen::Vector2d slide_friction(const Eigen::Matrix2d& Ktt, const Eigen::Vector2d& stick, double radius) {
  if (!(radius > 0)) return Eigen::Vector2d::Zero();
  if (stick.norm() <= radius) return stick;
  return slide_friction(Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>(Ktt), stick, radius);
}

Eigen::Vector2d slide_friction(const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>& es, const Eigen::Vector2d& stick, double radius) {
  if (!(radius > 0)) return Eigen::Vector2d::Zero();
  if (stick.norm() <= radius) return stick;
  const Eigen::Vector2d k = es.eigenvalues().cwiseMax(0.0);
  if (!(k.minCoeff() > 0)) return stick * (radius / stick.norm());  // no tangential compliance to weigh
  const Eigen::Vector2d c = (es.eigenvectors().transpose() * stick).cwiseProduct(k);  // Q^T Ktt lambda_s
  auto lambda_of = [&](double nu) { return Eigen::Vector2d(c(0) / (k(0) + nu), c(1) / (k(1) + nu)); };
  double lo = 0, hi = k.maxCoeff() * stick.norm() / radius;  // |lambda(hi)| <= radius
  double nu = 0;
  for (int it = 0; it < 100; ++it) {
    const Eigen::Vector2d l = lambda_of(nu);
    const double n = l.norm();
    (n > radius ? lo : hi) = nu;
    if (std::abs(n - radius) <= 1e-14 * radius || hi - lo <= 1e-15 * hi) break;
    // d|lambda|/dnu = -sum l_i^2 / (k_i + nu) / |lambda|;  phi = 1/|lambda| - 1/radius
    const double dn = -(l(0) * l(0) / (k(0) + nu) + l(1) * l(1) / (k(1) + nu)) / n;
    const double step = -(1 / n - 1 / radius) / (-dn / (n * n));
    nu = nu + step;
    if (!(nu > lo && nu < hi)) nu = 0.5 * (lo + hi);
  }
  return es.eigenvectors() * lambda_of(nu) * (radius / lambda_of(nu).norm());
}

Vec3 ContactSet::project(Row& r, const Vec3& du) {
  if (r.normal_only) {
    const double ln = std::max(0.0, r.lambda(0) + du(0) / r.K(0, 0));
    const Vec3 d(ln - r.lambda(0), 0, 0);
    r.lambda(0) = ln;
    return d;
  }
  // normal first, with the normal row's own effective mass (a patch's friction row: the sum of
  // its members' normal impulses)
  const double ln = r.members.empty() ? std::max(0.0, r.lambda(0) + du(0) / r.K(0, 0)) : normal_impulse(r);
  const double dn = r.members.empty() ? ln - r.lambda(0) : 0.0;
  // then the tangential rows, for the velocity change left after the normal impulse
  const Eigen::Vector2d dut = du.tail<2>() - r.K.block<2, 1>(1, 0) * dn;
  const Eigen::Matrix2d Ktt = r.K.block<2, 2>(1, 1);
  Eigen::Vector2d lt = r.lambda.tail<2>() + Ktt.ldlt().solve(dut);
  const double norm = lt.norm();
  if (norm > r.mat.mu_static * ln) lt = slide_friction(Ktt, lt, r.mat.mu_dynamic * ln);
  const Vec3 next(r.members.empty() ? ln : 0.0, lt(0), lt(1));
  const Vec3 d = next - r.lambda;
  r.lambda = next;
  return d;
}

// a patch's friction row takes part while one of its normal rows does
void ContactSet::activate_patches() {
  for (Row& r : rows_)
    if (!r.members.empty()) {
      r.active = false;
      for (int m : r.members) r.active = r.active || rows_[static_cast<size_t>(m)].active;
    }
}

bool ContactSet::begin_collision_phase(const State& state, double tol) {
  bool any = false;
  for (Row& r : rows_) {
    r.lambda.setZero();
    const double un = relative_velocity(r, state)(0);
    r.active = un < -tol && r.mat.restitution > 0 && r.c.depth > 0;  // a speculative contact does not collide
    r.target_n = r.active ? -r.mat.restitution * un : 0.0;
    any = any || r.active;
  }
  activate_patches();
  return any;
}

void ContactSet::begin_position_phase() {
  for (Row& r : rows_) r.lambda.setZero(), r.active = true;
}

bool ContactSet::row_error(const Row& r, double normal_with_impulse, double normal_without, const Eigen::Vector2d& tangential,
                          double& err) const {
  const double ln = normal_impulse(r);
  // a contact sticks while its tangential impulse is inside the static cone
  const bool sticking = !r.normal_only && r.lambda.tail<2>().norm() < r.mat.mu_static * ln * (1 - 1e-12);
  err = 0;
  if (r.members.empty()) {
    if (r.lambda(0) == 0 && normal_without <= 0) return false;  // apart and no impulse: nothing to do
    err = r.lambda(0) > 0 ? normal_with_impulse : normal_without;
  } else if (ln == 0 && r.lambda.tail<2>().isZero()) {
    return false;  // a patch not pressed: no friction
  }
  if (ln > 0 && sticking) err = std::max(err, tangential.norm());
  return true;
}

double ContactSet::collision_sweep(State& state, double tol, bool hold) {
  double worst = 0;
  for (Row& r : rows_) {
    if (!r.active) continue;
    const Vec3 u = relative_velocity(r, state);
    double err = 0;
    if (!row_error(r, std::abs(u(0) - r.target_n), r.target_n - u(0), u.tail<2>(), err)) continue;
    worst = std::max(worst, err);
    // a patch's friction row is projected again in every sweep, after its normal rows: its bound
    // follows their sum, and its direction the slide left after them (a sliding patch must not
    // keep the bound and direction of an early sweep)
    if (err <= tol && r.members.empty()) continue;
    const Vec3 du(r.members.empty() ? r.target_n - u(0) : 0.0, -u(1), -u(2));
    couple(r);
    apply(r, project(r, du), state);
  }
  if (!hold) flush(state);
  return worst;
}

double ContactSet::position_sweep(const Model& model, const StepLoads& loads, double h, State& state, bool limits_only) {
  double worst = 0;
  for (Row& r : rows_) {
    if (limits_only && r.limit < 0) continue;
    if (r.limit >= 0) {
      // the joint's coordinate after the free motion over h
      for (const int k : {r.c.a, r.c.b}) {
        if (k == kWorld) continue;
        const size_t i = static_cast<size_t>(k);
        free_motion_body(model.bodies[i], loads.force[i], loads.torque[i], h, body(state, k, va_), limit_state_.bodies[i]);
      }
      const double gap = limit_gap(model, limits_[static_cast<size_t>(r.limit)], limit_state_);
      double err = 0;
      if (!row_error(r, std::abs(gap), -gap, Eigen::Vector2d::Zero(), err)) continue;
      worst = std::max(worst, err);
      if (err == 0) continue;
      couple(r);
      apply(r, project(r, Vec3(-gap / h, 0, 0)), state);
      continue;
    }
    // the contact points now and after the free motion over h
    Vec3 now_a = r.c.local_a, now_b = r.c.local_b, pred_a = now_a, pred_b = now_b;
    if (r.c.a != kWorld) {
      const size_t k = static_cast<size_t>(r.c.a);
      free_motion_body(model.bodies[k], loads.force[k], loads.torque[k], h, body(state, r.c.a, va_), pa_);
      now_a = body_point(state, r.c.a, r.c.local_a);
      pred_a = pa_.x + pa_.q * r.c.local_a;
    }
    if (r.c.b != kWorld) {
      const size_t k = static_cast<size_t>(r.c.b);
      free_motion_body(model.bodies[k], loads.force[k], loads.torque[k], h, body(state, r.c.b, vb_), pb_);
      now_b = body_point(state, r.c.b, r.c.local_b);
      pred_b = pb_.x + pb_.q * r.c.local_b;
    }
    const double gap = r.c.normal.dot(pred_b - pred_a);
    const Vec3 slide = r.P * ((pred_b - now_b) - (pred_a - now_a));  // rows 1, 2: tangential displacement
    double err = 0;
    if (!row_error(r, std::abs(gap), -gap, slide.tail<2>(), err)) continue;
    worst = std::max(worst, err);
    // no dead band: a penetration below the tolerance is corrected too (the tolerance ends the
    // sweeps). Left alone, one of g h^2 / 2 per step would add up to the tolerance and then be
    // pushed out within one step, leaving the body separating at tol / h (0.04 m/s at h = 25 us),
    // which the velocity phase (u_n >= 0) keeps: a resting body would hop, gaining energy.
    if (err == 0 && r.members.empty()) continue;  // a patch's friction row: always (collision_sweep)
    const Vec3 du(r.members.empty() ? -gap / h : 0.0, -slide(1) / h, -slide(2) / h);
    couple(r);
    apply(r, project(r, du), state);
  }
  flush(state);
  return worst;
}

void ContactSet::begin_velocity_phase(const State& state, double slack) {
  for (Row& r : rows_) {
    r.lambda.setZero();
    r.target_n = 0;  // the velocity phase is the collision phase's sweep with no separating velocity
    const double gap = r.limit >= 0 ? limit_gap(*model_, limits_[static_cast<size_t>(r.limit)], state)
                                    : r.c.normal.dot(body_point(state, r.c.b, r.c.local_b) - body_point(state, r.c.a, r.c.local_a));
    r.active = gap <= slack;
  }
  activate_patches();
}

double ContactSet::velocity_sweep(State& state, double tol, bool hold) { return collision_sweep(state, tol, hold); }

template <class F>
void ContactSet::for_each_place(F&& f) const {
  for (size_t i = 0; i < rows_.size();) {
    size_t j = i + 1;
    while (j < rows_.size() && rows_[j].c.shape_a == rows_[i].c.shape_a && rows_[j].c.shape_b == rows_[i].c.shape_b) ++j;
    for (size_t k = i; k < j; ++k) f(k, static_cast<int>(k - i), static_cast<int>(j - i));
    i = j;
  }
}

void ContactSet::keep(Phase phase, double span) {
  std::vector<Kept>& kept = kept_[static_cast<int>(phase)];
  kept.clear();
  kept_span_[static_cast<int>(phase)] = span;
  for_each_place([&](size_t k, int place, int count) {
    const Row& r = rows_[k];
    if (r.lambda.isZero(0.0)) return;
    kept.push_back({r.c.shape_a, r.c.shape_b, place, count, r.P.transpose() * r.lambda});
  });
}

void ContactSet::warm(Phase phase, double span, State& state) {
  const std::vector<Kept>& kept = kept_[static_cast<int>(phase)];
  const double was = kept_span_[static_cast<int>(phase)];
  if (kept.empty() || !(was > 0) || !(span > 0)) return;
  const double scale = span / was;
  // kept and rows_ are both ordered by shape pair as the detector orders them; each row looks its
  // pair up (a handful of rows: a scan)
  for_each_place([&](size_t k, int place, int count) {
    Row& r = rows_[k];
    if (!r.active) return;
    for (const Kept& e : kept) {
      if (e.shape_a != r.c.shape_a || e.shape_b != r.c.shape_b || e.place != place || e.count != count) continue;
      Vec3 l = r.P * e.p * scale;
      // onto the cone: lambda_n >= 0, |lambda_t| <= mu_static lambda_n (a patch's friction row: the
      // sum of its members', which precede it)
      const double ln = r.members.empty() ? std::max(0.0, l(0)) : normal_impulse(r);
      if (r.normal_only) {
        l = Vec3(ln, 0, 0);
      } else {
        const double t = l.tail<2>().norm(), bound = r.mat.mu_static * ln;
        if (t > bound) l.tail<2>() *= bound / t;
        l(0) = r.members.empty() ? ln : 0.0;
      }
      if (l.isZero(0.0)) return;
      r.lambda = l;
      couple(r);
      apply(r, l, state);
      return;
    }
  });
  flush(state);
}

}  // namespace mb
