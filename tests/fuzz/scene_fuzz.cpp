// Fuzz target: the scene reader (models/scene_reader.cpp), and the writer on what it accepts: a scene
// that reads must write and read back to the same text. The line reader (models/scene_lines.hpp)
// and toml++ must agree: the same model or the same error, read either way.
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "models/scene.hpp"

namespace {
// the model's text, or the error with its line and field
std::string outcome(const std::string& text, mb::SceneParse how) {
  try {
    return mb::scene_to_toml(mb::parse_scene(text, "fuzz.toml", how));
  } catch (const mb::InputError& e) {
    return std::string("error: ") + e.what() + " | " + std::to_string(e.line) + " | " + e.field;
  }
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input = mbfuzz::text_of(data, size);
  if (outcome(input, mb::SceneParse::lines) != outcome(input, mb::SceneParse::toml_whole)) std::abort();
  return mbfuzz::guarded([&] {
    const mb::Model m = mb::parse_scene(input, "fuzz.toml");
    const std::string text = mb::scene_to_toml(m);
    if (mb::scene_to_toml(mb::parse_scene(text, "fuzz-roundtrip.toml")) != text) std::abort();
  });
}
