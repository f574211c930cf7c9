// The ball joints' kernels of the tree algorithms (S = [R; 0]): their kinematics, pass 2 and pass
// 3 in world-aligned joint axes, and the quaternion rates, on a number type T: double for one link
// (link[0]), Eigen::Array2d for two (link[0], link[1]: ball joints on one parent, one per SSE2
// lane; methods/bodies/lanes.hpp) with the same bits as one at a time where the compiler forms no
// fused multiply-add (the x86-64 SSE2 build of the presets).
//
// A ball joint passes on an articulated inertia [0 0; 0 K] and a bias force (0, f): no moment
// through a ball. With I^A = [A B; B^T D] (A, B, D 3 x 3) and the world-aligned S' = [1; 0] (R
// cancels from every product):
//   U' = I^A S' = [A; B^T], D' = A, u' = -p^A_top
//   I^a = I^A - U' A^-1 U'^T = [0 0; 0 K],  K = D - B^T A^-1 B  (a Schur complement, symmetric)
//   p^a = p^A + I^a c + U' A^-1 u' = (0, p^A_bot + K c_bot + B^T g),  g = A^-1 u'
// exactly zero where the full products leave rounding; pass 3 gives the angular acceleration
// g - G a'_bot with G = A^-1 B. A ball link's spatial inertia at its joint point comes from its
// inertia about that point (constant in the body frame).
#pragma once
#include "methods/reduced/tree_data.hpp"

namespace mb {

// pose, velocity, the spatial inertia at the joint point and pass 1 of links link[0..n) (with
// `dynamics`; without v: poses only)
template <class T>
void ball_kinematics(const TreeModel& model, TreeData& data, const int* link, const double* q, const double* v, bool dynamics);
// pass 2, added into the parent (link[1] first)
template <class T>
void ball_articulate(const TreeModel& model, TreeData& data, const int* link);
// pass 3 (a' = X a_parent + c formed here)
template <class T>
void ball_accelerate(const TreeModel& model, TreeData& data, const int* link);
// q' = 1/2 q [0, w] of one quaternion (T = double) or two (Array2d) stored (w, x, y, z) at q[l], w
// at w[l], into dq[l]: Eigen's quaternion product, the bits of Quat * Quat
template <class T>
void quaternion_rates(const double* const* q, const double* const* w, double* const* dq);

extern template void ball_kinematics<double>(const TreeModel&, TreeData&, const int*, const double*, const double*, bool);
extern template void ball_kinematics<Eigen::Array2d>(const TreeModel&, TreeData&, const int*, const double*, const double*, bool);
extern template void ball_articulate<double>(const TreeModel&, TreeData&, const int*);
extern template void ball_articulate<Eigen::Array2d>(const TreeModel&, TreeData&, const int*);
extern template void ball_accelerate<double>(const TreeModel&, TreeData&, const int*);
extern template void ball_accelerate<Eigen::Array2d>(const TreeModel&, TreeData&, const int*);
extern template void quaternion_rates<double>(const double* const*, const double* const*, double* const*);
extern template void quaternion_rates<Eigen::Array2d>(const double* const*, const double* const*, double* const*);

}  // namespace mb
