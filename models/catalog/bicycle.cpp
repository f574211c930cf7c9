// The benchmark bicycle of meijaard2007 (Table 1): the Whipple model, four rigid bodies (rear wheel,
// rear frame with rider, handlebar and fork, front wheel), three hinges and two knife-edge wheels
// rolling on the ground. Axes: x forward, y right, z down, the rear contact at the origin, every body
// frame aligned with the world's in the upright reference configuration. Lean phi: the rear frame's
// roll (yaw-roll-pitch), right side down positive; steer delta: the fork's rotation relative to the
// rear frame about the steer axis pointing down, front turning right positive.
#include <cmath>
#include <numbers>
#include <tuple>

#include <Eigen/Dense>
#include <boost/math/tools/toms748_solve.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

constexpr int kRearWheel = 0, kRearFrame = 1, kFork = 2, kFrontWheel = 3;

Mat3 inertia(double xx, double yy, double zz, double xz) {
  Mat3 I;
  I << xx, 0, xz, 0, yy, 0, xz, 0, zz;
  return I;
}

// the down-pointing steer axis and its point at the front hub's height (reference configuration)
Vec3 steer_axis(const BicycleParams& p) { return Vec3(std::sin(p.lambda), 0, std::cos(p.lambda)); }
Vec3 steer_point(const BicycleParams& p) { return Vec3(p.w + p.c - p.rF * std::tan(p.lambda), 0, -p.rF); }

// the centres of mass in the reference configuration
std::array<Vec3, 4> reference_centres(const BicycleParams& p) {
  return {Vec3(0, 0, -p.rR), Vec3(p.xB, 0, p.zB), Vec3(p.xH, 0, p.zH), Vec3(p.w, 0, -p.rF)};
}

Rolling wheel(const std::string& name, int body, double radius) {
  Rolling r;
  r.name = name;
  r.body = body;
  r.axle = Vec3::UnitY();
  r.radius = radius;
  r.point = Vec3::Zero();
  r.normal = Vec3(0, 0, -1);  // the ground z = 0, the wheels above it (z < 0)
  return r;
}

// the poses at lean, steer and rear-frame pitch theta (about the rear hub)
void pose(const BicycleParams& p, double lean, double steer, double theta, State& s) {
  const auto c = reference_centres(p);
  s.bodies.assign(4, BodyState{});
  const Quat qs(Eigen::AngleAxisd(steer, steer_axis(p)));
  const Quat qp(Eigen::AngleAxisd(theta, Vec3::UnitY()));
  const Quat ql(Eigen::AngleAxisd(lean, Vec3::UnitX()));
  const Vec3 hub(0, 0, -p.rR), A = steer_point(p);
  for (int k = 0; k < 4; ++k) {
    Vec3 x = c[static_cast<size_t>(k)];
    Quat q = Quat::Identity();
    if (k == kFork || k == kFrontWheel) x = A + qs * (x - A), q = qs;
    if (k != kRearWheel) x = hub + qp * (x - hub), q = qp * q;
    s.bodies[static_cast<size_t>(k)].x = ql * x;
    s.bodies[static_cast<size_t>(k)].q = (ql * q).normalized();
  }
}

}  // namespace

double BicycleParams::lean_mass() const {
  // sum of I_xx + m (y^2 + z^2) about the line of the contacts (the x axis), upright
  const auto c = reference_centres(*this);
  const double m[4] = {mR, mB, mH, mF}, Ixx[4] = {IRxx, IBxx, IHxx, IFxx};
  double s = 0;
  for (size_t k = 0; k < 4; ++k) s += Ixx[k] + m[k] * (c[k].y() * c[k].y() + c[k].z() * c[k].z());
  return s;
}

State bicycle_state(const BicycleParams& p, const BicycleCoordinates& z, double v) {
  // the pitch that puts the front wheel on the ground: its contact's height is monotone in theta
  const Rolling front = wheel("front", kFrontWheel, p.rF);
  State s;
  auto height = [&](double theta) {
    pose(p, z.lean, z.steer, theta, s);
    return rolling_contact(front, s.bodies[kFrontWheel]).height;
  };
  double theta = 0;
  if (height(0) != 0) {
    std::uintmax_t it = 200;
    const auto [a, b] = boost::math::tools::toms748_solve(height, -0.5, 0.5, boost::math::tools::eps_tolerance<double>(), it);
    theta = std::abs(height(a)) <= std::abs(height(b)) ? a : b;
  }
  pose(p, z.lean, z.steer, theta, s);
  // velocities: unknowns u = (v_B, w_B, the front wheel's spin rate), prescribed the steer rate, the
  // rear wheel's spin -v / rR relative to the rear frame and the lean rate; residuals: the two
  // contacts' slip (6) and the lean rate's (phi' cos phi = (w_B x e)_z, e the rear frame's y axis)
  const Rolling rear = wheel("rear", kRearWheel, p.rR);
  const Vec3 A = s.bodies[kRearFrame].x + s.bodies[kRearFrame].q * (steer_point(p) - reference_centres(p)[kRearFrame]);
  const Vec3 axis = s.bodies[kRearFrame].q * steer_axis(p);
  const Vec3 e = s.bodies[kRearFrame].q * Vec3::UnitY();
  auto velocities = [&](const Eigen::Matrix<double, 7, 1>& u, State& out) {
    out = s;
    BodyState &R = out.bodies[kRearWheel], &B = out.bodies[kRearFrame], &H = out.bodies[kFork], &F = out.bodies[kFrontWheel];
    B.v = u.head<3>();
    B.w = u.segment<3>(3);
    R.w = B.w + (-v / p.rR) * (R.q * Vec3::UnitY());
    R.v = B.v + B.w.cross(R.x - B.x);
    H.w = B.w + z.steer_rate * axis;
    H.v = B.v + B.w.cross(A - B.x) + H.w.cross(H.x - A);
    F.w = H.w + u[6] * (F.q * Vec3::UnitY());
    F.v = H.v + H.w.cross(F.x - H.x);
  };
  auto residual = [&](const Eigen::Matrix<double, 7, 1>& u) {
    State t;
    velocities(u, t);
    Eigen::Matrix<double, 7, 1> r;
    r.head<3>() = rolling_contact(rear, t.bodies[kRearWheel]).slip;
    r.segment<3>(3) = rolling_contact(front, t.bodies[kFrontWheel]).slip;
    r[6] = t.bodies[kRearFrame].w.cross(e).z() - z.lean_rate * std::cos(z.lean);
    return r;
  };
  // the residual is affine in u: its matrix column by column
  const Eigen::Matrix<double, 7, 1> r0 = residual(Eigen::Matrix<double, 7, 1>::Zero());
  Eigen::Matrix<double, 7, 7> J;
  for (int i = 0; i < 7; ++i) J.col(i) = residual(Eigen::Matrix<double, 7, 1>::Unit(i)) - r0;
  const Eigen::Matrix<double, 7, 1> u = J.fullPivLu().solve(-r0);
  State out;
  velocities(u, out);
  return out;
}

BicycleCoordinates bicycle_coordinates(const BicycleParams& p, const State& s) {
  const BodyState &B = s.bodies[kRearFrame], &H = s.bodies[kFork];
  const Vec3 e = B.q * Vec3::UnitY();
  BicycleCoordinates z;
  z.lean = std::asin(e.z());
  z.lean_rate = B.w.cross(e).z() / std::cos(z.lean);
  const Quat rel = B.q.conjugate() * H.q;
  const Vec3 a = steer_axis(p);
  z.steer = 2 * std::atan2(a.dot(rel.vec()), rel.w());
  z.steer_rate = (B.q * a).dot(H.w - B.w);
  return z;
}

std::array<double, 2> bicycle_accelerations(const BicycleParams& p, const State& s, const State& acc) {
  // sin phi = e_z: phi'' cos phi - phi'^2 sin phi = (alpha x e + w x (w x e))_z; delta' = a_w . (w_H - w_B)
  // with a_w' = w_B x a_w
  const BodyState &B = s.bodies[kRearFrame], &H = s.bodies[kFork];
  const Vec3 e = B.q * Vec3::UnitY();
  const BicycleCoordinates z = bicycle_coordinates(p, s);
  const Vec3& alpha = acc.bodies[kRearFrame].w;
  const double lean_acc = ((alpha.cross(e) + B.w.cross(B.w.cross(e))).z() + z.lean_rate * z.lean_rate * std::sin(z.lean)) / std::cos(z.lean);
  const Vec3 a = B.q * steer_axis(p);
  const double steer_acc = B.w.cross(a).dot(H.w - B.w) + a.dot(acc.bodies[kFork].w - acc.bodies[kRearFrame].w);
  return {lean_acc, steer_acc};
}

WhippleMatrices whipple_matrices(const BicycleParams& p) {
  // appendix A: the whole bicycle (T), the front assembly (A: fork and front wheel) about the steer
  // axis (l), the trail ratio mu and the wheels' gyroscopic coefficients S
  const double sl = std::sin(p.lambda), cl = std::cos(p.lambda);
  const double mT = p.mR + p.mB + p.mH + p.mF;
  const double xT = (p.xB * p.mB + p.xH * p.mH + p.w * p.mF) / mT;
  const double zT = (-p.rR * p.mR + p.zB * p.mB + p.zH * p.mH - p.rF * p.mF) / mT;
  const double ITxx = p.IRxx + p.IBxx + p.IHxx + p.IFxx + p.mR * p.rR * p.rR + p.mB * p.zB * p.zB + p.mH * p.zH * p.zH + p.mF * p.rF * p.rF;
  const double ITxz = p.IBxz + p.IHxz - p.mB * p.xB * p.zB - p.mH * p.xH * p.zH + p.mF * p.w * p.rF;
  const double ITzz = p.IRxx + p.IBzz + p.IHzz + p.IFxx + p.mB * p.xB * p.xB + p.mH * p.xH * p.xH + p.mF * p.w * p.w;
  const double mA = p.mH + p.mF, xA = (p.xH * p.mH + p.w * p.mF) / mA, zA = (p.zH * p.mH - p.rF * p.mF) / mA;
  const double IAxx = p.IHxx + p.IFxx + p.mH * (p.zH - zA) * (p.zH - zA) + p.mF * (p.rF + zA) * (p.rF + zA);
  const double IAxz = p.IHxz - p.mH * (p.xH - xA) * (p.zH - zA) + p.mF * (p.w - xA) * (p.rF + zA);
  const double IAzz = p.IHzz + p.IFxx + p.mH * (p.xH - xA) * (p.xH - xA) + p.mF * (p.w - xA) * (p.w - xA);
  const double uA = (xA - p.w - p.c) * cl - zA * sl;
  const double IAll = mA * uA * uA + IAxx * sl * sl + 2 * IAxz * sl * cl + IAzz * cl * cl;
  const double IAlx = -mA * uA * zA + IAxx * sl + IAxz * cl, IAlz = mA * uA * xA + IAxz * sl + IAzz * cl;
  const double mu = p.c / p.w * cl;
  const double SR = p.IRyy / p.rR, SF = p.IFyy / p.rF, ST = SR + SF, SA = mA * uA + mu * mT * xT;
  WhippleMatrices m;
  m.g = p.g;
  m.M << ITxx, IAlx + mu * ITxz, IAlx + mu * ITxz, IAll + 2 * mu * IAlz + mu * mu * ITzz;
  m.K0 << mT * zT, -SA, -SA, -SA * sl;
  m.K2 << 0, (ST - mT * zT) / p.w * cl, 0, (SA + SF * sl) / p.w * cl;
  m.C1 << 0, mu * ST + SF * cl + ITxz / p.w * cl - mu * mT * zT, -(mu * ST + SF * cl), IAlz / p.w * cl + mu * (SA + ITzz / p.w * cl);
  return m;
}

Model make_bicycle(const BicycleParams& p, double v, double lean0, double steer_rate0, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, 0, p.g);
  const auto c = reference_centres(p);
  auto body = [&](const char* n, double mass, const Mat3& I) {
    Body b;
    b.name = n;
    b.mass = mass;
    b.inertia = I;
    m.bodies.push_back(b);
  };
  body("rear-wheel", p.mR, inertia(p.IRxx, p.IRyy, p.IRxx, 0));
  body("rear-frame", p.mB, inertia(p.IBxx, p.IByy, p.IBzz, p.IBxz));
  body("fork", p.mH, inertia(p.IHxx, p.IHyy, p.IHzz, p.IHxz));
  body("front-wheel", p.mF, inertia(p.IFxx, p.IFyy, p.IFxx, 0));
  auto hinge = [&](const char* n, int a, int b, const Vec3& at, const Vec3& axis) {
    Joint j;
    j.name = n;
    j.type = JointType::Hinge;
    j.a = a;
    j.b = b;
    j.anchor_a = at - c[static_cast<size_t>(a)];
    j.anchor_b = at - c[static_cast<size_t>(b)];
    j.axis_a = j.axis_b = axis;
    m.joints.push_back(j);
  };
  hinge("rear-hub", kRearFrame, kRearWheel, c[kRearWheel], Vec3::UnitY());
  hinge("steer", kRearFrame, kFork, steer_point(p), steer_axis(p));
  hinge("front-hub", kFork, kFrontWheel, c[kFrontWheel], Vec3::UnitY());
  m.rolling = {wheel("rear", kRearWheel, p.rR), wheel("front", kFrontWheel, p.rF)};
  const State s = bicycle_state(p, {lean0, 0, 0, steer_rate0}, v);
  for (size_t k = 0; k < 4; ++k) {
    Body& b = m.bodies[k];
    b.position = s.bodies[k].x;
    b.orientation = s.bodies[k].q;
    b.velocity = s.bodies[k].v;
    b.angular_velocity = s.bodies[k].w;
  }
  m.info.name = name;
  m.info.source = "meijaard2007 (Table 1)";
  m.info.description = fmt::format(
      "the benchmark bicycle (Whipple model): rear wheel, rear frame, fork, front wheel, 3 hinges, 2 knife-edge wheels rolling "
      "without slipping on the ground (x forward, z down); forward speed {} m/s, lean {} rad, steer rate {} rad/s at the start",
      v, lean0, steer_rate0);
  m.info.tracked_body = kRearFrame;
  m.info.duration = 10;
  m.info.default_h = 1e-3;
  m.info.h_grid.clear();
  for (int i = 0; i <= 6; ++i) m.info.h_grid.push_back(2.5e-4 * std::pow(2.0, i));  // 0.25 .. 16 ms
  // eig_err's reference: the published linearization's eigenvalues at v
  LinearModes modes;
  modes.source = "meijaard2007 appendix A";
  modes.v = v;
  modes.eigenvalues = eigenvalues4(whipple_state_matrix(whipple_matrices(p), v));
  modes.coordinates = [p](const State& s) {
    const BicycleCoordinates z = bicycle_coordinates(p, s);
    return std::array<double, 4>{z.lean, z.steer, z.lean_rate, z.steer_rate};
  };
  m.info.modes = std::move(modes);
  check_model(m, name);
  return m;
}

namespace {

// wheels=cylinder|ellipsoid: the two rolling constraints replaced by collision shapes on a floor
// half-space (z >= 0) with friction 1 and no restitution, everything else (bodies, hinges, initial
// state with both wheels touching the floor) as with rolling wheels. Both shapes are 2 cm wide:
// a cylinder (its axis the axle) touches the floor along a segment across its width, so its
// contact moves to a rim edge as it leans; an ellipsoid of semi-axes (r, 1 cm, r) has a crown of
// radius (1 cm)^2 / r in the wheel's cross-section: at lean phi its contact point is 0.33 mm
// sin(phi) (r = 0.3 m) off the wheel's plane, where a knife edge's is.
void contact_wheels(Model& m, const BicycleParams& p, ShapeType type) {
  constexpr double kHalfWidth = 0.01;
  const Quat y_to_minus_z(Eigen::AngleAxisd(-std::numbers::pi / 2, Vec3::UnitX()));  // also z to y
  m.rolling.clear();
  m.materials = {Material{"tyre", 0, 1, 1}};
  Shape floor;
  floor.name = "floor";
  floor.type = ShapeType::HalfSpace;
  floor.orientation = y_to_minus_z;  // the half-space's normal, its y, up (-z)
  m.shapes.push_back(floor);
  for (const auto& [name, body, r] : {std::tuple{"rear-tyre", kRearWheel, p.rR}, std::tuple{"front-tyre", kFrontWheel, p.rF}}) {
    Shape w;
    w.name = name;
    w.type = type;
    w.body = body;
    if (type == ShapeType::Cylinder) w.radius = r, w.length = 2 * kHalfWidth, w.orientation = y_to_minus_z;
    else w.half_extents = Vec3(r, kHalfWidth, r);
    m.shapes.push_back(w);
  }
}

}  // namespace

Model build_bicycle(const Spec& spec) {
  const double v = spec.get_double("v", 5), lean0 = spec.get_double("lean0", 0), steer_rate0 = spec.get_double("steer_rate0", 0);
  const std::string wheels = spec.get_string("wheels", "rolling");
  const BicycleParams p;
  Model m = make_bicycle(p, v, lean0, steer_rate0, spec.text());
  if (wheels == "rolling") return m;
  contact_wheels(m, p, wheels == "cylinder" ? ShapeType::Cylinder : ShapeType::Ellipsoid);
  m.info.description = fmt::format(
      "the benchmark bicycle (Whipple model) on {} wheels 2 cm wide with friction 1 on a floor (x forward, z down); forward "
      "speed {} m/s, lean {} rad, steer rate {} rad/s at the start, both wheels touching the floor",
      wheels, v, lean0, steer_rate0);
  check_model(m, spec.text());
  return m;
}

}  // namespace mb
