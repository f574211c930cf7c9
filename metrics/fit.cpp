#include "metrics/fit.hpp"

#include <cmath>

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
