#include "methods/reduced/crba.hpp"

#include "methods/reduced/tree_kinematics.hpp"

namespace mb {

// H works at the world origin: motion subspaces of the last tree_kinematics() shifted there (S_O;
// a free root's S_O = 1 for its velocity (omega, v_O)) and inertias formed there from each body's
// COM inertia (I_O), no transforms between links.
using Mat6X = TreeView::Mat6X;

Mat6X subspace_at_origin(const TreeModel& model, TreeData& data, int i) {
  const TreeView tv{model, data};
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

namespace {

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

void mass_matrix_lower(const TreeModel& model, TreeData& data, const double* q, std::vector<Mat6X>& S,
                       std::vector<Eigen::Triplet<double>>& entries) {
  const TreeView tv{model, data};
  tree_kinematics(model, data, q, nullptr);
  const int n = static_cast<int>(model.link.size());
  S.resize(static_cast<size_t>(n));
  std::vector<Mat6> Ic(static_cast<size_t>(n));
  for (int i = 0; i < n; ++i) {
    S[i] = subspace_at_origin(model, data, i);
    Ic[i] = inertia_at_origin(tv, i);
  }
  // composite inertias, leaves to root
  for (int i = n - 1; i >= 0; --i)
    if (model.link[i].parent >= 0) Ic[model.link[i].parent] += Ic[i];
  // H_ii = S_i^T Ic_i S_i, H_ij = S_i^T Ic_i S_j for every ancestor j (rows of i below columns of j)
  entries.clear();
  for (int i = 0; i < n; ++i) {
    const TreeLink& L = model.link[i];
    if (L.nd == 0) continue;
    const Mat6X F = Ic[i] * S[i];
    const Eigen::MatrixXd Hii = S[i].transpose() * F;
    for (int c = 0; c < L.nd; ++c)
      for (int r = c; r < L.nd; ++r) entries.emplace_back(L.iv + r, L.iv + c, Hii(r, c));
    for (int j = L.parent; j >= 0; j = model.link[j].parent) {
      const TreeLink& A = model.link[j];
      if (A.nd == 0) continue;
      const Eigen::MatrixXd Hij = F.transpose() * S[j];
      for (int c = 0; c < A.nd; ++c)
        for (int r = 0; r < L.nd; ++r) entries.emplace_back(L.iv + r, A.iv + c, Hij(r, c));
    }
  }
}

Eigen::MatrixXd mass_matrix(const TreeModel& model, TreeData& data, const std::vector<double>& x) {
  std::vector<Mat6X> S;
  std::vector<Eigen::Triplet<double>> entries;
  mass_matrix_lower(model, data, x.data(), S, entries);
  Eigen::MatrixXd H = Eigen::MatrixXd::Zero(model.nv, model.nv);
  for (const auto& e : entries) H(e.row(), e.col()) = H(e.col(), e.row()) = e.value();
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
    C.segment(L.iv, L.nd) = subspace_at_origin(model, data, i).transpose() * f[i];
    if (L.parent >= 0) f[L.parent] += f[i];
  }
  return H.llt().solve(-C);
}

}  // namespace mb
