// The [[coupling]] table of a scene (models/model.hpp JointCoupling), read by SceneBuilder.
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/formats/scene_builder.hpp"

namespace mb {

namespace {
const std::vector<std::string> kCouplingKeys = {"name", "joint", "follows", "multiplier", "offset"};
}  // namespace

void SceneBuilder::coupling(const toml::table& t) {
  const size_t i = m.couplings.size();
  TableReader r(t, file, fmt::format("coupling[{}]", i), kCouplingKeys);
  JointCoupling c;
  c.name = r.str("name", fmt::format("coupling{}", i + 1));
  if (!coupling_names.insert(c.name).second)
    r.fail("name", r.has("name") ? fmt::format("duplicated coupling name '{}'", c.name)
                                 : fmt::format("this coupling has no name and its default name '{}' is another coupling's; name it", c.name));
  if (joint_index.size() != m.joints.size()) {  // the joints are all read before the couplings
    joint_index.clear();
    for (size_t k = 0; k < m.joints.size(); ++k) joint_index.emplace(m.joints[k].name, static_cast<int>(k));
  }
  const auto coupled = [&](const char* key) {
    const std::string name = r.str(key);
    const auto it = joint_index.find(name);
    if (it == joint_index.end()) r.fail(key, fmt::format("no joint named '{}'", name));
    const Joint& j = m.joints[static_cast<size_t>(it->second)];
    if (j.type != JointType::Hinge && j.type != JointType::Slider)
      r.fail(key, fmt::format("joint '{}' is a {} joint; a coupling joins hinges and sliders", name, joint_type_name(j.type)));
    return it->second;
  };
  c.a = coupled("joint");
  c.b = coupled("follows");
  if (c.a == c.b) r.fail("follows", "a joint coupled to itself");
  for (const JointCoupling& o : m.couplings)
    if (o.a == c.a) r.fail("joint", fmt::format("joint '{}' follows another joint already (coupling '{}')", r.str("joint"), o.name));
  c.multiplier = r.num("multiplier", 1.0);
  c.offset = r.num("offset", 0.0);
  if (!(std::abs(c.offset) <= kCouplingStartTolerance))
    r.fail("offset", fmt::format("offset {} breaks the coupling at the initial state, where both coordinates are 0; it must be 0", c.offset));
  m.couplings.push_back(std::move(c));
}

}  // namespace mb
