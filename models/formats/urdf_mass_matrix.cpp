// URDF import: the joint-space mass matrix at the initial pose (urdf_conventions.hpp
// check_mass_matrix).
#ifdef MBBENCH_WITH_URDF
#include <cmath>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/formats/urdf_conventions.hpp"
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
                       fmt::format("the joint-space mass matrix at the initial pose is singular at joint '{}': its motion moves no mass "
                                   "(a point mass on its axis, a thin rod along it or a massless link, with nothing else beyond it)", j.name));
    }
    L(c, c) = std::sqrt(d);
    for (int r = c + 1; r < n; ++r) L(r, c) = (M(r, c) - L.row(r).head(c).dot(L.row(c).head(c))) / L(c, c);
  }
}

}  // namespace mb::urdf_import

#endif
