#include "analysis/whipple.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include <Eigen/Dense>
#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <fmt/format.h>

#include "methods/reduced/maximal_system.hpp"

namespace mb {

double weave_real_part(const std::array<std::complex<double>, 4>& e) {
  double r = -INFINITY;
  for (const auto& x : e)
    if (x.imag() != 0) r = std::max(r, x.real());
  return r;
}

double capsize_eigenvalue(const std::array<std::complex<double>, 4>& e, double bound) {
  double r = -INFINITY;
  for (const auto& x : e)
    if (x.imag() == 0 && std::abs(x.real()) < bound) r = std::max(r, x.real());
  return r;
}

double speed_root(const std::function<double(double)>& f, double lo, double hi) {
  const double flo = f(lo), fhi = f(hi);
  if (flo == 0) return lo;
  if (fhi == 0) return hi;
  if (!(flo * fhi < 0))
    throw std::domain_error(fmt::format("no sign change on [{}, {}] m/s (f = {:.6g}, {:.6g})", lo, hi, flo, fhi));
  std::uintmax_t iterations = 200;
  const auto [a, b] = boost::math::tools::toms748_solve(f, lo, hi, flo, fhi, boost::math::tools::eps_tolerance<double>(), iterations);
  // the end whose value is nearer zero
  return std::abs(f(a)) <= std::abs(f(b)) ? a : b;
}

double weave_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi) {
  return speed_root([&](double v) { return weave_real_part(eigenvalues4(A(v))); }, lo, hi);
}

double capsize_speed(const std::function<Eigen::Matrix4d(double)>& A, double lo, double hi) {
  return speed_root([&](double v) { return capsize_eigenvalue(eigenvalues4(A(v))); }, lo, hi);
}

Eigen::Matrix4d bicycle_linearization(const BicycleParams& p, double v, double eps) {
  const Model m = make_bicycle(p, v, 0, 0, "bicycle");
  const MaximalSystem sys = MaximalSystem::extract(m);
  MaximalData data(sys);
  sys.set_loads(data, m, 0, 1);
  std::vector<double> x, dx;
  auto rates = [&](const Eigen::Vector4d& z) {
    const State s = bicycle_state(p, {z[0], z[1], z[2], z[3]}, v);
    sys.read(s, x);
    sys.derivative(data, x, dx);
    State acc;
    sys.write(dx, acc);  // the velocity slots of dx hold the accelerations
    const BicycleCoordinates c = bicycle_coordinates(p, s);
    const std::array<double, 2> a = bicycle_accelerations(p, s, acc);
    return Eigen::Vector4d(c.lean_rate, c.steer_rate, a[0], a[1]);
  };
  auto central = [&](int i, double h) {
    const Eigen::Vector4d e = h * Eigen::Vector4d::Unit(i);
    return Eigen::Vector4d((rates(e) - rates(-e)) / (2 * h));
  };
  Eigen::Matrix4d A;
  for (int i = 0; i < 4; ++i) {
    const Eigen::Vector4d d1 = central(i, eps), d2 = central(i, eps / 2), d4 = central(i, eps / 4);
    const Eigen::Vector4d r1 = (4 * d2 - d1) / 3, r2 = (4 * d4 - d2) / 3;
    A.col(i) = (16 * r2 - r1) / 15;
  }
  return A;
}

}  // namespace mb
