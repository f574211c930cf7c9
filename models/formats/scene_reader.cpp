#include "models/formats/scene.hpp"

#include <cmath>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <algorithm>
#include <optional>
#include <sstream>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <condition_variable>
#include <mutex>
#include <new>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/name_index.hpp"
#include "core/toml_reader.hpp"
#include "models/kinematics.hpp"
#include "models/formats/scene_lexer.hpp"
#include "models/formats/scene_split.hpp"

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
                                             "published_end"};
const std::vector<std::string> kBodyKeys = {"name", "type", "mass", "inertia", "box", "static", "position",
                                            "orientation", "velocity", "angular_velocity"};
const std::vector<std::string> kTorqueKeys = {"body", "torque", "t_begin", "t_end"};
const std::vector<std::string> kForceKeys = {"body", "force", "t_begin", "t_end"};
const std::vector<std::string> kMaterialKeys = {"name", "restitution", "mu_static", "mu_dynamic"};
const std::vector<std::string> kMaterialPairKeys = {"a", "b", "restitution", "mu_static", "mu_dynamic"};
const std::vector<std::string> kShapeKeys = {"name", "type", "body", "position", "orientation", "radius", "length",
                                             "half_extents", "vertices", "faces", "material"};
const std::vector<std::string> kTopKeys = {"model", "body", "joint", "torque", "force", "material", "material_pair", "shape", "spring", "motor"};
const std::vector<std::string> kMotorKeys = {"name", "joint", "mode", "target", "value", "rate", "amplitude", "frequency", "phase",
                                             "times", "values", "max_force"};
const std::vector<std::string> kSpringKeys = {"name", "a", "b", "anchor_a", "anchor_b", "stiffness", "rest_length", "damping"};
const std::vector<std::string> kJointKeys = {"name", "type", "a", "b", "anchor_a", "anchor_b", "length", "extensibility",
                                             "axis_a", "axis_b", "rel_orientation", "damping"};

}  // namespace

namespace {

// Reading a scene: the [model] table, then the [[body]], [[joint]], [[torque]] and [[spring]] tables in
// file order (every body before the first joint, torque or spring that names it).
class SceneBuilder {
 public:
  explicit SceneBuilder(std::string file) : file(std::move(file)) {}
  // room for this many bodies and joints (one allocation each instead of the doublings)
  void reserve(const SceneCounts& c) {
    m.bodies.reserve(c.bodies);
    m.joints.reserve(c.joints);
    index = NameIndex(c.bodies);
    joint_names = NameIndex(c.joints);
  }
  // the reserved memory of the joints (filled last), then of the bodies
  std::vector<Prefault::Range> reserved() const {
    return {{m.joints.data(), m.joints.capacity() * sizeof(Joint)}, {m.bodies.data(), m.bodies.capacity() * sizeof(Body)}};
  }

  void model_table(const TableReader& top) {
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

  }

  void body(const toml::table& t, int line_offset) {
    body(TableReader(t, file, fmt::format("body[{}]", m.bodies.size()), kBodyKeys, line_offset));
  }
  void body(const LexedPart& p, const LexedTable& t) { body(LineTable(p, t, file, "body", m.bodies.size(), kBodyKeys, &checked_[0])); }
  template <class R>
  void body(const R& br) {
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
        if (!is_spd(b.inertia)) br.fail("inertia", "inertia tensor is not symmetric positive definite");
      }
    }
    b.box = vec3(br, "box", Vec3::Zero());
    b.position = vec3(br, "position");
    b.orientation = br.has("orientation") ? quat(br, "orientation") : Quat::Identity();
    b.velocity = vec3(br, "velocity", Vec3::Zero());
    b.angular_velocity = vec3(br, "angular_velocity", Vec3::Zero());
    m.bodies.push_back(std::move(b));
    index.insert(static_cast<long>(i), body_name());
  }

  // after the last body
  void bodies_done() {
    if (m.bodies.empty()) throw InputError(file, 0, "body", "a scene needs at least one [[body]]");
    if (!tracked.empty()) {
      m.info.tracked_body = find_body(tracked);
      if (m.info.tracked_body < 0)
        throw InputError(file, tracked_line, "model.tracked_body", fmt::format("no body named '{}'", tracked));
    }
  }

  void joint(const toml::table& t, int line_offset) {
    joint(TableReader(t, file, fmt::format("joint[{}]", m.joints.size()), kJointKeys, line_offset));
  }
  void joint(const LexedPart& p, const LexedTable& t) { joint(LineTable(p, t, file, "joint", m.joints.size(), kJointKeys, &checked_[1])); }
  template <class R>
  void joint(const R& jr) {
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
    if (needs_axis_a) {
      j.axis_a = vec3(jr, "axis_a");
      if (j.axis_a.norm() == 0) jr.fail("axis_a", "axis must be non-zero");
    }
    if (needs_axis_b) {
      j.axis_b = vec3(jr, "axis_b");
      if (j.axis_b.norm() == 0) jr.fail("axis_b", "axis must be non-zero");
    }
    if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
      j.rel_orientation = jr.has("rel_orientation") ? quat(jr, "rel_orientation") : Quat::Identity();
    if (jr.has("damping")) {  // a viscous damper in a hinge (N m s/rad) or a slider (N s/m)
      if (j.type != JointType::Hinge && j.type != JointType::Slider) jr.fail("damping", "only a hinge or a slider has a damping");
      j.damping = jr.num("damping");
      if (!(j.damping >= 0 && std::isfinite(j.damping)))
        jr.fail("damping", fmt::format("damping must be finite and >= 0, got {}", j.damping));
    }
    m.joints.push_back(std::move(j));
  }

  // [[torque]] and [[force]]: an applied load (AppliedLoad) on a body from t_begin; no t_end: constant
  // from t_begin on (a driving torque, a push)
  void load(const toml::table& t, int line_offset, bool is_force) {
    load(TableReader(t, file, fmt::format("{}[{}]", is_force ? "force" : "torque", n_loads_[is_force]), is_force ? kForceKeys : kTorqueKeys,
                     line_offset),
         is_force);
  }
  void torque(const LexedPart& p, const LexedTable& t) {
    load(LineTable(p, t, file, "torque", n_loads_[0], kTorqueKeys, &checked_[2]), false);
  }
  template <class R>
  void load(const R& tr, bool is_force) {
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
  void torque(const toml::table& t, int line_offset) { load(t, line_offset, false); }

  void material(const toml::table& t) {
    const size_t i = m.materials.size();
    TableReader r(t, file, fmt::format("material[{}]", i), kMaterialKeys);
    Material x;
    x.name = r.str("name");
    if (x.name.empty()) r.fail("name", "a material needs a name");
    if (!materials.emplace(x.name, static_cast<int>(i)).second) r.fail("name", fmt::format("duplicated material name '{}'", x.name));
    coefficients(r, x.restitution, x.mu_static, x.mu_dynamic);
    m.materials.push_back(x);
  }

  void material_pair(const toml::table& t) {
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

  void shape(const toml::table& t) {
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

  void spring(const toml::table& t, int line_offset) {
    spring(TableReader(t, file, fmt::format("spring[{}]", m.springs.size()), kSpringKeys, line_offset));
  }
  void spring(const LexedPart& p, const LexedTable& t) { spring(LineTable(p, t, file, "spring", m.springs.size(), kSpringKeys, &checked_[3])); }
  template <class R>
  void spring(const R& sr) {
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

  // [[motor]]: a drive on a hinge or slider named by `joint`; `target` names the kind of f(t) and
  // the kind's own keys give it (models/model.hpp, MotorTarget)
  void motor(const toml::table& t) {
    const size_t i = m.motors.size();
    TableReader r(t, file, fmt::format("motor[{}]", i), kMotorKeys);
    Motor mo;
    mo.name = r.str("name", fmt::format("motor{}", i + 1));
    unique_name(r, motor_names, mo.name, "motor");
    const std::string joint = r.str("joint");
    if (joint_index.size() != m.joints.size()) {  // the joints are all read before the motors
      joint_index.clear();
      for (size_t k = 0; k < m.joints.size(); ++k) joint_index.emplace(m.joints[k].name, static_cast<int>(k));
    }
    const auto it = joint_index.find(joint);
    if (it == joint_index.end()) r.fail("joint", fmt::format("no joint named '{}'", joint));
    mo.joint = it->second;
    const Joint& j = m.joints[static_cast<size_t>(mo.joint)];
    if (j.type != JointType::Hinge && j.type != JointType::Slider)
      r.fail("joint", fmt::format("joint '{}' is a {} joint; a motor drives a hinge or a slider", joint, joint_type_name(j.type)));
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

  Model finish() {
    // the name tables are done with: their memory is free for check_model's
    index = NameIndex();
    joint_names = NameIndex();
    check_model(m, file);
    return std::move(m);
  }

 private:
  size_t n_loads_[2] = {0, 0};  // [[torque]] and [[force]] tables read so far
  // the keys of the last valid [[body]], [[joint]], [[torque]] and [[spring]] line table (LineTable)
  std::vector<std::string_view> checked_[4];
  // the bodies' names by index, for `index`
  struct BodyName {
    const Model* m;
    const std::string& operator()(long k) const { return m->bodies[static_cast<size_t>(k)].name; }
  };
  BodyName body_name() const { return {&m}; }
  int find_body(const std::string& name) const { return static_cast<int>(index.find(name, body_name())); }
  // the body a joint or spring names in `key` ("world" or a body's name)
  template <class R>
  int body_ref(const R& r, const char* key) const {
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

  // a joint, shape or spring name seen once in its kind (an absent name is the default "joint3", which
  // must not be one given to another table either)
  template <class R>
  static void unique_name(const R& r, std::unordered_set<std::string>& seen, const std::string& name, const char* kind) {
    if (!seen.insert(name).second) duplicate_name(r, name, kind);
  }
  template <class R>
  [[noreturn]] static void duplicate_name(const R& r, const std::string& name, const char* kind) {
    r.fail("name", r.has("name") ? fmt::format("duplicated {} name '{}'", kind, name)
                                 : fmt::format("this {} has no name and its default name '{}' is another {}'s; name it", kind, name, kind));
  }

  int material_ref(const TableReader& r, const std::string& key) const {
    const std::string name = r.str(key);
    auto it = materials.find(name);
    if (it == materials.end()) r.fail(key, fmt::format("no material named '{}'", name));
    return it->second;
  }
  // restitution (default 0), mu_static (default 0) and mu_dynamic (default mu_static), checked
  static void coefficients(const TableReader& r, double& e, double& mu_s, double& mu_d) {
    e = r.num("restitution", 0.0);
    mu_s = r.num("mu_static", 0.0);
    mu_d = r.num("mu_dynamic", mu_s);
    if (!(e >= 0 && e <= 1)) r.fail("restitution", fmt::format("restitution must be in [0, 1], got {}", e));
    if (!(mu_s >= 0)) r.fail("mu_static", fmt::format("friction coefficient must be >= 0, got {}", mu_s));
    if (!(mu_d >= 0 && mu_d <= mu_s))
      r.fail("mu_dynamic", fmt::format("dynamic friction coefficient must be in [0, mu_static = {}], got {}", mu_s, mu_d));
  }

  std::string file;
  Model m;
  NameIndex index, joint_names;  // the bodies and the joints read so far, by name
  std::unordered_map<std::string, int> materials, joint_index;
  std::unordered_map<int, std::string> driven;  // joint index -> the name of its motor
  std::unordered_set<std::string> shape_names, spring_names, motor_names;
  std::string tracked;
  int tracked_line = 0;
};

// The parts' lexing (lex_part) on a second thread, ahead of the builder: about half the time of
// reading a large scene's lines, and each part's apart from the others'. A part's result is the
// same on either thread; the builder takes the parts in file order, so a model and an error are
// those of one thread. kSlots parts at most are lexed and not yet built.
class LexAhead {
 public:
  static constexpr size_t kSlots = 4;
  explicit LexAhead(const std::vector<ScenePart>& parts) : parts_(parts), worker_([this] { run(); }) {}
  ~LexAhead() {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    cv_.notify_all();
    worker_.join();
  }
  LexAhead(const LexAhead&) = delete;
  LexAhead& operator=(const LexAhead&) = delete;

  // part k (k >= 1, in order) lexed, or nullptr when a line of it is not one lex_part reads
  const LexedPart* get(size_t k) {
    std::unique_lock<std::mutex> lock(mutex_);
    cv_.wait(lock, [&] { return lexed_ > k; });
    const Slot& s = slots_[k % kSlots];
    return s.ok ? &s.part : nullptr;
  }
  // the builder is done with part k: its slot is free for part k + kSlots
  void done(size_t k) {
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      built_ = k + 1;
    }
    cv_.notify_all();
  }

 private:
  struct Slot {
    LexedPart part;
    bool ok = false;
  };
  void run() {
    for (size_t k = 1; k < parts_.size(); ++k) {
      {
        std::unique_lock<std::mutex> lock(mutex_);
        cv_.wait(lock, [&] { return stop_ || k < built_ + kSlots; });
        if (stop_) return;
      }
      Slot& s = slots_[k % kSlots];
      try {
        s.ok = lex_part(parts_[k].text, parts_[k].line_offset, s.part);
      } catch (const std::bad_alloc&) {
        s.ok = false;  // toml++ reads the part on the builder's thread (and meets the shortage there)
      }
      {
        const std::lock_guard<std::mutex> lock(mutex_);
        lexed_ = k + 1;
      }
      cv_.notify_all();
    }
  }

  const std::vector<ScenePart>& parts_;
  Slot slots_[kSlots];
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t lexed_ = 1, built_ = 1;  // parts [1, lexed_) lexed; [1, built_) built
  bool stop_ = false;
  std::thread worker_;  // last: started when the rest is set up
};

// The parts path: the model, or nothing when the file must be parsed whole. A part goes through the
// line reader (scene_lexer.hpp) when it reads every line of it, else through toml++; either way its
// bodies are read first, then its joints, torques and springs, as toml++ groups a document's
// arrays of tables.
std::optional<Model> parse_in_parts(const std::vector<ScenePart>& parts, const SceneCounts& counts, const std::string& file,
                                    bool lines) {
  SceneBuilder b(file);
  b.reserve(counts);
  // the model's memory faulted in on a thread of its own while the parts are read (core/memory.hpp)
  Prefault prefault;
  prefault.start(b.reserved());
  LexedPart own;
  // a second thread for a scene of three parts or more (of kPartTables tables), when there is a core for it
  std::optional<LexAhead> ahead;
  if (lines && parts.size() > 3 && std::thread::hardware_concurrency() > 1) ahead.emplace(parts);
  toml::table head;
  try {
    head = toml::parse(parts[0].text);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
  for (const char* k : {"body", "joint", "torque", "spring", "material", "material_pair", "shape", "motor"})
    if (head.contains(k)) return std::nullopt;  // contact scenes are read whole
  b.model_table(TableReader(head, file, "", kTopKeys));
  bool bodies_done = false;
  for (size_t k = 1; k < parts.size(); ++k) {
    const LexedPart* lexed_part = nullptr;
    if (ahead) lexed_part = ahead->get(k);
    else if (lines && lex_part(parts[k].text, parts[k].line_offset, own)) lexed_part = &own;
    if (lexed_part) {
      const LexedPart& lexed = *lexed_part;
      bool rest = false;  // a joint, torque or spring in this part
      for (const LexedTable& t : lexed.tables) {
        if (t.kind != "body") {
          rest = true;
          continue;
        }
        if (bodies_done) return std::nullopt;  // a body after a joint or torque: read the file whole
        b.body(lexed, t);
      }
      if (rest && !bodies_done) {
        b.bodies_done();
        bodies_done = true;
      }
      for (const std::string_view kind : {"joint", "torque", "spring"})
        for (const LexedTable& t : lexed.tables) {
          if (t.kind != kind) continue;
          if (kind == "joint") b.joint(lexed, t);
          else if (kind == "torque") b.torque(lexed, t);
          else b.spring(lexed, t);
        }
      if (ahead) ahead->done(k);
      continue;
    }
    if (ahead) ahead->done(k);
    toml::table t;
    try {
      t = toml::parse(parts[k].text);
    } catch (const toml::parse_error&) {
      return std::nullopt;
    }
    for (const auto& [key, node] : t) {
      if (key != "body" && key != "joint" && key != "torque" && key != "spring") return std::nullopt;
      if (!node.is_array_of_tables()) return std::nullopt;
    }
    const int off = parts[k].line_offset;
    if (const toml::array* a = t["body"].as_array()) {
      if (bodies_done) return std::nullopt;  // a body after a joint or torque: read the file whole
      for (const auto& e : *a) b.body(*e.as_table(), off);
    }
    const toml::array* joints = t["joint"].as_array();
    const toml::array* torques = t["torque"].as_array();
    const toml::array* springs = t["spring"].as_array();
    if ((joints || torques || springs) && !bodies_done) {
      b.bodies_done();
      bodies_done = true;
    }
    if (joints)
      for (const auto& e : *joints) b.joint(*e.as_table(), off);
    if (torques)
      for (const auto& e : *torques) b.torque(*e.as_table(), off);
    if (springs)
      for (const auto& e : *springs) b.spring(*e.as_table(), off);
  }
  if (!bodies_done) b.bodies_done();
  return b.finish();
}

}  // namespace

Model parse_scene(std::string_view text, const std::string& file, SceneParse how) {
  check_toml_characters(text, file);
  if (how != SceneParse::toml_whole) {
    SceneCounts counts;
    const std::vector<ScenePart> parts = split_scene(text, &counts);
    if (parts.size() > 1)
      if (std::optional<Model> m = parse_in_parts(parts, counts, file, how == SceneParse::lines)) return std::move(*m);
  }
  toml::table root = parse_toml(text, file);
  SceneBuilder b(file);
  TableReader top(root, file, "", kTopKeys);
  b.model_table(top);
  for (const toml::table* t : top.tables("body")) b.body(*t, 0);
  b.bodies_done();
  for (const toml::table* t : top.tables("joint")) b.joint(*t, 0);
  for (const toml::table* t : top.tables("torque")) b.torque(*t, 0);
  for (const toml::table* t : top.tables("force")) b.load(*t, 0, true);
  for (const toml::table* t : top.tables("spring")) b.spring(*t, 0);
  for (const toml::table* t : top.tables("material")) b.material(*t);
  for (const toml::table* t : top.tables("material_pair")) b.material_pair(*t);
  for (const toml::table* t : top.tables("shape")) b.shape(*t);
  for (const toml::table* t : top.tables("motor")) b.motor(*t);
  return b.finish();
}

namespace {
// A regular file's text mapped read-only (no copy of it, no zeroed buffer); empty when the file
// cannot be mapped (a pipe, an empty file), and then it is read as a stream.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = p;
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool mapped() const { return data_ != nullptr; }
  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};
}  // namespace

Model read_scene(const std::string& path) {
  if (const MappedFile mapped(path); mapped.mapped()) return parse_scene(mapped.text(), path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open scene file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "", "cannot read scene file");
  return parse_scene(ss.str(), path);
}

}  // namespace mb
