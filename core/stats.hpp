// Small statistics shared by the timing analysis and the gate.
#pragma once
#include <algorithm>
#include <vector>

namespace mb {

// The median of v; 0 for an empty v.
inline double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace mb
