// Scene loading over the model size: the time to parse and check a scene file of a chain of N
// point masses on rods, N = 10^4, 10^5, 10^6, and its peak memory (the process's maximum resident
// set, read from /proc/self/status after each size). load_scene reads the file as mbbench does
// (the line reader, models/formats/scene_lexer.hpp), load_scene_toml through toml++ part by part, and
// build_chain builds and checks the same model in memory (the catalog's chain:n=N), the yardstick
// of a loader.
// Run: build/release/bench/scene_bench [--benchmark_filter=...]
#include <benchmark/benchmark.h>

#include <fstream>
#include <string>

#include "models/catalog.hpp"
#include "models/formats/scene.hpp"
#include "records/counters.hpp"

namespace {

// VmHWM: the peak resident set of this process so far, MiB
double peak_mib() {
  std::ifstream in("/proc/self/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stod(line.substr(6)) / 1024.0;
  return 0;
}

void load(benchmark::State& st, mb::SceneParse how) {
  mb::ChainParams p;
  p.n = static_cast<int>(st.range(0));
  const std::string text = mb::scene_to_toml(mb::make_chain(p, "chain"));
  for (auto _ : st) {
    mb::Model m = mb::parse_scene(text, "chain.toml", how);
    benchmark::DoNotOptimize(m.bodies.data());
  }
  st.counters[mb::counter::bodies] = static_cast<double>(p.n);
  st.counters[mb::counter::file_MiB] = static_cast<double>(text.size()) / (1024.0 * 1024.0);
  st.counters[mb::counter::peak_MiB] = peak_mib();
  st.SetComplexityN(p.n);
}
void load_scene(benchmark::State& st) { load(st, mb::SceneParse::lines); }
void load_scene_toml(benchmark::State& st) { load(st, mb::SceneParse::toml_parts); }

void build_chain(benchmark::State& st) {
  mb::ChainParams p;
  p.n = static_cast<int>(st.range(0));
  for (auto _ : st) {
    mb::Model m = mb::make_chain(p, "chain");
    mb::check_model(m, "chain");  // as build_model does
    benchmark::DoNotOptimize(m.bodies.data());
  }
  st.counters[mb::counter::bodies] = static_cast<double>(p.n);
  st.SetComplexityN(p.n);
}

}  // namespace

BENCHMARK(load_scene)->RangeMultiplier(10)->Range(10000, 1000000)->Unit(benchmark::kMillisecond)->Iterations(1)->Complexity();
BENCHMARK(load_scene_toml)->RangeMultiplier(10)->Range(10000, 1000000)->Unit(benchmark::kMillisecond)->Iterations(1)->Complexity();
BENCHMARK(build_chain)->RangeMultiplier(10)->Range(10000, 1000000)->Unit(benchmark::kMillisecond)->Iterations(1)->Complexity();
BENCHMARK_MAIN();
