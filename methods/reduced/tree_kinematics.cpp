#include "methods/reduced/tree_kinematics.hpp"

#include <cmath>

#include "methods/reduced/ball_kernels.hpp"
#include "methods/reduced/tree_util.hpp"
#include "models/actuators.hpp"
#include "models/kinematics.hpp"

namespace mb {

void tree_kinematics(const TreeModel& model, TreeData& data, const double* q, const double* v, bool dynamics) {
  const TreeView tv{model, data};
  for (size_t i = 0; i < model.link.size(); ++i) {
    const TreeLink& L = model.link[i];
    const LinkSetup& F = model.setup[i];
    LinkWork& W = data.work[i];
    if (L.kind == TreeJoint::Ball) {
      const int link[2] = {static_cast<int>(i), static_cast<int>(i) + 1};
      if (model.pair[i]) {
        ball_kinematics<Eigen::Array2d>(model, data, link, q, v, dynamics);
        ++i;
      } else {
        ball_kinematics<double>(model, data, link, q, v, dynamics);
      }
      continue;
    }
    // pose, reference point and motion subspace
    if (L.kind == TreeJoint::Free) {
      W.x = Eigen::Map<const Vec3>(q + L.iq);
      W.o = W.x;
      W.r.setZero();
      W.Q = load_quat(q + L.iq + 3).normalized();
      W.R = W.Q.toRotationMatrix();
      tv.S(static_cast<int>(i)).setIdentity();
    } else {
      Quat qp;
      Vec3 j;
      if (L.parent >= 0) {
        const LinkWork& P = data.work[L.parent];
        qp = P.Q;
        j = P.x + P.R * L.anchor_p;
      } else {
        qp = F.base_q;
        j = F.base_x + F.base_q * L.anchor_p;
      }
      W.o = j;
      W.r = L.parent >= 0 ? Vec3(W.o - data.work[L.parent].o) : Vec3(Vec3::Zero());
      if (L.kind == TreeJoint::Rod) {
        // a point mass: no orientation of its own
        const double phi = q[L.iq];
        W.Q = Quat::Identity();
        W.R.setIdentity();
        W.x = j + F.length * Vec3(std::sin(phi), -std::cos(phi), 0);
        tv.S(static_cast<int>(i)).col(0) << 0, 0, 1, 0, 0, 0;
      } else if (L.kind == TreeJoint::Swing) {
        // a point mass on a rod along -z of the link frame; turns about the frame's x and y axes
        W.Q = (qp * load_quat(q + L.iq).normalized()).normalized();
        W.R = W.Q.toRotationMatrix();
        W.x = j + F.length * (W.R * kRodAxis);
        TreeView::MapS Si = tv.S(static_cast<int>(i));
        Si.setZero();
        Si.block<3, 2>(0, 0) = W.R.leftCols<2>();
      } else {
        Quat rel = F.q0;
        if (L.kind == TreeJoint::Hinge) rel = F.q0 * Quat(Eigen::AngleAxisd(q[L.iq], F.axis_c));
        if (L.kind == TreeJoint::Cardan)
          rel = Quat(Eigen::AngleAxisd(q[L.iq], F.axis_p)) * F.q0 * Quat(Eigen::AngleAxisd(q[L.iq + 1], F.axis_c));
        if (L.kind == TreeJoint::Planar) rel = F.q0 * Quat(Eigen::AngleAxisd(q[L.iq + 2], F.axis_c));
        if (L.kind == TreeJoint::Cylindrical) rel = F.q0 * Quat(Eigen::AngleAxisd(q[L.iq], F.axis_c));
        W.Q = (qp * rel).normalized();
        W.R = W.Q.toRotationMatrix();
        W.x = j - W.R * L.anchor_c;
        if (L.kind == TreeJoint::Hinge) {
          tv.S(static_cast<int>(i)).col(0) << W.R * F.axis_c, 0, 0, 0;
        } else if (L.kind == TreeJoint::Cardan) {
          TreeView::MapS Si = tv.S(static_cast<int>(i));
          Si.col(0) << qp * F.axis_p, 0, 0, 0;
          Si.col(1) << W.R * F.axis_c, 0, 0, 0;
        } else if (L.kind == TreeJoint::Planar) {
          // o: the child's joint point, (s_1, s_2) in the plane from the parent's
          const auto P = orthogonal_basis(F.axis_p);
          const Vec3 u1 = qp * Vec3(P.row(0).transpose()), u2 = qp * Vec3(P.row(1).transpose());
          W.o = j + q[L.iq] * u1 + q[L.iq + 1] * u2;
          W.x = W.o - W.R * L.anchor_c;
          if (L.parent >= 0) W.r = W.o - data.work[L.parent].o;
          TreeView::MapS Si = tv.S(static_cast<int>(i));
          Si.col(0) << 0, 0, 0, u1;
          Si.col(1) << 0, 0, 0, u2;
          Si.col(2) << W.R * F.axis_c, 0, 0, 0;
        } else if (L.kind == TreeJoint::Cylindrical) {
          // o: the child's joint point, s along the axis from the parent's
          const Vec3 u = W.R * F.axis_c;
          W.o = j + q[L.iq + 1] * u;
          W.x = W.o - W.R * L.anchor_c;
          if (L.parent >= 0) W.r = W.o - data.work[L.parent].o;
          TreeView::MapS Si = tv.S(static_cast<int>(i));
          Si.col(0) << u, 0, 0, 0;
          Si.col(1) << 0, 0, 0, u;
        } else if (L.kind == TreeJoint::Slider) {
          // o: the child's joint point, s along the axis from the parent's
          const Vec3 u = W.R * F.axis_c;
          W.o = j + q[L.iq] * u;
          W.x = W.o - W.R * L.anchor_c;
          if (L.parent >= 0) W.r = W.o - data.work[L.parent].o;
          tv.S(static_cast<int>(i)).col(0) << 0, 0, 0, u;
        }
      }
    }
    // spatial inertia at o
    if (dynamics) {
      Mat6& I = tv.IA(static_cast<int>(i));
      const Mat3 C = skew(W.x - W.o);
      const Mat3 mC = L.mass * C;
      const Mat3 mCCt = times_skew(mC, C.transpose());  // (m C) C^T, both skew
      if (L.kind == TreeJoint::Rod || L.kind == TreeJoint::Swing)
        I.topLeftCorner<3, 3>() = mCCt;
      else
        I.topLeftCorner<3, 3>() = W.R * F.inertia * W.R.transpose() + mCCt;
      I.topRightCorner<3, 3>() = mC;
      I.bottomLeftCorner<3, 3>() = mC.transpose();
      I.bottomRightCorner<3, 3>() = L.mass * Mat3::Identity();
    }
    if (!v) continue;
    // velocity and the velocity-product acceleration c = v x S qd
    const Eigen::Map<const TreeView::VecX6> qd(v + L.iv, L.nd);
    if (L.kind == TreeJoint::Free) {
      W.v = shift_motion(qd, W.x);  // (omega, v_O) at the COM
      W.c.setZero();
    } else if (L.kind == TreeJoint::Rod) {
      // absolute rate phi' (the angular velocity's z) and the relative rate phi' - phi'_parent
      const Vec6 vp = tv.parent_motion(static_cast<int>(i), L.parent >= 0 ? data.work[L.parent].v : Vec6(Vec6::Zero()));
      const double rel = qd[0] - vp[2];
      W.v << 0, 0, qd[0], vp.tail<3>();
      if (dynamics) W.c = crm(W.v, tv.S(static_cast<int>(i)).col(0) * rel);
    } else {
      const Vec6 sqd = tv.S(static_cast<int>(i)) * qd;
      W.v = tv.parent_motion(static_cast<int>(i), L.parent >= 0 ? data.work[L.parent].v : Vec6(Vec6::Zero())) + sqd;
      if (dynamics) W.c = crm(W.v, sqd);
      if (dynamics && L.kind == TreeJoint::Cardan) {  // u_1 turns with the parent, not the child
        const TreeView::MapS Si = tv.S(static_cast<int>(i));
        W.c.head<3>() += (qd[0] * qd[1]) * Vec3(Si.col(0).head<3>()).cross(Vec3(Si.col(1).head<3>()));
      }
      if (dynamics && L.kind == TreeJoint::Planar) {  // the slide directions turn with the parent, not the child
        const TreeView::MapS Si = tv.S(static_cast<int>(i));
        const Vec3 slide = qd[0] * Vec3(Si.col(0).tail<3>()) + qd[1] * Vec3(Si.col(1).tail<3>());
        W.c.tail<3>() += qd[2] * slide.cross(Vec3(Si.col(2).head<3>()));
      }
    }
    if (!dynamics) continue;
    if (model.joint_forces) data.joint_force[i] = -F.damping * (L.nd == 1 ? qd[0] : 0.0);
    // ABA pass 1 (fused here: one sweep over the links less): rigid-body inertia and bias force
    W.pA = crf(W.v, tv.IA(static_cast<int>(i)) * W.v) - tv.external_force(static_cast<int>(i));
  }
  // the actuators' joint forces at this state, from the link's coordinate (a hinge's wrapped into
  // (-pi, pi], as the Cartesian methods read it)
  if (dynamics && v)
    for (const TreeActuator& A : model.actuators) {
      const TreeLink& L = model.link[static_cast<size_t>(A.link)];
      const double qj = A.sign * q[L.iq];
      const double coord = (L.kind == TreeJoint::Hinge ? wrap_angle(qj) : qj) + A.actuator.offset;
      data.joint_force[static_cast<size_t>(A.link)] += A.sign * actuator_force(A.actuator, data.ctrl[static_cast<size_t>(A.index)], coord, A.sign * v[L.iv]);
    }
  if (dynamics && !data.coupling_force.empty())
    for (size_t i = 0; i < data.coupling_force.size(); ++i) data.joint_force[i] += data.coupling_force[i];
}

void write_state(const TreeModel& model, TreeData& data, const std::vector<double>& x, State& s) {
  tree_kinematics(model, data, x.data(), x.data() + model.nq, false);  // poses and velocities only
  const double* v = x.data() + model.nq;
  for (size_t i = 0; i < model.link.size(); ++i) {
    const TreeLink& L = model.link[i];
    const LinkSetup& F = model.setup[i];
    const LinkWork& W = data.work[i];
    BodyState& B = s.bodies[L.body];
    B.x = W.x;
    if (L.kind == TreeJoint::Rod) {
      // the point mass's velocity: the parent point's plus the rod's turn (q and w untouched)
      const double phi = x[L.iq], w = v[L.iv];
      B.v = (L.parent >= 0 ? s.bodies[model.link[L.parent].body].v : Vec3(Vec3::Zero())) +
            F.length * w * Vec3(std::cos(phi), std::sin(phi), 0);
      continue;
    }
    const Vec3 w = W.v.head<3>();
    B.v = W.v.tail<3>() + w.cross(W.x - W.o);  // v_c = v_o + w x (c - o)
    if (L.kind == TreeJoint::Swing) continue;       // a point mass: q and w untouched
    B.q = W.Q;
    B.w = w;
  }
}

}  // namespace mb
