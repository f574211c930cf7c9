// Small vectors, quaternions and 3 x 3 matrices on a number type T: double (one body or link) or
// Eigen::Array2d (two, one per lane of an SSE2 packet). Every operation acts lane by lane, so an
// item gets the same bits on a lane as alone (where the compiler forms no fused multiply-add from
// a scalar product and sum: the x86-64 SSE2 build of the presets). The shared part behind the paired free motion
// (free_motion.cpp) and the paired ball joints of the articulated-body algorithm
// (methods/reduced/ball_kernels.cpp).
//
// cross, product, rotate and times are Eigen's formulas term by term (its cross product, its SSE2
// Quaternion<double> product and q * v, its 3 x 3 matrix-vector product), so on doubles they give
// the bits of the Eigen expressions they replace (tests/impulse_test.cpp checks the free motion
// built from them against those expressions). The other helpers (dot, times_transpose, the
// gathers) are ours, not Eigen's order. Every helper is always inlined: an Array2d triple returned through memory costs
// more than its arithmetic.
#pragma once
#include <cmath>
#include <type_traits>

#include <Eigen/Core>

namespace mb::lanes {

template <class T>
struct V3 {
  T x, y, z;
};
template <class T>
struct Q {
  T w, x, y, z;
};
// a 3 x 3 matrix, row by row
template <class T>
struct M3 {
  T m[3][3];
};

// lane l of t (double: t itself)
inline double& lane(double& t, int) { return t; }
inline double& lane(Eigen::Array2d& t, int l) { return t[l]; }
inline double lane(const double& t, int) { return t; }
inline double lane(const Eigen::Array2d& t, int l) { return t[l]; }

template <class T>
EIGEN_ALWAYS_INLINE V3<T> operator+(const V3<T>& a, const V3<T>& b) {
  return {a.x + b.x, a.y + b.y, a.z + b.z};
}
template <class T>
EIGEN_ALWAYS_INLINE V3<T> operator-(const V3<T>& a, const V3<T>& b) {
  return {a.x - b.x, a.y - b.y, a.z - b.z};
}
template <class T, class S>
EIGEN_ALWAYS_INLINE V3<T> scaled(const S& s, const V3<T>& a) {
  return {s * a.x, s * a.y, s * a.z};
}
template <class T>
EIGEN_ALWAYS_INLINE T dot(const V3<T>& a, const V3<T>& b) {
  return (a.x * b.x + a.y * b.y) + a.z * b.z;
}
template <class T>
EIGEN_ALWAYS_INLINE V3<T> cross(const V3<T>& a, const V3<T>& b) {
  return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x};
}
template <class T>
EIGEN_ALWAYS_INLINE Q<T> product(const Q<T>& a, const Q<T>& b) {  // Eigen's SSE2 form (Geometry_SIMD.h)
  return {(a.w * b.w - a.y * b.y) - (a.z * b.z + a.x * b.x), (a.w * b.x + a.y * b.z) - (a.z * b.y - a.x * b.w),
          (a.w * b.y + a.y * b.w) + (a.z * b.x - a.x * b.z), (a.w * b.z - a.y * b.x) + (a.z * b.w + a.x * b.y)};
}
template <class T>
EIGEN_ALWAYS_INLINE V3<T> rotate(const Q<T>& q, const V3<T>& v) {  // q * v: uv = 2 q.vec x v, v + w uv + q.vec x uv
  const V3<T> qv{q.x, q.y, q.z};
  V3<T> uv = cross(qv, v);
  uv = {uv.x + uv.x, uv.y + uv.y, uv.z + uv.z};
  const V3<T> c = cross(qv, uv);
  return {(v.x + q.w * uv.x) + c.x, (v.y + q.w * uv.y) + c.y, (v.z + q.w * uv.z) + c.z};
}
template <class T>
EIGEN_ALWAYS_INLINE Q<T> conjugate(const Q<T>& q) {
  return {q.w, -q.x, -q.y, -q.z};
}
// M v as Eigen's Matrix3d * Vector3d sums it (rows 0 and 1 in column order, row 2 as
// m20 v0 + (m21 v1 + m22 v2)). Diagonal: M by its diagonal products (for a diagonal M the sums
// add zeros to them: the same numbers but for the sign of an exact zero).
template <bool Diagonal = false, class T>
EIGEN_ALWAYS_INLINE V3<T> times(const M3<T>& M, const V3<T>& v) {
  const auto& m = M.m;
  if constexpr (Diagonal) {
    return {m[0][0] * v.x, m[1][1] * v.y, m[2][2] * v.z};
  } else {
    return {(m[0][0] * v.x + m[0][1] * v.y) + m[0][2] * v.z, (m[1][0] * v.x + m[1][1] * v.y) + m[1][2] * v.z,
            m[2][0] * v.x + (m[2][1] * v.y + m[2][2] * v.z)};
  }
}
// M^T v
template <class T>
EIGEN_ALWAYS_INLINE V3<T> times_transpose(const M3<T>& M, const V3<T>& v) {
  const auto& m = M.m;
  return {(m[0][0] * v.x + m[1][0] * v.y) + m[2][0] * v.z, (m[0][1] * v.x + m[1][1] * v.y) + m[2][1] * v.z,
          (m[0][2] * v.x + m[1][2] * v.y) + m[2][2] * v.z};
}
template <class T>
EIGEN_ALWAYS_INLINE V3<T> column(const M3<T>& M, int c) {
  return {M.m[0][c], M.m[1][c], M.m[2][c]};
}
template <class T>
EIGEN_ALWAYS_INLINE V3<T> row(const M3<T>& M, int r) {
  return {M.m[r][0], M.m[r][1], M.m[r][2]};
}
// T from the numbers at p[0][k] (and p[1][k]): one lane per pointer, built in a register
template <class T>
EIGEN_ALWAYS_INLINE T gather(const double* const* p, int k) {
  if constexpr (std::is_same_v<T, double>)
    return p[0][k];
  else
    return T(p[0][k], p[1][k]);
}
// a vector at p[l] (3 numbers), a column-major 3 x 3 matrix at p[l] with leading dimension ld
template <class T>
EIGEN_ALWAYS_INLINE V3<T> gather3(const double* const* p) {
  return {gather<T>(p, 0), gather<T>(p, 1), gather<T>(p, 2)};
}
template <class T>
EIGEN_ALWAYS_INLINE M3<T> gather33(const double* const* p, int ld = 3) {
  M3<T> M;
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) M.m[r][c] = gather<T>(p, r + ld * c);
  return M;
}
inline double sqrt_of(double x) { return std::sqrt(x); }
inline Eigen::Array2d sqrt_of(const Eigen::Array2d& x) { return x.sqrt(); }

// lane l of a vector, matrix or quaternion from (to) Eigen's types or anything indexed alike
template <class T, class E>
void load(V3<T>& v, int l, const E& e) {
  lane(v.x, l) = e(0), lane(v.y, l) = e(1), lane(v.z, l) = e(2);
}
template <class T, class E>
void store(const V3<T>& v, int l, E&& e) {
  e(0) = lane(v.x, l), e(1) = lane(v.y, l), e(2) = lane(v.z, l);
}
template <class T, class E>
void load(M3<T>& M, int l, const E& e) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) lane(M.m[r][c], l) = e(r, c);
}
template <class T, class E>
void store(const M3<T>& M, int l, E&& e) {
  for (int r = 0; r < 3; ++r)
    for (int c = 0; c < 3; ++c) e(r, c) = lane(M.m[r][c], l);
}

}  // namespace mb::lanes
