// URDF import: the conventions of Drake's and PyBullet's URDF that liburdfdom refuses, found and
// rewritten before liburdfdom reads the file (models/formats/urdf.cpp). Used only where
// MBBENCH_WITH_URDF is set.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <Eigen/Core>

namespace urdf {
class ModelInterface;
}

namespace mb {
struct Model;
}

namespace mb::urdf_import {

// The conventions of Drake's and PyBullet's URDF that liburdfdom refuses, rewritten on TinyXML's DOM
// (liburdfdom's own XML library) into what liburdfdom reads, each named in one warning line; what
// the rewrite cannot say in URDF (a capsule, a prismatic joint without limits) is kept here for the
// mapping. The file's numbers are checked first, with strict=on too (xml_numbers.hpp).
struct Conventions {
  std::string text;                                   // for liburdfdom
  std::vector<std::string> warnings;                  // one line per convention found
  std::set<std::pair<std::string, size_t>> capsules;  // (link, index among its <collision>s)
  std::set<std::string> unlimited;                    // joints whose <limit> is none
  std::set<std::string> balls;                        // spherical (Bullet's) and ball (Drake's) joints, rewritten as floating
  std::set<std::string> floating;                     // joints from 'world' to the links no joint holds: free bodies
  std::map<std::pair<std::string, size_t>, int> mesh_lines;  // (link, collision index): its <mesh>'s line
};

// The file's text with the conventions rewritten, each named in a warning (strict: the text as it
// is, liburdfdom's reading alone); InputError naming the file for a number that is not one
// (xml_numbers.hpp), strict or not.
Conventions normalise(const std::string& text, const std::string& path, bool strict);

// The <mimic>s of the joints named in `mimic` (robot's, `text` the file's text for their lines) as
// couplings of m's joints: q_a = m q_b + o, o = 0 (every joint is at 0 at the start). A mimic that
// couples no two moving joints is ignored, named in one warning (strict: refused).
void add_mimics(const urdf::ModelInterface& robot, const std::vector<std::string>& mimic, const std::string& text, const std::string& path,
                bool strict, Model& m);

// With a body of singular inertia or a massless frame among m's bodies: InputError naming the
// joint (or the free base's axis) where the joint-space mass matrix at the initial pose is
// singular, the Cholesky pivot of its motion with the ones before it held zero.
void check_mass_matrix(const Model& m, bool free_base, const std::string& path);

// The file a <mesh filename> names, as ROS tools find it: a plain path relative to the URDF file's
// folder; file://PATH; package://PKG/REST in the nearest folder named PKG (urdf_conventions.cpp).
// Empty when there is no such package.
std::string mesh_file(const std::string& filename, const std::string& urdf_path);

// A group of links welded together, for idle_joints: the joint into it (none for the root's group),
// the group it hangs from (a lower index), and its links' mass about the world origin.
struct GroupMass {
  enum class Kind { Root, Hinge, Slider, Ball, Free } kind = Kind::Root;
  int parent = -1;
  bool coupled = false;  // a <mimic> names the joint
  Eigen::Vector3d axis = Eigen::Vector3d::Zero(), anchor = Eigen::Vector3d::Zero();  // the joint's, in the world
  double mass = 0;
  Eigen::Vector3d moment = Eigen::Vector3d::Zero();  // sum of m x
  Eigen::Matrix3d second = Eigen::Matrix3d::Zero();  // the inertia about the world origin, world axes
};

// Which joints move no mass, leaves first: a joint whose group, with the groups of its idle
// descendants welded to it, is massless (a slider), has all its mass on the axis (a hinge) or at the
// centre (a ball). Its motion changes no other body's, at any pose: the joint can be held. A free
// group of mass 0 (PyBullet's fixed base) is welded too, whatever hangs from it.
std::vector<bool> idle_joints(std::vector<GroupMass> groups);

// The free bodies of m (the floating base `root`, the roots Drake floats): one that no joint touches
// and is a point mass (inertia 0) translates without turning, on sliders along the world's x, y, z
// through two massless frames "<body>/x" and "<body>/y" (its orientation moves no mass; not with
// strict). Another of singular inertia is refused (InputError naming it), but for the floating
// base: check_mass_matrix. Returns the names of the point masses.
std::vector<std::string> free_bodies(Model& m, const std::vector<int>& bodies, int root, bool strict, const std::string& path);

// items joined by sep (the warnings' lists)
inline std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

}  // namespace mb::urdf_import
