// The gate's comparison as text (mbbench gate): a table of what moved (metric, case, baseline,
// now, tolerance, verdict), the notes, which signals gated, and a summary line. Formatting only:
// the verdicts are analysis/gate_compare.hpp's.
#pragma once
#include <string>

#include "analysis/gate_compare.hpp"

namespace mb {

std::string gate_text(const GateComparison& c);

}  // namespace mb
