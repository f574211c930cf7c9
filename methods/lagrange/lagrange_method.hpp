// The `lagrange` family (schmitt2005 s.5; bender2007 s.6): acceleration-level Lagrange multipliers
// (methods/lagrange/acceleration.hpp) with the whole state (x, q, v, w of every dynamic body)
// integrated by one classic RK4 step (Boost.Odeint runge_kutta4), the multipliers solved at every
// stage (per stage: Jacobians, A = J M^-1 J^T factored, one solve); quaternions renormalised
// after the step. Claimed order 4. Parts, chosen by options:
//  - stab=none       LM4: nothing else.
//  - stab=baumgarte  LMBS4 / bender2007's "Lagrange": phi'' + c1 C' + c0 C = 0 (Baumgarte's
//                    "Example 1"), alpha = beta = 10; gains: c1 = 2 alpha, c0 = beta^2 (default) or
//                    the other readings; stab_on: the rod quantity C (default the form's phi; LMBS4:
//                    |d|^2 - L^2 on the half_squared equation, which reproduces schmitt2005 s.6).
//  - stab=v          LMV4: after the RK4 step, the impulse velocity correction (correct_velocities,
//                    methods/impulse/impulse_method.hpp) to tol_v.
//  - stab=vd         LMVD4, schmitt2005 s.5 steps (a)-(d): (a) the RK4 step; (b) save the
//                    velocities and set them to zero; (c) an impulse step without gravity and
//                    applied torques: look-ahead position correction over h from zero velocity
//                    (correct_positions) to tol_p, then the free motion over h; (d) restore the
//                    saved velocities and apply the impulse velocity correction to tol_v.
//                    v and vd: apply=above_tol corrects only while an error exceeds its tolerance
//                    (the impulse phases' rule), apply=always at least once after every step;
//                    tol 0: to round-off (LMV4 and LMVD4: always, 0).
//  - joint limits (methods/constraints/joint_limits.hpp): active-set rows of the acceleration
//    solve (AccelerationSolver), the set updated once per step before the RK4 step: a side at or
//    beyond its bound that was active or does not open is active, an approaching one is first
//    stopped by an inelastic impulse; each stage drops the sides whose multipliers pull. A limit
//    crossed within a step is caught at the next step: the impulse stops it there, and only
//    stab=baumgarte returns it to the bound (its row's phi is the gap).
//  - solver=lu|cholmod  the LinearSolver for the multipliers and the impulse corrections.
//  - form=half_squared|length|squared  the rods' constraint function (default half_squared: it
//    reproduces the schmitt2005 LM4 table; length gives 0.8x its factors).
// The paper names are registered aliases (methods/registry/registry.cpp): one line each via alias().
#pragma once
#include <memory>
#include <string>

#include "methods/method.hpp"

namespace mb {

struct Lagrange {
  static MethodInfo describe();  // the family `lagrange`
  static std::unique_ptr<Method> make(const MethodOptions& options);
  // A registered alias: `name` = lagrange:`expansion`. The alias accepts the family's options that
  // apply to its stabilisation (except stab itself), with the expansion's values as defaults.
  // orders: the declared orders (empty: the family's, order 4 on pendulum90)
  static MethodEntry alias(const std::string& name, const std::string& expansion, const std::string& source,
                           const std::string& description, std::vector<DeclaredOrder> orders = {});
  static std::unique_ptr<Method> make_alias(const MethodOptions& options);
};

}  // namespace mb
