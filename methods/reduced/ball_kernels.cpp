#include "methods/reduced/ball_kernels.hpp"

#include <type_traits>

#include "methods/bodies/lanes.hpp"

namespace mb {

// The ball joints' kernels on lanes (lanes.hpp): n = 1 (T = double) or 2 (T = Array2d) links,
// gathered from and scattered to their LinkWork, every operation lane by lane. A link at a fixed frame
// (parent -1) is given a fixed parent at its joint point: R_p = 0, o_p = j, v_p = a_p = 0.
template <class T>
void ball_kinematics(const TreeModel& model, TreeData& data, const int* link, const double* q, const double* v, bool dynamics) {
  const TreeView tv{model, data};
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  static constexpr double zero[9] = {};
  const double *px[2], *po[2], *pR[2], *pv[2], *pQ[2], *pq[2], *pap[2], *pac[2], *pJ[2], *ptau[2], *pqd[2], *pm[2];
  for (int l = 0; l < n; ++l) {
    const TreeLink& L = model.link[link[l]];
    const LinkSetup& F = model.setup[link[l]];
    if (L.parent >= 0) {
      const LinkWork& P = data.work[L.parent];
      px[l] = P.x.data(), po[l] = P.o.data(), pR[l] = P.R.data(), pv[l] = P.v.data(), pQ[l] = P.Q.coeffs().data();
    } else {
      px[l] = po[l] = F.base_j.data(), pR[l] = pv[l] = zero, pQ[l] = F.base_q.coeffs().data();
    }
    pq[l] = q + L.iq, pap[l] = L.anchor_p.data(), pac[l] = L.anchor_c.data(), pJ[l] = L.inertia_j.data();
    ptau[l] = data.tau[L.body].data(), pm[l] = &L.mass, pqd[l] = v ? v + L.iv : zero;
  }
  const V3<T> xp = gather3<T>(px), op = gather3<T>(po), wp = gather3<T>(pv), ap = gather3<T>(pap),
              ac = gather3<T>(pac), tau = gather3<T>(ptau), qd = gather3<T>(pqd);
  const double* pvo[2] = {pv[0] + 3, pv[n - 1] + 3};
  const V3<T> vop = gather3<T>(pvo);
  const M3<T> Rp = gather33<T>(pR), J = gather33<T>(pJ);
  // Eigen's quaternions store (x, y, z, w); the state (w, x, y, z)
  const Q<T> Qp{gather<T>(pQ, 3), gather<T>(pQ, 0), gather<T>(pQ, 1), gather<T>(pQ, 2)};
  const Q<T> qr{gather<T>(pq, 0), gather<T>(pq, 1), gather<T>(pq, 2), gather<T>(pq, 3)};
  const T m = gather<T>(pm, 0);
  // pose: Q = q_parent q_rel normalised (|q_parent| = 1: the one normalisation), R as Eigen's
  // toRotationMatrix forms it, j = x_p + R_p anchor_p, d = x - o = -R anchor_c
  Q<T> Qc = product(Qp, qr);
  const T one(1.0), inv = one / sqrt_of(((Qc.w * Qc.w + Qc.x * Qc.x) + Qc.y * Qc.y) + Qc.z * Qc.z);
  Qc = {Qc.w * inv, Qc.x * inv, Qc.y * inv, Qc.z * inv};
  const T tx = Qc.x + Qc.x, ty = Qc.y + Qc.y, tz = Qc.z + Qc.z;
  const T twx = tx * Qc.w, twy = ty * Qc.w, twz = tz * Qc.w, txx = tx * Qc.x, txy = ty * Qc.x, txz = tz * Qc.x,
          tyy = ty * Qc.y, tyz = tz * Qc.y, tzz = tz * Qc.z;
  const M3<T> R{{{one - (tyy + tzz), txy - twz, txz + twy}, {txy + twz, one - (txx + tzz), tyz - twx},
                 {txz - twy, tyz + twx, one - (txx + tyy)}}};
  const V3<T> j = xp + times(Rp, ap), r = j - op, Rac = times(R, ac), d{-Rac.x, -Rac.y, -Rac.z}, x = j + d;
  // the spatial inertia at o: [A, m dx; (m dx)^T, m 1], A = R J R^T (symmetric: the upper triangle, mirrored)
  M3<T> A{};
  if (dynamics) {
    M3<T> RJ;
    for (int a = 0; a < 3; ++a)
      for (int b = 0; b < 3; ++b) RJ.m[a][b] = (R.m[a][0] * J.m[0][b] + R.m[a][1] * J.m[1][b]) + R.m[a][2] * J.m[2][b];
    for (int a = 0; a < 3; ++a)
      for (int b = a; b < 3; ++b) A.m[a][b] = A.m[b][a] = dot(row(RJ, a), row(R, b));
  }
  const V3<T> md = scaled(m, d);
  // velocity: v = X v_p + (s, 0) with s = R qd; c = v x (s, 0); pass 1: p^A = v x* (I v) - f_ext,
  // I v = (A w + m d x v_o, m (v_o - d x w)) by the blocks of I, f_ext = (d x m g + tau, m g)
  V3<T> w{}, vo{}, ct{}, cb{}, pt{}, pb{};
  if (v) {
    const V3<T> s = times(R, qd);
    w = wp + s;
    vo = vop + cross(wp, r);
    if (dynamics) {
      ct = cross(w, s), cb = cross(vo, s);
      const V3<T> ht = times(A, w) + cross(md, vo), hb = scaled(m, vo - cross(d, w));
      const V3<T> fg{m * model.gravity.x(), m * model.gravity.y(), m * model.gravity.z()};
      pt = (cross(w, ht) + cross(vo, hb)) - (cross(d, fg) + tau);
      pb = cross(w, hb) - fg;
    }
  }
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    LinkWork& W = data.work[i];
    W.Q = Quat(lane(Qc.w, l), lane(Qc.x, l), lane(Qc.y, l), lane(Qc.z, l));
    store(R, l, W.R);
    store(j, l, W.o);
    if (model.link[i].parent >= 0)
      store(r, l, W.r);
    else
      W.r.setZero();
    store(x, l, W.x);
    if (dynamics) {  // ball_I: A's upper triangle, B = m dx by columns, D = m 1's upper triangle
      const double ml = lane(m, l), dx = lane(md.x, l), dy = lane(md.y, l), dz = lane(md.z, l);
      double* I = tv.ball_I(i);
      I[0] = lane(A.m[0][0], l), I[1] = lane(A.m[0][1], l), I[2] = lane(A.m[0][2], l);
      I[3] = lane(A.m[1][1], l), I[4] = lane(A.m[1][2], l), I[5] = lane(A.m[2][2], l);
      I[6] = 0, I[7] = dz, I[8] = -dy, I[9] = -dz, I[10] = 0, I[11] = dx, I[12] = dy, I[13] = -dx, I[14] = 0;
      I[15] = ml, I[16] = 0, I[17] = 0, I[18] = ml, I[19] = 0, I[20] = ml;
    }
    if (!v) continue;
    store(w, l, W.v.head<3>()), store(vo, l, W.v.tail<3>());
    if (!dynamics) continue;
    store(ct, l, W.c.head<3>()), store(cb, l, W.c.tail<3>()), store(pt, l, W.pA.head<3>()), store(pb, l, W.pA.tail<3>());
  }
}

// Pass 2 of a ball joint (the Schur complement of the header). A, D and K are taken as symmetric
// (upper triangles).
template <class T>
void ball_articulate(const TreeModel& model, TreeData& data, const int* link) {
  const TreeView tv{model, data};
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  const double *pI[2], *pp[2], *pc[2], *pr[2];
  for (int l = 0; l < n; ++l) {
    const LinkWork& W = data.work[link[l]];
    pI[l] = tv.ball_I(link[l]), pp[l] = W.pA.data(), pc[l] = W.c.data() + 3, pr[l] = W.r.data();
  }
  const double* pB[2] = {pI[0] + 6, pI[n - 1] + 6};
  const double* ppb[2] = {pp[0] + 3, pp[n - 1] + 3};
  auto sym = [&](int at) {  // a symmetric block from its upper triangle at ball_I + at
    const T s0 = gather<T>(pI, at), s1 = gather<T>(pI, at + 1), s2 = gather<T>(pI, at + 2), s3 = gather<T>(pI, at + 3),
            s4 = gather<T>(pI, at + 4), s5 = gather<T>(pI, at + 5);
    return M3<T>{{{s0, s1, s2}, {s1, s3, s4}, {s2, s4, s5}}};
  };
  const M3<T> A = sym(0), B = gather33<T>(pB), D = sym(15);
  const V3<T> pt = gather3<T>(pp), pb = gather3<T>(ppb), cb = gather3<T>(pc), r = gather3<T>(pr);
  const auto& a = A.m;
  // A^-1 by the cofactors of the symmetric A
  const T c00 = a[1][1] * a[2][2] - a[1][2] * a[1][2], c01 = a[1][2] * a[0][2] - a[0][1] * a[2][2],
          c02 = a[0][1] * a[1][2] - a[1][1] * a[0][2], c11 = a[0][0] * a[2][2] - a[0][2] * a[0][2],
          c12 = a[0][2] * a[0][1] - a[0][0] * a[1][2], c22 = a[0][0] * a[1][1] - a[0][1] * a[0][1];
  const T s = T(1.0) / ((a[0][0] * c00 + a[0][1] * c01) + a[0][2] * c02);  // 1 / det A
  const M3<T> Ai{{{c00 * s, c01 * s, c02 * s}, {c01 * s, c11 * s, c12 * s}, {c02 * s, c12 * s, c22 * s}}};
  M3<T> G;
  for (int b = 0; b < 3; ++b) {
    const V3<T> gb = times(Ai, column(B, b));
    G.m[0][b] = gb.x, G.m[1][b] = gb.y, G.m[2][b] = gb.z;
  }
  const V3<T> Aip = times(Ai, pt), g{-Aip.x, -Aip.y, -Aip.z};
  M3<T> K;
  for (int b = 0; b < 3; ++b)
    for (int c = b; c < 3; ++c) K.m[b][c] = K.m[c][b] = D.m[b][c] - dot(column(B, b), column(G, c));
  const V3<T> f = (pb + times(K, cb)) + times_transpose(B, g);
  // into the parent: X^T [0 0; 0 K] X = [rx K rx^T, rx K; (rx K)^T, K], X^T (0, f) = (r x f, f);
  // M = rx K by columns, rx K rx^T = rx M^T by the columns r x (row c of M) (mirrored)
  M3<T> M, Tm;
  for (int c = 0; c < 3; ++c) {
    const V3<T> mc = cross(r, column(K, c));
    M.m[0][c] = mc.x, M.m[1][c] = mc.y, M.m[2][c] = mc.z;
  }
  for (int c = 0; c < 3; ++c) {
    const V3<T> tc = cross(r, row(M, c));
    Tm.m[0][c] = tc.x, Tm.m[1][c] = tc.y, Tm.m[2][c] = tc.z;
  }
  for (int b = 0; b < 3; ++b)
    for (int c = 0; c < b; ++c) Tm.m[b][c] = Tm.m[c][b];
  const V3<T> rf = cross(r, f);
  for (int l = n - 1; l >= 0; --l) {  // the higher link first, as one at a time (pass 2 runs backwards)
    const int i = link[l];
    store(G, l, tv.ball_G(i));
    store(g, l, tv.ball_g(i));
    const int p = model.link[i].parent;
    if (p < 0) continue;
    LinkWork& P = data.work[p];
    if (model.link[p].kind == TreeJoint::Ball) {  // ball_I: upper triangles and B
      double* I = tv.ball_I(p);
      I[0] += lane(Tm.m[0][0], l), I[1] += lane(Tm.m[0][1], l), I[2] += lane(Tm.m[0][2], l);
      I[3] += lane(Tm.m[1][1], l), I[4] += lane(Tm.m[1][2], l), I[5] += lane(Tm.m[2][2], l);
      for (int c = 0; c < 3; ++c)
        for (int b = 0; b < 3; ++b) I[6 + 3 * c + b] += lane(M.m[b][c], l);
      I[15] += lane(K.m[0][0], l), I[16] += lane(K.m[0][1], l), I[17] += lane(K.m[0][2], l);
      I[18] += lane(K.m[1][1], l), I[19] += lane(K.m[1][2], l), I[20] += lane(K.m[2][2], l);
    } else {
      Mat6& I = tv.IA(p);
      for (int b = 0; b < 3; ++b)
        for (int c = 0; c < 3; ++c) {
          I(b, c) += lane(Tm.m[b][c], l);
          I(b, 3 + c) += lane(M.m[b][c], l);
          I(3 + b, c) += lane(M.m[c][b], l);
          I(3 + b, 3 + c) += lane(K.m[b][c], l);
        }
    }
    P.pA(0) += lane(rf.x, l), P.pA(1) += lane(rf.y, l), P.pA(2) += lane(rf.z, l);
    P.pA(3) += lane(f.x, l), P.pA(4) += lane(f.y, l), P.pA(5) += lane(f.z, l);
  }
}

// Pass 3 of a ball joint in the basis of ball_articulate: a' = X a_p + c, qdd' = A^-1 (u' - A a'_top
// - B a'_bot), so the angular acceleration a_top = a'_top + qdd' = g - G a'_bot and a_bot = a'_bot;
// the state's rate is in the child frame, qdd = R^T qdd'
template <class T>
void ball_accelerate(const TreeModel& model, TreeData& data, const int* link) {
  const TreeView tv{model, data};
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  static constexpr double zero[6] = {};
  const double *pa[2], *pao[2], *pr[2], *pc[2], *pcb[2], *pG[2], *pg[2], *pR[2];
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    const LinkWork& W = data.work[i];
    pa[l] = model.link[i].parent >= 0 ? data.work[model.link[i].parent].a.data() : zero, pao[l] = pa[l] + 3;
    pr[l] = W.r.data(), pc[l] = W.c.data(), pcb[l] = W.c.data() + 3, pG[l] = tv.ball_G(i).data(), pg[l] = tv.ball_g(i).data();
    pR[l] = W.R.data();
  }
  const V3<T> aw = gather3<T>(pa), ao = gather3<T>(pao), r = gather3<T>(pr), ct = gather3<T>(pc), cb = gather3<T>(pcb),
              g = gather3<T>(pg);
  const M3<T> G = gather33<T>(pG), R = gather33<T>(pR);
  const V3<T> a1t = aw + ct, a1b = (ao + cross(aw, r)) + cb;
  const V3<T> at = g - times(G, a1b), qdd = times_transpose(R, at - a1t);
  for (int l = 0; l < n; ++l) {
    const int i = link[l];
    LinkWork& W = data.work[i];
    store(at, l, W.a.head<3>()), store(a1b, l, W.a.tail<3>());
    store(qdd, l, Eigen::Map<Vec3>(tv.qdd(i).data()));
  }
}

template <class T>
void quaternion_rates(const double* const* q, const double* const* w, double* const* dq) {
  using namespace lanes;
  constexpr int n = std::is_same_v<T, double> ? 1 : 2;
  const Q<T> a{gather<T>(q, 0), gather<T>(q, 1), gather<T>(q, 2), gather<T>(q, 3)};
  const Q<T> d = product(a, Q<T>{T(0.0), gather<T>(w, 0), gather<T>(w, 1), gather<T>(w, 2)});
  const T out[4] = {0.5 * d.w, 0.5 * d.x, 0.5 * d.y, 0.5 * d.z};
  for (int l = 0; l < n; ++l)
    for (int k = 0; k < 4; ++k) dq[l][k] = lane(out[k], l);
}

template void ball_kinematics<double>(const TreeModel&, TreeData&, const int*, const double*, const double*, bool);
template void ball_kinematics<Eigen::Array2d>(const TreeModel&, TreeData&, const int*, const double*, const double*, bool);
template void ball_articulate<double>(const TreeModel&, TreeData&, const int*);
template void ball_articulate<Eigen::Array2d>(const TreeModel&, TreeData&, const int*);
template void ball_accelerate<double>(const TreeModel&, TreeData&, const int*);
template void ball_accelerate<Eigen::Array2d>(const TreeModel&, TreeData&, const int*);
template void quaternion_rates<double>(const double* const*, const double* const*, double* const*);
template void quaternion_rates<Eigen::Array2d>(const double* const*, const double* const*, double* const*);

}  // namespace mb
