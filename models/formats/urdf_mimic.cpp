// URDF import: <mimic> as couplings of joints (urdf_conventions.hpp add_mimics).
#ifdef MBBENCH_WITH_URDF
#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <urdf_model/model.h>

#include "core/error.hpp"
#include "models/formats/urdf_conventions.hpp"
#include "models/formats/xml_numbers.hpp"
#include "models/model.hpp"

namespace mb::urdf_import {

void add_mimics(const urdf::ModelInterface& robot, const std::vector<std::string>& mimic, const std::string& text, const std::string& path,
                bool strict, Model& m) {
  // <mimic joint="b" multiplier="m" offset="o"/> on joint a: q_a = m q_b + o, a coupling (every
  // joint is at 0 at the start, so the offset is 0)
  std::vector<std::string> idle_mimics;
  for (const std::string& a : mimic) {
    const auto& mi = robot.getJoint(a)->mimic;
    const int line = xml_element_line(text, "joint", a);
    const std::string f = fmt::format("joint[{}].mimic", a);
    auto index = [&](const std::string& name) {
      const auto it = std::find_if(m.joints.begin(), m.joints.end(), [&](const Joint& j) { return j.name == name; });
      return it == m.joints.end() ? -1 : static_cast<int>(it - m.joints.begin());
    };
    JointCoupling c;
    c.name = a + ":mimic";
    c.a = index(a);
    c.b = index(mi->joint_name);
    c.multiplier = mi->multiplier;
    c.offset = mi->offset;
    // a mimic that couples no two coordinates (PyBullet reads no mimic; Drake warns): ignored, or
    // refused with strict=on
    const auto idle = [&](const std::string& field, const std::string& why) {
      if (strict) throw InputError(path, line, field, why);
      idle_mimics.push_back(why);
    };
    if (c.a < 0) {
      idle(f, fmt::format("joint '{}' is fixed: only a moving joint mimics another", a));
      continue;
    }
    if (c.b < 0) {
      idle(f + ".joint", robot.getJoint(mi->joint_name) ? fmt::format("joint '{}' mimics '{}', a fixed joint", a, mi->joint_name)
                                                         : fmt::format("joint '{}' mimics '{}': no such joint", a, mi->joint_name));
      continue;
    }
    if (c.a == c.b) throw InputError(path, line, f + ".joint", fmt::format("joint '{}' mimics itself", a));
    if (!std::isfinite(c.multiplier)) throw InputError(path, line, f + ".multiplier", fmt::format("multiplier must be finite, got {}", c.multiplier));
    if (!(std::abs(c.offset) <= kCouplingStartTolerance))
      throw InputError(path, line, f + ".offset",
                       fmt::format("offset {} breaks the mimic at the start, where every joint is at 0; only offset 0 is mapped", c.offset));
    for (const JointCoupling& o : m.couplings)
      if (o.a == c.b && o.b == c.a)
        throw InputError(path, line, f + ".joint", fmt::format("joints '{}' and '{}' mimic each other", a, mi->joint_name));
    m.couplings.push_back(c);
  }
  if (!idle_mimics.empty())
    m.info.warnings.push_back(fmt::format("{}: a <mimic> that couples no two moving joints is ignored: {}; strict=on refuses it", path,
                                          join(idle_mimics, "; ")));
}

}  // namespace mb::urdf_import

#endif
