// The linearized Whipple bicycle (meijaard2007): about upright, straight-ahead motion at forward
// speed v the lean phi and the steer delta, q = (phi, delta), obey
//   M q'' + v C1 q' + (g K0 + v^2 K2) q = 0,
// a 4 x 4 first-order system in x = (phi, delta, phi', delta'). Its four eigenvalues at a speed
// are the weave pair (complex over the self-stable range), the capsize and the castering modes.
// The weave speed v_w is where the weave pair's real part crosses zero, the capsize speed v_c
// where the capsize eigenvalue does; the bicycle is self-stable on (v_w, v_c). The same functions
// take any state matrix (`ref`'s numerical linearization): a speed is a root of an eigenvalue
// function, found by Boost.Math's TOMS 748 to the last bit of v.
#pragma once
#include <array>
#include <complex>
#include <functional>
#include <vector>

#include <Eigen/Core>

#include "models/catalog.hpp"
#include "models/modes.hpp"

namespace mb {

// The largest real part of a complex pair (the weave's), -inf if every eigenvalue is real.
double weave_real_part(const std::array<std::complex<double>, 4>& e);
// The largest real eigenvalue whose size is below `bound` (the capsize mode's, beside the fast
// castering one), -inf if none.
double capsize_eigenvalue(const std::array<std::complex<double>, 4>& e, double bound = 5);

// The speed in [lo, hi] where f changes sign (f(lo) and f(hi) of opposite signs; throws
// std::domain_error naming the interval otherwise), to the last bit of v.
double speed_root(const std::function<double(double)>& f, double lo, double hi);

// v_w and v_c of a state-matrix function A(v): roots of the weave real part and of the capsize
// eigenvalue on [lo, hi] (the benchmark bicycle: [3, 5] and [5, 7]).
double weave_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi);
double capsize_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi);

// The bicycle's linearization from our own equations of motion: those `ref` integrates the catalog's
// `bicycle` with (maximal coordinates, the hinges' and rolling rows' multipliers at the acceleration
// level: methods/reduced/maximal_system.hpp). At a state built from z = (phi, delta, phi', delta')
// (bicycle_state, forward speed v) the derivative gives (phi', delta', phi'', delta''); A is its
// Jacobian at z = 0 by central differences of steps eps, eps/2, eps/4 on each coordinate,
// Richardson-extrapolated twice (error O(eps^6)).
Eigen::Matrix4d bicycle_linearization(const BicycleParams& p, double v, double eps = 1e-2);

}  // namespace mb
