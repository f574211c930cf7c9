#include "methods/constraints/body_split.hpp"

#include <fmt/format.h>

namespace mb {

BodySplit split_bodies(const Model& model, int max_joints) {
  BodySplit s;
  s.model = model;
  const size_t nb = model.bodies.size();
  s.parts.resize(nb);
  for (size_t b = 0; b < nb; ++b) s.parts[b] = {static_cast<int>(b)};
  if (max_joints < 1) return s;
  // the joints of each body, in model order
  std::vector<std::vector<int>> joints_of(nb);
  for (size_t j = 0; j < model.joints.size(); ++j)
    for (int side : {model.joints[j].a, model.joints[j].b})
      if (side >= 0) joints_of[static_cast<size_t>(side)].push_back(static_cast<int>(j));
  for (size_t b = 0; b < nb; ++b) {
    const Body& body = model.bodies[b];
    const auto& js = joints_of[b];
    if (body.is_static || body.particle || static_cast<int>(js.size()) <= max_joints) continue;
    const int np = static_cast<int>((js.size() + static_cast<size_t>(max_joints) - 1) / static_cast<size_t>(max_joints));
    ++s.split_bodies;
    s.model.bodies[b].mass = body.mass / np;
    s.model.bodies[b].inertia = body.inertia / np;
    for (int k = 1; k < np; ++k) {
      Body part = s.model.bodies[b];
      part.name = fmt::format("{}#{}", body.name, k);
      s.parts[b].push_back(static_cast<int>(s.model.bodies.size()));
      s.model.bodies.push_back(part);
      Joint fix;
      fix.name = fmt::format("{}#split{}", body.name, k);
      fix.type = JointType::Fixed;
      fix.a = s.parts[b][static_cast<size_t>(k - 1)];
      fix.b = s.parts[b][static_cast<size_t>(k)];
      s.model.joints.push_back(fix);
    }
    // joint i of the body (in model order) to part i / max_joints
    for (size_t i = 0; i < js.size(); ++i) {
      Joint& j = s.model.joints[static_cast<size_t>(js[i])];
      const int part = s.parts[b][i / static_cast<size_t>(max_joints)];
      if (j.a == static_cast<int>(b)) j.a = part;
      else j.b = part;
    }
  }
  return s;
}

void expand_state(const BodySplit& split, const State& original, State& out) {
  out.t = original.t;
  out.bodies.resize(split.model.bodies.size());
  for (size_t b = 0; b < split.parts.size(); ++b)
    for (int p : split.parts[b]) out.bodies[static_cast<size_t>(p)] = original.bodies[b];
}

void collapse_state(const BodySplit& split, const State& parts, State& out) {
  out.t = parts.t;
  for (size_t b = 0; b < split.parts.size(); ++b) {
    const auto& ps = split.parts[b];
    BodyState s = parts.bodies[static_cast<size_t>(ps[0])];
    if (ps.size() > 1) {
      s.x.setZero(), s.v.setZero(), s.w.setZero();
      for (int p : ps) {
        const BodyState& x = parts.bodies[static_cast<size_t>(p)];
        s.x += x.x, s.v += x.v, s.w += x.w;
      }
      const double n = static_cast<double>(ps.size());
      s.x /= n, s.v /= n, s.w /= n;
    }
    out.bodies[b] = s;
  }
}

void SplitMethod::do_init(const Model& model, const State& state) {
  split_ = split_bodies(model, max_joints_);
  expand_state(split_, state, parts_);
  inner_->init(split_.model, parts_);
}

void SplitMethod::do_step(const Model&, State& state, double h, StepStats& stats) {
  inner_->step(split_.model, parts_, h, stats);
  collapse_state(split_, parts_, state);
}

}  // namespace mb
