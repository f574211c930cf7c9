#include "models/formats/scene_builder.hpp"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/actuators.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

// names: printable; a control character breaks tables and file names (body and joint names may
// hold any character: the scene writer escapes them)
const char* bad_name_char(const std::string& s) {
  for (unsigned char c : s)
    if (c < 0x20 || c == 0x7f) return c == '\n' ? "a newline" : "a control character";
  return nullptr;
}

// Eigen-typed fields on top of the shared TableReader (core/toml_reader.hpp) or a LineTable
// (scene_lexer.hpp: the same interface and messages); a key is a literal, which a LineTable reads
// as a string_view (no std::string made for it)
template <class R>
Vec3 vec3(const R& r, const char* key) {
  auto v = r.numbers(key, 3);
  return Vec3(v[0], v[1], v[2]);
}
// the same for a line table, without a vector
Vec3 vec3(const LineTable& r, const char* key) {
  const LineValue& a = r.array(key);
  if (a.count != 3) throw InputError(r.file(), r.at(a), r.field(key), fmt::format("expected 3 numbers, got {}", a.count));
  Vec3 v;
  for (size_t k = 0; k < 3; ++k) v[static_cast<Eigen::Index>(k)] = r.number(r.element(a, k), key);
  return v;
}
template <class R>
Vec3 vec3(const R& r, const char* key, const Vec3& fallback) {
  return r.has(key) ? vec3(r, key) : fallback;
}
template <class R>
Quat quat(const R& r, const char* key) {
  auto v = r.numbers(key, 4);
  Quat q(v[0], v[1], v[2], v[3]);
  if (std::abs(q.norm() - 1) > 1e-12) r.fail(key, fmt::format("not a unit quaternion [w, x, y, z] (norm {})", q.norm()));
  return q;
}
// [a, b, c] (diagonal) or a 3x3 array
Mat3 mat3(const TableReader& r, const char* key) {
  const toml::node& n = r.need(key);
  const toml::array* a = n.as_array();
  auto bad = [&](const char* what) { throw InputError(r.file(), r.at(n), r.field(key), what); };
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
// the same for a line table
Mat3 mat3(const LineTable& r, const char* key) {
  const LineValue& a = r.need(key);
  auto bad = [&](const char* what) { throw InputError(r.file(), r.at(a), r.field(key), what); };
  if (a.kind != LineValue::Kind::Array) bad("expected [a, b, c] (diagonal) or a 3x3 array");
  Mat3 m = Mat3::Zero();
  const auto is_number = [](const LineValue& v) { return v.kind == LineValue::Kind::Float || v.kind == LineValue::Kind::Integer; };
  if (a.count == 3 && is_number(r.element(a, 0))) {
    for (int i = 0; i < 3; ++i) m(i, i) = r.number(r.element(a, static_cast<size_t>(i)), key);
    return m;
  }
  if (a.count != 3) bad("expected [a, b, c] (diagonal) or a 3x3 array");
  for (int i = 0; i < 3; ++i) {
    const LineValue& row = r.element(a, static_cast<size_t>(i));
    if (row.kind != LineValue::Kind::Array || row.count != 3) bad("expected a 3x3 array");
    for (int j = 0; j < 3; ++j) m(i, j) = r.number(r.element(row, static_cast<size_t>(j)), key);
  }
  return m;
}

const std::vector<std::string> kModelKeys = {"name", "source", "description", "gravity", "duration", "default_h",
                                             "h_grid", "period", "tracked_body", "energy_conserved",
                                             "published_end", "warnings", "ctrl", "ctrl_times", "ctrl_rows"};
const std::vector<std::string> kBodyKeys = {"name", "type", "mass", "inertia", "box", "static", "position",
                                            "orientation", "velocity", "angular_velocity", "light_frame"};
const std::vector<std::string> kTorqueKeys = {"body", "torque", "t_begin", "t_end"};
const std::vector<std::string> kForceKeys = {"body", "force", "t_begin", "t_end"};
const std::vector<std::string> kMaterialKeys = {"name", "restitution", "mu_static", "mu_dynamic"};
const std::vector<std::string> kMaterialPairKeys = {"a", "b", "restitution", "mu_static", "mu_dynamic"};
const std::vector<std::string> kShapeKeys = {"name", "type", "body", "position", "orientation", "radius", "length",
                                             "half_extents", "vertices", "faces", "material"};
const std::vector<std::string> kMotorKeys = {"name", "joint", "mode", "target", "value", "rate", "amplitude", "frequency", "phase",
                                             "times", "values", "max_force"};
const std::vector<std::string> kActuatorKeys = {"name", "joint", "kind", "gear", "kp", "kv", "gain", "bias", "ctrlrange", "forcerange", "offset"};
const std::vector<std::string> kExactKeys = {"body", "acceleration"};
const std::vector<std::string> kNamedFrameKeys = {"name", "body", "position", "orientation"};
const std::vector<std::string> kRollingKeys = {"name", "body", "axle", "radius", "point", "normal"};
const std::vector<std::string> kSpringKeys = {"name", "a", "b", "anchor_a", "anchor_b", "stiffness", "rest_length", "damping"};
const std::vector<std::string> kJointKeys = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length", "extensibility",
                                             "axis_a", "axis_b", "rel_orientation", "damping", "lower", "upper"};

}  // namespace

void SceneBuilder::reserve(const SceneCounts& c) {
  m.bodies.reserve(c.bodies);
  m.joints.reserve(c.joints);
  index = NameIndex(c.bodies);
  joint_names = NameIndex(c.joints);
}

std::vector<Prefault::Range> SceneBuilder::reserved() const {
  return {{m.joints.data(), m.joints.capacity() * sizeof(Joint)}, {m.bodies.data(), m.bodies.capacity() * sizeof(Body)}};
}

void SceneBuilder::model_table(const TableReader& top) {
  // [model]
  const toml::node& mnode = top.need("model");
  const toml::table* mt = mnode.as_table();
  if (!mt) throw InputError(file, toml_line(mnode), "model", "expected a [model] table");
  TableReader mr(*mt, file, "model", kModelKeys);
  m.info.name = mr.str("name");
  if (m.info.name.empty()) mr.fail("name", "a model needs a name");
  if (const char* why = bad_name_char(m.info.name)) mr.fail("name", fmt::format("a model name may not contain {} (it names tables and files)", why));
  m.info.source = mr.str("source", "");
  m.info.description = mr.str("description", "");
  m.gravity = vec3(mr, "gravity");
  m.info.duration = mr.has("duration") ? mr.positive("duration") : 60.0;
  m.info.default_h = mr.has("default_h") ? mr.positive("default_h") : 0.005;
  if (m.info.duration > kMaxDuration) mr.fail("duration", fmt::format("duration {} s is longer than the limit {:g} s", m.info.duration, kMaxDuration));
  if (m.info.default_h > m.info.duration)
    mr.fail("default_h", fmt::format("default step {} s is longer than the duration {} s", m.info.default_h, m.info.duration));
  if (!(m.info.duration / m.info.default_h < static_cast<double>(kMaxSteps)))
    mr.fail("default_h", fmt::format("default_h = {:g} s over the duration {:g} s is more than {:.3g} steps", m.info.default_h,
                                     m.info.duration, static_cast<double>(kMaxSteps)));
  if (mr.has("h_grid")) {
    m.info.h_grid = mr.numbers("h_grid");
    if (m.info.h_grid.empty()) mr.fail("h_grid", "needs at least one step size (or leave it out for the default grid)");
    for (double h : m.info.h_grid)
      if (!(h > 0)) mr.fail("h_grid", fmt::format("every step size must be positive, got {}", h));
  } else {
    m.info.h_grid = default_h_grid();
  }
  if (mr.has("period")) m.info.period = mr.positive("period");
  m.info.energy_conserved = mr.boolean("energy_conserved", true);
  m.info.published_end = mr.boolean("published_end", false);
  tracked = mr.str("tracked_body", "");
  tracked_line = mr.has("tracked_body") ? mr.at(mr.need("tracked_body")) : mr.line();
  if (mr.has("warnings")) m.info.warnings = mr.strings("warnings");
  // the controls: a source the model option ctrl= names, or a table given here (ctrl names it)
  ctrl_text = mr.str("ctrl", "zero");
  ctrl_line = mr.has("ctrl") ? mr.at(mr.need("ctrl")) : mr.line();
  ctrl_table = mr.has("ctrl_times") || mr.has("ctrl_rows");
  if (ctrl_table) {
    m.control.kind = ControlKind::Table;
    m.control.text = ctrl_text;
    m.control.times = mr.numbers("ctrl_times");
    if (m.control.times.empty()) mr.fail("ctrl_times", "a table of controls needs at least one row");
    for (size_t k = 1; k < m.control.times.size(); ++k)
      if (!(m.control.times[k] > m.control.times[k - 1]))
        mr.fail("ctrl_times", fmt::format("times must increase strictly: {} after {}", m.control.times[k], m.control.times[k - 1]));
    const toml::array& rows = mr.array("ctrl_rows");
    if (rows.size() != m.control.times.size())
      mr.fail("ctrl_rows", fmt::format("{} rows for {} times; one row of controls per time", rows.size(), m.control.times.size()));
    for (const toml::node& row : rows) {
      const toml::array* a = row.as_array();
      if (!a) throw InputError(file, mr.at(row), mr.field("ctrl_rows"), "expected an array of rows [u1, u2, ...], one control per actuator");
      std::vector<double> u;
      for (const toml::node& x : *a) u.push_back(mr.number(x, "ctrl_rows"));
      m.control.rows.push_back(std::move(u));
    }
  } else if (ctrl_text != "zero" && ctrl_text != "hold" && ctrl_text.rfind("sine:", 0) != 0 && ctrl_text.rfind("noise:", 0) != 0) {
    mr.fail("ctrl", fmt::format("must be zero, hold, sine:A,F or noise:SEED,SIGMA (a table: ctrl_times and ctrl_rows), got \"{}\"", ctrl_text));
  }
}

void SceneBuilder::body(const toml::table& t, int line_offset) {
  body(TableReader(t, file, fmt::format("body[{}]", m.bodies.size()), kBodyKeys, line_offset));
}

void SceneBuilder::body(const LexedPart& p, const LexedTable& t) { body(LineTable(p, t, file, "body", m.bodies.size(), kBodyKeys, &checked_[0])); }

template <class R>
void SceneBuilder::body(const R& br) {
  const size_t i = m.bodies.size();
  Body b;
  b.name = br.str("name");
  if (b.name.empty() || b.name == "world") br.fail("name", fmt::format("invalid body name '{}'", b.name));
  if (find_body(b.name) >= 0) br.fail("name", fmt::format("duplicated body name '{}'", b.name));
  std::string type = br.str("type");
  if (type != "particle" && type != "rigid" && type != "frame")
    br.fail("type", fmt::format("must be \"particle\", \"rigid\" or \"frame\" (a massless joint frame), got \"{}\"", type));
  b.particle = type == "particle";
  b.frame = type == "frame";
  b.is_static = br.boolean("static", false);
  if (b.frame) {  // mass 0 and inertia 0: neither is given
    if (b.is_static) br.fail("static", "a massless frame moves with its joints; it cannot be static");
    for (const char* k : {"mass", "inertia"})
      if (br.has(k)) br.fail(k, fmt::format("a massless frame has no {}; leave it out", k));
  }
  // a static body never moves: it has no mass (infinite); a mass given to it is a mistake
  if (b.is_static && br.has("mass"))
    br.fail("mass", "a static body never moves and has no mass; leave mass out (or set static = false)");
  if (!b.is_static && !b.frame) b.mass = br.positive("mass");
  if (b.particle && br.has("inertia")) br.fail("inertia", "a particle has no rotational inertia; leave inertia out (or use type = \"rigid\")");
  if (!b.particle && !b.frame) {
    if (b.is_static && !br.has("inertia")) b.inertia = Mat3::Zero();
    else {
      b.inertia = mat3(br, "inertia");
      // a point mass's or a thin rod's singular inertia is a model's too (check_model)
      if (!is_spd(b.inertia) && !is_semidefinite(b.inertia)) br.fail("inertia", "inertia tensor is not symmetric positive semi-definite");
    }
  }
  b.box = vec3(br, "box", Vec3::Zero());
  b.position = vec3(br, "position");
  b.orientation = br.has("orientation") ? quat(br, "orientation") : Quat::Identity();
  b.velocity = vec3(br, "velocity", Vec3::Zero());
  b.angular_velocity = vec3(br, "angular_velocity", Vec3::Zero());
  b.light_frame = br.boolean("light_frame", false);
  if (b.light_frame && (b.particle || b.frame || b.is_static))
    br.fail("light_frame", "only a moving rigid body stands for a joint frame");
  m.bodies.push_back(std::move(b));
  index.insert(static_cast<long>(i), body_name());
}

void SceneBuilder::bodies_done() {
  if (m.bodies.empty()) throw InputError(file, 0, "body", "a scene needs at least one [[body]]");
  if (!tracked.empty()) {
    m.info.tracked_body = find_body(tracked);
    if (m.info.tracked_body < 0)
      throw InputError(file, tracked_line, "model.tracked_body", fmt::format("no body named '{}'", tracked));
  }
}

void SceneBuilder::joint(const toml::table& t, int line_offset) {
  joint(TableReader(t, file, fmt::format("joint[{}]", m.joints.size()), kJointKeys, line_offset));
}

void SceneBuilder::joint(const LexedPart& p, const LexedTable& t) { joint(LineTable(p, t, file, "joint", m.joints.size(), kJointKeys, &checked_[1])); }

template <class R>
void SceneBuilder::joint(const R& jr) {
  const size_t i = m.joints.size();
  Joint j;
  j.name = jr.has("name") ? jr.str("name") : fmt::format("joint{}", i + 1);
  const auto joint_name = [&](long k) -> const std::string& { return static_cast<size_t>(k) == i ? j.name : m.joints[static_cast<size_t>(k)].name; };
  if (joint_names.insert(static_cast<long>(i), joint_name) >= 0) duplicate_name(jr, j.name, "joint");
  std::string type = jr.str("type");
  if (!joint_type_from_name(type, j.type)) {
    std::string names;
    for (JointType t : all_joint_types()) names += (names.empty() ? "" : ", ") + std::string(joint_type_name(t));
    jr.fail("type", fmt::format("must be one of {}; got \"{}\"", names, type));
  }
  const JointParts parts = joint_parts(j.type);
  j.a = body_ref(jr, "a");
  j.b = body_ref(jr, "b");
  if (j.a == j.b) jr.fail("b", "a joint must connect two different bodies");
  auto fixed = [&](int k) { return k == kWorld || m.bodies[static_cast<size_t>(k)].is_static; };
  if (fixed(j.a) && fixed(j.b)) jr.fail("b", "a joint between two bodies that never move (static or world) constrains nothing");
  j.anchor_a = vec3(jr, "anchor_a", Vec3::Zero());
  j.anchor_b = vec3(jr, "anchor_b", Vec3::Zero());
  if (j.type == JointType::Distance) {
    j.length = jr.positive("length");
    // the rod must hold at the start: its length is the initial distance of its points
    const Vec3 pa = j.a == kWorld ? j.anchor_a : m.bodies[j.a].position + m.bodies[j.a].orientation * j.anchor_a;
    const Vec3 pb = j.b == kWorld ? j.anchor_b : m.bodies[j.b].position + m.bodies[j.b].orientation * j.anchor_b;
    const double d = (pa - pb).norm();
    if (std::abs(d - j.length) > kRodLengthTolerance * std::max(1.0, j.length))
      jr.fail("length", fmt::format("rod length {} differs from the initial distance {} of its points (tolerance {:g} relative); "
                                    "the initial state must satisfy the joints",
                                    j.length, d, kRodLengthTolerance));
    j.extensibility = jr.num("extensibility", 0);
    if (!(j.extensibility >= 0 && std::isfinite(j.extensibility)))
      jr.fail("extensibility", fmt::format("extensibility must be a finite fraction >= 0, got {}", j.extensibility));
  } else if (jr.has("extensibility")) {
    jr.fail("extensibility", "only a distance joint has an extensibility");
  }
  const bool needs_axis_b = parts.rot == RotPart::Axis || parts.rot == RotPart::Perpendicular;
  const bool needs_axis_a = parts.trans == TransPart::Line || parts.trans == TransPart::Plane || needs_axis_b ||
                            parts.rot == RotPart::Twist;
  // an axis the type does not need is optional (a slider's axis_b: b's side of its axis)
  if (needs_axis_a || jr.has("axis_a")) j.axis_a = vec3(jr, "axis_a");
  if (needs_axis_a && j.axis_a.norm() == 0) jr.fail("axis_a", "axis must be non-zero");
  if (needs_axis_b || jr.has("axis_b")) j.axis_b = vec3(jr, "axis_b");
  if (needs_axis_b && j.axis_b.norm() == 0) jr.fail("axis_b", "axis must be non-zero");
  if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
    j.rel_orientation = jr.has("rel_orientation") ? quat(jr, "rel_orientation") : Quat::Identity();
  if (jr.has("damping")) {  // a viscous damper in a hinge (N m s/rad) or a slider (N s/m)
    if (j.type != JointType::Hinge && j.type != JointType::Slider) jr.fail("damping", "only a hinge or a slider has a damping");
    j.damping = jr.num("damping");
    if (!(j.damping >= 0 && std::isfinite(j.damping)))
      jr.fail("damping", fmt::format("damping must be finite and >= 0, got {}", j.damping));
  }
  // limits of the joint's coordinate from the initial pose (rad or m); a missing end is no limit
  for (const char* key : {"lower", "upper"}) {
    if (!jr.has(key)) continue;
    if (j.type != JointType::Hinge && j.type != JointType::Slider) jr.fail(key, "only a hinge or a slider has limits");
    const double x = jr.num(key);
    if (std::isnan(x)) jr.fail(key, "a limit must be a number");
    (key[0] == 'l' ? j.lower : j.upper) = x;
  }
  if (j.lower > j.upper) jr.fail("lower", fmt::format("lower ({}) is above upper ({})", j.lower, j.upper));
  m.joints.push_back(std::move(j));
}

void SceneBuilder::load(const toml::table& t, int line_offset, bool is_force) {
  load(TableReader(t, file, fmt::format("{}[{}]", is_force ? "force" : "torque", n_loads_[is_force]), is_force ? kForceKeys : kTorqueKeys,
                   line_offset),
       is_force);
}

void SceneBuilder::torque(const LexedPart& p, const LexedTable& t) {
  load(LineTable(p, t, file, "torque", n_loads_[0], kTorqueKeys, &checked_[2]), false);
}

template <class R>
void SceneBuilder::load(const R& tr, bool is_force) {
  n_loads_[is_force]++;
  const char* key = is_force ? "force" : "torque";
  AppliedLoad a;
  std::string name = tr.str("body");
  a.body = find_body(name);
  if (a.body < 0) tr.fail("body", fmt::format("no body named '{}'", name));
  (is_force ? a.force : a.torque) = vec3(tr, key);
  a.t_begin = tr.num("t_begin");
  a.t_end = tr.has("t_end") ? tr.num("t_end") : INFINITY;
  if (!(a.t_end >= a.t_begin)) tr.fail("t_end", "t_end must not precede t_begin");
  m.loads.push_back(a);
}

void SceneBuilder::torque(const toml::table& t, int line_offset) { load(t, line_offset, false); }

void SceneBuilder::material(const toml::table& t) {
  const size_t i = m.materials.size();
  TableReader r(t, file, fmt::format("material[{}]", i), kMaterialKeys);
  Material x;
  x.name = r.str("name");
  if (x.name.empty()) r.fail("name", "a material needs a name");
  if (!materials.emplace(x.name, static_cast<int>(i)).second) r.fail("name", fmt::format("duplicated material name '{}'", x.name));
  coefficients(r, x.restitution, x.mu_static, x.mu_dynamic);
  m.materials.push_back(x);
}

void SceneBuilder::material_pair(const toml::table& t) {
  const size_t i = m.material_pairs.size();
  TableReader r(t, file, fmt::format("material_pair[{}]", i), kMaterialPairKeys);
  MaterialPair p;
  p.a = material_ref(r, "a");
  p.b = material_ref(r, "b");
  for (const MaterialPair& q : m.material_pairs)
    if ((q.a == p.a && q.b == p.b) || (q.a == p.b && q.b == p.a)) r.fail("b", "this pair of materials is given twice");
  coefficients(r, p.restitution, p.mu_static, p.mu_dynamic);
  m.material_pairs.push_back(p);
}

void SceneBuilder::shape(const toml::table& t) {
  const size_t i = m.shapes.size();
  TableReader r(t, file, fmt::format("shape[{}]", i), kShapeKeys);
  Shape sh;
  sh.name = r.str("name", fmt::format("shape{}", i + 1));
  unique_name(r, shape_names, sh.name, "shape");
  const std::string type = r.str("type");
  if (!shape_type_from_name(type, sh.type))
    r.fail("type", fmt::format("must be one of sphere, box, capsule, cylinder, half_space, convex; got \"{}\"", type));
  const std::string body = r.str("body");
  sh.body = body == "world" ? kWorld : find_body(body);
  if (body != "world" && sh.body < 0) r.fail("body", fmt::format("no body named '{}'", body));
  sh.position = vec3(r, "position", Vec3::Zero());
  sh.orientation = r.has("orientation") ? quat(r, "orientation") : Quat::Identity();
  if (m.materials.empty()) r.fail("material", "no [[material]] is defined; define one before the shapes");
  sh.material = r.has("material") ? material_ref(r, "material") : 0;
  auto only = [&](std::initializer_list<const char*> keys) {
    for (const char* k : {"radius", "length", "half_extents", "vertices", "faces"}) {
      bool wanted = false;
      for (const char* w : keys) wanted = wanted || std::string_view(w) == k;
      if (!wanted && r.has(k)) r.fail(k, fmt::format("a {} has no {}", type, k));
    }
  };
  switch (sh.type) {
    case ShapeType::Sphere:
      only({"radius"});
      sh.radius = r.positive("radius");
      break;
    case ShapeType::Box:
    case ShapeType::Ellipsoid:
      only({"half_extents"});
      sh.half_extents = vec3(r, "half_extents");
      if (!(sh.half_extents.minCoeff() > 0)) r.fail("half_extents", "half extents must be positive");
      break;
    case ShapeType::Capsule:
    case ShapeType::Cylinder:
      only({"radius", "length"});
      sh.radius = r.positive("radius");
      sh.length = r.positive("length");
      break;
    case ShapeType::HalfSpace:
      only({});
      if (sh.body != kWorld && !m.bodies[static_cast<size_t>(sh.body)].is_static)
        r.fail("body", "a half-space belongs to the world or a static body");
      break;
    case ShapeType::Convex: {
      only({"vertices", "faces"});
      const toml::array& vs = r.array("vertices");
      for (const auto& v : vs) {
        const toml::array* a = v.as_array();
        if (!a || a->size() != 3) r.fail("vertices", "expected an array of [x, y, z] points");
        sh.vertices.emplace_back(r.number((*a)[0], "vertices"), r.number((*a)[1], "vertices"), r.number((*a)[2], "vertices"));
      }
      if (sh.vertices.size() < 4) r.fail("vertices", "a convex shape needs at least 4 vertices");
      const toml::array& fs = r.array("faces");
      for (const auto& f : fs) {
        const toml::array* a = f.as_array();
        if (!a || a->size() != 3) r.fail("faces", "expected an array of [i, j, k] triangles (vertex indices)");
        std::array<int, 3> tri{};
        for (int k = 0; k < 3; ++k) {
          const double x = r.number((*a)[static_cast<size_t>(k)], "faces");
          if (!(x >= 0 && x < static_cast<double>(sh.vertices.size()) && x == std::floor(x)))
            r.fail("faces", fmt::format("vertex index {} is not one of 0..{}", x, sh.vertices.size() - 1));
          tri[static_cast<size_t>(k)] = static_cast<int>(x);
        }
        sh.faces.push_back(tri);
      }
      if (sh.faces.size() < 4) r.fail("faces", "a convex shape needs at least 4 faces");
      break;
    }
  }
  m.shapes.push_back(std::move(sh));
}

void SceneBuilder::spring(const toml::table& t, int line_offset) {
  spring(TableReader(t, file, fmt::format("spring[{}]", m.springs.size()), kSpringKeys, line_offset));
}

void SceneBuilder::spring(const LexedPart& p, const LexedTable& t) { spring(LineTable(p, t, file, "spring", m.springs.size(), kSpringKeys, &checked_[3])); }

template <class R>
void SceneBuilder::spring(const R& sr) {
  const size_t i = m.springs.size();
  Spring s;
  s.name = sr.str("name", fmt::format("spring{}", i + 1));
  unique_name(sr, spring_names, s.name, "spring");
  s.a = body_ref(sr, "a");
  s.b = body_ref(sr, "b");
  if (s.a == s.b) sr.fail("b", "a spring must connect two different bodies (or a body and the world)");
  s.anchor_a = vec3(sr, "anchor_a", Vec3::Zero());
  s.anchor_b = vec3(sr, "anchor_b", Vec3::Zero());
  auto non_negative = [&](const char* key) {
    const double v = sr.num(key);
    if (!(v >= 0)) sr.fail(key, fmt::format("must be non-negative, got {}", v));
    return v;
  };
  s.stiffness = non_negative("stiffness");
  s.rest_length = non_negative("rest_length");
  s.damping = sr.has("damping") ? non_negative("damping") : 0.0;
  m.springs.push_back(s);
}

int SceneBuilder::driven_joint(const TableReader& r, const char* what) {
  const std::string joint = r.str("joint");
  if (joint_index.size() != m.joints.size()) {  // the joints are all read before motors and actuators
    joint_index.clear();
    for (size_t k = 0; k < m.joints.size(); ++k) joint_index.emplace(m.joints[k].name, static_cast<int>(k));
  }
  const auto it = joint_index.find(joint);
  if (it == joint_index.end()) r.fail("joint", fmt::format("no joint named '{}'", joint));
  const Joint& j = m.joints[static_cast<size_t>(it->second)];
  if (j.type != JointType::Hinge && j.type != JointType::Slider)
    r.fail("joint", fmt::format("joint '{}' is a {} joint; {} drives a hinge or a slider", joint, joint_type_name(j.type), what));
  return it->second;
}

void SceneBuilder::motor(const toml::table& t) {
  const size_t i = m.motors.size();
  TableReader r(t, file, fmt::format("motor[{}]", i), kMotorKeys);
  Motor mo;
  mo.name = r.str("name", fmt::format("motor{}", i + 1));
  unique_name(r, motor_names, mo.name, "motor");
  const std::string joint = r.str("joint");
  mo.joint = driven_joint(r, "a motor");
  if (const auto [d, fresh] = driven.emplace(mo.joint, mo.name); !fresh)
    r.fail("joint", fmt::format("joint '{}' has a motor already ('{}')", joint, d->second));
  const std::string mode = r.str("mode");
  if (mode != "position" && mode != "velocity") r.fail("mode", fmt::format("must be \"position\" or \"velocity\", got \"{}\"", mode));
  mo.mode = mode == "position" ? MotorMode::Position : MotorMode::Velocity;
  const std::string kind = r.str("target");
  if (!target_kind_from_name(kind, mo.target.kind))
    r.fail("target", fmt::format("must be \"constant\", \"ramp\", \"sine\" or \"table\", got \"{}\"", kind));
  const std::vector<const char*> own = mo.target.kind == TargetKind::Constant ? std::vector<const char*>{"value"}
                                       : mo.target.kind == TargetKind::Ramp   ? std::vector<const char*>{"value", "rate"}
                                       : mo.target.kind == TargetKind::Sine   ? std::vector<const char*>{"value", "amplitude", "frequency", "phase"}
                                                                              : std::vector<const char*>{"times", "values"};
  for (const char* k : {"value", "rate", "amplitude", "frequency", "phase", "times", "values"})
    if (r.has(k) && std::find_if(own.begin(), own.end(), [&](const char* o) { return std::string_view(o) == k; }) == own.end())
      r.fail(k, fmt::format("a {} target has no {}", kind, k));
  MotorTarget& tg = mo.target;
  switch (tg.kind) {
    case TargetKind::Constant: tg.value = r.num("value"); break;
    case TargetKind::Ramp:
      tg.value = r.num("value", 0.0);
      tg.rate = r.num("rate");
      break;
    case TargetKind::Sine:
      tg.value = r.num("value", 0.0);
      tg.amplitude = r.num("amplitude");
      tg.frequency = r.num("frequency");
      tg.phase = r.num("phase", 0.0);
      if (!(tg.frequency >= 0)) r.fail("frequency", fmt::format("must be >= 0 Hz, got {}", tg.frequency));
      break;
    case TargetKind::Table: {
      tg.times = r.numbers("times");
      tg.values = r.numbers("values");
      if (tg.times.size() < 2) r.fail("times", fmt::format("a table needs at least two points, got {}", tg.times.size()));
      if (tg.values.size() != tg.times.size())
        r.fail("values", fmt::format("a table has as many values as times: {} times, {} values", tg.times.size(), tg.values.size()));
      for (size_t k = 1; k < tg.times.size(); ++k)
        if (!(tg.times[k] > tg.times[k - 1]))
          r.fail("times", fmt::format("times must increase strictly: time {} is {}, after {}", k, tg.times[k], tg.times[k - 1]));
      break;
    }
  }
  if (mo.mode == MotorMode::Position && !(std::abs(tg.at(0)) <= kMotorStartTolerance))
    r.fail("target", fmt::format("a position motor's target at t = 0 is {}; it must be 0 (the coordinate is the joint's "
                                 "displacement from the initial state)", tg.at(0)));
  if (r.has("max_force")) mo.max_force = r.positive("max_force");
  m.motors.push_back(std::move(mo));
}

void SceneBuilder::actuator(const toml::table& t) {
  const size_t i = m.actuators.size();
  TableReader r(t, file, fmt::format("actuator[{}]", i), kActuatorKeys);
  Actuator a;
  a.name = r.str("name", fmt::format("actuator{}", i + 1));
  unique_name(r, actuator_names, a.name, "actuator");
  a.joint = driven_joint(r, "an actuator");
  const std::string kind = r.str("kind", "motor");
  if (!actuator_kind_from_name(kind, a.kind))
    r.fail("kind", fmt::format("must be \"motor\", \"position\", \"velocity\" or \"general\", got \"{}\"", kind));
  // the keys each kind takes: its gains (kp, kv; a general actuator's gain and bias)
  const std::vector<std::string> own = a.kind == ActuatorKind::Position ? std::vector<std::string>{"kp", "kv"}
                                       : a.kind == ActuatorKind::Velocity ? std::vector<std::string>{"kv"}
                                       : a.kind == ActuatorKind::General  ? std::vector<std::string>{"gain", "bias"}
                                                                          : std::vector<std::string>{};
  for (const char* k : {"kp", "kv", "gain", "bias"})
    if (r.has(k) && std::find(own.begin(), own.end(), k) == own.end()) r.fail(k, fmt::format("a {} actuator has no {}", kind, k));
  auto non_negative = [&](const char* k, double fallback) {
    if (!r.has(k) && std::isnan(fallback)) r.fail(k, fmt::format("a {} actuator needs {}", kind, k));
    const double v = r.has(k) ? r.num(k) : fallback;
    if (!(v >= 0)) r.fail(k, fmt::format("must be >= 0, got {}", v));
    return v;
  };
  a.gear = r.num("gear", 1.0);
  switch (a.kind) {
    case ActuatorKind::Motor: break;
    case ActuatorKind::Position: {
      const double kp = non_negative("kp", std::nan("")), kv = non_negative("kv", 0.0);
      a.gain = kp;
      a.bias = {0, -kp, -kv};
      break;
    }
    case ActuatorKind::Velocity: {
      const double kv = non_negative("kv", std::nan(""));
      a.gain = kv;
      a.bias = {0, 0, -kv};
      break;
    }
    case ActuatorKind::General: {
      a.gain = r.num("gain");
      const std::vector<double> b = r.numbers("bias", 3);
      a.bias = {b[0], b[1], b[2]};
      break;
    }
  }
  // a range open at one end: -inf low, inf high
  auto range = [&](const char* k, double& lo, double& hi) {
    if (!r.has(k)) return;
    const toml::array& ends = r.array(k);
    if (ends.size() != 2) throw InputError(file, r.at(r.need(k)), r.field(k), fmt::format("expected 2 numbers, got {}", ends.size()));
    double v[2];
    for (size_t e = 0; e < 2; ++e) {
      const double open = e == 0 ? -INFINITY : INFINITY;
      const auto* f = ends[e].as_floating_point();
      v[e] = f && f->get() == open ? open : r.number(ends[e], k);
    }
    if (!(v[0] <= v[1])) r.fail(k, fmt::format("the low end {} is above the high end {}", v[0], v[1]));
    lo = v[0], hi = v[1];
  };
  range("ctrlrange", a.ctrl_low, a.ctrl_high);
  range("forcerange", a.force_low, a.force_high);
  a.offset = r.num("offset", 0.0);
  m.actuators.push_back(std::move(a));
}

void SceneBuilder::exact(const toml::table& t) {
  TableReader r(t, file, fmt::format("exact[{}]", m.info.exact.size()), kExactKeys);
  ExactMotion e;
  const std::string body = r.str("body");
  e.body = find_body(body);
  if (e.body < 0) r.fail("body", fmt::format("no body named '{}'", body));
  e.acceleration = vec3(r, "acceleration");
  m.info.exact.push_back(e);
}

void SceneBuilder::named_frame(const toml::table& t) {
  TableReader r(t, file, fmt::format("named_frame[{}]", m.info.frames.size()), kNamedFrameKeys);
  NamedFrame f;
  f.name = r.str("name");
  if (f.name.empty()) r.fail("name", "a named frame needs a name");
  f.body = body_ref(r, "body");
  f.position = vec3(r, "position", Vec3::Zero());
  f.orientation = r.has("orientation") ? quat(r, "orientation") : Quat::Identity();
  m.info.frames.push_back(std::move(f));
}

void SceneBuilder::rolling(const toml::table& t) {
  const size_t i = m.rolling.size();
  TableReader r(t, file, fmt::format("rolling[{}]", i), kRollingKeys);
  Rolling w;
  w.name = r.str("name", fmt::format("rolling{}", i + 1));
  const std::string body = r.str("body");
  w.body = find_body(body);
  if (w.body < 0) r.fail("body", fmt::format("no body named '{}'", body));
  w.axle = vec3(r, "axle");
  w.radius = r.positive("radius");
  w.point = vec3(r, "point", Vec3::Zero());
  w.normal = vec3(r, "normal");
  m.rolling.push_back(std::move(w));
}

Model SceneBuilder::finish() {
  // the name tables are done with: their memory is free for check_model's
  index = NameIndex();
  joint_names = NameIndex();
  if (ctrl_table) {
    for (size_t k = 0; k < m.control.rows.size(); ++k)
      if (m.control.rows[k].size() != m.actuators.size())
        throw InputError(file, ctrl_line, "model.ctrl_rows",
                         fmt::format("row {} has {} controls; the model has {} actuator(s)", k, m.control.rows[k].size(), m.actuators.size()));
  } else if (ctrl_text != "zero") {
    m.control = parse_control(ctrl_text, m, file, ctrl_line);
  }
  check_model(m, file);
  return std::move(m);
}

template <class R>
int SceneBuilder::body_ref(const R& r, const char* key) const {
  std::string name = r.str(key);
  if (name == "world") return kWorld;
  int idx = find_body(name);
  if (idx < 0) {
    std::string names;
    for (size_t k = 0; k < m.bodies.size() && k < 20; ++k) names += (names.empty() ? "" : ", ") + m.bodies[k].name;
    if (m.bodies.size() > 20) names += fmt::format(", ... ({} bodies)", m.bodies.size());
    r.fail(key, fmt::format("no body named '{}'; bodies: world, {}", name, names));
  }
  return idx;
}

template <class R>
void SceneBuilder::unique_name(const R& r, std::unordered_set<std::string>& seen, const std::string& name, const char* kind) {
  if (!seen.insert(name).second) duplicate_name(r, name, kind);
}

template <class R>
void SceneBuilder::duplicate_name(const R& r, const std::string& name, const char* kind) {
  r.fail("name", r.has("name") ? fmt::format("duplicated {} name '{}'", kind, name)
                               : fmt::format("this {} has no name and its default name '{}' is another {}'s; name it", kind, name, kind));
}

int SceneBuilder::material_ref(const TableReader& r, const std::string& key) const {
  const std::string name = r.str(key);
  auto it = materials.find(name);
  if (it == materials.end()) r.fail(key, fmt::format("no material named '{}'", name));
  return it->second;
}

void SceneBuilder::coefficients(const TableReader& r, double& e, double& mu_s, double& mu_d) {
  e = r.num("restitution", 0.0);
  mu_s = r.num("mu_static", 0.0);
  mu_d = r.num("mu_dynamic", mu_s);
  if (!(e >= 0 && e <= 1)) r.fail("restitution", fmt::format("restitution must be in [0, 1], got {}", e));
  if (!(mu_s >= 0)) r.fail("mu_static", fmt::format("friction coefficient must be >= 0, got {}", mu_s));
  if (!(mu_d >= 0 && mu_d <= mu_s))
    r.fail("mu_dynamic", fmt::format("dynamic friction coefficient must be in [0, mu_static = {}], got {}", mu_s, mu_d));
}

}  // namespace mb
