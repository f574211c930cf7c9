// Generalized coordinates on rigid-body trees: the articulated-body algorithm against a
// dense CRBA solve, conservation by `ref`, GC4 on the pendulum family and on rigid-body versions of
// the same pendulums, the torque-pulse split of `ref`, and the impulse `linear` method converging
// toward `ref` on the tree.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/reduced/aba.hpp"
#include "methods/reduced/crba.hpp"
#include "models/kinematics.hpp"
#include "models/formats/urdf.hpp"
#include "sim/run_case.hpp"
#include "planar_chain.hpp"
#include "test_util.hpp"

namespace {

// The pendulum-family model `chain` (planar point masses on rods) as a tree of rigid spheres of
// radius r with the same masses, positions and velocities, jointed at the parent's centre (or the
// pivot) by hinges about z or by ball joints; each sphere turns with its rod.
mb::Model rigid_pendulum(const mb::Model& chain, mb::JointType type, double r) {
  mb::Model m = chain;
  m.info.name = chain.info.name + " as rigid spheres";
  mb::Vec3 p_prev = chain.joints[0].anchor_a, v_prev = mb::Vec3::Zero();
  for (size_t k = 0; k < m.bodies.size(); ++k) {
    mb::Body& b = m.bodies[k];
    b.particle = false;
    b.inertia = 0.4 * b.mass * r * r * mb::Mat3::Identity();
    const mb::Vec3 d = b.position - p_prev, dv = b.velocity - v_prev;
    b.angular_velocity = mb::Vec3(0, 0, (d.x() * dv.y() - d.y() * dv.x()) / d.squaredNorm());
    mb::Joint& j = m.joints[k];
    j.type = type;
    j.anchor_b = -d;  // the parent's centre (or the pivot) in this body's frame (identity orientation)
    j.axis_a = j.axis_b = mb::Vec3::UnitZ();
    p_prev = b.position;
    v_prev = b.velocity;
  }
  return m;
}

// The tree model with its ball joints replaced, in turn, with hinges (about a tilted axis at the
// start) and fixed joints, and with `sliders` every sixth joint with a slider along another tilted
// axis: every joint type the tree supports at once.
mb::Model mixed_tree(int joints, bool anchor, bool sliders = false) {
  mb::TreeParams p;
  p.joints = joints;
  p.anchor_ball = anchor;
  mb::Model m = mb::make_tree(p, "mixed tree");
  for (size_t k = 0; k < m.joints.size(); ++k) {
    mb::Joint& j = m.joints[k];
    if (j.name == "anchor") continue;
    const mb::Quat qa = m.bodies[j.a].orientation, qb = m.bodies[j.b].orientation;
    if (k % 3 == 1) {
      const mb::Vec3 u = mb::Vec3(0.3, 0.2, 1).normalized();
      j.type = mb::JointType::Hinge;
      j.axis_a = qa.conjugate() * u;
      j.axis_b = qb.conjugate() * u;
    } else if (k % 3 == 2) {
      j.type = mb::JointType::Fixed;
      j.rel_orientation = qa.conjugate() * qb;
    } else if (sliders && k % 6 == 0) {
      const mb::Vec3 u = mb::Vec3(-0.4, 1, 0.3).normalized();
      j.type = mb::JointType::Slider;
      j.axis_a = qa.conjugate() * u;
      j.axis_b = qb.conjugate() * u;
      j.rel_orientation = qa.conjugate() * qb;
    }
  }
  return m;
}

// random generalized state: every coordinate and velocity perturbed, quaternions renormalised
std::vector<double> random_state(const mb::TreeModel& t, const std::vector<double>& x0, std::mt19937& rng) {
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> x = x0;
  for (int i = 0; i < t.nq; ++i) x[i] += u(rng);
  for (int i = t.nq; i < t.size(); ++i) x[i] = 2 * u(rng);
  t.normalize(x);
  return x;
}

double max_abs(const Eigen::VectorXd& a) { return a.cwiseAbs().maxCoeff(); }

// m = max(m, x), and infinite once x is NaN (std::max would drop it)
void take_max(double& m, double x) { m = std::isnan(x) || std::isnan(m) ? INFINITY : std::max(m, x); }

// max over bodies of |x_a - x_b|, infinite when either state is not finite (so NaN cannot pass)
double position_difference(const mb::State& a, const mb::State& b) {
  if (!mb::state_is_finite(a) || !mb::state_is_finite(b)) return INFINITY;
  return mbtest::max_position_difference(a, b);
}

}  // namespace

TEST_CASE("ABA accelerations equal the dense CRBA solve on random states", "[methods][articulated]") {
  std::mt19937 rng(2024);
  std::uniform_real_distribution<double> u(-1, 1);
  struct Case {
    const char* name;
    mb::Model model;
  };
  std::vector<Case> cases = {{"tree:joints=63", mb::build_model("tree:joints=63")},
                             {"tree:joints=63,anchor=ball", mb::build_model("tree:joints=63,anchor=ball")},
                             {"mixed ball/hinge/fixed tree of 63 joints, free", mixed_tree(63, false)},
                             {"mixed ball/hinge/fixed tree of 63 joints, anchored", mixed_tree(63, true)},
                             {"mixed ball/hinge/slider/fixed tree of 63 joints, free", mixed_tree(63, false, true)},
                             {"mixed ball/hinge/slider/fixed tree of 63 joints, anchored", mixed_tree(63, true, true)},
                             // (16 links: the dense solve of a long chain in relative angles is ill-conditioned,
                             // 2.5e-10 at 63 links, and this test checks the ABA, not the Cholesky)
                             {"chain:n=16 (point masses on rods)", mb::build_model("chain:n=16")}};
  {
    // a branching planar point-mass tree: m1 and m2 from the pivot, m3 on m1, m4 on m3, m5 on m3
    mb::Model m = mb::build_model("chain:n=5");
    m.joints[1].a = mb::kWorld;
    m.bodies[1].position = mb::Vec3(0, -1, 0);
    m.joints[2].a = 0;
    m.bodies[2].position = mb::Vec3(1, -1, 0);
    m.joints[3].a = 2;
    m.bodies[3].position = mb::Vec3(2, -1, 0);
    m.joints[4].a = 2;
    m.bodies[4].position = mb::Vec3(1, -2, 0);
    cases.push_back({"branching point-mass tree of 5 rods", m});
    // the same tree out of its plane (swing joints): m2 and m4 moved along z, a z velocity on m5
    m.bodies[1].position = mb::Vec3(0, -0.6, 0.8);
    m.bodies[3].position = mb::Vec3(1.6, -1, 0.8);
    m.bodies[4].velocity = mb::Vec3(0, 0, 1);
    cases.push_back({"spatial branching point-mass tree of 5 rods (swing joints)", m});
  }
  for (const Case& c : cases) {
    const mb::TreeModel t = mb::TreeModel::build(c.model);
    std::vector<double> x0;
    t.read(mb::initial_state(c.model), x0);
    double worst = 0;
    for (int trial = 0; trial < 20; ++trial) {
      mb::TreeData d(t);
      for (auto& v : d.tau) v = 5 * mb::Vec3(u(rng), u(rng), u(rng));
      const std::vector<double> x = random_state(t, x0, rng);
      const Eigen::VectorXd a = mb::aba_accelerations(t, d, x), b = mb::crba_accelerations(t, d, x);
      REQUIRE(a.size() == t.nv);
      take_max(worst, max_abs(a - b) / max_abs(b));
    }
    INFO(c.name << ": max |a_ABA - a_CRBA| / max |a| over 20 random states = " << worst);
    CHECK(worst < 1e-10);
  }
}

TEST_CASE("ball joints in pairs (two per SSE2 packet) give the bits of one at a time", "[methods][articulated]") {
  MBTEST_SKIP_UNLESS_SSE2_ORDER();
  std::mt19937 rng(11);
  std::uniform_real_distribution<double> u(-1, 1);
  // the tree with hinges at every other depth: pairs of ball links under hinge links (in the
  // catalog tree every pair hangs from a ball link; mixed_tree has no two ball siblings)
  mb::Model levels = mb::build_model("tree:joints=63");
  for (mb::Joint& j : levels.joints) {
    const int child = std::max(j.a, j.b);  // body i + 1 is node i of the binary tree, at depth 1 + floor(log2(i + 1))
    if (static_cast<int>(std::floor(std::log2(child))) % 2 == 1) continue;
    const mb::Quat qa = levels.bodies[j.a].orientation, qb = levels.bodies[j.b].orientation;
    const mb::Vec3 u = mb::Vec3(0.3, 0.2, 1).normalized();
    j.type = mb::JointType::Hinge;
    j.axis_a = qa.conjugate() * u;
    j.axis_b = qb.conjugate() * u;
  }
  const std::pair<const char*, mb::Model> cases[] = {{"tree:joints=63", mb::build_model("tree:joints=63")},
                                                     {"tree:joints=63,anchor=ball", mb::build_model("tree:joints=63,anchor=ball")},
                                                     {"mixed tree, free", mixed_tree(63, false)},
                                                     {"mixed tree, anchored", mixed_tree(63, true)},
                                                     {"ball pairs under hinges", levels}};
  for (const auto& [name, model] : cases) {
    const mb::TreeModel paired = mb::TreeModel::build(model), alone = mb::TreeModel::build(model, false);
    mb::TreeData dp(paired), da(alone);
    std::vector<double> x0;
    paired.read(mb::initial_state(model), x0);
    for (auto& t : dp.tau) t = 5 * mb::Vec3(u(rng), u(rng), u(rng));
    da.tau = dp.tau;
    for (int trial = 0; trial < 5; ++trial) {
      const std::vector<double> x = random_state(paired, x0, rng);
      std::vector<double> a, b;
      mb::tree_derivative(paired, dp, x, a);
      mb::tree_derivative(alone, da, x, b);
      REQUIRE(a.size() == b.size());
      size_t differ = 0;
      for (size_t k = 0; k < a.size(); ++k) differ += std::memcmp(&a[k], &b[k], sizeof(double)) != 0;
      INFO(name << ", trial " << trial << ": " << differ << " of " << a.size() << " derivative entries differ in their bits");
      CHECK(differ == 0);
    }
  }
}

namespace {
// the model turned by 90 degrees about x: the planar x-y motion moves to the x-z plane, gravity to -z
mb::Model turned_about_x(mb::Model m) {
  const mb::Quat r(Eigen::AngleAxisd(M_PI / 2, mb::Vec3::UnitX()));
  m.gravity = r * m.gravity;
  for (mb::Body& b : m.bodies) {
    b.position = r * b.position;
    b.velocity = r * b.velocity;
  }
  for (mb::Joint& j : m.joints) {
    if (j.a == mb::kWorld) j.anchor_a = r * j.anchor_a;
    if (j.b == mb::kWorld) j.anchor_b = r * j.anchor_b;
  }
  return m;
}
}  // namespace

TEST_CASE("spatial point-mass trees: the conical pendulum keeps its circle", "[methods][articulated][swing]") {
  // a point mass on a 1 m rod at 30 degrees from the vertical, moving on the horizontal circle:
  // Omega^2 = g / (L cos theta), speed Omega L sin theta (the closed form; g along -y)
  mb::Model m = mb::build_model("pendulum");
  const double L = 1, th = M_PI / 6, g = -m.gravity.y();
  const double Om = std::sqrt(g / (L * std::cos(th))), R = L * std::sin(th);
  m.bodies[0].position = mb::Vec3(R, -L * std::cos(th), 0);
  m.bodies[0].velocity = mb::Vec3(0, 0, Om * R);
  const double T = 2.0;
  const mb::Vec3 expect(R * std::cos(Om * T), -L * std::cos(th), R * std::sin(Om * T));
  for (const auto& [method, tol] : {std::pair<const char*, double>{"ref", 1e-10}, {"GC4", 1e-10}}) {
    const mb::State s = mbtest::simulate(m, method, 1e-3, T);
    const double e = (s.bodies[0].x - expect).norm();
    INFO(method << ": |x - x_exact| at " << T << " s = " << e << " m");
    CHECK(e < tol);
  }
  // the opposite sense of turning gives the mirror circle
  m.bodies[0].velocity = -m.bodies[0].velocity;
  const mb::State s = mbtest::simulate(m, "ref", 1e-3, T);
  CHECK((s.bodies[0].x - mb::Vec3(expect.x(), expect.y(), -expect.z())).norm() < 1e-10);
}

TEST_CASE("spatial point-mass trees: a planar chain turned out of the x-y plane moves as the rod-angle chain",
          "[methods][articulated][swing]") {
  // the same mechanism in two coordinate sets: swing quaternions (turned) and rod angles (planar)
  const mb::Model m = mb::build_model("chain:n=8"), turned = turned_about_x(m);
  REQUIRE(mb::TreeModel::build(turned).nq == 4 * 8);
  REQUIRE(mb::TreeModel::build(m).nq == 8);
  const mb::Quat r(Eigen::AngleAxisd(M_PI / 2, mb::Vec3::UnitX()));
  const mb::State a = mbtest::simulate(m, "ref", 0.05, 1.0), b = mbtest::simulate(turned, "ref", 0.05, 1.0);
  double e = 0;
  for (size_t i = 0; i < m.bodies.size(); ++i) take_max(e, (r * a.bodies[i].x - b.bodies[i].x).norm());
  INFO("|ref(swing) - ref(rod angles)| at 1 s = " << e << " m");
  CHECK(e < 1e-9);
}

TEST_CASE("spatial point-mass trees: ref conserves energy and GC4 converges with order 4",
          "[methods][articulated][swing][order]") {
  // the double pendulum thrown out of its plane
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[0].velocity = mb::Vec3(0, 0, 2);
  m.bodies[1].velocity = mb::Vec3(0, 1, -1);  // normal to both rods (stretched along +x)
  const double E0 = mb::total_energy(m, mb::initial_state(m));
  const mb::State r = mbtest::simulate(m, "ref", 0.05, 1.0);
  const double dE = std::abs(mb::total_energy(m, r) - E0) / std::abs(E0);
  INFO("ref: relative energy change over 1 s " << dE << " (E0 = " << E0 << ")");
  CHECK(dE < 1e-11);
  CHECK(std::abs(r.bodies[1].x.z()) > 0.1);  // it did leave the plane
  const double e1 = position_difference(mbtest::simulate(m, "GC4", 1.0 / 200, 1.0), r);
  const double e2 = position_difference(mbtest::simulate(m, "GC4", 1.0 / 400, 1.0), r);
  const double order = std::log2(e1 / e2);
  INFO("GC4: error(h=1/200) = " << e1 << ", error(h=1/400) = " << e2 << ", observed order " << order);
  CHECK(order > 3.7);
  CHECK(order < 4.3);
}

TEST_CASE("ref conserves momentum and energy on the free-floating tree without gravity", "[methods][articulated][ref]") {
  mb::TreeParams p;
  p.joints = 31;
  p.g = 0;
  const mb::Model m = mb::make_tree(p, "tree:joints=31,g=0");
  auto ref = mb::make_method("ref");
  mb::State s = mb::initial_state(m);
  ref->init(m, s);
  mb::StepStats st;
  const double h = 1.0 / 30.0;  // the torque pulse is [0, h)
  ref->step(m, s, h, st);
  s.t = h;
  const mb::Vec3 P0 = mb::linear_momentum(m, s), L0 = mb::angular_momentum(m, s);
  const double E0 = mb::total_energy(m, s);
  // momentum scale: sum m |v| (P itself is zero: the pulse is a pure torque)
  auto p_scale = [&](const mb::State& x) {
    double a = 0;
    for (size_t i = 0; i < m.bodies.size(); ++i) a += m.bodies[i].mass * x.bodies[i].v.norm();
    return a;
  };
  // the pulse gives L = 10 N m * 1/30 s about z
  CHECK(mbtest::is_close(L0.z(), 10.0 / 30.0, 1e-12, 1e-11));
  double dP = 0, dL = 0, dE = 0;
  for (int i = 2; i <= 60; ++i) {
    ref->step(m, s, h, st);
    s.t = i * h;
    take_max(dP, (mb::linear_momentum(m, s) - P0).norm() / p_scale(s));
    take_max(dL, (mb::angular_momentum(m, s) - L0).norm() / L0.norm());
    take_max(dE, std::abs(mb::total_energy(m, s) - E0) / E0);
  }
  INFO("over [1/30, 2] s: max relative change of P " << dP << ", L " << dL << ", E " << dE << "; |L| = "
                                                     << L0.norm() << ", E = " << E0);
  CHECK(dP < 1e-11);
  CHECK(dL < 1e-11);
  CHECK(dE < 1e-10);
}

TEST_CASE("ref conserves energy on the mixed ball/hinge/fixed tree under gravity", "[methods][articulated][ref]") {
  mb::Model m = mixed_tree(15, true);
  m.loads.clear();  // no work done: E = K + U is conserved
  mb::State s = mbtest::simulate(m, "ref", 0.1, 1.0);
  const double E0 = mb::total_energy(m, mb::initial_state(m)), E1 = mb::total_energy(m, s);
  // scale: the potential energy range of the motion, m_total g (1 m)
  double mass = 0;
  for (const auto& b : m.bodies) mass += b.mass;
  INFO("E0 = " << E0 << ", E(1 s) = " << E1 << ", relative to m g (1 m): " << std::abs(E1 - E0) / (mass * 9.81));
  CHECK(std::abs(E1 - E0) < 1e-10 * mass * 9.81);  // false for NaN
  CHECK(mb::max_joint_error(m, s).pos < 1e-12);
  CHECK(mb::max_joint_error(m, s).rot < 1e-12);
}

TEST_CASE("a slider on an incline: GC4 and ref slide with g . u exactly", "[methods][articulated][slider]") {
  // a box on a slider from the world along a tilted axis u, started moving along it: x(t) =
  // x0 + (v0 t + (g . u) t^2 / 2) u, a quadratic RK4 integrates without error
  mb::Model m;
  m.info.name = "incline slider";
  mb::Body b;
  b.name = "box";
  b.mass = 2;
  b.inertia = mb::Vec3(0.1, 0.2, 0.3).asDiagonal();
  b.position = mb::Vec3(0.5, 1, 0);
  b.orientation = mb::Quat(Eigen::AngleAxisd(0.3, mb::Vec3(1, 1, 0).normalized()));
  const mb::Vec3 u = mb::Vec3(1, 0.5, -0.2).normalized();
  b.velocity = 0.7 * u;
  m.bodies.push_back(b);
  mb::Joint j;
  j.name = "rail";
  j.type = mb::JointType::Slider;
  j.a = mb::kWorld;
  j.b = 0;
  j.anchor_a = mb::Vec3(0.3, 0.8, 0.1);  // the joint point on the world, and on the box
  j.anchor_b = b.orientation.conjugate() * (j.anchor_a - b.position);
  j.axis_a = u;
  j.axis_b = b.orientation.conjugate() * u;
  j.rel_orientation = b.orientation;
  m.joints.push_back(j);
  mb::check_model(m, "test");
  const double t = 1.0, s = 0.7 * t + 0.5 * m.gravity.dot(u) * t * t;
  for (const char* method : {"GC4", "ref"}) {
    const mb::State st = mbtest::simulate(m, method, 0.01, t);
    const double e = (st.bodies[0].x - (b.position + s * u)).norm();
    const double ev = (st.bodies[0].v - (0.7 + m.gravity.dot(u) * t) * u).norm();
    const double eq = st.bodies[0].q.angularDistance(b.orientation);
    INFO(method << ": |x - x_exact| = " << e << " m, |v - v_exact| = " << ev << " m/s, turned by " << eq << " rad at 1 s");
    CHECK(e < 1e-12);
    CHECK(ev < 1e-12);
    CHECK(eq < 1e-12);
  }
}

TEST_CASE("ref conserves energy on a mixed tree with sliders, and linear converges to it",
          "[methods][articulated][slider][ref]") {
  mb::Model m = mixed_tree(15, true, true);
  m.loads.clear();  // no work done: E = K + U is conserved
  int sliders = 0;
  for (const mb::Joint& j : m.joints) sliders += j.type == mb::JointType::Slider;
  REQUIRE(sliders >= 2);
  mb::State s = mbtest::simulate(m, "ref", 0.1, 1.0);
  const double E0 = mb::total_energy(m, mb::initial_state(m)), E1 = mb::total_energy(m, s);
  double mass = 0;
  for (const auto& b : m.bodies) mass += b.mass;
  INFO("E0 = " << E0 << ", E(1 s) = " << E1 << ", relative to m g (1 m): " << std::abs(E1 - E0) / (mass * 9.81));
  CHECK(std::abs(E1 - E0) < 1e-10 * mass * 9.81);
  CHECK(mb::max_joint_error(m, s).pos < 1e-12);
  CHECK(mb::max_joint_error(m, s).rot < 1e-12);
  // the impulse method in maximal coordinates, an independent implementation of the slider,
  // converges to ref with its order 2
  std::vector<double> err;
  for (double h : {1.0 / 100, 1.0 / 200, 1.0 / 400}) {
    mb::RunConfig c;
    c.h = h;
    c.duration = 0.3;
    c.samples = {0.3};
    const auto rec = mb::run_case(m, "linear:tol_p=1e-11,tol_v=1e-11", c);
    REQUIRE(rec.ok());
    err.push_back(*rec.metrics.get("ref_error_max"));
  }
  INFO("linear against ref at 0.3 s for h = 1/100, 1/200, 1/400: " << err[0] << " " << err[1] << " " << err[2]);
  CHECK(err[0] / err[1] > 3);
  CHECK(err[1] / err[2] > 3);
  CHECK(err[2] < 1e-4);
}

TEST_CASE("the URDF arm with a prismatic joint runs in GC4 and ref", "[methods][articulated][slider]") {
  if (!mb::urdf_supported()) {
    WARN("skipped: this build has no liburdfdom");
    return;
  }
  const mb::Model m = mb::read_urdf(std::string(MBBENCH_TEST_DATA) + "/urdf/arm.urdf");
  mb::RunConfig c;
  c.h = 0.001;
  c.duration = 1;
  c.samples = {1};
  const auto rec = mb::run_case(m, "GC4", c);
  REQUIRE(rec.ok());
  const double e = *rec.metrics.get("ref_error_max");
  INFO("GC4 against ref at 1 s, h = 1 ms: " << e << " m");
  CHECK(e < 1e-9);
  CHECK(e > 0);  // two integrators: not the same numbers
}

TEST_CASE("GC4 on the pendulum family equals the planar-chain GC4", "[methods][articulated][gc4]") {
  const double h = 0.001;
  for (const char* name : {"pendulum10", "pendulum90", "double-pendulum", "triple-pendulum"}) {
    const mb::Model m = mb::build_model(name);
    // the chain GC4 of the foundation issue: rod angles + odeint RK4, written out here
    const mbtest::PlanarChain chain = mbtest::PlanarChain::extract(m);
    std::vector<double> x;
    chain.read(mb::initial_state(m), x);
    boost::numeric::odeint::runge_kutta4<std::vector<double>> rk4;
    auto sys = [&](const std::vector<double>& y, std::vector<double>& dy, double) { chain.derivative(y, dy); };
    for (int i = 0; i < 1000; ++i) rk4.do_step(sys, x, i * h, h);
    mb::State expect = mb::initial_state(m);
    chain.write(x, expect);

    // GC4 (the articulated-body algorithm with rod links)
    const mb::State gc4 = mbtest::simulate(m, "GC4", h, 1.0);
    // the same pendulum as a tree of rigid spheres with hinges: r = 1.58e-8 m gives I = 1e-16 kg m^2,
    // so the mass matrix in rod angles is M_chain + 1e-16 * 1 (relative change <= 1e-16 / (m L^2) = 1e-16,
    // below rounding); RK4 commutes with the linear map from absolute to relative angles, so both
    // GC4 runs agree up to rounding: the 1e-12.
    const double r = std::sqrt(1e-16 / 0.4);
    const mb::Model tree = rigid_pendulum(m, mb::JointType::Hinge, r);
    REQUIRE_NOTHROW(mb::TreeModel::build(tree));
    const mb::State gc4_tree = mbtest::simulate(tree, "GC4", h, 1.0);
    const double e_dispatch = position_difference(gc4, expect);
    const double e_tree = position_difference(gc4_tree, expect);
    double e_vel = 0;
    for (size_t i = 0; i < m.bodies.size(); ++i)
      take_max(e_vel, (gc4_tree.bodies[i].v - expect.bodies[i].v).norm());
    INFO(name << ": |GC4 - chain GC4| = " << e_dispatch << ", |GC4 on hinge spheres - chain GC4| = " << e_tree
              << " m (velocity " << e_vel << " m/s)");
    CHECK(e_dispatch < 1e-12);
    CHECK(e_tree < 1e-12);
    CHECK(e_vel < 1e-11);
  }
}

TEST_CASE("ball-joint quaternion coordinates equal hinge coordinates on a planar motion", "[methods][articulated][ref]") {
  // spheres of 5 cm: both models are the same mechanism (the motion stays planar), so their
  // references agree to the tolerance of ref
  for (const char* name : {"pendulum90", "triple-pendulum"}) {
    const mb::Model m = mb::build_model(name);
    const mb::Model hinge = rigid_pendulum(m, mb::JointType::Hinge, 0.05);
    const mb::Model ball = rigid_pendulum(m, mb::JointType::Ball, 0.05);
    const double e = position_difference(mbtest::simulate(hinge, "ref", 0.1, 1.0),
                                                     mbtest::simulate(ball, "ref", 0.1, 1.0));
    INFO(name << ": |ref(ball) - ref(hinge)| at 1 s = " << e);
    CHECK(e < 1e-10);
  }
}

TEST_CASE("GC4 converges to ref with order 4 on a small tree", "[methods][articulated][gc4][order]") {
  // tree:joints=7 (shrunk from 31 to keep the test fast), anchored, 0.5 s
  const mb::Model m = mb::build_model("tree:joints=7,anchor=ball");
  const mb::State r = mbtest::simulate(m, "ref", 0.5, 0.5);
  // (asymptotic from h = 1/120 on; 1/60 -> 1/120 still shows 5.2)
  const double e1 = position_difference(mbtest::simulate(m, "GC4", 1.0 / 240, 0.5), r);
  const double e2 = position_difference(mbtest::simulate(m, "GC4", 1.0 / 480, 0.5), r);
  const double order = std::log2(e1 / e2);
  INFO("error(h=1/240) = " << e1 << ", error(h=1/480) = " << e2 << ", observed order " << order);
  CHECK(order > 3.7);
  CHECK(order < 4.3);
}

TEST_CASE("ref integrates the torque pulse exactly whatever the step", "[methods][articulated][ref]") {
  // h = 0.01 straddles the pulse end 1/30 s (ref splits the step there); h = 1/30 ends on it
  const mb::Model m = mb::build_model("tree:joints=7");
  const double e = position_difference(mbtest::simulate(m, "ref", 0.01, 0.3),
                                                   mbtest::simulate(m, "ref", 0.1, 0.3));
  INFO("|ref(h=0.01) - ref(h=0.1)| at 0.3 s = " << e);
  CHECK(e < 1e-10);
}

TEST_CASE("linear and baraff converge toward ref on tree:joints=31", "[methods][articulated][impulse][order]") {
  const mb::Model m = mb::build_model("tree:joints=31,anchor=ball");
  for (const char* spec : {"linear:tol_p=1e-10,tol_v=1e-10", "baraff"}) {
    std::vector<double> hs = {1.0 / 30, 1.0 / 60, 1.0 / 120, 1.0 / 240}, err;
    for (double h : hs) {
      mb::RunConfig c;
      c.h = h;
      c.duration = 0.5;
      c.samples = {0.5};
      const auto rec = mb::run_case(m, spec, c);
      REQUIRE(rec.ok());
      err.push_back(*rec.metrics.get("ref_error_max"));
    }
    std::string orders;
    for (size_t i = 1; i < hs.size(); ++i) orders += fmt::format(" {:.3f}", std::log2(err[i - 1] / err[i]));
    INFO(spec << ": errors at t = 0.5 s for h = 1/30..1/240: " << err[0] << " " << err[1] << " " << err[2] << " " << err[3]
              << "; observed orders" << orders);
    CHECK(err[1] / err[2] > 3);
    CHECK(err[2] / err[3] > 3);
  }
}

TEST_CASE("GC4 and ref refuse what the reduced coordinates cannot represent", "[methods][articulated]") {
  auto gc4 = mb::make_method("GC4");
  const mb::Model loop = mb::build_model("loop:n=8");
  CHECK_THROWS_AS(gc4->init(loop, mb::initial_state(loop)), mb::UnsupportedModel);
  // a closed loop of rigid bodies
  mb::Model t = mb::build_model("tree:joints=3");
  mb::Joint j = t.joints[1];
  j.name = "closing";
  j.a = 2;
  j.b = 3;
  t.joints.push_back(j);
  CHECK_THROWS_WITH(gc4->init(t, mb::initial_state(t)), Catch::Contains("closes a kinematic loop"));
  // a point mass in a rigid tree
  t = mb::build_model("tree:joints=3");
  t.bodies[3].particle = true;
  CHECK_THROWS_WITH(gc4->init(t, mb::initial_state(t)), Catch::Contains("point mass"));
  // the box chain is a tree of ball joints: supported
  const mb::Model boxes = mb::build_model("chain:n=4,body=box");
  CHECK_NOTHROW(gc4->init(boxes, mb::initial_state(boxes)));
}
