// Two Models equal field by field, bit for bit (a scene file's round trip): every field a method,
// a metric or a record reads. A field a joint, shape or body kind does not use is left out (a
// particle's inertia, a hinge's rel_orientation, a sphere's half extents).
#pragma once
#include <catch2/catch.hpp>

#include "models/model.hpp"

namespace mbtest {

inline bool same_quat(const mb::Quat& a, const mb::Quat& b) { return a.coeffs() == b.coeffs(); }

inline void require_same_model(const mb::Model& a, const mb::Model& b) {
  CHECK(a.info.name == b.info.name);
  CHECK(a.info.source == b.info.source);
  CHECK(a.info.description == b.info.description);
  CHECK(a.info.period == b.info.period);
  CHECK(a.info.tracked_body == b.info.tracked_body);
  CHECK(a.info.duration == b.info.duration);
  CHECK(a.info.default_h == b.info.default_h);
  CHECK(a.info.h_grid == b.info.h_grid);
  CHECK(a.info.energy_conserved == b.info.energy_conserved);
  CHECK(a.info.published_end == b.info.published_end);
  CHECK(a.info.warnings == b.info.warnings);
  REQUIRE(a.info.exact.size() == b.info.exact.size());
  for (size_t i = 0; i < a.info.exact.size(); ++i) {
    CHECK(a.info.exact[i].body == b.info.exact[i].body);
    CHECK(a.info.exact[i].acceleration == b.info.exact[i].acceleration);
  }
  REQUIRE(a.info.frames.size() == b.info.frames.size());
  for (size_t i = 0; i < a.info.frames.size(); ++i) {
    const auto &x = a.info.frames[i], &y = b.info.frames[i];
    CHECK(x.name == y.name);
    CHECK(x.body == y.body);
    CHECK(x.position == y.position);
    CHECK(same_quat(x.orientation, y.orientation));
  }
  CHECK(a.gravity == b.gravity);
  REQUIRE(a.bodies.size() == b.bodies.size());
  for (size_t i = 0; i < a.bodies.size(); ++i) {
    const auto &x = a.bodies[i], &y = b.bodies[i];
    INFO("body " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.particle == y.particle);
    CHECK(x.is_static == y.is_static);
    CHECK(x.frame == y.frame);
    CHECK(x.light_frame == y.light_frame);
    CHECK(x.mass == y.mass);
    CHECK((x.particle || x.inertia == y.inertia));
    CHECK(x.box == y.box);
    CHECK(x.position == y.position);
    CHECK((x.particle || same_quat(x.orientation, y.orientation)));
    CHECK(x.velocity == y.velocity);
    CHECK((x.particle || x.angular_velocity == y.angular_velocity));
  }
  REQUIRE(a.joints.size() == b.joints.size());
  for (size_t i = 0; i < a.joints.size(); ++i) {
    const auto &x = a.joints[i], &y = b.joints[i];
    INFO("joint " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.type == y.type);
    CHECK(x.a == y.a);
    CHECK(x.b == y.b);
    CHECK(x.anchor_a == y.anchor_a);
    CHECK(x.anchor_b == y.anchor_b);
    if (x.type == mb::JointType::Distance) CHECK(x.length == y.length);
    CHECK(x.extensibility == y.extensibility);
    CHECK(x.axis_a == y.axis_a);
    CHECK(x.axis_b == y.axis_b);
    const mb::RotPart rot = mb::joint_parts(x.type).rot;
    if (rot == mb::RotPart::Orientation || rot == mb::RotPart::Twist) CHECK(same_quat(x.rel_orientation, y.rel_orientation));
    CHECK(x.damping == y.damping);
    CHECK(x.lower == y.lower);
    CHECK(x.upper == y.upper);
  }
  REQUIRE(a.loads.size() == b.loads.size());
  for (size_t i = 0; i < a.loads.size(); ++i) {
    CHECK(a.loads[i].body == b.loads[i].body);
    CHECK(a.loads[i].torque == b.loads[i].torque);
    CHECK(a.loads[i].force == b.loads[i].force);
    CHECK(a.loads[i].t_begin == b.loads[i].t_begin);
    CHECK(a.loads[i].t_end == b.loads[i].t_end);
  }
  REQUIRE(a.springs.size() == b.springs.size());
  for (size_t i = 0; i < a.springs.size(); ++i) {
    const auto &x = a.springs[i], &y = b.springs[i];
    CHECK(x.name == y.name);
    CHECK(x.a == y.a);
    CHECK(x.b == y.b);
    CHECK(x.anchor_a == y.anchor_a);
    CHECK(x.anchor_b == y.anchor_b);
    CHECK(x.stiffness == y.stiffness);
    CHECK(x.rest_length == y.rest_length);
    CHECK(x.damping == y.damping);
  }
  REQUIRE(a.materials.size() == b.materials.size());
  for (size_t i = 0; i < a.materials.size(); ++i) {
    const auto &x = a.materials[i], &y = b.materials[i];
    CHECK(x.name == y.name);
    CHECK(x.restitution == y.restitution);
    CHECK(x.mu_static == y.mu_static);
    CHECK(x.mu_dynamic == y.mu_dynamic);
  }
  REQUIRE(a.material_pairs.size() == b.material_pairs.size());
  for (size_t i = 0; i < a.material_pairs.size(); ++i) {
    const auto &x = a.material_pairs[i], &y = b.material_pairs[i];
    CHECK(x.a == y.a);
    CHECK(x.b == y.b);
    CHECK(x.restitution == y.restitution);
    CHECK(x.mu_static == y.mu_static);
    CHECK(x.mu_dynamic == y.mu_dynamic);
  }
  REQUIRE(a.shapes.size() == b.shapes.size());
  for (size_t i = 0; i < a.shapes.size(); ++i) {
    const auto &x = a.shapes[i], &y = b.shapes[i];
    INFO("shape " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.type == y.type);
    CHECK(x.body == y.body);
    CHECK(x.position == y.position);
    CHECK(same_quat(x.orientation, y.orientation));
    CHECK(x.material == y.material);
    using T = mb::ShapeType;
    if (x.type == T::Sphere || x.type == T::Capsule || x.type == T::Cylinder) CHECK(x.radius == y.radius);
    if (x.type == T::Capsule || x.type == T::Cylinder) CHECK(x.length == y.length);
    if (x.type == T::Box || x.type == T::Ellipsoid) CHECK(x.half_extents == y.half_extents);
    CHECK(x.vertices == y.vertices);
    CHECK(x.faces == y.faces);
  }
  REQUIRE(a.rolling.size() == b.rolling.size());
  for (size_t i = 0; i < a.rolling.size(); ++i) {
    const auto &x = a.rolling[i], &y = b.rolling[i];
    CHECK(x.name == y.name);
    CHECK(x.body == y.body);
    CHECK(x.axle == y.axle);
    CHECK(x.radius == y.radius);
    CHECK(x.point == y.point);
    CHECK(x.normal == y.normal);
  }
  REQUIRE(a.motors.size() == b.motors.size());
  for (size_t i = 0; i < a.motors.size(); ++i) {
    const auto &x = a.motors[i], &y = b.motors[i];
    CHECK(x.name == y.name);
    CHECK(x.joint == y.joint);
    CHECK(x.mode == y.mode);
    CHECK(x.max_force == y.max_force);
    CHECK(x.target.kind == y.target.kind);
    CHECK(x.target.value == y.target.value);
    CHECK(x.target.rate == y.target.rate);
    CHECK(x.target.amplitude == y.target.amplitude);
    CHECK(x.target.frequency == y.target.frequency);
    CHECK(x.target.phase == y.target.phase);
    CHECK(x.target.times == y.target.times);
    CHECK(x.target.values == y.target.values);
  }
  REQUIRE(a.actuators.size() == b.actuators.size());
  for (size_t i = 0; i < a.actuators.size(); ++i) {
    const auto &x = a.actuators[i], &y = b.actuators[i];
    INFO("actuator " << x.name);
    CHECK(x.name == y.name);
    CHECK(x.joint == y.joint);
    CHECK(x.kind == y.kind);
    CHECK(x.gear == y.gear);
    CHECK(x.gain == y.gain);
    CHECK(x.bias == y.bias);
    CHECK(x.ctrl_low == y.ctrl_low);
    CHECK(x.ctrl_high == y.ctrl_high);
    CHECK(x.force_low == y.force_low);
    CHECK(x.force_high == y.force_high);
    CHECK(x.offset == y.offset);
  }
  const mb::ControlSource &c = a.control, &d = b.control;
  CHECK(c.kind == d.kind);
  CHECK(c.text == d.text);
  CHECK(c.amplitude == d.amplitude);
  CHECK(c.frequency == d.frequency);
  CHECK(c.seed == d.seed);
  CHECK(c.sigma == d.sigma);
  CHECK(c.times == d.times);
  CHECK(c.rows == d.rows);
}

}  // namespace mbtest
