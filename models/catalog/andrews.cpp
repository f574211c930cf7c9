// Andrews' squeezing mechanism: the Test Set for IVP Solvers' problem "andrews" (mazzia2008, from
// hairer1996 s.VII.7) and IFToMM benchmark A03, in maximal coordinates with hinge joints about z.
//
// Seven planar bodies, three fixed points O = (0, 0), A = (xa, ya), B = (xb, yb), one spring from the
// point D of body 3 to the fixed point C = (xc, yc) (stiffness c0, rest length l0, no damping) and a
// driving torque mom on body 1. No gravity (the Test Set's equations have none). The Test Set's
// coordinates are the angles beta, Theta, gamma, Phi, delta, Omega, epsilon: beta, gamma, delta,
// epsilon are absolute angles of bodies 1, 3, 5, 7; Theta, Phi, Omega are the angles of bodies 2, 4, 6
// relative to bodies 1, 5, 7. With R(a) the rotation by a and u(a) = (cos a, sin a), the points are
// (read off the Test Set's constraints g and mass matrix M, andrews.f):
//   body 1 (crank, about O):        F = rr u(beta), centre of mass O + ra u(beta)
//   body 2 (F to E, angle b+Th):    E = F - d u(beta + Theta), centre F - da u(beta + Theta)
//   body 3 (about B, angle gamma):  E = B + R(gamma) (0, -ss), D = B + R(gamma) (sd, -sc)
//   body 5 (about A, angle delta):  G = A + zt u(delta)
//   body 4 (G to E, angle Ph+de):   E = G + R(Phi + delta) (0, -e), centre G + R(Phi + delta) (0, ea - e)
//   body 7 (about A, angle eps):    H = A + R(epsilon) (0, -u)
//   body 6 (H to E, angle Om+eps):  E = H + zf u(Omega + epsilon), centre H + (zf - fa) u(Omega + epsilon)
// Without gravity only the distance of a centre of mass from its pivot enters the equations of bodies
// 3, 5 and 7 (M33 = m3 (sa^2 + sb^2) + I3, ...); we place them at B + R(gamma) (sb, -sa),
// A + R(delta) (ta, tb) and A + R(epsilon) (ub, -ua) (docs/models.md). The hinges: O-1, 1-2 at F,
// 2-3, 2-4 and 2-6 at E, B-3, 4-5 at G, A-5, 6-7 at H, A-7: ten hinges, 50 rows in three dimensions
// of which 9 are redundant (the planar mechanism has 21 - 20 = 1 degree of freedom).
// Each body's orientation is R(its absolute angle), so the Test Set's angles are read back from the
// quaternions (andrews_angles).
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "models/catalog.hpp"

namespace mb {

namespace {

Vec3 u2(double a) { return Vec3(std::cos(a), std::sin(a), 0); }
Vec3 rot(double a, double x, double y) { return Vec3(std::cos(a) * x - std::sin(a) * y, std::sin(a) * x + std::cos(a) * y, 0); }
double wrap(double a) { return std::remainder(a, 2 * M_PI); }

}  // namespace

Model make_andrews(const AndrewsParams& p, const std::string& name) {
  const std::array<double, 7>& q = p.q0;
  const double beta = q[0], Theta = q[1], gamma = q[2], Phi = q[3], delta = q[4], Omega = q[5], eps = q[6];
  const Vec3 O = Vec3::Zero(), A(p.xa, p.ya, 0), B(p.xb, p.yb, 0), C(p.xc, p.yc, 0);
  // the points at the initial angles
  const Vec3 F = p.rr * u2(beta);
  const Vec3 E = F - p.d * u2(beta + Theta);
  const Vec3 D = B + rot(gamma, p.sd, -p.sc);
  const Vec3 G = A + p.zt * u2(delta);
  const Vec3 H = A + rot(eps, 0, -p.u);
  // absolute angles and centres of mass of bodies 1..7
  const std::array<double, 7> angle = {beta, beta + Theta, gamma, Phi + delta, delta, Omega + eps, eps};
  const std::array<Vec3, 7> centre = {
      O + p.ra * u2(beta),           F - p.da * u2(beta + Theta),         B + rot(gamma, p.sb, -p.sa),
      G + rot(Phi + delta, 0, p.ea - p.e), A + rot(delta, p.ta, p.tb), H + (p.zf - p.fa) * u2(Omega + eps),
      A + rot(eps, p.ub, -p.ua)};
  Model m;
  m.gravity = Vec3::Zero();
  for (int k = 0; k < 7; ++k) {
    Body b;
    b.name = fmt::format("body{}", k + 1);
    b.mass = p.mass[k];
    // planar: only the z component enters; the others make the tensor SPD (hinges keep w along z)
    b.inertia = Mat3::Identity() * p.inertia[k];
    b.position = centre[k];
    b.orientation = Quat(Eigen::AngleAxisd(angle[k], Vec3::UnitZ()));
    m.bodies.push_back(b);
  }
  // a hinge about z at the world point P between bodies a and b (kWorld: the fixed frame)
  auto local = [&](int k, const Vec3& P) { return k == kWorld ? P : Vec3(m.bodies[k].orientation.conjugate() * (P - centre[k])); };
  auto hinge = [&](const char* jname, int a, int b, const Vec3& P) {
    Joint j;
    j.name = jname;
    j.type = JointType::Hinge;
    j.a = a;
    j.b = b;
    j.anchor_a = local(a, P);
    j.anchor_b = local(b, P);
    j.axis_a = j.axis_b = Vec3::UnitZ();
    m.joints.push_back(j);
  };
  hinge("O", kWorld, 0, O);
  hinge("F", 0, 1, F);
  hinge("E3", 1, 2, E);
  hinge("B", kWorld, 2, B);
  hinge("E4", 1, 3, E);
  hinge("G", 3, 4, G);
  hinge("A5", kWorld, 4, A);
  hinge("E6", 1, 5, E);
  hinge("H", 5, 6, H);
  hinge("A7", kWorld, 6, A);
  Spring s;
  s.name = "spring";
  s.a = 2;
  s.anchor_a = local(2, D);
  s.b = kWorld;
  s.anchor_b = C;
  s.stiffness = p.c0;
  s.rest_length = p.l0;
  m.springs.push_back(s);
  m.loads.push_back({0, Vec3(0, 0, p.mom), 0.0, INFINITY});
  m.info.name = name;
  m.info.source = "mazzia2008 (andrews); hairer1996 s.VII.7; IFToMM A03";
  m.info.description =
      "Andrews' squeezing mechanism: 7 bodies, 10 hinges (9 redundant rows), a spring and a driving torque of 0.033 N m; "
      "no gravity; the Test Set for IVP Solvers' problem with t_end = 0.03 s";
  m.info.energy_conserved = false;  // the driving torque does work
  m.info.published_end = true;      // the Test Set's y(t_end) (results/paper/mazzia2008.toml)
  m.info.duration = 0.03;
  m.info.default_h = 1e-5;
  m.info.h_grid.clear();
  for (int i = 0; i <= 6; ++i) m.info.h_grid.push_back(1.25e-6 * std::pow(2.0, i));  // 1.25e-6 .. 8e-5 s
  return m;
}

std::array<double, 7> andrews_angles(const State& s, const std::array<double, 7>* previous) {
  std::array<double, 7> absolute{};
  for (int k = 0; k < 7; ++k) {
    const Quat& q = s.bodies[static_cast<size_t>(k)].q;
    absolute[static_cast<size_t>(k)] = 2 * std::atan2(q.z(), q.w());
  }
  // beta, Theta, gamma, Phi, delta, Omega, epsilon
  std::array<double, 7> a = {absolute[0], absolute[1] - absolute[0], absolute[2], absolute[3] - absolute[4], absolute[4], absolute[5] - absolute[6], absolute[6]};
  for (size_t i = 0; i < 7; ++i) {
    const double ref = previous ? (*previous)[i] : 0.0;
    a[i] = ref + wrap(a[i] - ref);  // the branch nearest the previous value
  }
  return a;
}

Model build_andrews(const Spec& s) { return make_andrews(AndrewsParams{}, s.text()); }

}  // namespace mb
