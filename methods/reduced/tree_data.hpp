// The per-evaluation arrays of the tree algorithms over a TreeModel (tree_model.hpp): sized once
// from the model, written by tree_kinematics, aba and crba, never shared between threads. The
// model stays const; everything an evaluation writes lives here.
#pragma once
#include <cassert>
#include <vector>

#include "methods/reduced/tree_model.hpp"

namespace mb {

// Per-link scratch of one evaluation, in link order (the passes stream through it).
struct LinkWork {
  Quat Q;          // body->world, unit
  Mat3 R;
  Vec3 x, o;       // COM and reference point o (the joint point; the COM for a free root), world
  Vec3 r;          // o - o_parent (X from the parent's point to o; 0 at a fixed parent)
  Vec6 v, c, pA, a;
  size_t blocks = 0;  // offset of the link's blocks in TreeData::blocks (see TreeData)
  size_t ia = 0;      // index of the link's I^A in TreeData::IA (every joint but the ball)
};

struct TreeData {
  TreeData() = default;
  explicit TreeData(const TreeModel& model);

  std::vector<LinkWork> work;  // (links)
  // The run-time-size blocks of every link at their sizes (no room kept for 6 degrees of freedom
  // at every link: a ball link's scratch, its LinkWork and blocks, is 672 bytes). Every joint but
  // the ball: S (6 x nd), U = I^A S (6 x nd), D^-1 (nd x nd), u (nd), qdd (nd): (14 + nd) nd
  // numbers; a ball joint: G = A^-1 B (9), g = A^-1 u' (3), qdd (3) and its I^A as the 21 numbers
  // its pass 2 reads (ball_I below): 36 numbers.
  std::vector<double> blocks;
  // I^A of every link but the ball joints: the spatial inertia at o after kinematics, the
  // articulated inertia after pass 2
  std::vector<Mat6> IA;
  std::vector<Vec3> tau;  // (nbody) applied torques, world frame, held until the next set
  std::vector<double> ctrl;  // (TreeModel::actuators) the controls, held until the next set
  // (links, when the model has joint forces) a hinge's or slider's joint force, -damping qd plus
  // its actuator's force, at the evaluated state (tree_kinematics), which pass 2 adds to u
  std::vector<double> joint_force;
  // (links, with couplings) the couplings' generalized forces of the evaluation, added to
  // joint_force (ReducedSystem::derivative)
  std::vector<double> coupling_force;
};

// The sizes of a link's blocks in TreeData::blocks.
inline size_t link_block_size(const TreeLink& L) {
  return L.kind == TreeJoint::Ball ? 36 : static_cast<size_t>((14 + L.nd) * L.nd);
}
inline size_t link_qdd_offset(const TreeLink& L) {
  return L.kind == TreeJoint::Ball ? 12 : static_cast<size_t>((13 + L.nd) * L.nd);
}

// A model and its data together, for the algorithms' own use: the blocks of link i at their
// sizes, and the spatial quantities every pass forms the same way.
struct TreeView {
  using Mat6X = Eigen::Matrix<double, 6, Eigen::Dynamic, 0, 6, 6>;               // (6 x nd), nd <= 6
  using MatXX6 = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, 0, 6, 6>;  // (nd x nd)
  using VecX6 = Eigen::Matrix<double, Eigen::Dynamic, 1, 0, 6, 1>;                // (nd)
  using MapS = Eigen::Map<Mat6X>;   // (6 x nd)
  using MapD = Eigen::Map<MatXX6>;  // (nd x nd)
  using MapV = Eigen::Map<VecX6>;   // (nd)

  const TreeModel& m;
  TreeData& d;

  const TreeLink& link(int i) const { return m.link[i]; }
  LinkWork& w(int i) const { return d.work[i]; }
  double* block(int i) const { return d.blocks.data() + d.work[i].blocks; }

  // every joint but the ball
  MapS S(int i) const { assert(link(i).kind != TreeJoint::Ball); return MapS(block(i), 6, link(i).nd); }  // motion subspace at o
  MapS U(int i) const { assert(link(i).kind != TreeJoint::Ball); return MapS(block(i) + 6 * link(i).nd, 6, link(i).nd); }  // I^A S
  MapD Dinv(int i) const { assert(link(i).kind != TreeJoint::Ball); return MapD(block(i) + 12 * link(i).nd, link(i).nd, link(i).nd); }
  MapV u(int i) const { assert(link(i).kind != TreeJoint::Ball); return MapV(block(i) + (12 + link(i).nd) * link(i).nd, link(i).nd); }
  MapV qdd(int i) const { return MapV(block(i) + link_qdd_offset(link(i)), link(i).nd); }
  Mat6& IA(int i) const { assert(link(i).kind != TreeJoint::Ball); return d.IA[d.work[i].ia]; }
  // a ball joint's pass-2 results for pass 3 (ball_accelerate): G = A^-1 B and g = A^-1 u'
  Eigen::Map<Mat3> ball_G(int i) const { assert(link(i).kind == TreeJoint::Ball); return Eigen::Map<Mat3>(block(i)); }
  Eigen::Map<Vec3> ball_g(int i) const { return Eigen::Map<Vec3>(block(i) + 9); }
  // a ball link's I^A = [A B; B^T D]: A's upper triangle row by row (6), B column by column (9)
  // and D's upper triangle (6)
  double* ball_I(int i) const { assert(link(i).kind == TreeJoint::Ball); return block(i) + 15; }

  // I^A_i += I (symmetric I: a ball link adds its upper triangles)
  void add_inertia(int i, const Mat6& I) const;
  // X m_parent (0 at a fixed parent)
  Vec6 parent_motion(int i, const Vec6& m_parent) const {
    if (link(i).parent < 0) return Vec6::Zero();
    return shift_motion(m_parent, d.work[i].r);
  }
  // gravity and the applied torque at o_i (a point mass carries no torque)
  Vec6 external_force(int i) const {
    const TreeLink& L = link(i);
    const Vec3 f = L.mass * m.gravity;
    Vec6 r;
    r << (d.work[i].x - d.work[i].o).cross(f), f;
    if (L.kind != TreeJoint::Rod && L.kind != TreeJoint::Swing) r.head<3>() += d.tau[L.body];
    return r;
  }
};

}  // namespace mb
