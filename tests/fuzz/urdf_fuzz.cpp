// Fuzz target: URDF text through liburdfdom and our importer (models/formats/urdf.cpp), with both base
// options, strict=on and the collision shapes (meshes too); a robot that imports must write as a
// scene and read back to the same text.
#include <cstdlib>

#include "fuzz_common.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = mbfuzz::text_of(data, size);
  // the lenient reading with both bases, and strict=on (liburdfdom's reading alone)
  for (const int variant : {0, 1, 2}) {
    mbfuzz::guarded([&] {
      mb::UrdfOptions o;
      o.free_base = variant == 1;
      o.strict = variant == 2;
      o.collisions = true;
      o.meshes = variant == 0;
      // as if the file were in the test package's urdf folder (scripts/fuzz.sh runs in the
      // repository's root): relative and package://mesh_robot/ paths reach its meshes
      const mb::Model m = mb::parse_urdf(text, "tests/data/mesh_robot/urdf/fuzz.urdf", o);
      if (m.bodies.empty()) return;  // a static object: a scene needs a body (write_scene refuses it)
      const std::string scene = mb::scene_to_toml(m);
      if (mb::scene_to_toml(mb::parse_scene(scene, "fuzz-roundtrip.toml")) != scene) std::abort();
    });
  }
  return 0;
}
