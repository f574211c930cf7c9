#include "methods/reduced/articulated.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/common/lanes.hpp"

namespace mb {

namespace {

using Vec6 = ArticulatedTree::Vec6;
using Mat6 = ArticulatedTree::Mat6;

Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// motion cross product v x m (featherstone2008 eq. 2.31)
Vec6 crm(const Vec6& v, const Vec6& m) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

// force cross product v x* f (featherstone2008 eq. 2.32)
Vec6 crf(const Vec6& v, const Vec6& f) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

// a motion vector at a point o expressed at o + r: (omega, v + omega x r)
Vec6 shift_motion(const Vec6& m, const Vec3& r) {
  Vec6 out;
  out << m.head<3>(), m.tail<3>() + m.head<3>().cross(r);
  return out;
}

// a force at o + r expressed at o: (n + r x f, f), the transpose X^T of shift_motion
Vec6 shift_force(const Vec6& f, const Vec3& r) {
  Vec6 out;
  out << f.head<3>() + r.cross(f.tail<3>()), f.tail<3>();
  return out;
}

// M K and K M for a skew-symmetric K (a cross-product matrix, zero diagonal): every entry is a sum
// of two products, K's zero term skipped. A sum of the three products with one of them exactly
// zero has the value of the other two's sum in any order, so these are the bits of the general
// product M * K (K * M) at a third of its multiplications.
Mat3 times_skew(const Mat3& M, const Mat3& K) {
  Mat3 out;
  for (int j = 0; j < 3; ++j) {
    const int a = (j + 1) % 3, b = (j + 2) % 3;
    for (int i = 0; i < 3; ++i) out(i, j) = M(i, a) * K(a, j) + M(i, b) * K(b, j);
  }
  return out;
}
// K M = (M^T K^T)^T: the same products, each entry's two summed in either order
Mat3 skew_times(const Mat3& K, const Mat3& M) { return times_skew(M.transpose(), K.transpose()).transpose(); }

// an inertia at o + r expressed at o: X^T I X with X = [1 0; -rx 1] (blocks of I: [A B; C D])
Mat6 shift_inertia(const Mat6& I, const Vec3& r) {
  const Mat3 K = skew(r);
  const Mat3 A = I.topLeftCorner<3, 3>(), B = I.topRightCorner<3, 3>(), C = I.bottomLeftCorner<3, 3>(),
             D = I.bottomRightCorner<3, 3>();
  const Mat3 CDK = C - times_skew(D, K);
  Mat6 out;
  out.topLeftCorner<3, 3>() = A - times_skew(B, K) + skew_times(K, CDK);
  out.topRightCorner<3, 3>() = B + skew_times(K, D);
  out.bottomLeftCorner<3, 3>() = CDK;
  out.bottomRightCorner<3, 3>() = D;
  return out;
}

// quaternion (w, x, y, z) stored at p
Quat load_quat(const double* p) { return Quat(p[0], p[1], p[2], p[3]); }
void store_quat(const Quat& q, double* p) {
  p[0] = q.w();
  p[1] = q.x();
  p[2] = q.y();
  p[3] = q.z();
}

int degrees(ArticulatedTree::Kind k) {
  switch (k) {
    case ArticulatedTree::Kind::Free: return 6;
    case ArticulatedTree::Kind::Ball: return 3;
    case ArticulatedTree::Kind::Hinge: return 1;
    case ArticulatedTree::Kind::Fixed: return 0;
    case ArticulatedTree::Kind::Rod: return 1;
    case ArticulatedTree::Kind::Swing: return 2;
  }
  return 0;
}

int coordinates(ArticulatedTree::Kind k) {
  switch (k) {
    case ArticulatedTree::Kind::Free: return 7;
    case ArticulatedTree::Kind::Ball: return 4;
    case ArticulatedTree::Kind::Hinge: return 1;
    case ArticulatedTree::Kind::Fixed: return 0;
    case ArticulatedTree::Kind::Rod: return 1;
    case ArticulatedTree::Kind::Swing: return 4;
  }
  return 0;
}

// q' = 1/2 q [0, w] of one quaternion (T = double) or two (Array2d) stored (w, x, y, z) at q[l], w
// at w[l], into dq[l]: Eigen's quaternion product (lanes.hpp), the bits of Quat * Quat
template <class T>
void quaternion_rates(const double* const* q, const double* const* w, double* const* dq) {
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  const Q<T> a{gather<T>(q, 0), gather<T>(q, 1), gather<T>(q, 2), gather<T>(q, 3)};
  const Q<T> d = product(a, Q<T>{T(0.0), gather<T>(w, 0), gather<T>(w, 1), gather<T>(w, 2)});
  const T out[4] = {0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z};
  for (int l = 0; l < n; ++l)
    for (int k = 0; k < 4; ++k) dq[l][k] = lane(out[k], l);
}

// the rod of a swing link points along -z of its frame
const Vec3 kRodAxis(0, 0, -1);

}  // namespace

ArticulatedTree ArticulatedTree::extract(const Model& m) {
  auto fail = [&](const std::string& why) {
    return UnsupportedModel(fmt::format(
        "model '{}' is neither a tree of rigid bodies with free, ball, hinge and fixed joints nor a tree of point masses "
        "on rods: {}",
        m.info.name, why));
  };
  const int nb = static_cast<int>(m.bodies.size());
  if (m.dynamic_body_count() == 0) throw fail("it has no dynamic bodies");

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

  ArticulatedTree t;
  t.g_ = m.gravity;
  t.tau_.assign(nb, Vec3::Zero());
  std::vector<int> link_of(nb, -1);
  std::vector<std::vector<int>> adj(nb);  // joints at each body
  std::vector<bool> used(m.joints.size(), false);
  for (size_t ji = 0; ji < m.joints.size(); ++ji) {
    const Joint& j = m.joints[ji];
    if (j.a != kWorld) adj[j.a].push_back(static_cast<int>(ji));
    if (j.b != kWorld) adj[j.b].push_back(static_cast<int>(ji));
  }

  // a link for body `child` attached by joint ji to `parent` (a body, fixed or not); -1: free root
  auto add_link = [&](int child, int ji, int parent) {
    Link L;
    Shape F;
    L.body = child;
    const Body& b = m.bodies[child];
    L.mass = b.mass;
    F.inertia = b.inertia;
    if (ji < 0) {
      L.kind = Kind::Free;
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
        case JointType::Ball: L.kind = Kind::Ball; break;
        case JointType::Hinge: {
          L.kind = Kind::Hinge;
          if (!(axis_c.norm() > 0) || !(axis_p.norm() > 0))
            throw fail(fmt::format("hinge '{}' has a zero axis", J.name));
          F.axis_c = axis_c.normalized();
          F.q0 = qp.conjugate() * qc;
          const Vec3 uc = qc * F.axis_c, up = qp * axis_p.normalized();
          if (uc.cross(up).norm() > 1e-9 || uc.dot(up) < 0)
            throw fail(fmt::format("the axes of hinge '{}' differ in the initial state", J.name));
          break;
        }
        case JointType::Fixed:
          L.kind = Kind::Fixed;
          // rel_orientation = q_a^-1 q_b
          F.q0 = child_is_a ? J.rel_orientation.normalized().conjugate() : J.rel_orientation.normalized();
          break;
        case JointType::Distance:  // between point masses or to a fixed point (checked above)
          L.kind = spatial ? Kind::Swing : Kind::Rod;
          F.length = J.length;
          break;
        case JointType::Slider:
        case JointType::PointOnLine:
        case JointType::PointOnPlane:
        case JointType::Orientation:
        case JointType::Axis:
        case JointType::Twist:
        case JointType::Cardan:
          throw fail(fmt::format("joint '{}' is a {} joint; generalized coordinates support ball, hinge, fixed and free joints",
                                 J.name, joint_type_name(J.type)));
      }
    }
    L.nd = degrees(L.kind);
    if (L.kind == Kind::Ball)  // the parallel-axis theorem to the joint point (the COM is at -anchor_c)
      L.inertia_j = F.inertia + L.mass * (L.anchor_c.squaredNorm() * Mat3::Identity() - L.anchor_c * L.anchor_c.transpose());
    L.iq = t.nq_;
    L.iv = t.nv_;
    t.nq_ += coordinates(L.kind);
    t.nv_ += L.nd;
    link_of[child] = static_cast<int>(t.link_.size());
    t.link_.push_back(L);
    t.shape_.push_back(F);
  };

  // breadth-first from the queued links, so that every parent precedes its children
  std::deque<int> queue;
  auto grow = [&]() {
    while (!queue.empty()) {
      const int body = queue.front();
      queue.pop_front();
      for (int ji : adj[body]) {
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
  t.point_masses_ = std::all_of(t.link_.begin(), t.link_.end(),
                                [](const Link& L) { return L.kind == Kind::Rod || L.kind == Kind::Swing; });
  t.w_.resize(t.link_.size());
  size_t nia = 0;
  for (size_t i = 0; i < t.link_.size(); ++i)
    if (t.link_[i].kind != Kind::Ball) t.w_[i].ia = nia++;
  t.IA_.assign(nia, Mat6::Zero());
  size_t nblocks = 0;
  for (size_t i = 0; i < t.link_.size(); ++i) {
    t.w_[i].blocks = nblocks;
    nblocks += block_size(t.link_[i]);
  }
  t.blocks_.assign(nblocks, 0.0);
  t.set_pairs(true);
  return t;
}

void ArticulatedTree::set_torques(const std::vector<Vec3>& tau) { tau_ = tau; }

void ArticulatedTree::read(const State& s, std::vector<double>& x) const {
  x.assign(size(), 0.0);
  double* q = x.data();
  double* v = x.data() + nq_;
  // swing links: the frame and angular velocity of each link as read so far (parents come first)
  std::vector<Quat> frame(link_.size(), Quat::Identity());
  std::vector<Vec3> omega(link_.size(), Vec3::Zero());
  for (size_t i = 0; i < link_.size(); ++i) {
    const Link& L = link_[i];
    const Shape& F = shape_[i];
    const BodyState& B = s.bodies[L.body];
    const Quat qp = L.parent >= 0 ? s.bodies[link_[L.parent].body].q : F.base_q;
    const Vec3 wp = L.parent >= 0 ? s.bodies[link_[L.parent].body].w : Vec3::Zero();
    switch (L.kind) {
      case Kind::Free:
        Eigen::Map<Vec3>(q + L.iq) = B.x;
        store_quat(B.q.normalized(), q + L.iq + 3);
        Eigen::Map<Vec3>(v + L.iv) = B.w;
        Eigen::Map<Vec3>(v + L.iv + 3) = B.v - B.w.cross(B.x);
        break;
      case Kind::Ball:
        store_quat((qp.conjugate() * B.q).normalized(), q + L.iq);
        Eigen::Map<Vec3>(v + L.iv) = B.q.conjugate() * (B.w - wp);
        break;
      case Kind::Hinge: {
        const Quat d = F.q0.conjugate() * qp.conjugate() * B.q;
        q[L.iq] = 2 * std::atan2(d.vec().dot(F.axis_c), d.w());
        v[L.iv] = (B.q * F.axis_c).dot(B.w - wp);
        break;
      }
      case Kind::Fixed: break;
      case Kind::Rod: {
        // the rod's angle from -y and its rate, from the point mass relative to the parent point
        const Vec3 pp = L.parent >= 0 ? s.bodies[link_[L.parent].body].x : Vec3(F.base_x + F.base_q * L.anchor_p);
        const Vec3 vp = L.parent >= 0 ? s.bodies[link_[L.parent].body].v : Vec3(Vec3::Zero());
        const Vec3 d = B.x - pp, dv = B.v - vp;
        q[L.iq] = std::atan2(d.x(), -d.y());
        v[L.iv] = (d.x() * dv.y() - d.y() * dv.x()) / d.squaredNorm();
        break;
      }
      case Kind::Swing: {
        // the frame: the parent's turned by the smallest rotation that takes its -z to the rod (the
        // spin about the rod is free: a null direction of the point mass); the velocity: the rod's
        // turn rate normal to the rod less the parent frame's, in the child frame (its z part is 0)
        const Vec3 pp = L.parent >= 0 ? s.bodies[link_[L.parent].body].x : Vec3(F.base_x + F.base_q * L.anchor_p);
        const Vec3 vp = L.parent >= 0 ? s.bodies[link_[L.parent].body].v : Vec3(Vec3::Zero());
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

void ArticulatedTree::kinematics(const double* q, const double* v, bool dynamics) const {
  for (size_t i = 0; i < link_.size(); ++i) {
    const Link& L = link_[i];
    const Shape& F = shape_[i];
    Work& W = w_[i];
    if (L.kind == Kind::Ball) {
      const int link[2] = {static_cast<int>(i), static_cast<int>(i) + 1};
      if (pair_[i]) {
        kinematics_ball<Eigen::Array2d>(link, q, v, dynamics);
        ++i;
      } else {
        kinematics_ball<double>(link, q, v, dynamics);
      }
      continue;
    }
    // pose, reference point and motion subspace
    if (L.kind == Kind::Free) {
      W.x = Eigen::Map<const Vec3>(q + L.iq);
      W.o = W.x;
      W.r.setZero();
      W.Q = load_quat(q + L.iq + 3).normalized();
      W.R = W.Q.toRotationMatrix();
      S(static_cast<int>(i)).setIdentity();
    } else {
      Quat qp;
      Vec3 j;
      if (L.parent >= 0) {
        const Work& P = w_[L.parent];
        qp = P.Q;
        j = P.x + P.R * L.anchor_p;
      } else {
        qp = F.base_q;
        j = F.base_x + F.base_q * L.anchor_p;
      }
      W.o = j;
      W.r = L.parent >= 0 ? Vec3(W.o - w_[L.parent].o) : Vec3(Vec3::Zero());
      if (L.kind == Kind::Rod) {
        // a point mass: no orientation of its own
        const double phi = q[L.iq];
        W.Q = Quat::Identity();
        W.R.setIdentity();
        W.x = j + F.length * Vec3(std::sin(phi), -std::cos(phi), 0);
        S(static_cast<int>(i)).col(0) << 0, 0, 1, 0, 0, 0;
      } else if (L.kind == Kind::Swing) {
        // a point mass on a rod along -z of the link frame; turns about the frame's x and y axes
        W.Q = (qp * load_quat(q + L.iq).normalized()).normalized();
        W.R = W.Q.toRotationMatrix();
        W.x = j + F.length * (W.R * kRodAxis);
        MapS Si = S(static_cast<int>(i));
        Si.setZero();
        Si.block<3, 2>(0, 0) = W.R.leftCols<2>();
      } else {
        Quat rel = F.q0;
        if (L.kind == Kind::Hinge) rel = F.q0 * Quat(Eigen::AngleAxisd(q[L.iq], F.axis_c));
        W.Q = (qp * rel).normalized();
        W.R = W.Q.toRotationMatrix();
        W.x = j - W.R * L.anchor_c;
        if (L.kind == Kind::Hinge) {
          S(static_cast<int>(i)).col(0) << W.R * F.axis_c, 0, 0, 0;
        }
      }
    }
    // spatial inertia at o
    if (dynamics) {
      Mat6& I = IA(static_cast<int>(i));
      const Mat3 C = skew(W.x - W.o);
      const Mat3 mC = L.mass * C;
      const Mat3 mCCt = times_skew(mC, C.transpose());  // (m C) C^T, both skew
      if (L.kind == Kind::Rod || L.kind == Kind::Swing)
        I.topLeftCorner<3, 3>() = mCCt;
      else
        I.topLeftCorner<3, 3>() = W.R * F.inertia * W.R.transpose() + mCCt;
      I.topRightCorner<3, 3>() = mC;
      I.bottomLeftCorner<3, 3>() = mC.transpose();
      I.bottomRightCorner<3, 3>() = L.mass * Mat3::Identity();
    }
    if (!v) continue;
    // velocity and the velocity-product acceleration c = v x S qd
    const Eigen::Map<const VecX6> qd(v + L.iv, L.nd);
    if (L.kind == Kind::Free) {
      W.v = shift_motion(qd, W.x);  // (omega, v_O) at the COM
      W.c.setZero();
    } else if (L.kind == Kind::Rod) {
      // absolute rate phi' (the angular velocity's z) and the relative rate phi' - phi'_parent
      const Vec6 vp = parent_motion(static_cast<int>(i), L.parent >= 0 ? w_[L.parent].v : Vec6(Vec6::Zero()));
      const double rel = qd[0] - vp[2];
      W.v << 0, 0, qd[0], vp.tail<3>();
      if (dynamics) W.c = crm(W.v, S(static_cast<int>(i)).col(0) * rel);
    } else {
      const Vec6 sqd = S(static_cast<int>(i)) * qd;
      W.v = parent_motion(static_cast<int>(i), L.parent >= 0 ? w_[L.parent].v : Vec6(Vec6::Zero())) + sqd;
      if (dynamics) W.c = crm(W.v, sqd);
    }
    if (!dynamics) continue;
    // ABA pass 1 (fused here: one sweep over the links less): rigid-body inertia and bias force
    W.pA = crf(W.v, IA(static_cast<int>(i)) * W.v) - external_force(static_cast<int>(i));
  }
}

// The ball joints' kernels on lanes (lanes.hpp): n = 1 (T = double) or 2 (T = Array2d) links,
// gathered from and scattered to their Work, every operation lane by lane. A link at a fixed frame
// (parent -1) is given a fixed parent at its joint point: R_p = 0, o_p = j, v_p = a_p = 0.
template <class T>
void ArticulatedTree::kinematics_ball(const int* link, const double* q, const double* v, bool dynamics) const {
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  static constexpr double zero[9] = {};
  const double *px[2], *po[2], *pR[2], *pv[2], *pQ[2], *pq[2], *pap[2], *pac[2], *pJ[2], *ptau[2], *pqd[2], *pm[2];
  for (int l = 0; l < n; ++l) {
    const Link& L = link_[link[l]];
    const Shape& F = shape_[link[l]];
    if (L.parent >= 0) {
      const Work& P = w_[L.parent];
      px[l] = P.x.data(), po[l] = P.o.data(), pR[l] = P.R.data(), pv[l] = P.v.data(), pQ[l] = P.Q.coeffs().data();
    } else {
      px[l] = po[l] = F.base_j.data(), pR[l] = pv[l] = zero, pQ[l] = F.base_q.coeffs().data();
    }
    pq[l] = q + L.iq, pap[l] = L.anchor_p.data(), pac[l] = L.anchor_c.data(), pJ[l] = L.inertia_j.data();
    ptau[l] = tau_[L.body].data(), pm[l] = &L.mass, pqd[l] = v ? v + L.iv : zero;
  }
  const V3<T> xp = gather3<T>(px), op = gather3<T>(po), wp = gather3<T>(pv), ap = gather3<T>(pap),
              ac = gather3<T>(pac), tau = gather3<T>(ptau), qd = gather3<T>(pqd);
  const double* pvo[2] = {pv[0] + 3, pv[n - 1] + 3};
  const V3<T> vop = gather3<T>(pvo);
  const M3<T> Rp = gather33<T>(pR), J = gather33<T>(pJ);
  // Eigen's quaternions store (x, y, z, w); the state (w, x, y, z)
  const Q<T> Qp{gather<T>(pQ, 3), gather<T>(pQ, 0), gather<T>(pQ, 1), gather<T>(pQ, 2)};
  const Q<T> qr{gather<T>(pq, 0), gather<T>(pq, 1), gather<T>(pq, 2), gather<T>(pq, 3)};
  const T m = gather<T>(pm, 0);
  // pose: Q = q_parent q_rel normalised (|q_parent| = 1: the one normalisation), R as Eigen's
  // toRotationMatrix forms it, j = x_p + R_p anchor_p, d = x - o = -R anchor_c
  Q<T> Qc = product(Qp, qr);
  const T one(1.0), inv = one / sqrt_of(((Qc.w * Qc.w + Qc.x * Qc.x) + Qc.y * Qc.y) + Qc.z * Qc.z);
  Qc = {Qc.w * inv, Qc.x * inv, Qc.y * inv, Qc.z * inv};
  const T tx = Qc.x + Qc.x, ty = Qc.y + Qc.y, tz = Qc.z + Qc.z;
  const T twx = tx * Qc.w, twy = ty * Qc.w, twz = tz * Qc.w, txx = tx * Qc.x, txy = ty * Qc.x, txz = tz * Qc.x,
          tyy = ty * Qc.y, tyz = tz * Qc.y, tzz = tz * Qc.z;
  const M3<T> R{{{one - (tyy + tzz), txy - twz, txz + twy}, {txy + twz, one - (txx + tzz), tyz - twx},
                 {txz - twy, tyz + twx, one - (txx + tyy)}}};
  const V3<T> j = xp + times(Rp, ap), r = j - op, Rac = times(R, ac), d{-Rac.x, -Rac.y, -Rac.z}, x = j + d;
  // the spatial inertia at o: [A, m dx; (m dx)^T, m 1], A = R J R^T (symmetric: the upper triangle, mirrored)
  M3<T> A{};
  if (dynamics) {
    M3<T> RJ;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) RJ.m[a][b] = (R.m[a][0] * J.m[0][b] + R.m[a][1] * J.m[1][b]) + R.m[a][2] * J.m[2][b];
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b) A.m[a][b] = A.m[b][a] = dot(row(RJ, a), row(R, b));
  }
  const V3<T> md = scaled(m, d);
  // velocity: v = X v_p + (s, 0) with s = R qd; c = v x (s, 0); pass 1: p^A = v x* (I v) - f_ext,
  // I v = (A w + m d x v_o, m (v_o - d x w)) by the blocks of I, f_ext = (d x m g + tau, m g)
  V3<T> w{}, vo{}, ct{}, cb{}, pt{}, pb{};
  if (v) {
    const V3<T> s = times(R, qd);
    w = wp + s;
    vo = vop + cross(wp, r);
    if (dynamics) {
      ct = cross(w, s), cb = cross(vo, s);
      const V3<T> ht = times(A, w) + cross(md, vo), hb = scaled(m, vo - cross(d, w));
      const V3<T> fg{m * g_.x(), m * g_.y(), m * g_.z()};
      pt = (cross(w, ht) + cross(vo, hb)) - (cross(d, fg) + tau);
      pb = cross(w, hb) - fg;
    }
  }
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    Work& W = w_[i];
    W.Q = Quat(lane(Qc.w, l), lane(Qc.x, l), lane(Qc.y, l), lane(Qc.z, l));
    store(R, l, W.R);
    store(j, l, W.o);
    if (link_[i].parent >= 0)
      store(r, l, W.r);
    else
      W.r.setZero();
    store(x, l, W.x);
    if (dynamics) {  // ball_I: A's upper triangle, B = m dx by columns, D = m 1's upper triangle
      const double ml = lane(m, l), dx = lane(md.x, l), dy = lane(md.y, l), dz = lane(md.z, l);
      double* I = ball_I(i);
      I[0] = lane(A.m[0][0], l), I[1] = lane(A.m[0][1], l), I[2] = lane(A.m[0][2], l);
      I[3] = lane(A.m[1][1], l), I[4] = lane(A.m[1][2], l), I[5] = lane(A.m[2][2], l);
      I[6] = 0, I[7] = dz, I[8] = -dy, I[9] = -dz, I[10] = 0, I[11] = dx, I[12] = dy, I[13] = -dx, I[14] = 0;
      I[15] = ml, I[16] = 0, I[17] = 0, I[18] = ml, I[19] = 0, I[20] = ml;
    }
    if (!v) continue;
    store(w, l, W.v.head<3>()), store(vo, l, W.v.tail<3>());
    if (!dynamics) continue;
    store(ct, l, W.c.head<3>()), store(cb, l, W.c.tail<3>()), store(pt, l, W.pA.head<3>()), store(pb, l, W.pA.tail<3>());
  }
}

// Pass 2 of a ball joint. S = [R; 0] = S' R with the world-aligned S' = [1; 0] (R cancels from
// every product below). With I^A = [A B; B^T D]: U' = I^A S' = [A; B^T], D' = A, u' = -p^A_top, and
//   I^a = I^A - U' A^-1 U'^T = [0 0; 0 K],  K = D - B^T A^-1 B  (a Schur complement, symmetric)
//   p^a = p^A + I^a c + U' A^-1 u' = (0, p^A_bot + K c_bot + B^T g),  g = A^-1 u'
// exactly zero where the full products leave rounding: a ball joint transmits no moment. Pass 3
// needs G = A^-1 B and g. A, D and K are taken as symmetric (upper triangles).
template <class T>
void ArticulatedTree::articulate_ball(const int* link) const {
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  const double *pI[2], *pp[2], *pc[2], *pr[2];
  for (int l = 0; l < n; ++l) {
    const Work& W = w_[link[l]];
    pI[l] = ball_I(link[l]), pp[l] = W.pA.data(), pc[l] = W.c.data() + 3, pr[l] = W.r.data();
  }
  const double* pB[2] = {pI[0] + 6, pI[n - 1] + 6};
  const double* ppb[2] = {pp[0] + 3, pp[n - 1] + 3};
  auto sym = [&](int at) {  // a symmetric block from its upper triangle at ball_I + at
    const T s0 = gather<T>(pI, at), s1 = gather<T>(pI, at + 1), s2 = gather<T>(pI, at + 2), s3 = gather<T>(pI, at + 3),
            s4 = gather<T>(pI, at + 4), s5 = gather<T>(pI, at + 5);
    return M3<T>{{{s0, s1, s2}, {s1, s3, s4}, {s2, s4, s5}}};
  };
  const M3<T> A = sym(0), B = gather33<T>(pB), D = sym(15);
  const V3<T> pt = gather3<T>(pp), pb = gather3<T>(ppb), cb = gather3<T>(pc), r = gather3<T>(pr);
  const auto& a = A.m;
  // A^-1 by the cofactors of the symmetric A
  const T c00 = a[1][1] * a[2][2] - a[1][2] * a[1][2], c01 = a[1][2] * a[0][2] - a[0][1] * a[2][2],
          c02 = a[0][1] * a[1][2] - a[1][1] * a[0][2], c11 = a[0][0] * a[2][2] - a[0][2] * a[0][2],
          c12 = a[0][2] * a[0][1] - a[0][0] * a[1][2], c22 = a[0][0] * a[1][1] - a[0][1] * a[0][1];
  const T s = T(1.0) / ((a[0][0] * c00 + a[0][1] * c01) + a[0][2] * c02);  // 1 / det A
  const M3<T> Ai{{{c00 * s, c01 * s, c02 * s}, {c01 * s, c11 * s, c12 * s}, {c02 * s, c12 * s, c22 * s}}};
  M3<T> G;
  for (int b = 0; b < 3; ++b) {
    const V3<T> gb = times(Ai, column(B, b));
    G.m[0][b] = gb.x, G.m[1][b] = gb.y, G.m[2][b] = gb.z;
  }
  const V3<T> Aip = times(Ai, pt), g{-Aip.x, -Aip.y, -Aip.z};
  M3<T> K;
  for (int b = 0; b < 3; ++b)
    for (int c = b; c < 3; ++c) K.m[b][c] = K.m[c][b] = D.m[b][c] - dot(column(B, b), column(G, c));
  const V3<T> f = (pb + times(K, cb)) + times_transpose(B, g);
  // into the parent: X^T [0 0; 0 K] X = [rx K rx^T, rx K; (rx K)^T, K], X^T (0, f) = (r x f, f);
  // M = rx K by columns, rx K rx^T = rx M^T by the columns r x (row c of M) (mirrored)
  M3<T> M, Tm;
  for (int c = 0; c < 3; ++c) {
    const V3<T> mc = cross(r, column(K, c));
    M.m[0][c] = mc.x, M.m[1][c] = mc.y, M.m[2][c] = mc.z;
  }
  for (int c = 0; c < 3; ++c) {
    const V3<T> tc = cross(r, row(M, c));
    Tm.m[0][c] = tc.x, Tm.m[1][c] = tc.y, Tm.m[2][c] = tc.z;
  }
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < b; ++c) Tm.m[b][c] = Tm.m[c][b];
  const V3<T> rf = cross(r, f);
  for (int l = n - 1; l >= 0; --l) {  // the higher link first, as one at a time (pass 2 runs backwards)
    const int i = link[l];
    store(G, l, ball_G(i));
    store(g, l, ball_g(i));
    const int p = link_[i].parent;
    if (p < 0) continue;
    Work& P = w_[p];
    if (link_[p].kind == Kind::Ball) {  // ball_I: upper triangles and B
      double* I = ball_I(p);
      I[0] += lane(Tm.m[0][0], l), I[1] += lane(Tm.m[0][1], l), I[2] += lane(Tm.m[0][2], l);
      I[3] += lane(Tm.m[1][1], l), I[4] += lane(Tm.m[1][2], l), I[5] += lane(Tm.m[2][2], l);
      for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 3; ++b) I[6 + 3 * c + b] += lane(M.m[b][c], l);
      I[15] += lane(K.m[0][0], l), I[16] += lane(K.m[0][1], l), I[17] += lane(K.m[0][2], l);
      I[18] += lane(K.m[1][1], l), I[19] += lane(K.m[1][2], l), I[20] += lane(K.m[2][2], l);
    } else {
      Mat6& I = IA(p);
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) {
          I(b, c) += lane(Tm.m[b][c], l);
          I(b, 3 + c) += lane(M.m[b][c], l);
          I(3 + b, c) += lane(M.m[c][b], l);
          I(3 + b, 3 + c) += lane(K.m[b][c], l);
        }
    }
    P.pA(0) += lane(rf.x, l), P.pA(1) += lane(rf.y, l), P.pA(2) += lane(rf.z, l);
    P.pA(3) += lane(f.x, l), P.pA(4) += lane(f.y, l), P.pA(5) += lane(f.z, l);
  }
}

// Pass 3 of a ball joint in the basis of articulate_ball: a' = X a_p + c, qdd' = A^-1 (u' - A a'_top
// - B a'_bot), so the angular acceleration a_top = a'_top + qdd' = g - G a'_bot and a_bot = a'_bot;
// the state's rate is in the child frame, qdd = R^T qdd'
template <class T>
void ArticulatedTree::accelerate_ball(const int* link) const {
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  static constexpr double zero[6] = {};
  const double *pa[2], *pao[2], *pr[2], *pc[2], *pcb[2], *pG[2], *pg[2], *pR[2];
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    const Work& W = w_[i];
    pa[l] = link_[i].parent >= 0 ? w_[link_[i].parent].a.data() : zero, pao[l] = pa[l] + 3;
    pr[l] = W.r.data(), pc[l] = W.c.data(), pcb[l] = W.c.data() + 3, pG[l] = ball_G(i).data(), pg[l] = ball_g(i).data();
    pR[l] = W.R.data();
  }
  const V3<T> aw = gather3<T>(pa), ao = gather3<T>(pao), r = gather3<T>(pr), ct = gather3<T>(pc), cb = gather3<T>(pcb),
              g = gather3<T>(pg);
  const M3<T> G = gather33<T>(pG), R = gather33<T>(pR);
  const V3<T> a1t = aw + ct, a1b = (ao + cross(aw, r)) + cb;
  const V3<T> at = g - times(G, a1b), qdd = times_transpose(R, at - a1t);
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    Work& W = w_[i];
    store(at, l, W.a.head<3>()), store(a1b, l, W.a.tail<3>());
    store(qdd, l, Eigen::Map<Vec3>(this->qdd(i).data()));
  }
}

void ArticulatedTree::set_pairs(bool on) {
  const int n = static_cast<int>(link_.size());
  pair_.assign(link_.size(), 0);
  if (!on) return;
  for (int i = 0; i + 1 < n; ++i) {
    const Link &L = link_[i], &N = link_[i + 1];
    if (L.kind == Kind::Ball && N.kind == Kind::Ball && L.parent >= 0 && L.parent == N.parent) pair_[i++] = 1;
  }
}

ArticulatedTree::Vec6 ArticulatedTree::parent_motion(int i, const Vec6& m_parent) const {
  if (link_[i].parent < 0) return Vec6::Zero();
  return shift_motion(m_parent, w_[i].r);
}

ArticulatedTree::Vec6 ArticulatedTree::external_force(int i) const {
  const Link& L = link_[i];
  const Vec3 f = L.mass * g_;
  Vec6 r;
  r << (w_[i].x - w_[i].o).cross(f), f;
  if (L.kind != Kind::Rod && L.kind != Kind::Swing) r.head<3>() += tau_[L.body];  // a point mass carries no torque
  return r;
}

template <int ND>
void ArticulatedTree::articulate(int i, Mat6& Ia, Vec6& pa) const {
  constexpr int MX = ND == Eigen::Dynamic ? 6 : ND;     // the maximum size
  using MatS = Eigen::Matrix<double, 6, ND, 0, 6, MX>;    // (6 x nd)
  using MatD = Eigen::Matrix<double, ND, ND, 0, MX, MX>;  // (nd x nd)
  using VecD = Eigen::Matrix<double, ND, 1, 0, MX, 1>;    // (nd)
  const int nd = link_[i].nd;
  Work& W = w_[i];
  const Eigen::Map<const MatS> S(this->S(i).data(), 6, nd);
  Eigen::Map<MatS> U(this->U(i).data(), 6, nd);
  Eigen::Map<MatD> Dinv(this->Dinv(i).data(), nd, nd);
  Eigen::Map<VecD> u(this->u(i).data(), nd);
  U.noalias() = IA(i) * S;
  const MatD D = S.transpose() * U;
  if constexpr (ND == Eigen::Dynamic) {
    if (nd == 1)
      Dinv(0, 0) = 1.0 / D(0, 0);
    else
      Dinv = D.llt().solve(MatD::Identity(nd, nd));
  } else {
    Dinv = D.inverse();  // fixed size 3: Eigen's closed form (cofactors) of the SPD block, not a Cholesky
  }
  u.noalias() = -S.transpose() * W.pA;
  const MatS UD = U * Dinv;
  Ia.noalias() -= UD * U.transpose();
  pa += Ia * W.c + UD * u;
}

template <int ND>
void ArticulatedTree::accelerate(int i, const Vec6& a1) const {
  constexpr int MX = ND == Eigen::Dynamic ? 6 : ND;
  using MatS = Eigen::Matrix<double, 6, ND, 0, 6, MX>;
  using MatD = Eigen::Matrix<double, ND, ND, 0, MX, MX>;
  using VecD = Eigen::Matrix<double, ND, 1, 0, MX, 1>;
  const int nd = link_[i].nd;
  Work& W = w_[i];
  const Eigen::Map<const MatS> S(this->S(i).data(), 6, nd), U(this->U(i).data(), 6, nd);
  const Eigen::Map<const MatD> Dinv(this->Dinv(i).data(), nd, nd);
  Eigen::Map<VecD> qdd(this->qdd(i).data(), nd);
  qdd.noalias() = Dinv * (Eigen::Map<const VecD>(u(i).data(), nd) - U.transpose() * a1);
  W.a = a1 + S * qdd;
}

void ArticulatedTree::add_inertia(int i, const Mat6& I) const {
  if (link_[i].kind != Kind::Ball) {
    IA(i) += I;
    return;
  }
  double* b = ball_I(i);
  b[0] += I(0, 0), b[1] += I(0, 1), b[2] += I(0, 2), b[3] += I(1, 1), b[4] += I(1, 2), b[5] += I(2, 2);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) b[6 + 3 * c + r] += I(r, 3 + c);
  b[15] += I(3, 3), b[16] += I(3, 4), b[17] += I(3, 5), b[18] += I(4, 4), b[19] += I(4, 5), b[20] += I(5, 5);
}

void ArticulatedTree::aba() const {
  const int n = static_cast<int>(link_.size());
  // pass 1 (I^A = I, p^A = v x* I v - f_ext) ran in kinematics(); pass 2: articulated inertias and bias forces, leaves to root
  for (int i = n - 1; i >= 0; --i) {
    const Link& L = link_[i];
    if (L.kind == Kind::Ball) {
      if (i > 0 && pair_[i - 1]) {  // the second of a pair: both
        const int link[2] = {i - 1, i};
        articulate_ball<Eigen::Array2d>(link);
        --i;
      } else {
        articulate_ball<double>(&i);
      }
      continue;
    }
    Work& W = w_[i];
    Mat6 Ia = IA(i);
    Vec6 pa = W.pA;
    if (L.nd > 0)
      articulate<Eigen::Dynamic>(i, Ia, pa);
    else
      pa += Ia * W.c;
    if (L.parent >= 0) {
      add_inertia(L.parent, shift_inertia(Ia, W.r));
      w_[L.parent].pA += shift_force(pa, W.r);
    }
  }
  // pass 3: accelerations, root to leaves
  for (int i = 0; i < n; ++i) {
    const Link& L = link_[i];
    if (L.kind == Kind::Ball) {
      const int link[2] = {i, i + 1};
      if (pair_[i]) {
        accelerate_ball<Eigen::Array2d>(link);
        ++i;
      } else {
        accelerate_ball<double>(link);
      }
      continue;
    }
    Work& W = w_[i];
    const Vec6 a1 = parent_motion(i, L.parent >= 0 ? w_[L.parent].a : Vec6(Vec6::Zero())) + W.c;
    if (L.nd > 0)
      accelerate<Eigen::Dynamic>(i, a1);
    else
      W.a = a1;
  }
}

void ArticulatedTree::derivative(const std::vector<double>& x, std::vector<double>& dxdt) const {
  const double* q = x.data();
  const double* v = x.data() + nq_;
  kinematics(q, v);
  aba();
  dxdt.resize(x.size());
  double* dq = dxdt.data();
  double* dv = dxdt.data() + nq_;
  for (size_t i = 0; i < link_.size(); ++i) {
    const Link& L = link_[i];
    const Work& W = w_[i];
    switch (L.kind) {
      case Kind::Free: {
        // r' = v_c, q' = 1/2 [0, w] q (w in the world frame); v_O' = the acceleration at the origin
        const Vec3 w = W.v.head<3>();
        Eigen::Map<Vec3>(dq + L.iq) = W.v.tail<3>();
        const Quat qd = Quat(0, w.x(), w.y(), w.z()) * load_quat(q + L.iq + 3);
        store_quat(Quat(0.5 * qd.coeffs()), dq + L.iq + 3);
        Eigen::Map<Vec6>(dv + L.iv) = shift_motion(Vec6(qdd(static_cast<int>(i))), -W.x);
        continue;
      }
      case Kind::Ball: {
        // q_rel' = 1/2 q_rel [0, w_rel] (w_rel in the child frame), a pair of ball links on two lanes
        const size_t k = pair_[i] ? i + 1 : i;
        const double* qs[2] = {q + L.iq, q + link_[k].iq};
        const double* ws[2] = {v + L.iv, v + link_[k].iv};
        double* dqs[2] = {dq + L.iq, dq + link_[k].iq};
        if (k > i)
          quaternion_rates<Eigen::Array2d>(qs, ws, dqs);
        else
          quaternion_rates<double>(qs, ws, dqs);
        for (size_t j = i; j <= k; ++j)
          Eigen::Map<Vec3>(dv + link_[j].iv) = Eigen::Map<const Vec3>(qdd(static_cast<int>(j)).data());
        i = k;
        continue;
      }
      case Kind::Swing: {
        // the same with w_rel = (wx, wy, 0): no spin about the rod
        const Quat qd = load_quat(q + L.iq) * Quat(0, v[L.iv], v[L.iv + 1], 0);
        store_quat(Quat(0.5 * qd.coeffs()), dq + L.iq);
        break;
      }
      case Kind::Hinge: dq[L.iq] = v[L.iv]; break;
      case Kind::Fixed: break;
      case Kind::Rod:
        // absolute angle: phi'' = the z component of the link's angular acceleration
        dq[L.iq] = v[L.iv];
        dv[L.iv] = W.a[2];
        continue;
    }
    const MapV qi = qdd(static_cast<int>(i));
    for (int k = 0; k < L.nd; ++k) dv[L.iv + k] = qi[k];
  }
}

void ArticulatedTree::normalize(std::vector<double>& x) const {
  for (const Link& L : link_) {
    double* p = nullptr;
    if (L.kind == Kind::Free) p = x.data() + L.iq + 3;
    if (L.kind == Kind::Ball || L.kind == Kind::Swing) p = x.data() + L.iq;
    if (p) Eigen::Map<Eigen::Vector4d>(p).normalize();
  }
}

void ArticulatedTree::write(const std::vector<double>& x, State& s) const {
  kinematics(x.data(), x.data() + nq_, false);  // poses and velocities only
  const double* v = x.data() + nq_;
  for (size_t i = 0; i < link_.size(); ++i) {
    const Link& L = link_[i];
    const Shape& F = shape_[i];
    const Work& W = w_[i];
    BodyState& B = s.bodies[L.body];
    B.x = W.x;
    if (L.kind == Kind::Rod) {
      // the point mass's velocity: the parent point's plus the rod's turn (q and w untouched)
      const double phi = x[L.iq], w = v[L.iv];
      B.v = (L.parent >= 0 ? s.bodies[link_[L.parent].body].v : Vec3(Vec3::Zero())) +
            F.length * w * Vec3(std::cos(phi), std::sin(phi), 0);
      continue;
    }
    const Vec3 w = W.v.head<3>();
    B.v = W.v.tail<3>() + w.cross(W.x - W.o);  // v_c = v_o + w x (c - o)
    if (L.kind == Kind::Swing) continue;       // a point mass: q and w untouched
    B.q = W.Q;
    B.w = w;
  }
}

Eigen::VectorXd ArticulatedTree::accelerations_aba(const std::vector<double>& x) const {
  kinematics(x.data(), x.data() + nq_);
  aba();
  Eigen::VectorXd a(nv_);
  for (size_t i = 0; i < link_.size(); ++i) {
    const Link& L = link_[i];
    if (L.kind == Kind::Free)  // the state's convention: the acceleration at the world origin
      a.segment<6>(L.iv) = shift_motion(Vec6(qdd(static_cast<int>(i))), -w_[i].x);
    else
      a.segment(L.iv, L.nd) = qdd(static_cast<int>(i));
  }
  return a;
}

// The cross-check works at the world origin: motion subspaces of the last kinematics() shifted
// there (S_O; a free root's S_O = 1 for its velocity (omega, v_O)) and inertias formed there from
// each body's COM inertia (I_O), no transforms between links.
ArticulatedTree::Mat6X ArticulatedTree::subspace_at_origin(int i) const {
  const int nd = link_[i].nd;
  if (link_[i].kind == Kind::Free) return Mat6X::Identity(6, 6);
  Mat6X S(6, nd);
  for (int k = 0; k < nd; ++k) {
    Vec6 s;  // S at o (a ball joint keeps no S: [R; 0])
    if (link_[i].kind == Kind::Ball)
      s << w_[i].R.col(k), Vec3::Zero();
    else
      s = this->S(i).col(k);
    S.col(k) = shift_motion(s, -w_[i].o);
  }
  return S;
}

ArticulatedTree::Mat6 ArticulatedTree::inertia_at_origin(int i) const {
  const Link& L = link_[i];
  const Shape& F = shape_[i];
  const Work& W = w_[i];
  Mat6 Ic = Mat6::Zero();  // at the COM: [R I R^T, 0; 0, m 1] (a point mass: no rotational inertia)
  if (L.kind != Kind::Rod && L.kind != Kind::Swing) Ic.topLeftCorner<3, 3>() = W.R * F.inertia * W.R.transpose();
  Ic.bottomRightCorner<3, 3>() = L.mass * Mat3::Identity();
  return shift_inertia(Ic, W.x);
}

Eigen::MatrixXd ArticulatedTree::mass_matrix(const std::vector<double>& x) const {
  kinematics(x.data(), nullptr);
  const int n = static_cast<int>(link_.size());
  std::vector<Mat6X> S(n);
  std::vector<Mat6> Ic(n);
  for (int i = 0; i < n; ++i) {
    S[i] = subspace_at_origin(i);
    Ic[i] = inertia_at_origin(i);
  }
  // composite inertias, leaves to root
  for (int i = n - 1; i >= 0; --i)
    if (link_[i].parent >= 0) Ic[link_[i].parent] += Ic[i];
  // H_ii = S_i^T Ic_i S_i, H_ji = S_j^T Ic_i S_i for every ancestor j
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(nv_, nv_);
  for (int i = 0; i < n; ++i) {
    const Link& L = link_[i];
    if (L.nd == 0) continue;
    const Mat6X F = Ic[i] * S[i];
    H.block(L.iv, L.iv, L.nd, L.nd) = S[i].transpose() * F;
    for (int j = L.parent; j >= 0; j = link_[j].parent) {
      const Link& A = link_[j];
      if (A.nd == 0) continue;
      H.block(A.iv, L.iv, A.nd, L.nd) = S[j].transpose() * F;
      H.block(L.iv, A.iv, L.nd, A.nd) = H.block(A.iv, L.iv, A.nd, L.nd).transpose();
    }
  }
  return H;
}

Eigen::VectorXd ArticulatedTree::accelerations_crba(const std::vector<double>& x) const {
  const Eigen::MatrixXd H = mass_matrix(x);
  kinematics(x.data(), x.data() + nq_);
  const int n = static_cast<int>(link_.size());
  // bias C by recursive Newton-Euler with qdd = 0, at the world origin
  std::vector<Vec6> a(n), f(n);
  for (int i = 0; i < n; ++i) {
    const Work& W = w_[i];
    const Mat6 I = inertia_at_origin(i);
    const Vec6 v = shift_motion(W.v, -W.o);
    a[i] = (link_[i].parent >= 0 ? a[link_[i].parent] : Vec6(Vec6::Zero())) + shift_motion(W.c, -W.o);
    f[i] = I * a[i] + crf(v, I * v) - shift_force(external_force(i), W.o);
  }
  Eigen::VectorXd C(nv_);
  for (int i = n - 1; i >= 0; --i) {
    const Link& L = link_[i];
    C.segment(L.iv, L.nd) = subspace_at_origin(i).transpose() * f[i];
    if (L.parent >= 0) f[L.parent] += f[i];
  }
  return H.llt().solve(-C);
}

}  // namespace mb
