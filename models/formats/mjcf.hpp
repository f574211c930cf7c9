// MJCF import through MuJoCo's own parser and compiler (libmujoco-dev): mj_loadXML compiles the
// file, and the compiled mjModel, with its kinematics at qpos0, is read into a Model
// (docs/robots.md, "MJCF import", has the mapping table, what is ignored and what is refused). We never parse MJCF
// ourselves: whatever MuJoCo's compiler computes (inertias from geoms, defaults classes, includes,
// frames given as euler/axisangle/xyaxes/fromto) is what we read.
//
// Spec: "path.xml[:contacts=on|off,damping=off|on]". contacts=on (the default) turns the colliding
// geoms (contype or conaffinity nonzero) into Shapes; off leaves the model without contacts.
// damping=on maps hinge and slide joints' damping as joint dampers (Joint::damping).
#pragma once
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "models/model.hpp"

namespace mb {

// True when this binary reads MJCF (built with MuJoCo: MBBENCH_WITH_MUJOCO).
bool mjcf_supported();
// True when a model spec names an MJCF file: its name part (before the first ':') ends in ".xml".
bool is_mjcf_spec(const std::string& text);
// The options of an MJCF file spec.
const std::vector<OptionInfo>& mjcf_options();

struct MjcfOptions {
  bool contacts = true;
  bool damping = false;  // damping=on: hinge and slide damping (dof_damping) as joint dampers
  bool limits = true;    // limits=on: the ranges of limited hinges and slides as joint limits
  // frames=light: each frame of MuJoCo's joint chains a light rigid body (1 % of the lighter massive
  // neighbour's mass, an isotropic inertia of 1 % of its largest moment), so that every method
  // takes the model; massless (default):
  // massless frames, which the reduced-coordinate methods and `mujoco` take
  bool light_frames = false;
};

// Reads an MJCF file. InputError naming the file (and the line, from MuJoCo's message) when MuJoCo
// refuses it, and naming the body, joint or geom for what the Model cannot hold.
Model read_mjcf(const std::string& path, const MjcfOptions& options = {});
// The spec "path.xml[:contacts=on|off,damping=off|on]"; `source` and `line` say where the spec came from.
Model load_mjcf(const std::string& spec, const std::string& source = "command line", int line = 0);

}  // namespace mb
