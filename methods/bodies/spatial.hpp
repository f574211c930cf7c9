// Spatial algebra (featherstone2008 "Rigid Body Dynamics Algorithms", ch. 2) in world-aligned
// coordinates. A motion vector m = (omega, v_o) and a force vector f = (n_o, f) are referred to a
// point o; moving the reference point by r (from o to o + r) is
//   motion  X   = [1 0; -rx 1]:  (omega, v + omega x r)
//   force   X^T = [1 rx; 0 1]:   back from o + r to o, (n + r x f, f)
//   inertia X^T I X:             an inertia at o + r expressed at o
// The one home of these types and operations: the reduced-coordinate tree (methods/reduced/) and
// the constraint system (methods/constraints/constraint_system.hpp) both include it.
#pragma once
#include <Eigen/Core>

#include "models/model.hpp"

namespace mb {

using Vec6 = Eigen::Matrix<double, 6, 1>;
using Mat6 = Eigen::Matrix<double, 6, 6>;

// The cross-product matrix a* with a* x = a x x.
inline Mat3 skew(const Vec3& a) {
  Mat3 m;
  m << 0, -a.z(), a.y(), a.z(), 0, -a.x(), -a.y(), a.x(), 0;
  return m;
}

// motion cross product v x m (featherstone2008 eq. 2.31)
inline Vec6 crm(const Vec6& v, const Vec6& m) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(m.head<3>());
  r.tail<3>() = v.head<3>().cross(m.tail<3>()) + v.tail<3>().cross(m.head<3>());
  return r;
}

// force cross product v x* f (featherstone2008 eq. 2.32)
inline Vec6 crf(const Vec6& v, const Vec6& f) {
  Vec6 r;
  r.head<3>() = v.head<3>().cross(f.head<3>()) + v.tail<3>().cross(f.tail<3>());
  r.tail<3>() = v.head<3>().cross(f.tail<3>());
  return r;
}

// a motion vector at a point o expressed at o + r: (omega, v + omega x r)
inline Vec6 shift_motion(const Vec6& m, const Vec3& r) {
  Vec6 out;
  out << m.head<3>(), m.tail<3>() + m.head<3>().cross(r);
  return out;
}

// a force at o + r expressed at o: (n + r x f, f), the transpose X^T of shift_motion
inline Vec6 shift_force(const Vec6& f, const Vec3& r) {
  Vec6 out;
  out << f.head<3>() + r.cross(f.tail<3>()), f.tail<3>();
  return out;
}

// M K for a skew-symmetric K (a cross-product matrix, zero diagonal): every entry is a sum of two
// products, K's zero term skipped. A sum of the three products with one of them exactly zero has
// the value of the other two's sum in any order, so these are the bits of the general product
// M * K at a third of its multiplications.
inline Mat3 times_skew(const Mat3& M, const Mat3& K) {
  Mat3 out;
  for (int j = 0; j < 3; ++j) {
    const int a = (j + 1) % 3, b = (j + 2) % 3;
    for (int i = 0; i < 3; ++i) out(i, j) = M(i, a) * K(a, j) + M(i, b) * K(b, j);
  }
  return out;
}
// K M for a skew-symmetric K: the same two products per entry, K's zero term skipped (the bits of
// (M^T K^T)^T by times_skew: each entry's products in the same order)
inline Mat3 skew_times(const Mat3& K, const Mat3& M) {
  Mat3 out;
  for (int i = 0; i < 3; ++i) {
    const int a = (i + 1) % 3, b = (i + 2) % 3;
    for (int j = 0; j < 3; ++j) out(i, j) = M(a, j) * K(i, a) + M(b, j) * K(i, b);
  }
  return out;
}

// an inertia at o + r expressed at o: X^T I X with X = [1 0; -rx 1] (blocks of I: [A B; C D])
inline Mat6 shift_inertia(const Mat6& I, const Vec3& r) {
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

}  // namespace mb
