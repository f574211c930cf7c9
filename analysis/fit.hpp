// Fits of an error measure w over step sizes h (docs/metrics.md#fits, schmitt2005 s.6).
#pragma once
#include <optional>
#include <string>
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

// One metric of one model x method over the step-size grid.
struct SeriesPoint {
  double h_nominal = 0;    // the grid's step (requested)
  double h = 0;            // the step simulated (T/k for models with a period)
  bool failed = false;     // the case failed: excluded from fits, counted
  bool unsupported = false;  // of the failed: the method refused the model (Status::Unsupported)
  std::optional<double> w; // the metric; absent or <= 0: not usable in a log fit
};

// Reading: the two-point fit puts the nominal h1, h2 into the formula, or the simulated steps.
enum class FitH { Simulated, Nominal };
const char* to_string(FitH f);
FitH fit_h_from(const std::string& text);  // throws std::invalid_argument listing the choices
const std::vector<std::string>& fit_h_names();

struct SeriesFit {
  // the paper's two-point fit at the grid points requested as h1 and h2 (absent: why not)
  std::optional<PowerFit> two_point;
  std::string two_point_note;
  double h1 = 0, h2 = 0, w1 = 0, w2 = 0;  // the h put into the formula and the metric there
  // least squares over every non-failed point with w > 0
  std::optional<PowerFit> least_squares;
  double h_min = 0, h_max = 0;  // simulated h range used by the least-squares fit
  int failed = 0;               // failed points, excluded
  int unusable = 0;             // non-failed points without a positive metric, excluded
};

// The selection of schmitt2005 s.6: the two-point fit uses the grid points whose nominal step is
// h1 and h2 (relative 1e-9), with their simulated or nominal h per `fit_h`.
SeriesFit fit_series(const std::vector<SeriesPoint>& points, double h1 = 0.005, double h2 = 0.04,
                     FitH fit_h = FitH::Simulated);

}  // namespace mb
