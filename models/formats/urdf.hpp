// URDF import (liburdfdom): a robot description as a Model, for `mbbench run robot.urdf METHOD`
// and `robot.urdf:base=free,collisions=all` (docs/robots.md: the mapping, the options, what
// is ignored, the errors).
//
// Trees of revolute, continuous (hinges), prismatic (sliders) and fixed joints. Every link welded
// to its parent by a fixed joint is merged into the parent's body (mass, centre of mass and inertia
// combined by the parallel-axis theorem); its frame is kept by name in ModelInfo::frames. Each
// remaining group of links is one rigid body framed at its centre of mass. The root's group is the
// fixed world (base=fixed, URDF's default) or a free body (base=free). Gravity is (0, 0, -9.81),
// URDF's z up.
#pragma once
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "models/model.hpp"

namespace mb {

struct UrdfOptions {
  bool free_base = false;   // base=free: the root's body floats (6 degrees of freedom)
  // base=auto: fixed, except that a file whose joints are all fixed (a lone object) floats, as
  // PyBullet and Drake load it
  bool auto_base = false;
  bool collisions = false;  // collisions=primitives: boxes, spheres, cylinders and capsules become shapes
  bool meshes = false;      // collisions=all (with collisions): meshes too, as their convex hulls (mesh_hull.hpp)
  // limits=on: <limit> lower and upper of revolute and prismatic joints as joint limits (a range of
  // zero width is no limit: liburdfdom reads an omitted end as 0)
  bool limits = true;
  bool damping = false;     // damping=on: <dynamics damping> of the moving joints as joint dampers
  double friction = 1;      // friction=MU: the one material's Coulomb coefficient
  // floor=on: a half-space (normal +z) touching the lowest collision shape at the start; floor=Z:
  // at height Z
  enum class Floor { Off, Lowest, Height } floor = Floor::Off;
  double floor_height = 0;
  // strict=on: liburdfdom's reading alone; off: Drake's and PyBullet's conventions too, each named
  // in a warning (docs/robots.md, "URDF conventions")
  bool strict = false;
};

// True when this binary reads URDF (built with liburdfdom).
bool urdf_supported();
// The options of a robot file's spec (`mbbench list` and the checks of load_urdf).
const std::vector<OptionInfo>& urdf_options();
// True when a model spec names a URDF file: "robot.urdf" or "robot.urdf:key=value,...".
bool is_urdf_spec(const std::string& text);
// Reads "robot.urdf[:options]"; `source` and `line` name where the spec came from (errors in the
// options), the file names itself in errors in its content.
Model load_urdf(const std::string& spec, const std::string& source = "command line", int line = 0);
// Reads a URDF file; InputError naming the file and the link or joint for what it cannot map.
Model read_urdf(const std::string& path, const UrdfOptions& options = {});
// The same from text; `path` names the file in messages, and its folder is where mesh files are found.
Model parse_urdf(const std::string& text, const std::string& path, const UrdfOptions& options = {});

}  // namespace mb
