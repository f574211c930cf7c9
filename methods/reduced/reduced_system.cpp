#include "methods/reduced/reduced_system.hpp"

#include <algorithm>

namespace mb {

ReducedSystem ReducedSystem::extract(const Model& model) {
  ReducedSystem r;
  const bool all_particles = std::all_of(model.bodies.begin(), model.bodies.end(),
                                         [](const Body& b) { return b.particle || b.is_static; });
  if (all_particles)
    r.sys_ = PlanarChain::extract(model);
  else
    r.sys_ = ArticulatedTree::extract(model);
  return r;
}

void ReducedSystem::read(const State& s, std::vector<double>& x) const {
  std::visit([&](const auto& sys) { sys.read(s, x); }, sys_);
}

void ReducedSystem::write(const std::vector<double>& x, State& s) const {
  std::visit([&](const auto& sys) { sys.write(x, s); }, sys_);
}

void ReducedSystem::set_loads(const Model& model, double t, double h) {
  // point masses carry no torque; the tree holds the step's average
  if (auto* tree = std::get_if<ArticulatedTree>(&sys_)) {
    average_torques(model, t, h, tau_);
    tree->set_torques(tau_);
  }
}

void ReducedSystem::derivative(const std::vector<double>& x, std::vector<double>& dxdt) const {
  std::visit([&](const auto& sys) { sys.derivative(x, dxdt); }, sys_);
}

void ReducedSystem::normalize(std::vector<double>& x) const {
  if (const auto* tree = std::get_if<ArticulatedTree>(&sys_)) tree->normalize(x);
}

std::vector<double> load_breaks(const Model& model, double t0, double t1) {
  std::vector<double> b;
  for (const AppliedTorque& a : model.torques)
    for (double tb : {a.t_begin, a.t_end})
      if (tb > t0 && tb < t1 && a.t_end > a.t_begin) b.push_back(tb);
  std::sort(b.begin(), b.end());
  b.erase(std::unique(b.begin(), b.end()), b.end());
  return b;
}

}  // namespace mb
