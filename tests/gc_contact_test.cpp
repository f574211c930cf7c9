// gc-contact (methods/reduced/gc_contact.hpp): contacts in generalized coordinates. Its parts
// against independent numbers (the joint-space Jacobian against the Cartesian point velocities, H
// against the Cartesian kinetic energy) and its contacts against the closed forms the impulse
// methods meet (docs/contacts.md "Contacts in generalized coordinates").
#include <catch2/catch.hpp>

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "methods/method.hpp"
#include "methods/contacts/contacts.hpp"
#include "methods/reduced/crba.hpp"
#include "methods/reduced/gc_contact.hpp"
#include "methods/reduced/tree_kinematics.hpp"
#include "models/catalog.hpp"
#include "models/collision.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

const std::string kTight = "gc-contact:tol=1e-13,iterations=100000";

using Run = mbtest::ContactRun;
Run run(const mb::Model& m, const std::string& method, double h, long steps) { return mbtest::run_contacts(m, method, h, steps); }

// a hinge's or slider's coordinate from the start (models/kinematics.hpp)
double coordinate(const mb::Model& m, const mb::State& s, int joint) {
  mb::Motor probe;
  probe.joint = joint;
  return mb::motor_coordinate(m, s, probe);
}

// the velocity of a body point p (world) in a Cartesian state
mb::Vec3 point_velocity(const mb::State& s, int body, const mb::Vec3& p) {
  if (body == mb::kWorld) return mb::Vec3::Zero();
  const mb::BodyState& b = s.bodies[static_cast<size_t>(body)];
  return b.v + b.w.cross(p - b.x);
}

}  // namespace

TEST_CASE("gc-contact: the contact Jacobian maps joint rates to the points' relative velocity, H to the kinetic energy", "[gc-contact]") {
  std::vector<std::string> specs = {"chain:n=3,body=box", "spider:legs=4", "tree:joints=7"};
  if (mb::urdf_supported()) specs.push_back(std::string(MBBENCH_TEST_DATA) + "/robots/quadruped.urdf:base=free");
  if (mb::mjcf_supported()) specs.push_back(std::string(MBBENCH_TEST_DATA) + "/mjcf/ankle.xml");  // chains through massless frames
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> U(-1, 1);
  for (const std::string& spec : specs) {
    INFO(spec);
    const mb::Model m = mb::load_model(spec);
    const mb::TreeModel tree = mb::TreeModel::build(m);
    mb::TreeData data(tree);
    std::vector<double> x;
    tree.read(mb::initial_state(m), x);
    for (int k = 0; k < tree.nv; ++k) x[static_cast<size_t>(tree.nq + k)] = U(rng);
    mb::State s = mb::initial_state(m);
    mb::write_state(tree, data, x, s);
    std::vector<mb::TreeView::Mat6X> S;
    std::vector<Eigen::Triplet<double>> entries;
    mb::mass_matrix_lower(tree, data, x.data(), S, entries);
    // H's quadratic form against 1/2 sum (m v^2 + w^T I w) of the Cartesian state
    Eigen::SparseMatrix<double> H(tree.nv, tree.nv);
    H.setFromTriplets(entries.begin(), entries.end());
    const Eigen::Map<const Eigen::VectorXd> v(x.data() + tree.nq, tree.nv);
    const double T_joint = 0.5 * v.dot(H.selfadjointView<Eigen::Lower>() * v);
    double T = 0;
    for (size_t b = 0; b < m.bodies.size(); ++b) {
      if (m.bodies[b].is_static) continue;
      const mb::BodyState& bs = s.bodies[b];
      const mb::Mat3 R = bs.q.toRotationMatrix();
      T += 0.5 * m.bodies[b].mass * bs.v.squaredNorm() + 0.5 * bs.w.dot(R * m.bodies[b].inertia * R.transpose() * bs.w);
    }
    CHECK(std::abs(T_joint - T) < 1e-12 * std::max(1.0, T));
    // contacts between random bodies (and the world), at random points with random normals
    std::vector<int> link_of(m.bodies.size(), -1);
    for (int i = 0; i < tree.links(); ++i) link_of[static_cast<size_t>(tree.link[static_cast<size_t>(i)].body)] = i;
    std::vector<mb::Contact> cs;
    std::uniform_int_distribution<int> body(-1, static_cast<int>(m.bodies.size()) - 1);
    for (int k = 0; k < 12; ++k) {
      mb::Contact c;
      c.a = body(rng);
      c.b = body(rng);
      c.local_a = mb::Vec3(U(rng), U(rng), U(rng));
      c.local_b = mb::Vec3(U(rng), U(rng), U(rng));
      c.normal = mb::Vec3(U(rng), U(rng), U(rng)).normalized();
      cs.push_back(c);
    }
    mb::contact_jacobian(tree, S, link_of, s, cs, entries);
    Eigen::SparseMatrix<double> J(3 * static_cast<int>(cs.size()), tree.nv);
    J.setFromTriplets(entries.begin(), entries.end());
    const Eigen::VectorXd u = J * v;
    for (size_t k = 0; k < cs.size(); ++k) {
      const mb::Contact& c = cs[k];
      const mb::Vec3 rel = point_velocity(s, c.b, mb::body_point(s, c.b, c.local_b)) -
                           point_velocity(s, c.a, mb::body_point(s, c.a, c.local_a));
      const mb::Vec3 expect = mb::contact_frame(c.normal) * rel;
      INFO("contact " << k << " bodies " << c.a << ", " << c.b);
      CHECK((u.segment<3>(3 * static_cast<int>(k)) - expect).norm() < 1e-12 * std::max(1.0, expect.norm()));
    }
  }
}

TEST_CASE("gc-contact: a cube on an incline slides at v = a t, a = g (sin - mu cos), or sticks - cubes at rest on a floor stay", "[gc-contact]") {
  const double angle = 30 * M_PI / 180, g = 9.81, h = 0.01, T = 2;
  const mb::Model m = mb::build_model("incline-cubes:angle=30");
  const mb::Vec3 down(-std::cos(angle), -std::sin(angle), 0);
  const Run r = run(m, kTight, h, std::lround(T / h));
  for (size_t i = 0; i < m.bodies.size(); ++i) {
    const double mu = mb::incline_cube_mu(static_cast<int>(i));
    const double a = std::max(0.0, g * (std::sin(angle) - mu * std::cos(angle)));
    const mb::State& s = r.s;
    INFO("cube " << i + 1 << " mu " << mu << ": v " << s.bodies[i].v.dot(down) << " m/s, analytic " << a * T);
    // semi-implicit Euler: the velocity exact, the position x_n = a h^2 n (n + 1) / 2
    CHECK(std::abs(s.bodies[i].v.dot(down) - a * T) < 1e-9);
    CHECK(std::abs((s.bodies[i].x - m.bodies[i].position).dot(down) - 0.5 * a * T * (T + h)) < 1e-9);
    CHECK((s.bodies[i].v - s.bodies[i].v.dot(down) * down).norm() < 1e-9);
    CHECK(s.bodies[i].w.norm() < 1e-9);
  }
  CHECK(r.max_penetration < 1e-9);
  const mb::Model floor = mb::build_model("incline-cubes:angle=0,cubes=2");
  const Run rest = run(floor, kTight, 0.01, 1000);
  for (size_t i = 0; i < floor.bodies.size(); ++i) {
    CHECK((rest.s.bodies[i].x - floor.bodies[i].position).norm() < 1e-9);
    CHECK(rest.s.bodies[i].v.norm() < 1e-9);
  }
}

TEST_CASE("gc-contact: a bouncing ball reaches e^(2k) of its height, to O(h) - a ball with e = 0 lands without sinking", "[gc-contact]") {
  const double e = 0.8;
  const mb::Model m = mb::build_model("bouncing-ball:e=0.8");
  double err[2] = {0, 0};
  int i = 0;
  for (double h : {0.001, 0.000125}) {
    auto meth = mb::make_method("gc-contact");
    mb::State s = mb::initial_state(m);
    meth->init(m, s);
    const double r0 = s.bodies[0].x.y() - 1;  // the ball's radius: its lowest point starts at 1 m
    std::vector<double> apex;
    double prev = 0;
    for (long k = 0; k < std::lround(2.5 / h); ++k) {
      mb::StepStats st;
      meth->step(m, s, h, st);
      const double vy = s.bodies[0].v.y();
      if (prev > 0 && vy <= 0) apex.push_back(s.bodies[0].x.y() - r0);
      prev = vy;
    }
    REQUIRE(apex.size() >= 2);
    for (size_t k = 0; k < 2; ++k) err[i] = std::max(err[i], std::abs(apex[k] - std::pow(e, 2.0 * static_cast<double>(k + 1))));
    ++i;
  }
  // measured 1.3e-3 and 2.3e-4: first order, not smoothly (where the impact falls in a step varies)
  INFO("apex errors " << err[0] << " at h = 1 ms, " << err[1] << " at 0.125 ms");
  CHECK(err[0] < 3e-3);
  CHECK(err[1] < 0.3 * err[0]);
  // e = 0: the speculative contact stops the ball at the floor (4.4 m/s is 4.4 mm a step, inside the margin)
  const mb::Model still = mb::build_model("bouncing-ball:e=0");
  const Run r = run(still, "gc-contact", 0.001, 1000);
  CHECK(r.max_penetration < 1e-4);  // slop
  CHECK(std::abs(r.s.bodies[0].v.y()) < 1e-9);
}

TEST_CASE("gc-contact: an arm falls onto its hinge's upper limit and a box onto its slide's lower limit, and rest there", "[gc-contact][limits]") {
  if (!mb::mjcf_supported()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/mjcf/limits.xml");
  REQUIRE(m.joints.size() == 2);
  CHECK(m.joints[0].lower == Approx(-30 * M_PI / 180).epsilon(1e-12));
  CHECK(m.joints[0].upper == Approx(45 * M_PI / 180).epsilon(1e-12));
  CHECK(m.joints[1].lower == Approx(-0.2).epsilon(1e-12));
  CHECK(m.joints[1].upper == Approx(0.1).epsilon(1e-12));
  // a scene keeps them (keys lower and upper of a [[joint]])
  const mb::Model back = mb::parse_scene(mb::scene_to_toml(m), "limits.toml");
  CHECK((back.joints[0].lower == m.joints[0].lower && back.joints[0].upper == m.joints[0].upper));
  CHECK((back.joints[1].lower == m.joints[1].lower && back.joints[1].upper == m.joints[1].upper));
  auto meth = mb::make_method(kTight);
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  double deepest[2] = {0, 0};
  for (int k = 0; k < 2000; ++k) {
    mb::StepStats st;
    meth->step(m, s, 0.001, st);
    deepest[0] = std::max(deepest[0], coordinate(m, s, 0) - m.joints[0].upper);
    deepest[1] = std::max(deepest[1], m.joints[1].lower - coordinate(m, s, 1));
  }
  // the speculative rows stop each at its limit within the step that would cross it
  INFO("beyond the limits: " << deepest[0] << " rad, " << deepest[1] << " m");
  CHECK(deepest[0] < 1e-9);
  CHECK(deepest[1] < 1e-9);
  CHECK(coordinate(m, s, 0) == Approx(m.joints[0].upper).margin(1e-9));
  CHECK(coordinate(m, s, 1) == Approx(m.joints[1].lower).margin(1e-9));
  CHECK(s.bodies[0].w.norm() < 1e-9);
  CHECK(s.bodies[1].v.norm() < 1e-9);
}

TEST_CASE("limits: every method that claims joint limits stops the arm and the box at them - the others say they run without", "[limits]") {
  if (!mb::mjcf_supported()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/mjcf/limits.xml");
  int claimed = 0;
  for (const auto& e : mb::method_registry()) {
    const mb::MethodInfo& i = e.info;
    if (i.name.rfind("test-", 0) == 0 || !mb::unsupported_reason(i, m).empty()) continue;
    INFO(i.name);
    if (!(i.supports & mb::kJointLimits)) {
      CHECK_THAT(mb::limits_note(i, m), Catch::Contains(i.name + " runs without the joint limits of 2 joint(s)"));
      continue;
    }
    CHECK(mb::limits_note(i, m).empty());
    ++claimed;
    auto meth = mb::make_method(i.name);
    mb::State s = mb::initial_state(m);
    meth->init(m, s);
    for (int k = 0; k < 2000; ++k) {
      mb::StepStats st;
      meth->step(m, s, 0.001, st);
    }
    // the engines' limits are soft or stabilized (MuJoCo's solreflimit, ODE's stop ERP): within
    // 0.03 rad and 1 cm after 2 s
    const double arm = coordinate(m, s, 0), box = coordinate(m, s, 1);
    WARN(i.name << ": arm at " << arm << " rad (limit " << m.joints[0].upper << "), box at " << box << " m (limit -0.2)");
    CHECK(std::abs(arm - m.joints[0].upper) < 0.03);
    CHECK(std::abs(box - m.joints[1].lower) < 0.01);
  }
  CHECK(claimed >= 1);
}

TEST_CASE("gc-contact: an arm on a hinge falls onto a floor and rests there - no impulse where its tip cannot move", "[gc-contact]") {
  if (!mb::mjcf_supported()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/mjcf/hinge_floor.xml");
  auto meth = mb::make_method("gc-contact");
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  for (int k = 0; k < 1500; ++k) {
    mb::StepStats st;
    meth->step(m, s, 0.002, st);
  }
  // the tip's end sphere (radius 0.05) on the floor: the arm turned by asin((0.4 - 0.05) / 0.6)
  const double angle = std::asin(0.35 / 0.6);
  CHECK(coordinate(m, s, 0) == Approx(angle).margin(1e-3));
  CHECK(s.bodies[0].w.norm() < 1e-6);
}

TEST_CASE("gc-contact: a ball 10 m/s fast meets a ball at rest within a step - the preview holds it at the surface", "[gc-contact]") {
  // the pair is 3 cm apart at the start of the step (beyond the 5 mm margin), the fast ball moves
  // 5 cm in it: only the free motion's end (the preview) finds the pair, and only the fast ball moves
  mb::Model m = mb::build_model("bouncing-ball:e=0");
  m.bodies[0].position.y() = 0.1;  // ball 0 (radius 0.1) rests on the floor
  mb::Body top = m.bodies[0];
  top.name = "top";
  top.position.y() += 0.2 + 0.03;
  top.velocity = mb::Vec3(0, -10, 0);
  m.bodies.push_back(top);
  mb::Shape s = m.shapes[1];
  s.name = "top";
  s.body = 1;
  m.shapes.push_back(s);
  const double h = 0.005;
  auto meth = mb::make_method("gc-contact");
  mb::State st = mb::initial_state(m);
  meth->init(m, st);
  double overlap = 0;  // the deepest the balls ever overlap
  for (int k = 0; k < 20; ++k) {
    mb::StepStats stats;
    meth->step(m, st, h, stats);
    overlap = std::max(overlap, 0.2 - (st.bodies[1].x - st.bodies[0].x).norm());
  }
  INFO("overlap " << overlap);
  CHECK(overlap < 1e-3);  // without the preview: 2 cm after the first step
  CHECK(st.bodies[1].x.y() > st.bodies[0].x.y() + 0.19);  // on top, not through
}

TEST_CASE("gc-contact: a body spinning fast flies straight - its COM keeps its velocity whatever its distance from the origin", "[gc-contact]") {
  // (omega, v_O) at the world origin: the positions taken at the step's start turn the COM velocity
  // and stretch it by 1 + h^2 |omega|^2 a step, e^9 over these 400 steps
  for (const bool round : {true, false}) {
    INFO((round ? "a ball: omega constant" : "three moments: omega precesses"));
    mb::Model m = mb::build_model("bouncing-ball:e=0");
    m.gravity = mb::Vec3::Zero();
    mb::Body& b = m.bodies[0];
    b.position = mb::Vec3(3, 5, -2);  // above the floor (y = 0)
    b.velocity = mb::Vec3(10, 0, 0);
    b.angular_velocity = mb::Vec3(10, 20, 30);
    if (!round) b.inertia = mb::Vec3(0.02, 0.025, 0.03).asDiagonal();
    const double h = 0.005;
    auto meth = mb::make_method("gc-contact");
    mb::State st = mb::initial_state(m);
    meth->init(m, st);
    for (int k = 0; k < 400; ++k) {
      mb::StepStats stats;
      meth->step(m, st, h, stats);
    }
    const mb::BodyState& s = st.bodies[0];
    INFO("x " << s.x.transpose() << " v " << s.v.transpose());
    CHECK((s.x - mb::Vec3(23, 5, -2)).norm() < 1e-11);
    CHECK((s.v - mb::Vec3(10, 0, 0)).norm() < 1e-11);
    if (round) CHECK((s.w - mb::Vec3(10, 20, 30)).norm() < 1e-11);
  }
}

TEST_CASE("gc-contact: an island's W dense or as sparse rows gives one motion - auto takes the sparse rows past 128", "[gc-contact]") {
  if (!mb::mjcf_supported()) return;
  // the snake lies on the floor with 48 contacts in one tree: one island of 144 rows
  const mb::Model snake = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/mjcf/snake.xml");
  const Run dense = run(snake, "gc-contact:delassus=dense", 0.002, 150);
  const Run sparse = run(snake, "gc-contact:delassus=sparse", 0.002, 150);
  const Run automatic = run(snake, "gc-contact", 0.002, 150);
  CHECK(automatic.most_contacts >= 43);  // over 128 rows
  CHECK(mbtest::max_position_difference(dense.s, sparse.s) < 1e-12);
  CHECK(mbtest::max_position_difference(automatic.s, sparse.s) == 0);
  CHECK(automatic.max_penetration < 1e-6);
  // the quadruped's island (its four feet) stays dense under auto
  if (!mb::urdf_supported()) return;
  const mb::Model q = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/robots/quadruped.urdf:base=free,floor=on");
  CHECK(mbtest::max_position_difference(run(q, "gc-contact", 0.002, 100).s, run(q, "gc-contact:delassus=dense", 0.002, 100).s) == 0);
}
