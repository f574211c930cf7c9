// IFToMM multibody benchmark problems (gonzalez2006; the library's group A): A02, the N-four-bar
// mechanism, and A04, Bricard's mechanism. (A01 is models/catalog/pendulums.cpp, A03
// models/catalog/andrews.cpp.)
//
// A04 (bricard): five rods of 1 m and 1 kg (square section 0.1 m) and the fixed rod (the world)
// close a path along the edges of a unit cube, P0 = (0, 0, 0), P1 = (1, 0, 0), P2 = (1, -1, 0),
// P3 = (1, -1, 1), P4 = (0, -1, 1), P5 = (0, 0, 1), back to P0 along the fixed rod; six hinges, each
// axis perpendicular to the two rods it joins (y at P0, z at P1, x at P2, y at P3, z at P4, x at P5).
// 5 x 6 = 30 coordinates and 6 x 5 = 30 rows: zero degrees of freedom by the count, one in fact
// (1 redundant row at the start). Gravity -y, released at rest; 10 s.
//
// A02 (four-bar:n=N): N four-bar windows in a row, 2N + 1 links of 1 m and 1 kg, in the x-y plane,
// gravity -y. The N + 1 cranks hang from the ground points A_i = (i, 0) and start vertical, up to
// B_i = (i, 1); the N couplers join B_i and B_{i+1}. Every joint is a hinge about z: 3N + 1 hinges, 15N + 5
// rows in three dimensions of which 3N are redundant (in the plane 3 (2N + 1) - 2 (3N + 1) = 1 degree of
// freedom). B_0 starts moving at 1 m/s in +x (every crank turns at -1 rad/s, the couplers translate);
// the cranks fall through the horizontal, where all links lie on the line y = 0 and the mechanism
// has N + 1 degrees of freedom for an instant: the singular configuration the problem is about.
// The links are thin rods: I = m L^2 / 12 about every axis (only the z component enters a planar
// motion; the others keep the tensor SPD).
#include <fmt/format.h>

#include "models/catalog.hpp"

namespace mb {

Model make_four_bar(int n, const std::string& name) {
  constexpr double kL = 1, kMass = 1, kSpeed = 1;
  Model m;
  m.gravity = Vec3(0, -9.81, 0);
  auto rod = [&](const std::string& bname, const Vec3& centre, const Vec3& v, double w) {
    Body b;
    b.name = bname;
    b.mass = kMass;
    b.inertia = Mat3::Identity() * (kMass * kL * kL / 12);
    b.position = centre;
    b.velocity = v;
    b.angular_velocity = Vec3(0, 0, w);
    m.bodies.push_back(b);
    return static_cast<int>(m.bodies.size()) - 1;
  };
  auto hinge = [&](const std::string& jname, int a, int b, const Vec3& p) {
    Joint j;
    j.name = jname;
    j.type = JointType::Hinge;
    j.a = a;
    j.b = b;
    j.anchor_a = a == kWorld ? p : Vec3(p - m.bodies[static_cast<size_t>(a)].position);
    j.anchor_b = p - m.bodies[static_cast<size_t>(b)].position;
    j.axis_a = j.axis_b = Vec3::UnitZ();
    m.joints.push_back(j);
  };
  // cranks: centre (i, L/2), turning at -v/L so that B_i moves at +v
  std::vector<int> crank;
  for (int i = 0; i <= n; ++i) {
    crank.push_back(rod(fmt::format("crank{}", i), Vec3(i * kL, kL / 2, 0), Vec3(kSpeed / 2, 0, 0), -kSpeed / kL));
    hinge(fmt::format("A{}", i), kWorld, crank.back(), Vec3(i * kL, 0, 0));
  }
  for (int i = 0; i < n; ++i) {
    const int c = rod(fmt::format("coupler{}", i), Vec3((i + 0.5) * kL, kL, 0), Vec3(kSpeed, 0, 0), 0);
    hinge(fmt::format("B{}-{}", i, i), crank[static_cast<size_t>(i)], c, Vec3(i * kL, kL, 0));
    hinge(fmt::format("B{}-{}", i, i + 1), c, crank[static_cast<size_t>(i) + 1], Vec3((i + 1) * kL, kL, 0));
  }
  m.info.name = name;
  m.info.source = "IFToMM A02 (gonzalez2006)";
  m.info.description = fmt::format(
      "IFToMM A02 N-four-bar mechanism, N = {}: {} links of 1 m and 1 kg, cranks vertical at the start, B0 moving at 1 m/s in +x; "
      "the cranks pass the horizontal (a singular configuration); {} hinges, {} redundant rows",
      n, 2 * n + 1, 3 * n + 1, 3 * n);
  m.info.duration = 20;
  m.info.default_h = 0.001;
  m.info.h_grid = default_h_grid();
  return m;
}

Model make_bricard(const std::string& name) {
  constexpr double kL = 1, kMass = 1, kSide = 0.1;
  const Vec3 P[6] = {{0, 0, 0}, {1, 0, 0}, {1, -1, 0}, {1, -1, 1}, {0, -1, 1}, {0, 0, 1}};
  const Vec3 axis[6] = {Vec3::UnitY(), Vec3::UnitZ(), Vec3::UnitX(), Vec3::UnitY(), Vec3::UnitZ(), Vec3::UnitX()};
  Model m;
  m.gravity = Vec3(0, -9.81, 0);
  for (int k = 0; k < 5; ++k) {
    // rod k from P_k to P_{k+1}, body axes along the world axes: m a^2 / 6 about its length,
    // m (L^2 + a^2) / 12 across
    const Vec3 u = (P[k + 1] - P[k]).cwiseAbs();
    Body b;
    b.name = fmt::format("rod{}", k + 1);
    b.mass = kMass;
    const double along = kMass * kSide * kSide / 6, across = kMass * (kL * kL + kSide * kSide) / 12;
    b.inertia = Mat3(Vec3(along * u + across * (Vec3::Ones() - u)).asDiagonal());
    b.position = (P[k] + P[k + 1]) / 2;
    m.bodies.push_back(b);
  }
  for (int k = 0; k < 6; ++k) {
    // hinge k at P_k between rod k (from P_k on) and the rod before it (rod 5 and rod 1 meet the world)
    Joint j;
    j.name = fmt::format("P{}", k);
    j.type = JointType::Hinge;
    j.a = k == 0 ? kWorld : k - 1;
    j.b = k == 5 ? kWorld : k;
    j.anchor_a = j.a == kWorld ? P[k] : Vec3(P[k] - m.bodies[static_cast<size_t>(j.a)].position);
    j.anchor_b = j.b == kWorld ? P[k] : Vec3(P[k] - m.bodies[static_cast<size_t>(j.b)].position);
    j.axis_a = j.axis_b = axis[k];
    m.joints.push_back(j);
  }
  m.info.name = name;
  m.info.source = "IFToMM A04 (gonzalez2006)";
  m.info.description =
      "IFToMM A04 Bricard's mechanism: five rods of 1 m and 1 kg on the edges of a unit cube, six hinges each perpendicular to "
      "its two rods; 30 rows for 30 coordinates yet one degree of freedom; released at rest under gravity; 10 s";
  m.info.duration = 10;
  m.info.default_h = 0.001;
  m.info.h_grid = default_h_grid();
  return m;
}

Model build_bricard(const Spec& s) { return make_bricard(s.text()); }

Model build_four_bar(const Spec& s) {
  const long n = s.get_int("n", 40);
  if (n < 1 || n > 1000) s.fail(fmt::format("four-bar needs 1 <= n <= 1000, got {}", n));
  return make_four_bar(static_cast<int>(n), s.text() == "four-bar" ? "four-bar:n=40" : s.text());
}

}  // namespace mb
