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
#pragma once
#include <vector>

#include <Eigen/Core>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/lagrange/acceleration.hpp"
#include "models/model.hpp"

namespace mb {

class MaximalSystem {
 public:
  static MaximalSystem extract(const Model& model);

  int size() const { return n_; }
  void read(const State& s, std::vector<double>& x) const;
  void write(const std::vector<double>& x, State& s) const;
  void set_loads(const Model& model, double t, double h);
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const;
  void normalize(std::vector<double>& x) const;
  // the largest joint position error after the last normalize()
  double last_projection_error() const { return projected_error_; }

 private:
  Model model_;
  std::vector<int> offset_;  // per body: start in x, -1 for static bodies
  int n_ = 0;
  StepLoads loads_;
  mutable StepLoads state_loads_;  // loads_ plus the springs at the evaluated state
  mutable AccelerationSolver acc_;
  mutable State tmp_, a_;
  mutable Eigen::VectorXd lambda_;
  mutable ConstraintSystem cs_;
  mutable double projected_error_ = 0;
};

}  // namespace mb
