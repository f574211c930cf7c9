#include "methods/reduced/tree_data.hpp"

namespace mb {

TreeData::TreeData(const TreeModel& model) {
  work.resize(model.link.size());
  size_t nia = 0, nblocks = 0;
  for (size_t i = 0; i < model.link.size(); ++i) {
    if (model.link[i].kind != TreeJoint::Ball) work[i].ia = nia++;
    work[i].blocks = nblocks;
    nblocks += link_block_size(model.link[i]);
  }
  // uninitialized: tree_kinematics sets every I^A (the spatial inertia at o) before a pass reads it
  IA.resize(nia);
  blocks.assign(nblocks, 0.0);
  tau.assign(static_cast<size_t>(model.nbody), Vec3::Zero());
  if (model.joint_forces) joint_force.assign(model.link.size(), 0.0);
  if (!model.couplings.empty()) coupling_force.assign(model.link.size(), 0.0);
  ctrl.assign(model.actuators.size(), 0.0);
}

void TreeView::add_inertia(int i, const Mat6& I) const {
  if (link(i).kind != TreeJoint::Ball) {
    IA(i) += I;
    return;
  }
  double* b = ball_I(i);
  b[0] += I(0, 0), b[1] += I(0, 1), b[2] += I(0, 2), b[3] += I(1, 1), b[4] += I(1, 2), b[5] += I(2, 2);
  for (int c = 0; c < 3; ++c)
    for (int r = 0; r < 3; ++r) b[6 + 3 * c + r] += I(r, 3 + c);
  b[15] += I(3, 3), b[16] += I(3, 4), b[17] += I(3, 5), b[18] += I(4, 4), b[19] += I(4, 5), b[20] += I(5, 5);
}

}  // namespace mb
