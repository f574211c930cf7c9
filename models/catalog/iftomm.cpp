// IFToMM multibody benchmark problems (gonzalez2006; the library's group A): A02, the N-four-bar
// mechanism, A04, Bricard's mechanism, and A05, the stiff flyball governor. (A01 is
// models/catalog/pendulums.cpp, A03 models/catalog/andrews.cpp.)
//
// A05 (flyball-governor), in the layout of the library's specification as the OpenSim reproduction
// of the library builds it (docs/models-external.md): a vertical shaft (a 1 x 0.01 x 0.01 m bar of
// density 3000 kg/m^3, 0.3 kg) on a hinge about y at its lower end, the ground origin; two rods like
// it hinged (about z) 0.05 m to either side of the shaft's top and reaching down and out at 30
// degrees below the horizontal, each carrying a 5 kg point mass at its far end; a 0.1 m cube (3 kg)
// sliding along the shaft, at its middle at the start; the coupler rods of Watt's governor are
// spring-dampers (k = 8e5 N/m, c = 4e4 N s/m, rest length 0.5 m) from the cube's sides (0.05 m out)
// to the rods' centres, at rest length at the start. Everything turns about the shaft at 2 pi rad/s;
// gravity -y. Stiff: the dampers' rate c / m is about 1e4 / s.
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

Model make_flyball_governor(const std::string& name) {
  constexpr double kDensity = 3000, kBar = 1, kSide = 0.01, kCube = 0.1, kMassPoint = 5, kOffset = 0.05;
  constexpr double kSpin = 2 * M_PI, kAngle = 30 * M_PI / 180;
  constexpr double kStiffness = 8e5, kDamping = 4e4, kRest = 0.5;
  const Vec3 w(0, kSpin, 0);
  Model m;
  m.gravity = Vec3(0, -9.81, 0);
  // a bar along its body y: m/12 (L^2 + a^2) across, m a^2 / 6 along
  const double bar_mass = kDensity * kBar * kSide * kSide;
  const double across = bar_mass * (kBar * kBar + kSide * kSide) / 12, along = bar_mass * kSide * kSide / 6;
  auto add = [&](Body b) {
    b.velocity = w.cross(b.position);
    if (!b.particle) b.angular_velocity = w;
    m.bodies.push_back(std::move(b));
    return static_cast<int>(m.bodies.size()) - 1;
  };
  Body shaft;
  shaft.name = "shaft";
  shaft.mass = bar_mass;
  shaft.inertia = Vec3(across, along, across).asDiagonal();
  shaft.position = Vec3(0, kBar / 2, 0);
  const int s = add(shaft);
  Body cube;
  cube.name = "sleeve";
  cube.mass = kDensity * kCube * kCube * kCube;
  cube.inertia = Mat3::Identity() * (cube.mass * kCube * kCube / 6);
  cube.box = Vec3::Constant(kCube);
  cube.position = Vec3(0, kBar / 2, 0);
  const int c = add(cube);
  Joint spin;
  spin.name = "spin";
  spin.type = JointType::Hinge;
  spin.a = kWorld;
  spin.b = s;
  spin.anchor_b = Vec3(0, -kBar / 2, 0);
  spin.axis_a = spin.axis_b = Vec3::UnitY();
  m.joints.push_back(spin);
  Joint slide;
  slide.name = "slide";
  slide.type = JointType::Slider;
  slide.a = s;
  slide.b = c;
  slide.axis_a = slide.axis_b = Vec3::UnitY();
  m.joints.push_back(slide);
  for (int side : {1, -1}) {
    // the rod from its hinge at the shaft's top, down and out at kAngle below the horizontal; its
    // body y along the rod, outward
    const Vec3 hinge(side * kOffset, kBar, 0), d(side * std::cos(kAngle), -std::sin(kAngle), 0);
    Body rod;
    rod.name = side > 0 ? "rod+x" : "rod-x";
    rod.mass = bar_mass;
    rod.inertia = Vec3(across, along, across).asDiagonal();
    rod.orientation = Quat::FromTwoVectors(Vec3::UnitY(), d);
    rod.position = hinge + d * (kBar / 2);
    const int r = add(rod);
    Body ball;
    ball.name = side > 0 ? "ball+x" : "ball-x";
    ball.particle = true;
    ball.mass = kMassPoint;
    ball.position = hinge + d * kBar;
    const int b = add(ball);
    Joint j;
    j.name = side > 0 ? "top+x" : "top-x";
    j.type = JointType::Hinge;
    j.a = s;
    j.b = r;
    j.anchor_a = hinge - m.bodies[static_cast<size_t>(s)].position;
    j.anchor_b = Vec3(0, -kBar / 2, 0);
    j.axis_a = Vec3::UnitZ();
    j.axis_b = rod.orientation.conjugate() * Vec3::UnitZ();
    m.joints.push_back(j);
    Joint carry;
    carry.name = side > 0 ? "ball+x" : "ball-x";
    carry.type = JointType::Ball;
    carry.a = r;
    carry.b = b;
    carry.anchor_a = Vec3(0, kBar / 2, 0);
    m.joints.push_back(carry);
    Spring sp;
    sp.name = side > 0 ? "coupler+x" : "coupler-x";
    sp.a = c;
    sp.b = r;
    sp.anchor_a = Vec3(side * kCube / 2, 0, 0);
    sp.stiffness = kStiffness;
    sp.rest_length = kRest;
    sp.damping = kDamping;
    m.springs.push_back(sp);
  }
  m.info.name = name;
  m.info.source = "IFToMM A05 (gonzalez2006)";
  m.info.description =
      "IFToMM A05 stiff flyball governor: a shaft turning at 2 pi rad/s, two rods with 5 kg balls, a sliding sleeve, the couplers "
      "spring-dampers k = 8e5 N/m, c = 4e4 N s/m; gravity -y; 10 s";
  m.info.duration = 10;
  m.info.default_h = 1e-4;
  m.info.h_grid = default_h_grid();
  return m;
}

Model build_flyball_governor(const Spec& s) { return make_flyball_governor(s.text()); }

Model build_bricard(const Spec& s) { return make_bricard(s.text()); }

Model build_four_bar(const Spec& s) {
  const long n = s.get_int("n", 40);
  if (n < 1 || n > 1000) s.fail(fmt::format("four-bar needs 1 <= n <= 1000, got {}", n));
  return make_four_bar(static_cast<int>(n), s.text() == "four-bar" ? "four-bar:n=40" : s.text());
}

}  // namespace mb
