#include "models/catalog.hpp"

#include <filesystem>

#include "models/scene.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

const std::vector<ModelEntry>& model_catalog() {
  // sorted by name; one line per family
  static const std::vector<ModelEntry> entries = {
      {"chain", "n point masses of 1 kg on 1 m rods (body=particle) or n boxes with ball joints (body=box) from a fixed pivot, at rest, stretched horizontally",
       "ours", {OptionInfo::integer("n", "4", "number of links", 1, 100000),
                OptionInfo::choice("body", "particle", "particle (rods) or box (0.04 x 0.1 x 0.04 m boxes, ball joints)", {"particle", "box"})}, build_chain},
      {"double-pendulum", "2 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_double_pendulum},
      {"loop", "closed loop: n rods of 1 m with both ends fixed, n - 1 point masses started on a half circle",
       "schmitt2003", {OptionInfo::integer("n", "8", "number of rods", 3, 10000)}, build_loop},
      {"peaucellier", "Peaucellier-Lipkin linkage, 7 bars and 10 hinges (9 redundant constraint rows), green bars 2 m, h = 0.03 s; "
       "the point P moves on the line y = -2", "tomcin2014 s.4",
       {OptionInfo::number("amplitude", "47.5", "crank angle in degrees the swing reaches (48.19 is singular; 47.5: lambda_max / lambda_min about 1e7)", 0, 48.18, true)}, build_peaucellier},
      {"pendulum", "planar mathematical pendulum, 1 kg on a 1 m rod, started at the lowest point",
       "schmitt2005 s.4", {OptionInfo::number("amplitude", "10", "amplitude in degrees", 0, 180, true)}, build_pendulum},
      {"pendulum10", "mathematical pendulum, 10 degree amplitude", "schmitt2005 s.4", {}, build_pendulum10},
      {"pendulum90", "mathematical pendulum, 90 degree amplitude", "schmitt2005 s.4", {}, build_pendulum90},
      {"tree", "top box + full binary tree of boxes with ball joints; 10 N m on the top body for 1/30 s",
       "bender2007 s.6", {OptionInfo::integer("joints", "31", "2^k - 1 up to 16383", 1, 16383),
                          OptionInfo::choice("anchor", "none", "none (free-floating) or ball (top hung from the origin)", {"none", "ball"})}, build_tree},
      {"triple-pendulum", "3 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_triple_pendulum},
  };
  return entries;
}

Joint rod_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b, double length) {
  Joint j = ball_joint(name, a, anchor_a, b, anchor_b);
  j.type = JointType::Distance;
  j.length = length;
  return j;
}

Joint ball_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b) {
  Joint j;
  j.name = name;
  j.type = JointType::Ball;
  j.a = a;
  j.b = b;
  j.anchor_a = anchor_a;
  j.anchor_b = anchor_b;
  return j;
}

bool is_scene_path(const std::string& text) {
  return (text.size() > 5 && text.compare(text.size() - 5, 5, ".toml") == 0) || std::filesystem::is_regular_file(text);
}

Model load_model(const std::string& text, const std::string& source, int line) {
  if (is_scene_path(text)) {
    if (!std::filesystem::is_regular_file(text)) throw InputError(source, line, "model", fmt::format("no scene file '{}'", text));
    return read_scene(text);
  }
  return build_model(text, source, line);
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
