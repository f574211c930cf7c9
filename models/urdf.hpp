// URDF import (liburdfdom): a robot description as a Model, for `mbbench run robot.urdf METHOD`.
// Trees of revolute, continuous (hinges), prismatic (sliders) and fixed joints between links with
// inertials. The root link is the fixed world (a robot's base bolted down); every other link is a
// rigid body framed at its centre of mass and inertial axes; joint limits, damping and friction
// are ignored (docs/usage.md "URDF"). Gravity is (0, 0, -9.81), URDF's z up.
#pragma once
#include <string>

#include "models/model.hpp"

namespace mb {

// True when this binary reads URDF (built with liburdfdom).
bool urdf_supported();
// Reads a URDF file; InputError naming the file and the link or joint for what it cannot map.
Model read_urdf(const std::string& path);
// The same from text, `path` only for messages.
Model parse_urdf(const std::string& text, const std::string& path);

}  // namespace mb
