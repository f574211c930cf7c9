#include "models/urdf.hpp"

#include <fmt/format.h>

#include "core/error.hpp"

#ifdef MBBENCH_WITH_URDF
#include <fstream>
#include <functional>
#include <sstream>

#include <urdf_parser/urdf_parser.h>
#endif

namespace mb {

#ifndef MBBENCH_WITH_URDF

bool urdf_supported() { return false; }
Model read_urdf(const std::string& path) { return parse_urdf("", path); }
Model parse_urdf(const std::string&, const std::string& path) {
  throw InputError(path, 0, "model", "this mbbench was built without liburdfdom (MBBENCH_WITH_URDF): it cannot read URDF");
}

#else

bool urdf_supported() { return true; }

namespace {

Quat quat(const urdf::Rotation& r) { return Quat(r.w, r.x, r.y, r.z).normalized(); }
Vec3 vec(const urdf::Vector3& v) { return Vec3(v.x, v.y, v.z); }

}  // namespace

Model read_urdf(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw InputError(path, 0, "model", "cannot read the URDF file");
  std::ostringstream s;
  s << in.rdbuf();
  return parse_urdf(s.str(), path);
}

Model parse_urdf(const std::string& text, const std::string& path) {
  const urdf::ModelInterfaceSharedPtr robot = urdf::parseURDF(text);
  if (!robot) throw InputError(path, 0, "model", "not a valid URDF robot (liburdfdom's parser refused it; its message is above)");
  Model m;
  m.gravity = Vec3(0, 0, -9.81);
  m.info.name = robot->getName();
  m.info.source = path;
  m.info.description = fmt::format("URDF robot '{}' from {}; the root link fixed", robot->getName(), path);
  m.info.duration = 5;
  m.info.default_h = 0.001;
  m.info.h_grid = default_h_grid();
  // link frames in world coordinates at the zero joint positions, depth first from the fixed root
  struct Frame {
    Quat q;
    Vec3 p;
  };
  std::function<void(const urdf::LinkConstSharedPtr&, const Frame&, int)> add;
  add = [&](const urdf::LinkConstSharedPtr& link, const Frame& frame, int body) {
    for (const urdf::JointSharedPtr& j : link->child_joints) {
      const urdf::LinkConstSharedPtr child = robot->getLink(j->child_link_name);
      const Frame jf{frame.q * quat(j->parent_to_joint_origin_transform.rotation),
                     frame.p + frame.q * vec(j->parent_to_joint_origin_transform.position)};
      if (!child->inertial || !(child->inertial->mass > 0))
        throw InputError(path, 0, "model", fmt::format("link '{}' has no inertial with a positive mass (a moving link needs one)", child->name));
      const urdf::Inertial& in = *child->inertial;
      Body b;
      b.name = child->name;
      b.mass = in.mass;
      b.inertia << in.ixx, in.ixy, in.ixz, in.ixy, in.iyy, in.iyz, in.ixz, in.iyz, in.izz;
      b.orientation = jf.q * quat(in.origin.rotation);
      b.position = jf.p + jf.q * vec(in.origin.position);
      const int index = static_cast<int>(m.bodies.size());
      m.bodies.push_back(b);
      Joint J;
      J.name = j->name;
      J.a = body;
      J.b = index;
      // the joint point and axis in each body's frame (world coordinates for the world)
      auto local_point = [&](int k, const Vec3& p) {
        if (k == kWorld) return p;
        const Body& o = m.bodies[static_cast<size_t>(k)];
        return Vec3(o.orientation.conjugate() * (p - o.position));
      };
      auto local_axis = [&](int k, const Vec3& d) {
        return k == kWorld ? d : Vec3(m.bodies[static_cast<size_t>(k)].orientation.conjugate() * d);
      };
      const Vec3 axis = vec(j->axis).norm() > 0 ? Vec3(jf.q * vec(j->axis).normalized()) : Vec3(jf.q * Vec3::UnitX());
      J.anchor_a = local_point(body, jf.p);
      J.anchor_b = local_point(index, jf.p);
      J.axis_a = local_axis(body, axis);
      J.axis_b = local_axis(index, axis);
      const Quat qa = body == kWorld ? Quat::Identity() : m.bodies[static_cast<size_t>(body)].orientation;
      J.rel_orientation = qa.conjugate() * b.orientation;
      switch (j->type) {
        case urdf::Joint::REVOLUTE:
        case urdf::Joint::CONTINUOUS: J.type = JointType::Hinge; break;
        case urdf::Joint::PRISMATIC: J.type = JointType::Slider; break;
        case urdf::Joint::FIXED: J.type = JointType::Fixed; break;
        default:
          throw InputError(path, 0, "model", fmt::format("joint '{}': only revolute, continuous, prismatic and fixed joints are mapped", j->name));
      }
      m.joints.push_back(J);
      add(child, jf, index);
    }
  };
  add(robot->getRoot(), Frame{Quat::Identity(), Vec3::Zero()}, kWorld);
  if (m.bodies.empty()) throw InputError(path, 0, "model", "the robot has no moving link");
  check_model(m, path);
  return m;
}

#endif

}  // namespace mb
