// Rigid-body models of bender2007 s.6 and for scaling: the tree of boxes, chains of boxes, and the
// closed loop of schmitt2003.
//
// Boxes: a box's long axis is its local y axis; its upper end is the local point (0, l/2, 0) and
// its lower end (0, -l/2, 0); extents 0.04 x l x 0.04 m; density 600 kg/m^3 unless said.
//
// tree:joints=J (J = 2^d - 1, 1 <= d <= 14): a top body (depth 0) whose single child (depth 1) is
// the root of a full binary tree of J bodies (depths 1..d), so bodies = J + 1 and there are J ball
// joints. Lengths l = 1.5^(d - depth) * 0.1 m (the top body is the longest). The top body hangs
// straight down with its upper end at the origin; the root of the binary tree continues straight
// down; a node at depth k has two children tilted by +30 and -30 degrees from its own axis about
// its local z axis when k is odd (the x-y plane for the first split) and about its local x axis
// when k is even (alternating planes). Each child's upper end is at its parent's lower end, where
// the ball joint is. All bodies start at rest. A torque of 10 N m about the world z axis acts on
// the top body during [0, 1/30 s) (the paper's first step at h = 1/30 s), for its share of any
// step that straddles 1/30 s. Free-floating under gravity; anchor=ball adds a ball joint fixing the
// top body's upper end at the origin. Default h = 1/30 s, duration 2 s.
#include <cmath>

#include <fmt/format.h>

#include "core/error.hpp"
#include "models/catalog.hpp"

namespace mb {

Body make_box(const std::string& name, double length, double width, double density) {
  Body b;
  b.name = name;
  b.box = Vec3(width, length, width);
  b.mass = density * width * width * length;
  const double a = width, l = length, c = width;
  b.inertia = (b.mass / 12.0 * Vec3(l * l + c * c, a * a + c * c, a * a + l * l)).asDiagonal();
  return b;
}

namespace {

// places body b (already sized) so that its upper end is at `top` with orientation q
void place_hanging(Body& b, const Vec3& top, const Quat& q) {
  b.orientation = q;
  b.position = top - q * Vec3(0, b.box.y() / 2, 0);
}

Vec3 lower_end(const Body& b) { return b.position + b.orientation * Vec3(0, -b.box.y() / 2, 0); }


}  // namespace

Model make_tree(const TreeParams& p, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, -p.g, 0);
  int d = 0;
  while ((1 << d) - 1 < p.joints) ++d;
  const double w = 0.04;
  auto length = [&](int depth) { return std::pow(1.5, d - depth) * 0.1; };
  // top body
  Body top = make_box("b0", length(0), w, p.density);
  place_hanging(top, Vec3::Zero(), Quat::Identity());
  m.bodies.push_back(top);
  // breadth-first over the binary tree: node i (0-based) has children 2i+1, 2i+2; body index i+1
  for (int i = 0; i < p.joints; ++i) {
    const int depth = 1 + static_cast<int>(std::floor(std::log2(i + 1.0)));
    const int parent_body = i == 0 ? 0 : (i - 1) / 2 + 1;
    const Body parent = m.bodies[parent_body];  // a copy: push_back below may reallocate
    Quat q = parent.orientation;
    if (i > 0) {
      const int parent_depth = depth - 1;
      const double sign = (i % 2 == 1) ? 1.0 : -1.0;  // first child +30, second -30 degrees
      const Vec3 axis = parent_depth % 2 == 1 ? Vec3::UnitZ() : Vec3::UnitX();
      q = parent.orientation * Quat(Eigen::AngleAxisd(sign * M_PI / 6, axis));
    }
    Body b = make_box(fmt::format("b{}", i + 1), length(depth), w, p.density);
    place_hanging(b, lower_end(parent), q);
    m.bodies.push_back(b);
    m.joints.push_back(ball_joint(fmt::format("j{}", i + 1), parent_body, Vec3(0, -parent.box.y() / 2, 0), i + 1,
                                  Vec3(0, b.box.y() / 2, 0)));
  }
  if (p.anchor_ball) m.joints.push_back(ball_joint("anchor", kWorld, Vec3::Zero(), 0, Vec3(0, top.box.y() / 2, 0)));
  m.loads.push_back({0, Vec3(0, 0, p.torque), 0.0, 1.0 / 30.0});
  m.info.name = name;
  m.info.source = "bender2007 s.6";
  m.info.description = fmt::format(
      "tree of {} boxes (0.04 x l x 0.04 m, l = 1.5^({} - depth) 0.1 m, {} kg/m^3) and {} ball joints: a top body "
      "whose child roots a full binary tree, children tilted +-30 deg in alternating planes; {} N m about z on the "
      "top body during the first 1/30 s; {}",
      m.bodies.size(), d, p.density, m.joints.size(), p.torque,
      p.anchor_ball ? "top body hung from the origin by a ball joint" : "free-floating under gravity");
  m.info.duration = 2;
  m.info.default_h = 1.0 / 30.0;
  m.info.h_grid = {1.0 / 30.0, 1.0 / 60.0, 1.0 / 120.0, 1.0 / 240.0};
  m.info.energy_conserved = false;  // the torque pulse does work
  return m;
}

Model make_box_chain(const ChainParams& p, const std::string& name) {
  Model m;
  m.gravity = Vec3(0, -p.g, 0);
  const double l = p.length, w = 0.04;
  // horizontal to +x: the local -y axis (downward along the box) points to world +x
  const Quat q(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitZ()));
  Vec3 top = Vec3::Zero();
  for (int i = 0; i < p.n; ++i) {
    Body b = make_box(fmt::format("b{}", i + 1), l, w, 600);
    place_hanging(b, top, q);
    m.joints.push_back(ball_joint(fmt::format("j{}", i + 1), i == 0 ? kWorld : i - 1,
                                  i == 0 ? Vec3::Zero() : Vec3(0, -l / 2, 0), i, Vec3(0, l / 2, 0)));
    top = lower_end(b);
    m.bodies.push_back(b);
  }
  m.info.name = name;
  m.info.source = "ours";
  m.info.description = fmt::format(
      "{} boxes 0.04 x {} x 0.04 m (600 kg/m^3) joined end to end by ball joints, the first hung from the origin, "
      "at rest, stretched horizontally to +x",
      p.n, l);
  m.info.h_grid = default_h_grid();
  return m;
}

Model make_loop(int n, const std::string& name) {
  // n + 1 nodes on a half circle below the x axis, chords of 1 m: the ends (nodes 0 and n) are
  // fixed world points, the n - 1 inner nodes are 1 kg point masses, the n rods are 1 m long.
  Model m;
  const double alpha = M_PI / n, R = 0.5 / std::sin(alpha / 2);
  auto node = [&](int i) { return Vec3(R * std::cos(M_PI + i * alpha), R * std::sin(M_PI + i * alpha), 0); };
  for (int i = 1; i < n; ++i) {
    Body b;
    b.name = fmt::format("m{}", i);
    b.particle = true;
    b.mass = 1;
    b.position = node(i);
    m.bodies.push_back(b);
  }
  for (int i = 0; i < n; ++i) {
    m.joints.push_back(rod_joint(fmt::format("rod{}", i + 1), i == 0 ? kWorld : i - 1, i == 0 ? node(0) : Vec3::Zero(),
                                 i == n - 1 ? kWorld : i, i == n - 1 ? node(n) : Vec3::Zero(), (node(i + 1) - node(i)).norm()));
  }
  m.info.name = name;
  m.info.source = "schmitt2003";
  m.info.description = fmt::format(
      "closed loop: a chain of {} rods of 1 m with both ends fixed at (+-{:.6f}, 0, 0), {} point masses of 1 kg, "
      "started at rest on a half circle below the x axis (not the equilibrium)",
      n, R, n - 1);
  m.info.h_grid = default_h_grid();
  m.info.duration = 10;
  return m;
}

Model build_tree(const Spec& s) {
  TreeParams p;
  p.joints = static_cast<int>(s.get_int("joints", 31));
  std::string anchor = s.get_string("anchor", "none");
  if (anchor != "none" && anchor != "ball")
    s.fail(fmt::format("tree: anchor must be none or ball, got '{}'", anchor));
  p.anchor_ball = anchor == "ball";
  bool pow2 = p.joints >= 1 && ((p.joints + 1) & p.joints) == 0;
  if (!pow2 || p.joints > 16383)
    s.fail(fmt::format("tree: joints must be 2^k - 1 between 1 and 16383 (31, 63, 127, 255, ...), got {}", p.joints));
  return make_tree(p, s.text() == "tree" ? "tree:joints=31" : s.text());
}

Model build_loop(const Spec& s) {
  long n = s.get_int("n", 8);
  if (n < 3 || n > 10000) s.fail(fmt::format("loop needs 3 <= n <= 10000, got {}", n));
  return make_loop(static_cast<int>(n), s.text() == "loop" ? "loop:n=8" : s.text());
}

}  // namespace mb
