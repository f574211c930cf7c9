// Fits of an error measure w over step sizes h (design.md s.5, schmitt2005 s.6).
#pragma once
#include <vector>

namespace mb {

struct PowerFit {
  double order = 0;   // a in w = c h^a
  double factor = 0;  // c
  double residual = 0;  // least squares: RMS of log residuals; two-point: 0
  int points = 0;
};

// The paper's two-point fit: a = (log w1 - log w2) / (log h1 - log h2), c = w2 / h2^a.
PowerFit two_point_fit(double h1, double w1, double h2, double w2);

// Least squares of log w on log h over all points (w > 0).
PowerFit least_squares_fit(const std::vector<double>& h, const std::vector<double>& w);

}  // namespace mb
