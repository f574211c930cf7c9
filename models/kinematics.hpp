// Rigid-body kinematics and mechanical quantities on a State.
#pragma once
#include "models/model.hpp"

namespace mb {

bool is_spd(const Mat3& m);
// symmetric with eigenvalues >= 0 to round-off (1e-12 of the largest): a point mass's or a thin rod's
// inertia (a singular one: feature kSingularInertia)
bool is_semidefinite(const Mat3& m);

// World inertia tensor R I R^T of body i in state s.
Mat3 world_inertia(const Body& b, const BodyState& s);

// World position and velocity of a point given in a body's frame (or in world frame for kWorld).
Vec3 world_point(const Model& m, const State& s, int body, const Vec3& local);
Vec3 world_point_velocity(const Model& m, const State& s, int body, const Vec3& local);

// Energy (docs/conventions.md): sum of m|v|^2/2 + w^T I w / 2 - m g.x over dynamic bodies, so the
// potential is zero at the height of the origin, plus the springs' potential (spring_energy).
double kinetic_energy(const Model& m, const State& s);
double potential_energy(const Model& m, const State& s);
inline double total_energy(const Model& m, const State& s) { return kinetic_energy(m, s) + potential_energy(m, s); }

Vec3 linear_momentum(const Model& m, const State& s);
Vec3 angular_momentum(const Model& m, const State& s);  // about the world origin

// The raw errors every joint type is measured by (shared by the metrics and the methods):
// separation a - b of the joint points (world), the world axis axis_a (unit), and the rotational
// error vector (world): orientation part: the rotation vector of (q_a rel) q_b^-1;
// axis part: u_b x u_a; twist part: the twist angle of that rotation about axis_a (swing-twist
// decomposition), as a vector along axis_a; perpendicular part: (u_a . u_b) times the unit vector
// along u_a x u_b.
Vec3 joint_separation(const Model& m, const State& s, const Joint& j);
Vec3 joint_axis_world(const State& s, const Joint& j);
Vec3 joint_rotation_error(const State& s, const Joint& j);
// Two unit vectors orthogonal to the unit vector n and to each other (rows of the 2x3 result):
// e1 = the projection of the coordinate axis least aligned with n, normalised; e2 = n x e1. The
// metrics (line/axis joint errors) and the methods (projection rows) share it.
Eigen::Matrix<double, 2, 3> orthogonal_basis(const Vec3& n);
// rotation vector of a unit quaternion (angle in [0, pi])
Vec3 rotation_vector(Quat q);

// A rolling wheel's contact (Model::rolling): the lever r d from the centre to the contact point
// (world), its rate d/dt(r d) along the motion (the contact point moving round the rim, not the
// material point), the holonomic error n . (p - point) (m) and the velocity of the material point
// at the contact, v + w x r d (world; all three components zero when it rolls without slipping).
struct RollingContact {
  Vec3 lever = Vec3::Zero(), lever_rate = Vec3::Zero(), slip = Vec3::Zero();
  double height = 0;
};
RollingContact rolling_contact(const Rolling& r, const BodyState& b);

// Error of one joint: pos = distance of the joint points (rod: | |pa - pb| - L |), vel = relative
// velocity of the joint points that the joint forbids (rod: along the rod), rot/rot_vel = angle in
// rad and relative angular velocity that a hinge or fixed joint forbids (0 for others).
struct JointError {
  double pos = 0, vel = 0, rot = 0, rot_vel = 0;
};
JointError joint_error(const Model& m, const State& s, const Joint& j);

// The largest joint error (m, or rad for the rotational parts) at the start of a model whose joints
// hold: builders and importers start at round-off. Above it the joints start broken, a model to
// repair (the model feature "broken joints", methods/method.hpp; the metric repair_steps); the
// repair is done when the error is within kRepairedTolerance.
constexpr double kBrokenJointTolerance = 1e-6;
constexpr double kRepairedTolerance = 1e-9;

// Max over joints of the errors above.
JointError max_joint_error(const Model& m, const State& s);

// A motor's coordinate q (models/model.hpp, Motor) at state s: a hinge's angle wrapped into
// (-pi, pi], a slider's displacement; and its rate q' (a hinge's u . (w_b - w_a); a slider's rate
// of (p_b - p_a) . u, u = the world axis_a, which turns with a).
double motor_coordinate(const Model& m, const State& s, const Motor& motor);
double motor_rate(const Model& m, const State& s, const Motor& motor);
// The parts of motor_coordinate that depend on the model alone, for a caller that evaluates it
// often: a hinge's rest orientation of b relative to a (conjugated) and its axis_a normalized, a
// slider's displacement at the initial state. motor_coordinate(m, s, motor, motor_frame(m, motor))
// is motor_coordinate(m, s, motor), bit for bit.
struct MotorFrame {
  Quat rest_inverse = Quat::Identity();
  Vec3 axis = Vec3::UnitX();
  double initial_slide = 0;
};
MotorFrame motor_frame(const Model& m, const Motor& motor);
double motor_coordinate(const Model& m, const State& s, const Motor& motor, const MotorFrame& frame);
// A coupling's error q_a - multiplier q_b - offset at s (Model::couplings; the coordinates as
// motor_coordinate's, a hinge's wrapped into (-pi, pi]) and its rate q_a' - multiplier q_b'.
double coupling_error(const Model& m, const State& s, const JointCoupling& c);
double coupling_rate(const Model& m, const State& s, const JointCoupling& c);
// x - 2 pi k wrapped into (-pi, pi]
double wrap_angle(double x);

bool state_is_finite(const State& s);

// The lowest world z of the shapes at s (a half-space or a plane counts its centre); +inf with none.
double lowest_shape_point(const Model& m, const State& s);

}  // namespace mb
