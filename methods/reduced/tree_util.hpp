// Small helpers of the tree algorithms (methods/reduced/): quaternions stored (w, x, y, z) in the
// state vector, and the rod direction of a swing link.
#pragma once
#include "models/model.hpp"

namespace mb {

// quaternion (w, x, y, z) stored at p
inline Quat load_quat(const double* p) { return Quat(p[0], p[1], p[2], p[3]); }
inline void store_quat(const Quat& q, double* p) {
  p[0] = q.w();
  p[1] = q.x();
  p[2] = q.y();
  p[3] = q.z();
}

// the rod of a swing link points along -z of its frame
inline const Vec3 kRodAxis(0, 0, -1);

}  // namespace mb
