// A chain whose joints start broken (schmitt2003 s.3: "the correction method can even fix a model
// which has totally broken joints"): the box chain of chain:body=box with hinges about z below its
// first ball joint, every body then moved off its joints by a fixed pattern of displacements and
// rotations, at most `displace` and `rotate`. The joints' error at the start is the model feature
// "broken joints" (methods/method.hpp): only a method that corrects positions claims it.
#include <cmath>

#include <fmt/format.h>

#include "models/catalog.hpp"

namespace mb {

Model build_broken_chain(const Spec& s) {
  const long n = s.get_int("n", 6);
  const double displace = s.get_double("displace", 0.5), rotate = s.get_double("rotate", 90);
  Model m = make_box_chain({static_cast<int>(n), 0.3}, s.text());
  for (size_t i = 1; i < m.joints.size(); ++i) {
    m.joints[i].type = JointType::Hinge;
    m.joints[i].axis_a = m.joints[i].axis_b = Vec3::UnitZ();  // the bodies' frames share their axes at the start
  }
  // body i: moved along a direction that turns with i, by displace at odd i and displace / 2 at
  // even i, and turned about another such direction by rotate (odd) or rotate / 2 (even) degrees
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const double k = static_cast<double>(i), f = i % 2 == 0 ? 1.0 : 0.5;
    const Vec3 d = Vec3(std::sin(1.3 * k + 0.1), std::cos(2.1 * k), std::sin(0.7 * k + 1.0)).normalized();
    const Vec3 axis = Vec3(std::cos(0.9 * k + 0.4), std::sin(1.7 * k + 0.3), std::cos(0.5 * k + 2.0)).normalized();
    Body& b = m.bodies[i];
    b.position += f * displace * d;
    b.orientation = (Quat(Eigen::AngleAxisd(f * rotate * M_PI / 180, axis)) * b.orientation).normalized();
  }
  m.info.description = fmt::format(
      "{} boxes 0.04 x 0.3 x 0.04 m hung from the origin by a ball joint and joined by hinges (axis z), stretched to +x, "
      "every body then moved off its joints by up to {} m and turned by up to {} degrees; at rest",
      n, displace, rotate);
  m.info.source = "schmitt2003 (repair)";
  return m;
}

}  // namespace mb
