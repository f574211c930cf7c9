// Rigid-body kinematics and mechanical quantities on a State.
#pragma once
#include "models/model.hpp"

namespace mb {

bool is_spd(const Mat3& m);

// World inertia tensor R I R^T of body i in state s.
Mat3 world_inertia(const Body& b, const BodyState& s);

// World position and velocity of a point given in a body's frame (or in world frame for kWorld).
Vec3 world_point(const Model& m, const State& s, int body, const Vec3& local);
Vec3 world_point_velocity(const Model& m, const State& s, int body, const Vec3& local);

// Energy (design.md s.4): sum of m|v|^2/2 + w^T I w / 2 - m g.x over dynamic bodies, so the
// potential is zero at the height of the origin.
double kinetic_energy(const Model& m, const State& s);
double potential_energy(const Model& m, const State& s);
inline double total_energy(const Model& m, const State& s) { return kinetic_energy(m, s) + potential_energy(m, s); }

Vec3 linear_momentum(const Model& m, const State& s);
Vec3 angular_momentum(const Model& m, const State& s);  // about the world origin

// Error of one joint: pos = distance of the joint points (rod: | |pa - pb| - L |), vel = relative
// velocity of the joint points that the joint forbids (rod: along the rod), rot/rot_vel = angle in
// rad and relative angular velocity that a hinge or fixed joint forbids (0 for others).
struct JointError {
  double pos = 0, vel = 0, rot = 0, rot_vel = 0;
};
JointError joint_error(const Model& m, const State& s, const Joint& j);

// Max over joints of the errors above.
JointError max_joint_error(const Model& m, const State& s);

bool state_is_finite(const State& s);

}  // namespace mb
