// Statistics of the timing gate (docs/usage.md "gate"): a two-sample comparison of repeated
// timings (the Mann-Whitney U test, with the Hodges-Lehmann estimate of the ratio and its
// distribution-free confidence interval), and change points of a series over commits (a
// penalised segmentation of log values). Pure functions; the gate and `mbbench trend` call them.
#pragma once
#include <cstddef>
#include <vector>

namespace mb {

// The Mann-Whitney U test of samples x and y (two independent samples; no assumption on the
// distribution). u counts the pairs (x_i, y_j) with x_i > y_j, a tie counting 1/2. The p-values
// are exact (the distribution of U by counting) when there are no ties and both samples have at
// most 50 values; otherwise from the normal approximation with the tie correction and a
// continuity correction. p_greater is small when x tends to be larger than y.
struct MannWhitney {
  double u = 0;
  double p_greater = 1, p_less = 1, p_two_sided = 1;
  bool exact = false;
  size_t nx = 0, ny = 0;
};
MannWhitney mann_whitney(const std::vector<double>& x, const std::vector<double>& y);

// P(U <= u) for samples of sizes m and n without ties (exact); u is a whole number.
double mann_whitney_cdf(long u, size_t m, size_t n);

// The ratio of x to y (positive values): exp of the Hodges-Lehmann estimate of the shift of
// log x against log y (the median of the m n differences log x_i - log y_j), and the confidence
// interval of that shift from the U distribution (Moses): between the (c+1)-th smallest and the
// (c+1)-th largest difference, c the largest count with P(U <= c) <= (1 - level) / 2. With fewer
// values than the level allows, the interval is the whole range of the differences.
struct RatioEstimate {
  double ratio = 1, low = 1, high = 1;
  double level = 0.99;
};
RatioEstimate ratio_estimate(const std::vector<double>& x, const std::vector<double>& y, double level = 0.99);

// Holm's step-down adjustment of the p-values of a family of tests: the i-th smallest p times
// (m - i + 1), made non-decreasing in that order, at most 1. Rejecting every test whose adjusted
// p is below alpha keeps the chance of one or more false rejections in the family at or below
// alpha, whatever the dependence between the tests (Holm 1979; uniformly more powerful than
// Bonferroni's m p).
std::vector<double> holm_adjust(const std::vector<double>& p);

// Change points of a series (e.g. log values over commits) under a piecewise-constant mean: the
// segmentation that minimises the sum of squared deviations from each segment's mean plus a
// penalty of beta sigma^2 log n per change point (optimal partitioning, the recursion PELT
// prunes; binary segmentation misplaces the ends of a short excursion); sigma is the noise,
// estimated from the first differences (their median absolute value / (0.6745 sqrt 2)), and
// never below sigma_floor. Returns the indices where a new segment starts, ascending.
struct ChangePointOptions {
  double beta = 3;           // penalty factor (BIC-like: 2; larger is more conservative)
  double sigma_floor = 0.005;  // on log values: a relative change of ~0.5 % is within the noise
  size_t min_size = 2;       // the fewest points of a segment
};
std::vector<size_t> change_points(const std::vector<double>& y, const ChangePointOptions& opt = {});

}  // namespace mb
