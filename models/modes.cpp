#include "models/modes.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <Eigen/Dense>
#include <fmt/format.h>

namespace mb {

namespace {

void sort_modes(std::array<std::complex<double>, 4>& e) {
  std::sort(e.begin(), e.end(), [](const std::complex<double>& a, const std::complex<double>& b) {
    return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag();
  });
}

}  // namespace

Eigen::Matrix4d whipple_state_matrix(const WhippleMatrices& w, double v) {
  const Eigen::Matrix2d Minv = w.M.inverse();
  Eigen::Matrix4d A = Eigen::Matrix4d::Zero();
  A.topRightCorner<2, 2>().setIdentity();
  A.bottomLeftCorner<2, 2>() = -Minv * (w.g * w.K0 + v * v * w.K2);
  A.bottomRightCorner<2, 2>() = -Minv * (v * w.C1);
  return A;
}

std::array<std::complex<double>, 4> eigenvalues4(const Eigen::Matrix4d& A) {
  Eigen::EigenSolver<Eigen::Matrix4d> es(A, false);
  std::array<std::complex<double>, 4> e;
  for (int i = 0; i < 4; ++i) e[static_cast<size_t>(i)] = es.eigenvalues()[i];
  sort_modes(e);
  return e;
}

std::array<std::complex<double>, 4> identified_eigenvalues(const std::vector<Eigen::Vector4d>& z, double dt) {
  if (z.size() < 6) throw std::domain_error(fmt::format("identified_eigenvalues: {} samples, at least 6 needed", z.size()));
  const Eigen::Index n = static_cast<Eigen::Index>(z.size()) - 1;
  Eigen::MatrixXd X(n, 4), Y(n, 4);  // rows z_k^T and z_{k+1}^T: X Phi^T = Y
  for (Eigen::Index k = 0; k < n; ++k) {
    X.row(k) = z[static_cast<size_t>(k)].transpose();
    Y.row(k) = z[static_cast<size_t>(k) + 1].transpose();
  }
  const Eigen::Matrix4d Phi = X.colPivHouseholderQr().solve(Y).transpose();
  Eigen::EigenSolver<Eigen::Matrix4d> es(Phi, false);
  std::array<std::complex<double>, 4> e;
  for (int i = 0; i < 4; ++i) e[static_cast<size_t>(i)] = std::log(std::complex<double>(es.eigenvalues()[i])) / dt;
  sort_modes(e);
  return e;
}

double eigenvalue_error(const std::array<std::complex<double>, 4>& got, const std::array<std::complex<double>, 4>& ref) {
  double worst = 0;
  for (const auto& r : ref) {
    double best = INFINITY;
    for (const auto& g : got) best = std::min(best, std::abs(g - r));
    worst = std::max(worst, best / std::max(1.0, std::abs(r)));
  }
  return worst;
}

}  // namespace mb
