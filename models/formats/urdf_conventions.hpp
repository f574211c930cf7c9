// URDF import: the conventions of Drake's and PyBullet's URDF that liburdfdom refuses, found and
// rewritten before liburdfdom reads the file (models/formats/urdf.cpp). Used only where
// MBBENCH_WITH_URDF is set.
#pragma once
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

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

// items joined by sep (the warnings' lists)
inline std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : sep) + i;
  return s;
}

}  // namespace mb::urdf_import
