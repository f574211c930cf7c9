// The mechanisms of tomcin2014 s.5-6 (Figs. 1c, 5a, 6): a spider, a scissor lift, Theo Jansen's
// Strandbeest, and the "octahedron" mechanism of Cardan and revolute joints as a tube and as a cube.
// The paper gives no dimensions and no joint-by-joint structure (its figures are renderings); the
// structures below are ours, chosen to be consistent with the paper's text and its constraint counts.
// docs/mechanisms.md gives the derivation of the counts and what matches and what does not.
//
// Rows per joint (models/model.hpp): ball 3, cardan 4 (point + perpendicular), hinge 5, slider 5.
// Every joint is built from world points and world axes on the initial pose (joint_at below), so every
// joint holds exactly at the start. Bars are boxes make_box(length, width) whose long axis (local y)
// runs from one joint point to the other; SI units.
//
// spider:legs=N: a central box 0.3 x 0.08 x 0.3 m (600 kg/m^3) with N legs on a circle of radius
//   0.15 m around its vertical axis, each leg two bars (0.02 m square, 600 kg/m^3): a thigh of 0.3 m
//   on a ball joint at the rim, rising 30 degrees outward, and a shank of 0.4 m on a knee hinge
//   (axis tangential), falling 60 degrees outward. Rows 3N + 5N = 8N. Free-floating, the whole spider
//   starts as a rigid body spinning at 2 rad/s about the vertical axis (consistent velocities), so
//   the legs swing out.
// scissor-lift:segments=N: two scissor planes z = -0.3 and z = +0.3 m; per segment two crossed bars
//   of 0.5 m in each plane (0.03 m square, 2700 kg/m^3) joined at their middles by a hinge (axis z);
//   at each of the N + 1 levels two cross axles (0.6 m long, 0.03 m square, 2700 kg/m^3) at x = -a and
//   x = +a, and every bar end is hinged (axis z) to the axle at its end; the axle at level 0, x = -a
//   is the world (the base pivot). Hinges: 2 per segment at the middles + 8 bar ends per segment =
//   10 N, rows 50 N (segments=10: 500, as tomcin2014 Fig. 6a). Bars start 30 degrees from the
//   horizontal, at rest. foot=free (default, the paper's count: its lift stands on the floor by
//   contact, which mbbench does not model yet: here the foot axle is free and the lift folds and
//   tips over about the base pivot) or foot=slider (the foot axle slides along x on the floor, a
//   slider joint: rows 50 N + 5).
// strandbeest:legs=N: Jansen's linkage with his lengths a..m (in cm: 1 unit = 0.01 m), each of the
//   ten leg links b c d e f g h i j k one bar (0.01 m square, 2700 kg/m^3), the crank m part of one
//   crank shaft shared by all legs (a box along z, 0.02 m square), the frame (a, l) one body shared by
//   all legs (a box 0.76 x 0.02 m by the shaft's length, 600 kg/m^3, times 1 + k). Leg i lies in the
//   plane z = 0.04 i m; odd legs are mirror images (x -> -x) of the even leg before them and share
//   its crank phase; pair p has phase 2 pi p / ceil(N/2). Pins (hinges, axis z) per leg: crank pin A
//   (j, k: 2), frame pivot B (b, c, d: 3), C (b-j, b-e: 2), D (c-k, c-g, c-i: 3), E (d-e, d-f: 2),
//   F (f-g, f-h: 2), foot G (h-i: 1) = 15; plus the shaft bearing (hinge crank-frame, 1). Rows
//   75 N + 5 (legs=50: 3755; tomcin2014 reports 4482, see docs/mechanisms.md). Free-floating, the
//   frame at rest, the crank turning at 2 pi rad/s relative to it and every link moving with it.
//   drop=H (tomcin2014 s.7's drop, "from a small height of 0.4 meters"): a floor (half-space) below,
//   every foot (node G) a sphere of 0.01 m on its link h, the lowest foot sphere H above the floor;
//   friction 0.6 (static = dynamic), restitution 0 (the paper gives neither); 5 s at h = 20 ms.
// octahedron-tube:rings=R,around=M: octahedra (vertices at +-0.05 m along three axes) of six hub
//   cubes (0.02 m, 2700 kg/m^3) and twelve edge bars (0.01 m square, 2700 kg/m^3); every bar carries
//   a Cardan joint at its first hub and a revolute joint at its second (4 + 5 = 9 rows): the revolute
//   axis and the Cardan's hub axis n perpendicular to the bar (edges: the normal of the plane through
//   the bar and the octahedron's centre), the Cardan's bar axis d x n (d along the bar). M octahedra per ring around the tube's axis (y), their tangential vertices linked to the
//   neighbour's by a bar of 0.04 m (closing the ring), and R rings linked vertex to vertex along y by
//   bars of 0.04 m: bars = 12 R M + R M + (R - 1) M = M (14 R - 1), rows 9 M (14 R - 1) (rings=8,
//   around=19: 18981, as tomcin2014 Fig. 6d). The lowest hubs of ring 0 are static (bolted down).
// octahedron-cube:n=N: N^3 such octahedra on a cubic lattice (spacing 0.14 m), face neighbours linked
//   by bars of 0.04 m: bars 12 N^3 + 3 N^2 (N - 1), rows 9 (15 N^3 - 3 N^2); the lowest hubs of the
//   bottom layer are static. No N gives tomcin2014's 576288 (docs/mechanisms.md).
#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {

int add_body(Model& m, const Body& b) {
  m.bodies.push_back(b);
  return static_cast<int>(m.bodies.size()) - 1;
}

// a bar from p to q (long axis local y), square cross-section `width`
Body bar(const std::string& name, const Vec3& p, const Vec3& q, double width, double density) {
  Body b = make_box(name, (q - p).norm(), width, density);
  b.orientation = Quat::FromTwoVectors(Vec3::UnitY(), q - p).normalized();
  b.position = (p + q) / 2;
  return b;
}

Body cube_body(const std::string& name, const Vec3& centre, double side, double density) {
  Body b = make_box(name, side, side, density);
  b.position = centre;
  return b;
}

Vec3 local_point(const Model& m, int k, const Vec3& p) {
  return k == kWorld ? p : Vec3(m.bodies[k].orientation.conjugate() * (p - m.bodies[k].position));
}
Vec3 local_dir(const Model& m, int k, const Vec3& u) {
  return k == kWorld ? u : Vec3(m.bodies[k].orientation.conjugate() * u);
}

// A joint of `type` between bodies a and b at the world point p, with world axes ua (a's axis) and
// ub (b's axis; hinge: ub = ua, Cardan: ub perpendicular to ua) on the bodies' initial poses.
void joint_at(Model& m, JointType type, const std::string& name, int a, int b, const Vec3& p, const Vec3& ua = Vec3::UnitZ(),
              const Vec3& ub = Vec3::UnitZ()) {
  Joint j;
  j.name = name;
  j.type = type;
  j.a = a;
  j.b = b;
  j.anchor_a = local_point(m, a, p);
  j.anchor_b = local_point(m, b, p);
  j.axis_a = local_dir(m, a, ua.normalized());
  j.axis_b = local_dir(m, b, ub.normalized());
  const Quat qa = a == kWorld ? Quat::Identity() : m.bodies[a].orientation;
  const Quat qb = b == kWorld ? Quat::Identity() : m.bodies[b].orientation;
  j.rel_orientation = (qa.conjugate() * qb).normalized();
  m.joints.push_back(j);
}

void hinge_at(Model& m, const std::string& name, int a, int b, const Vec3& p, const Vec3& axis) {
  joint_at(m, JointType::Hinge, name, a, b, p, axis, axis);
}

std::string spec_name(const Spec& s, const std::string& fallback) { return s.text().find(':') == std::string::npos ? fallback : s.text(); }

// ---------------------------------------------------------------------------------------------
// spider

constexpr double kWoodDensity = 600, kAluminiumDensity = 2700;

}  // namespace

Model make_spider(int legs, const std::string& name) {
  Model m;
  Body centre;
  centre.name = "body";
  centre.box = Vec3(0.3, 0.08, 0.3);
  centre.mass = kWoodDensity * centre.box.prod();
  const Vec3& e = centre.box;
  centre.inertia = (centre.mass / 12.0 * Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                                              e.x() * e.x() + e.y() * e.y())).asDiagonal();
  const int c = add_body(m, centre);
  const double R = 0.15, thigh = 0.3, shank = 0.4, w = 0.02;
  for (int i = 0; i < legs; ++i) {
    const double phi = 2 * M_PI * i / legs;
    const Vec3 out(std::cos(phi), 0, std::sin(phi)), tangent(-std::sin(phi), 0, std::cos(phi));
    const Vec3 hip = R * out;
    const Vec3 knee = hip + thigh * (std::cos(M_PI / 6) * out + std::sin(M_PI / 6) * Vec3::UnitY());
    const Vec3 foot = knee + shank * (std::cos(M_PI / 3) * out - std::sin(M_PI / 3) * Vec3::UnitY());
    const int t = add_body(m, bar(fmt::format("thigh{}", i + 1), hip, knee, w, kWoodDensity));
    const int s = add_body(m, bar(fmt::format("shank{}", i + 1), knee, foot, w, kWoodDensity));
    joint_at(m, JointType::Ball, fmt::format("hip{}", i + 1), c, t, hip);
    hinge_at(m, fmt::format("knee{}", i + 1), t, s, knee, tangent);
  }
  // the whole spider spins as one rigid body about the vertical axis through the centre
  const Vec3 omega(0, 2, 0);
  for (Body& b : m.bodies) {
    b.angular_velocity = omega;
    b.velocity = omega.cross(b.position);
  }
  m.info.name = name;
  m.info.source = "tomcin2014 s.5";
  m.info.description = fmt::format(
      "spider: a central box 0.3 x 0.08 x 0.3 m with {} legs on ball joints (hips on a 0.15 m circle), each a 0.3 m "
      "thigh and a 0.4 m shank on a knee hinge; free-floating, spinning at 2 rad/s about the vertical axis; rows 8 N = {}",
      legs, 8 * legs);
  m.info.duration = 5;
  m.info.default_h = 0.01;
  m.info.h_grid = default_h_grid();
  return m;
}

Model make_scissor_lift(int segments, bool slider_foot, const std::string& name) {
  Model m;
  const double L = 0.5, W = 0.6, w = 0.03, theta = M_PI / 6;
  const double a = L / 2 * std::cos(theta), dy = L * std::sin(theta);
  const double zs[2] = {-W / 2, W / 2};
  const char* side_name[2] = {"l", "r"};
  // axles[level][0: x = -a, 1: x = +a]; level 0, x = -a is the world
  std::vector<std::array<int, 2>> axle(static_cast<size_t>(segments) + 1);
  for (int lev = 0; lev <= segments; ++lev)
    for (int k = 0; k < 2; ++k) {
      const double x = k == 0 ? -a : a, y = lev * dy;
      if (lev == 0 && k == 0) {
        axle[0][0] = kWorld;
        continue;
      }
      axle[static_cast<size_t>(lev)][static_cast<size_t>(k)] =
          add_body(m, bar(fmt::format("axle{}{}", lev, k == 0 ? "a" : "b"), Vec3(x, y, -W / 2), Vec3(x, y, W / 2), w, kAluminiumDensity));
    }
  const Vec3 z = Vec3::UnitZ();
  for (int s = 1; s <= segments; ++s) {
    const double y0 = (s - 1) * dy, y1 = s * dy;
    for (int side = 0; side < 2; ++side) {
      const double zz = zs[side];
      // bar A rises from x = -a to x = +a, bar B from x = +a to x = -a
      const Vec3 a0(-a, y0, zz), a1(a, y1, zz), b0(a, y0, zz), b1(-a, y1, zz);
      const int A = add_body(m, bar(fmt::format("bar{}{}a", s, side_name[side]), a0, a1, w, kAluminiumDensity));
      const int B = add_body(m, bar(fmt::format("bar{}{}b", s, side_name[side]), b0, b1, w, kAluminiumDensity));
      const auto& lo = axle[static_cast<size_t>(s - 1)];
      const auto& hi = axle[static_cast<size_t>(s)];
      hinge_at(m, fmt::format("mid{}{}", s, side_name[side]), A, B, (a0 + a1) / 2, z);
      hinge_at(m, fmt::format("end{}{}a0", s, side_name[side]), lo[0], A, a0, z);
      hinge_at(m, fmt::format("end{}{}a1", s, side_name[side]), A, hi[1], a1, z);
      hinge_at(m, fmt::format("end{}{}b0", s, side_name[side]), lo[1], B, b0, z);
      hinge_at(m, fmt::format("end{}{}b1", s, side_name[side]), B, hi[0], b1, z);
    }
  }
  if (slider_foot) {
    const int foot = axle[0][1];
    joint_at(m, JointType::Slider, "foot", kWorld, foot, m.bodies[static_cast<size_t>(foot)].position, Vec3::UnitX(), Vec3::UnitX());
  }
  m.info.name = name;
  m.info.source = "tomcin2014 s.6";
  m.info.description = fmt::format(
      "scissor lift of {} segments: crossed 0.5 m bars in the planes z = +-0.3 m hinged at their middles, every bar end "
      "hinged to a 0.6 m cross axle, base pivot fixed, bars 30 degrees from the horizontal, at rest; foot axle {}; rows {}",
      segments, slider_foot ? "on a slider along x" : "free (the lift folds and tips over)", 50 * segments + (slider_foot ? 5 : 0));
  m.info.duration = 5;
  m.info.default_h = 0.005;
  m.info.h_grid = default_h_grid();
  return m;
}

namespace {

// ---------------------------------------------------------------------------------------------
// Strandbeest: Jansen's "holy numbers"
struct Jansen {
  double a = 38, b = 41.5, c = 39.3, d = 40.1, e = 55.8, f = 39.4, g = 36.7, h = 65.7, i = 49, j = 50, k = 61.9, l = 7.8, m = 15;
};

using P2 = Eigen::Vector2d;

// the two intersections of the circles (p1, r1) and (p2, r2)
std::array<P2, 2> circles(const P2& p1, double r1, const P2& p2, double r2) {
  const P2 d = p2 - p1;
  const double D = d.norm();
  const double x = (r1 * r1 - r2 * r2 + D * D) / (2 * D);
  const double y = std::sqrt(std::max(0.0, r1 * r1 - x * x));
  const P2 ex = d / D, ey(-ex.y(), ex.x());
  return {p1 + x * ex + y * ey, p1 + x * ex - y * ey};
}
P2 pick(const std::array<P2, 2>& s, int coord, bool larger) {
  const bool first = larger ? s[0][coord] >= s[1][coord] : s[0][coord] <= s[1][coord];
  return first ? s[0] : s[1];
}

// node positions A..G (units of the holy numbers, crank centre at the origin) at crank angle t
std::array<P2, 7> jansen_nodes(const Jansen& J, double t) {
  const P2 B(-J.a, -J.l), A(J.m * std::cos(t), J.m * std::sin(t));
  const P2 C = pick(circles(A, J.j, B, J.b), 1, true);
  const P2 D = pick(circles(A, J.k, B, J.c), 1, false);
  const P2 E = pick(circles(B, J.d, C, J.e), 0, false);
  const P2 F = pick(circles(E, J.f, D, J.g), 0, false);
  const P2 G = pick(circles(F, J.h, D, J.i), 1, false);
  return {A, B, C, D, E, F, G};
}

}  // namespace

double strandbeest_stride(double band) {
  // the foot G of a leg over one crank turn (the frame fixed), in m
  const Jansen J;
  constexpr int kSamples = 3600;
  std::vector<P2> g;
  double low = INFINITY;
  for (int i = 0; i < kSamples; ++i) {
    g.push_back(0.01 * jansen_nodes(J, 2 * M_PI * i / kSamples)[6]);
    low = std::min(low, g.back().y());
  }
  double lo = INFINITY, hi = -INFINITY;
  for (const P2& p : g)
    if (p.y() <= low + band) lo = std::min(lo, p.x()), hi = std::max(hi, p.x());
  return hi - lo;
}

Model make_strandbeest(int legs, double k_frame, const std::string& name, double drop, bool motor, bool fixed) {
  Model m;
  const Jansen J;
  const double unit = 0.01, w = 0.01, dz = 0.04, omega = 2 * M_PI;
  const double length = dz * std::max(1, legs - 1) + 0.1, zmid = dz * (legs - 1) / 2.0;
  const int pairs = (legs + 1) / 2;
  // frame: a box spanning both frame pivots (x = -+a) and the shaft's length, centred at the pivots' height
  Body frame = make_box("frame", length, 2 * J.a * unit, kWoodDensity);
  frame.box = Vec3(2 * J.a * unit, 0.02, length);
  frame.mass = kWoodDensity * frame.box.prod() * (1 + k_frame);
  {
    const Vec3& e = frame.box;
    frame.inertia = (frame.mass / 12.0 * Vec3(e.y() * e.y() + e.z() * e.z(), e.x() * e.x() + e.z() * e.z(),
                                              e.x() * e.x() + e.y() * e.y())).asDiagonal();
  }
  frame.position = Vec3(0, -J.l * unit, zmid);
  frame.is_static = fixed;
  const int fr = add_body(m, frame);
  const int crank = add_body(m, bar("crank", Vec3(0, 0, zmid - length / 2), Vec3(0, 0, zmid + length / 2), 0.02, kAluminiumDensity));
  m.bodies[static_cast<size_t>(crank)].angular_velocity = Vec3(0, 0, omega);
  hinge_at(m, "bearing", fr, crank, Vec3(0, 0, zmid), Vec3::UnitZ());
  if (motor) {  // the crank's drive: 1 rev/s relative to the frame, the speed it starts with
    Motor drive;
    drive.name = "crank";
    drive.joint = static_cast<int>(m.joints.size()) - 1;
    drive.mode = MotorMode::Velocity;
    drive.target.value = omega;
    m.motors.push_back(drive);
  }
  // links by their end nodes (0 A, 1 B, 2 C, 3 D, 4 E, 5 F, 6 G)
  struct Link {
    const char* name;
    int p, q;
  };
  const Link links[10] = {{"b", 1, 2}, {"c", 1, 3}, {"d", 1, 4}, {"e", 2, 4}, {"f", 4, 5},
                          {"g", 3, 5}, {"h", 5, 6}, {"i", 3, 6}, {"j", 0, 2}, {"k", 0, 3}};
  const double dt = 1e-5, foot_radius = 0.01;
  double lowest = INFINITY;
  for (int leg = 0; leg < legs; ++leg) {
    const int pair = leg / 2;
    const double sx = leg % 2 == 0 ? 1.0 : -1.0, z = dz * leg;
    const double t0 = 2 * M_PI * pair / pairs;
    // the mirrored leg is driven by the same crank pin: in its own (mirrored) frame the crank angle is pi - t
    auto world = [&](double t) {
      const auto n = jansen_nodes(J, sx > 0 ? t : M_PI - t);
      std::array<Vec3, 7> out;
      for (int q = 0; q < 7; ++q) out[static_cast<size_t>(q)] = Vec3(sx * n[static_cast<size_t>(q)].x() * unit, n[static_cast<size_t>(q)].y() * unit, z);
      return out;
    };
    const auto P = world(t0), Pp = world(t0 + dt), Pm = world(t0 - dt);
    int body[10];
    for (int q = 0; q < 10; ++q) {
      const Link& L = links[q];
      const size_t p = static_cast<size_t>(L.p), r = static_cast<size_t>(L.q);
      Body b = bar(fmt::format("{}{}", L.name, leg + 1), P[p], P[r], w, kAluminiumDensity);
      // velocities from the crank rate: d/dt = omega d/dt0 (central differences)
      b.velocity = omega * ((Pp[p] + Pp[r]) - (Pm[p] + Pm[r])) / (4 * dt);
      const Vec3 up = Pp[r] - Pp[p], um = Pm[r] - Pm[p];
      const double turn = std::remainder(std::atan2(up.y(), up.x()) - std::atan2(um.y(), um.x()), 2 * M_PI);
      b.angular_velocity = Vec3(0, 0, omega * turn / (2 * dt));
      body[q] = add_body(m, b);
    }
    const Vec3 zax = Vec3::UnitZ();
    auto pin = [&](const std::string& what, int a, int b, int node) {
      hinge_at(m, fmt::format("{}{}", what, leg + 1), a, b, P[static_cast<size_t>(node)], zax);
    };
    enum { b_, c_, d_, e_, f_, g_, h_, i_, j_, k_ };
    pin("A_j", crank, body[j_], 0);
    pin("A_k", crank, body[k_], 0);
    pin("B_b", fr, body[b_], 1);
    pin("B_c", fr, body[c_], 1);
    pin("B_d", fr, body[d_], 1);
    pin("C_j", body[b_], body[j_], 2);
    pin("C_e", body[b_], body[e_], 2);
    pin("D_k", body[c_], body[k_], 3);
    pin("D_g", body[c_], body[g_], 3);
    pin("D_i", body[c_], body[i_], 3);
    pin("E_e", body[d_], body[e_], 4);
    pin("E_f", body[d_], body[f_], 4);
    pin("F_g", body[f_], body[g_], 5);
    pin("F_h", body[f_], body[h_], 5);
    pin("G_i", body[h_], body[i_], 6);
    if (drop > 0 || (motor && !fixed)) {  // the foot: a sphere at node G on link h
      const Body& hb = m.bodies[static_cast<size_t>(body[h_])];
      Shape foot;
      foot.name = fmt::format("foot{}", leg + 1);
      foot.type = ShapeType::Sphere;
      foot.body = body[h_];
      foot.position = hb.orientation.conjugate() * (P[6] - hb.position);
      foot.radius = foot_radius;
      m.shapes.push_back(foot);
      lowest = std::min(lowest, P[6].y() - foot_radius);
    }
  }
  if (drop > 0 || (motor && !fixed)) {  // motor: the floor touches the lowest foot
    m.materials.push_back({"ground", 0.0, 0.6, 0.6});
    Shape floor;
    floor.name = "floor";
    floor.type = ShapeType::HalfSpace;
    floor.body = kWorld;
    floor.position = Vec3(0, lowest - drop, 0);
    m.shapes.push_back(floor);
  }
  m.info.name = name;
  m.info.source = "tomcin2014 s.6-7";
  m.info.description = fmt::format(
      "Strandbeest: {} Jansen legs (link lengths a..m in cm, each of the links b..k a bar), mirrored in pairs, on one "
      "crank shaft and one frame (mass factor 1 + {}); 15 pin hinges per leg and the shaft bearing; free-floating, the "
      "crank turning at 1 rev/s; rows 75 N + 5 = {}{}",
      legs, k_frame, 75 * legs + 5,
      drop > 0 ? fmt::format("; dropped from {} m onto a floor (feet: spheres of {} m, friction 0.6)", drop, foot_radius) : "");
  if (motor)
    m.info.description += fixed ? "; a velocity motor turns the crank at 1 rev/s, the frame fixed"
                                : fmt::format("; a velocity motor turns the crank at 1 rev/s, its feet (spheres of {} m) on a floor (friction 0.6)", foot_radius);
  m.info.tracked_body = motor && !fixed ? fr : -1;
  m.info.duration = drop > 0 || motor ? 5 : 2;
  m.info.default_h = drop > 0 ? 0.02 : motor ? 0.01 : 0.002;
  m.info.h_grid = default_h_grid();
  m.info.energy_conserved = drop <= 0 && !motor;
  return m;
}

namespace {

// ---------------------------------------------------------------------------------------------
// octahedra of hubs and bars: each bar has a Cardan joint at its first hub and a revolute joint at
// its second (9 rows)
constexpr double kOctaRadius = 0.05, kLinkGap = 0.04, kHubSide = 0.02, kOctaBarWidth = 0.01;

struct Octahedron {
  int hub[6];  // along +e0, -e0, +e1, -e1, +e2, -e2
  Vec3 vertex[6];
};

// a bar between two hubs at their points p (on hub ha) and q (on hub hb); n: the revolute axis
// and the Cardan's cross axis on ha (perpendicular to the bar)
void hub_bar(Model& m, const std::string& name, int ha, const Vec3& p, int hb, const Vec3& q, const Vec3& n_in) {
  const Vec3 d = (q - p).normalized();
  Vec3 n = n_in - n_in.dot(d) * d;
  if (n.norm() < 1e-9) n = orthogonal_basis(d).row(0).transpose();
  n.normalize();
  const int b = add_body(m, bar(name, p, q, kOctaBarWidth, kAluminiumDensity));
  joint_at(m, JointType::Cardan, name + "_u", ha, b, p, n, d.cross(n));
  hinge_at(m, name + "_r", b, hb, q, n);
}

Octahedron add_octahedron(Model& m, const std::string& name, const Vec3& centre, const Mat3& axes) {
  Octahedron o;
  for (int v = 0; v < 6; ++v) {
    const Vec3 dir = (v % 2 == 0 ? 1.0 : -1.0) * axes.col(v / 2);
    o.vertex[v] = centre + kOctaRadius * dir;
    o.hub[v] = add_body(m, cube_body(fmt::format("{}h{}", name, v), o.vertex[v], kHubSide, kAluminiumDensity));
  }
  int e = 0;
  for (int v = 0; v < 6; ++v)
    for (int u = v + 1; u < 6; ++u) {
      if (u / 2 == v / 2) continue;  // opposite vertices: no edge
      const Vec3 p = o.vertex[v], q = o.vertex[u];
      hub_bar(m, fmt::format("{}e{}", name, e++), o.hub[v], p, o.hub[u], q, (q - p).cross(p - centre));
    }
  return o;
}

// links hub `va` of octahedron a to hub `vb` of octahedron b by a bar between the two vertices
void link(Model& m, const std::string& name, const Octahedron& a, int va, const Octahedron& b, int vb) {
  const Vec3 p = a.vertex[va], q = b.vertex[vb];
  hub_bar(m, name, a.hub[va], p, b.hub[vb], q, orthogonal_basis((q - p).normalized()).row(0).transpose());
}

void make_static(Model& m, int body) {
  Body& b = m.bodies[static_cast<size_t>(body)];
  b.is_static = true;
  b.mass = 0;
  b.inertia = Mat3::Zero();
}

}  // namespace

Model make_octahedron_tube(int rings, int around, const std::string& name) {
  Model m;
  const double pitch = 2 * kOctaRadius + kLinkGap;
  const double radius = pitch / (2 * std::sin(M_PI / around));
  std::vector<Octahedron> oct;
  oct.reserve(static_cast<size_t>(rings) * static_cast<size_t>(around));
  for (int r = 0; r < rings; ++r)
    for (int k = 0; k < around; ++k) {
      const double phi = 2 * M_PI * k / around;
      Mat3 axes;
      axes.col(0) = Vec3(std::cos(phi), 0, std::sin(phi));   // radial
      axes.col(1) = Vec3::UnitY();                           // along the tube
      axes.col(2) = Vec3(-std::sin(phi), 0, std::cos(phi));  // tangential
      oct.push_back(add_octahedron(m, fmt::format("o{}_{}", r, k), radius * axes.col(0) + Vec3(0, r * pitch, 0), axes));
    }
  auto at = [&](int r, int k) -> const Octahedron& { return oct[static_cast<size_t>(r * around + (k % around))]; };
  for (int r = 0; r < rings; ++r)
    for (int k = 0; k < around; ++k) {
      link(m, fmt::format("t{}_{}", r, k), at(r, k), 4, at(r, k + 1), 5);
      if (r + 1 < rings) link(m, fmt::format("a{}_{}", r, k), at(r, k), 2, at(r + 1, k), 3);
    }
  for (int k = 0; k < around; ++k) make_static(m, at(0, k).hub[3]);
  m.info.name = name;
  m.info.source = "tomcin2014 s.6";
  const long bars = static_cast<long>(around) * (14L * rings - 1);
  m.info.description = fmt::format(
      "octahedron tube: {} rings of {} octahedra (6 hubs, 12 edge bars) linked around and along by bars; every bar has a "
      "Cardan joint at one end and a revolute joint at the other; lowest hubs static; {} bars, rows 9 x {} = {}",
      rings, around, bars, bars, 9 * bars);
  m.info.duration = 2;
  m.info.default_h = 0.002;
  m.info.h_grid = default_h_grid();
  return m;
}

Model make_octahedron_cube(int n, const std::string& name) {
  Model m;
  const double pitch = 2 * kOctaRadius + kLinkGap;
  std::vector<Octahedron> oct;
  oct.reserve(static_cast<size_t>(n) * static_cast<size_t>(n) * static_cast<size_t>(n));
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k)
        oct.push_back(add_octahedron(m, fmt::format("o{}_{}_{}", i, j, k), pitch * Vec3(i, j, k), Mat3::Identity()));
  auto at = [&](int i, int j, int k) -> const Octahedron& { return oct[static_cast<size_t>((i * n + j) * n + k)]; };
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j)
      for (int k = 0; k < n; ++k) {
        if (i + 1 < n) link(m, fmt::format("x{}_{}_{}", i, j, k), at(i, j, k), 0, at(i + 1, j, k), 1);
        if (j + 1 < n) link(m, fmt::format("y{}_{}_{}", i, j, k), at(i, j, k), 2, at(i, j + 1, k), 3);
        if (k + 1 < n) link(m, fmt::format("z{}_{}_{}", i, j, k), at(i, j, k), 4, at(i, j, k + 1), 5);
      }
  for (int i = 0; i < n; ++i)
    for (int k = 0; k < n; ++k) make_static(m, at(i, 0, k).hub[3]);
  const long bars = 12L * n * n * n + 3L * n * n * (n - 1);
  m.info.name = name;
  m.info.source = "tomcin2014 s.6";
  m.info.description = fmt::format(
      "octahedron cube: {}^3 octahedra (6 hubs, 12 edge bars) on a cubic lattice, face neighbours linked by bars; every "
      "bar has a Cardan joint at one end and a revolute joint at the other; lowest hubs static; {} bars, rows {}",
      n, bars, 9 * bars);
  m.info.duration = 1;
  m.info.default_h = 0.002;
  m.info.h_grid = default_h_grid();
  return m;
}

// ---------------------------------------------------------------------------------------------
// catalog entry points

Model build_spider(const Spec& s) {
  const long n = s.get_int("legs", 8);
  if (n < 1 || n > 10000) s.fail(fmt::format("spider needs 1 <= legs <= 10000, got {}", n));
  return make_spider(static_cast<int>(n), spec_name(s, "spider:legs=8"));
}

Model build_scissor_lift(const Spec& s) {
  const long n = s.get_int("segments", 10);
  if (n < 1 || n > 10000) s.fail(fmt::format("scissor-lift needs 1 <= segments <= 10000, got {}", n));
  const std::string foot = s.get_string("foot", "free");
  if (foot != "free" && foot != "slider") s.fail(fmt::format("scissor-lift: foot must be free or slider, got '{}'", foot));
  return make_scissor_lift(static_cast<int>(n), foot == "slider", spec_name(s, "scissor-lift:segments=10"));
}

Model build_strandbeest(const Spec& s) {
  const long n = s.get_int("legs", 8);
  if (n < 1 || n > 1000) s.fail(fmt::format("strandbeest needs 1 <= legs <= 1000, got {}", n));
  const double k = s.get_double("k", 0);
  if (!(k >= 0 && k <= 1e6)) s.fail(fmt::format("strandbeest: frame mass factor k must be in [0, 1e6], got {}", k));
  const double drop = s.get_double("drop", 0);
  if (!(drop >= 0 && drop <= 100)) s.fail(fmt::format("strandbeest: drop height must be in [0, 100] m, got {}", drop));
  const std::string motor = s.get_string("motor", "off"), fixed = s.get_string("fixed", "off");
  if (motor != "on" && motor != "off") s.fail(fmt::format("strandbeest: motor must be on or off, got '{}'", motor));
  if (fixed != "on" && fixed != "off") s.fail(fmt::format("strandbeest: fixed must be on or off, got '{}'", fixed));
  if (motor == "on" && drop > 0) s.fail("strandbeest: motor=on stands on its floor; drop must be 0");
  return make_strandbeest(static_cast<int>(n), k, spec_name(s, "strandbeest:legs=8"), drop, motor == "on", fixed == "on");
}

Model build_octahedron_tube(const Spec& s) {
  const long r = s.get_int("rings", 8), a = s.get_int("around", 19);
  if (r < 1 || r > 1000) s.fail(fmt::format("octahedron-tube needs 1 <= rings <= 1000, got {}", r));
  if (a < 3 || a > 1000) s.fail(fmt::format("octahedron-tube needs 3 <= around <= 1000, got {}", a));
  return make_octahedron_tube(static_cast<int>(r), static_cast<int>(a), spec_name(s, "octahedron-tube:rings=8"));
}

Model build_octahedron_cube(const Spec& s) {
  const long n = s.get_int("n", 2);
  if (n < 1 || n > 24) s.fail(fmt::format("octahedron-cube needs 1 <= n <= 24, got {}", n));
  return make_octahedron_cube(static_cast<int>(n), spec_name(s, "octahedron-cube:n=2"));
}

}  // namespace mb
