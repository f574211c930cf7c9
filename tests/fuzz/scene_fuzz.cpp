// Fuzz target: the scene reader (models/formats/scene_reader.cpp), and the writer on what it accepts: a scene
// that reads must write and read back to the same text. The line reader (models/formats/scene_lexer.hpp)
// and toml++ must agree: the same model read either way, or an error either way (a file with
// several errors may be refused for another of them first: the line reader checks the head's
// [model] before the parts' syntax; tests/scene_test.cpp requires the same error on single faults).
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "models/formats/scene.hpp"

namespace {
// the model's text, or "error"
std::string outcome(const std::string& text, mb::SceneParse how) {
  try {
    return mb::scene_to_toml(mb::parse_scene(text, "fuzz.toml", how));
  } catch (const mb::InputError&) {
    return "error";
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
