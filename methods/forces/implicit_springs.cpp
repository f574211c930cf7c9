#include "methods/forces/implicit_springs.hpp"


#include "core/error.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// M^-1 of body k applied to a wrench (linear, angular), world frame.
void apply_inverse_mass(const Body& body, const BodyState& bs, const Vec3& f, const Vec3& tau, Vec3& dv, Vec3& dw) {
  dv = f / body.mass;
  if (body.particle) {
    dw.setZero();
    return;
  }
  const Mat3 r = bs.q.toRotationMatrix();
  dw = r * body.inertia.ldlt().solve(r.transpose() * tau);
}

}  // namespace

void ImplicitSprings::loads(const Model& m, const State& s, double h, const StepLoads& step, StepLoads& out,
                            ArticulationCoupling* articulation) {
  if (&out != &step) out = step;
  const size_t n = m.springs.size();
  if (n == 0) return;
  auto dynamic = [&](int k) { return k != kWorld && !m.bodies[k].is_static ? k : -1; };
  rows_.resize(n);
  for (size_t i = 0; i < n; ++i) {
    const Spring& sp = m.springs[i];
    Row& row = rows_[i];
    const Vec3 pa = world_point(m, s, sp.a, sp.anchor_a), pb = world_point(m, s, sp.b, sp.anchor_b);
    const Vec3 dvec = pb - pa;
    const double l = dvec.norm();
    row.a = dynamic(sp.a);
    row.b = dynamic(sp.b);
    row.k = sp.stiffness;
    row.d = h * sp.stiffness + sp.damping;
    row.x = l - sp.rest_length;
    if (!(l > 0) || !(row.d > 0)) {  // no direction (coincident points) or nothing to exert
      row.u.setZero();
      row.d = 0;
    } else {
      row.u = dvec / l;
    }
    row.arm_a = row.a >= 0 ? Vec3(pa - s.bodies[row.a].x) : Vec3::Zero();
    row.arm_b = row.b >= 0 ? Vec3(pb - s.bodies[row.b].x) : Vec3::Zero();
    row.r = (world_point_velocity(m, s, sp.b, sp.anchor_b) - world_point_velocity(m, s, sp.a, sp.anchor_a)).dot(row.u);
  }
  // each spring's sides (its row on a dynamic body), listed by body
  if (by_body_.size() != m.bodies.size()) by_body_.assign(m.bodies.size(), {});
  for (auto& list : by_body_) list.clear();
  for (size_t i = 0; i < n; ++i) {
    Row& row = rows_[i];
    row.side_a = {row.a, -row.u, -row.arm_a.cross(row.u)};
    row.side_b = {row.b, row.u, row.arm_b.cross(row.u)};
    if (row.a >= 0) by_body_[row.a].push_back({static_cast<int>(i), &row.side_a});
    if (row.b >= 0) by_body_[row.b].push_back({static_cast<int>(i), &row.side_b});
  }
  if (articulation && articulated(m, s, h, step, *articulation)) {
    apply(out);
    return;
  }
  // A = D^-1 + h G and b = D^-1 k x + r + h r_o; the pattern (every pair of springs sharing a
  // dynamic body, and the diagonal) is the model's, the same at every step
  triplets_.clear();
  b_.setZero(static_cast<Eigen::Index>(n));
  for (size_t i = 0; i < n; ++i) {
    const Row& row = rows_[i];
    triplets_.emplace_back(static_cast<int>(i), static_cast<int>(i), row.d > 0 ? 1 / row.d : 1.0);
    if (row.d > 0) b_[static_cast<Eigen::Index>(i)] = row.k * row.x / row.d + row.r;  // + h r_o below
  }
  for (size_t k = 0; k < by_body_.size(); ++k) {
    const auto& list = by_body_[k];
    for (const Entry& e1 : list) {
      Vec3 dv, dw;
      apply_inverse_mass(m.bodies[k], s.bodies[k], e1.side->lin, e1.side->ang, dv, dw);
      const bool active1 = rows_[e1.spring].d > 0;
      // r_o: the rate's acceleration by the step's loads (J M^-1 F, M^-1 symmetric)
      if (active1) b_[e1.spring] += h * (step.force[k].dot(dv) + step.torque[k].dot(dw));
      for (const Entry& e2 : list) {
        if (e2.spring > e1.spring) continue;
        const bool active = active1 && rows_[e2.spring].d > 0;
        const double g = active ? h * (e2.side->lin.dot(dv) + e2.side->ang.dot(dw)) : 0.0;
        triplets_.emplace_back(e1.spring, e2.spring, g);
        if (e2.spring != e1.spring) triplets_.emplace_back(e2.spring, e1.spring, g);
      }
    }
  }
  a_.resize(static_cast<Eigen::Index>(n), static_cast<Eigen::Index>(n));
  a_.setFromTriplets(triplets_.begin(), triplets_.end());
  if (!analyzed_) {
    ldlt_.analyzePattern(a_);
    analyzed_ = true;
  }
  ldlt_.factorize(a_);
  if (ldlt_.info() != Eigen::Success) throw SimulationError("implicit springs: the springs' system could not be factored");
  s_ = ldlt_.solve(b_);
  apply(out);
}

bool ImplicitSprings::articulated(const Model& m, const State& s, double h, const StepLoads& step, ArticulationCoupling& art) {
  const auto n = static_cast<Eigen::Index>(rows_.size());
  const auto nb = static_cast<Eigen::Index>(m.bodies.size());
  // columns 0..n-1: M^-1 J_j^T, the free bodies' velocity change by a unit tension row of spring j;
  // column n: M^-1 F, by the step's loads over a unit time
  dv_.setZero(6 * nb, n + 1);
  Vec3 dv, dw;
  for (Eigen::Index j = 0; j < n; ++j) {
    const Row& row = rows_[static_cast<size_t>(j)];
    if (!(row.d > 0)) continue;
    for (const Side* side : {&row.side_a, &row.side_b}) {
      if (side->body < 0) continue;
      apply_inverse_mass(m.bodies[side->body], s.bodies[side->body], side->lin, side->ang, dv, dw);
      dv_.block<3, 1>(6 * side->body, j) += dv;
      dv_.block<3, 1>(6 * side->body + 3, j) += dw;
    }
  }
  for (Eigen::Index k = 0; k < nb; ++k) {
    if (m.bodies[static_cast<size_t>(k)].is_static) continue;
    apply_inverse_mass(m.bodies[static_cast<size_t>(k)], s.bodies[static_cast<size_t>(k)], step.force[static_cast<size_t>(k)],
                       step.torque[static_cast<size_t>(k)], dv, dw);
    dv_.block<3, 1>(6 * k, n) = dv;
    dv_.block<3, 1>(6 * k + 3, n) = dw;
  }
  if (!art.joint_response(dv_, phi_dv_, y_)) return false;
  // spring i's rate change by column c after the joints' impulses -Y: J_i dV_c - (J M^-1 J_i^T)^T Y_c
  auto rate = [&](Eigen::Index i, Eigen::Index c) {
    const Row& row = rows_[static_cast<size_t>(i)];
    double r = -phi_dv_.col(i).dot(y_.col(c));
    for (const Side* side : {&row.side_a, &row.side_b})
      if (side->body >= 0)
        r += side->lin.dot(dv_.block<3, 1>(6 * side->body, c)) + side->ang.dot(dv_.block<3, 1>(6 * side->body + 3, c));
    return r;
  };
  dense_.setZero(n, n);
  b_.setZero(n);
  for (Eigen::Index i = 0; i < n; ++i) {
    const Row& ri = rows_[static_cast<size_t>(i)];
    if (!(ri.d > 0)) {
      dense_(i, i) = 1;  // s = 0
      continue;
    }
    dense_(i, i) = 1 / ri.d;
    b_[i] = ri.k * ri.x / ri.d + ri.r + h * rate(i, n);
    for (Eigen::Index j = 0; j <= i; ++j) {
      if (!(rows_[static_cast<size_t>(j)].d > 0)) continue;
      const double g = h * rate(i, j);
      dense_(i, j) += g;
      if (j != i) dense_(j, i) += g;
    }
  }
  dense_ldlt_.compute(dense_);
  if (dense_ldlt_.info() != Eigen::Success) throw SimulationError("implicit springs: the springs' system could not be factored");
  s_ = dense_ldlt_.solve(b_);
  return true;
}

void ImplicitSprings::apply(StepLoads& out) const {
  for (size_t i = 0; i < rows_.size(); ++i) {
    const Row& row = rows_[i];
    const Vec3 f = s_[static_cast<Eigen::Index>(i)] * row.u;  // on a; -f on b
    if (row.a >= 0) {
      out.force[row.a] += f;
      out.torque[row.a] += row.arm_a.cross(f);
    }
    if (row.b >= 0) {
      out.force[row.b] -= f;
      out.torque[row.b] -= row.arm_b.cross(f);
    }
  }
}

}  // namespace mb
