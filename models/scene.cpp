#include "models/scene.hpp"

#include <cmath>
#include <fstream>
#include <algorithm>
#include <sstream>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "core/toml_reader.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// Eigen-typed fields on top of the shared TableReader (core/toml_reader.hpp)
Vec3 vec3(const TableReader& r, const std::string& key) {
  auto v = r.numbers(key, 3);
  return Vec3(v[0], v[1], v[2]);
}
Vec3 vec3(const TableReader& r, const std::string& key, const Vec3& fallback) {
  return r.has(key) ? vec3(r, key) : fallback;
}
Quat quat(const TableReader& r, const std::string& key) {
  auto v = r.numbers(key, 4);
  Quat q(v[0], v[1], v[2], v[3]);
  if (std::abs(q.norm() - 1) > 1e-12) r.fail(key, fmt::format("not a unit quaternion [w, x, y, z] (norm {})", q.norm()));
  return q;
}
// [a, b, c] (diagonal) or a 3x3 array
Mat3 mat3(const TableReader& r, const std::string& key) {
  const toml::node& n = r.need(key);
  const toml::array* a = n.as_array();
  auto bad = [&](const char* what) { throw InputError(r.file(), toml_line(n), r.field(key), what); };
  if (!a) bad("expected [a, b, c] (diagonal) or a 3x3 array");
  Mat3 m = Mat3::Zero();
  if (a->size() == 3 && (*a)[0].is_number()) {
    for (int i = 0; i < 3; ++i) m(i, i) = r.number((*a)[i], key);
    return m;
  }
  if (a->size() != 3) bad("expected [a, b, c] (diagonal) or a 3x3 array");
  for (int i = 0; i < 3; ++i) {
    const toml::array* row = (*a)[i].as_array();
    if (!row || row->size() != 3) bad("expected a 3x3 array");
    for (int j = 0; j < 3; ++j) m(i, j) = r.number((*row)[j], key);
  }
  return m;
}

const std::vector<std::string> kModelKeys = {"name", "source", "description", "gravity", "duration", "default_h",
                                             "h_grid", "period", "tracked_body", "energy_conserved"};
const std::vector<std::string> kBodyKeys = {"name", "type", "mass", "inertia", "box", "static", "position",
                                            "orientation", "velocity", "angular_velocity"};
const std::vector<std::string> kTorqueKeys = {"body", "torque", "t_begin", "t_end"};
const std::vector<std::string> kJointKeys = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length",
                                             "axis_a", "axis_b", "rel_orientation"};

}  // namespace

Model parse_scene(const std::string& text, const std::string& file) {
  toml::table root = parse_toml(text, file);
  Model m;
  TableReader top(root, file, "", {"model", "body", "joint", "torque"});
  // [model]
  const toml::node& mnode = top.need("model");
  const toml::table* mt = mnode.as_table();
  if (!mt) throw InputError(file, toml_line(mnode), "model", "expected a [model] table");
  TableReader mr(*mt, file, "model", kModelKeys);
  m.info.name = mr.str("name");
  m.info.source = mr.str("source", "");
  m.info.description = mr.str("description", "");
  m.gravity = vec3(mr, "gravity");
  m.info.duration = mr.has("duration") ? mr.positive("duration") : 60.0;
  m.info.default_h = mr.has("default_h") ? mr.positive("default_h") : 0.005;
  if (mr.has("h_grid")) {
    m.info.h_grid = mr.numbers("h_grid");
    for (double h : m.info.h_grid)
      if (!(h > 0)) mr.fail("h_grid", fmt::format("every step size must be positive, got {}", h));
  } else {
    m.info.h_grid = default_h_grid();
  }
  if (mr.has("period")) m.info.period = mr.positive("period");
  m.info.energy_conserved = mr.boolean("energy_conserved", true);
  std::string tracked = mr.str("tracked_body", "");

  // [[body]]
  auto bodies = top.tables("body");
  if (bodies.empty()) throw InputError(file, 0, "body", "a scene needs at least one [[body]]");
  for (size_t i = 0; i < bodies.size(); ++i) {
    TableReader br(*bodies[i], file, fmt::format("body[{}]", i), kBodyKeys);
    Body b;
    b.name = br.str("name");
    if (b.name.empty() || b.name == "world") br.fail("name", fmt::format("invalid body name '{}'", b.name));
    if (m.body_index(b.name) >= 0) br.fail("name", fmt::format("duplicated body name '{}'", b.name));
    std::string type = br.str("type");
    if (type != "particle" && type != "rigid") br.fail("type", fmt::format("must be \"particle\" or \"rigid\", got \"{}\"", type));
    b.particle = type == "particle";
    b.is_static = br.boolean("static", false);
    if (b.is_static) b.mass = br.num("mass", 0.0);
    else b.mass = br.positive("mass");
    if (!b.particle) {
      if (b.is_static && !br.has("inertia")) b.inertia = Mat3::Zero();
      else {
        b.inertia = mat3(br, "inertia");
        if (!is_spd(b.inertia)) br.fail("inertia", "inertia tensor is not symmetric positive definite");
      }
    }
    b.box = vec3(br, "box", Vec3::Zero());
    b.position = vec3(br, "position");
    b.orientation = br.has("orientation") ? quat(br, "orientation") : Quat::Identity();
    b.velocity = vec3(br, "velocity", Vec3::Zero());
    b.angular_velocity = vec3(br, "angular_velocity", Vec3::Zero());
    m.bodies.push_back(b);
  }
  if (!tracked.empty()) {
    m.info.tracked_body = m.body_index(tracked);
    if (m.info.tracked_body < 0) mr.fail("tracked_body", fmt::format("no body named '{}'", tracked));
  }

  // [[joint]]
  auto joints = top.tables("joint");
  for (size_t i = 0; i < joints.size(); ++i) {
    TableReader jr(*joints[i], file, fmt::format("joint[{}]", i), kJointKeys);
    Joint j;
    j.name = jr.str("name", fmt::format("joint{}", i + 1));
    std::string type = jr.str("type");
    if (!joint_type_from_name(type, j.type)) {
      std::string names;
      for (JointType t : all_joint_types()) names += (names.empty() ? "" : ", ") + std::string(joint_type_name(t));
      jr.fail("type", fmt::format("must be one of {}; got \"{}\"", names, type));
    }
    const JointParts parts = joint_parts(j.type);
    auto body_ref = [&](const std::string& key) {
      std::string name = jr.str(key);
      if (name == "world") return kWorld;
      int idx = m.body_index(name);
      if (idx < 0) {
        std::string names;
        for (const auto& b : m.bodies) names += (names.empty() ? "" : ", ") + b.name;
        jr.fail(key, fmt::format("no body named '{}'; bodies: world, {}", name, names));
      }
      return idx;
    };
    j.a = body_ref("a");
    j.b = body_ref("b");
    if (j.a == j.b) jr.fail("b", "a joint must connect two different bodies");
    j.anchor_a = vec3(jr, "anchor_a", Vec3::Zero());
    j.anchor_b = vec3(jr, "anchor_b", Vec3::Zero());
    if (j.type == JointType::Distance) j.length = jr.positive("length");
    const bool needs_axis_a = parts.trans == TransPart::Line || parts.trans == TransPart::Plane ||
                              parts.rot == RotPart::Axis || parts.rot == RotPart::Twist;
    if (needs_axis_a) {
      j.axis_a = vec3(jr, "axis_a");
      if (j.axis_a.norm() == 0) jr.fail("axis_a", "axis must be non-zero");
    }
    if (parts.rot == RotPart::Axis) {
      j.axis_b = vec3(jr, "axis_b");
      if (j.axis_b.norm() == 0) jr.fail("axis_b", "axis must be non-zero");
    }
    if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
      j.rel_orientation = jr.has("rel_orientation") ? quat(jr, "rel_orientation") : Quat::Identity();
    m.joints.push_back(j);
  }
  // [[torque]]
  auto torques = top.tables("torque");
  for (size_t i = 0; i < torques.size(); ++i) {
    TableReader tr(*torques[i], file, fmt::format("torque[{}]", i), kTorqueKeys);
    AppliedTorque a;
    std::string name = tr.str("body");
    a.body = m.body_index(name);
    if (a.body < 0) tr.fail("body", fmt::format("no body named '{}'", name));
    a.torque = vec3(tr, "torque");
    a.t_begin = tr.num("t_begin");
    a.t_end = tr.num("t_end");
    if (!(a.t_end >= a.t_begin)) tr.fail("t_end", "t_end must not precede t_begin");
    m.torques.push_back(a);
  }
  check_model(m, file);
  return m;
}

Model read_scene(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open scene file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_scene(ss.str(), path);
}

namespace {
// shortest text that reads back to the same double, always a TOML float
std::string num(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
std::string vec(const Vec3& v) { return fmt::format("[{}, {}, {}]", num(v.x()), num(v.y()), num(v.z())); }
std::string quat(const Quat& q) { return fmt::format("[{}, {}, {}, {}]", num(q.w()), num(q.x()), num(q.y()), num(q.z())); }
std::string str(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}
std::string body_name(const Model& m, int i) { return i == kWorld ? "world" : m.bodies[i].name; }
}  // namespace

std::string scene_to_toml(const Model& m) {
  std::string o = "# mbbench scene file (format: docs/conventions.md, \"Scene files\")\n[model]\n";
  o += fmt::format("name = {}\nsource = {}\ndescription = {}\n", str(m.info.name), str(m.info.source), str(m.info.description));
  o += fmt::format("gravity = {}\nduration = {}\ndefault_h = {}\n", vec(m.gravity), num(m.info.duration), num(m.info.default_h));
  o += "h_grid = [";
  for (size_t i = 0; i < m.info.h_grid.size(); ++i) o += (i ? ", " : "") + num(m.info.h_grid[i]);
  o += "]\n";
  if (m.info.period) o += fmt::format("period = {}\n", num(*m.info.period));
  if (m.info.tracked_body >= 0) o += fmt::format("tracked_body = {}\n", str(m.bodies[m.info.tracked_body].name));
  o += fmt::format("energy_conserved = {}\n", m.info.energy_conserved);
  for (const Body& b : m.bodies) {
    o += fmt::format("\n[[body]]\nname = {}\ntype = {}\nmass = {}\n", str(b.name), b.particle ? "\"particle\"" : "\"rigid\"", num(b.mass));
    if (!b.particle) {
      const Mat3& I = b.inertia;
      o += fmt::format("inertia = [{}, {}, {}]\n", vec(I.row(0).transpose()), vec(I.row(1).transpose()), vec(I.row(2).transpose()));
    }
    if (b.box != Vec3::Zero()) o += fmt::format("box = {}\n", vec(b.box));
    if (b.is_static) o += "static = true\n";
    o += fmt::format("position = {}\n", vec(b.position));
    if (!b.particle) o += fmt::format("orientation = {}\n", quat(b.orientation));
    o += fmt::format("velocity = {}\n", vec(b.velocity));
    if (!b.particle) o += fmt::format("angular_velocity = {}\n", vec(b.angular_velocity));
  }
  for (const Joint& j : m.joints) {
    o += fmt::format("\n[[joint]]\nname = {}\ntype = \"{}\"\na = {}\nb = {}\nanchor_a = {}\nanchor_b = {}\n", str(j.name),
                     joint_type_name(j.type), str(body_name(m, j.a)), str(body_name(m, j.b)), vec(j.anchor_a), vec(j.anchor_b));
    if (j.type == JointType::Distance) o += fmt::format("length = {}\n", num(j.length));
    const JointParts parts = joint_parts(j.type);
    if (parts.trans == TransPart::Line || parts.trans == TransPart::Plane || parts.rot == RotPart::Axis ||
        parts.rot == RotPart::Twist)
      o += fmt::format("axis_a = {}\n", vec(j.axis_a));
    if (parts.rot == RotPart::Axis) o += fmt::format("axis_b = {}\n", vec(j.axis_b));
    if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
      o += fmt::format("rel_orientation = {}\n", quat(j.rel_orientation));
  }
  for (const AppliedTorque& a : m.torques)
    o += fmt::format("\n[[torque]]\nbody = {}\ntorque = {}\nt_begin = {}\nt_end = {}\n", str(m.bodies[a.body].name),
                     vec(a.torque), num(a.t_begin), num(a.t_end));
  return o;
}

void write_scene(const Model& model, const std::string& path) { write_file_atomic(path, scene_to_toml(model)); }

}  // namespace mb
