// Forward kinematics of a TreeModel (tree_model.hpp) into its TreeData, and the Cartesian state
// from the reduced one.
//
// Spatial algebra in world-aligned coordinates (methods/bodies/spatial.hpp), each link's
// quantities referred to its own point o_i (the joint point; the COM for a free root; a slider's
// moving joint point on the child) so that every number stays of the size of a link, however far
// the link is from the world origin (a chain of 16383 rods reaches 16 km). Spatial inertia of a
// body of mass m, COM c, world inertia Ic = R I R^T, at o with d = c - o:
// I = [Ic + m dx dx^T, m dx; m dx^T, m 1]. From the parent's point to the child's
// (r = o_i - o_parent) motion vectors transform by X = [1 0; -rx 1] and forces back by X^T; each
// point is taken as a fixed point at the instant, so Featherstone's equations hold unchanged in
// every link's coordinates. Joint i: v_i = X v_p + S_i qd_i with S_i fixed in body i, so
// dS_i/dt = v_i x S_i and c_i = v_i x S_i qd_i (a hinge: S = (R axis, 0); a slider: (0, R axis)).
#pragma once
#include <vector>

#include "methods/reduced/tree_data.hpp"

namespace mb {

// Q, R, x, o, r, S and the spatial inertia (in I^A; a ball link: no S, the inertia in ball_I) of
// every link from q (nq); with velocities v (nv) also v, c and the articulated-body algorithm's
// pass 1 (I^A = the spatial inertia, p^A = v x* I v - f_ext). Without `dynamics`: poses and
// velocities only; v may be null (poses only).
void tree_kinematics(const TreeModel& model, TreeData& data, const double* q, const double* v, bool dynamics = true);

// The Cartesian state (x, q, v, w of every body of the tree) from x = (q, v).
void write_state(const TreeModel& model, TreeData& data, const std::vector<double>& x, State& s);

}  // namespace mb
