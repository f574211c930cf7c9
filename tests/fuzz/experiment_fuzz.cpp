// Fuzz target: the experiment reader (experiments/experiment.cpp): validation of the whole file,
// every model built, every method made, every step planned, and the expansion into cases.
#include "experiments/experiment.hpp"
#include "fuzz_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return mbfuzz::guarded([&] {
    const mb::Experiment e = mb::parse_experiment(mbfuzz::text_of(data, size), "fuzz.toml");
    (void)mb::expand_cases(e);
  });
}
