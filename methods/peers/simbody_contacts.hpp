// simbody: the model's shapes as Simbody contact surfaces (methods/peers/simbody.cpp), and the
// conversions of vectors and rotations to Simbody's that both files use.
#pragma once
#include <Simbody.h>

#include <memory>
#include <vector>

#include "methods/peers/translation.hpp"

namespace mb::simbody_adapter {

inline SimTK::Vec3 sv(const Vec3& v) { return SimTK::Vec3(v.x(), v.y(), v.z()); }
inline SimTK::Rotation srot(const Quat& q) { return SimTK::Rotation(SimTK::Quaternion(q.w(), q.x(), q.y(), q.z())); }

// the method's contact options (docs/methods.md, simbody)
struct ContactOptions {
  double stiffness;            // contact_stiffness: a moving surface's (ContactMaterial)
  double restitution_speed;    // restitution_speed, m/s: the dissipation c = (1 - e) / restitution_speed
  double transition_velocity;  // transition_velocity, m/s: where Simbody's smoothed friction falls to zero
};

// the contact subsystems of the system, which hold the surfaces' contacts and forces
struct Contacts {
  std::unique_ptr<SimTK::ContactTrackerSubsystem> tracker;
  std::unique_ptr<SimTK::CompliantContactSubsystem> forces;
};

// The model's shapes as Simbody contact surfaces on their mobilized bodies (the world's and
// static bodies' on Ground), in contact exactly in the pairs our detector tests (ShapePairRule:
// two bodies joined by a joint share a contact clique; one body's surfaces never touch). Simbody
// has compliant forces for a sphere on a sphere and a sphere, box or ellipsoid on a half-space
// (Hertz, Hertz elliptical, and a linear spring at each box vertex below the plane), and a
// sphere on a box through SphereBrickTracker (Hertz, as on a half-space); any other tested pair
// is refused by name. Simbody combines the two surfaces' materials: the stiffnesses
// in series, the dissipations weighted by compliance, friction coefficients as 2 a b / (a + b).
// Our rule gives each pair one set of coefficients (the pair's entry, or the smaller of the two
// materials'). Fixed surfaces are rigid (stiffness 1e30: the moving surface, of stiffness
// `contact_stiffness` and dissipation (1 - e) / restitution_speed, sets the pair alone), and
// the surfaces' coefficients follow the first of two rules that gives every tested pair its own
// (below); where neither does, each tested pair has two surfaces of its own.
// mobods and frames: each body's mobilized body and its frame (peer_frames).
Contacts map_contacts(const Model& model, const State& state, SimTK::MultibodySystem& system, SimTK::SimbodyMatterSubsystem& matter,
                      std::vector<SimTK::MobilizedBody>& mobods, const std::vector<PeerFrame>& frames, const ContactOptions& options);

}  // namespace mb::simbody_adapter
