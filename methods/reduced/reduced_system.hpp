// The reduced (generalized-coordinate) system behind GC4 and `ref`: the model's equations of
// motion as a first-order ODE x' = f(x) for Boost.Odeint, through the one O(n) tree dynamics of
// every tree-structured model: a TreeModel (tree_model.hpp) and its TreeData, Featherstone's
// articulated-body algorithm (aba.hpp) on trees of rigid bodies (free, ball, hinge, slider and
// fixed joints) and on trees of point masses on rods (planar: rod angles, the coordinates of
// schmitt2005 s.5; spatial: swing joints).
// Its error names why a model is refused (closed loops, unsupported joints).
#pragma once
#include <vector>

#include "methods/reduced/aba.hpp"
#include "methods/reduced/tree_kinematics.hpp"

namespace mb {

class ReducedSystem {
 public:
  // Throws UnsupportedModel naming why when the model is not a supported tree.
  static ReducedSystem extract(const Model& model);

  const TreeModel& tree() const { return model_; }
  // a tree of point masses on rods (the pendulum family)
  bool point_masses() const { return model_.point_masses; }
  void read(const State& s, std::vector<double>& x) const { model_.read(s, x); }
  void write(const std::vector<double>& x, State& s) { write_state(model_, data_, x, s); }
  // applied torques averaged over [t, t + h] (average_torques), held until the next call
  void set_loads(const Model& model, double t, double h);
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) { tree_derivative(model_, data_, x, dxdt); }
  // unit quaternions after an (accepted) step
  void normalize(std::vector<double>& x) const { model_.normalize(x); }

 private:
  TreeModel model_;
  TreeData data_;
};

// Times in (t0, t1) where an applied torque of the model switches on or off, sorted: `ref` ends
// internal steps there so the discontinuous forcing is integrated exactly.
std::vector<double> load_breaks(const Model& model, double t0, double t1);

}  // namespace mb
