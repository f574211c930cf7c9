// URDF import: the joint-space mass matrix at the initial pose (urdf_conventions.hpp
// check_mass_matrix).
#ifdef MBBENCH_WITH_URDF
#include <algorithm>
#include <cmath>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/formats/urdf_conventions.hpp"
#include "models/kinematics.hpp"
#include "models/model.hpp"

namespace mb::urdf_import {

namespace {

Mat3 cross_matrix(const Vec3& r) {
  Mat3 rx;
  rx << 0, -r.z(), r.y(), r.z(), 0, -r.x(), -r.y(), r.x(), 0;
  return rx;
}

}  // namespace

// M = sum_b m_b Jv_b^T Jv_b + Jw_b^T I_b Jw_b (Jv_b, Jw_b: the velocity of b's centre of mass and
// its angular velocity per joint rate); its Cholesky pivots in the joints' order (parents first;
// the free root's 6 first): a pivot of zero names the joint whose motion, the ones before it held,
// moves no mass.
void check_mass_matrix(const Model& m, bool free_base, const std::string& path) {
  const int nb = static_cast<int>(m.bodies.size()), nj = static_cast<int>(m.joints.size()), base = free_base ? 6 : 0;
  std::vector<int> joint_of(static_cast<size_t>(nb), -1);  // the joint that moves each body
  std::vector<int> column(static_cast<size_t>(nj) + 1, base);  // each joint's first column (a ball has 3)
  for (int k = 0; k < nj; ++k) {
    const Joint& j = m.joints[static_cast<size_t>(k)];
    joint_of[static_cast<size_t>(j.b)] = k;
    column[static_cast<size_t>(k) + 1] = column[static_cast<size_t>(k)] + (j.type == JointType::Ball ? 3 : 1);
  }
  const int n = column.back();
  Eigen::MatrixXd M = Eigen::MatrixXd::Zero(n, n);
  for (int b = 0; b < nb; ++b) {
    const Body& body = m.bodies[static_cast<size_t>(b)];
    const Mat3 R = body.orientation.toRotationMatrix();
    Eigen::MatrixXd Jv = Eigen::MatrixXd::Zero(3, n), Jw = Eigen::MatrixXd::Zero(3, n);
    int root = b;
    for (int k = joint_of[static_cast<size_t>(b)]; k >= 0;) {
      const Joint& j = m.joints[static_cast<size_t>(k)];
      const Body& child = m.bodies[static_cast<size_t>(j.b)];
      const Vec3 axis = child.orientation * j.axis_b, anchor = child.position + child.orientation * j.anchor_b;
      const int c = column[static_cast<size_t>(k)];
      if (j.type == JointType::Slider) {
        Jv.col(c) = axis;
      } else if (j.type == JointType::Ball) {  // the world angular velocity's three components
        Jw.block<3, 3>(0, c) = Mat3::Identity();
        Jv.block<3, 3>(0, c) = -cross_matrix(body.position - anchor);
      } else {
        Jw.col(c) = axis;
        Jv.col(c) = axis.cross(body.position - anchor);
      }
      root = j.a;
      k = j.a == kWorld ? -1 : joint_of[static_cast<size_t>(j.a)];
    }
    if (free_base && root != kWorld) {  // the free root: its centre's velocity, then its angular velocity
      Jv.block<3, 3>(0, 0) = Mat3::Identity();
      Jw.block<3, 3>(0, 3) = Mat3::Identity();
      Jv.block<3, 3>(0, 3) = -cross_matrix(body.position - m.bodies[static_cast<size_t>(root)].position);  // w x r
    }
    M += body.mass * Jv.transpose() * Jv + Jw.transpose() * (R * body.inertia * R.transpose()) * Jw;
  }
  const double scale = M.diagonal().cwiseAbs().maxCoeff();
  Eigen::MatrixXd L = Eigen::MatrixXd::Zero(n, n);
  for (int c = 0; c < n; ++c) {
    const double d = M(c, c) - L.row(c).head(c).squaredNorm();
    if (!(d > 1e-12 * scale)) {
      if (c < base)
        throw InputError(path, 0, fmt::format("link[{}]", m.bodies[0].name),
                         fmt::format("base=free: the floating base cannot turn about its {} axis: no body has inertia about it (point masses "
                                     "on one line)", "xyz"[c % 3]));
      int k = 0;
      while (column[static_cast<size_t>(k) + 1] <= c) ++k;
      const Joint& j = m.joints[static_cast<size_t>(k)];
      throw InputError(path, 0, fmt::format("joint[{}]", j.name),
                       fmt::format("the joint-space mass matrix at the initial pose is singular at joint '{}': its motion, the joints before "
                                   "it held, moves no mass (joints through massless links that move the mass alike, point masses "
                                   "turned about themselves)", j.name));
    }
    L(c, c) = std::sqrt(d);
    for (int r = c + 1; r < n; ++r) L(r, c) = (M(r, c) - L.row(r).head(c).dot(L.row(c).head(c))) / L(c, c);
  }
}

// The inertia about p of a group's mass: J_p = J_O - m S(c) + m S(c - p), S(d) = |d|^2 E - d d^T
// (the parallel-axis theorem through the centre of mass c). A moment counts as zero below 1e-12 of
// the group's largest, or of its mass at 1 mm (round-off of a point mass written on the axis).
std::vector<bool> idle_joints(std::vector<GroupMass> groups) {
  const auto S = [](const Vec3& d) -> Mat3 { return d.squaredNorm() * Mat3::Identity() - d * d.transpose(); };
  std::vector<bool> idle(groups.size(), false), busy(groups.size(), false);  // busy: a child that is not idle
  for (size_t g = groups.size(); g-- > 1;) {
    GroupMass& G = groups[g];
    const size_t parent = static_cast<size_t>(G.parent);
    Mat3 Jp = G.second;
    if (G.mass > 0) {
      const Vec3 c = G.moment / G.mass;
      Jp += G.mass * (S(c - G.anchor) - S(c));
    }
    const double zero = 1e-12 * std::max(Jp.trace(), G.mass * 1e-6);
    switch (G.kind) {
      case GroupMass::Kind::Slider: idle[g] = G.mass == 0; break;
      case GroupMass::Kind::Hinge: idle[g] = G.axis.normalized().dot(Jp * G.axis.normalized()) <= zero; break;
      case GroupMass::Kind::Ball: idle[g] = Jp.trace() <= 1e-12 * G.mass * 1e-6; break;
      case GroupMass::Kind::Free: idle[g] = G.mass == 0 && G.second.isZero(0); break;
      case GroupMass::Kind::Root: break;
    }
    idle[g] = idle[g] && !G.coupled && (!busy[g] || G.kind == GroupMass::Kind::Free);
    if (!idle[g]) {
      busy[parent] = true;
      continue;
    }
    groups[parent].mass += G.mass;
    groups[parent].moment += G.moment;
    groups[parent].second += G.second;
  }
  return idle;
}

std::vector<std::string> free_bodies(Model& m, const std::vector<int>& bodies, int root, bool strict, const std::string& path) {
  std::vector<std::string> points;
  for (const int b : bodies) {
    const Body body = m.bodies[static_cast<size_t>(b)];
    if (is_spd(body.inertia)) continue;
    const bool lone = std::none_of(m.joints.begin(), m.joints.end(), [b](const Joint& j) { return j.a == b || j.b == b; });
    if (!lone || strict || !(body.inertia.trace() <= 1e-15 * body.mass)) {
      if (b == root) continue;  // the floating base: check_mass_matrix
      throw InputError(path, 0, fmt::format("link[{}]", body.name),
                       "a link that no joint holds floats, and its inertia is singular: it cannot turn about every axis");
    }
    int parent = kWorld;
    for (int k = 0; k < 3; ++k) {
      int child = b;
      if (k < 2) {
        Body f;
        f.name = body.name + "/" + "xy"[k];
        f.frame = true;
        f.position = body.position;
        child = static_cast<int>(m.bodies.size());
        m.bodies.push_back(f);
      }
      Joint j;
      j.name = body.name + "/t" + "xyz"[k];
      j.type = JointType::Slider;
      j.a = parent;
      j.b = child;
      j.anchor_a = parent == kWorld ? body.position : Vec3::Zero();
      j.anchor_b = Vec3::Zero();
      j.axis_a = Vec3::Unit(k);
      j.rel_orientation = child == b ? body.orientation : Quat::Identity();
      j.axis_b = j.rel_orientation.conjugate() * j.axis_a;
      m.joints.push_back(j);
      parent = child;
    }
    points.push_back(body.name);
  }
  return points;
}

}  // namespace mb::urdf_import

#endif
