#include "methods/reduced/tree_model.hpp"

#include <algorithm>
#include <cmath>
#include <deque>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/reduced/tree_util.hpp"
#include "models/kinematics.hpp"

namespace mb {

// The motors as prescribed links (tree_model.hpp), or UnsupportedModel naming the motor.
static void attach_motors(const Model& m, TreeModel& t);
// The actuators on the tree's links, or UnsupportedModel naming the actuator.
static void attach_actuators(const Model& m, TreeModel& t);
// the joint limits on the tree's hinges and sliders (TreeModel::limits)
static void attach_limits(const Model& m, TreeModel& t);
static void attach_couplings(const Model& m, TreeModel& t);

int joint_dofs(TreeJoint k) {
  switch (k) {
    case TreeJoint::Free: return 6;
    case TreeJoint::Ball: return 3;
    case TreeJoint::Hinge: return 1;
    case TreeJoint::Slider: return 1;
    case TreeJoint::Fixed: return 0;
    case TreeJoint::Rod: return 1;
    case TreeJoint::Swing: return 2;
    case TreeJoint::Cardan: return 2;
    case TreeJoint::Planar: return 3;
    case TreeJoint::Cylindrical: return 2;
  }
  return 0;
}

int joint_coordinates(TreeJoint k) {
  switch (k) {
    case TreeJoint::Free: return 7;
    case TreeJoint::Ball: return 4;
    case TreeJoint::Hinge: return 1;
    case TreeJoint::Slider: return 1;
    case TreeJoint::Fixed: return 0;
    case TreeJoint::Rod: return 1;
    case TreeJoint::Swing: return 4;
    case TreeJoint::Cardan: return 2;
    case TreeJoint::Planar: return 3;
    case TreeJoint::Cylindrical: return 2;
  }
  return 0;
}

TreeModel TreeModel::build(const Model& m, bool pair_balls) {
  auto fail = [&](const std::string& why) {
    return UnsupportedModel(fmt::format(
        "model '{}' is neither a tree of rigid bodies with free, ball, hinge, slider, fixed, cardan, planar and cylindrical joints nor a tree of point masses "
        "on rods: {}",
        m.info.name, why));
  };
  const int nb = static_cast<int>(m.bodies.size());

  auto is_fixed = [&](int b) { return b == kWorld || m.bodies[b].is_static; };
  auto is_particle = [&](int b) { return !is_fixed(b) && m.bodies[b].particle; };
  auto is_rigid = [&](int b) { return !is_fixed(b) && !m.bodies[b].particle; };
  auto pose_q = [&](int b) { return b == kWorld ? Quat::Identity() : m.bodies[b].orientation.normalized(); };
  auto pose_x = [&](int b) { return b == kWorld ? Vec3(Vec3::Zero()) : m.bodies[b].position; };

  // point masses: planar trees of rods (see the header)
  int first_particle = -1;
  for (int b = 0; b < nb && first_particle < 0; ++b)
    if (is_particle(b)) first_particle = b;
  for (const Joint& J : m.joints) {
    if (J.type == JointType::Distance) {
      for (int b : {J.a, J.b})
        if (is_rigid(b))
          throw fail(fmt::format("rod '{}' holds the rigid body '{}' (rods join point masses, or a point mass to a fixed "
                                 "point; use a ball or hinge joint)",
                                 J.name, m.bodies[b].name));
      if ((is_particle(J.a) && J.anchor_a.norm() != 0) || (is_particle(J.b) && J.anchor_b.norm() != 0))
        throw fail(fmt::format("rod '{}' has an anchor offset on a point mass", J.name));
    } else {
      for (int b : {J.a, J.b})
        if (is_particle(b))
          throw fail(fmt::format("point mass '{}' is held by the {} joint '{}' (a point mass hangs on rods only; model it as "
                                 "a small rigid body)",
                                 m.bodies[b].name, joint_type_name(J.type), J.name));
    }
  }
  // planar (rod angles, schmitt2005's state) when every point mass, its velocity and every pivot lie in
  // one plane z = const and gravity lies in it; spatial (swing joints) otherwise
  bool spatial = false;
  if (first_particle >= 0) {
    const double z0 = m.bodies[first_particle].position.z();
    if (m.gravity.z() != 0) spatial = true;
    for (int b = 0; b < nb; ++b)
      if (is_particle(b) && (m.bodies[b].position.z() != z0 || m.bodies[b].velocity.z() != 0)) spatial = true;
    for (const Joint& J : m.joints) {
      if (J.type != JointType::Distance || !(is_particle(J.a) || is_particle(J.b))) continue;
      for (int end = 0; end < 2; ++end) {
        const int b = end == 0 ? J.a : J.b;
        if (!is_fixed(b)) continue;
        const Vec3 pivot = pose_x(b) + pose_q(b) * (end == 0 ? J.anchor_a : J.anchor_b);
        if (pivot.z() != z0) spatial = true;
      }
    }
  }

  TreeModel t;
  t.gravity = m.gravity;
  t.nbody = nb;
  std::vector<int> link_of(nb, -1);
  // the joints at each body, compressed: body b's are adj[adj_start[b] .. adj_start[b + 1])
  std::vector<int> adj_start(static_cast<size_t>(nb) + 1, 0), adj;
  for (const Joint& j : m.joints)
    for (int b : {j.a, j.b})
      if (b != kWorld) ++adj_start[static_cast<size_t>(b) + 1];
  for (int b = 0; b < nb; ++b) adj_start[b + 1] += adj_start[b];
  adj.resize(static_cast<size_t>(adj_start[nb]));
  {
    std::vector<int> fill(adj_start.begin(), adj_start.end() - 1);
    for (size_t ji = 0; ji < m.joints.size(); ++ji)
      for (int b : {m.joints[ji].a, m.joints[ji].b})
        if (b != kWorld) adj[fill[b]++] = static_cast<int>(ji);
  }
  std::vector<bool> used(m.joints.size(), false);
  t.link.reserve(static_cast<size_t>(nb));
  t.setup.reserve(static_cast<size_t>(nb));

  // a link for body `child` attached by joint ji to `parent` (a body, fixed or not); -1: free root
  auto add_link = [&](int child, int ji, int parent) {
    TreeLink L;
    LinkSetup F;
    L.body = child;
    const Body& b = m.bodies[child];
    L.mass = b.mass;
    F.inertia = b.inertia;
    if (ji < 0) {
      L.kind = TreeJoint::Free;
    } else {
      const Joint& J = m.joints[ji];
      used[ji] = true;
      const bool child_is_a = J.a == child;
      L.anchor_c = child_is_a ? J.anchor_a : J.anchor_b;
      L.anchor_p = child_is_a ? J.anchor_b : J.anchor_a;
      const Vec3 axis_c = child_is_a ? J.axis_a : J.axis_b, axis_p = child_is_a ? J.axis_b : J.axis_a;
      L.parent = is_fixed(parent) ? -1 : link_of[parent];
      if (is_fixed(parent)) {
        F.base_q = pose_q(parent);
        F.base_x = pose_x(parent);
        F.base_j = F.base_x + F.base_q * L.anchor_p;
      }
      const Quat qp = pose_q(parent), qc = b.orientation.normalized();
      switch (J.type) {
        case JointType::Ball: L.kind = TreeJoint::Ball; break;
        case JointType::Hinge: {
          L.kind = TreeJoint::Hinge;
          F.damping = J.damping;
          if (!(axis_c.norm() > 0) || !(axis_p.norm() > 0))
            throw fail(fmt::format("hinge '{}' has a zero axis", J.name));
          F.axis_c = axis_c.normalized();
          F.q0 = qp.conjugate() * qc;
          const Vec3 uc = qc * F.axis_c, up = qp * axis_p.normalized();
          if (uc.cross(up).norm() > 1e-9 || uc.dot(up) < 0)
            throw fail(fmt::format("the axes of hinge '{}' differ in the initial state", J.name));
          break;
        }
        case JointType::Slider: {
          // the line through the parent's point along axis_a (a's frame) with the orientation kept:
          // the axis is fixed in both frames
          L.kind = TreeJoint::Slider;
          F.damping = J.damping;
          const Vec3 axis_line = child_is_a ? axis_c : axis_p;  // axis_a
          if (!(axis_line.norm() > 0)) throw fail(fmt::format("slider '{}' has a zero axis", J.name));
          const Quat qa = child_is_a ? qc : qp;
          F.axis_c = (qc.conjugate() * (qa * axis_line.normalized())).normalized();
          F.q0 = child_is_a ? J.rel_orientation.normalized().conjugate() : J.rel_orientation.normalized();
          break;
        }
        case JointType::Fixed:
          L.kind = TreeJoint::Fixed;
          // rel_orientation = q_a^-1 q_b
          F.q0 = child_is_a ? J.rel_orientation.normalized().conjugate() : J.rel_orientation.normalized();
          break;
        case JointType::Cardan: {
          L.kind = TreeJoint::Cardan;
          if (!(axis_c.norm() > 0) || !(axis_p.norm() > 0))
            throw fail(fmt::format("cardan '{}' has a zero axis", J.name));
          F.axis_c = axis_c.normalized();
          F.axis_p = axis_p.normalized();
          F.q0 = qp.conjugate() * qc;
          if (std::abs((qc * F.axis_c).dot(qp * F.axis_p)) > 1e-9)
            throw fail(fmt::format("the axes of cardan '{}' are not perpendicular in the initial state", J.name));
          break;
        }
        case JointType::Planar:
        case JointType::Cylindrical: {
          // the normal or the line's axis is fixed in both frames (the axis part keeps the two
          // parallel): the parent's is axis_p, the child's axis_c
          L.kind = J.type == JointType::Planar ? TreeJoint::Planar : TreeJoint::Cylindrical;
          if (!(axis_c.norm() > 0) || !(axis_p.norm() > 0))
            throw fail(fmt::format("{} '{}' has a zero axis", joint_type_name(J.type), J.name));
          F.axis_c = axis_c.normalized();
          F.axis_p = axis_p.normalized();
          F.q0 = qp.conjugate() * qc;
          const Vec3 uc = qc * F.axis_c, up = qp * F.axis_p;
          if (uc.cross(up).norm() > 1e-9 || uc.dot(up) < 0)
            throw fail(fmt::format("the axes of {} '{}' differ in the initial state", joint_type_name(J.type), J.name));
          break;
        }
        case JointType::Distance:  // between point masses or to a fixed point (checked above)
          L.kind = spatial ? TreeJoint::Swing : TreeJoint::Rod;
          F.length = J.length;
          break;
        case JointType::PointOnLine:
        case JointType::PointOnPlane:
        case JointType::Orientation:
        case JointType::Axis:
        case JointType::Twist:
          throw fail(fmt::format("joint '{}' is a {} joint; generalized coordinates support ball, hinge, slider, fixed, cardan, planar, cylindrical and free joints",
                                 J.name, joint_type_name(J.type)));
      }
    }
    L.nd = joint_dofs(L.kind);
    if (L.kind == TreeJoint::Ball)  // the parallel-axis theorem to the joint point (the COM is at -anchor_c)
      L.inertia_j = F.inertia + L.mass * (L.anchor_c.squaredNorm() * Mat3::Identity() - L.anchor_c * L.anchor_c.transpose());
    L.iq = t.nq;
    L.iv = t.nv;
    t.nq += joint_coordinates(L.kind);
    t.nv += L.nd;
    if (F.damping > 0) t.damped = true;
    link_of[child] = static_cast<int>(t.link.size());
    t.link.push_back(L);
    t.setup.push_back(F);
  };

  // breadth-first from the queued links, so that every parent precedes its children
  std::deque<int> queue;
  auto grow = [&]() {
    while (!queue.empty()) {
      const int body = queue.front();
      queue.pop_front();
      for (int k = adj_start[body]; k < adj_start[body + 1]; ++k) {
        const int ji = adj[k];
        if (used[ji]) continue;
        const Joint& J = m.joints[ji];
        const int other = J.a == body ? J.b : J.a;
        if (is_fixed(other) || link_of[other] >= 0)
          throw fail(fmt::format("joint '{}' closes a kinematic loop", J.name));
        add_link(other, ji, body);
        queue.push_back(other);
      }
    }
  };
  // bodies attached to the world or to static bodies, in joint order
  for (size_t ji = 0; ji < m.joints.size(); ++ji) {
    const Joint& J = m.joints[ji];
    const bool fa = is_fixed(J.a), fb = is_fixed(J.b);
    if (fa && fb) {  // between fixed frames: no dynamics
      used[ji] = true;
      continue;
    }
    if (!fa && !fb) continue;
    const int child = fa ? J.b : J.a;
    if (link_of[child] >= 0) throw fail(fmt::format("joint '{}' closes a kinematic loop", J.name));
    add_link(child, static_cast<int>(ji), fa ? J.a : J.b);
    queue.push_back(child);
    grow();
  }
  // floating groups: a free joint on the lowest-indexed body
  for (int b = 0; b < nb; ++b) {
    if (m.bodies[b].is_static || link_of[b] >= 0) continue;
    if (m.bodies[b].particle)
      throw fail(fmt::format("point mass '{}' is not hung from a fixed point by rods (a free point mass has no joint "
                             "coordinates here)",
                             m.bodies[b].name));
    add_link(b, -1, kWorld);
    queue.push_back(b);
    grow();
  }
  t.point_masses = !t.link.empty() && std::all_of(t.link.begin(), t.link.end(),
                               [](const TreeLink& L) { return L.kind == TreeJoint::Rod || L.kind == TreeJoint::Swing; });
  // ball joints on one parent in pairs, greedily in link order
  const int n = t.links();
  t.pair.assign(t.link.size(), 0);
  for (int i = 0; pair_balls && i + 1 < n; ++i) {
    const TreeLink &L = t.link[i], &N = t.link[i + 1];
    if (L.kind == TreeJoint::Ball && N.kind == TreeJoint::Ball && L.parent >= 0 && L.parent == N.parent) t.pair[i++] = 1;
  }
  if (!m.motors.empty()) attach_motors(m, t);
  attach_actuators(m, t);
  attach_limits(m, t);
  attach_couplings(m, t);
  t.joint_forces = t.damped || !t.actuators.empty() || !t.couplings.empty();
  return t;
}

namespace {
// The link whose edge is joint J of the model and the sign taking the joint's motor coordinate to
// the link's (-1 when the tree runs the joint from b to a); link -1 when no hinge or slider link is.
std::pair<int, double> joint_link(const Model& m, const TreeModel& t, const std::vector<int>& link_of, const Joint& J) {
  // the body a link hangs from (kWorld for a fixed frame: the world or a static body)
  auto parent_body = [&](int li) { return t.link[li].parent >= 0 ? t.link[t.link[li].parent].body : kWorld; };
  auto fixed = [&](int b) { return b == kWorld || m.bodies[static_cast<size_t>(b)].is_static; };
  // the link whose edge is this joint: the child is b when a is its parent (or both are fixed frames' children)
  auto edge = [&](int child, int parent) {
    if (child == kWorld || fixed(child)) return -1;
    const int li = link_of[static_cast<size_t>(child)];
    if (li < 0) return -1;
    const int pb = parent_body(li);
    return (pb == parent || (pb == kWorld && fixed(parent))) ? li : -1;
  };
  int li = edge(J.b, J.a);
  double sign = 1;
  if (li < 0) {
    li = edge(J.a, J.b);
    sign = -1;
  }
  if (li < 0 || (t.link[li].kind != TreeJoint::Hinge && t.link[li].kind != TreeJoint::Slider)) return {-1, 1};
  return {li, sign};
}
}  // namespace

static void attach_motors(const Model& m, TreeModel& t) {
  std::vector<int> link_of(m.bodies.size(), -1);
  for (int i = 0; i < t.links(); ++i) link_of[static_cast<size_t>(t.link[i].body)] = i;
  t.is_prescribed.assign(t.link.size(), 0);
  for (size_t mi = 0; mi < m.motors.size(); ++mi) {
    const Motor& mo = m.motors[mi];
    const Joint& J = m.joints[static_cast<size_t>(mo.joint)];
    if (mo.limited())
      throw UnsupportedModel(fmt::format("motor '{}' has a force bound ({}): prescribed motion in reduced coordinates takes the force "
                                         "it needs, so a bounded motor is not built",
                                         mo.name, mo.max_force));
    const auto [li, sign] = joint_link(m, t, link_of, J);
    if (li < 0) throw UnsupportedModel(fmt::format("motor '{}': its joint '{}' is not a hinge or slider of the tree", mo.name, J.name));
    if (t.is_prescribed[li])
      throw UnsupportedModel(fmt::format("motor '{}': joint '{}' has a motor already", mo.name, J.name));
    t.is_prescribed[li] = 1;
    t.prescribed.push_back({li, static_cast<int>(mi), sign});
  }
}

static void attach_actuators(const Model& m, TreeModel& t) {
  std::vector<int> link_of(m.bodies.size(), -1);
  for (int i = 0; i < t.links(); ++i) link_of[static_cast<size_t>(t.link[i].body)] = i;
  for (size_t k = 0; k < m.actuators.size(); ++k) {
    const Actuator& a = m.actuators[k];
    const Joint& J = m.joints[static_cast<size_t>(a.joint)];
    const auto [li, sign] = joint_link(m, t, link_of, J);
    if (li < 0) throw UnsupportedModel(fmt::format("actuator '{}': its joint '{}' is not a hinge or slider of the tree", a.name, J.name));
    t.actuators.push_back({li, static_cast<int>(k), sign, a});
  }
}

static void attach_limits(const Model& m, TreeModel& t) {
  std::vector<int> link_of(m.bodies.size(), -1);
  for (int i = 0; i < t.links(); ++i) link_of[static_cast<size_t>(t.link[i].body)] = i;
  for (const Joint& J : m.joints) {
    if (!J.limited()) continue;
    const auto [li, sign] = joint_link(m, t, link_of, J);
    if (li < 0) continue;
    // a slider's tree coordinate is the joint points' whole displacement along the axis, the
    // motor coordinate's less its initial value
    Motor probe;
    probe.joint = static_cast<int>(&J - m.joints.data());
    const double offset = t.link[static_cast<size_t>(li)].kind == TreeJoint::Slider ? motor_frame(m, probe).initial_slide : 0.0;
    const double lo = J.lower + offset, hi = J.upper + offset;
    t.limits.push_back(sign > 0 ? TreeLimit{li, lo, hi} : TreeLimit{li, -hi, -lo});
  }
}

static void attach_couplings(const Model& m, TreeModel& t) {
  std::vector<int> link_of(m.bodies.size(), -1);
  for (int i = 0; i < t.links(); ++i) link_of[static_cast<size_t>(t.link[i].body)] = i;
  for (size_t k = 0; k < m.couplings.size(); ++k) {
    const JointCoupling& c = m.couplings[k];
    const Joint &Ja = m.joints[static_cast<size_t>(c.a)], &Jb = m.joints[static_cast<size_t>(c.b)];
    const auto [la, sa] = joint_link(m, t, link_of, Ja);
    const auto [lb, sb] = joint_link(m, t, link_of, Jb);
    if (la < 0 || lb < 0)
      throw UnsupportedModel(fmt::format("coupling '{}': joint '{}' is not a hinge or slider of the tree", c.name, la < 0 ? Ja.name : Jb.name));
    if (!t.is_prescribed.empty() && (t.is_prescribed[static_cast<size_t>(la)] || t.is_prescribed[static_cast<size_t>(lb)]))
      throw UnsupportedModel(fmt::format("coupling '{}': a motor prescribes the motion of joint '{}' or '{}'", c.name, Ja.name, Jb.name));
    // q_a = m q_b in the motor coordinates; the links' coordinates are sign times them
    t.couplings.push_back({la, lb, sa * sb * c.multiplier, static_cast<int>(k)});
  }
}

void TreeModel::read(const State& s, std::vector<double>& x) const {
  x.assign(size(), 0.0);
  double* q = x.data();
  double* v = x.data() + nq;
  // swing links: the frame and angular velocity of each link as read so far (parents come first)
  std::vector<Quat> frame(link.size(), Quat::Identity());
  std::vector<Vec3> omega(link.size(), Vec3::Zero());
  for (size_t i = 0; i < link.size(); ++i) {
    const TreeLink& L = link[i];
    const LinkSetup& F = setup[i];
    const BodyState& B = s.bodies[L.body];
    const Quat qp = L.parent >= 0 ? s.bodies[link[L.parent].body].q : F.base_q;
    const Vec3 wp = L.parent >= 0 ? s.bodies[link[L.parent].body].w : Vec3::Zero();
    switch (L.kind) {
      case TreeJoint::Free:
        Eigen::Map<Vec3>(q + L.iq) = B.x;
        store_quat(B.q.normalized(), q + L.iq + 3);
        Eigen::Map<Vec3>(v + L.iv) = B.w;
        Eigen::Map<Vec3>(v + L.iv + 3) = B.v - B.w.cross(B.x);
        break;
      case TreeJoint::Ball:
        store_quat((qp.conjugate() * B.q).normalized(), q + L.iq);
        Eigen::Map<Vec3>(v + L.iv) = B.q.conjugate() * (B.w - wp);
        break;
      case TreeJoint::Hinge: {
        const Quat d = F.q0.conjugate() * qp.conjugate() * B.q;
        q[L.iq] = 2 * std::atan2(d.vec().dot(F.axis_c), d.w());
        v[L.iv] = (B.q * F.axis_c).dot(B.w - wp);
        break;
      }
      case TreeJoint::Slider: {
        // the child's joint point from the parent's, along the axis
        const Vec3 pp = L.parent >= 0 ? Vec3(s.bodies[link[L.parent].body].x + qp * L.anchor_p) : F.base_j;
        const Vec3 vp = L.parent >= 0 ? Vec3(s.bodies[link[L.parent].body].v + wp.cross(qp * L.anchor_p)) : Vec3(Vec3::Zero());
        const Vec3 arm = B.q * L.anchor_c, u = B.q * F.axis_c;
        q[L.iq] = (B.x + arm - pp).dot(u);
        v[L.iv] = (B.v + B.w.cross(arm) - vp).dot(u);
        break;
      }
      case TreeJoint::Cardan: {
        // theta_1 turns b = q0 a_c (the second axis at theta = 0, in the parent's frame) about a_p
        // onto q_rel a_c; theta_2 is what remains about a_c. The rates: the relative angular
        // velocity along the perpendicular u_1, u_2.
        const Quat rel = qp.conjugate() * B.q;
        const Vec3 b = F.q0 * F.axis_c, c = rel * F.axis_c;
        q[L.iq] = std::atan2(F.axis_p.dot(b.cross(c)), b.dot(c));
        const Quat d = F.q0.conjugate() * Quat(Eigen::AngleAxisd(-q[L.iq], F.axis_p)) * rel;
        q[L.iq + 1] = 2 * std::atan2(d.vec().dot(F.axis_c), d.w());
        v[L.iv] = (qp * F.axis_p).dot(B.w - wp);
        v[L.iv + 1] = (B.q * F.axis_c).dot(B.w - wp);
        break;
      }
      case TreeJoint::Planar:
      case TreeJoint::Cylindrical: {
        // the child's joint point from the parent's along the parent's slide directions (planar: the
        // plane's basis, cylindrical: the axis), then the angle about the axis; the rates of those
        // in the parent's frame
        const Vec3 pp = L.parent >= 0 ? Vec3(s.bodies[link[L.parent].body].x + qp * L.anchor_p) : F.base_j;
        const Vec3 vp = L.parent >= 0 ? Vec3(s.bodies[link[L.parent].body].v + wp.cross(qp * L.anchor_p)) : Vec3(Vec3::Zero());
        const Vec3 arm = B.q * L.anchor_c, d = B.x + arm - pp, dv = B.v + B.w.cross(arm) - vp - wp.cross(d);
        const Quat r = F.q0.conjugate() * qp.conjugate() * B.q;
        const double angle = 2 * std::atan2(r.vec().dot(F.axis_c), r.w()), rate = (B.q * F.axis_c).dot(B.w - wp);
        if (L.kind == TreeJoint::Planar) {
          const auto P = orthogonal_basis(F.axis_p);
          for (int k = 0; k < 2; ++k) {
            const Vec3 u = qp * Vec3(P.row(k).transpose());
            q[L.iq + k] = d.dot(u);
            v[L.iv + k] = dv.dot(u);
          }
          q[L.iq + 2] = angle;
          v[L.iv + 2] = rate;
        } else {
          const Vec3 u = qp * F.axis_p;
          q[L.iq] = angle;
          v[L.iv] = rate;
          q[L.iq + 1] = d.dot(u);
          v[L.iv + 1] = dv.dot(u);
        }
        break;
      }
      case TreeJoint::Fixed: break;
      case TreeJoint::Rod: {
        // the rod's angle from -y and its rate, from the point mass relative to the parent point
        const Vec3 pp = L.parent >= 0 ? s.bodies[link[L.parent].body].x : Vec3(F.base_x + F.base_q * L.anchor_p);
        const Vec3 vp = L.parent >= 0 ? s.bodies[link[L.parent].body].v : Vec3(Vec3::Zero());
        const Vec3 d = B.x - pp, dv = B.v - vp;
        q[L.iq] = std::atan2(d.x(), -d.y());
        v[L.iv] = (d.x() * dv.y() - d.y() * dv.x()) / d.squaredNorm();
        break;
      }
      case TreeJoint::Swing: {
        // the frame: the parent's turned by the smallest rotation that takes its -z to the rod (the
        // spin about the rod is free: a null direction of the point mass); the velocity: the rod's
        // turn rate normal to the rod less the parent frame's, in the child frame (its z part is 0)
        const Vec3 pp = L.parent >= 0 ? s.bodies[link[L.parent].body].x : Vec3(F.base_x + F.base_q * L.anchor_p);
        const Vec3 vp = L.parent >= 0 ? s.bodies[link[L.parent].body].v : Vec3(Vec3::Zero());
        const Quat qp = L.parent >= 0 ? frame[L.parent] : F.base_q;
        const Vec3 wp = L.parent >= 0 ? omega[L.parent] : Vec3(Vec3::Zero());
        const Vec3 d = B.x - pp, n = d.normalized();
        const Quat rel = Quat::FromTwoVectors(kRodAxis, qp.conjugate() * n).normalized();
        frame[i] = (qp * rel).normalized();
        const Vec3 w_rel = n.cross(B.v - vp) / d.norm() - (wp - wp.dot(n) * n);
        omega[i] = wp + w_rel;
        store_quat(rel, q + L.iq);
        const Vec3 wb = frame[i].conjugate() * w_rel;
        v[L.iv] = wb.x();
        v[L.iv + 1] = wb.y();
        break;
      }
    }
  }
}


void TreeModel::normalize(std::vector<double>& x) const {
  for (const TreeLink& L : link) {
    double* p = nullptr;
    if (L.kind == TreeJoint::Free) p = x.data() + L.iq + 3;
    if (L.kind == TreeJoint::Ball || L.kind == TreeJoint::Swing) p = x.data() + L.iq;
    if (p) Eigen::Map<Eigen::Vector4d>(p).normalize();
  }
}

}  // namespace mb
