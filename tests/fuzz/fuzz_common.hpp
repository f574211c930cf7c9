// Shared by the fuzz targets (tests/fuzz/, built by the `fuzz` preset with clang and libFuzzer;
// scripts/fuzz.sh TARGET SECONDS runs one). A target feeds the input to one reader: an mb::Error
// (bad input, unsupported model, a numerical failure) is the expected answer to a bad input;
// anything else -- a crash, another exception, a leak, undefined behaviour -- is a finding.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"

namespace mbfuzz {

inline std::string text_of(const uint8_t* data, size_t size) { return std::string(reinterpret_cast<const char*>(data), size); }

template <class F>
int guarded(F&& f) {
  try {
    f();
  } catch (const mb::Error&) {
  }
  return 0;
}

}  // namespace mbfuzz
