#include "models/formats/mjcf.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"

#ifdef MBBENCH_WITH_MUJOCO
#include <mujoco/mujoco.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "models/formats/xml_numbers.hpp"
#endif

namespace mb {

bool is_mjcf_spec(const std::string& text) {
  const std::string name = text.substr(0, text.find(':'));
  return name.size() > 4 && name.compare(name.size() - 4, 4, ".xml") == 0;
}

const std::vector<OptionInfo>& mjcf_options() {
  static const std::vector<OptionInfo> options = {
      OptionInfo::choice("contacts", "on", "on: the colliding geoms (contype or conaffinity nonzero, or in a <pair>) become Shapes; off: no contacts", {"on", "off"}),
      OptionInfo::choice("damping", "off", "on: the damping of hinge and slide joints (dof_damping) as joint dampers; off: ignored (listed in the warning)",
                         {"off", "on"}),
      OptionInfo::choice("limits", "on", "on: the range of every limited hinge and slide joint (jnt_range) as joint limits; ignore: none",
                         {"on", "ignore"}),
      OptionInfo::choice("frames", "massless",
                         "the frames of MuJoCo's joint chains: massless (GC4, ref and mujoco take them), or light: rigid bodies of 1 % of the "
                         "lighter neighbour's mass and largest moment (every method takes them; a change to the model, stated in its warning)",
                         {"massless", "light"})};
  return options;
}

Model load_mjcf(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "model", source, line);
  spec.check_options(mjcf_options());
  if (!is_file(spec.name())) throw InputError(source, line, "model", fmt::format("no MJCF file '{}'", spec.name()));
  MjcfOptions options;
  options.contacts = spec.get_string("contacts", "on") == "on";
  options.damping = spec.get_string("damping", "off") == "on";
  options.light_frames = spec.get_string("frames", "massless") == "light";
  options.limits = spec.get_string("limits", "on") == "on";
  return read_mjcf(spec.name(), options);
}

#ifndef MBBENCH_WITH_MUJOCO

bool mjcf_supported() { return false; }
Model read_mjcf(const std::string& path, const MjcfOptions&) {
  throw InputError(path, 0, "model", "this mbbench was built without MuJoCo (MBBENCH_WITH_MUJOCO, libmujoco-dev): it cannot read MJCF");
}

#else

bool mjcf_supported() { return true; }

namespace {

// MuJoCo's error handler must not return (MuJoCo exits otherwise): it throws. Installed only where
// no handler is set (the mujoco method installs its own, which throws too).
[[noreturn]] void mjcf_error(const char* msg) { throw Error(fmt::format("MuJoCo: {}", msg)); }
void mjcf_warning(const char*) {}

// MuJoCo's messages span lines; ours are one line
std::string one_line(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '\n') {
      if (!out.empty() && out.back() != ' ') out += "; ";
    } else {
      out += c;
    }
  }
  while (!out.empty() && (out.back() == ' ' || out.back() == ';')) out.pop_back();
  return out;
}

// the line MuJoCo's message names: "line = 4" (compiler), "line 4" (schema), "Line number=3" (tinyxml2)
int line_of(const std::string& msg) {
  for (size_t at = 0; at + 4 <= msg.size(); ++at) {
    if ((msg[at] != 'l' && msg[at] != 'L') || msg.compare(at + 1, 3, "ine") != 0) continue;
    size_t i = at + 4;
    auto spaces = [&] {
      while (i < msg.size() && std::isspace(static_cast<unsigned char>(msg[i]))) ++i;
    };
    if (msg.compare(i, 7, " number") == 0) i += 7;
    spaces();
    if (i < msg.size() && msg[i] == '=') ++i;
    spaces();
    size_t end = i;
    while (end < msg.size() && end - i < 9 && std::isdigit(static_cast<unsigned char>(msg[end]))) ++end;
    if (end > i) return std::stoi(msg.substr(i, end - i));
  }
  return 0;
}

// MuJoCo's schema refusal of a name it does not know ("invalid keyword: 'implicitfast'",
// "unrecognized attribute: 'X'", "unrecognized element; Element 'X'"): a name of a newer MuJoCo
// than the installed one, or a misspelling. The sentence naming it and the installed version;
// empty for other errors.
std::string unknown_name(const std::string& msg) {
  const std::pair<const char*, const char*> kinds[] = {
      {"invalid keyword: '", "keyword"}, {"unrecognized attribute: '", "attribute"}, {"unrecognized element; Element '", "element"}};
  for (const auto& [key, kind] : kinds) {
    const size_t at = msg.find(key);
    if (at == std::string::npos) continue;
    const size_t from = at + std::strlen(key), to = msg.find('\'', from);
    if (to == std::string::npos) continue;
    return fmt::format("the installed MuJoCo {} does not know the {} '{}' (a newer MuJoCo's, or a misspelling)", mj_versionString(), kind,
                       msg.substr(from, to - from));
  }
  return {};
}

std::string file_text(const std::string& path) {
  std::ifstream in(path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Vec3 vec3(const mjtNum* p) { return Vec3(p[0], p[1], p[2]); }
Quat quat4(const mjtNum* p) { return Quat(p[0], p[1], p[2], p[3]).normalized(); }
Mat3 mat3(const mjtNum* p) {
  Mat3 r;
  r << p[0], p[1], p[2], p[3], p[4], p[5], p[6], p[7], p[8];  // MuJoCo's matrices are row-major
  return r;
}

std::string name_of(const mjModel* m, mjtObj type, int id, const char* fallback) {
  const char* n = mj_id2name(m, type, id);
  return n && *n ? std::string(n) : fmt::format("{}{}", fallback, id);
}

const char* joint_kind(int type) {
  switch (type) {
    case mjJNT_FREE: return "free";
    case mjJNT_BALL: return "ball";
    case mjJNT_SLIDE: return "slide";
    case mjJNT_HINGE: return "hinge";
  }
  return "?";
}

const char* geom_kind(int type) {
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
  int element_line(const std::string& element, const std::string& name) const {
    for (const char* quote : {"\"", "'"}) {
      const std::string key = "name=" + std::string(quote) + name + quote;
      for (size_t pos = text.find(key); pos != std::string::npos; pos = text.find(key, pos + 1)) {
        const size_t open = text.rfind('<', pos);
        if (open == std::string::npos) continue;
        size_t end = open + 1;
        while (end < text.size() && (std::isalnum(static_cast<unsigned char>(text[end])) || text[end] == '_')) ++end;
        const std::string tag = text.substr(open + 1, end - open - 1);
        const bool match = tag == element || (element == "equality" && (tag == "connect" || tag == "weld" || tag == "joint" || tag == "tendon" || tag == "distance")) ||
                           (element == "joint" && tag == "freejoint");
        if (match) return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
      }
    }
    return 0;
  }

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
  // Why the joints of body i (two or more) are neither a Cardan nor a ball joint; empty when they
  // are one (p: the point they pass through, a: their axes at qpos0).
  std::string merge_refusal(int i, Vec3& p, std::vector<Vec3>& a) const {
    const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
    std::string list;
    for (int k = j0; k < j0 + nj; ++k) {
      if (!list.empty()) list += ", ";
      list += describe_joint(k);
    }
    bool hinges = nj <= 3;
    for (int k = j0; k < j0 + nj; ++k) hinges = hinges && m->jnt_type[k] == mjJNT_HINGE;
    if (!hinges)
      return fmt::format("body '{}' has {} joints ({}): a body maps with one joint, two perpendicular hinges through one point "
                         "(a Cardan joint) or three hinges through one point with independent axes (a ball joint)",
                         body_name(i), nj, list);
    // the point nearest every hinge line: sum (I - a a^T) (p - c) = 0
    Mat3 A = Mat3::Zero();
    Vec3 rhs = Vec3::Zero();
    std::vector<Vec3> c;
    a.clear();
    for (int k = j0; k < j0 + nj; ++k) {
      c.push_back(vec3(d->xanchor + 3 * k));
      a.push_back(vec3(d->xaxis + 3 * k).normalized());
      const Mat3 P = Mat3::Identity() - a.back() * a.back().transpose();
      A += P;
      rhs += P * c.back();
    }
    double scale = 1;
    for (const Vec3& q : c) scale = std::max(scale, q.norm());
    const double parallel = a[0].cross(a[1]).norm();
    double gap = 0;
    p = c[0];
    if (parallel > kMeetTolerance) {
      p = A.fullPivLu().solve(rhs);
      for (size_t k = 0; k < c.size(); ++k) gap = std::max(gap, ((Mat3::Identity() - a[k] * a[k].transpose()) * (p - c[k])).norm());
    }
    if (parallel <= kMeetTolerance || gap > kMeetTolerance * scale) {
      // two lines: their distance; three: how far the nearest point to all of them is off one
      const std::string how = parallel <= kMeetTolerance ? " (parallel hinges)"
                              : nj == 2 ? fmt::format(" ({:.3g} m apart)", std::abs((c[1] - c[0]).dot(a[0].cross(a[1]).normalized())))
                                        : fmt::format(" (no point within {:.3g} m of all three)", gap);
      return fmt::format("body '{}' has {} joints whose axes do not meet{}: {}", body_name(i), nj, how, list);
    }
    if (nj == 2) {
      const double cosine = a[0].dot(a[1]);
      if (std::abs(cosine) > kMeetTolerance)
        return fmt::format("body '{}' has 2 hinges through one point at {:.6g} degrees, not 90 (a Cardan joint's axes are perpendicular): {}",
                           body_name(i), std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / M_PI, list);
      return {};
    }
    const double det = a[0].dot(a[1].cross(a[2]));
    if (std::abs(det) <= kMeetTolerance)
      return fmt::format("body '{}' has 3 hinges through one point whose axes are dependent (det {:.3g}): {}", body_name(i), det, list);
    return {};
  }

  // the joints of body i are a chain of hinges and slides (every multi-joint body's, when frames)
  bool chainable(int i) const {
    const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
    for (int k = j0; k < j0 + nj; ++k)
      if (m->jnt_type[k] != mjJNT_HINGE && m->jnt_type[k] != mjJNT_SLIDE) return false;
    return true;
  }

  // the joint j made of hinge or slide joint k with its damper (damping=on: MuJoCo's dof_damping)
  // and its limits (limits=on: jnt_range, less qpos0: the Model's coordinate starts at 0)
  Joint joint_extras(Joint j, int k) const {
    if (opt.damping) j.damping = m->dof_damping[m->jnt_dofadr[k]];
    if (opt.limits && m->jnt_limited[k]) {
      const double q0 = m->qpos0[m->jnt_qposadr[k]];
      j.lower = m->jnt_range[2 * k] - q0;
      j.upper = m->jnt_range[2 * k + 1] - q0;
      if (!(j.lower <= j.upper))
        fail("joint", joint_name(k), fmt::format("joint '{}' has range [{}, {}]: the low end is above the high end", joint_name(k),
                                                 m->jnt_range[2 * k], m->jnt_range[2 * k + 1]));
      ++limits_applied;
    }
    return j;
  }
  bool has_damping(int k) const {
    const int n = m->jnt_type[k] == mjJNT_FREE ? 6 : m->jnt_type[k] == mjJNT_BALL ? 3 : 1;
    for (int v = m->jnt_dofadr[k]; v < m->jnt_dofadr[k] + n; ++v)
      if (m->dof_damping[v] != 0) return true;
    return false;
  }

  Joint multi_joint(int i, int parent) const {
    const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
    if (opt.damping)
      for (int k = j0; k < j0 + nj; ++k)
        if (has_damping(k))
          fail("body", body_name(i), fmt::format("body '{}' has {} hinges through one point, mapped as one {} joint, and joint '{}' has "
                                                 "damping: damping=on maps the damping of a joint that stays a hinge or slide (damping=off ignores it)",
                                                 body_name(i), nj, nj == 2 ? "cardan" : "ball", joint_name(k)));
    Vec3 p;
    std::vector<Vec3> a;
    const std::string why = merge_refusal(i, p, a);
    if (!why.empty()) fail("body", body_name(i), why);
    const std::string name = [&] {
      std::string s;
      for (int k = j0; k < j0 + nj; ++k) {
        if (!s.empty()) s += "+";
        s += joint_name(k);
      }
      return s;
    }();
    if (nj == 2) return joint(JointType::Cardan, name, parent, static_cast<int>(out.bodies.size()) - 1, p, a[0], a[1]);
    return joint(JointType::Ball, name, parent, static_cast<int>(out.bodies.size()) - 1, p, a[0], a[0]);
  }

  // MuJoCo's own composition of body i's joints: a massless frame after each joint but the last
  // (at that joint's anchor, turned as the body at qpos0), each joint a hinge or slider between
  // the frame before it and the one after; the last joint holds the body. Returns the index of the
  // last frame, the parent of the body's own joint.
  int frame_chain(int i, int parent) {
    const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
    for (int k = j0; k < j0 + nj - 1; ++k) {
      Body f;
      f.name = body_name(i) + "/" + joint_name(k);
      f.frame = !opt.light_frames;
      f.light_frame = opt.light_frames;
      if (opt.light_frames) {
        // 1 % of the lighter of the body and the massive body it hangs from (the body alone under
        // the world), as an isotropic inertia of 1 % of that body's largest moment (1 % of the
        // smallest made the frames spin up under step changes of the controls in the impulse
        // methods' explicit prediction)
        int light = i;
        for (int p = m->body_parentid[i]; p > 0; p = m->body_parentid[p])
          if (m->body_mass[p] >= mjMINVAL) {
            if (m->body_mass[p] < m->body_mass[i]) light = p;
            break;
          }
        const Vec3 moments = vec3(m->body_inertia + 3 * light);
        f.mass = kLightFrame * m->body_mass[light];
        f.inertia = kLightFrame * moments.maxCoeff() * Mat3::Identity();
        ++light_frames;
      }
      f.position = vec3(d->xanchor + 3 * k);
      f.orientation = quat4(d->xquat + 4 * i);
      const int index = static_cast<int>(out.bodies.size());
      out.bodies.push_back(f);
      const Vec3 ax = vec3(d->xaxis + 3 * k);
      out.joints.push_back(joint_extras(joint(m->jnt_type[k] == mjJNT_HINGE ? JointType::Hinge : JointType::Slider, joint_name(k), parent, index,
                                        f.position, ax, ax), k));
      parent = index;
    }
    return parent;
  }

  // Several joints on one body map as one Cardan or ball joint where they are one (the methods
  // take those, the reduced-coordinate ones a Cardan joint in the two hinges' angles, qpos less
  // qpos0; one engine has no universal joint). Where some body's joints are neither, the model
  // needs massless frames, and then every multi-joint body is MuJoCo's own chain of hinges and
  // slides through frames (MuJoCo's coordinates; the reduced-coordinate methods take massless
  // frames, the others refuse them).
  bool needs_frames() const {
    bool any = false;
    for (int i = 1; i < m->nbody; ++i) {
      if (m->body_jntnum[i] < 2) continue;
      Vec3 p;
      std::vector<Vec3> a;
      const std::string why = merge_refusal(i, p, a);
      if (why.empty()) continue;
      if (!chainable(i))
        fail("body", body_name(i), why + "; other hinges and slides become a chain through massless frames, a ball or free joint among several does not");
      any = true;
    }
    return any;
  }

  void bodies() {
    frames = needs_frames();
    rep.assign(static_cast<size_t>(m->nbody), kWorld);
    for (int i = 1; i < m->nbody; ++i) {  // MuJoCo's order: parents before children
      const int parent = rep[static_cast<size_t>(m->body_parentid[i])];
      const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
      const bool massless = m->body_mass[i] < mjMINVAL;
      if (nj == 0 && parent == kWorld) continue;  // welded to the world: part of the fixed frame
      if (nj == 0 && massless) {                  // a massless frame welded to its parent: merged into it
        rep[static_cast<size_t>(i)] = parent;
        continue;
      }
      if (massless)
        fail("body", body_name(i), fmt::format("body '{}' has {} joint(s) but no mass (a moving body needs one)", body_name(i), nj));
      Body b;
      b.name = body_name(i);
      b.mass = m->body_mass[i];
      b.inertia = vec3(m->body_inertia + 3 * i).asDiagonal();
      b.position = vec3(d->xipos + 3 * i);
      mjtNum q[4];
      mju_mulQuat(q, d->xquat + 4 * i, m->body_iquat + 4 * i);  // the inertial frame: the body's frame turned by iquat
      b.orientation = quat4(q);
      if (!b.position.allFinite() || !b.orientation.coeffs().allFinite())
        fail("body", b.name, fmt::format("body '{}' has a non-finite position or orientation as MuJoCo compiled it", b.name));
      for (int k = j0; k < j0 + nj; ++k) {
        const Vec3 axis = vec3(m->jnt_axis + 3 * k), anchor = vec3(d->xanchor + 3 * k);
        if (!anchor.allFinite()) fail("joint", joint_name(k), fmt::format("joint '{}' has a non-finite position", joint_name(k)));
        if ((m->jnt_type[k] == mjJNT_HINGE || m->jnt_type[k] == mjJNT_SLIDE) && !(axis.allFinite() && axis.norm() > 0))
          fail("joint", joint_name(k), fmt::format("joint '{}' has a zero or non-finite axis ({}, {}, {})", joint_name(k), axis.x(), axis.y(), axis.z()));
        if (opt.damping && (m->jnt_type[k] == mjJNT_FREE || m->jnt_type[k] == mjJNT_BALL) && has_damping(k))
          fail("joint", joint_name(k), fmt::format("joint '{}' is a {} joint with damping: damping=on maps the damping of hinge and slide "
                                                   "joints only (damping=off ignores it)", joint_name(k), m->jnt_type[k] == mjJNT_FREE ? "free" : "ball"));
      }
      const int index = static_cast<int>(out.bodies.size());
      rep[static_cast<size_t>(i)] = index;
      out.bodies.push_back(b);
      if (nj == 0) {
        out.joints.push_back(joint(JointType::Fixed, b.name + ":weld", parent, index, b.position, Vec3::UnitZ(), Vec3::UnitZ()));
      } else if (nj == 1) {
        const Vec3 p = vec3(d->xanchor + 3 * j0), ax = vec3(d->xaxis + 3 * j0);
        switch (m->jnt_type[j0]) {
          case mjJNT_FREE:
            if (parent != kWorld)
              fail("body", b.name, fmt::format("body '{}' has a free joint but moves with its parent", b.name));
            break;  // free-floating: no joint
          case mjJNT_BALL: out.joints.push_back(joint(JointType::Ball, joint_name(j0), parent, index, p, ax, ax)); break;
          case mjJNT_HINGE: out.joints.push_back(joint_extras(joint(JointType::Hinge, joint_name(j0), parent, index, p, ax, ax), j0)); break;
          case mjJNT_SLIDE: out.joints.push_back(joint_extras(joint(JointType::Slider, joint_name(j0), parent, index, p, ax, ax), j0)); break;
          default: fail("joint", joint_name(j0), fmt::format("joint '{}' has an unknown type {}", joint_name(j0), m->jnt_type[j0]));
        }
      } else if (frames) {
        // the chain's frames come after the body in the list (their joints name it by index)
        const int k = j0 + nj - 1;
        const int last = frame_chain(i, parent);
        const Vec3 p = vec3(d->xanchor + 3 * k), ax = vec3(d->xaxis + 3 * k);
        out.joints.push_back(joint_extras(joint(m->jnt_type[k] == mjJNT_HINGE ? JointType::Hinge : JointType::Slider, joint_name(k), last, index, p, ax, ax), k));
      } else {
        out.joints.push_back(multi_joint(i, parent));
      }
    }
    if (out.bodies.empty()) fail("model", "the model has no moving body");
  }

  // connect: a ball joint at its anchor; weld: a fixed joint (both close loops)
  void equalities(std::vector<std::string>& ignored) {
    int inactive = 0;
    for (int e = 0; e < m->neq; ++e) {
      const std::string name = name_of(m, mjOBJ_EQUALITY, e, "equality");
      const std::string field = "equality";
      if (!m->eq_active[e]) {
        ++inactive;
        continue;
      }
      const int type = m->eq_type[e];
      if (type != mjEQ_CONNECT && type != mjEQ_WELD)
        fail(field, name, fmt::format("equality '{}' is a {} constraint: only connect (a ball joint) and weld (a fixed joint) are mapped", name,
                                type == mjEQ_JOINT ? "joint" : type == mjEQ_TENDON ? "tendon" : "distance"));
      const int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
      const int a = rep[static_cast<size_t>(b1)], b = rep[static_cast<size_t>(b2)];
      if (a == b)
        fail(field, name, fmt::format("equality '{}' joins bodies '{}' and '{}' that are one rigid body here (welded or fixed together)", name,
                                body_name(b1), body_name(b2)));
      const mjtNum* data = m->eq_data + mjNEQDATA * e;
      const Mat3 R1 = mat3(d->xmat + 9 * b1), R2 = mat3(d->xmat + 9 * b2);
      const Vec3 x1 = vec3(d->xpos + 3 * b1), x2 = vec3(d->xpos + 3 * b2);
      if (type == mjEQ_CONNECT) {
        // data: the anchor in body1's frame, and (the compiler's, at qpos0) in body2's
        const Vec3 p1 = x1 + R1 * vec3(data), p2 = x2 + R2 * vec3(data + 3);
        if ((p1 - p2).norm() > kMeetTolerance * std::max(1.0, p1.norm()))
          fail(field, name, fmt::format("connect '{}': its anchors are {:.3g} m apart at qpos0", name, (p1 - p2).norm()));
        out.joints.push_back(joint(JointType::Ball, name, a, b, p1, Vec3::UnitZ(), Vec3::UnitZ()));
      } else {
        // data: the anchor in body2's frame, then body2's pose in body1's frame (relpose; the compiler's at qpos0 unless given)
        const Quat q1 = quat4(d->xquat + 4 * b1), q2 = quat4(d->xquat + 4 * b2);
        const Vec3 rel_p = R1.transpose() * (x2 - x1);
        const Quat rel_q = q1.conjugate() * q2, given_q = quat4(data + 6);
        if ((rel_p - vec3(data + 3)).norm() > kMeetTolerance * std::max(1.0, rel_p.norm()) || std::abs(std::abs(rel_q.dot(given_q)) - 1) > kMeetTolerance)
          fail(field, name, fmt::format("weld '{}' holds a relative pose (relpose) other than its bodies' at qpos0", name));
        out.joints.push_back(joint(JointType::Fixed, name, a, b, x2 + R2 * vec3(data), Vec3::UnitZ(), Vec3::UnitZ()));
      }
    }
    if (inactive) ignored.push_back(fmt::format("{} inactive equality constraint(s)", inactive));
  }

  // The colliding geoms as Shapes. Materials: MuJoCo mixes two geoms' friction by the maximum (the
  // sliding coefficient, friction[0]) and uses the larger condim (1: frictionless); one material per
  // (coefficient, condim 1 or not), and a material pair for every two of them with that mix.
  void geoms(std::vector<std::string>& ignored) {
    if (!opt.contacts || (m->opt.disableflags & mjDSBL_CONTACT)) return;
    struct Key {
      double mu;
      bool frictionless;
      bool operator<(const Key& o) const { return mu != o.mu ? mu < o.mu : frictionless < o.frictionless; }
    };
    std::map<Key, int> materials;
    std::vector<Key> keys;
    std::vector<int> geom_ids;  // the MuJoCo geom of each shape
    int torsional = 0, priority = 0;
    // a geom in an explicit pair collides there whatever its contype and conaffinity
    std::vector<bool> paired(static_cast<size_t>(m->ngeom), false);
    for (int p = 0; p < m->npair; ++p) paired[static_cast<size_t>(m->pair_geom1[p])] = paired[static_cast<size_t>(m->pair_geom2[p])] = true;
    for (int g = 0; g < m->ngeom; ++g) {
      if (!m->geom_contype[g] && !m->geom_conaffinity[g] && !paired[static_cast<size_t>(g)]) continue;  // visual only
      const int mb = m->geom_bodyid[g];
      const int body = rep[static_cast<size_t>(mb)];
      const std::string field = "geom";
      Shape s;
      s.name = geom_name(g);
      s.body = body;
      mjtNum q[4];
      mju_mulQuat(q, d->xquat + 4 * mb, m->geom_quat + 4 * g);
      s.position = local_point(body, vec3(d->geom_xpos + 3 * g));
      s.orientation = (orientation(body).conjugate() * quat4(q)).normalized();
      const mjtNum* size = m->geom_size + 3 * g;
      switch (m->geom_type[g]) {
        case mjGEOM_PLANE:
          if (body != kWorld)
            fail(field, s.name, fmt::format("geom '{}' is a plane on the moving body '{}': a half-space belongs to the world (contacts=off drops the geoms)",
                                    s.name, body_name(mb)));
          s.type = ShapeType::HalfSpace;  // the plane's normal, its z, becomes the half-space's y
          s.orientation = (s.orientation * Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))).normalized();
          break;
        case mjGEOM_SPHERE:
          s.type = ShapeType::Sphere;
          s.radius = size[0];
          break;
        case mjGEOM_CAPSULE:
        case mjGEOM_CYLINDER:
          s.type = m->geom_type[g] == mjGEOM_CAPSULE ? ShapeType::Capsule : ShapeType::Cylinder;
          s.radius = size[0];
          s.length = 2 * size[1];  // MuJoCo's size: radius, half-length
          break;
        case mjGEOM_ELLIPSOID:
          s.type = ShapeType::Ellipsoid;
          s.half_extents = vec3(size);
          break;
        case mjGEOM_BOX:
          s.type = ShapeType::Box;
          s.half_extents = vec3(size);
          break;
        default:
          fail(field, s.name, fmt::format("geom '{}' of body '{}' is a {}: only plane, sphere, capsule, cylinder, ellipsoid and box geoms become "
                                  "Shapes (contacts=off drops the geoms)",
                                  s.name, body_name(mb), geom_kind(m->geom_type[g])));
      }
      const Key key{m->geom_friction[3 * g], m->geom_condim[g] == 1};
      auto [it, added] = materials.emplace(key, static_cast<int>(keys.size()));
      if (added) keys.push_back(key);
      s.material = it->second;
      if (m->geom_condim[g] > 3) ++torsional;
      if (m->geom_priority[g] != 0) ++priority;
      out.shapes.push_back(s);
      geom_ids.push_back(g);
      out.mjcf_contacts.shapes.push_back(geom_contact(g));
    }
    file_pairs(geom_ids);
    if (out.shapes.empty()) return;
    for (const Key& k : keys) {
      Material mat;
      mat.name = fmt::format("mu={:g}{}", k.mu, k.frictionless ? ",condim=1" : "");
      mat.mu_static = mat.mu_dynamic = k.frictionless ? 0 : k.mu;
      out.materials.push_back(mat);
    }
    for (size_t i = 0; i < keys.size(); ++i)
      for (size_t j = i + 1; j < keys.size(); ++j) {
        MaterialPair p;
        p.a = static_cast<int>(i);
        p.b = static_cast<int>(j);
        p.mu_static = p.mu_dynamic = keys[i].frictionless && keys[j].frictionless ? 0 : std::max(keys[i].mu, keys[j].mu);
        out.material_pairs.push_back(p);
      }
    // pairs our detector tests (different bodies) that MuJoCo's contype/conaffinity bits exclude
    long filtered = 0;
    for (size_t i = 0; i < geom_ids.size(); ++i)
      for (size_t j = i + 1; j < geom_ids.size(); ++j) {
        if (out.shapes[i].body == out.shapes[j].body) continue;
        const int g1 = geom_ids[i], g2 = geom_ids[j];
        if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]))) ++filtered;
      }
    if (filtered) ignored.push_back(fmt::format("contype/conaffinity exclusions ({} geom pairs collide here)", filtered));
    if (m->npair) ignored.push_back(fmt::format("{} explicit contact pair(s)", m->npair));
    if (m->nexclude) ignored.push_back(fmt::format("{} contact exclusion(s)", m->nexclude));
    if (torsional) ignored.push_back(fmt::format("torsional/rolling friction (condim 4 or 6) on {} geom(s)", torsional));
    if (priority) ignored.push_back(fmt::format("contact priority on {} geom(s)", priority));
  }

  MjcfGeomContact geom_contact(int g) const {
    MjcfGeomContact c;
    c.contype = m->geom_contype[g];
    c.conaffinity = m->geom_conaffinity[g];
    c.condim = m->geom_condim[g];
    c.priority = m->geom_priority[g];
    std::copy_n(m->geom_friction + 3 * g, 3, c.friction.begin());
    std::copy_n(m->geom_solref + mjNREF * g, mjNREF, c.solref.begin());
    std::copy_n(m->geom_solimp + mjNIMP * g, mjNIMP, c.solimp.begin());
    c.solmix = m->geom_solmix[g];
    c.margin = m->geom_margin[g];
    c.gap = m->geom_gap[g];
    return c;
  }

  // the file's explicit pairs (between shapes: geom_ids, the MuJoCo geom of each) and exclusions
  // (between our bodies: a body merged into its parent or the world excludes that one's geoms)
  void file_pairs(const std::vector<int>& geom_ids) {
    MjcfContacts& c = out.mjcf_contacts;
    std::map<int, int> shape_of;
    for (size_t k = 0; k < geom_ids.size(); ++k) shape_of[geom_ids[k]] = static_cast<int>(k);
    for (int p = 0; p < m->npair; ++p) {
      MjcfContactPair q;
      q.shape1 = shape_of.at(m->pair_geom1[p]);
      q.shape2 = shape_of.at(m->pair_geom2[p]);
      q.condim = m->pair_dim[p];
      std::copy_n(m->pair_friction + 5 * p, 5, q.friction.begin());
      std::copy_n(m->pair_solref + mjNREF * p, mjNREF, q.solref.begin());
      std::copy_n(m->pair_solimp + mjNIMP * p, mjNIMP, q.solimp.begin());
      q.margin = m->pair_margin[p];
      q.gap = m->pair_gap[p];
      c.pairs.push_back(q);
    }
    for (int e = 0; e < m->nexclude; ++e) {  // signature (body1 + 1) << 16 + body2 + 1
      const int sig = m->exclude_signature[e], b1 = (sig >> 16) - 1, b2 = (sig & 0xFFFF) - 1;
      c.excludes.push_back({rep[static_cast<size_t>(b1)], rep[static_cast<size_t>(b2)]});
    }
  }

  // the file's contact options (<option>, its flags, <size>)
  void contact_options() {
    MjcfContacts& c = out.mjcf_contacts;
    const mjOption& o = m->opt;
    c.present = !opt.light_frames;
    c.cone = o.cone == mjCONE_ELLIPTIC ? "elliptic" : "pyramidal";
    c.solver = o.solver == mjSOL_PGS ? "PGS" : o.solver == mjSOL_CG ? "CG" : "Newton";
    c.collision = o.collision == mjCOL_PAIR ? "predefined" : o.collision == mjCOL_DYNAMIC ? "dynamic" : "all";
    c.iterations = o.iterations;
    c.noslip_iterations = o.noslip_iterations;
    c.mpr_iterations = o.mpr_iterations;
    c.impratio = o.impratio;
    c.tolerance = o.tolerance;
    c.noslip_tolerance = o.noslip_tolerance;
    c.mpr_tolerance = o.mpr_tolerance;
    c.filterparent = !(o.disableflags & mjDSBL_FILTERPARENT);
    c.overrides = o.enableflags & mjENBL_OVERRIDE;
    c.o_margin = o.o_margin;
    std::copy_n(o.o_solref, mjNREF, c.o_solref.begin());
    std::copy_n(o.o_solimp, mjNIMP, c.o_solimp.begin());
    c.nconmax = m->nconmax;
    c.njmax = m->njmax;
    c.nstack = m->nstack;
  }

  // The actuators on a hinge or slide joint that stays one here, with a fixed gain and no or an
  // affine bias, no activation dynamics: models/model.hpp Actuator (MuJoCo's force law). The
  // others are listed in the warning, not driven.
  void actuators(std::vector<std::string>& ignored) {
    std::map<std::string, int> ours;  // our hinges and sliders by name
    for (size_t k = 0; k < out.joints.size(); ++k)
      if (out.joints[k].type == JointType::Hinge || out.joints[k].type == JointType::Slider) ours.emplace(out.joints[k].name, static_cast<int>(k));
    std::vector<std::string> left;
    for (int u = 0; u < m->nu; ++u) {
      const std::string name = name_of(m, mjOBJ_ACTUATOR, u, "actuator");
      const int jid = m->actuator_trnid[2 * u];
      if (m->actuator_trntype[u] != mjTRN_JOINT) {
        left.push_back(name + " (not a joint transmission)");
        continue;
      }
      if (m->actuator_dyntype[u] != mjDYN_NONE) {
        left.push_back(name + " (activation dynamics)");
        continue;
      }
      if (m->actuator_gaintype[u] != mjGAIN_FIXED || (m->actuator_biastype[u] != mjBIAS_NONE && m->actuator_biastype[u] != mjBIAS_AFFINE)) {
        left.push_back(name + " (a gain or bias that is not affine)");
        continue;
      }
      const auto it = ours.find(joint_name(jid));
      if (it == ours.end()) {
        left.push_back(name + fmt::format(" (joint '{}' is not a hinge or slide here)", joint_name(jid)));
        continue;
      }
      Actuator a;
      a.name = name;
      a.joint = it->second;
      a.gear = m->actuator_gear[6 * u];
      a.gain = m->actuator_gainprm[mjNGAIN * u];
      if (m->actuator_biastype[u] == mjBIAS_AFFINE) a.bias = {m->actuator_biasprm[mjNBIAS * u], m->actuator_biasprm[mjNBIAS * u + 1], m->actuator_biasprm[mjNBIAS * u + 2]};
      if (m->actuator_ctrllimited[u]) a.ctrl_low = m->actuator_ctrlrange[2 * u], a.ctrl_high = m->actuator_ctrlrange[2 * u + 1];
      if (m->actuator_forcelimited[u]) a.force_low = m->actuator_forcerange[2 * u], a.force_high = m->actuator_forcerange[2 * u + 1];
      a.offset = m->qpos0[m->jnt_qposadr[jid]];
      // the kind MuJoCo's shortcut elements give (motor, position, velocity), else general
      const auto& b = a.bias;
      a.kind = a.gain == 1 && b[0] == 0 && b[1] == 0 && b[2] == 0 ? ActuatorKind::Motor
               : b[0] == 0 && b[1] == -a.gain && a.gain > 0      ? ActuatorKind::Position
               : b[0] == 0 && b[1] == 0 && b[2] == -a.gain && a.gain > 0 ? ActuatorKind::Velocity
                                                                 : ActuatorKind::General;
      const std::pair<const char*, double> numbers[] = {{"gear", a.gear}, {"gainprm", a.gain}, {"biasprm", b[0]}, {"biasprm", b[1]}, {"biasprm", b[2]}};
      for (const auto& [field, x] : numbers)
        if (!std::isfinite(x)) fail("actuator", name, fmt::format("actuator '{}' has a non-finite {} ({})", name, field, x));
      if (!(a.ctrl_low <= a.ctrl_high))
        fail("actuator", name, fmt::format("actuator '{}' has ctrlrange [{}, {}]: the low end is above the high end", name, a.ctrl_low, a.ctrl_high));
      if (!(a.force_low <= a.force_high))
        fail("actuator", name, fmt::format("actuator '{}' has forcerange [{}, {}]: the low end is above the high end", name, a.force_low, a.force_high));
      out.actuators.push_back(a);
    }
    if (!left.empty()) {
      std::string line;
      for (const std::string& s : left) line += (line.empty() ? "" : ", ") + s;
      ignored.push_back(fmt::format("{} actuator(s) not driven: {}", left.size(), line));
    }
  }

  // Our names are one namespace per kind: MuJoCo's joints and equality constraints (both joints
  // here) may share a name, and an unnamed element's name here ("body3") may be another's.
  void unique_names() const {
    auto check = [&](const auto& items, const char* kind, const char* plural, const char* why) {
      std::map<std::string, size_t> seen;
      for (size_t i = 0; i < items.size(); ++i)
        if (!seen.emplace(items[i].name, i).second)
          fail(kind, items[i].name, fmt::format("two {} are named '{}' here ({}; an unnamed one is named '{}N'): rename one", plural,
                                                items[i].name, why, kind));
    };
    check(out.bodies, "body", "bodies", "a body's name");
    check(out.joints, "joint", "joints", "joints and equality constraints are both joints here");
    check(out.shapes, "geom", "geoms", "a geom's name");
  }

  // what the file has that the Model does not hold: one warning line
  void unmapped(std::vector<std::string>& ignored) const {
    int stiffness = 0, limited = 0, damping = 0, armature = 0, frictionloss = 0;
    for (int k = 0; k < m->njnt; ++k) {
      stiffness += m->jnt_stiffness[k] != 0;
      limited += m->jnt_limited[k] != 0;
      bool damped = false, armed = false, lossy = false;
      const int n = m->jnt_type[k] == mjJNT_FREE ? 6 : m->jnt_type[k] == mjJNT_BALL ? 3 : 1;
      for (int v = m->jnt_dofadr[k]; v < m->jnt_dofadr[k] + n; ++v) {
        damped = damped || m->dof_damping[v] != 0;
        armed = armed || m->dof_armature[v] != 0;
        lossy = lossy || m->dof_frictionloss[v] != 0;
      }
      damping += damped;
      armature += armed;
      frictionloss += lossy;
    }
    std::vector<std::string> parts;
    if (stiffness) parts.push_back(fmt::format("stiffness on {} joint(s)", stiffness));
    if (damping && !opt.damping) parts.push_back(fmt::format("damping on {} joint(s) (damping=on applies it)", damping));
    if (armature) parts.push_back(fmt::format("armature on {} joint(s)", armature));
    if (frictionloss) parts.push_back(fmt::format("frictionloss on {} joint(s)", frictionloss));
    if (limited > limits_applied)
      parts.push_back(opt.limits ? fmt::format("limits on {} ball, free or merged joint(s)", limited - limits_applied)
                                 : fmt::format("limits on {} joint(s) (limits=ignore)", limited));
    if (m->ntendon) parts.push_back(fmt::format("{} tendon(s)", m->ntendon));
    if (m->nkey) parts.push_back(fmt::format("{} keyframe(s) (the initial state is qpos0)", m->nkey));
    ignored.insert(ignored.begin(), parts.begin(), parts.end());
  }
};

}  // namespace

Model read_mjcf(const std::string& path, const MjcfOptions& options) {
  static std::once_flag once;
  std::call_once(once, [] {
    if (!mju_user_error) mju_user_error = mjcf_error;
    if (!mju_user_warning) mju_user_warning = mjcf_warning;
  });
  check_mjcf_numbers(path);  // MuJoCo reads "nan" and "inf" as numbers
  char err[1000] = "";
  mjModel* raw = nullptr;
  auto refused = [&](const std::string& msg) {
    const std::string name = unknown_name(msg);
    return InputError(path, line_of(msg), "model",
                      name.empty() ? fmt::format("MuJoCo refused the file: {}", one_line(msg))
                                   : fmt::format("{}: MuJoCo refused the file: {}", name, one_line(msg)));
  };
  try {
    raw = mj_loadXML(path.c_str(), nullptr, err, sizeof err);
  } catch (const std::exception& e) {
    throw refused(e.what());
  }
  if (!raw) throw refused(err);
  const std::unique_ptr<mjModel, void (*)(mjModel*)> model(raw, mj_deleteModel);
  const std::unique_ptr<mjData, void (*)(mjData*)> data(mj_makeData(raw), mj_deleteData);
  if (!data) throw Error(fmt::format("{}: mj_makeData failed", path));
  mj_kinematics(raw, data.get());  // at qpos0: mj_makeData starts there

  const std::string text = file_text(path);
  Reader r{path, text, options, raw, data.get(), {}, {}};
  Model& m = r.out;
  m.gravity = (raw->opt.disableflags & mjDSBL_GRAVITY) ? Vec3::Zero() : vec3(raw->opt.gravity);
  std::vector<std::string> ignored;
  r.bodies();
  r.equalities(ignored);
  r.contact_options();
  r.geoms(ignored);
  r.actuators(ignored);
  r.unmapped(ignored);
  r.unique_names();
  if (err[0]) ignored.push_back(fmt::format("MuJoCo's compiler warned: {}", one_line(err)));
  if (r.light_frames)
    m.info.warnings.push_back(fmt::format("{}: frames=light: the {} massless frame(s) of MuJoCo's joint chains are light bodies (1 % of the "
                                          "lighter neighbour's mass and largest moment): a change to the model",
                                          path, r.light_frames));

  m.info.name = raw->names[0] ? std::string(raw->names) : path;
  m.info.source = path;
  m.info.description = fmt::format("MJCF model '{}' from {} (compiled by MuJoCo {}): {} bodies, {} joints, {} shapes", m.info.name, path,
                                   mj_versionString(), m.bodies.size(), m.joints.size(), m.shapes.size());
  m.info.duration = 5;
  m.info.default_h = raw->opt.timestep;
  m.info.h_grid = default_h_grid();
  m.info.tracked_body = 0;
  m.info.energy_conserved = m.shapes.empty() && !has_joint_dampers(m) && m.actuators.empty();
  // Every group of bodies floating without contacts, at rest at qpos0: in the frame falling with
  // gravity nothing acts on it, so every centre of mass drops g t^2 / 2.
  bool floating = m.shapes.empty();
  for (const Joint& j : m.joints) floating = floating && j.a != kWorld && j.b != kWorld;
  if (floating)
    for (size_t i = 0; i < m.bodies.size(); ++i) m.info.exact.push_back({static_cast<int>(i), m.gravity});
  if (!ignored.empty()) {
    std::string line;
    for (const std::string& s : ignored) {
      if (!line.empty()) line += "; ";
      line += s;
    }
    m.info.warnings.push_back(fmt::format("{}: not in the Model, ignored: {}", path, line));
  }
  check_model(m, path);
  return m;
}

#endif

}  // namespace mb
