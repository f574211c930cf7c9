// Scene files (TOML): any model the builders make, written and read back bit-identically.
// Format (docs/conventions.md, "Scene files"):
//   [model]  name, source, description, gravity, duration, default_h, h_grid, period?,
//            tracked_body?, energy_conserved, published_end?, warnings?, ctrl? (ctrl_times, ctrl_rows:
//            a table of controls)
//   [[body]] name, type = "particle"|"rigid"|"frame", mass, inertia (rigid: 3x3 or diagonal [a,b,c]),
//            box?, static?, position, orientation? [w,x,y,z], velocity?, angular_velocity?, light_frame?
//   [[joint]] name, type = "distance"|"ball"|"hinge"|"fixed", a, b ("world" or a body name),
//            anchor_a?, anchor_b?, length (distance), axis_a/axis_b (hinge), rel_orientation (fixed)
//   [[torque]] body, torque (world, N m), t_begin, t_end
//   [[force]], [[spring]], [[motor]], [[actuator]], [[material]], [[material_pair]], [[shape]],
//   [[exact]] body, acceleration; [[named_frame]] name, body, position?, orientation?
//   [[rolling]] name?, body, axle, radius, point?, normal
//   [[coupling]] name?, joint, follows (hinges or sliders), multiplier?, offset?
// Every problem is an InputError naming the file, the line and the field.
#pragma once
#include <string>
#include <string_view>

#include "models/model.hpp"

namespace mb {

Model read_scene(const std::string& path);
// How parse_scene reads a file's [[body]], [[joint]], [[torque]] and [[spring]] tables: `lines`
// through the line reader where it reads every line of a part (models/formats/scene_lexer.hpp), else
// toml++ part by part; `toml_parts` toml++ part by part; `toml_whole` toml++ on the whole file.
// All three give the same model and the same error (tests/scene_test.cpp); the default is the
// fastest, the others are there for the tests.
enum class SceneParse { lines, toml_parts, toml_whole };
Model parse_scene(std::string_view text, const std::string& path_for_messages, SceneParse how = SceneParse::lines);
std::string scene_to_toml(const Model& model);
void write_scene(const Model& model, const std::string& path);  // atomic

}  // namespace mb
