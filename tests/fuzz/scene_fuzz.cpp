// Fuzz target: the scene reader (models/scene_reader.cpp), and the writer on what it accepts: a scene
// that reads must write and read back to the same text.
#include <cstdlib>

#include "fuzz_common.hpp"
#include "models/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return mbfuzz::guarded([&] {
    const mb::Model m = mb::parse_scene(mbfuzz::text_of(data, size), "fuzz.toml");
    const std::string text = mb::scene_to_toml(m);
    if (mb::scene_to_toml(mb::parse_scene(text, "fuzz-roundtrip.toml")) != text) std::abort();
  });
}
