// Imp2 ... Imp10 (schmitt2005 s.2-3): the middle-step impulse procedure, extrapolated.
//
// One middle step of size s from a consistent state (s.2):
//   1. ballistic (free) motion over s/2 (gravity and applied torques included, eqs (1)-(4));
//   2. impulses computed with the look-ahead so that every constraint holds at the end of the
//      step: the prediction spans the remaining s/2 (lookahead=half, default) or a whole s
//      (lookahead=full, the basic method's span); the impulse directions (a rod's direction, the
//      hinge's rotational rows) are taken at the middle (dir=middle, default), at the start of the
//      step (dir=start) or on the prediction of the end point (dir=end);
//   3. ballistic motion over s/2;
//   4. velocity correction.
// Imp(2k) runs n = 1..k consecutive middle steps of h/n from the same start state and combines
// the k results with the weights of weights.hpp (-1/3, 4/3; 5/120, -128/120, 243/120; ...). The
// paper extrapolates positions (s.2) and, for rigid bodies, orientations and angular velocities
// with the same weights (s.3); it is silent on the linear velocities and on what follows:
//   extrapolate=all (default): positions, orientations, velocities, angular velocities;
//   extrapolate=positions: positions and orientations; velocities from the finest run (n = k);
//   orientations: the weighted sum of the unit quaternions (signs aligned with the first),
//   normalised;
//   post=pv (default): impulse position projection then velocity correction, so that the next
//   step starts from a consistent state as the middle step procedure assumes; post=v: velocity
//   correction only; post=none: nothing.
// The joint corrections are solved to round-off by default (tol_p = tol_v = 0: iterate until the
// error stops decreasing): the extrapolation weights (up to 5.8 in magnitude for Imp10) amplify
// whatever residual a finite tolerance leaves, and at 1e-12 or 1e-13 that residual changed
// Imp10's energy drift on pendulum10 at h = 0.005 by up to a factor 10. Claimed order 2k in the paper's sense (p_exact = p + O(h^(2k+1))
// for known forces); schmitt2005 s.6 observes order 3 for Imp4..Imp10 with constraints.
#pragma once
#include <memory>
#include <vector>

#include "methods/impulse/impulse_method.hpp"

namespace mb {

struct ImpOptions {
  int k = 1;  // Imp(2k)
  ImpulseOptions tol{0, 0, 1000};  // 0: every joint correction solved to round-off
  bool lookahead_half = true;
  enum class Dir { Start, Middle, End } dir = Dir::Middle;
  bool extrapolate_velocities = true;
  enum class Post { None, V, PV } post = Post::PV;
};

class HigherOrderImpulse final : public Method {
 public:
  HigherOrderImpulse(MethodInfo info, ImpOptions opt, std::unique_ptr<Corrector> corrector);
  const MethodInfo& info() const override { return info_; }
  // the k weights in double
  const std::vector<double>& weights() const { return w_; }

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  void middle_step(const Model& model, State& s, double step, StepStats& stats);

  MethodInfo info_;
  ImpOptions opt_;
  std::unique_ptr<Corrector> corrector_;
  bool extra_rows_ = false;  // corrector_ went through with_extra_rows
  std::vector<double> w_;
  StepLoads loads_;
  State tmp_, run_;
  std::vector<State> results_;
};

// Registration helpers: Imp2 .. Imp10 are HigherOrderImpulse with k = 1 .. 5.
MethodInfo describe_imp(int k);
std::unique_ptr<Method> make_imp(int k, const MethodOptions& options);

}  // namespace mb
