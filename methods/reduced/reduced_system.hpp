// The reduced (generalized-coordinate) system behind GC4 and `ref`: the model's equations of
// motion as a first-order ODE x' = f(x) for Boost.Odeint, on either representation
//   - PlanarChain (planar_chain.hpp): planar chains of point masses on rods (the pendulum family
//     of schmitt2005), in rod angles; or
//   - ArticulatedTree (articulated.hpp): trees of rigid bodies with free, ball, hinge and fixed
//     joints, Featherstone's articulated-body algorithm.
// Dispatch: a model whose dynamic bodies are all point masses goes to PlanarChain (whose error
// names why a point-mass model is refused); any other model to ArticulatedTree.
#pragma once
#include <variant>
#include <vector>

#include "methods/reduced/articulated.hpp"
#include "methods/reduced/planar_chain.hpp"

namespace mb {

class ReducedSystem {
 public:
  // Throws UnsupportedModel naming why when neither representation fits.
  static ReducedSystem extract(const Model& model);

  const ArticulatedTree* tree() const { return std::get_if<ArticulatedTree>(&sys_); }
  void read(const State& s, std::vector<double>& x) const;
  void write(const std::vector<double>& x, State& s) const;
  // applied torques averaged over [t, t + h] (average_torques), held until the next call
  void set_loads(const Model& model, double t, double h);
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const;
  // unit quaternions after an (accepted) step
  void normalize(std::vector<double>& x) const;

 private:
  std::variant<PlanarChain, ArticulatedTree> sys_;
  std::vector<Vec3> tau_;
};

// Times in (t0, t1) where an applied torque of the model switches on or off, sorted: `ref` ends
// internal steps there so the discontinuous forcing is integrated exactly.
std::vector<double> load_breaks(const Model& model, double t0, double t1);

}  // namespace mb
