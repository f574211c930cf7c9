// Contact models (docs/contacts.md, docs/models.md): each with an analytic target.
//  bouncing-ball: a 1 kg ball of radius 0.1 m dropped from rest with its lowest point `height`
//    above the floor; restitution e. Apex heights height e^(2k); impacts at
//    t_k = t_1 (1 + 2 e + ... + 2 e^(k-1)), t_1 = sqrt(2 height / g).
//  incline-cubes: cubes of 0.1 m and 1 kg at rest on a plane inclined by `angle`, each with its own
//    friction coefficient (schmitt2003's sliding cubes): a cube with mu >= tan(angle) stays; one
//    below slides down with a = g (sin(angle) - mu cos(angle)). angle = 0: cubes resting on a floor.
//  sledge-pendulum: a 4 kg sledge (0.6 x 0.1 x 0.3 m box) at rest on a plane inclined by 20 degrees
//    with a 1 kg pendulum (a 0.3 m bar on a hinge 0.3 m above the sledge's centre, axis z) started 45
//    degrees out (schmitt2003's video): with high friction the sledge stops and goes, with low friction it
//    slides.
//  rolling-box: the rolling test of the Robotic Systems Lab's cross-engine benchmark (SimBenchmark,
//    ETH Zurich): a 10 kg box (20 x 1 x 20 m) on the floor carrying a 5 x 5 grid of 1 kg balls of
//    radius 0.5 m, 2 m apart; a horizontal force F = 150 N pushes the box from t = 0. Friction 0.4
//    box-floor, 0.8 box-ball (static = dynamic). The box slides, carrying the whole weight:
//    f1 = 0.4 (M + n m) g = 137.3 N; each ball rolls on the box without slipping, driven by the
//    friction f2 = (F - f1) / (3.5 M / m + n) (ball: m a2 = f2; rolling: a1 = a2 + 2.5 f2 / m), so
//    a1 = 3.5 f2 / m = 0.739 m/s^2 (box) and a2 = f2 / m = 0.211 m/s^2 (balls): the exact motions.
//  spinning-egg: a uniform prolate spheroid (semi-axes 0.03 m along its symmetry axis and 0.022 m,
//    60 g: a hen's egg) lying on the floor, its axis tilted up by 3 degrees, spun at `spin` rad/s
//    about the vertical (schmitt2003's video; Moffatt and Shimomura 2002): spun fast enough it
//    rises onto its end through sliding friction, its centre of mass from 0.022 m to 0.03 m.
//    Energy bounds the rise: the spin's kinetic energy I_perp w^2 / 2 lifts the centre by at most
//    I_perp w^2 / (2 m g) (1.7 mm at 10 rad/s; reaching the end takes at least 24 rad/s).
//  heavy-rod: tomcin2014 Figure 1d: a 7.5 t block (1 x 0.5 x 1 m) resting on the middle of a 50 kg
//    rod (2 x 0.1 x 0.1 m) that is held by a hinge at one end and hangs from a 1 m distance joint
//    at the other; everything stays at rest. The mass ratio 150 is what makes contacts alternating
//    with joints converge slowly (tomcin2014 s.1, s.7).
#include <cmath>

#include <fmt/format.h>

#include "models/catalog.hpp"

namespace mb {

namespace {
Body solid_sphere(const std::string& name, double mass, double radius) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.inertia = (0.4 * mass * radius * radius) * Mat3::Identity();
  return b;
}
Body solid_box(const std::string& name, double mass, const Vec3& half) {
  Body b;
  b.name = name;
  b.mass = mass;
  b.box = 2 * half;
  const Vec3 s = 2 * half;
  b.inertia = (mass / 12.0 * Vec3(s.y() * s.y() + s.z() * s.z(), s.x() * s.x() + s.z() * s.z(), s.x() * s.x() + s.y() * s.y())).asDiagonal();
  return b;
}
Shape floor_shape(const Quat& orientation, int material) {
  Shape s;
  s.name = "floor";
  s.type = ShapeType::HalfSpace;
  s.body = kWorld;
  s.orientation = orientation;
  s.material = material;
  return s;
}
}  // namespace

double incline_cube_mu(int i) { return 0.1 + 0.15 * i; }  // 0.1, 0.25, 0.4, 0.55, 0.7, 0.85

Model build_bouncing_ball(const Spec& spec) {
  const double e = spec.get_double("e", 0.8), height = spec.get_double("height", 1.0);
  const double r = 0.1, g = 9.81;
  Model m;
  m.gravity = Vec3(0, -g, 0);
  Body ball = solid_sphere("ball", 1.0, r);
  ball.position = Vec3(0, height + r, 0);
  m.bodies.push_back(ball);
  m.materials.push_back({"ball", e, 0.0, 0.0});
  m.shapes.push_back(floor_shape(Quat::Identity(), 0));
  Shape s;
  s.name = "ball";
  s.type = ShapeType::Sphere;
  s.body = 0;
  s.radius = r;
  m.shapes.push_back(s);
  m.info.name = spec.text();
  m.info.source = "ours (analytic)";
  m.info.description = fmt::format("a 1 kg ball of radius {} m dropped from rest, lowest point {} m above the floor, restitution {}", r, height, e);
  m.info.tracked_body = -1;
  m.info.duration = 3;
  m.info.default_h = 0.001;
  m.info.h_grid = {0.0005, 0.001, 0.002, 0.004, 0.008};
  m.info.energy_conserved = e == 1;
  return m;
}

Model build_incline_cubes(const Spec& spec) {
  const double angle = spec.get_double("angle", 30.0) * M_PI / 180.0;
  const int n = static_cast<int>(spec.get_int("cubes", 6));
  const double half = 0.05, g = 9.81;
  Model m;
  m.gravity = Vec3(0, -g, 0);
  const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  const Vec3 normal = tilt * Vec3::UnitY();
  m.materials.push_back({"incline", 0.0, 1e3, 1e3});  // the cubes' coefficients decide (the smaller one)
  m.shapes.push_back(floor_shape(tilt, 0));
  for (int i = 0; i < n; ++i) {
    const double mu = incline_cube_mu(i);
    Body b = solid_box(fmt::format("cube{}", i + 1), 1.0, Vec3(half, half, half));
    b.orientation = tilt;
    b.position = normal * half + Vec3(0, 0, 0.3 * i);
    m.bodies.push_back(b);
    m.materials.push_back({fmt::format("mu{}", i + 1), 0.0, mu, mu});
    Shape s;
    s.name = b.name;
    s.type = ShapeType::Box;
    s.body = i;
    s.half_extents = Vec3(half, half, half);
    s.material = i + 1;
    m.shapes.push_back(s);
    // the closed form: at rest, or sliding down the slope with a = g (sin - mu cos)
    const double a = mu < std::tan(angle) ? g * (std::sin(angle) - mu * std::cos(angle)) : 0.0;
    m.info.exact.push_back({i, -a * (tilt * Vec3::UnitX())});
  }
  m.info.name = spec.text();
  m.info.source = "schmitt2003 (sliding cubes)";
  m.info.description = fmt::format(
      "{} cubes of 0.1 m and 1 kg at rest on a plane inclined by {} degrees, friction mu = 0.1 + 0.15 i (static = dynamic); "
      "a cube with mu < tan(angle) slides with a = g (sin - mu cos)", n, angle * 180 / M_PI);
  m.info.duration = 2;
  m.info.default_h = 0.01;
  m.info.h_grid = {0.0025, 0.005, 0.01, 0.02};
  m.info.energy_conserved = false;
  return m;
}

Model build_sledge_pendulum(const Spec& spec) {
  const double mu = spec.get_double("mu", 0.45), angle = 20 * M_PI / 180, g = 9.81;
  const Vec3 half(0.3, 0.05, 0.15);
  Model m;
  m.gravity = Vec3(0, -g, 0);
  const Quat tilt(Eigen::AngleAxisd(angle, Vec3::UnitZ()));
  m.materials.push_back({"sledge", 0.0, mu, mu});
  m.shapes.push_back(floor_shape(tilt, 0));
  Body sledge = solid_box("sledge", 4.0, half);
  sledge.orientation = tilt;
  sledge.position = tilt * Vec3(0, half.y(), 0);
  m.bodies.push_back(sledge);
  Shape box;
  box.name = "sledge";
  box.type = ShapeType::Box;
  box.body = 0;
  box.half_extents = half;
  m.shapes.push_back(box);
  // the bar hangs from a point 0.3 m above the sledge's centre, 45 degrees out toward the slope's foot
  const double len = 0.3, mast = 0.3, out = 45 * M_PI / 180;
  Body bar = solid_box("bar", 1.0, Vec3(0.01, len / 2, 0.01));
  bar.orientation = Quat(Eigen::AngleAxisd(-out, Vec3::UnitZ()));
  bar.position = sledge.position + tilt * Vec3(0, mast, 0) + bar.orientation * Vec3(0, -len / 2, 0);
  m.bodies.push_back(bar);
  Joint hinge;
  hinge.name = "hinge";
  hinge.type = JointType::Hinge;
  hinge.a = 0;
  hinge.b = 1;
  hinge.anchor_a = Vec3(0, mast, 0);
  hinge.anchor_b = Vec3(0, len / 2, 0);
  hinge.axis_a = Vec3::UnitZ();
  hinge.axis_b = Vec3::UnitZ();
  m.joints.push_back(hinge);
  m.info.name = spec.text();
  m.info.source = "schmitt2003 (pendulum on a sledge)";
  m.info.description = fmt::format(
      "a 4 kg sledge on a plane inclined by 20 degrees, friction mu = {} (static = dynamic), with a 1 kg, 0.3 m pendulum "
      "hinged 0.3 m above its centre, started 45 degrees out", mu);
  m.info.duration = 5;
  m.info.default_h = 0.005;
  m.info.h_grid = {0.0025, 0.005, 0.01};
  m.info.energy_conserved = false;
  return m;
}

// rolling-box's closed form at force F (N): the box's (box) or a ball's acceleration, m/s^2; NaN
// where the balls would slip on the box (no closed form built)
double rolling_box_acceleration(double F, bool box) {
  const double M = 10, m = 1, n = 25, g = 9.81, mu_floor = 0.4, mu_ball = 0.8;
  const double f1 = mu_floor * (M + n * m) * g;  // the box slides: all the weight on the floor
  if (F <= f1) return 0;                         // static friction holds the box
  const double f2 = (F - f1) / (3.5 * M / m + n);
  if (f2 > mu_ball * m * g) return NAN;
  return box ? 3.5 * f2 / m : f2 / m;
}

Model build_rolling_box(const Spec& spec) {
  const double force = spec.get_double("force", 150.0), g = 9.81;
  Model m;
  m.gravity = Vec3(0, -g, 0);
  m.materials = {{"floor", 0.0, 0.4, 0.4}, {"box", 0.0, 1e3, 1e3}, {"ball", 0.0, 0.8, 0.8}};
  m.shapes.push_back(floor_shape(Quat::Identity(), 0));
  const Vec3 box_half(10, 0.5, 10);
  Body box = solid_box("box", 10.0, box_half);
  box.position = Vec3(0, box_half.y(), 0);
  m.bodies.push_back(box);
  Shape bs;
  bs.name = "box";
  bs.type = ShapeType::Box;
  bs.body = 0;
  bs.half_extents = box_half;
  bs.material = 1;
  m.shapes.push_back(bs);
  const double r = 0.5;
  for (int i = 0; i < 5; ++i)
    for (int k = 0; k < 5; ++k) {
      Body ball = solid_sphere(fmt::format("ball{}{}", i + 1, k + 1), 1.0, r);
      ball.position = Vec3(2.0 * i - 4.0, 2 * box_half.y() + r, 2.0 * k - 4.0);
      m.bodies.push_back(ball);
      Shape s;
      s.name = ball.name;
      s.type = ShapeType::Sphere;
      s.body = static_cast<int>(m.bodies.size()) - 1;
      s.radius = r;
      s.material = 2;
      m.shapes.push_back(s);
    }
  m.loads.push_back({0, Vec3::Zero(), 0.0, INFINITY, Vec3(force, 0, 0)});
  if (std::isfinite(rolling_box_acceleration(force, true))) {  // the closed form above
    m.info.exact.push_back({0, Vec3(rolling_box_acceleration(force, true), 0, 0)});
    for (int b = 1; b <= 25; ++b) m.info.exact.push_back({b, Vec3(rolling_box_acceleration(force, false), 0, 0)});
  }
  m.info.name = spec.text();
  m.info.source = "SimBenchmark rolling test (Robotic Systems Lab, ETH Zurich)";
  m.info.description = fmt::format(
      "a 10 kg box (20 x 1 x 20 m) sliding on the floor (mu 0.4) under a horizontal {} N force, carrying 25 balls of 1 kg "
      "and radius 0.5 m that roll on it (mu 0.8); box a = {:.4f} m/s^2, balls {:.4f} m/s^2", force,
      rolling_box_acceleration(force, true), rolling_box_acceleration(force, false));
  m.info.duration = 4;
  m.info.default_h = 0.001;
  m.info.h_grid = {0.0005, 0.001, 0.002, 0.004};
  m.info.energy_conserved = false;
  return m;
}

Model build_spinning_egg(const Spec& spec) {
  const double spin = spec.get_double("spin", 60.0), mu = spec.get_double("mu", 0.3), g = 9.81;
  const double a = 0.03, b = 0.022, mass = 0.06, tilt = 3 * M_PI / 180;
  Model m;
  m.gravity = Vec3(0, -g, 0);
  m.materials.push_back({"table", 0.0, mu, mu});
  m.shapes.push_back(floor_shape(Quat::Identity(), 0));
  Body egg;
  egg.name = "egg";
  egg.mass = mass;
  egg.inertia = Vec3(0.4 * mass * b * b, 0.2 * mass * (a * a + b * b), 0.2 * mass * (a * a + b * b)).asDiagonal();
  egg.orientation = Quat(Eigen::AngleAxisd(tilt, Vec3::UnitZ()));  // the symmetry axis (body x) raised by `tilt`
  // resting on its side: the centre at the spheroid's support height along the vertical
  egg.position = Vec3(0, std::sqrt(a * a * std::sin(tilt) * std::sin(tilt) + b * b * std::cos(tilt) * std::cos(tilt)), 0);
  egg.angular_velocity = Vec3(0, spin, 0);
  m.bodies.push_back(egg);
  Shape s;
  s.name = "egg";
  s.type = ShapeType::Ellipsoid;
  s.body = 0;
  s.half_extents = Vec3(a, b, b);
  m.shapes.push_back(s);
  m.info.name = spec.text();
  m.info.source = "schmitt2003 (spinning egg); Moffatt and Shimomura 2002";
  m.info.description = fmt::format(
      "a 60 g uniform prolate spheroid (semi-axes 0.03, 0.022 m) lying on a table (mu {}), spun at {} rad/s about the vertical: "
      "fast enough, it rises onto its end (centre of mass from 0.022 to 0.03 m)", mu, spin);
  m.info.duration = 5;
  m.info.default_h = 0.0005;
  m.info.h_grid = {0.00025, 0.0005, 0.001};
  m.info.energy_conserved = mu == 0;
  return m;
}

Model build_heavy_rod(const Spec& spec) {
  Model m;
  m.gravity = Vec3(0, -9.81, 0);
  m.materials.push_back({"steel", 0.0, 0.5, 0.5});
  const Vec3 rod_half(1.0, 0.05, 0.05), block_half(0.5, 0.25, 0.5);
  Body rod = solid_box("rod", 50.0, rod_half);
  rod.position = Vec3(1, 0, 0);
  m.bodies.push_back(rod);
  Body block = solid_box("block", 7500.0, block_half);
  block.position = Vec3(1, rod_half.y() + block_half.y(), 0);
  m.bodies.push_back(block);
  Joint hinge;
  hinge.name = "hinge";
  hinge.type = JointType::Hinge;
  hinge.a = kWorld;
  hinge.b = 0;
  hinge.anchor_a = Vec3(0, 0, 0);
  hinge.anchor_b = Vec3(-1, 0, 0);
  hinge.axis_a = Vec3::UnitZ();
  hinge.axis_b = Vec3::UnitZ();
  m.joints.push_back(hinge);
  m.joints.push_back(rod_joint("hanger", kWorld, Vec3(2, 1, 0), 0, Vec3(1, 0, 0), 1.0));
  for (int k = 0; k < 2; ++k) {
    Shape sh;
    sh.name = m.bodies[static_cast<size_t>(k)].name;
    sh.type = ShapeType::Box;
    sh.body = k;
    sh.half_extents = k == 0 ? rod_half : block_half;
    m.shapes.push_back(sh);
  }
  m.info.name = spec.text();
  m.info.source = "tomcin2014 Figure 1d";
  m.info.description =
      "a 7.5 t block resting on the middle of a 50 kg, 2 m rod held by a hinge at one end and a 1 m hanger at the other; "
      "everything stays at rest";
  m.info.exact = {{0, Vec3::Zero()}, {1, Vec3::Zero()}};  // both stay at rest
  m.info.duration = 5;
  m.info.default_h = 0.01;
  m.info.h_grid = {0.005, 0.01, 0.02};
  m.info.energy_conserved = true;
  return m;
}

}  // namespace mb
