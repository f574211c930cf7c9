#include "models/catalog.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

const std::vector<ModelEntry>& model_catalog() {
  // sorted by name; one line per family
  static const std::vector<ModelEntry> entries = {
      {"chain", "n point masses of 1 kg on 1 m rods from a fixed pivot, at rest, stretched horizontally",
       "ours", {{"n", "4", "number of masses (>= 1)"}}, build_chain},
      {"double-pendulum", "2 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_double_pendulum},
      {"pendulum", "planar mathematical pendulum, 1 kg on a 1 m rod, started at the lowest point",
       "schmitt2005 s.4", {{"amplitude", "10", "amplitude in degrees, (0, 180)"}}, build_pendulum},
      {"pendulum10", "mathematical pendulum, 10 degree amplitude", "schmitt2005 s.4", {}, build_pendulum10},
      {"pendulum90", "mathematical pendulum, 90 degree amplitude", "schmitt2005 s.4", {}, build_pendulum90},
      {"triple-pendulum", "3 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_triple_pendulum},
  };
  return entries;
}

Model build_model(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "model", source, line);
  for (const auto& e : model_catalog()) {
    if (e.name != spec.name()) continue;
    spec.check_options(e.options);
    Model m = e.build(spec);
    check_model(m, source);
    return m;
  }
  std::string names;
  for (const auto& e : model_catalog()) names += (names.empty() ? "" : ", ") + e.name;
  throw InputError(source, line, "model",
                   fmt::format("unknown model '{}'; known models: {} (or a path to a .toml scene file)",
                               spec.name(), names));
}

}  // namespace mb
