// walker: schmitt2003's six-legged walking machine. The paper gives no dimensions; ours:
//   body: a 0.36 x 0.06 x 0.16 m box (x: the walking direction, y up), 1.5 kg, its underside at
//     the hips;
//   six legs at x = -0.14, 0, +0.14 on both sides (z = -+0.1), numbered 1-3 on the left (+z) from
//     the front, 4-6 on the right from the front; each leg two 0.1 m aluminium bars (thigh and
//     shank, 0.02 m square) on a hip hinge and a knee hinge, both about z, so every leg moves in
//     its vertical x-y plane, the knee pointing forward; the foot a sphere of radius 0.015 m at the
//     shank's end;
//   standing: every foot 0.14 m below its hip (the sphere's centre), straight under it.
// Every hinge is driven by a position motor with a piecewise-linear table (20 points per period):
// the foot's path relative to the hip, turned into hip and knee angles by the leg's inverse
// kinematics. Tripod gait: legs 1, 3 and 5 (front left, rear left, middle right) and 2, 4 and 6
// half a period apart. In each half period one tripod stands and the other swings: the standing
// feet push back by the stride in the first 40 % of it (a cosine in time) and then hold still
// relative to the body; the swinging feet lift by 0.03 m, swing forward and put down (zero
// relative speed at both ends). The stride ramps up from 0 over the first period, so the machine
// starts at rest on all six feet. The walk goes to +x.
// Why the push and the hold: on a floor the body moves only by friction, and a foot that holds
// still while the body glides on slips forward and brakes it. With enough friction the standing
// feet stick and the body follows them (a stride per half period); on ice (mu = 0.05) they slip
// through the push, and the body, pushed by at most mu g, glides to a stop in the hold. A gait
// whose feet move at one speed through the whole stance walks on ice nearly as well as on a floor
// (the feet slip back and forth about the body's mean speed), so it would show nothing.
// Ground: a half-space y <= 0 with friction mu (static = dynamic). terrain=escape: that half-space
// is ice (mu = 0.05), and a second half-space of rough ground (mu = 0.8) rises from it at
// x = 0.3 m with a slope of 1 degree, so the feet ahead of x = 0.3 m stand on rough ground.
// push=on: at t = 2 s leg 2 (middle left) drives its foot 0.055 m below the ground within 0.05 s
// and keeps it there (its motors have no torque bound: it pushes too hard), which throws the
// machine over its right feet onto its back.
#include <cmath>

#include <fmt/format.h>

#include "models/catalog.hpp"

namespace mb {

namespace {

constexpr double kThigh = 0.1, kShank = 0.1, kStand = 0.14, kFootRadius = 0.015, kLift = 0.03;
constexpr double kIceMu = 0.05, kRoughMu = 0.8, kRoughStart = 0.3, kRoughSlope = M_PI / 180;
constexpr double kPushTime = 2, kPushRise = 0.05, kPushDepth = 0.055;
constexpr double kThrust = 0.4;  // the share of the stance the push back takes; the foot holds still after it
constexpr int kPointsPerPeriod = 20;

// hip angle (of the thigh from +x, about z) and knee angle (of the shank relative to the thigh) that
// put the foot at p relative to the hip, the knee forward
std::pair<double, double> leg_angles(double px, double py) {
  const double d = std::min(std::hypot(px, py), 0.999 * (kThigh + kShank));
  const double alpha = std::acos((kThigh * kThigh + d * d - kShank * kShank) / (2 * kThigh * d));
  const double hip = std::atan2(py, px) + alpha;
  const double kx = px - kThigh * std::cos(hip), ky = py - kThigh * std::sin(hip);
  return {hip, std::atan2(ky, kx) - hip};
}

// the foot's offset from its standing point at gait phase u in [0, 1) (0: the stance begins)
std::pair<double, double> foot_offset(double u, double stride) {
  if (u < 0.5) return {stride / 2 * std::cos(M_PI * std::min(1.0, u / (0.5 * kThrust))), 0.0};
  const double s = (u - 0.5) / 0.5;
  return {-stride / 2 * std::cos(M_PI * s), kLift * std::sin(M_PI * s)};
}

int add_body(Model& m, const Body& b) {
  m.bodies.push_back(b);
  return static_cast<int>(m.bodies.size()) - 1;
}

Body bar_between(const std::string& name, const Vec3& p, const Vec3& q) {
  Body b = make_box(name, (q - p).norm(), 0.02, 2700);
  b.orientation = Quat::FromTwoVectors(Vec3::UnitY(), q - p).normalized();
  b.position = (p + q) / 2;
  return b;
}

int hinge_z(Model& m, const std::string& name, int a, int b, const Vec3& p) {
  Joint j;
  j.name = name;
  j.type = JointType::Hinge;
  j.a = a;
  j.b = b;
  const Body &A = m.bodies[static_cast<size_t>(a)], &B = m.bodies[static_cast<size_t>(b)];
  j.anchor_a = A.orientation.conjugate() * (p - A.position);
  j.anchor_b = B.orientation.conjugate() * (p - B.position);
  j.axis_a = A.orientation.conjugate() * Vec3::UnitZ();
  j.axis_b = B.orientation.conjugate() * Vec3::UnitZ();
  j.rel_orientation = (A.orientation.conjugate() * B.orientation).normalized();
  m.joints.push_back(j);
  return static_cast<int>(m.joints.size()) - 1;
}

Shape box_shape(const std::string& name, int body, const Vec3& position, const Vec3& half, int material) {
  Shape s;
  s.name = name;
  s.type = ShapeType::Box;
  s.body = body;
  s.position = position;
  s.half_extents = half;
  s.material = material;
  return s;
}

}  // namespace

Model make_walker(const WalkerParams& p, const std::string& name) {
  Model m;
  const Vec3 body_size(0.36, 0.06, 0.16);
  const double hip_y = kStand + kFootRadius;  // the hips' height above the ground when standing
  Body body;
  body.name = "body";
  body.mass = 1.5;
  body.box = body_size;
  {
    const Vec3& e = body_size;
    body.inertia = (body.mass / 12.0 * Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(), e.x() * e.x() + e.y() * e.y()))
                       .asDiagonal();
  }
  body.position = Vec3(0, hip_y + body_size.y() / 2, 0);
  const int trunk = add_body(m, body);

  m.materials.push_back({"ground", 0.0, p.terrain_escape ? kIceMu : p.mu, p.terrain_escape ? kIceMu : p.mu});
  m.materials.push_back({"foot", 0.0, 100, 100});  // the ground's coefficients decide (the smaller of the two)
  if (p.terrain_escape) m.materials.push_back({"rough", 0.0, kRoughMu, kRoughMu});
  m.shapes.push_back(box_shape("body", trunk, Vec3::Zero(), body_size / 2, 1));

  // the gait: the tables cover the run (the model's duration) plus a period
  const double duration = p.terrain_escape ? 30 : 10;
  const int points = static_cast<int>(std::ceil((duration + p.gait_period) / p.gait_period)) * kPointsPerPeriod;
  const double dt = p.gait_period / kPointsPerPeriod;
  const double xs[3] = {0.14, 0, -0.14};
  const auto [hip0, knee0] = leg_angles(0, -kStand);
  for (int leg = 0; leg < 6; ++leg) {
    const bool left = leg < 3;
    const double x = xs[leg % 3], z = left ? 0.1 : -0.1;
    // tripods: legs 1, 3 (left front, rear) and 5 (right middle) against 2, 4 and 6
    const bool first_tripod = (leg == 0 || leg == 2 || leg == 4);
    const Vec3 hip(x, hip_y, z);
    const Vec3 knee = hip + kThigh * Vec3(std::cos(hip0), std::sin(hip0), 0);
    const Vec3 foot = hip + Vec3(0, -kStand, 0);
    const int thigh = add_body(m, bar_between(fmt::format("thigh{}", leg + 1), hip, knee));
    const int shank = add_body(m, bar_between(fmt::format("shank{}", leg + 1), knee, foot));
    const int jh = hinge_z(m, fmt::format("hip{}", leg + 1), trunk, thigh, hip);
    const int jk = hinge_z(m, fmt::format("knee{}", leg + 1), thigh, shank, knee);
    Shape s;
    s.name = fmt::format("foot{}", leg + 1);
    s.type = ShapeType::Sphere;
    s.body = shank;
    s.position = m.bodies[static_cast<size_t>(shank)].orientation.conjugate() * (foot - m.bodies[static_cast<size_t>(shank)].position);
    s.radius = kFootRadius;
    s.material = 1;
    m.shapes.push_back(s);

    MotorTarget th, tk;
    th.kind = tk.kind = TargetKind::Table;
    const bool pusher = p.push && leg == 1;
    for (int i = 0; i <= points; ++i) {
      const double t = i * dt;
      const double ramp = std::min(1.0, t / p.gait_period);
      const double u = std::fmod(t / p.gait_period + (first_tripod ? 0.0 : 0.5), 1.0);
      auto [dx, dy] = foot_offset(u, p.stride);
      dx *= ramp;  // the lift is not ramped: the swinging tripod's first move is off the ground
      if (pusher && t > kPushTime) {
        const double f = std::min(1.0, (t - kPushTime) / kPushRise);
        dx *= 1 - f;
        dy = (1 - f) * dy - f * kPushDepth;
      }
      const auto [h, k] = leg_angles(dx, -kStand + dy);
      th.times.push_back(t);
      tk.times.push_back(t);
      th.values.push_back(i == 0 ? 0.0 : h - hip0);
      tk.values.push_back(i == 0 ? 0.0 : k - knee0);
    }
    Motor mh;
    mh.name = fmt::format("hip{}", leg + 1);
    mh.joint = jh;
    mh.target = th;
    Motor mk;
    mk.name = fmt::format("knee{}", leg + 1);
    mk.joint = jk;
    mk.target = tk;
    m.motors.push_back(mh);
    m.motors.push_back(mk);
  }

  Shape ground;
  ground.name = "ground";
  ground.type = ShapeType::HalfSpace;
  ground.body = kWorld;
  ground.material = 0;
  m.shapes.push_back(ground);
  if (p.terrain_escape) {  // the rough ground: a second half-space, rising from the ice at x = kRoughStart
    Shape rough = ground;
    rough.name = "rough";
    rough.position = Vec3(kRoughStart, 0, 0);
    rough.orientation = Quat(Eigen::AngleAxisd(kRoughSlope, Vec3::UnitZ()));
    rough.material = 2;
    m.shapes.push_back(rough);
  }

  m.info.name = name;
  m.info.source = "schmitt2003";
  m.info.description = fmt::format(
      "six-legged walking machine (our dimensions): a 1.5 kg body box, 6 legs of two 0.1 m hinged bars with position motors "
      "(tripod gait, period {} s, stride {} m), feet spheres on {}{}",
      p.gait_period, p.stride, p.terrain_escape ? fmt::format("ice (mu {}), rough ground (mu {}, 1 degree uphill) from x = {} m", kIceMu, kRoughMu, kRoughStart)
                                                : fmt::format("a floor (mu {})", p.mu),
      p.push ? fmt::format("; leg 2 pushes {} m into the ground at t = {} s and topples it", kPushDepth, kPushTime) : "");
  m.info.tracked_body = trunk;
  m.info.duration = duration;
  m.info.default_h = 0.01;
  m.info.h_grid = default_h_grid();
  m.info.energy_conserved = false;
  return m;
}

Model build_walker(const Spec& s) {
  WalkerParams p;
  p.mu = s.get_double("mu", p.mu);
  p.gait_period = s.get_double("gait_period", p.gait_period);
  p.stride = s.get_double("stride", p.stride);
  p.terrain_escape = s.get_string("terrain", "flat") == "escape";
  p.push = s.get_string("push", "off") == "on";
  return make_walker(p, s.text().find(':') == std::string::npos ? "walker" : s.text());
}

}  // namespace mb
