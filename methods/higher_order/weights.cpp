#include "methods/higher_order/weights.hpp"

#include <stdexcept>
#include <utility>

#include <boost/multiprecision/cpp_int.hpp>

namespace mb {

namespace {

using Rational = boost::multiprecision::cpp_rational;

Rational power(const Rational& x, int e) {
  Rational r = 1;
  for (int i = 0; i < e; ++i) r *= x;
  return r;
}

// c_{n,i} exactly
Rational coefficient(int n, int i) {
  Rational c = 0;
  for (int j = 1; j <= n; ++j)
    c += Rational(2 * (n - j) + 1, 2 * n) * (power(Rational(j, n), i + 1) - power(Rational(j - 1, n), i + 1)) / (i + 1);
  return c;
}

}  // namespace

long double middle_step_coefficient(int n, int i) { return coefficient(n, i).convert_to<long double>(); }

std::vector<long double> extrapolation_weights(int k) {
  if (k < 1 || k > 8) throw std::invalid_argument("extrapolation_weights: k must be in 1..8");
  // augmented system: row r for the power i = 0, 1, 3, ..., 2k - 3; columns n = 1..k; rhs last
  std::vector<std::vector<Rational>> a(k, std::vector<Rational>(k + 1));
  for (int r = 0; r < k; ++r) {
    const int i = r == 0 ? 0 : 2 * r - 1;
    for (int n = 1; n <= k; ++n) a[r][n - 1] = coefficient(n, i);
    a[r][k] = Rational(1, (i + 1) * (i + 2));
  }
  // Gaussian elimination in exact rational arithmetic
  for (int c = 0; c < k; ++c) {
    int p = c;
    while (a[p][c] == 0) ++p;
    std::swap(a[c], a[p]);
    for (int r = c + 1; r < k; ++r) {
      const Rational f = a[r][c] / a[c][c];
      for (int j = c; j <= k; ++j) a[r][j] -= f * a[c][j];
    }
  }
  std::vector<Rational> w(k);
  for (int r = k - 1; r >= 0; --r) {
    Rational s = a[r][k];
    for (int j = r + 1; j < k; ++j) s -= a[r][j] * w[j];
    w[r] = s / a[r][r];
  }
  std::vector<long double> out;
  for (const auto& x : w) out.push_back(x.convert_to<long double>());
  return out;
}

}  // namespace mb
