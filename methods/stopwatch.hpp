// The split timings of StepStats (assembly, factorization, solve, integration, contact) are
// measured on the steady clock: `since(t0)` is the time in seconds from t0 to now.
#pragma once
#include <chrono>

namespace mb {

using Clock = std::chrono::steady_clock;
inline double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

}  // namespace mb
