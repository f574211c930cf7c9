#include "analysis/fit.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <fmt/format.h>

namespace mb {

PowerFit two_point_fit(double h1, double w1, double h2, double w2) {
  PowerFit f;
  f.order = (std::log(w1) - std::log(w2)) / (std::log(h1) - std::log(h2));
  f.factor = w2 / std::pow(h2, f.order);
  f.points = 2;
  return f;
}

PowerFit least_squares_fit(const std::vector<double>& h, const std::vector<double>& w) {
  PowerFit f;
  double sx = 0, sy = 0, sxx = 0, sxy = 0;
  int n = 0;
  for (size_t i = 0; i < h.size() && i < w.size(); ++i) {
    if (!(w[i] > 0) || !(h[i] > 0)) continue;
    double x = std::log(h[i]), y = std::log(w[i]);
    sx += x;
    sy += y;
    sxx += x * x;
    sxy += x * y;
    ++n;
  }
  f.points = n;
  if (n < 2) return f;
  double den = n * sxx - sx * sx;
  f.order = (n * sxy - sx * sy) / den;
  double b = (sy - f.order * sx) / n;
  f.factor = std::exp(b);
  double ss = 0;
  for (size_t i = 0; i < h.size() && i < w.size(); ++i) {
    if (!(w[i] > 0) || !(h[i] > 0)) continue;
    double r = std::log(w[i]) - (b + f.order * std::log(h[i]));
    ss += r * r;
  }
  f.residual = std::sqrt(ss / n);
  return f;
}

}  // namespace mb

namespace mb {

const std::vector<std::string>& fit_h_names() {
  static const std::vector<std::string> n = {"simulated", "nominal"};
  return n;
}
const char* to_string(FitH f) { return fit_h_names()[static_cast<size_t>(f)].c_str(); }
FitH fit_h_from(const std::string& text) {
  const auto& n = fit_h_names();
  for (size_t i = 0; i < n.size(); ++i)
    if (n[i] == text) return static_cast<FitH>(i);
  throw std::invalid_argument("\"" + text + "\" is not one of: simulated, nominal");
}

SeriesFit fit_series(const std::vector<SeriesPoint>& points, double h1, double h2, FitH fit_h) {
  SeriesFit f;
  // least squares over every usable point; failed and unusable points are counted
  std::vector<double> hs, ws;
  for (const auto& p : points) {
    if (p.failed) ++f.failed;
    else if (!p.w || !(*p.w > 0) || !std::isfinite(*p.w)) ++f.unusable;
    else {
      hs.push_back(p.h);
      ws.push_back(*p.w);
    }
  }
  if (hs.size() >= 2) {
    f.least_squares = least_squares_fit(hs, ws);
    f.h_min = *std::min_element(hs.begin(), hs.end());
    f.h_max = *std::max_element(hs.begin(), hs.end());
  }
  // the two-point fit at the grid points requested as h1 and h2
  auto at = [&](double target) -> const SeriesPoint* {
    for (const auto& p : points)
      if (std::abs(p.h_nominal - target) <= 1e-9 * target) return &p;
    return nullptr;
  };
  const SeriesPoint *p1 = at(h1), *p2 = at(h2);
  auto usable = [](const SeriesPoint* p) { return p && !p->failed && p->w && *p->w > 0 && std::isfinite(*p->w); };
  if (!p1 || !p2) f.two_point_note = fmt::format("no grid point at h = {}", !p1 ? h1 : h2);
  else if (p1->failed || p2->failed) f.two_point_note = fmt::format("failed at h = {}", p1->failed ? h1 : h2);
  else if (!usable(p1) || !usable(p2)) f.two_point_note = fmt::format("no positive value at h = {}", !usable(p1) ? h1 : h2);
  else {
    f.h1 = fit_h == FitH::Nominal ? p1->h_nominal : p1->h;
    f.h2 = fit_h == FitH::Nominal ? p2->h_nominal : p2->h;
    f.w1 = *p1->w;
    f.w2 = *p2->w;
    f.two_point = two_point_fit(f.h1, f.w1, f.h2, f.w2);
  }
  return f;
}

}  // namespace mb
