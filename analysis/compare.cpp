#include "analysis/compare.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include "core/stats.hpp"

namespace mb {

namespace {

// counts[u] = the number of arrangements of m x's and n y's with U = u (u = 0 .. m n), by the
// recursion f(m, n, u) = f(m - 1, n, u - n) + f(m, n - 1, u): the largest value is an x (it beats
// all n y's) or a y.
std::vector<double> u_counts(size_t m, size_t n) {
  // f over (i, j) for i = 0..m, built up in j: prev[i] holds f(i, j - 1, .)
  std::vector<std::vector<double>> f(m + 1);
  for (size_t i = 0; i <= m; ++i) f[i] = {1.0};  // j = 0: U = 0 in one way
  for (size_t j = 1; j <= n; ++j) {
    std::vector<std::vector<double>> g(m + 1);
    g[0] = {1.0};
    for (size_t i = 1; i <= m; ++i) {
      g[i].assign(i * j + 1, 0.0);
      for (size_t u = 0; u < g[i - 1].size(); ++u) g[i][u + j] += g[i - 1][u];
      for (size_t u = 0; u < f[i].size(); ++u) g[i][u] += f[i][u];
    }
    f = std::move(g);
  }
  return f[m];
}

constexpr size_t kExactMax = 50;

double normal_cdf(double z) { return 0.5 * std::erfc(-z / std::sqrt(2.0)); }

}  // namespace

double mann_whitney_cdf(long u, size_t m, size_t n) {
  if (u < 0) return 0;
  const std::vector<double> c = u_counts(m, n);
  if (static_cast<size_t>(u) >= c.size() - 1) return 1;
  const double total = std::accumulate(c.begin(), c.end(), 0.0);
  double s = 0;
  for (long k = 0; k <= u; ++k) s += c[static_cast<size_t>(k)];
  return s / total;
}

MannWhitney mann_whitney(const std::vector<double>& x, const std::vector<double>& y) {
  MannWhitney r;
  r.nx = x.size();
  r.ny = y.size();
  if (x.empty() || y.empty()) return r;
  bool ties = false;
  for (double a : x)
    for (double b : y) {
      if (a > b) r.u += 1;
      else if (a == b) r.u += 0.5, ties = true;
    }
  // ties within a sample matter to the normal approximation's variance only
  std::vector<double> all(x);
  all.insert(all.end(), y.begin(), y.end());
  std::sort(all.begin(), all.end());
  double tie_term = 0;  // sum of t^3 - t over groups of equal values
  for (size_t i = 0; i < all.size();) {
    size_t j = i;
    while (j < all.size() && all[j] == all[i]) ++j;
    const double t = static_cast<double>(j - i);
    tie_term += t * t * t - t;
    if (j - i > 1) ties = true;
    i = j;
  }
  const double m = static_cast<double>(r.nx), n = static_cast<double>(r.ny);
  if (!ties && r.nx <= kExactMax && r.ny <= kExactMax) {
    r.exact = true;
    const std::vector<double> c = u_counts(r.nx, r.ny);
    const double total = std::accumulate(c.begin(), c.end(), 0.0);
    const auto u = static_cast<size_t>(r.u);
    double le = 0, ge = 0;
    for (size_t k = 0; k < c.size(); ++k) {
      if (k <= u) le += c[k];
      if (k >= u) ge += c[k];
    }
    r.p_less = le / total;
    r.p_greater = ge / total;
  } else {
    const double N = m + n;
    const double mean = m * n / 2;
    const double var = m * n / 12 * ((N + 1) - tie_term / (N * (N - 1)));
    if (var > 0) {
      const double sd = std::sqrt(var);
      r.p_greater = 1 - normal_cdf((r.u - mean - 0.5) / sd);
      r.p_less = normal_cdf((r.u - mean + 0.5) / sd);
    }
  }
  r.p_greater = std::min(1.0, r.p_greater);
  r.p_less = std::min(1.0, r.p_less);
  r.p_two_sided = std::min(1.0, 2 * std::min(r.p_greater, r.p_less));
  return r;
}

RatioEstimate ratio_estimate(const std::vector<double>& x, const std::vector<double>& y, double level) {
  RatioEstimate r;
  r.level = level;
  if (x.empty() || y.empty()) return r;
  std::vector<double> d;
  d.reserve(x.size() * y.size());
  for (double a : x)
    for (double b : y) d.push_back(std::log(a) - std::log(b));
  std::sort(d.begin(), d.end());
  r.ratio = std::exp(median(d));
  // c: the largest count with P(U <= c) <= alpha / 2 (exact for the sizes the gate uses; the
  // normal approximation above kExactMax)
  const double alpha = 1 - level;
  const size_t m = x.size(), n = y.size();
  long c = -1;
  if (m <= kExactMax && n <= kExactMax) {
    const std::vector<double> cnt = u_counts(m, n);
    const double total = std::accumulate(cnt.begin(), cnt.end(), 0.0);
    double s = 0;
    for (size_t k = 0; k < cnt.size(); ++k) {
      s += cnt[k];
      if (s / total > alpha / 2) break;
      c = static_cast<long>(k);
    }
  } else {
    const double mn = static_cast<double>(m * n), N = static_cast<double>(m + n);
    // the two-sided normal quantile by bisection on erfc
    double lo = 0, hi = 10;
    for (int i = 0; i < 100; ++i) {
      const double mid = 0.5 * (lo + hi);
      (1 - normal_cdf(mid) > alpha / 2 ? lo : hi) = mid;
    }
    c = static_cast<long>(std::floor(mn / 2 - lo * std::sqrt(mn * (N + 1) / 12)));
  }
  const auto k = static_cast<size_t>(std::max(0L, c + 1));  // 0-based index of the (c+1)-th smallest
  if (c < 0 || k >= d.size() - k) {
    r.low = std::exp(d.front());
    r.high = std::exp(d.back());
  } else {
    r.low = std::exp(d[k]);
    r.high = std::exp(d[d.size() - 1 - k]);
  }
  return r;
}

std::vector<double> holm_adjust(const std::vector<double>& p) {
  const size_t m = p.size();
  std::vector<size_t> order(m);
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return p[a] < p[b]; });
  std::vector<double> out(m);
  double running = 0;
  for (size_t i = 0; i < m; ++i) {
    running = std::max(running, std::min(1.0, static_cast<double>(m - i) * p[order[i]]));
    out[order[i]] = running;
  }
  return out;
}

std::vector<size_t> change_points(const std::vector<double>& y, const ChangePointOptions& opt) {
  const size_t n = y.size();
  std::vector<size_t> out;
  const size_t min_size = std::max<size_t>(1, opt.min_size);
  if (n < 2 * min_size) return out;
  // noise from the first differences: robust to the steps themselves
  std::vector<double> diffs;
  for (size_t i = 1; i < n; ++i) diffs.push_back(std::abs(y[i] - y[i - 1]));
  const double sigma = std::max(opt.sigma_floor, median(diffs) / (0.6745 * std::sqrt(2.0)));
  const double penalty = opt.beta * sigma * sigma * std::log(static_cast<double>(n));
  // prefix sums: the cost of [a, b) is sum y^2 - (sum y)^2 / (b - a)
  std::vector<double> s1(n + 1, 0), s2(n + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    s1[i + 1] = s1[i] + y[i];
    s2[i + 1] = s2[i] + y[i] * y[i];
  }
  auto cost = [&](size_t a, size_t b) {
    const double sum = s1[b] - s1[a];
    return std::max(0.0, s2[b] - s2[a] - sum * sum / static_cast<double>(b - a));
  };
  // optimal partitioning (PELT's recursion, without its pruning: O(n^2), a few ms for a history
  // of a thousand runs): F(t) = min over s of F(s) + cost(s, t) + penalty, segments of min_size
  // points at least; the last segment's start of each t traced back
  const double inf = std::numeric_limits<double>::infinity();
  std::vector<double> F(n + 1, inf);
  std::vector<size_t> last(n + 1, 0);
  F[0] = -penalty;  // the first segment pays no penalty
  for (size_t t = min_size; t <= n; ++t)
    for (size_t s0 = 0; s0 + min_size <= t; ++s0) {
      if (F[s0] == inf) continue;
      const double f = F[s0] + cost(s0, t) + penalty;
      if (f < F[t]) F[t] = f, last[t] = s0;
    }
  for (size_t t = n; t > 0; t = last[t])
    if (last[t] > 0) out.push_back(last[t]);
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace mb
