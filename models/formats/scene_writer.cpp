#include "models/formats/scene.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "models/actuators.hpp"

namespace mb {

namespace {
// shortest text that reads back to the same double, always a TOML float
std::string num(double x) {
  std::string s = fmt::format("{}", x);
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
std::string vec(const Vec3& v) { return fmt::format("[{}, {}, {}]", num(v.x()), num(v.y()), num(v.z())); }
std::string quat(const Quat& q) { return fmt::format("[{}, {}, {}, {}]", num(q.w()), num(q.x()), num(q.y()), num(q.z())); }
// a TOML basic string in ASCII (core/toml_reader.cpp reads only ASCII): quotes and backslashes
// escaped, control characters and every non-ASCII character (UTF-8 decoded) as \uXXXX or
// \UXXXXXXXX; a byte that is not valid UTF-8 (an overlong form included: it would read back as
// another text) becomes U+FFFD
std::string str(const std::string& s) {
  std::string out = "\"";
  for (size_t i = 0; i < s.size();) {
    const unsigned char u = static_cast<unsigned char>(s[i]);
    if (u == '"' || u == '\\') {
      out += '\\';
      out += static_cast<char>(u);
      ++i;
    } else if (u < 0x20 || u == 0x7f) {
      out += fmt::format("\\u{:04X}", static_cast<unsigned>(u));
      ++i;
    } else if (u < 0x80) {
      out += static_cast<char>(u);
      ++i;
    } else {
      const int len = u >= 0xf8 ? 0 : u >= 0xf0 ? 4 : u >= 0xe0 ? 3 : u >= 0xc0 ? 2 : 0;
      char32_t cp = len == 4 ? u & 0x07 : len == 3 ? u & 0x0f : u & 0x1f;
      bool ok = len > 0 && i + static_cast<size_t>(len) <= s.size();
      for (int k = 1; ok && k < len; ++k) {
        const unsigned char cont = static_cast<unsigned char>(s[i + static_cast<size_t>(k)]);
        ok = (cont & 0xc0) == 0x80;
        cp = (cp << 6) | (cont & 0x3f);
      }
      const char32_t least = len == 4 ? 0x10000 : len == 3 ? 0x800 : 0x80;  // shorter forms are overlong
      if (!ok || cp < least || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) {
        cp = 0xfffd;
        i += 1;
      } else {
        i += static_cast<size_t>(len);
      }
      out += cp > 0xffff ? fmt::format("\\U{:08X}", static_cast<unsigned>(cp)) : fmt::format("\\u{:04X}", static_cast<unsigned>(cp));
    }
  }
  return out + "\"";
}
std::string body_name(const Model& m, int i) { return i == kWorld ? "world" : m.bodies[i].name; }
std::string list(const std::vector<double>& v) {
  std::string l = "[";
  for (size_t k = 0; k < v.size(); ++k) l += (k ? ", " : "") + num(v[k]);
  return l + "]";
}
// what the scene format cannot hold: an InputError naming the model and the field
[[noreturn]] void refuse(const Model& m, const std::string& field, const std::string& why) {
  throw InputError(m.info.name, 0, field, why + "; the scene format cannot hold it");
}
// the control source as [model] keys: ctrl (the model option's text) and a table's ctrl_times and
// ctrl_rows; a source its text does not give again is refused
std::string control_keys(const Model& m) {
  const ControlSource& c = m.control;
  if (c.kind == ControlKind::Table) {
    std::string rows = "[";
    for (size_t k = 0; k < c.rows.size(); ++k) rows += (k ? ", " : "") + list(c.rows[k]);
    return fmt::format("ctrl = {}\nctrl_times = {}\nctrl_rows = {}]\n", str(c.text), list(c.times), rows);
  }
  if (c.kind == ControlKind::Zero && c.text == "zero") return "";
  ControlSource back;
  try {
    back = parse_control(c.text, m, m.info.name, 0);
  } catch (const InputError&) {
    refuse(m, "ctrl", fmt::format("the controls' text '{}' does not name them", c.text));
  }
  if (back.kind != c.kind || back.amplitude != c.amplitude || back.frequency != c.frequency || back.seed != c.seed || back.sigma != c.sigma)
    refuse(m, "ctrl", fmt::format("the controls differ from what their text '{}' names", c.text));
  return fmt::format("ctrl = {}\n", str(c.text));
}
}  // namespace

std::string scene_to_toml(const Model& m) {
  std::string o = "# mbbench scene file (format: docs/conventions.md, \"Scene files\")\n[model]\n";
  o += fmt::format("name = {}\nsource = {}\ndescription = {}\n", str(m.info.name), str(m.info.source), str(m.info.description));
  o += fmt::format("gravity = {}\nduration = {}\ndefault_h = {}\n", vec(m.gravity), num(m.info.duration), num(m.info.default_h));
  // an empty grid (a model built in code without one) is left out: the reader then takes the
  // default grid, and refuses an empty list
  if (!m.info.h_grid.empty()) {
    o += "h_grid = [";
    for (size_t i = 0; i < m.info.h_grid.size(); ++i) o += (i ? ", " : "") + num(m.info.h_grid[i]);
    o += "]\n";
  }
  if (m.info.period) o += fmt::format("period = {}\n", num(*m.info.period));
  if (m.info.tracked_body >= 0) o += fmt::format("tracked_body = {}\n", str(m.bodies[m.info.tracked_body].name));
  o += fmt::format("energy_conserved = {}\n", m.info.energy_conserved);
  if (m.info.published_end) o += "published_end = true\n";
  if (!m.info.warnings.empty()) {
    o += "warnings = [";
    for (size_t k = 0; k < m.info.warnings.size(); ++k) o += (k ? ", " : "") + str(m.info.warnings[k]);
    o += "]\n";
  }
  o += control_keys(m);
  for (const Body& b : m.bodies) {
    o += fmt::format("\n[[body]]\nname = {}\ntype = {}\n", str(b.name),
                     b.particle ? "\"particle\"" : b.frame ? "\"frame\"" : "\"rigid\"");
    if (!b.is_static && !b.frame) o += fmt::format("mass = {}\n", num(b.mass));
    if (!b.particle && !b.frame && !(b.is_static && b.inertia == Mat3::Zero())) {
      const Mat3& I = b.inertia;
      o += fmt::format("inertia = [{}, {}, {}]\n", vec(I.row(0).transpose()), vec(I.row(1).transpose()), vec(I.row(2).transpose()));
    }
    if (b.box != Vec3::Zero()) o += fmt::format("box = {}\n", vec(b.box));
    if (b.is_static) o += "static = true\n";
    o += fmt::format("position = {}\n", vec(b.position));
    if (!b.particle) o += fmt::format("orientation = {}\n", quat(b.orientation));
    o += fmt::format("velocity = {}\n", vec(b.velocity));
    if (!b.particle) o += fmt::format("angular_velocity = {}\n", vec(b.angular_velocity));
    if (b.light_frame) o += "light_frame = true\n";
  }
  for (const Joint& j : m.joints) {
    o += fmt::format("\n[[joint]]\nname = {}\ntype = \"{}\"\na = {}\nb = {}\nanchor_a = {}\nanchor_b = {}\n", str(j.name),
                     joint_type_name(j.type), str(body_name(m, j.a)), str(body_name(m, j.b)), vec(j.anchor_a), vec(j.anchor_b));
    if (j.type == JointType::Distance) o += fmt::format("length = {}\n", num(j.length));
    if (j.type == JointType::Distance && j.extensibility != 0) o += fmt::format("extensibility = {}\n", num(j.extensibility));
    const JointParts parts = joint_parts(j.type);
    // an axis the type does not need, when it is not the default (a slider's axis_b)
    const bool two_axes = parts.rot == RotPart::Axis || parts.rot == RotPart::Perpendicular;
    if (parts.trans == TransPart::Line || parts.trans == TransPart::Plane || two_axes || parts.rot == RotPart::Twist ||
        j.axis_a != Vec3::UnitZ())
      o += fmt::format("axis_a = {}\n", vec(j.axis_a));
    if (two_axes || j.axis_b != Vec3::UnitZ()) o += fmt::format("axis_b = {}\n", vec(j.axis_b));
    if (parts.rot == RotPart::Orientation || parts.rot == RotPart::Twist)
      o += fmt::format("rel_orientation = {}\n", quat(j.rel_orientation));
    if (j.damping != 0) o += fmt::format("damping = {}\n", num(j.damping));
    if (std::isfinite(j.lower)) o += fmt::format("lower = {}\n", num(j.lower));
    if (std::isfinite(j.upper)) o += fmt::format("upper = {}\n", num(j.upper));
  }
  for (const AppliedLoad& a : m.loads)  // a load with a force and a torque: a [[torque]] and a [[force]]
    for (const bool is_force : {false, true}) {
      const Vec3& v = is_force ? a.force : a.torque;
      if (v == Vec3::Zero() && (is_force || a.force != Vec3::Zero())) continue;
      const char* key = is_force ? "force" : "torque";
      o += fmt::format("\n[[{}]]\nbody = {}\n{} = {}\nt_begin = {}\n", key, str(m.bodies[a.body].name), key, vec(v), num(a.t_begin));
      if (std::isfinite(a.t_end)) o += fmt::format("t_end = {}\n", num(a.t_end));  // none: constant from t_begin on
    }
  for (const Spring& sp : m.springs)
    o += fmt::format("\n[[spring]]\nname = {}\na = {}\nb = {}\nanchor_a = {}\nanchor_b = {}\nstiffness = {}\nrest_length = {}\ndamping = {}\n",
                     str(sp.name), str(body_name(m, sp.a)), str(body_name(m, sp.b)), vec(sp.anchor_a), vec(sp.anchor_b),
                     num(sp.stiffness), num(sp.rest_length), num(sp.damping));
  for (const Rolling& r : m.rolling)
    o += fmt::format("\n[[rolling]]\nname = {}\nbody = {}\naxle = {}\nradius = {}\npoint = {}\nnormal = {}\n", str(r.name),
                     str(m.bodies[static_cast<size_t>(r.body)].name), vec(r.axle), num(r.radius), vec(r.point), vec(r.normal));
  for (const JointCoupling& c : m.couplings)
    o += fmt::format("\n[[coupling]]\nname = {}\njoint = {}\nfollows = {}\nmultiplier = {}\noffset = {}\n", str(c.name),
                     str(m.joints[static_cast<size_t>(c.a)].name), str(m.joints[static_cast<size_t>(c.b)].name), num(c.multiplier),
                     num(c.offset));
  for (const Motor& mo : m.motors) {
    const MotorTarget& tg = mo.target;
    o += fmt::format("\n[[motor]]\nname = {}\njoint = {}\nmode = \"{}\"\ntarget = \"{}\"\n", str(mo.name),
                     str(m.joints[static_cast<size_t>(mo.joint)].name), mo.mode == MotorMode::Position ? "position" : "velocity",
                     target_kind_name(tg.kind));
    switch (tg.kind) {
      case TargetKind::Constant: o += fmt::format("value = {}\n", num(tg.value)); break;
      case TargetKind::Ramp: o += fmt::format("value = {}\nrate = {}\n", num(tg.value), num(tg.rate)); break;
      case TargetKind::Sine:
        o += fmt::format("value = {}\namplitude = {}\nfrequency = {}\nphase = {}\n", num(tg.value), num(tg.amplitude), num(tg.frequency),
                         num(tg.phase));
        break;
      case TargetKind::Table: o += fmt::format("times = {}\nvalues = {}\n", list(tg.times), list(tg.values)); break;
    }
    if (mo.limited()) o += fmt::format("max_force = {}\n", num(mo.max_force));
  }
  for (size_t i = 0; i < m.actuators.size(); ++i) {
    const Actuator& a = m.actuators[i];
    // a kind's own keys give its gain and bias: kp and kv >= 0 (position), kv >= 0 (velocity)
    const auto& b = a.bias;
    const bool kind_holds = a.kind == ActuatorKind::Motor      ? a.gain == 1 && b[0] == 0 && b[1] == 0 && b[2] == 0
                            : a.kind == ActuatorKind::Position ? b[0] == 0 && b[1] == -a.gain && a.gain >= 0 && b[2] <= 0
                            : a.kind == ActuatorKind::Velocity ? b[0] == 0 && b[1] == 0 && b[2] == -a.gain && a.gain >= 0
                                                               : true;
    if (!kind_holds)
      refuse(m, fmt::format("actuator[{}].bias", i),
             fmt::format("actuator '{}' is a {} actuator with gain {} and bias [{}, {}, {}], which its kind's keys do not give", a.name,
                         actuator_kind_name(a.kind), a.gain, b[0], b[1], b[2]));
    o += fmt::format("\n[[actuator]]\nname = {}\njoint = {}\nkind = \"{}\"\ngear = {}\n", str(a.name),
                     str(m.joints[static_cast<size_t>(a.joint)].name), actuator_kind_name(a.kind), num(a.gear));
    switch (a.kind) {
      case ActuatorKind::Motor: break;
      case ActuatorKind::Position: o += fmt::format("kp = {}\nkv = {}\n", num(a.gain), num(-a.bias[2])); break;
      case ActuatorKind::Velocity: o += fmt::format("kv = {}\n", num(a.gain)); break;
      case ActuatorKind::General:
        o += fmt::format("gain = {}\nbias = [{}, {}, {}]\n", num(a.gain), num(a.bias[0]), num(a.bias[1]), num(a.bias[2]));
        break;
    }
    // a range open at one end reads back as -inf or inf there
    if (std::isfinite(a.ctrl_low) || std::isfinite(a.ctrl_high)) o += fmt::format("ctrlrange = [{}, {}]\n", num(a.ctrl_low), num(a.ctrl_high));
    if (std::isfinite(a.force_low) || std::isfinite(a.force_high)) o += fmt::format("forcerange = [{}, {}]\n", num(a.force_low), num(a.force_high));
    if (a.offset != 0) o += fmt::format("offset = {}\n", num(a.offset));
  }
  for (const Material& x : m.materials)
    o += fmt::format("\n[[material]]\nname = {}\nrestitution = {}\nmu_static = {}\nmu_dynamic = {}\n", str(x.name),
                     num(x.restitution), num(x.mu_static), num(x.mu_dynamic));
  for (const MaterialPair& p : m.material_pairs)
    o += fmt::format("\n[[material_pair]]\na = {}\nb = {}\nrestitution = {}\nmu_static = {}\nmu_dynamic = {}\n",
                     str(m.materials[static_cast<size_t>(p.a)].name), str(m.materials[static_cast<size_t>(p.b)].name),
                     num(p.restitution), num(p.mu_static), num(p.mu_dynamic));
  for (const Shape& sh : m.shapes) {
    o += fmt::format("\n[[shape]]\nname = {}\ntype = \"{}\"\nbody = {}\nposition = {}\norientation = {}\nmaterial = {}\n",
                     str(sh.name), shape_type_name(sh.type), str(body_name(m, sh.body)), vec(sh.position), quat(sh.orientation),
                     str(m.materials[static_cast<size_t>(sh.material)].name));
    switch (sh.type) {
      case ShapeType::Sphere: o += fmt::format("radius = {}\n", num(sh.radius)); break;
      case ShapeType::Box:
      case ShapeType::Ellipsoid: o += fmt::format("half_extents = {}\n", vec(sh.half_extents)); break;
      case ShapeType::Capsule:
      case ShapeType::Cylinder: o += fmt::format("radius = {}\nlength = {}\n", num(sh.radius), num(sh.length)); break;
      case ShapeType::HalfSpace: break;
      case ShapeType::Convex: {
        o += "vertices = [";
        for (size_t k = 0; k < sh.vertices.size(); ++k) {
          if (k) o += ", ";
          o += vec(sh.vertices[k]);
        }
        o += "]\nfaces = [";
        for (size_t k = 0; k < sh.faces.size(); ++k) {
          if (k) o += ", ";
          o += fmt::format("[{}, {}, {}]", sh.faces[k][0], sh.faces[k][1], sh.faces[k][2]);
        }
        o += "]\n";
        break;
      }
    }
  }
  for (const ExactMotion& e : m.info.exact)
    o += fmt::format("\n[[exact]]\nbody = {}\nacceleration = {}\n", str(m.bodies[static_cast<size_t>(e.body)].name), vec(e.acceleration));
  for (const NamedFrame& f : m.info.frames)
    o += fmt::format("\n[[named_frame]]\nname = {}\nbody = {}\nposition = {}\norientation = {}\n", str(f.name), str(body_name(m, f.body)),
                     vec(f.position), quat(f.orientation));
  return o;
}

void write_scene(const Model& model, const std::string& path) {
  if (model.bodies.empty())  // a static object (an importer's): a scene needs a body
    throw InputError(model.info.source.empty() ? model.info.name : model.info.source, 0, "model",
                     "nothing moves (a static object): a scene needs at least one [[body]]");
  write_file_atomic(path, scene_to_toml(model));
}

}  // namespace mb
