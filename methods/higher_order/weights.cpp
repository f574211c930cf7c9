#include "methods/higher_order/weights.hpp"

#include <cmath>
#include <stdexcept>
#include <utility>

namespace mb {

long double middle_step_coefficient(int n, int i) {
  long double c = 0;
  for (int j = 1; j <= n; ++j) {
    const long double hi = std::pow(static_cast<long double>(j) / n, i + 1);
    const long double lo = std::pow(static_cast<long double>(j - 1) / n, i + 1);
    c += (2.0L * (n - j) + 1) / (2.0L * n) * (hi - lo) / (i + 1);
  }
  return c;
}

std::vector<long double> extrapolation_weights(int k) {
  if (k < 1 || k > 8) throw std::invalid_argument("extrapolation_weights: k must be in 1..8");
  // augmented system: rows i = 0..k-1, columns n = 1..k, right-hand side last
  std::vector<std::vector<long double>> a(k, std::vector<long double>(k + 1));
  for (int i = 0; i < k; ++i) {
    for (int n = 1; n <= k; ++n) a[i][n - 1] = middle_step_coefficient(n, i);
    a[i][k] = 1.0L / ((i + 1.0L) * (i + 2.0L));
  }
  // Gaussian elimination with partial pivoting
  for (int c = 0; c < k; ++c) {
    int p = c;
    for (int r = c + 1; r < k; ++r)
      if (std::fabs(a[r][c]) > std::fabs(a[p][c])) p = r;
    std::swap(a[c], a[p]);
    for (int r = c + 1; r < k; ++r) {
      const long double f = a[r][c] / a[c][c];
      for (int j = c; j <= k; ++j) a[r][j] -= f * a[c][j];
    }
  }
  std::vector<long double> w(k);
  for (int r = k - 1; r >= 0; --r) {
    long double s = a[r][k];
    for (int j = r + 1; j < k; ++j) s -= a[r][j] * w[j];
    w[r] = s / a[r][r];
  }
  return w;
}

}  // namespace mb
