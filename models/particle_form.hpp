// The particle form of a model's point masses (docs/robots.md "Particle form"). A moving rigid
// body of inertia 0 has no rotational dynamics of its own: where nothing but one joint to one other
// body depends on its orientation, its motion is that of its centre of mass alone, and that joint's
// rows become rows on the centre (exact, not an approximation):
//   hinge    the circle about the axis: two rods from two points of the axis, or a ball at the
//            point of the axis where the centre lies on it;
//   slider   a point-on-line along the axis through the centre;
//   ball     a rod from the joint point (a ball where the joint point is the centre);
//   fixed    a ball at the centre.
// Every other joint of the body must already be a row on its centre (a ball, rod, point-on-line or
// point-on-plane whose point on the body is its centre), its shapes spheres about the centre, and no
// spring, torque, rolling wheel, motor, actuator, limit, damper or coupling may depend on its
// orientation or on the joint replaced.
#pragma once
#include <string>
#include <vector>

#include "models/model.hpp"

namespace mb {

struct ParticleForm {
  Model model;
  // one line a body made a particle: "'bob' (inertia 0) as a particle: hinge 'swing' as two rods
  // from its axis ('swing', 'swing/rod')"
  std::vector<std::string> changes;
};

// A moving rigid body whose inertia is at most this times its mass (m^2) is a point mass.
constexpr double kPointMassInertia = 1e-12;

// True when the model has a moving rigid body with a singular inertia (the feature "singular
// inertias": models/kinematics.hpp is_spd).
bool has_singular_inertia(const Model& m);

// The model with every singular body as a particle. Throws UnsupportedModel naming the body and why
// when one has no particle form (a thin rod: no point mass; two joints that depend on its
// orientation; a shape that is not a sphere about its centre; ...).
ParticleForm particle_form(const Model& m);

}  // namespace mb
