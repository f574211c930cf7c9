// The model a spec names: a URDF or MJCF file, a scene file, else a catalog model (declared in
// models/catalog.hpp).
#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"

namespace mb {

bool is_scene_path(const std::string& text) {
  return (text.size() > 5 && text.compare(text.size() - 5, 5, ".toml") == 0) || is_file(text);
}

Model load_model(const std::string& text, const std::string& source, int line) {
  if (is_urdf_spec(text)) return load_urdf(text, source, line);
  if (is_mjcf_spec(text)) return load_mjcf(text, source, line);
  if (is_scene_path(text)) {
    if (!is_file(text)) throw InputError(source, line, "model", fmt::format("no scene file '{}'", text));
    return read_scene(text);
  }
  return build_model(text, source, line);
}

}  // namespace mb
