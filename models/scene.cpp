#include "models/scene.hpp"

#include <cmath>
#include <fstream>
#include <algorithm>
#include <sstream>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

int line_of(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

// Reads one TOML table. Unknown (misspelled) keys are reported first, with their line, before a
// missing key could be reported in their place.
class TableReader {
 public:
  TableReader(const toml::table& t, std::string file, std::string ctx, const std::vector<std::string>& valid)
      : t_(t), file_(std::move(file)), ctx_(std::move(ctx)) {
    check_unknown(valid);
  }

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const {
    const toml::node* n = t_.get(key);
    throw InputError(file_, n ? line_of(*n) : line_of(t_), field(key), msg);
  }
  std::string field(const std::string& key) const { return ctx_.empty() ? key : ctx_ + "." + key; }
  int line() const { return line_of(t_); }
  const std::string& file() const { return file_; }

  bool has(const std::string& key) const { return t_.contains(key); }
  const toml::node& need(const std::string& key) const {
    const toml::node* n = t_.get(key);
    if (!n) throw InputError(file_, line_of(t_), field(key), "missing required field");
    return *n;
  }

  double number(const toml::node& n, const std::string& key) const {
    double v;
    if (auto f = n.as_floating_point()) v = f->get();
    else if (auto i = n.as_integer()) v = static_cast<double>(i->get());
    else throw InputError(file_, line_of(n), field(key), fmt::format("expected a number, got {}", type_name(n)));
    if (!std::isfinite(v)) throw InputError(file_, line_of(n), field(key), fmt::format("number must be finite, got {}", v));
    return v;
  }
  double num(const std::string& key) { return number(need(key), key); }
  double num(const std::string& key, double fallback) { return has(key) ? num(key) : fallback; }
  double positive(const std::string& key) {
    double v = num(key);
    if (!(v > 0)) fail(key, fmt::format("must be positive, got {}", v));
    return v;
  }
  std::string str(const std::string& key) {
    const toml::node& n = need(key);
    if (auto s = n.as_string()) return s->get();
    throw InputError(file_, line_of(n), field(key), fmt::format("expected a string, got {}", type_name(n)));
  }
  std::string str(const std::string& key, const std::string& fallback) { return has(key) ? str(key) : fallback; }
  bool boolean(const std::string& key, bool fallback) {
    if (!has(key)) return fallback;
    const toml::node& n = need(key);
    if (auto b = n.as_boolean()) return b->get();
    throw InputError(file_, line_of(n), field(key), fmt::format("expected true or false, got {}", type_name(n)));
  }
  std::vector<double> numbers(const std::string& key, size_t expect = 0) {
    const toml::node& n = need(key);
    const toml::array* a = n.as_array();
    if (!a) throw InputError(file_, line_of(n), field(key), fmt::format("expected an array, got {}", type_name(n)));
    if (expect && a->size() != expect)
      throw InputError(file_, line_of(n), field(key), fmt::format("expected {} numbers, got {}", expect, a->size()));
    std::vector<double> v;
    for (const auto& e : *a) v.push_back(number(e, key));
    return v;
  }
  Vec3 vec3(const std::string& key) {
    auto v = numbers(key, 3);
    return Vec3(v[0], v[1], v[2]);
  }
  Vec3 vec3(const std::string& key, const Vec3& fallback) { return has(key) ? vec3(key) : fallback; }
  Quat quat(const std::string& key) {
    auto v = numbers(key, 4);
    Quat q(v[0], v[1], v[2], v[3]);
    if (std::abs(q.norm() - 1) > 1e-12) fail(key, fmt::format("not a unit quaternion [w, x, y, z] (norm {})", q.norm()));
    return q;
  }
  Mat3 mat3(const std::string& key) {
    const toml::node& n = need(key);
    const toml::array* a = n.as_array();
    if (!a) throw InputError(file_, line_of(n), field(key), "expected [a, b, c] (diagonal) or a 3x3 array");
    Mat3 m = Mat3::Zero();
    if (a->size() == 3 && (*a)[0].is_number()) {
      for (int i = 0; i < 3; ++i) m(i, i) = number((*a)[i], key);
      return m;
    }
    if (a->size() != 3) throw InputError(file_, line_of(n), field(key), "expected [a, b, c] (diagonal) or a 3x3 array");
    for (int i = 0; i < 3; ++i) {
      const toml::array* row = (*a)[i].as_array();
      if (!row || row->size() != 3) throw InputError(file_, line_of(n), field(key), "expected a 3x3 array");
      for (int j = 0; j < 3; ++j) m(i, j) = number((*row)[j], key);
    }
    return m;
  }

  void check_unknown(const std::vector<std::string>& valid) const {
    for (const auto& [k, node] : t_) {
      std::string key(k.str());
      if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
      std::string names;
      for (const auto& v : valid) names += (names.empty() ? "" : ", ") + v;
      throw InputError(file_, line_of(node), field(key), fmt::format("unknown field; valid fields: {}", names));
    }
  }

 private:
  static std::string type_name(const toml::node& n) {
    std::ostringstream os;
    os << n.type();
    return os.str();
  }
  const toml::table& t_;
  std::string file_, ctx_;
};

const std::vector<std::string> kModelKeys = {"name", "source", "description", "gravity", "duration", "default_h",
                                             "h_grid", "period", "tracked_body", "energy_conserved"};
const std::vector<std::string> kBodyKeys = {"name", "type", "mass", "inertia", "box", "static", "position",
                                            "orientation", "velocity", "angular_velocity"};
const std::vector<std::string> kTorqueKeys = {"body", "torque", "t_begin", "t_end"};
const std::vector<std::string> kJointKeys = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length",
                                             "axis_a", "axis_b", "rel_orientation"};

std::vector<const toml::table*> table_array(const toml::table& root, const std::string& key, const std::string& file) {
  std::vector<const toml::table*> out;
  const toml::node* n = root.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a) throw InputError(file, line_of(*n), key, fmt::format("expected [[{}]] tables", key));
  for (const auto& e : *a) {
    const toml::table* t = e.as_table();
    if (!t) throw InputError(file, line_of(e), key, fmt::format("expected [[{}]] tables", key));
    out.push_back(t);
  }
  return out;
}

}  // namespace

Model parse_scene(const std::string& text, const std::string& file) {
  toml::table root;
  try {
    root = toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, static_cast<int>(e.source().begin.line), "", fmt::format("not valid TOML: {}", e.description()));
  }
  Model m;
  TableReader top(root, file, "", {"model", "body", "joint", "torque"});
  // [model]
  const toml::node& mnode = top.need("model");
  const toml::table* mt = mnode.as_table();
  if (!mt) throw InputError(file, line_of(mnode), "model", "expected a [model] table");
  TableReader mr(*mt, file, "model", kModelKeys);
  m.info.name = mr.str("name");
  m.info.source = mr.str("source", "");
  m.info.description = mr.str("description", "");
  m.gravity = mr.vec3("gravity");
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
  auto bodies = table_array(root, "body", file);
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
        b.inertia = br.mat3("inertia");
        if (!is_spd(b.inertia)) br.fail("inertia", "inertia tensor is not symmetric positive definite");
      }
    }
    b.box = br.vec3("box", Vec3::Zero());
    b.position = br.vec3("position");
    b.orientation = br.has("orientation") ? br.quat("orientation") : Quat::Identity();
    b.velocity = br.vec3("velocity", Vec3::Zero());
    b.angular_velocity = br.vec3("angular_velocity", Vec3::Zero());
    m.bodies.push_back(b);
  }
  if (!tracked.empty()) {
    m.info.tracked_body = m.body_index(tracked);
    if (m.info.tracked_body < 0) mr.fail("tracked_body", fmt::format("no body named '{}'", tracked));
  }

  // [[joint]]
  auto joints = table_array(root, "joint", file);
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
    j.anchor_a = jr.vec3("anchor_a", Vec3::Zero());
    j.anchor_b = jr.vec3("anchor_b", Vec3::Zero());
    if (j.type == JointType::Distance) j.length = jr.positive("length");
    const bool needs_axis_a = parts.trans == TransPart::Line || parts.trans == TransPart::Plane ||
                              parts.rot == RotPart::Axis || parts.rot == RotPart::Twist;
    if (needs_axis_a) {
      j.axis_a = jr.vec3("axis_a");
      if (j.axis_a.norm() == 0) jr.fail("axis_a", "axis must be non-zero");
    }
    if (parts.rot == RotPart::Axis) {
      j.axis_b = jr.vec3("axis_b");
      if (j.axis_b.norm() == 0) jr.fail("axis_b", "axis must be non-zero");
    }
    if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
      j.rel_orientation = jr.has("rel_orientation") ? jr.quat("rel_orientation") : Quat::Identity();
    m.joints.push_back(j);
  }
  // [[torque]]
  auto torques = table_array(root, "torque", file);
  for (size_t i = 0; i < torques.size(); ++i) {
    TableReader tr(*torques[i], file, fmt::format("torque[{}]", i), kTorqueKeys);
    AppliedTorque a;
    std::string name = tr.str("body");
    a.body = m.body_index(name);
    if (a.body < 0) tr.fail("body", fmt::format("no body named '{}'", name));
    a.torque = tr.vec3("torque");
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
  std::string o = "# mbbench scene file (see README.md, \"Scene files\")\n[model]\n";
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
