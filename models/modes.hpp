// Linear modes: the eigenvalues of a 4 x 4 state matrix, and those identified from a sampled motion
// (eig_err, docs/metrics.md). The Whipple bicycle's linearized equations (meijaard2007)
//   M q'' + v C1 q' + (g K0 + v^2 K2) q = 0,  q = (lean phi, steer delta),
// are the 4 x 4 first-order system x' = A(v) x in x = (phi, delta, phi', delta').
#pragma once
#include <array>
#include <complex>
#include <vector>

#include <Eigen/Core>

namespace mb {

struct WhippleMatrices {
  Eigen::Matrix2d M, C1, K0, K2;
  double g = 9.81;
};

// The state matrix A(v) of x' = A x, x = (phi, delta, phi', delta').
Eigen::Matrix4d whipple_state_matrix(const WhippleMatrices& w, double v);

// The eigenvalues of a 4 x 4 state matrix, sorted by real part, then by imaginary part.
std::array<std::complex<double>, 4> eigenvalues4(const Eigen::Matrix4d& A);

// The eigenvalues identified from a motion sampled every dt, z_k = (phi, delta, phi', delta') at
// t = k dt: the transition matrix Phi fitted by least squares to z_{k+1} = Phi z_k, and
// log(eig(Phi)) / dt (principal logarithm: |Im| dt < pi), sorted as eigenvalues4's.
std::array<std::complex<double>, 4> identified_eigenvalues(const std::vector<Eigen::Vector4d>& z, double dt);
// The largest error of `got` against `ref`, each of ref's eigenvalues matched to the nearest of got:
// relative, absolute where |ref| < 1.
double eigenvalue_error(const std::array<std::complex<double>, 4>& got, const std::array<std::complex<double>, 4>& ref);

}  // namespace mb
