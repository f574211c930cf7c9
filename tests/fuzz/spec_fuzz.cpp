// Fuzz target: the spec parser (core/spec.cpp) through the registries: a method spec is made, a
// model spec is built (small models only: a spec asking for a huge one is refused up front here,
// as its size is not a defect), with every option checked against its declared type and range.
#include "core/spec.hpp"
#include "fuzz_common.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = mbfuzz::text_of(data, size);
  mbfuzz::guarded([&] { (void)mb::make_method(text, "fuzz", 1); });
  mbfuzz::guarded([&] {
    const mb::Spec s = mb::Spec::parse(text, "model", "fuzz", 1);
    if (s.has("n") && s.get_int("n", 0) > 1000) return;
    if (s.has("joints") && s.get_int("joints", 0) > 1023) return;
    (void)mb::build_model(text, "fuzz", 1);
  });
  return 0;
}
