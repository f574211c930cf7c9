// Test oracle: the dense mass-matrix form of a planar chain of point
// masses on rods in rod angles (schmitt2005 s.5, GC4 as the paper writes it). GC4 and `ref` use
// the O(n) articulated-body algorithm (methods/reduced/aba.hpp), whose rod coordinates
// are these angles; tests/gc4_test.cpp checks it against this form and this form against the
// paper's closed forms.
//
// The chain: a pivot P0 (world point), masses m_1..m_n joined by rods of lengths L_1..L_n, all in
// the x-y plane. Coordinates: phi_i = angle of rod i from the direction of gravity's -y axis,
// p_k = P0 + sum_{j<=k} L_j (sin phi_j, -cos phi_j). With mu_i = sum_{k>=i} m_k, Lagrange's
// equations give M(phi) phi'' = f(phi, phi'):
//   M_ij = mu_max(i,j) L_i L_j cos(phi_i - phi_j)
//   f_i  = -sum_j mu_max(i,j) L_i L_j sin(phi_i - phi_j) phi_j'^2 + L_i mu_i (g_x cos phi_i + g_y sin phi_i)
// solved per evaluation by an in-place Cholesky factorisation of the SPD matrix M (O(n^3)). The
// closed forms printed in schmitt2005 s.5 for the double and triple pendulum are the test oracles
// of this form (tests/gc4_test.cpp).
#pragma once
#include <vector>

#include <Eigen/Dense>

#include "models/model.hpp"

namespace mbtest {

using mb::Model;
using mb::State;
using mb::Vec3;

class PlanarChain {
 public:
  // Throws UnsupportedModel naming why when the model is not a planar point-mass chain.
  static PlanarChain extract(const Model& model);

  int size() const { return n_; }
  // x = (phi_1..phi_n, phi'_1..phi'_n) (2n), read from the Cartesian state
  void read(const State& s, std::vector<double>& x) const;
  // writes positions and velocities of the chain's bodies from x
  void write(const std::vector<double>& x, State& s) const;
  // dxdt = (phi', phi'') for the odeint system; uses mutable scratch (not thread-shared)
  void derivative(const std::vector<double>& x, std::vector<double>& dxdt) const;
  // phi'' alone (n), for tests
  Eigen::VectorXd accelerations(const Eigen::VectorXd& phi, const Eigen::VectorXd& dphi) const;

 private:
  using CRef = Eigen::Ref<const Eigen::VectorXd>;
  void solve(const CRef& phi, const CRef& dphi) const;  // phi'' into a_

  int n_ = 0;
  Vec3 pivot_ = Vec3::Zero();
  double gx_ = 0, gy_ = 0;
  std::vector<int> body_;      // (n) body index of mass k
  Eigen::VectorXd L_, mu_;     // (n) rod lengths, masses at or beyond each rod
  mutable Eigen::MatrixXd M_;  // (n x n) scratch
  mutable Eigen::VectorXd f_, a_;
};

}  // namespace mbtest
