// Fuzz target: MJCF text through MuJoCo's parser and compiler (mj_loadXML reads a file: the input
// is written to a file of this process first) and our importer (models/formats/mjcf.cpp), with and without
// contacts; a model that imports must write as a scene and read back to the same text.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "fuzz_common.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = "/tmp/mbbench-mjcf-fuzz-" + std::to_string(::getpid()) + ".xml";
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
  for (const bool contacts : {true, false}) {
    mbfuzz::guarded([&] {
      mb::MjcfOptions o;
      o.contacts = contacts;
      const mb::Model m = mb::read_mjcf(path, o);
      const std::string scene = mb::scene_to_toml(m);
      if (mb::scene_to_toml(mb::parse_scene(scene, "fuzz-roundtrip.toml")) != scene) std::abort();
    });
  }
  return 0;
}
