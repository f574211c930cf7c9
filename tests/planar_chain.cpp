#include "planar_chain.hpp"

#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"

namespace mbtest {

using namespace mb;

PlanarChain PlanarChain::extract(const Model& m) {
  auto fail = [&](const std::string& why) {
    return UnsupportedModel(fmt::format("model '{}' is not a planar chain of point masses on rods: {}", m.info.name, why));
  };
  const int nb = static_cast<int>(m.bodies.size());
  if (nb == 0) throw fail("it has no bodies");
  if (m.gravity.z() != 0) throw fail("gravity has a z component");
  for (const Body& b : m.bodies) {
    if (b.is_static) throw fail(fmt::format("body '{}' is static (use a world anchor)", b.name));
    if (!b.particle) throw fail(fmt::format("body '{}' is a rigid body, not a point mass", b.name));
    if (b.position.z() != 0 || b.velocity.z() != 0) throw fail(fmt::format("body '{}' is out of the x-y plane", b.name));
  }
  if (static_cast<int>(m.joints.size()) != nb)
    throw fail(static_cast<int>(m.joints.size()) > nb ? "it has more rods than masses (a closed loop): reduced coordinates of a loop are not supported" : "it needs exactly one rod per mass");
  for (const Joint& j : m.joints) {
    if (j.type != JointType::Distance) throw fail(fmt::format("joint '{}' is not a rod (distance joint)", j.name));
    if ((j.a != kWorld && j.anchor_a.norm() != 0) || (j.b != kWorld && j.anchor_b.norm() != 0))
      throw fail(fmt::format("joint '{}' has an anchor offset on a point mass", j.name));
  }
  // walk the path from the world anchor
  PlanarChain c;
  c.n_ = nb;
  c.gx_ = m.gravity.x();
  c.gy_ = m.gravity.y();
  c.L_.resize(nb);
  c.mu_.resize(nb);
  std::vector<bool> used(m.joints.size(), false);
  int prev = kWorld;
  for (int k = 0; k < nb; ++k) {
    int found = -1;
    for (size_t ji = 0; ji < m.joints.size(); ++ji) {
      const Joint& j = m.joints[ji];
      if (used[ji] || (j.a != prev && j.b != prev)) continue;
      if (found >= 0) throw fail("it branches (not a simple chain)");
      found = static_cast<int>(ji);
    }
    if (found < 0) throw fail(prev == kWorld ? "no rod is anchored to the world" : "the chain is broken");
    const Joint& j = m.joints[found];
    used[found] = true;
    if (prev == kWorld) {
      c.pivot_ = j.a == kWorld ? j.anchor_a : j.anchor_b;
      if (c.pivot_.z() != 0) throw fail("the pivot is out of the x-y plane");
    }
    int next = j.a == prev ? j.b : j.a;
    if (next == kWorld) throw fail("both ends of a rod are anchored to the world (closed loop)");
    c.body_.push_back(next);
    c.L_[k] = j.length;
    prev = next;
  }
  double acc = 0;
  for (int k = nb - 1; k >= 0; --k) {
    acc += m.bodies[c.body_[k]].mass;
    c.mu_[k] = acc;
  }
  c.M_.resize(nb, nb);
  c.f_.resize(nb);
  c.a_.resize(nb);
  return c;
}

void PlanarChain::read(const State& s, std::vector<double>& x) const {
  x.assign(2 * n_, 0.0);
  Vec3 p_prev = pivot_, v_prev = Vec3::Zero();
  for (int k = 0; k < n_; ++k) {
    const BodyState& b = s.bodies[body_[k]];
    Vec3 d = b.x - p_prev, dv = b.v - v_prev;
    x[k] = std::atan2(d.x(), -d.y());
    x[n_ + k] = (d.x() * dv.y() - d.y() * dv.x()) / d.squaredNorm();
    p_prev = b.x;
    v_prev = b.v;
  }
}

void PlanarChain::write(const std::vector<double>& x, State& s) const {
  Vec3 p = pivot_, v = Vec3::Zero();
  for (int k = 0; k < n_; ++k) {
    const double sn = std::sin(x[k]), cs = std::cos(x[k]), w = x[n_ + k];
    p += L_[k] * Vec3(sn, -cs, 0);
    v += L_[k] * w * Vec3(cs, sn, 0);
    s.bodies[body_[k]].x = p;
    s.bodies[body_[k]].v = v;
  }
}

Eigen::VectorXd PlanarChain::accelerations(const Eigen::VectorXd& phi, const Eigen::VectorXd& dphi) const {
  solve(phi, dphi);
  return a_;
}

void PlanarChain::solve(const CRef& phi, const CRef& dphi) const {
  // mass matrix and generalized forces (see the header)
  for (int i = 0; i < n_; ++i) {
    double fi = L_[i] * mu_[i] * (gx_ * std::cos(phi[i]) + gy_ * std::sin(phi[i]));
    for (int j = 0; j < n_; ++j) {
      const double mu = mu_[std::max(i, j)], LL = L_[i] * L_[j], dphi_ij = phi[i] - phi[j];
      M_(i, j) = mu * LL * std::cos(dphi_ij);
      fi -= mu * LL * std::sin(dphi_ij) * dphi[j] * dphi[j];
    }
    f_[i] = fi;
  }
  if (n_ == 1) {
    a_[0] = f_[0] / M_(0, 0);
    return;
  }
  Eigen::LLT<Eigen::Ref<Eigen::MatrixXd>> llt(M_);  // in place: M_ is scratch
  a_ = f_;
  llt.solveInPlace(a_);
}

void PlanarChain::derivative(const std::vector<double>& x, std::vector<double>& dxdt) const {
  Eigen::Map<const Eigen::VectorXd> phi(x.data(), n_), dphi(x.data() + n_, n_);
  solve(phi, dphi);
  for (int k = 0; k < n_; ++k) {
    dxdt[k] = x[n_ + k];
    dxdt[n_ + k] = a_[k];
  }
}

}  // namespace mbtest
