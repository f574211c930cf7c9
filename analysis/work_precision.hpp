// Work-precision (docs/metrics.md#work-precision): for each model x method, the error against the
// reference at the end time over the cost of the run, one point per step size; and, per error
// target, the cheapest run that reaches it. Computed here, once; the report only formats it.
//
// Error: 10^-mescd, the mixed error of the Test Set for IVP Solvers (max over the position
// coordinates of |y - r| / (1 + |r|), positions in m) at the last sample, against the reference
// method. Cost: the wall time of the steps (the records' step_seconds_total) per simulated second.
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "records/record.hpp"

namespace mb {

struct WorkPoint {
  double h_nominal = 0, h = 0;
  double error = 0;             // 10^-mescd
  double digits = 0;            // mescd
  double cost = 0;              // s of wall time per simulated s
  std::optional<double> energy_drift, constraint_max;  // ED and CD_pos_max of the same run, if recorded
};

// One method on one model over its step sizes, by h.
struct WorkCurve {
  std::string model, method;
  std::vector<WorkPoint> points;      // ok runs with a mescd value and a step time
  std::vector<std::string> failures;  // "h=0.04: reason at t = 0.3 s"
  std::string unsupported;            // non-empty: the method cannot run the model (its reason)
};

// Where a curve stands at an error target: the cheapest of its runs with error <= target.
struct WorkAtTarget {
  double target = 0;
  std::optional<WorkPoint> cheapest;
};
struct WorkRow {
  size_t curve = 0;                   // index into WorkPrecision::curves
  std::vector<WorkAtTarget> at;       // one per work_targets() entry
  std::optional<WorkPoint> most_accurate;
};

// The error targets of the work-precision table.
inline const std::vector<double>& work_targets() {
  static const std::vector<double> t = {1e-3, 1e-6, 1e-9};
  return t;
}

struct WorkPrecision {
  std::vector<WorkCurve> curves;  // model order, then method order, as in the records
  std::vector<WorkRow> rows;      // one per curve
  bool empty() const { return curves.empty(); }
};

// From records whose experiment asks for "mescd" (others are ignored).
WorkPrecision work_precision(const std::vector<CaseRecord>& records);

}  // namespace mb
