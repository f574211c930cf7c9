// The Peaucellier-Lipkin linkage of tomcin2014 s.4 (Figure 3): a planar straight-line mechanism of
// seven bars and ten hinge joints about z. In three dimensions each hinge removes 5 degrees of
// freedom: 7 x 6 - 10 x 5 = -8 formally, while the linkage moves with 1, so 9 of its 50 constraint
// rows are redundant (the paper's count).
//
// Layout (x-y plane, y up, gravity -y, lengths in m; the paper gives only the green bars' length 2):
//   O = (0, 0) and Q = (0, -r) are fixed pivots, r = 0.75;
//   the green bars OA and OC, length l = 2; the rhombus A-B-C-P of sides s = 1;
//   the crank QB, length r = |OQ|, so that B moves on the circle through O.
// Then O, B and P are collinear with |OB| |OP| = l^2 - s^2 = 3 (P is B's inverse), and P moves on the
// straight line y = -(l^2 - s^2) / (2 r) = -2: the analytic check of the model (tests/loops_test.cpp).
// The coordinate is the crank angle psi = angle of OB from the -y axis: B = 2 r cos(psi) (sin psi,
// -cos psi), so |OB| = 1.5 cos(psi) <= 1.5 < sqrt(3): B never meets P (at |OB| = sqrt(3) the rhombus
// would collapse onto its diagonal AC, a second singular pose that r = 1 would cross mid-swing).
// At psi = acos((l - s) / (2 r)) = 48.19 deg |OB| = l - s: the rhombus folds flat against the green
// bars, the singular configuration. psi = 0 (the symmetric pose, P at (0, -2)) is the lowest; the
// linkage starts there with the speed that makes it swing up to psi = amplitude, computed from the
// energy. The default, 47.5 deg, is where the largest lambda_max / lambda_min of A over a swing is
// about 1e7, the paper's value near the singular pose (Figure 3b; measured: 46 deg 3.1e6, 47.5 deg
// 9.6e6, 48 deg 3.8e7, with tomcin:spectrum=on at h = 0.03 s).
// Bars are boxes 0.04 x length x 0.04 m of density 600 kg/m^3 (catalog make_box, long axis local y).
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/catalog.hpp"

namespace mb {

namespace {

constexpr double kL = 2, kS = 1, kR = 0.75, kDensity = 600, kWidth = 0.04;

struct Pose {
  Vec3 A, B, C, P;
};

Pose pose(double psi) {
  const double d = 2 * kR * std::cos(psi);
  const Vec3 u(std::sin(psi), -std::cos(psi), 0);
  const Vec3 n(-u.y(), u.x(), 0);
  const double a = (kL * kL - kS * kS + d * d) / (2 * d);
  const double hgt = std::sqrt(kL * kL - a * a);
  Pose p;
  p.B = d * u;
  p.A = a * u + hgt * n;
  p.C = a * u - hgt * n;
  p.P = (kL * kL - kS * kS) / d * u;
  return p;
}

struct Bar {
  const char* name;
  double length;
  Vec3 Pose::*from;  // nullptr: a fixed pivot
  Vec3 Pose::*to;
  Vec3 pivot;        // the fixed pivot when from == nullptr
};

const std::array<Bar, 7>& bars() {
  static const std::array<Bar, 7> b = {{
      {"OA", kL, nullptr, &Pose::A, Vec3(0, 0, 0)},
      {"OC", kL, nullptr, &Pose::C, Vec3(0, 0, 0)},
      {"AB", kS, &Pose::A, &Pose::B, Vec3::Zero()},
      {"CB", kS, &Pose::C, &Pose::B, Vec3::Zero()},
      {"AP", kS, &Pose::A, &Pose::P, Vec3::Zero()},
      {"CP", kS, &Pose::C, &Pose::P, Vec3::Zero()},
      {"QB", kR, nullptr, &Pose::B, Vec3(0, -kR, 0)},
  }};
  return b;
}

// centre and angle (of the bar's local y axis from world y, about z) of every bar at psi
void bar_placement(double psi, std::array<Vec3, 7>& centre, std::array<double, 7>& angle) {
  const Pose p = pose(psi);
  for (size_t i = 0; i < bars().size(); ++i) {
    const Bar& b = bars()[i];
    const Vec3 s = b.from ? p.*(b.from) : b.pivot, e = p.*(b.to);
    centre[i] = 0.5 * (s + e);
    // local y points from the end e to the start s (the start is the bar's upper end (0, l/2, 0))
    angle[i] = std::atan2(-(s - e).x(), (s - e).y());
  }
}

Joint hinge(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b) {
  Joint j = ball_joint(name, a, anchor_a, b, anchor_b);
  j.type = JointType::Hinge;
  j.axis_a = j.axis_b = Vec3::UnitZ();
  return j;
}

}  // namespace

Model make_peaucellier(double amplitude_deg, const std::string& name) {
  const double pi = std::acos(-1.0);
  const double singular = std::acos((kL - kS) / (2 * kR)) * 180 / pi;
  if (!(amplitude_deg > 0 && amplitude_deg < singular))
    throw Error(fmt::format("peaucellier: amplitude must be in (0, {:.2f}) degrees (the singular pose), got {}", singular, amplitude_deg));
  Model m;
  m.info.name = name;
  m.info.source = "tomcin2014 s.4";
  m.info.description = fmt::format(
      "Peaucellier-Lipkin linkage: 7 bars, 10 hinges (9 redundant rows), green bars 2 m, swinging to a crank angle of {} deg "
      "(singular at 48.19); the point P (end of bar AP) moves on the line y = -2",
      amplitude_deg);
  m.info.duration = 10;
  m.info.default_h = 0.03;
  m.info.h_grid = {0.0075, 0.015, 0.03};
  m.info.energy_conserved = true;
  m.gravity = Vec3(0, -9.81, 0);

  std::array<Vec3, 7> c0, cp, cm, cp2, cm2;
  std::array<double, 7> a0, ap, am, ap2, am2;
  bar_placement(0, c0, a0);
  for (size_t i = 0; i < bars().size(); ++i) {
    Body b = make_box(bars()[i].name, bars()[i].length, kWidth, kDensity);
    b.position = c0[i];
    b.orientation = Quat(Eigen::AngleAxisd(a0[i], Vec3::UnitZ()));
    m.bodies.push_back(b);
  }
  // d(centre)/d(psi) and d(angle)/d(psi) at psi = 0: Richardson-extrapolated central differences
  const double dpsi = 1e-3;
  bar_placement(dpsi, cp, ap);
  bar_placement(-dpsi, cm, am);
  bar_placement(dpsi / 2, cp2, ap2);
  bar_placement(-dpsi / 2, cm2, am2);
  auto wrap = [pi](double x) { return std::remainder(x, 2 * pi); };
  std::array<Vec3, 7> dc;
  std::array<double, 7> da;
  double mass_psi = 0, v0 = 0, v1 = 0;
  std::array<Vec3, 7> c1;
  std::array<double, 7> a1;
  bar_placement(amplitude_deg * pi / 180, c1, a1);
  for (size_t i = 0; i < bars().size(); ++i) {
    const Vec3 d1 = (cp[i] - cm[i]) / (2 * dpsi), d2 = (cp2[i] - cm2[i]) / dpsi;
    dc[i] = (4 * d2 - d1) / 3;
    const double e1 = wrap(ap[i] - am[i]) / (2 * dpsi), e2 = wrap(ap2[i] - am2[i]) / dpsi;
    da[i] = (4 * e2 - e1) / 3;
    const Body& b = m.bodies[i];
    mass_psi += b.mass * dc[i].squaredNorm() + b.inertia(2, 2) * da[i] * da[i];
    v0 += b.mass * 9.81 * c0[i].y();
    v1 += b.mass * 9.81 * c1[i].y();
  }
  if (!(v1 > v0)) throw Error("peaucellier: the symmetric pose is not the lowest (layout error)");
  const double rate = std::sqrt(2 * (v1 - v0) / mass_psi);  // psi' at psi = 0
  for (size_t i = 0; i < bars().size(); ++i) {
    m.bodies[i].velocity = rate * dc[i];
    m.bodies[i].angular_velocity = Vec3(0, 0, rate * da[i]);
  }
  // joints: the upper end (0, l/2, 0) of a bar is its `from` end, the lower end its `to` end
  auto top = [&](int i) { return Vec3(0, bars()[i].length / 2, 0); };
  auto bottom = [&](int i) { return Vec3(0, -bars()[i].length / 2, 0); };
  enum { OA, OC, AB, CB, AP, CP, QB };
  m.joints = {
      hinge("O-OA", kWorld, Vec3::Zero(), OA, top(OA)),    hinge("O-OC", kWorld, Vec3::Zero(), OC, top(OC)),
      hinge("A-AB", OA, bottom(OA), AB, top(AB)),          hinge("A-AP", OA, bottom(OA), AP, top(AP)),
      hinge("C-CB", OC, bottom(OC), CB, top(CB)),          hinge("C-CP", OC, bottom(OC), CP, top(CP)),
      hinge("B-AB-CB", AB, bottom(AB), CB, bottom(CB)),    hinge("B-CB-QB", CB, bottom(CB), QB, bottom(QB)),
      hinge("P", AP, bottom(AP), CP, bottom(CP)),          hinge("Q-QB", kWorld, Vec3(0, -kR, 0), QB, top(QB)),
  };
  return m;
}

Model build_peaucellier(const Spec& s) {
  const double amp = s.get_double("amplitude", 47.5);
  return make_peaucellier(amp, s.text());
}

}  // namespace mb
