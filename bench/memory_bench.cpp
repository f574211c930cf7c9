// The machine's memory bandwidth at each level of its caches, for the roofline of the O(n)
// methods (docs/performance.md): STREAM's kernels (McCalpin) over working sets from 16 KiB (the
// first-level cache) to 256 MiB (main memory, past any last-level cache of this class of machine).
//   read:  s += a[i]                 8 bytes per element
//   copy:  a[i] = b[i]               16 bytes per element (STREAM's count: the write-allocate read
//   triad: a[i] = b[i] + q c[i]      24 bytes per element  of a is not counted)
// bytes_per_second is the bytes of the STREAM count over the time; the working set (all the
// kernel's arrays) is the benchmark's argument. One core, as the methods run.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <vector>

namespace {

// elements per array for a working set of `bytes` over `arrays` arrays of doubles
size_t elements(int64_t bytes, int arrays) { return static_cast<size_t>(bytes) / (8 * static_cast<size_t>(arrays)); }

void BM_Read(benchmark::State& st) {
  const size_t n = elements(st.range(0), 1);
  std::vector<double> a(n, 1.0);
  for (auto _ : st) {
    // four partial sums: the adds are not one dependent chain
    double s0 = 0, s1 = 0, s2 = 0, s3 = 0;
    for (size_t i = 0; i + 3 < n; i += 4) {
      s0 += a[i];
      s1 += a[i + 1];
      s2 += a[i + 2];
      s3 += a[i + 3];
    }
    double s = s0 + s1 + s2 + s3;
    benchmark::DoNotOptimize(s);
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(8 * n));
}

void BM_Copy(benchmark::State& st) {
  const size_t n = elements(st.range(0), 2);
  std::vector<double> a(n, 0.0), b(n, 1.0);
  for (auto _ : st) {
    for (size_t i = 0; i < n; ++i) a[i] = b[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(16 * n));
}

void BM_Triad(benchmark::State& st) {
  const size_t n = elements(st.range(0), 3);
  std::vector<double> a(n, 0.0), b(n, 1.0), c(n, 2.0);
  const double q = 3.0;
  for (auto _ : st) {
    for (size_t i = 0; i < n; ++i) a[i] = b[i] + q * c[i];
    benchmark::DoNotOptimize(a.data());
    benchmark::ClobberMemory();
  }
  st.SetBytesProcessed(static_cast<int64_t>(st.iterations()) * static_cast<int64_t>(24 * n));
}

// working sets 16 KiB, 64 KiB, ..., 256 MiB
void sizes(benchmark::internal::Benchmark* b) {
  for (int64_t s = int64_t{16} << 10; s <= int64_t{256} << 20; s *= 4) b->Arg(s);
}

BENCHMARK(BM_Read)->Apply(sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Copy)->Apply(sizes)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_Triad)->Apply(sizes)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
