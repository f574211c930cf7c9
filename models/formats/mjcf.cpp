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

#include "models/formats/mjcf_reader.hpp"
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

}  // namespace

namespace mjcf_import {

int Reader::element_line(const std::string& element, const std::string& name) const {
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

void Reader::unique_names() const {
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

void Reader::unmapped(std::vector<std::string>& ignored) const {
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
  if (m->ntendon) parts.push_back(fmt::format("{} tendon(s){}", m->ntendon, tendon_couplings ? " (but their equalities, couplings)" : ""));
  if (m->nkey) parts.push_back(fmt::format("{} keyframe(s) (the initial state is qpos0)", m->nkey));
  ignored.insert(ignored.begin(), parts.begin(), parts.end());
}

}  // namespace mjcf_import

using mjcf_import::Reader;
using mjcf_import::vec3;

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
