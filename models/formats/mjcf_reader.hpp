// The reading of a compiled mjModel into a Model (models/formats/mjcf.hpp), shared by its files:
// mjcf.cpp (the entry, MuJoCo's errors, the names and the warning of what is not mapped),
// mjcf_joints.cpp (bodies, joints, equality constraints, actuators) and mjcf_contacts.cpp (geoms,
// contact pairs, the file's contact options). Included only where MBBENCH_WITH_MUJOCO is set.
#pragma once
#include <mujoco/mujoco.h>

#include <string>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/formats/mjcf.hpp"

namespace mb::mjcf_import {

inline Vec3 vec3(const mjtNum* p) { return Vec3(p[0], p[1], p[2]); }
inline Quat quat4(const mjtNum* p) { return Quat(p[0], p[1], p[2], p[3]).normalized(); }
inline Mat3 mat3(const mjtNum* p) {
  Mat3 r;
  r << p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8];  // MuJoCo's matrices are row-major
  return r;
}

inline std::string name_of(const mjModel* m, mjtObj type, int id, const char* fallback) {
  const char* n = mj_id2name(m, type, id);
  return n && *n ? std::string(n) : fmt::format("{}{}", fallback, id);
}

inline const char* joint_kind(int type) {
  switch (type) {
    case mjJNT_FREE: return "free";
    case mjJNT_BALL: return "ball";
    case mjJNT_SLIDE: return "slide";
    case mjJNT_HINGE: return "hinge";
  }
  return "?";
}

inline const char* geom_kind(int type) {
  switch (type) {
    case mjGEOM_PLANE: return "plane";
    case mjGEOM_HFIELD: return "hfield";
    case mjGEOM_SPHERE: return "sphere";
    case mjGEOM_CAPSULE: return "capsule";
    case mjGEOM_ELLIPSOID: return "ellipsoid";
    case mjGEOM_CYLINDER: return "cylinder";
    case mjGEOM_BOX: return "box";
    case mjGEOM_MESH: return "mesh";
  }
  return "unknown";
}

// frames=light: a frame's mass and moments as a fraction of its lighter neighbour's
constexpr double kLightFrame = 0.01;
// points (and directions) closer than this are one point: the file's numbers as MuJoCo compiled them
constexpr double kMeetTolerance = 1e-9;

struct Reader {
  const std::string& path;
  const std::string& text;  // the file's text, for the lines of named elements
  const MjcfOptions& opt;
  const mjModel* m;
  const mjData* d;
  Model out;
  std::vector<int> rep;  // (nbody) our body index of each MuJoCo body, kWorld for the fixed frame
  bool frames = false;   // multi-joint bodies as chains through massless frames (needs_frames)
  int light_frames = 0;  // frames=light: the light bodies made
  mutable int limits_applied = 0;  // limited hinges and slides that became Joint limits

  std::string body_name(int i) const { return name_of(m, mjOBJ_BODY, i, "body"); }
  std::string joint_name(int k) const { return name_of(m, mjOBJ_JOINT, k, "joint"); }
  std::string geom_name(int g) const { return name_of(m, mjOBJ_GEOM, g, "geom"); }

  // An InputError at the line of the named element in the file (0 when it is unnamed or in an
  // included file): field is the element ("body", "joint", "geom", "equality").
  [[noreturn]] void fail(const std::string& field, const std::string& name, const std::string& message) const {
    throw InputError(path, element_line(field, name), field, message);
  }
  [[noreturn]] void fail(const std::string& field, const std::string& message) const { throw InputError(path, 0, field, message); }

  // the line of the first <element ... name="name" in the file (MuJoCo keeps no lines in mjModel)
  int element_line(const std::string& element, const std::string& name) const;

  Quat orientation(int b) const { return b == kWorld ? Quat::Identity() : out.bodies[static_cast<size_t>(b)].orientation; }
  Vec3 position(int b) const { return b == kWorld ? Vec3::Zero() : out.bodies[static_cast<size_t>(b)].position; }
  Vec3 local_point(int b, const Vec3& p) const { return orientation(b).conjugate() * (p - position(b)); }
  Vec3 local_axis(int b, const Vec3& a) const { return orientation(b).conjugate() * a; }

  Joint joint(JointType type, const std::string& name, int a, int b, const Vec3& point, const Vec3& axis_a, const Vec3& axis_b) const {
    Joint j;
    j.name = name;
    j.type = type;
    j.a = a;
    j.b = b;
    j.anchor_a = local_point(a, point);
    j.anchor_b = local_point(b, point);
    j.axis_a = local_axis(a, axis_a.normalized());
    j.axis_b = local_axis(b, axis_b.normalized());
    j.rel_orientation = orientation(a).conjugate() * orientation(b);
    return j;
  }

  std::string describe_joint(int k) const {
    const Vec3 p = vec3(d->xanchor + 3 * k), a = vec3(d->xaxis + 3 * k);
    if (m->jnt_type[k] == mjJNT_BALL || m->jnt_type[k] == mjJNT_FREE) return fmt::format("'{}' ({} at ({:.6g}, {:.6g}, {:.6g}))", joint_name(k), joint_kind(m->jnt_type[k]), p.x(), p.y(), p.z());
    return fmt::format("'{}' ({} at ({:.6g}, {:.6g}, {:.6g}) along ({:.6g}, {:.6g}, {:.6g}))", joint_name(k), joint_kind(m->jnt_type[k]), p.x(), p.y(), p.z(),
                       a.x(), a.y(), a.z());
  }

  // The joint of a MuJoCo body with several joints: its hinges, if they pass through one point,
  // as a Cardan joint (two perpendicular hinges) or a ball joint (three with independent axes).
  // MuJoCo composes a body's joints in order, each about its axis in the frame the previous ones
  // turned: the first hinge's axis stays fixed in the parent, the last one's in the body. Two
  // hinges through one point thus keep the body's last axis perpendicular to the parent's first,
  // which is the Cardan joint's constraint, and its two angles (methods/reduced/tree_model.hpp)
  // are the hinges' coordinates. Three hinges through one point with independent axes turn the
  // body about that point with R = R1(q1) R2(q2) R3(q3): the same configuration space as
  // a ball joint near qpos0 (the map from the angles is a local diffeomorphism wherever the turned
  // axes stay independent) and the same Lagrangian (kinetic energy of the same body motions,
  // potential of the same positions), so the same motion; the ball joint also passes the gimbal
  // singularities of the angles.
  // Two slides and a hinge normal to both (in any order) move the body in the plane of the slides
  // and turn it about the normal: a planar joint (plane + axis rows) whose plane passes through
  // the hinge's anchor; a hinge and a slide along its axis are a cylindrical joint (line + axis)
  // along the hinge's line. The slides' order, and the hinge's place among them, change the
  // coordinates (a slide after the hinge moves along the turned axis) but not the configurations
  // of the body or its Lagrangian, so not its motion. A range, damper, actuator or coupling of one
  // of the joints would need that joint's own coordinate: such a body stays a chain.
  // Why the joints of body i (two or more) are neither a Cardan, ball, planar nor cylindrical
  // joint; empty when they are one (type: which; p: the point they pass through, the hinge's
  // anchor; a: their axes at qpos0, the hinge's alone for planar and cylindrical).
  std::string merge_refusal(int i, Vec3& p, std::vector<Vec3>& a, JointType& type) const;
  // the same for a hinge and one or two slides (list: the joints, described)
  std::string composite_refusal(int i, const std::string& list, Vec3& p, std::vector<Vec3>& a, JointType& type) const;

  // the joints of body i are a chain of hinges and slides (every multi-joint body's, when frames)
  bool chainable(int i) const;

  // the joint j made of hinge or slide joint k with its damper (damping=on: MuJoCo's dof_damping)
  // and its limits (limits=on: jnt_range, less qpos0: the Model's coordinate starts at 0)
  Joint joint_extras(Joint j, int k) const;
  bool has_damping(int k) const;

  Joint multi_joint(int i, int parent) const;

  // MuJoCo's own composition of body i's joints: a massless frame after each joint but the last
  // (at that joint's anchor, turned as the body at qpos0), each joint a hinge or slider between
  // the frame before it and the one after; the last joint holds the body. Returns the index of the
  // last frame, the parent of the body's own joint.
  int frame_chain(int i, int parent);

  // Several joints on one body map as one Cardan, ball, planar or cylindrical joint where they
  // are one (the methods take those, the reduced-coordinate ones a Cardan joint in the two hinges'
  // angles, qpos less qpos0; one engine has no universal joint). Where some body's joints are neither, the model
  // needs massless frames, and then every multi-joint body is MuJoCo's own chain of hinges and
  // slides through frames (MuJoCo's coordinates; the reduced-coordinate methods take massless
  // frames, the others refuse them).
  bool needs_frames() const;

  void bodies();

  // connect: a ball joint at its anchor; weld: a fixed joint (both close loops); joint and tendon: a
  // coupling (coupling())
  void equalities(std::vector<std::string>& ignored);
  // Equality e of type joint or tendon as a JointCoupling, where it is linear (polycoef c2 = c3 = c4 =
  // 0), holds at qpos0 (c0 = 0) and relates two hinges or slides: MuJoCo's joint1 - qpos0_1 = c0 +
  // c1 (joint2 - qpos0_2), or the same of two fixed tendons' lengths less their lengths at qpos0;
  // anything else is refused by name.
  void coupling(int e, const std::string& name);
  int tendon_couplings = 0;  // couplings made of tendon equalities

  // The colliding geoms as Shapes. Materials: MuJoCo mixes two geoms' friction by the maximum (the
  // sliding coefficient, friction[0]) and uses the larger condim (1: frictionless); one material per
  // (coefficient, condim 1 or not), and a material pair for every two of them with that mix.
  void geoms(std::vector<std::string>& ignored);

  MjcfGeomContact geom_contact(int g) const;

  // the file's explicit pairs (between shapes: geom_ids, the MuJoCo geom of each) and exclusions
  // (between our bodies: a body merged into its parent or the world excludes that one's geoms)
  void file_pairs(const std::vector<int>& geom_ids);

  // the file's contact options (<option>, its flags, <size>)
  void contact_options();

  // The actuators on a hinge or slide joint that stays one here, with a fixed gain and no or an
  // affine bias, no activation dynamics: models/model.hpp Actuator (MuJoCo's force law). The
  // others are listed in the warning, not driven.
  void actuators(std::vector<std::string>& ignored);

  // Our names are one namespace per kind: MuJoCo's joints and equality constraints (both joints
  // here) may share a name, and an unnamed element's name here ("body3") may be another's.
  void unique_names() const;

  // what the file has that the Model does not hold: one warning line
  void unmapped(std::vector<std::string>& ignored) const;
};

}  // namespace mb::mjcf_import
