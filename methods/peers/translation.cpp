#include "methods/peers/translation.hpp"

#include <algorithm>
#include <deque>

#include <Eigen/Eigenvalues>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/actuators.hpp"
#include "models/kinematics.hpp"

namespace mb {

std::vector<PeerJoint> peer_joints(const Model& model, const State& state) {
  std::vector<PeerJoint> out;
  out.reserve(model.joints.size());
  auto dynamic = [&](int b) { return b >= 0 && !model.bodies[static_cast<size_t>(b)].is_static; };
  // a point (axis) of body b's frame in world coordinates; kWorld: already world
  auto point = [&](int b, const Vec3& p) {
    if (b < 0) return p;
    const BodyState& s = state.bodies[static_cast<size_t>(b)];
    return Vec3(s.x + s.q * p);
  };
  auto axis = [&](int b, const Vec3& d) {
    const Vec3 u = b < 0 ? d : Vec3(state.bodies[static_cast<size_t>(b)].q * d);
    return Vec3(u.normalized());
  };
  for (size_t k = 0; k < model.joints.size(); ++k) {
    const Joint& j = model.joints[k];
    PeerJoint p;
    p.index = static_cast<int>(k);
    p.type = j.type;
    p.anchor_a = point(j.a, j.anchor_a);
    p.anchor_b = point(j.b, j.anchor_b);
    p.axis_a = axis(j.a, j.axis_a);
    p.axis_b = axis(j.b, j.axis_b);
    p.length = j.length;
    p.a = dynamic(j.a) ? j.a : kWorld;
    p.b = dynamic(j.b) ? j.b : kWorld;
    out.push_back(p);
  }
  return out;
}

void require_joint_types(const Model& model, const std::string& engine, const std::vector<JointType>& types) {
  std::string names;
  for (JointType t : types) names += (names.empty() ? "" : ", ") + std::string(joint_type_name(t));
  for (const Joint& j : model.joints) {
    if (std::find(types.begin(), types.end(), j.type) == types.end())
      throw UnsupportedModel(fmt::format("{} cannot express joint '{}' of type {} (it maps: {})", engine, j.name,
                                         joint_type_name(j.type), names));
    auto fixed = [&](int b) { return b < 0 || model.bodies[static_cast<size_t>(b)].is_static; };
    if (fixed(j.a) && fixed(j.b))
      throw UnsupportedModel(fmt::format("{} cannot express joint '{}' between two fixed bodies", engine, j.name));
  }
}

OptionInfo particle_radius_option() {
  return OptionInfo::number("particle_radius", "0.1",
                            "a point mass becomes a sphere of this radius, m (inertia 2/5 m r^2; decoupled from its translation)",
                            0, 1e3, true);
}

Mat3 particle_inertia(const Body& body, double radius) { return Mat3::Identity() * (0.4 * body.mass * radius * radius); }

PrincipalAxes principal_axes(const Mat3& inertia) {
  Eigen::SelfAdjointEigenSolver<Mat3> es(inertia);
  Mat3 r = es.eigenvectors();
  if (r.determinant() < 0) r.col(2) = -r.col(2);
  return {es.eigenvalues(), Quat(r).normalized()};
}

OptionInfo point_inertia_option(const std::string& def) {
  return OptionInfo::number("point_inertia", def,
                            "inertia of a point mass about its centre, kg m^2 per kg (the engine needs > 0; the bob turns with its rod, "
                            "so this adds to the pendulum's inertia)",
                            0, 1, true);
}

std::vector<PeerFrame> peer_frames(const Model& model, const State& state, const std::vector<PeerJoint>& joints,
                                   const PeerTree& tree, const std::string& engine) {
  std::vector<PeerFrame> frames(model.bodies.size());
  for (int i : tree.order) {  // parents first: a rod's pivot moves with its parent's frame
    const size_t u = static_cast<size_t>(i);
    const Body& b = model.bodies[u];
    const BodyState& s = state.bodies[u];
    PeerFrame& f = frames[u];
    f.origin = s.x;
    if (!b.particle) f.q = s.q, f.w = s.w;
    const int jk = tree.joint[u];
    if (jk < 0 || joints[static_cast<size_t>(jk)].type != JointType::Distance) continue;
    const PeerJoint& j = joints[static_cast<size_t>(jk)];
    const Joint& mj = model.joints[static_cast<size_t>(j.index)];
    if (!b.particle || (tree.flip[u] ? mj.anchor_a : mj.anchor_b).norm() > 0)
      throw UnsupportedModel(fmt::format("{}: rod '{}' is mapped only to a point mass held at its centre", engine, mj.name));
    const Vec3 pivot = tree.flip[u] ? j.anchor_b : j.anchor_a;
    const Vec3 d = s.x - pivot;
    if (d.norm() == 0) throw UnsupportedModel(fmt::format("{}: rod '{}' has zero length", engine, mj.name));
    f.origin = pivot;
    f.com = d;
    f.w = d.cross(s.v - peer_point_velocity(state, frames, tree.parent[u], pivot)) / d.squaredNorm();
    const Vec3 dn = d.normalized();
    f.rod = true;
    // u1: the rod's turn axis when it turns (the engines' rod is two hinges, u1 then u2, singular
    // where the turn about u2 reaches 90 degrees: a pendulum swung to 90 degrees about u2 stopped
    // Simbody at its turning point); at rest the world axis most perpendicular to the rod, z first
    // on a tie (planar models swing about z)
    if (f.w.norm() > 1e-12 * (1 + (s.v - peer_point_velocity(state, frames, tree.parent[u], pivot)).norm() / d.norm())) {
      f.u1 = f.w.normalized();
    } else {
      Eigen::Index k = 2;
      for (Eigen::Index c = 1; c >= 0; --c)
        if (std::abs(dn(c)) < std::abs(dn(k))) k = c;
      f.u1 = (Vec3::Unit(k) - dn * dn(k)).normalized();
    }
    f.u2 = dn.cross(f.u1);
  }
  return frames;
}

Quat frame_xy(const Vec3& x, const Vec3& y) {
  Mat3 r;
  r.col(0) = x.normalized();
  r.col(1) = (y - r.col(0) * r.col(0).dot(y)).normalized();
  r.col(2) = r.col(0).cross(r.col(1));
  return Quat(r);
}

Quat frame_z(const Vec3& z) {
  const Vec3 zn = z.normalized();
  Eigen::Index k = 0;
  zn.cwiseAbs().minCoeff(&k);
  const Vec3 x = (Vec3::Unit(k) - zn * zn(k)).normalized();
  return frame_xy(x, zn.cross(x));
}

Vec3 peer_point_velocity(const State& state, const std::vector<PeerFrame>& frames, int b, const Vec3& p) {
  if (b == kWorld) return Vec3::Zero();
  const BodyState& s = state.bodies[static_cast<size_t>(b)];
  return s.v + frames[static_cast<size_t>(b)].w.cross(p - s.x);
}

PeerTree peer_tree(const Model& model, const std::vector<PeerJoint>& joints, const std::string& engine, bool close_loops) {
  const size_t n = model.bodies.size();
  PeerTree t;
  t.parent.assign(n, kWorld);
  t.joint.assign(n, -1);
  t.flip.assign(n, false);
  // adjacency: node n is the world
  std::vector<std::vector<int>> adj(n + 1);
  auto node = [&](int b) { return b < 0 ? n : static_cast<size_t>(b); };
  for (size_t k = 0; k < joints.size(); ++k) {
    adj[node(joints[k].a)].push_back(static_cast<int>(k));
    adj[node(joints[k].b)].push_back(static_cast<int>(k));
  }
  std::vector<bool> seen(n + 1, false), used(joints.size(), false);
  auto grow = [&](size_t root) {
    std::deque<size_t> queue{root};
    seen[root] = true;
    while (!queue.empty()) {
      const size_t u = queue.front();
      queue.pop_front();
      if (u != n) t.order.push_back(static_cast<int>(u));
      for (int k : adj[u]) {
        if (used[static_cast<size_t>(k)]) continue;
        used[static_cast<size_t>(k)] = true;
        const PeerJoint& j = joints[static_cast<size_t>(k)];
        const bool from_a = node(j.a) == u;
        const size_t v = from_a ? node(j.b) : node(j.a);
        if (seen[v]) {
          if (!close_loops)
            throw UnsupportedModel(fmt::format("{} builds a tree of joints; joint '{}' closes a loop", engine,
                                               model.joints[static_cast<size_t>(j.index)].name));
          t.closing.push_back(k);
          continue;
        }
        seen[v] = true;
        t.parent[v] = u == n ? kWorld : static_cast<int>(u);
        t.joint[v] = k;
        t.flip[v] = !from_a;
        queue.push_back(v);
      }
    }
  };
  grow(n);
  // every body not reached from the world roots a floating subtree
  for (size_t b = 0; b < n; ++b)
    if (!seen[b] && !model.bodies[b].is_static) grow(b);
  return t;
}

std::vector<Vec3> closure_points(const PeerJoint& j) {
  if (j.type == JointType::Ball) return {j.anchor_a};
  if (j.type == JointType::Hinge) return {j.anchor_a, j.anchor_a + j.axis_a};
  return {};
}

void write_body(const Body& body, BodyState& s, const Vec3& x, const Quat& q, const Vec3& v, const Vec3& w) {
  s.x = x;
  s.v = v;
  if (body.particle) return;
  s.q = q.normalized();
  s.w = w;
}

std::vector<std::pair<std::string, std::string>> peers_not_built() {
  std::vector<std::pair<std::string, std::string>> v;
#define MBBENCH_PEER(engine)
#define MBBENCH_PEER_OFF(engine, why) v.push_back({#engine, why});
#include "peers_table.inc"
#undef MBBENCH_PEER
#undef MBBENCH_PEER_OFF
  return v;
}

double peer_coordinate_sign(const PeerJoint& j, bool flip) {
  double sign = flip ? -1.0 : 1.0;
  if (j.type == JointType::Hinge && (flip ? j.axis_b : j.axis_a).dot(j.axis_a) < 0) sign = -sign;
  return sign;
}

std::pair<double, double> peer_limits(const Joint& joint, double sign) {
  return sign > 0 ? std::pair{joint.lower, joint.upper} : std::pair{-joint.upper, -joint.lower};
}

int tree_child_of_joint(const std::vector<PeerJoint>& joints, const PeerTree& tree, int joint) {
  for (size_t u = 0; u < tree.joint.size(); ++u)
    if (tree.joint[u] >= 0 && joints[static_cast<size_t>(tree.joint[u])].index == joint) return static_cast<int>(u);
  return -1;
}

double motor_step_rate(const Model& model, const State& state, const Motor& motor, double h) {
  const double target = motor.target.at(state.t + h);
  if (motor.mode != MotorMode::Position) return target;
  const double gap = target - motor_coordinate(model, state, motor);
  const bool slider = model.joints[static_cast<size_t>(motor.joint)].type == JointType::Slider;
  return (slider ? gap : wrap_angle(gap)) / h;
}

void add_peer_actuator_loads(const Model& model, const State& state, std::vector<double>& ctrl, std::vector<Vec3>& force,
                             std::vector<Vec3>& torque) {
  if (model.actuators.empty()) return;
  controls_at(model, state.t, ctrl);
  add_actuator_loads(model, state, ctrl, force, torque);
}

}  // namespace mb
