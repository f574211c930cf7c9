// The benchmark counters: what the benchmarks (bench/step_benchmark.hpp and `mbbench bench`,
// bench/scene_bench.cpp) write beside each timed case in Google Benchmark's JSON, and what the timing analysis
// (analysis/timing.hpp) and its report read back, in one table with unit and meaning
// (records/counters.cpp). Every stage spells a counter by the constants below
// (tests/architecture_test.cpp counts counter-name literals outside records/ and tests/). The
// names are those of the files: a Google Benchmark JSON written earlier reads the same.
#pragma once
#include <string>
#include <vector>

namespace mb {

namespace counter {
inline constexpr char assembly_ms[] = "assembly_ms";
inline constexpr char factor_ms[] = "factor_ms";
inline constexpr char solve_ms[] = "solve_ms";
inline constexpr char integration_ms[] = "integration_ms";
inline constexpr char pos_sweeps[] = "pos_sweeps";
inline constexpr char vel_sweeps[] = "vel_sweeps";
inline constexpr char joint_corrections_per_s[] = "joint_corrections_per_s";
inline constexpr char internal_steps[] = "internal_steps";
inline constexpr char rows[] = "rows";
inline constexpr char nnz_a[] = "nnz_a";
inline constexpr char nnz_l[] = "nnz_l";
inline constexpr char joints[] = "joints";
inline constexpr char bodies[] = "bodies";
inline constexpr char file_MiB[] = "file_MiB";
inline constexpr char peak_MiB[] = "peak_MiB";
}  // namespace counter

struct CounterInfo {
  std::string name;
  std::string unit;  // "ms", "1/s", "MiB"; empty for a count
  std::string doc;   // what it holds
  // what else is spelled as the name ("" for nothing): tests/architecture_test.cpp then counts
  // only the literals that stand for the counter, in a map of counters
  std::string elsewhere;
};
// Every counter, in the order the timing analysis keeps them.
const std::vector<CounterInfo>& counter_catalog();
// The entry of a counter; null for another name.
const CounterInfo* counter_info(const std::string& name);

}  // namespace mb
