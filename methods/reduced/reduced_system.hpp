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
  // x' at (x, t); a motor's coordinate, rate and acceleration are its target's at t. Couplings
  // (TreeCoupling) are held at the acceleration level: the accelerations are affine in the
  // couplings' generalized forces G^T lambda (G_k = e_a - m e_b), so one evaluation more a coupling
  // gives each force's response r_k, and (G r) lambda = -G a_free makes G a = 0. Every Runge-Kutta
  // method keeps a linear invariant, so G v and G q keep their initial values (0: the couplings hold
  // at the start) to round-off.
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t);
  // With a model (`ref`, for a control source that varies within any step: sine), the controls are
  // evaluated at each derivative's t instead of held from set_loads; nullptr: held. The model must
  // outlive the evaluations (a method sets it for the step it is in).
  void evaluate_controls_at_t(const Model* model) { control_model_ = model; }
  // the same at t = 0 (a model without motors does not depend on t)
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) { derivative(x, dxdt, 0); }
  // unit quaternions after an (accepted) step
  void normalize(std::vector<double>& x) const { model_.normalize(x); }

  // Motors (prescribed links, tree_model.hpp).
  bool has_motors() const { return !drives_.empty(); }
  // The interval [a, b] the next evaluations lie in, free of a target table's points inside: a
  // table's slope is its segment's over the interval, also at a point that ends it.
  void set_interval(double a, double b) { segment_t_ = 0.5 * (a + b); }
  // The motors' coordinates of x set to their targets at t (a position motor's coordinate and
  // rate, a velocity motor's rate). A rate that changes passes its impulse to the rest of the tree:
  // the other rates change by -M_ff^-1 M_fp dv_p, the difference of two evaluations' accelerations
  // with qdd_p = dv_p and 0 (the velocity terms cancel). After every step and at the start (an
  // initial rate other than the target's). At a table's point the rate is the next segment's.
  void prescribe(std::vector<double>& x, double t);
  // Throws UnsupportedModel naming a coupling whose velocities x breaks (the acceleration-level
  // coupling keeps G v at its initial value).
  void check_couplings(const Model& model, const std::vector<double>& x) const;

 private:
  struct Drive {
    int link;
    MotorMode mode;
    MotorTarget target;
    double sign;
  };
  // the target's coordinate, rate and acceleration at t, in tree coordinates
  void target(const Drive& d, double t, double& q, double& v, double& a) const;
  // x with the drives' coordinates set at t, and their qdd; the derivative of that
  void drive_derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t, const double* qdd);
  void free_derivative(const std::vector<double>& x, std::vector<double>& dxdt, double t);
  void couple(const std::vector<double>& x, std::vector<double>& dxdt, double t);

  TreeModel model_;
  TreeData data_;
  std::vector<Drive> drives_;
  std::vector<double> xs_, d0_, d1_, qdd_;
  std::vector<std::vector<double>> response_;  // (couplings) r_k, the accelerations' response
  const Model* control_model_ = nullptr;
  double segment_t_ = 0;
};

// Times in (t0, t1) where a motor's target table has a point (its rate jumps there): GC4 and `ref`
// end their (internal) steps there.
std::vector<double> motor_breaks(const Model& model, double t0, double t1);

// Times in (t0, t1) where an applied torque of the model switches on or off, sorted: `ref` ends
// internal steps there so the discontinuous forcing is integrated exactly.
std::vector<double> load_breaks(const Model& model, double t0, double t1);

}  // namespace mb
