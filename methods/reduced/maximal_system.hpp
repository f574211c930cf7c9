// The equations of motion of any jointed model in maximal coordinates, for `ref` on closed loops
// (the reduced coordinates of reduced_system.hpp need a tree). State vector x: per dynamic body
// (model order) its centre of mass (3), for rigid bodies its quaternion (w, x, y, z) (4), its
// velocity (3) and for rigid bodies its angular velocity (world, 3).
//   derivative: the acceleration-level Lagrange multipliers of the `lagrange` family without
//     stabilization (methods/lagrange/acceleration.hpp: M a = f - w x (I w) + J^T lambda,
//     J a = -Jdot V), the multipliers by the minimum-norm solve of A lambda = b (a complete
//     orthogonal decomposition: exact with redundant constraints, whose rows make A singular but
//     leave b in its range); x' = v, q' = 1/2 (0, w) q.
//   normalize (after each accepted step): unit quaternions, then the projection onto the
//     constraints: Gauss-Newton steps dx = M^-1 J^T y with A y = -phi (minimum norm) until the
//     joint errors are at round-off, and the velocities V -= M^-1 J^T A^+ J V (hairer2006 IV.4:
//     the projection moves x by the local error, so the integrator's order is kept).
// Spring-dampers (Model::springs) are evaluated at every derivative call. `ref` uses this system for
// closed loops and for models with force elements (the tree system has no spring forces).
// Dense, O(rows^3) per evaluation: for the small mechanisms a reference is made for.
// MaximalSystem is built once and only read; everything an evaluation writes (the interval's loads,
// the multiplier solver, the projection's constraint system, the states they work on) is in a
// MaximalData, one per run or thread, as TreeModel and TreeData (tree_data.hpp) split the tree.
#pragma once
#include <vector>

#include <Eigen/Core>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/lagrange/acceleration.hpp"
#include "models/model.hpp"

namespace mb {

struct MaximalData;

class MaximalSystem {
 public:
  static MaximalSystem extract(const Model& model);

  const Model& model() const { return model_; }
  int size() const { return n_; }
  void read(const State& s, std::vector<double>& x) const;
  void write(const std::vector<double>& x, State& s) const;
  // the applied loads of the interval [t, t + h] (MaximalData::loads)
  void set_loads(MaximalData& d, const Model& model, double t, double h) const;
  void derivative(MaximalData& d, const std::vector<double>& x, std::vector<double>& dxdt) const;
  // unit quaternions, then the projection onto the constraints (MaximalData::projected_error)
  void normalize(MaximalData& d, std::vector<double>& x) const;

 private:
  Model model_;
  std::vector<int> offset_;  // per body: start in x, -1 for static bodies
  int n_ = 0;
};

// The scratch of evaluations of one MaximalSystem, sized from it.
struct MaximalData {
  MaximalData() = default;
  explicit MaximalData(const MaximalSystem& system);

  StepLoads loads;        // the interval's applied loads (set_loads)
  StepLoads state_loads;  // loads plus the springs at the evaluated state
  AccelerationSolver acc;
  State tmp, a;
  Eigen::VectorXd lambda;
  ConstraintSystem cs;
  double projected_error = 0;  // the largest joint position error after the last normalize()
};

// A system and its data bound together: the calls a stepper loop makes (set_loads, derivative,
// normalize, write) on this data.
struct MaximalView {
  const MaximalSystem& system;
  MaximalData& data;

  void set_loads(const Model& model, double t, double h) const { system.set_loads(data, model, t, h); }
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const { system.derivative(data, x, dxdt); }
  void normalize(std::vector<double>& x) const { system.normalize(data, x); }
  void write(const std::vector<double>& x, State& s) const { system.write(x, s); }
};

}  // namespace mb
