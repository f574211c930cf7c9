#include "methods/reduced/reduced_system.hpp"

#include <algorithm>

namespace mb {

ReducedSystem ReducedSystem::extract(const Model& model) {
  ReducedSystem r;
  r.model_ = TreeModel::build(model);
  r.data_ = TreeData(r.model_);
  return r;
}

void ReducedSystem::set_loads(const Model& model, double t, double h) {
  // point masses carry no torque: a tree of them needs no loads
  if (model_.point_masses) return;
  average_torques(model, t, h, data_.tau);
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
