#include "methods/reduced/reduced_system.hpp"

#include "models/actuators.hpp"

#include <algorithm>
#include <cmath>

#include <Eigen/LU>
#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

ReducedSystem ReducedSystem::extract(const Model& model) {
  ReducedSystem r;
  r.model_ = TreeModel::build(model);
  r.data_ = TreeData(r.model_);
  for (const TreePrescribed& p : r.model_.prescribed) {
    const Motor& mo = model.motors[static_cast<size_t>(p.motor)];
    r.drives_.push_back({p.link, mo.mode, mo.target, p.sign});
  }
  return r;
}

void ReducedSystem::target(const Drive& d, double t, double& q, double& v, double& a) const {
  // a table's slope: its segment's over the interval (set_interval), also at the interval's ends
  const double ts = d.target.kind == TargetKind::Table ? segment_t_ : t;
  if (d.mode == MotorMode::Position) {
    q = d.sign * d.target.at(t);
    v = d.sign * d.target.rate_at(ts);
    a = d.sign * d.target.accel_at(t);
  } else {
    q = 0;
    v = d.sign * d.target.at(t);
    a = d.sign * d.target.rate_at(ts);
  }
}

void ReducedSystem::drive_derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t, const double* qdd) {
  xs_ = x;
  const TreeView tv{model_, data_};
  for (size_t k = 0; k < drives_.size(); ++k) {
    const Drive& d = drives_[k];
    const TreeLink& L = model_.link[static_cast<size_t>(d.link)];
    double q, v, a;
    target(d, t, q, v, a);
    if (d.mode == MotorMode::Position) xs_[static_cast<size_t>(L.iq)] = q;
    xs_[static_cast<size_t>(model_.nq + L.iv)] = v;
    tv.qdd(d.link)[0] = qdd ? qdd[k] : a;
  }
  tree_derivative(model_, data_, xs_, dxdt);
}

void ReducedSystem::free_derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t) {
  if (drives_.empty())
    tree_derivative(model_, data_, x, dxdt);
  else
    drive_derivative(x, dxdt, t, nullptr);
}

void ReducedSystem::derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t) {
  if (control_model_) controls_at(*control_model_, t, data_.ctrl);
  free_derivative(x, dxdt, t);
  if (!model_.couplings.empty()) couple(x, dxdt, t);
}

void ReducedSystem::couple(const std::vector<double>& x, std::vector<double>& dxdt, double t) {
  const std::vector<TreeCoupling>& cs = model_.couplings;
  const int n = static_cast<int>(cs.size());
  const size_t nq = static_cast<size_t>(model_.nq);
  auto vel = [&](int link) { return nq + static_cast<size_t>(model_.link[static_cast<size_t>(link)].iv); };
  response_.resize(cs.size());
  for (int k = 0; k < n; ++k) {
    const TreeCoupling& c = cs[static_cast<size_t>(k)];
    data_.coupling_force[static_cast<size_t>(c.a)] += 1;
    data_.coupling_force[static_cast<size_t>(c.b)] -= c.multiplier;
    free_derivative(x, response_[static_cast<size_t>(k)], t);
    std::fill(data_.coupling_force.begin(), data_.coupling_force.end(), 0.0);
    std::vector<double>& r = response_[static_cast<size_t>(k)];
    for (size_t i = nq; i < r.size(); ++i) r[i] -= dxdt[i];
  }
  Eigen::MatrixXd S(n, n);
  Eigen::VectorXd rhs(n);
  for (int i = 0; i < n; ++i) {
    const TreeCoupling& c = cs[static_cast<size_t>(i)];
    rhs(i) = -(dxdt[vel(c.a)] - c.multiplier * dxdt[vel(c.b)]);
    for (int k = 0; k < n; ++k) {
      const std::vector<double>& r = response_[static_cast<size_t>(k)];
      S(i, k) = r[vel(c.a)] - c.multiplier * r[vel(c.b)];
    }
  }
  // S = G M^-1 G^T: positive definite where the couplings are independent
  const Eigen::VectorXd lambda = S.fullPivLu().solve(rhs);
  for (int k = 0; k < n; ++k)
    for (size_t i = nq; i < dxdt.size(); ++i) dxdt[i] += lambda(k) * response_[static_cast<size_t>(k)][i];
}

void ReducedSystem::prescribe(std::vector<double>& x, double t) {
  if (drives_.empty()) return;
  segment_t_ = t;  // a table's rate from t on: at one of its points, the next segment's
  qdd_.assign(drives_.size(), 0.0);
  bool jump = false;
  for (size_t k = 0; k < drives_.size(); ++k) {
    const Drive& d = drives_[k];
    const TreeLink& L = model_.link[static_cast<size_t>(d.link)];
    double q, v, a;
    target(d, t, q, v, a);
    if (d.mode == MotorMode::Position) x[static_cast<size_t>(L.iq)] = q;
    qdd_[k] = v - x[static_cast<size_t>(model_.nq + L.iv)];
    jump = jump || qdd_[k] != 0;
  }
  if (!jump) return;
  drive_derivative(x, d1_, t, qdd_.data());
  std::fill(qdd_.begin(), qdd_.end(), 0.0);
  drive_derivative(x, d0_, t, qdd_.data());
  for (int i = 0; i < model_.nv; ++i) x[static_cast<size_t>(model_.nq + i)] += d1_[static_cast<size_t>(model_.nq + i)] - d0_[static_cast<size_t>(model_.nq + i)];
  // the driven rates exactly at their targets
  for (const Drive& d : drives_) {
    double q, v, a;
    target(d, t, q, v, a);
    x[static_cast<size_t>(model_.nq + model_.link[static_cast<size_t>(d.link)].iv)] = v;
  }
}

void ReducedSystem::check_couplings(const Model& model, const std::vector<double>& x) const {
  for (const TreeCoupling& c : model_.couplings) {
    const double va = x[static_cast<size_t>(model_.nq + model_.link[static_cast<size_t>(c.a)].iv)];
    const double vb = c.multiplier * x[static_cast<size_t>(model_.nq + model_.link[static_cast<size_t>(c.b)].iv)];
    if (!(std::abs(va - vb) <= 1e-9 * (1 + std::abs(va) + std::abs(vb))))
      throw UnsupportedModel(fmt::format("coupling '{}': the initial velocities break it by {:.3g}; reduced coordinates hold a coupling "
                                         "from a start that keeps it",
                                         model.couplings[static_cast<size_t>(c.index)].name, va - vb));
  }
}

std::vector<double> motor_breaks(const Model& model, double t0, double t1) {
  std::vector<double> b;
  for (const Motor& mo : model.motors)
    if (mo.target.kind == TargetKind::Table)
      for (double tb : mo.target.times)
        if (tb > t0 && tb < t1) b.push_back(tb);
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

void ReducedSystem::set_loads(const Model& model, double t, double h) {
  // point masses carry no torque: a tree of them needs no loads
  if (model_.point_masses) return;
  average_torques(model, t, h, data_.tau);
  if (!model_.actuators.empty()) controls_at(model, t, data_.ctrl);
}

std::vector<double> load_breaks(const Model& model, double t0, double t1) {
  std::vector<double> b;
  for (const AppliedLoad& a : model.loads)
    for (double tb : {a.t_begin, a.t_end})
      if (tb > t0 && tb < t1 && a.t_end > a.t_begin) b.push_back(tb);
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

}  // namespace mb
