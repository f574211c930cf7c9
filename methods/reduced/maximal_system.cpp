#include "methods/reduced/maximal_system.hpp"

#include <cmath>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

namespace {
constexpr int kMaxProjections = 50;
// joint errors at or below this are round-off for the projection (m, rad)
constexpr double kProjectionTolerance = 1e-14;
}  // namespace

MaximalSystem MaximalSystem::extract(const Model& model) {
  MaximalSystem m;
  m.model_ = model;
  m.offset_.assign(model.bodies.size(), -1);
  for (size_t k = 0; k < model.bodies.size(); ++k) {
    const Body& b = model.bodies[k];
    if (b.is_static) continue;
    m.offset_[k] = m.n_;
    m.n_ += b.particle ? 6 : 13;
  }
  return m;
}

MaximalData::MaximalData(const MaximalSystem& system) {
  const Model& model = system.model();
  acc.init(model, make_min_norm_solver, AccelerationTerms{});
  cs = ConstraintSystem(model);
  tmp = initial_state(model);
  step_loads(model, 0, 1, loads);
}

void MaximalSystem::read(const State& s, std::vector<double>& x) const {
  x.assign(static_cast<size_t>(n_), 0.0);
  for (size_t k = 0; k < model_.bodies.size(); ++k) {
    if (offset_[k] < 0) continue;
    double* p = x.data() + offset_[k];
    const BodyState& b = s.bodies[k];
    for (int i = 0; i < 3; ++i) *p++ = b.x[i];
    if (!model_.bodies[k].particle) *p++ = b.q.w(), *p++ = b.q.x(), *p++ = b.q.y(), *p++ = b.q.z();
    for (int i = 0; i < 3; ++i) *p++ = b.v[i];
    if (!model_.bodies[k].particle)
      for (int i = 0; i < 3; ++i) *p++ = b.w[i];
  }
}

void MaximalSystem::write(const std::vector<double>& x, State& s) const {
  if (s.bodies.size() != model_.bodies.size()) s = initial_state(model_);
  for (size_t k = 0; k < model_.bodies.size(); ++k) {
    if (offset_[k] < 0) continue;
    const double* p = x.data() + offset_[k];
    BodyState& b = s.bodies[k];
    b.x = Vec3(p[0], p[1], p[2]);
    p += 3;
    if (!model_.bodies[k].particle) {
      b.q = Quat(p[0], p[1], p[2], p[3]);
      p += 4;
    }
    b.v = Vec3(p[0], p[1], p[2]);
    p += 3;
    if (!model_.bodies[k].particle) b.w = Vec3(p[0], p[1], p[2]);
  }
}

void MaximalSystem::set_loads(MaximalData& d, const Model& model, double t, double h) const { step_loads(model, t, h, d.loads); }

void MaximalSystem::derivative(MaximalData& data, const std::vector<double>& x, std::vector<double>& dxdt) const {
  write(x, data.tmp);
  // the dynamics use q / |q| (the stepper moves |q| off 1 between projections)
  for (size_t k = 0; k < model_.bodies.size(); ++k)
    if (offset_[k] >= 0 && !model_.bodies[k].particle) data.tmp.bodies[k].q.normalize();
  StepStats unused;
  const StepLoads* loads = &data.loads;
  if (has_state_loads(model_)) {  // spring, joint damper and actuator forces at this state
    loads_at(model_, data.tmp, data.loads, data.state_loads);
    loads = &data.state_loads;
  }
  data.acc.solve(model_, data.tmp, *loads, data.lambda, data.a, unused);
  dxdt.assign(x.size(), 0.0);
  for (size_t k = 0; k < model_.bodies.size(); ++k) {
    if (offset_[k] < 0) continue;
    const bool rigid = !model_.bodies[k].particle;
    const double* p = x.data() + offset_[k];
    double* d = dxdt.data() + offset_[k];
    const int iv = rigid ? 7 : 3;
    for (int i = 0; i < 3; ++i) d[i] = p[iv + i];  // x' = v
    if (rigid) {
      // q' = 1/2 (0, w) q with w in world coordinates
      const Quat q(p[3], p[4], p[5], p[6]);
      const Vec3 w(p[10], p[11], p[12]);
      const Quat dq = Quat(0, w.x(), w.y(), w.z()) * q;
      d[3] = 0.5 * dq.w(), d[4] = 0.5 * dq.x(), d[5] = 0.5 * dq.y(), d[6] = 0.5 * dq.z();
    }
    for (int i = 0; i < 3; ++i) d[iv + i] = data.a.bodies[k].v[i];
    if (rigid)
      for (int i = 0; i < 3; ++i) d[10 + i] = data.a.bodies[k].w[i];
  }
}

void MaximalSystem::normalize(MaximalData& d, std::vector<double>& x) const {
  write(x, d.tmp);
  for (size_t k = 0; k < model_.bodies.size(); ++k)
    if (offset_[k] >= 0 && !model_.bodies[k].particle) d.tmp.bodies[k].q.normalize();
  Eigen::VectorXd e, y;
  Eigen::MatrixXd A;
  State disp = d.tmp;
  double err = 0, prev = INFINITY;
  for (int it = 0;; ++it) {
    d.cs.update(model_, d.tmp);
    d.cs.position_error(model_, d.tmp, e);
    err = d.cs.rows() ? d.cs.max_joint_norm(e) : 0.0;
    if (err <= kProjectionTolerance || (err >= prev && err < 1e-10)) break;
    if (it >= kMaxProjections || !std::isfinite(err))
      throw SimulationError(fmt::format("ref: the projection onto the constraints did not converge (joint error {:.3g})", err));
    prev = err;
    // dx = M^-1 J^T y, A y = -e: as an impulse on bodies at rest, applied as a displacement
    d.cs.assemble_dense(A);
    y = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(A).solve(-e);
    for (auto& b : disp.bodies) b.v.setZero(), b.w.setZero();
    d.cs.apply_impulse(y, disp);
    for (size_t k = 0; k < model_.bodies.size(); ++k) {
      if (offset_[k] < 0) continue;
      BodyState& b = d.tmp.bodies[k];
      b.x += disp.bodies[k].v;
      const Vec3 rot = disp.bodies[k].w;
      if (!model_.bodies[k].particle && rot.norm() > 0)
        b.q = (Quat(Eigen::AngleAxisd(rot.norm(), rot.normalized())) * b.q).normalized();
    }
  }
  d.projected_error = err;
  // velocities onto the tangent space: V -= M^-1 J^T A^+ J V
  if (d.cs.rows()) {
    d.cs.update(model_, d.tmp);
    d.cs.velocity_error(d.tmp, e);
    d.cs.assemble_dense(A);
    y = Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd>(A).solve(-e);
    d.cs.apply_impulse(y, d.tmp);
  }
  read(d.tmp, x);
}

}  // namespace mb
