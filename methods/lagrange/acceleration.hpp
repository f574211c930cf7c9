// Acceleration-level Lagrange multipliers (schmitt2005 s.5, bender2007 s.6), shared by every member
// of the `lagrange` family. Derivation of every term: docs/lagrange.md.
//
// V = (v, w) of the dynamic bodies (ConstraintSystem's columns), a = dV/dt, M the world mass matrix
// (m I, R I R^T), J the ConstraintSystem's Jacobian at the state (phi' = J V):
//   M a = f - w x (I_w w) + J^T lambda,                                (f: gravity, applied torque)
//   J a = -Jdot V - c1 J V - c0 phi       (Baumgarte's "Example 1", c1 = 2 alpha, c0 = beta^2 by
//                                          default; alpha = beta = 0: none)
// so  A lambda = -Jdot V - J M^-1 f_all - c1 J V - c0 phi,  A = J M^-1 J^T,
//     a = M^-1 (f_all + J^T lambda).
// A rod's constraint function has three forms: |d| - L (length), (|d|^2 - L^2)/2 (half_squared),
// |d|^2 - L^2 (squared), d = p_a - p_b; their Jacobian rows are s J_length with s = 1, |d|, 2|d|.
// The system is always solved with the length-form rows (A is the same for every form up to the
// row scaling S): the form's equation s (J a) = -Jdot_form V - c1 C' - c0 C is divided by s, and the
// form's multiplier is lambda_form = lambda / s (the same force J^T lambda). C is the rod quantity
// that carries the stabilisation (stab_on; by default the form's phi), C' = s_C J V.
// Ball, hinge and fixed joints have one form: the rows and errors of ConstraintSystem.
// A motor's row (ConstraintSystem, at the state's time) is rheonomic: phi = f(t) - q, phi' = J V + r,
// and its equation J a = -Jdot V - r' - c1 phi' - c0 phi (r' = f'' in position mode, f' in velocity
// mode, whose phi is 0). Motors with a force bound are refused.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include <Eigen/Core>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/method.hpp"
#include "methods/solvers/linear_solver.hpp"

namespace mb {

enum class RodForm { Length, HalfSquared, Squared };
const char* rod_form_name(RodForm f);

// How alpha and beta enter Baumgarte's stabilised equation phi'' + c1 C' + c0 C = 0 (docs/lagrange.md,
// "Baumgarte readings"): c1 = 2 alpha or alpha, c0 = beta^2 or beta.
enum class BaumgarteGains { TwoAlphaBetaSquared, AlphaBeta, AlphaBetaSquared, TwoAlphaBeta };
const char* baumgarte_gains_name(BaumgarteGains g);

struct AccelerationTerms {
  RodForm form = RodForm::Length;
  double alpha = 0, beta = 0;  // Baumgarte; 0, 0: unstabilised
  BaumgarteGains gains = BaumgarteGains::TwoAlphaBetaSquared;
  // the rod quantity C whose Baumgarte terms are added to the form's equation phi'' = 0:
  // phi'' + c1 C' + c0 C = 0; nullopt: C = phi (the form itself)
  std::optional<RodForm> stab_on;
  double c1() const;  // the coefficient of C'
  double c0() const;  // the coefficient of C
};

// Row scale s (rows of cs) of the form's Jacobian against cs's rows (1 except for rods) and the
// form's constraint function phi (rods: as above; other rows: ConstraintSystem::position_error).
void constraint_function(const Model& model, const State& state, const ConstraintSystem& cs, RodForm form,
                         Eigen::VectorXd& phi, Eigen::VectorXd& scale);

// Jdot V (rows of cs): the velocity-product terms of the form's rows at `state`, i.e. the time
// derivative of (s J) along the motion with V held fixed, times V. cs must be updated at `state`.
void velocity_product(const Model& model, const State& state, const ConstraintSystem& cs, RodForm form,
                      Eigen::VectorXd& out);

// The multipliers and accelerations at one state: assembly (Jacobians, right-hand side), factor,
// solve. One object per model; not thread-safe.
class AccelerationSolver {
 public:
  void init(const Model& model, LinearSolverFactory make_solver, const AccelerationTerms& terms);
  // lambda (rows): the form's multipliers; acc.bodies[k].v, .w: dv/dt, dw/dt of each dynamic body
  // (acc is resized to the model; static bodies get zeros). Throws SimulationError on a non-finite
  // solution (singular A).
  void solve(const Model& model, const State& state, const StepLoads& loads, Eigen::VectorXd& lambda, State& acc,
             StepStats& stats);
  const ConstraintSystem& system() const { return cs_; }
  // Relative residual |A lambda - b| / |b| of the last solve (in the length-form rows).
  double last_residual() const;

 private:
  AccelerationTerms terms_;
  ConstraintSystem cs_;
  std::unique_ptr<LinearSolver> solver_;
  Eigen::VectorXd jdv_, jv_, jmf_, phi_, scale_, phi_c_, scale_c_, b_, mu_, rates_;  // rates_: the motors' r (rows)
  State tmp_;
};

// Convenience for tests and tools: the form's multipliers at `state` with a fresh solver.
Eigen::VectorXd lagrange_multipliers(const Model& model, const State& state, const StepLoads& loads,
                                     LinearSolverFactory make_solver, const AccelerationTerms& terms);

}  // namespace mb
