// The gate's comparison as text (mbbench gate): a table of what moved (metric, case, baseline,
// now, tolerance, verdict), the notes, which signals gated, and a summary line. Formatting only:
// the verdicts are decided in analysis/gate_compare.hpp, and worded here.
#pragma once
#include <string>

#include "analysis/gate_compare.hpp"

namespace mb {

std::string gate_text(const GateComparison& c);
// A row's verdict in words: "REGRESSION (x1.3 worse)", "ok (within)", "faster (x0.912, 99% CI ...)"
std::string gate_verdict_text(const GateRow& r);
// A time test's ratio, interval and p ("x1.120, 99% CI 1.080..1.150, p = 2.1e-05 (Holm 5.3e-04 of
// 26 tests)"), the p of the direction the ratio points
std::string timing_verdict_text(const TimingVerdict& v);

}  // namespace mb
