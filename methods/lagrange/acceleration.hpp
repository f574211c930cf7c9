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
#include <vector>

#include <Eigen/Core>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/constraints/joint_limits.hpp"
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

  // Joint limits as active-set rows (docs/lagrange.md, "Joint limits"): the sides of the model's
  // limits (methods/constraints/joint_limits.hpp) and those active in the solves that follow. An
  // active side is one equality row gap'' + c1 gap' + c0 gap = 0 beside the joints' rows, solved
  // through the factorization of A (the Schur complement S = K - B^T A^-1 B of the joints' rows,
  // B = J M^-1 Jl^T, K = Jl M^-1 Jl^T: one more solve with A per active side). A side whose
  // multiplier pulls (< 0) is dropped and the stage solved again; a dropped side whose gap would
  // then accelerate into its bound is taken back; a set met twice is a SimulationError naming the
  // joint. Without active sides the solve is the joints' alone, bit for bit.
  const std::vector<LimitSide>& limits() const { return limits_; }
  void set_active_limits(const std::vector<int>& active) { active_ = active; }  // indices into limits()
  const std::vector<int>& active_limits() const { return active_; }
  // the multipliers of the active sides in the last solve (0 where dropped; > 0 pushes away from the bound)
  const Eigen::VectorXd& limit_multipliers() const { return limit_x_; }
  // The inelastic impulse of the active sides at `state`: impulses x >= 0 on them that bring every
  // approaching side to gap' = 0 and leave the joints' velocity errors J V as they were (the same
  // active-set solve with the right-hand side (0, -gap')). Factors A at `state`.
  void limit_impulse(const Model& model, State& state, StepStats& stats);
  // Relative residual |A lambda - b| / |b| of the last solve (in the length-form rows).
  double last_residual() const;

 private:
  AccelerationTerms terms_;
  ConstraintSystem cs_;
  std::unique_ptr<LinearSolver> solver_;
  Eigen::VectorXd jdv_, jv_, jmf_, phi_, scale_, phi_c_, scale_c_, b_, mu_, rates_;  // rates_: the motors' r (rows)
  State tmp_;
  // the limits' rows: per active side its bodies' velocity changes M^-1 Jl^T (dv, dw of a and b),
  // B, Y = A^-1 B, S; r the sides' right-hand side, limit_x_ their multipliers
  std::vector<LimitSide> limits_;
  std::vector<int> active_;
  struct LimitColumn {
    LimitRow J[2];
    int body[2] = {-1, -1};  // dynamic bodies (-1: none)
    Vec3 dv[2], dw[2];
  };
  std::vector<LimitColumn> lcol_;
  Eigen::MatrixXd lB_, lY_, lS_;
  Eigen::VectorXd lr_, limit_x_, lcolv_;
  State dstate_;  // zero velocities but one column's
  // lcol_, B, Y and S of the active sides at s (cs_ updated and factored there)
  void limit_coupling(const Model& m, const State& s);
  // limit_x_ from S and lr_ (the sign rules above)
  void limit_active_set(const Model& m);
  // gap' of active side i (J V of its row) on the velocities of s
  double limit_row_velocity(int i, const State& s) const;
  // s += M^-1 Jl^T x
  void apply_limit_impulse(const Eigen::VectorXd& x, State& s) const;
};

// Convenience for tests and tools: the form's multipliers at `state` with a fresh solver.
Eigen::VectorXd lagrange_multipliers(const Model& model, const State& state, const StepLoads& loads,
                                     LinearSolverFactory make_solver, const AccelerationTerms& terms);

}  // namespace mb
