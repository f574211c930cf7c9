#include "analysis/whipple.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <set>
#include <stdexcept>

#include <Eigen/Dense>
#include <boost/math/tools/roots.hpp>
#include <boost/math/tools/toms748_solve.hpp>
#include <fmt/format.h>

#include "methods/reduced/maximal_system.hpp"
#include "metrics/registry.hpp"

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

std::optional<ModesAnalysis> analyse_modes(const std::vector<CaseRecord>& records, const PaperLinear& paper) {
  ModesAnalysis a;
  std::set<double> speeds;
  for (const CaseRecord& r : records) {
    const auto err = r.metrics.get(metric::eig_err), v = r.metrics.get(metric::eig_v);
    if (!err || !v) continue;
    ModesFit f;
    f.method = r.method.spec;
    f.v = *v;
    f.h = r.h;
    f.err = *err;
    for (size_t k = 0; k < 4; ++k) f.e[k] = {r.metrics.get(metric::eig_re[k]).value_or(NAN), r.metrics.get(metric::eig_im[k]).value_or(NAN)};
    f.within = f.err <= kModesFitTolerance;
    a.fits.push_back(f);
    speeds.insert(*v);
  }
  if (a.fits.empty()) return std::nullopt;
  std::stable_sort(a.fits.begin(), a.fits.end(), [](const ModesFit& x, const ModesFit& y) {
    return x.method != y.method ? x.method < y.method : x.v != y.v ? x.v < y.v : x.h < y.h;
  });
  const BicycleParams p;
  a.v.assign(speeds.begin(), speeds.end());
  std::vector<double> growth;  // the largest published real part at each v
  for (double v : a.v) {
    a.published.push_back(eigenvalues4(whipple_state_matrix(paper.matrices, v)));
    a.ref.push_back(eigenvalues4(bicycle_linearization(p, v)));
    a.ref_err.push_back(eigenvalue_error(a.ref.back(), a.published.back()));
    a.ref_err_max = std::max(a.ref_err_max, a.ref_err.back());
    a.ref_err_within.push_back(a.ref_err.back() <= kModesRefTolerance);
    double g = -INFINITY;
    for (const auto& e : a.published.back()) g = std::max(g, e.real());
    growth.push_back(g);
    a.judged.push_back(g <= kModesGrowth);
  }
  a.ref_within = a.ref_err_max <= kModesRefTolerance;
  for (int i = 0; i <= 200; ++i) {
    a.curve_v.push_back(0.05 * i);
    a.curve.push_back(eigenvalues4(whipple_state_matrix(paper.matrices, a.curve_v.back())));
  }
  auto published = [&](double v) { return whipple_state_matrix(paper.matrices, v); };
  auto ours = [&](double v) { return bicycle_linearization(p, v); };
  a.weave_printed = paper.weave_speed;
  a.capsize_printed = paper.capsize_speed;
  a.weave_published = weave_speed(published, 3, 5);
  a.capsize_published = capsize_speed(published, 5, 7);
  a.weave_ref = weave_speed(ours, 3, 5);
  a.capsize_ref = capsize_speed(ours, 5, 7);
  a.speeds_within = std::abs(a.weave_ref - a.weave_printed) <= kModesSpeedTolerance &&
                    std::abs(a.capsize_ref - a.capsize_printed) <= kModesSpeedTolerance;
  // each method at its smallest h: the largest eig_err over the speeds it has a value at
  std::map<std::string, std::map<double, const ModesFit*>> smallest;  // method -> v -> the fit at the smallest h
  for (const ModesFit& f : a.fits) {
    const ModesFit*& at = smallest[f.method][f.v];
    if (!at || f.h < at->h) at = &f;
  }
  for (const auto& [method, by_v] : smallest) {
    ModesMethod m;
    m.method = method;
    for (const auto& [v, f] : by_v) {
      const size_t i = static_cast<size_t>(std::lower_bound(a.v.begin(), a.v.end(), v) - a.v.begin());
      if (!a.judged[i]) continue;
      m.h = std::max(m.h, f->h);
      if (f->err >= m.worst) m.worst = f->err, m.worst_v = v;
    }
    m.within = m.h > 0 && m.worst <= kModesFitTolerance;  // h > 0: a value at some judged speed
    std::map<double, int> steps_at;
    for (const ModesFit& f : a.fits)
      if (f.method == method) ++steps_at[f.v];
    // the speed with the most steps; of several, the most stable (the smallest largest real part)
    int most = 0;
    double least_growth = INFINITY;
    for (const auto& [v, n] : steps_at) {
      const double g = growth[static_cast<size_t>(std::lower_bound(a.v.begin(), a.v.end(), v) - a.v.begin())];
      if (n > most || (n == most && g < least_growth)) most = n, m.swept_v = v, least_growth = g;
    }
    std::vector<double> fh, fe;
    for (const ModesFit& f : a.fits)
      if (f.method == method && f.v == m.swept_v) {
        m.hs.push_back(f.h);
        m.errs.push_back(f.err);
        if (f.err > kModesFloor) fh.push_back(f.h), fe.push_back(f.err);
      }
    if (fh.size() >= 2) m.order = least_squares_fit(fh, fe);
    a.methods.push_back(m);
  }
  return a;
}

}  // namespace mb
