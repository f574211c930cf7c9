#include "models/formats/urdf.hpp"

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"

#ifdef MBBENCH_WITH_URDF
#include <algorithm>
#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <sstream>
#include <set>
#include <unordered_set>

#include <filesystem>

#include <Eigen/Eigenvalues>
#include <console_bridge/console.h>
#include <urdf_parser/urdf_parser.h>

#include "models/formats/mesh_hull.hpp"
#include "models/formats/urdf_conventions.hpp"
#include "models/formats/xml_numbers.hpp"
#include "models/kinematics.hpp"
#endif

namespace mb {

const std::vector<OptionInfo>& urdf_options() {
  static const std::vector<OptionInfo> options = {
      OptionInfo::choice("base", "auto",
                         "fixed: the root link bolted to the world (URDF's meaning); free: a 6-DOF floating base; auto: fixed, but a "
                         "file without a moving joint (a lone object) floats, as PyBullet and Drake load it, or without a mass stands",
                         {"auto", "fixed", "free"}),
      OptionInfo::choice("collisions", "off",
                         "off; primitives: <collision> boxes, spheres, cylinders and capsules become shapes (a mesh is refused); all: meshes "
                         "too, each as its convex hull",
                         {"off", "primitives", "all"}),
      OptionInfo::choice("damping", "off", "on: <dynamics damping> of revolute, continuous and prismatic joints as viscous joint dampers; off: ignored (listed in a warning)",
                         {"off", "on"}),
      OptionInfo::text("floor", "off",
                       "off; on: a half-space (normal +z) at the lowest point of the collision shapes at the start; or its height in m (implies "
                       "collisions=primitives)"),
      OptionInfo::number("friction", "1", "the Coulomb friction coefficient of the collision shapes and the floor (one material, inelastic)", 0),
      OptionInfo::choice("limits", "on", "on: the <limit> lower and upper of revolute and prismatic joints as joint limits; ignore: none",
                         {"on", "ignore"}),
      OptionInfo::choice("strict", "off",
                         "off: Drake's and PyBullet's conventions (an undeclared world, joints without <limit>, <capsule>, ...) are read, each "
                         "named in a warning; on: liburdfdom's reading, which refuses them",
                         {"off", "on"}),
  };
  return options;
}

bool is_urdf_spec(const std::string& text) {
  const std::string name = text.substr(0, text.find(':'));
  return name.size() > 5 && name.compare(name.size() - 5, 5, ".urdf") == 0;
}

Model load_urdf(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "model", source, line);
  spec.check_options(urdf_options());
  if (!is_file(spec.name())) throw InputError(source, line, "model", fmt::format("no URDF file '{}'", spec.name()));
  UrdfOptions o;
  o.free_base = spec.get_string("base", "auto") == "free";
  o.auto_base = spec.get_string("base", "auto") == "auto";
  o.collisions = spec.get_string("collisions", "off") != "off";
  o.meshes = spec.get_string("collisions", "off") == "all";
  o.friction = spec.get_double("friction", 1.0);
  if (spec.has("floor") && spec.get_string("floor", "off") != "off") {
    const std::string floor = spec.get_string("floor", "off");
    if (floor == "on") {
      o.floor = UrdfOptions::Floor::Lowest;
    } else {
      const std::optional<double> z = option_number(spec, "floor");
      if (!z) throw InputError(source, line, "model", fmt::format("option 'floor' of model '{}': '{}' is not off, on or a height in m", spec.name(), floor));
      o.floor = UrdfOptions::Floor::Height;
      o.floor_height = *z;
    }
    if (spec.has("collisions") && !o.collisions)
      throw InputError(source, line, "model", fmt::format("model '{}': floor={} needs the collision shapes (collisions=primitives or all), and collisions=off "
                                                          "was given", spec.name(), floor));
    o.collisions = true;
  }
  o.limits = spec.get_string("limits", "on") == "on";
  o.damping = spec.get_string("damping", "off") == "on";
  o.strict = spec.get_string("strict", "off") == "on";
  Model m = read_urdf(spec.name(), o);
  if (!spec.options().empty()) m.info.name = m.info.name + " (" + spec.text().substr(spec.name().size() + 1) + ")";
  return m;
}

#ifndef MBBENCH_WITH_URDF

bool urdf_supported() { return false; }
Model read_urdf(const std::string& path, const UrdfOptions& options) { return parse_urdf("", path, options); }
Model parse_urdf(const std::string&, const std::string& path, const UrdfOptions&) {
  throw InputError(path, 0, "model", "this mbbench was built without liburdfdom (MBBENCH_WITH_URDF): it cannot read URDF");
}

#else

bool urdf_supported() { return true; }

using urdf_import::add_mimics;
using urdf_import::check_mass_matrix;
using urdf_import::Conventions;
using urdf_import::join;
using urdf_import::mesh_file;
using urdf_import::normalise;

namespace {

Vec3 vec(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

struct Pose {
  Quat q = Quat::Identity();
  Vec3 p = Vec3::Zero();
  Pose operator*(const Pose& o) const { return {q * o.q, p + q * o.p}; }
  Pose inverse() const { return {q.conjugate(), -(q.conjugate() * p)}; }
};

bool finite(const urdf::Pose& u) {
  return vec(u.position).allFinite() && std::isfinite(u.rotation.w) && std::isfinite(u.rotation.x) && std::isfinite(u.rotation.y) &&
         std::isfinite(u.rotation.z);
}
Pose pose(const urdf::Pose& u) {
  return {Quat(u.rotation.w, u.rotation.x, u.rotation.y, u.rotation.z).normalized(), vec(u.position)};
}

// liburdfdom reports through console_bridge (to stderr by default): its messages are collected
// while it parses. An error message fails the parse even when liburdfdom returns a robot (it drops
// an <inertial> whose mass does not parse, logging an error, and goes on); its warnings become the
// model's. console_bridge's handler is process-wide, so parses take turns.
class Collect : public console_bridge::OutputHandler {
 public:
  void log(const std::string& text, console_bridge::LogLevel level, const char*, int) override {
    if (level >= console_bridge::CONSOLE_BRIDGE_LOG_ERROR) errors.push_back(text);
    else if (level == console_bridge::CONSOLE_BRIDGE_LOG_WARN) warnings.push_back(text);
  }
  std::vector<std::string> errors, warnings;
};

urdf::ModelInterfaceSharedPtr parse_collecting(const std::string& text, std::vector<std::string>& errors, std::vector<std::string>& warnings) {
  static std::mutex mutex;
  const std::lock_guard<std::mutex> lock(mutex);
  Collect collect;
  console_bridge::useOutputHandler(&collect);
  urdf::ModelInterfaceSharedPtr robot;
  try {
    robot = urdf::parseURDF(text);
  } catch (const std::exception& e) {
    collect.errors.push_back(e.what());
    robot.reset();
  }
  console_bridge::restorePreviousOutputHandler();
  errors = std::move(collect.errors);
  warnings = std::move(collect.warnings);
  return robot;
}

// A symmetric inertia whose eigenvalues are >= 0 (to round-off): a point mass (inertia 0) or a
// thin rod (one moment 0) is one; welded to other links it adds to a positive definite sum.
// Round-off is measured against the largest moment, and at least against the moment of the mass
// at 1 mm (a point mass written with an off-diagonal 1e-20 is a point mass): a moment below 1e-9
// of either changes no motion in double precision.
bool positive_semidefinite(const Mat3& I, double mass) {
  const Eigen::SelfAdjointEigenSolver<Mat3> eig(I, Eigen::EigenvaluesOnly);
  const Vec3 e = eig.eigenvalues();
  return e.minCoeff() >= -1e-9 * std::max(e.cwiseAbs().maxCoeff(), mass * 1e-6);
}

// The checks of one link's inertial: finite numbers, mass >= 0, a positive semi-definite inertia
// when the mass is positive (the body of its group, the link with the links welded to it, may be
// singular: then check_mass_matrix), none when it is 0 (a massless frame). The links
// of the root's group with base=fixed are the world: their mass and inertia never enter the
// dynamics (PyBullet marks a fixed base by a root of mass 0 with an inertia), only finite numbers
// and a mass >= 0 are checked. With base=free a root of mass 0 with an inertia is that mark, refused by name.
void check_link(const urdf::Link& link, const std::string& path, bool fixed_root, bool free_root, bool strict) {
  if (!link.inertial) return;
  const urdf::Inertial& in = *link.inertial;
  const std::string f = fmt::format("link[{}].inertial", link.name);
  if (!finite(in.origin)) throw InputError(path, 0, f + ".origin", "origin must be finite");
  if (!std::isfinite(in.mass)) throw InputError(path, 0, f + ".mass", fmt::format("mass must be finite, got {}", in.mass));
  Mat3 I;
  I << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
  if (!I.allFinite()) throw InputError(path, 0, f + ".inertia", "inertia must be finite");
  if (!(in.mass >= 0)) throw InputError(path, 0, f + ".mass", fmt::format("mass must be finite and non-negative, got {}", in.mass));
  if (fixed_root) return;
  if (free_root && in.mass == 0 && !I.isZero(0))
    throw InputError(path, 0, f + ".mass",
                     fmt::format("base=free: the root link '{}' has mass 0 and an inertia (PyBullet's mark of a fixed base); base=fixed ignores "
                                 "the root's mass and inertia", link.name));
  if (in.mass > 0 && !positive_semidefinite(I, in.mass))
    throw InputError(path, 0, f + ".inertia",
                     fmt::format("inertia is not positive definite (ixx {} iyy {} izz {} ixy {} ixz {} iyz {})", in.ixx, in.iyy, in.izz, in.ixy, in.ixz, in.iyz));
  // a massless link with an inertia (Drake and PyBullet keep it): its inertia joins its body's
  if (in.mass == 0 && !I.isZero(0) && (strict || !positive_semidefinite(I, 1.0)))
    throw InputError(path, 0, f + ".inertia",
                     strict ? "a link of mass 0 (a massless frame) must have inertia 0" : "the inertia of a link of mass 0 is not positive semi-definite");
}

// ball: a spherical or ball joint, or a root's floating joint, read by liburdfdom as floating
// (Conventions::balls, floating)
void check_joint(const urdf::Joint& j, const std::string& path, bool ball) {
  const std::string f = fmt::format("joint[{}]", j.name);
  switch (j.type) {
    case urdf::Joint::REVOLUTE:
    case urdf::Joint::CONTINUOUS:
    case urdf::Joint::PRISMATIC:
    case urdf::Joint::FIXED: break;
    case urdf::Joint::FLOATING:
      if (ball) break;
      [[fallthrough]];
    case urdf::Joint::PLANAR:
    default:
      throw InputError(path, 0, f + ".type",
                       fmt::format("a {} joint is not mapped (revolute, continuous, prismatic and fixed are)",
                                   j.type == urdf::Joint::PLANAR ? "planar" : j.type == urdf::Joint::FLOATING ? "floating" : "joint of unknown type"));
  }
  if (!finite(j.parent_to_joint_origin_transform)) throw InputError(path, 0, f + ".origin", "origin must be finite");
  if (j.type != urdf::Joint::FIXED && !ball) {
    const Vec3 axis = vec(j.axis);
    if (!axis.allFinite()) throw InputError(path, 0, f + ".axis", "axis must be finite");
    if (!(axis.norm() > 0)) throw InputError(path, 0, f + ".axis", "axis must be non-zero, got (0, 0, 0)");
  }
  if (j.limits && !(std::isfinite(j.limits->lower) && std::isfinite(j.limits->upper) && std::isfinite(j.limits->effort) &&
                    std::isfinite(j.limits->velocity)))
    throw InputError(path, 0, f + ".limit", "limits must be finite");
  if (j.dynamics && !(std::isfinite(j.dynamics->damping) && std::isfinite(j.dynamics->friction)))
    throw InputError(path, 0, f + ".dynamics", "damping and friction must be finite");
}

// A group of links welded together by fixed joints: one rigid body (or the world).
struct Group {
  std::string head;                      // the link the group starts at
  const urdf::Joint* joint = nullptr;    // the moving joint into the head (none: the root's group)
  int parent = -1;                       // the group the joint hangs from
  std::vector<size_t> links;             // indices into the link list
  int body = kWorld;
};

struct LinkFrame {
  const urdf::Link* link;
  int group;
  Pose frame;  // world, at the zero joint positions
};

}  // namespace

Model read_urdf(const std::string& path, const UrdfOptions& options) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "model", "cannot read the URDF file");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_urdf(s.str(), path, options);
}

Model parse_urdf(const std::string& text, const std::string& path, const UrdfOptions& options) {
  const Conventions conventions = normalise(text, path, options.strict);
  std::vector<std::string> errors, messages;
  const urdf::ModelInterfaceSharedPtr robot = parse_collecting(tinyxml_text(conventions.text), errors, messages);
  if (!robot || !errors.empty())
    throw InputError(path, 0, "", fmt::format("not a valid URDF robot: liburdfdom: {}", errors.empty() ? "(no message)" : join(errors, "; ")));
  // liburdfdom holds a link's children by shared pointers: links joined in a loop keep each other
  // alive after the robot is gone; their child lists are cleared when this function returns
  struct BreakLoops {
    urdf::ModelInterface& r;
    ~BreakLoops() {
      for (auto& entry : r.links_) entry.second->child_links.clear();
    }
  } break_loops{*robot};
  const urdf::LinkConstSharedPtr root = robot->getRoot();
  if (!root) throw InputError(path, 0, "", "the robot has no root link");
  // base=auto floats a lone object with a mass (a root of mass 0 is PyBullet's fixed base)
  const bool moving = std::any_of(robot->joints_.begin(), robot->joints_.end(),
                                  [](const auto& j) { return j.second && j.second->type != urdf::Joint::FIXED; });
  const bool massive = std::any_of(robot->links_.begin(), robot->links_.end(), [](const auto& l) {
    return l.second && l.second->inertial && l.second->inertial->mass > 0;
  });
  const urdf::Inertial* const ri = root->inertial.get();
  const bool fixed_mark = ri && ri->mass == 0 && (ri->ixx != 0 || ri->iyy != 0 || ri->izz != 0 || ri->ixy != 0 || ri->ixz != 0 || ri->iyz != 0);
  const bool free_base = options.free_base || (options.auto_base && !moving && massive && !fixed_mark);

  // the links depth first from the root, grouped by fixed joints; each link's frame in the world
  std::vector<LinkFrame> links;
  std::vector<Group> groups(1);
  groups[0].head = root->name;
  std::function<void(const urdf::Link&, const Pose&, int)> walk = [&](const urdf::Link& link, const Pose& frame, int g) {
    check_link(link, path, g == 0 && !free_base, g == 0 && free_base && &link == root.get(), options.strict);
    groups[static_cast<size_t>(g)].links.push_back(links.size());
    links.push_back({&link, g, frame});
    for (const urdf::JointSharedPtr& j : link.child_joints) {
      check_joint(*j, path, conventions.balls.count(j->name) > 0 || conventions.floating.count(j->name) > 0);
      const urdf::LinkConstSharedPtr child = robot->getLink(j->child_link_name);
      if (!child) throw InputError(path, 0, fmt::format("joint[{}].child", j->name), fmt::format("no link named '{}'", j->child_link_name));
      if (std::any_of(links.begin(), links.end(), [&](const LinkFrame& f) { return f.link == child.get(); }))
        throw InputError(path, 0, fmt::format("joint[{}].child", j->name),
                         fmt::format("link '{}' is reached a second time: the joints form a loop", j->child_link_name));
      int cg = g;
      if (j->type != urdf::Joint::FIXED) {
        Group n;
        n.head = child->name;
        n.joint = j.get();
        n.parent = g;
        groups.push_back(n);
        cg = static_cast<int>(groups.size()) - 1;
      }
      walk(*child, frame * pose(j->parent_to_joint_origin_transform), cg);
    }
  };
  walk(*root, Pose{}, 0);
  // every link hangs from the root: links whose joints form a loop of their own are not reached
  for (const auto& [name, link] : robot->links_) {
    const urdf::Link* const l = link.get();  // a structured binding is not captured by clang's C++20
    if (std::none_of(links.begin(), links.end(), [l](const LinkFrame& f) { return f.link == l; }))
      throw InputError(path, 0, fmt::format("link[{}]", name),
                       fmt::format("not connected to the root link '{}': its joints form a loop apart from the tree", root->name));
  }
  // a joint that moves no mass (idle_joints) is held, its links welded to its parent's: every other
  // body moves the same at any position of it (Drake refuses such a joint when it steps; PyBullet
  // gives a link without <inertial> 1 kg); strict=on refuses it (check_mass_matrix)
  std::vector<std::string> held;
  if (!options.strict) {
    std::set<std::string> coupled;
    for (const auto& [name, j] : robot->joints_)
      if (j && j->mimic) coupled.insert({name, j->mimic->joint_name});
    std::vector<urdf_import::GroupMass> mass(groups.size());
    for (size_t g = 1; g < groups.size(); ++g) {
      const urdf::Joint& j = *groups[g].joint;
      const Pose& head = links[groups[g].links.front()].frame;
      using Kind = urdf_import::GroupMass::Kind;
      mass[g].kind = conventions.floating.count(j.name) ? Kind::Free
                     : conventions.balls.count(j.name)  ? Kind::Ball
                     : j.type == urdf::Joint::PRISMATIC ? Kind::Slider
                                                        : Kind::Hinge;
      mass[g].parent = groups[g].parent;
      mass[g].coupled = coupled.count(j.name) > 0;
      mass[g].axis = head.q * vec(j.axis);
      mass[g].anchor = head.p;
    }
    for (const LinkFrame& L : links) {
      const urdf::Inertial* in = L.link->inertial.get();
      if (!in || L.group == 0) continue;
      const Pose f = L.frame * pose(in->origin);
      const Mat3 R = f.q.toRotationMatrix();
      Mat3 I;
      I << in->ixx, in->ixy, in->ixz, in->ixy, in->iyy, in->iyz, in->ixz, in->iyz, in->izz;
      urdf_import::GroupMass& G = mass[static_cast<size_t>(L.group)];
      G.mass += in->mass;
      G.moment += in->mass * f.p;
      G.second += R * I * R.transpose() + in->mass * (f.p.squaredNorm() * Mat3::Identity() - f.p * f.p.transpose());
    }
    const std::vector<bool> idle = urdf_import::idle_joints(mass);
    std::vector<size_t> rep(groups.size());  // the group each group's links join
    std::vector<int> index(groups.size(), -1);
    std::vector<Group> kept;
    for (size_t g = 0; g < groups.size(); ++g) {
      rep[g] = idle[g] ? rep[static_cast<size_t>(groups[g].parent)] : g;
      if (idle[g]) {
        if (mass[g].kind != urdf_import::GroupMass::Kind::Free) held.push_back(groups[g].joint->name);
        continue;
      }
      index[g] = static_cast<int>(kept.size());
      kept.push_back(groups[g]);
      kept.back().links.clear();
      if (g > 0) kept.back().parent = index[rep[static_cast<size_t>(groups[g].parent)]];
    }
    for (size_t k = 0; k < links.size(); ++k) {
      links[k].group = index[rep[static_cast<size_t>(links[k].group)]];
      kept[static_cast<size_t>(links[k].group)].links.push_back(k);
    }
    groups = std::move(kept);
  }

  Model m;
  m.gravity = Vec3(0, 0, -9.81);
  m.info.name = robot->getName();
  m.info.source = path;
  m.info.description = fmt::format("URDF robot '{}' from {}; {}", robot->getName(), path,
                                   free_base ? "a floating base" : "the root link fixed");
  m.info.duration = 5;
  m.info.default_h = 0.001;
  m.info.h_grid = default_h_grid();

  bool singular = false;  // a body with a singular inertia
  std::vector<std::string> spinning;  // massless links with an inertia (kept)
  std::vector<std::string> frames;    // massless links moved by a joint (massless frames)
  // each group's body: the mass, centre of mass and inertia of its links (parallel-axis theorem);
  // a group of one massive link keeps that link's inertial frame and numbers as they are
  for (size_t g = 0; g < groups.size(); ++g) {
    Group& G = groups[g];
    if (g == 0 && !free_base) continue;  // welded to the world: the world
    std::vector<std::pair<const urdf::Inertial*, Pose>> parts;  // inertial, its frame in the world
    for (size_t k : G.links) {
      const LinkFrame& L = links[k];
      if (L.link->inertial && L.link->inertial->mass > 0) parts.push_back({L.link->inertial.get(), L.frame * pose(L.link->inertial->origin)});
    }
    // massless links with an inertia: their moments only (no mass, no parallel-axis term)
    std::vector<std::pair<const urdf::Inertial*, Pose>> spins;
    for (size_t k : G.links) {
      const LinkFrame& L = links[k];
      const urdf::Inertial* in = L.link->inertial.get();
      if (in && in->mass == 0 && (in->ixx != 0 || in->iyy != 0 || in->izz != 0 || in->ixy != 0 || in->ixz != 0 || in->iyz != 0)) {
        spins.push_back({in, L.frame * pose(in->origin)});
        spinning.push_back(L.link->name);
      }
    }
    if (parts.empty() && spins.empty() && g > 0 && !options.strict) {  // a massless frame: the mass matrix decides
      const Pose& head = links[G.links.front()].frame;
      Body f;
      f.name = G.head;
      f.frame = true;
      f.position = head.p;
      f.orientation = head.q;
      frames.push_back(G.head);
      G.body = static_cast<int>(m.bodies.size());
      m.bodies.push_back(f);
      singular = true;
      continue;
    }
    if (parts.empty()) {
      if (g == 0)
        throw InputError(path, 0, fmt::format("link[{}]", G.head),
                         "base=free needs a mass on the root link or on a link fixed to it; they are all massless");
      throw InputError(path, 0, fmt::format("link[{}]", G.head),
                       fmt::format("the link moved by joint '{}' has no mass (an <inertial> with mass > 0, its own or a link's fixed to it)", G.joint->name));
    }
    Body b;
    const urdf::Inertial& first = *parts.front().first;
    const Pose& first_frame = parts.front().second;
    for (size_t k : G.links)
      if (links[k].link->inertial.get() == &first) b.name = links[k].link->name;
    b.orientation = first_frame.q;
    if (parts.size() == 1 && spins.empty()) {
      b.mass = first.mass;
      b.position = first_frame.p;
      b.inertia << first.ixx, first.ixy, first.ixz, first.ixy, first.iyy, first.iyz, first.ixz, first.iyz, first.izz;
    } else {
      double mass = 0;
      Vec3 moment = Vec3::Zero();
      for (const auto& [in, frame] : parts) {
        mass += in->mass;
        moment += in->mass * frame.p;
      }
      const Vec3 c = moment / mass;
      Mat3 I = Mat3::Zero();  // world axes, about c
      parts.insert(parts.end(), spins.begin(), spins.end());
      for (const auto& [in, frame] : parts) {
        Mat3 Ii;
        Ii << in->ixx, in->ixy, in->ixz, in->ixy, in->iyy, in->iyz, in->ixz, in->iyz, in->izz;
        const Mat3 R = frame.q.toRotationMatrix();
        const Vec3 d = frame.p - c;
        I += R * Ii * R.transpose() + in->mass * (d.squaredNorm() * Mat3::Identity() - d * d.transpose());
      }
      const Mat3 R = b.orientation.toRotationMatrix();
      const Mat3 Ib = R.transpose() * I * R;
      b.mass = mass;
      b.position = c;
      b.inertia = (Ib + Ib.transpose()) / 2;
    }
    if (!is_spd(b.inertia)) {
      // a point mass or a thin rod alone on its joint (or only such links welded): singular, its
      // moments of round-off size (check_link) 0; the joint-space mass matrix is checked below
      const Eigen::SelfAdjointEigenSolver<Mat3> eig(b.inertia);
      const Mat3 V = eig.eigenvectors();
      b.inertia = V * eig.eigenvalues().cwiseMax(0.0).asDiagonal() * V.transpose();
      b.inertia = (b.inertia + b.inertia.transpose()) / 2;
      singular = true;
    }
    G.body = static_cast<int>(m.bodies.size());
    m.bodies.push_back(b);
  }

  // a body's frame (world for kWorld) and a world pose in it
  auto body_frame = [&](int k) {
    if (k == kWorld) return Pose{};
    const Body& o = m.bodies[static_cast<size_t>(k)];
    return Pose{o.orientation, o.position};
  };

  // the moving joints, between the bodies of their groups, at the joint frame's origin
  std::vector<std::string> limited, dynamics, mimic;
  std::vector<int> free_bodies;
  for (size_t g = 1; g < groups.size(); ++g) {
    const Group& G = groups[g];
    const urdf::Joint& j = *G.joint;
    const LinkFrame& child = links[G.links.front()];  // the head: its frame is the joint frame
    Joint J;
    J.name = j.name;
    J.a = groups[static_cast<size_t>(G.parent)].body;
    J.b = G.body;
    if (conventions.floating.count(j.name)) {  // a root that no joint holds: a free body
      free_bodies.push_back(G.body);
      continue;
    }
    const bool ball = conventions.balls.count(j.name) > 0;
    J.type = ball ? JointType::Ball : j.type == urdf::Joint::PRISMATIC ? JointType::Slider : JointType::Hinge;
    const Pose fa = body_frame(J.a).inverse(), fb = body_frame(J.b).inverse();
    const Vec3 axis = child.frame.q * (ball ? Vec3::UnitZ() : vec(j.axis).normalized());
    J.anchor_a = fa.q * child.frame.p + fa.p;
    J.anchor_b = fb.q * child.frame.p + fb.p;
    J.axis_a = fa.q * axis;
    J.axis_b = fb.q * axis;
    J.rel_orientation = fa.q * m.bodies[static_cast<size_t>(J.b)].orientation;
    if (options.limits && j.limits && j.type != urdf::Joint::CONTINUOUS && !conventions.unlimited.count(j.name)) {
      if (j.limits->lower > j.limits->upper)
        throw InputError(path, 0, fmt::format("joint[{}].limit.lower", j.name),
                         fmt::format("lower ({}) is above upper ({})", j.limits->lower, j.limits->upper));
      if (j.limits->lower < j.limits->upper) {
        J.lower = j.limits->lower;
        J.upper = j.limits->upper;
      } else {
        limited.push_back(j.name);
      }
    }
    if (options.damping && j.dynamics) {
      if (!(j.dynamics->damping >= 0))
        throw InputError(path, 0, fmt::format("joint[{}].dynamics.damping", j.name),
                         fmt::format("damping must be non-negative, got {}", j.dynamics->damping));
      J.damping = j.dynamics->damping;
    }
    m.joints.push_back(J);
  }
  for (const LinkFrame& L : links) {
    const urdf::JointSharedPtr& j = L.link->parent_joint;
    if (!j) continue;
    const bool moving = j->type != urdf::Joint::FIXED;
    if (j->dynamics && options.damping && moving && j->dynamics->friction != 0)
      dynamics.push_back(fmt::format("{} (friction {})", j->name, j->dynamics->friction));
    else if (j->dynamics && !options.damping && (j->dynamics->damping != 0 || j->dynamics->friction != 0))
      dynamics.push_back(fmt::format("{} (damping {}, friction {})", j->name, j->dynamics->damping, j->dynamics->friction));
    if (j->mimic) mimic.push_back(j->name);
  }
  add_mimics(*robot, mimic, text, path, options.strict, m);
  if (!spinning.empty())
    m.info.warnings.push_back(fmt::format("{}: links of mass 0 with an inertia: the inertia joins their body's (Drake's and PyBullet's "
                                          "reading): {}; strict=on refuses it",
                                          path, join(spinning, ", ")));
  if (!frames.empty())
    m.info.warnings.push_back(fmt::format("{}: links of mass 0 moved by a joint are massless frames (GC4, ref and the engines take them, "
                                          "where the joint-space mass matrix is regular): {}; strict=on refuses it", path, join(frames, ", ")));
  if (!held.empty())
    m.info.warnings.push_back(fmt::format("{}: joints that move no mass (the links beyond them massless, or their mass on a hinge's axis or "
                                          "at a ball's centre) are held at 0, their links welded: {}; strict=on refuses them", path, join(held, ", ")));
  if (free_base) free_bodies.push_back(groups[0].body);
  const std::vector<std::string> points = urdf_import::free_bodies(m, free_bodies, free_base ? groups[0].body : -2, options.strict, path);
  if (!points.empty())
    m.info.warnings.push_back(fmt::format("{}: a free body of inertia 0 (a point mass) translates without turning, on sliders along x, y, z "
                                          "through massless frames: {}; strict=on refuses it", path, join(points, ", ")));
  const bool root_free = free_base && std::none_of(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.b == groups[0].body; });
  if (singular) check_mass_matrix(m, root_free, path);

  // every link's frame by name, in its body's frame
  for (const LinkFrame& L : links) {
    const int body = groups[static_cast<size_t>(L.group)].body;
    const Pose p = body_frame(body).inverse() * L.frame;
    m.info.frames.push_back({L.link->name, body, p.p, p.q.normalized()});
  }

  if (options.collisions) {
    std::unordered_set<std::string> shape_names;
    for (const LinkFrame& L : links) {
      std::vector<urdf::CollisionSharedPtr> collisions = L.link->collision_array;
      if (collisions.empty() && L.link->collision) collisions.push_back(L.link->collision);
      const int body = groups[static_cast<size_t>(L.group)].body;
      for (size_t i = 0; i < collisions.size(); ++i) {
        const urdf::Collision& c = *collisions[i];
        const std::string f = fmt::format("link[{}].collision[{}]", L.link->name, i);
        if (!finite(c.origin)) throw InputError(path, 0, f + ".origin", "origin must be finite");
        if (!c.geometry) throw InputError(path, 0, f + ".geometry", "no geometry");
        Shape sh;
        // a collision's name, unless another collision took it (URDF does not make them unique): then
        // its link's name and index, as for an unnamed one
        const std::string indexed = collisions.size() == 1 ? L.link->name : fmt::format("{}/{}", L.link->name, i);
        sh.name = !c.name.empty() && !shape_names.count(c.name) ? c.name : indexed;
        if (!shape_names.insert(sh.name).second)
          throw InputError(path, 0, f + ".name", fmt::format("the shape name '{}' is taken by another collision's name", sh.name));
        sh.body = body;
        const Pose p = body_frame(body).inverse() * L.frame * pose(c.origin);
        sh.position = p.p;
        sh.orientation = p.q.normalized();
        switch (c.geometry->type) {
          case urdf::Geometry::BOX:
            sh.type = ShapeType::Box;
            sh.half_extents = vec(static_cast<const urdf::Box&>(*c.geometry).dim) / 2;
            break;
          case urdf::Geometry::SPHERE:
            sh.type = ShapeType::Sphere;
            sh.radius = static_cast<const urdf::Sphere&>(*c.geometry).radius;
            break;
          case urdf::Geometry::CYLINDER: {  // or a capsule (Conventions): the length of its cylinder between the caps
            const auto& cyl = static_cast<const urdf::Cylinder&>(*c.geometry);
            sh.type = conventions.capsules.count({L.link->name, i}) ? ShapeType::Capsule : ShapeType::Cylinder;
            sh.radius = cyl.radius;
            sh.length = cyl.length;
            break;
          }
          case urdf::Geometry::MESH: {  // its convex hull, scaled
            const auto& mesh = static_cast<const urdf::Mesh&>(*c.geometry);
            const auto at = conventions.mesh_lines.find({L.link->name, i});
            const int mesh_line = at == conventions.mesh_lines.end() ? 0 : at->second;
            if (!options.meshes)
              throw InputError(path, mesh_line, f + ".geometry",
                               fmt::format("a mesh ('{}') is not mapped: collisions=primitives maps boxes, spheres, cylinders and capsules, "
                                           "collisions=all meshes too", mesh.filename));
            const std::string file = mesh_file(mesh.filename, path);
            auto refuse = [&](const std::string& why) {
              throw InputError(path, mesh_line, f + ".geometry.mesh",
                               fmt::format("mesh '{}': {}{}", mesh.filename, why, file.empty() || file == mesh.filename ? "" : " (" + file + ")"));
            };
            if (file.empty()) refuse("no such package: neither the URDF file's folder nor an ancestor is named so or holds a folder so named");
            if (!is_file(file)) refuse("no such file");
            if (!vec(mesh.scale).allFinite() || !(vec(mesh.scale).minCoeff() > 0))
              refuse(fmt::format("scale must be positive, got ({}, {}, {})", mesh.scale.x, mesh.scale.y, mesh.scale.z));
            try {
              ConvexHull hull = mesh_hull(file, vec(mesh.scale));
              sh.type = ShapeType::Convex;
              sh.vertices = std::move(hull.vertices);
              sh.faces = std::move(hull.faces);
            } catch (const MeshError& e) {
              refuse(e.what());
            }
            break;
          }
          default: throw InputError(path, 0, f + ".geometry", "a geometry of unknown type");
        }
        m.shapes.push_back(sh);
      }
    }
    if (!m.shapes.empty() || options.floor != UrdfOptions::Floor::Off) {
      Material mat;
      mat.name = "urdf";
      mat.mu_static = mat.mu_dynamic = options.friction;
      m.materials.push_back(mat);
    }
    if (options.floor != UrdfOptions::Floor::Off) {
      double z = options.floor_height;
      if (options.floor == UrdfOptions::Floor::Lowest) {
        if (m.shapes.empty()) throw InputError(path, 0, "floor", "floor=on puts the floor under the collision shapes, and the robot has none");
        z = lowest_shape_point(m, initial_state(m));
      }
      Shape floor;
      floor.name = "floor";
      floor.type = ShapeType::HalfSpace;
      floor.body = kWorld;
      floor.position = Vec3(0, 0, z);
      floor.orientation = Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()));  // its normal, the y axis, turned to +z
      m.shapes.push_back(floor);
      m.info.energy_conserved = false;
    }
  }

  if (!limited.empty())
    m.info.warnings.push_back(fmt::format("{}: a <limit> of zero width is read as no limit: {}", path, join(limited, ", ")));
  if (!dynamics.empty())
    m.info.warnings.push_back(options.damping ? fmt::format("{}: joint friction is not modelled: {}", path, join(dynamics, ", "))
                                              : fmt::format("{}: joint damping and friction are not modelled (damping=on applies the damping): {}",
                                                            path, join(dynamics, ", ")));
  if (has_joint_dampers(m)) m.info.energy_conserved = false;
  for (const std::string& w : messages) m.info.warnings.push_back(fmt::format("{}: liburdfdom: {}", path, w));
  m.info.warnings.insert(m.info.warnings.end(), conventions.warnings.begin(), conventions.warnings.end());
  if (free_base && !options.free_base)
    m.info.warnings.push_back(fmt::format("{}: base=auto: no joint moves a link, so the robot floats (base=fixed bolts it)", path));
  if (m.bodies.empty() && options.auto_base && !options.strict) {  // PyBullet's static object: nothing moves
    m.info.warnings.push_back(fmt::format("{}: base=auto: a static object, nothing moves: no joint moves a mass, and the root is fixed",
                                          path));
    check_model(m, path);
    return m;
  }
  if (m.bodies.empty())
    throw InputError(path, 0, "",
                     massive ? "the robot has no moving link (every link is welded to the fixed root; base=free floats it)"
                             : "the robot has no moving link: no joint moves a link and no link has a mass (a static object)");
  check_model(m, path);
  return m;
}

#endif

}  // namespace mb
