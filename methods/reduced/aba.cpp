#include "methods/reduced/aba.hpp"

#include "methods/reduced/ball_kernels.hpp"
#include "methods/reduced/tree_kinematics.hpp"
#include "methods/reduced/tree_util.hpp"

namespace mb {

namespace {

// Pass 2 of link i (nd > 0): U, D^-1, u; returns I^a and p^A + I^a c + U D^-1 u for the parent.
// Pass 3 of link i (nd > 0): qdd and a from a' = X a_p + c. ND: nd at compile time, or
// Eigen::Dynamic (the run-time-size path every joint but the ball takes). Ball joints take
// ball_articulate / ball_accelerate (ball_kernels.hpp).
template <int ND>
void articulate(const TreeView& tv, int i, Mat6& Ia, Vec6& pa) {
  constexpr int MX = ND == Eigen::Dynamic ? 6 : ND;     // the maximum size
  using MatS = Eigen::Matrix<double, 6, ND, 0, 6, MX>;    // (6 x nd)
  using MatD = Eigen::Matrix<double, ND, ND, 0, MX, MX>;  // (nd x nd)
  using VecD = Eigen::Matrix<double, ND, 1, 0, MX, 1>;    // (nd)
  const int nd = tv.m.link[i].nd;
  LinkWork& W = tv.d.work[i];
  const Eigen::Map<const MatS> S(tv.S(i).data(), 6, nd);
  Eigen::Map<MatS> U(tv.U(i).data(), 6, nd);
  Eigen::Map<MatD> Dinv(tv.Dinv(i).data(), nd, nd);
  Eigen::Map<VecD> u(tv.u(i).data(), nd);
  U.noalias() = tv.IA(i) * S;
  const MatD D = S.transpose() * U;
  if constexpr (ND == Eigen::Dynamic) {
    if (nd == 1)
      Dinv(0, 0) = 1.0 / D(0, 0);
    else
      Dinv = D.llt().solve(MatD::Identity(nd, nd));
  } else {
    Dinv = D.inverse();  // fixed size 3: Eigen's closed form (cofactors) of the SPD block, not a Cholesky
  }
  u.noalias() = -S.transpose() * W.pA;
  if (tv.m.joint_forces) u[0] += tv.d.joint_force[i];  // the joint force Q (zero but on a damped or actuated hinge or slider)
  const MatS UD = U * Dinv;
  Ia.noalias() -= UD * U.transpose();
  pa += Ia * W.c + UD * u;
}

template <int ND>
void accelerate(const TreeView& tv, int i, const Vec6& a1) {
  constexpr int MX = ND == Eigen::Dynamic ? 6 : ND;
  using MatS = Eigen::Matrix<double, 6, ND, 0, 6, MX>;
  using MatD = Eigen::Matrix<double, ND, ND, 0, MX, MX>;
  using VecD = Eigen::Matrix<double, ND, 1, 0, MX, 1>;
  const int nd = tv.m.link[i].nd;
  LinkWork& W = tv.d.work[i];
  const Eigen::Map<const MatS> S(tv.S(i).data(), 6, nd), U(tv.U(i).data(), 6, nd);
  const Eigen::Map<const MatD> Dinv(tv.Dinv(i).data(), nd, nd);
  Eigen::Map<VecD> qdd(tv.qdd(i).data(), nd);
  qdd.noalias() = Dinv * (Eigen::Map<const VecD>(tv.u(i).data(), nd) - U.transpose() * a1);
  W.a = a1 + S * qdd;
}

}  // namespace

void aba(const TreeModel& model, TreeData& data) {
  const TreeView tv{model, data};
  const int n = static_cast<int>(model.link.size());
  // pass 1 (I^A = I, p^A = v x* I v - f_ext) ran in tree_kinematics(); pass 2: articulated inertias and bias forces, leaves to root
  for (int i = n - 1; i >= 0; --i) {
    const TreeLink& L = model.link[i];
    if (L.kind == TreeJoint::Ball) {
      if (i > 0 && model.pair[i - 1]) {  // the second of a pair: both
        const int link[2] = {i - 1, i};
        ball_articulate<Eigen::Array2d>(model, data, link);
        --i;
      } else {
        ball_articulate<double>(model, data, &i);
      }
      continue;
    }
    LinkWork& W = data.work[i];
    Mat6 Ia = tv.IA(i);
    Vec6 pa = W.pA;
    if (!model.is_prescribed.empty() && model.is_prescribed[i])  // qdd given: the parent carries I^A whole
      pa += Ia * (W.c + tv.S(i) * tv.qdd(i));
    else if (L.nd > 0)
      articulate<Eigen::Dynamic>(tv, i, Ia, pa);
    else
      pa += Ia * W.c;
    if (L.parent >= 0) {
      tv.add_inertia(L.parent, shift_inertia(Ia, W.r));
      data.work[L.parent].pA += shift_force(pa, W.r);
    }
  }
  // pass 3: accelerations, root to leaves
  for (int i = 0; i < n; ++i) {
    const TreeLink& L = model.link[i];
    if (L.kind == TreeJoint::Ball) {
      const int link[2] = {i, i + 1};
      if (model.pair[i]) {
        ball_accelerate<Eigen::Array2d>(model, data, link);
        ++i;
      } else {
        ball_accelerate<double>(model, data, link);
      }
      continue;
    }
    LinkWork& W = data.work[i];
    const Vec6 a1 = tv.parent_motion(i, L.parent >= 0 ? data.work[L.parent].a : Vec6(Vec6::Zero())) + W.c;
    if (!model.is_prescribed.empty() && model.is_prescribed[i])
      W.a = a1 + tv.S(i) * tv.qdd(i);
    else if (L.nd > 0)
      accelerate<Eigen::Dynamic>(tv, i, a1);
    else
      W.a = a1;
  }
}

void tree_derivative(const TreeModel& model, TreeData& data, const std::vector<double>& x, std::vector<double>& dxdt) {
  const TreeView tv{model, data};
  const double* q = x.data();
  const double* v = x.data() + model.nq;
  tree_kinematics(model, data, q, v);
  aba(model, data);
  dxdt.resize(x.size());
  double* dq = dxdt.data();
  double* dv = dxdt.data() + model.nq;
  for (size_t i = 0; i < model.link.size(); ++i) {
    const TreeLink& L = model.link[i];
    const LinkWork& W = data.work[i];
    switch (L.kind) {
      case TreeJoint::Free: {
        // r' = v_c, q' = 1/2 [0, w] q (w in the world frame); v_O' = the acceleration at the origin
        const Vec3 w = W.v.head<3>();
        Eigen::Map<Vec3>(dq + L.iq) = W.v.tail<3>();
        const Quat qd = Quat(0, w.x(), w.y(), w.z()) * load_quat(q + L.iq + 3);
        store_quat(Quat(0.5 * qd.coeffs()), dq + L.iq + 3);
        Eigen::Map<Vec6>(dv + L.iv) = shift_motion(Vec6(tv.qdd(static_cast<int>(i))), -W.x);
        continue;
      }
      case TreeJoint::Ball: {
        // q_rel' = 1/2 q_rel [0, w_rel] (w_rel in the child frame), a pair of ball links on two lanes
        const size_t k = model.pair[i] ? i + 1 : i;
        const double* qs[2] = {q + L.iq, q + model.link[k].iq};
        const double* ws[2] = {v + L.iv, v + model.link[k].iv};
        double* dqs[2] = {dq + L.iq, dq + model.link[k].iq};
        if (k > i)
          quaternion_rates<Eigen::Array2d>(qs, ws, dqs);
        else
          quaternion_rates<double>(qs, ws, dqs);
        for (size_t j = i; j <= k; ++j)
          Eigen::Map<Vec3>(dv + model.link[j].iv) = Eigen::Map<const Vec3>(tv.qdd(static_cast<int>(j)).data());
        i = k;
        continue;
      }
      case TreeJoint::Swing: {
        // the same with w_rel = (wx, wy, 0): no spin about the rod
        const Quat qd = load_quat(q + L.iq) * Quat(0, v[L.iv], v[L.iv + 1], 0);
        store_quat(Quat(0.5 * qd.coeffs()), dq + L.iq);
        break;
      }
      case TreeJoint::Hinge:
      case TreeJoint::Slider: dq[L.iq] = v[L.iv]; break;
      case TreeJoint::Cardan:
      case TreeJoint::Planar:
      case TreeJoint::Cylindrical:
        for (int k = 0; k < L.nd; ++k) dq[L.iq + k] = v[L.iv + k];
        break;
      case TreeJoint::Fixed: break;
      case TreeJoint::Rod:
        // absolute angle: phi'' = the z component of the link's angular acceleration
        dq[L.iq] = v[L.iv];
        dv[L.iv] = W.a[2];
        continue;
    }
    const TreeView::MapV qi = tv.qdd(static_cast<int>(i));
    for (int k = 0; k < L.nd; ++k) dv[L.iv + k] = qi[k];
  }
}

Eigen::VectorXd aba_accelerations(const TreeModel& model, TreeData& data, const std::vector<double>& x) {
  const TreeView tv{model, data};
  tree_kinematics(model, data, x.data(), x.data() + model.nq);
  aba(model, data);
  Eigen::VectorXd a(model.nv);
  for (size_t i = 0; i < model.link.size(); ++i) {
    const TreeLink& L = model.link[i];
    if (L.kind == TreeJoint::Free)  // the state's convention: the acceleration at the world origin
      a.segment<6>(L.iv) = shift_motion(Vec6(tv.qdd(static_cast<int>(i))), -data.work[i].x);
    else
      a.segment(L.iv, L.nd) = tv.qdd(static_cast<int>(i));
  }
  return a;
}

}  // namespace mb
