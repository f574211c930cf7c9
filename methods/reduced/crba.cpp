#include "methods/reduced/crba.hpp"

#include "methods/reduced/tree_kinematics.hpp"

namespace mb {

// The cross-check works at the world origin: motion subspaces of the last tree_kinematics() shifted
// there (S_O; a free root's S_O = 1 for its velocity (omega, v_O)) and inertias formed there from
// each body's COM inertia (I_O), no transforms between links.
namespace {

using Mat6X = TreeView::Mat6X;

// S_i referred to the world origin
Mat6X subspace_at_origin(const TreeView& tv, int i) {
  const TreeModel& model = tv.m;
  const TreeData& data = tv.d;
  const int nd = model.link[i].nd;
  if (model.link[i].kind == TreeJoint::Free) return Mat6X::Identity(6, 6);
  Mat6X S(6, nd);
  for (int k = 0; k < nd; ++k) {
    Vec6 s;  // S at o (a ball joint keeps no S: [R; 0])
    if (model.link[i].kind == TreeJoint::Ball)
      s << data.work[i].R.col(k), Vec3::Zero();
    else
      s = tv.S(i).col(k);
    S.col(k) = shift_motion(s, -data.work[i].o);
  }
  return S;
}

// the spatial inertia of link i at the world origin from its body's mass and inertia about the
// COM (independent of the inertia the kinematics form at o)
Mat6 inertia_at_origin(const TreeView& tv, int i) {
  const TreeModel& model = tv.m;
  const TreeData& data = tv.d;
  const TreeLink& L = model.link[i];
  const LinkSetup& F = model.setup[i];
  const LinkWork& W = data.work[i];
  Mat6 Ic = Mat6::Zero();  // at the COM: [R I R^T, 0; 0, m 1] (a point mass: no rotational inertia)
  if (L.kind != TreeJoint::Rod && L.kind != TreeJoint::Swing) Ic.topLeftCorner<3, 3>() = W.R * F.inertia * W.R.transpose();
  Ic.bottomRightCorner<3, 3>() = L.mass * Mat3::Identity();
  return shift_inertia(Ic, W.x);
}

}  // namespace

Eigen::MatrixXd mass_matrix(const TreeModel& model, TreeData& data, const std::vector<double>& x) {
  const TreeView tv{model, data};
  tree_kinematics(model, data, x.data(), nullptr);
  const int n = static_cast<int>(model.link.size());
  std::vector<Mat6X> S(n);
  std::vector<Mat6> Ic(n);
  for (int i = 0; i < n; ++i) {
    S[i] = subspace_at_origin(tv, i);
    Ic[i] = inertia_at_origin(tv, i);
  }
  // composite inertias, leaves to root
  for (int i = n - 1; i >= 0; --i)
    if (model.link[i].parent >= 0) Ic[model.link[i].parent] += Ic[i];
  // H_ii = S_i^T Ic_i S_i, H_ji = S_j^T Ic_i S_i for every ancestor j
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(model.nv, model.nv);
  for (int i = 0; i < n; ++i) {
    const TreeLink& L = model.link[i];
    if (L.nd == 0) continue;
    const Mat6X F = Ic[i] * S[i];
    H.block(L.iv, L.iv, L.nd, L.nd) = S[i].transpose() * F;
    for (int j = L.parent; j >= 0; j = model.link[j].parent) {
      const TreeLink& A = model.link[j];
      if (A.nd == 0) continue;
      H.block(A.iv, L.iv, A.nd, L.nd) = S[j].transpose() * F;
      H.block(L.iv, A.iv, L.nd, A.nd) = H.block(A.iv, L.iv, A.nd, L.nd).transpose();
    }
  }
  return H;
}

Eigen::VectorXd crba_accelerations(const TreeModel& model, TreeData& data, const std::vector<double>& x) {
  const TreeView tv{model, data};
  const Eigen::MatrixXd H = mass_matrix(model, data, x);
  tree_kinematics(model, data, x.data(), x.data() + model.nq);
  const int n = static_cast<int>(model.link.size());
  // bias C by recursive Newton-Euler with qdd = 0, at the world origin
  std::vector<Vec6> a(n), f(n);
  for (int i = 0; i < n; ++i) {
    const LinkWork& W = data.work[i];
    const Mat6 I = inertia_at_origin(tv, i);
    const Vec6 v = shift_motion(W.v, -W.o);
    a[i] = (model.link[i].parent >= 0 ? a[model.link[i].parent] : Vec6(Vec6::Zero())) + shift_motion(W.c, -W.o);
    f[i] = I * a[i] + crf(v, I * v) - shift_force(tv.external_force(i), W.o);
  }
  Eigen::VectorXd C(model.nv);
  for (int i = n - 1; i >= 0; --i) {
    const TreeLink& L = model.link[i];
    C.segment(L.iv, L.nd) = subspace_at_origin(tv, i).transpose() * f[i];
    if (L.parent >= 0) f[L.parent] += f[i];
  }
  return H.llt().solve(-C);
}

}  // namespace mb
