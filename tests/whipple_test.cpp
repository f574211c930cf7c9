// The Whipple bicycle against meijaard2007 (results/paper/meijaard2007.toml): the eigenvalues of the
// published linearized equations at v = 0..10 m/s against the paper's Table 2, and the weave and
// capsize speeds found from them against the printed ones; the catalog's `bicycle` (Table 1's
// parameters, two rolling wheels): its lean mass, its initial state on the constraints, the rolling
// rows' velocity product, the linearization of ref's equations against the published matrices, and
// the motions of LMVD4 and of the impulse methods; the engines' refusal of the rolling wheels and
// the contact wheels (wheels=cylinder|ellipsoid) that they take, with MuJoCo's and our iterative's
// weave on them.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <complex>
#include <iomanip>
#include <string>
#include <vector>

#include "analysis/analysis.hpp"
#include "analysis/outcome.hpp"
#include "analysis/whipple.hpp"
#include "core/toml.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/lagrange/acceleration.hpp"
#include "methods/method.hpp"
#include "metrics/registry.hpp"
#include "models/catalog.hpp"
#include "report/report.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {

const std::string kPaper = std::string(MBBENCH_TEST_DATA) + "/../../results/paper/meijaard2007.toml";

const toml::table& paper() {
  static const toml::table t = toml::parse_file(kPaper);
  return t;
}

std::vector<double> numbers(const char* table, const char* key) {
  std::vector<double> v;
  for (const auto& e : *paper()[table][key].as_array()) v.push_back(e.value_or(0.0));
  return v;
}

Eigen::Matrix2d matrix(const char* key) {
  const std::vector<double> v = numbers("matrices", key);
  REQUIRE(v.size() == 4);
  Eigen::Matrix2d m;
  m << v[0], v[1], v[2], v[3];
  return m;
}

mb::WhippleMatrices published() {
  mb::WhippleMatrices w;
  w.M = matrix("M");
  w.C1 = matrix("C1");
  w.K0 = matrix("K0");
  w.K2 = matrix("K2");
  w.g = paper()["context"]["g"].value_or(0.0);
  return w;
}

}  // namespace

TEST_CASE("whipple: the published matrices give Table 2's eigenvalues at v = 0 to 10", "[whipple]") {
  const mb::WhippleMatrices w = published();
  REQUIRE(w.g == 9.81);
  const std::vector<double> v = numbers("eigenvalues", "v"), wr = numbers("eigenvalues", "weave_re"),
                            wi = numbers("eigenvalues", "weave_im"), cap = numbers("eigenvalues", "capsize"),
                            cast = numbers("eigenvalues", "castering");
  REQUIRE(v.size() == 11);
  double worst = 0;
  for (size_t i = 0; i < v.size(); ++i) {
    const auto e = mb::eigenvalues4(mb::whipple_state_matrix(w, v[i]));
    INFO("v = " << v[i] << ": " << e[0] << " " << e[1] << " " << e[2] << " " << e[3]);
    std::vector<std::complex<double>> expect;
    if (v[i] == 0)  // four real ones, +-a and +-b
      expect = {{cast[i], 0}, {cap[i], 0}, {wr[i], 0}, {paper()["eigenvalues"]["unstable_v0"].value_or(0.0), 0}};
    else
      expect = {{cast[i], 0}, {cap[i], 0}, {wr[i], -wi[i]}, {wr[i], wi[i]}};
    std::sort(expect.begin(), expect.end(), [](auto a, auto b) { return a.real() != b.real() ? a.real() < b.real() : a.imag() < b.imag(); });
    for (size_t k = 0; k < 4; ++k) {
      // Table 2 prints 15 significant digits of eigenvalues taken from the exact parameters; ours
      // come from the matrices rounded to 14 decimals
      const double err = std::abs(e[k] - expect[k]);
      worst = std::max(worst, err / std::max(1.0, std::abs(expect[k])));
      CHECK(err <= 2e-13 * std::max(1.0, std::abs(expect[k])));
    }
    if (v[i] == 5) {  // the self-stable range: every real part negative
      CHECK(mbtest::is_close(mb::weave_real_part(e), -0.775341882195850, 1e-13));
      CHECK(e[3].real() < 0);
    }
  }
  WARN("largest difference from Table 2 (relative, absolute below 1): " << worst);
}

TEST_CASE("whipple: the weave and capsize speeds from the matrices are the printed ones", "[whipple]") {
  const mb::WhippleMatrices w = published();
  auto A = [&](double v) { return mb::whipple_state_matrix(w, v); };
  const double vw = mb::weave_speed(A, 3, 5), vc = mb::capsize_speed(A, 5, 7);
  const double vw_paper = paper()["speeds"]["weave"].value_or(0.0), vc_paper = paper()["speeds"]["capsize"].value_or(0.0);
  WARN("v_w = " << std::setprecision(16) << vw << " (printed " << vw_paper << "), v_c = " << vc << " (printed " << vc_paper << ")");
  CHECK(std::abs(vw - vw_paper) <= 1e-12);
  CHECK(std::abs(vc - vc_paper) <= 1e-12);
  // the capsize speed in closed form: det(g K0 + v^2 K2) = 0 is linear in v^2 (K2's first column is zero)
  const Eigen::Matrix2d &K0 = w.K0, &K2 = w.K2;
  REQUIRE(K2(0, 0) == 0);
  REQUIRE(K2(1, 0) == 0);
  const double vc2 = w.g * (K0(0, 1) * K0(1, 0) - K0(0, 0) * K0(1, 1)) / (K0(0, 0) * K2(1, 1) - K0(1, 0) * K2(0, 1));
  CHECK(mbtest::is_close(vc, std::sqrt(vc2), 0, 1e-14));
  // the weave pair at v_w: on the imaginary axis with Table 2 (a)'s frequency
  const auto e = mb::eigenvalues4(A(vw));
  CHECK(std::abs(mb::weave_real_part(e)) < 1e-13);
  CHECK(mbtest::is_close(std::abs(e[3].imag()), paper()["speeds"]["weave_imag"].value_or(0.0), 1e-12));
  // self-stability: the weave grows below v_w, the capsize mode above v_c
  CHECK(mb::weave_real_part(mb::eigenvalues4(A(vw - 1e-6))) > 0);
  CHECK(mb::capsize_eigenvalue(mb::eigenvalues4(A(vc + 1e-6))) > 0);
  CHECK(mb::capsize_eigenvalue(mb::eigenvalues4(A(vc - 1e-6))) < 0);
  CHECK_THROWS_AS(mb::weave_speed(A, 5, 6), std::domain_error);
}

namespace {

// the largest |position error| and |velocity error| of every row (hinges and rolling) at s
std::pair<double, double> constraint_errors(const mb::Model& m, const mb::State& s) {
  mb::ConstraintSystem cs(m);
  cs.update(m, s);
  Eigen::VectorXd e, ev;
  cs.position_error(m, s, e);
  cs.velocity_error(s, ev);
  return {e.cwiseAbs().maxCoeff(), ev.cwiseAbs().maxCoeff()};
}

}  // namespace

TEST_CASE("bicycle: the model's lean mass is the published M[0][0] and it starts on its constraints", "[whipple][bicycle]") {
  const mb::Model m = mb::build_model("bicycle:v=5");
  REQUIRE(m.bodies.size() == 4);
  REQUIRE(m.joints.size() == 3);
  REQUIRE(m.rolling.size() == 2);
  // the lean-lean entry of the linearized mass matrix from the model's bodies, upright: the inertia
  // about the line of the contacts (the x axis), sum of I_xx + m (y^2 + z^2)
  double lean_mass = 0;
  for (const mb::Body& b : m.bodies) lean_mass += b.inertia(0, 0) + b.mass * (b.position.y() * b.position.y() + b.position.z() * b.position.z());
  CHECK(mbtest::is_close(lean_mass, 80.81722, 1e-12));
  CHECK(mbtest::is_close(mb::BicycleParams{}.lean_mass(), published().M(0, 0), 1e-12));
  // upright, every body at the forward speed, the wheels spinning at v / r about their axles
  const mb::State s = mb::initial_state(m);
  for (const auto& b : s.bodies) CHECK((b.v - mb::Vec3(5, 0, 0)).norm() < 1e-14);
  CHECK((s.bodies[0].w - mb::Vec3(0, -5 / 0.3, 0)).norm() < 1e-13);
  CHECK((s.bodies[3].w - mb::Vec3(0, -5 / 0.35, 0)).norm() < 1e-13);
  CHECK(s.bodies[1].w.norm() < 1e-14);
  const auto [pe, ve] = constraint_errors(m, s);
  CHECK(pe < 1e-15);
  CHECK(ve < 1e-13);
  // the rolling rows are a feature: ref claims it, the others refuse the model by its name
  CHECK((mb::model_features(m) & mb::kRolling) != 0);
  CHECK(mb::unsupported_reason(mb::find_method(mb::reference_method_name())->info, m).empty());
  CHECK_THAT(mb::unsupported_reason(mb::find_method("GC4")->info, m), Catch::Contains("rolling constraints"));
}

TEST_CASE("bicycle: a leaned, steered, moving state holds every constraint and reads back", "[whipple][bicycle]") {
  const mb::BicycleParams p;
  for (const mb::BicycleCoordinates z : {mb::BicycleCoordinates{0.1, 0, 0, 0.5}, mb::BicycleCoordinates{0.05, 0.1, 0.2, -0.3},
                                         mb::BicycleCoordinates{-0.3, -0.4, 1, 2}}) {
    const mb::Model m = mb::make_bicycle(p, 3, 0, 0, "bicycle");
    const mb::State s = mb::bicycle_state(p, z, 3);
    const auto [pe, ve] = constraint_errors(m, s);
    INFO("lean " << z.lean << ", steer " << z.steer);
    CHECK(pe < 1e-14);
    CHECK(ve < 1e-12);
    const mb::BicycleCoordinates back = mb::bicycle_coordinates(p, s);
    CHECK(mbtest::is_close(back.lean, z.lean, 1e-14));
    CHECK(mbtest::is_close(back.steer, z.steer, 1e-14));
    CHECK(mbtest::is_close(back.lean_rate, z.lean_rate, 1e-13));
    CHECK(mbtest::is_close(back.steer_rate, z.steer_rate, 1e-13));
  }
  const mb::Model leaned = mb::build_model("bicycle:v=4,lean0=0.1,steer_rate0=0.5");
  const mb::BicycleCoordinates z0 = mb::bicycle_coordinates(p, mb::initial_state(leaned));
  CHECK(mbtest::is_close(z0.lean, 0.1, 1e-15));
  CHECK(mbtest::is_close(z0.steer_rate, 0.5, 1e-14));
}

TEST_CASE("bicycle: the rolling rows' velocity product is the rate of J along the motion", "[whipple][bicycle]") {
  // d/dt (J V) with V held = Jdot V: central differences of J at the poses moved by +-dt along V
  const mb::BicycleParams p;
  const mb::Model m = mb::make_bicycle(p, 4, 0, 0, "bicycle");
  const mb::State s = mb::bicycle_state(p, {0.2, 0.3, 0.7, -1.1}, 4);
  mb::ConstraintSystem cs(m);
  cs.update(m, s);
  Eigen::VectorXd jdv;
  mb::velocity_product(m, s, cs, mb::RodForm::Length, jdv);
  auto moved = [&](double dt) {
    mb::State t = s;
    for (auto& b : t.bodies) {
      b.x += dt * b.v;
      b.q = (mb::Quat(Eigen::AngleAxisd(b.w.norm() * dt, b.w.normalized())) * b.q).normalized();
    }
    mb::ConstraintSystem c(m);
    c.update(m, t);
    Eigen::VectorXd e;
    c.velocity_error(s, e);  // the velocities of s on the moved pose's rows
    return e;
  };
  const double dt = 1e-5;
  const Eigen::VectorXd fd = (moved(dt) - moved(-dt)) / (2 * dt);
  for (const mb::JointBlock& b : cs.blocks()) {
    if (b.rolling < 0) continue;
    INFO("rolling " << b.rolling << ": " << jdv.segment<3>(b.row).transpose() << " vs " << fd.segment<3>(b.row).transpose());
    CHECK((jdv.segment<3>(b.row) - fd.segment<3>(b.row)).norm() <= 1e-7 * std::max(1.0, fd.segment<3>(b.row).norm()));
    CHECK(jdv.segment<3>(b.row).norm() > 1e-2);  // the term is there to check (0.77 and 0.021)
  }
}

TEST_CASE("bicycle: ref's linearization gives the published eigenvalues at v = 0 to 10", "[whipple][bicycle][reference]") {
  const mb::WhippleMatrices w = published();
  const mb::BicycleParams p;
  double worst = 0;
  for (int v = 0; v <= 10; ++v) {
    const Eigen::Matrix4d A = mb::bicycle_linearization(p, v), Apub = mb::whipple_state_matrix(w, v);
    INFO("v = " << v << "\nours\n" << A << "\npublished\n" << Apub);
    CHECK((A - Apub).cwiseAbs().maxCoeff() <= 1e-8 * Apub.cwiseAbs().maxCoeff());
    const auto e = mb::eigenvalues4(A), ep = mb::eigenvalues4(Apub);
    for (size_t k = 0; k < 4; ++k) {
      const double err = std::abs(e[k] - ep[k]) / std::max(1.0, std::abs(ep[k]));
      worst = std::max(worst, err);
      CHECK(err <= 1e-10);
    }
  }
  WARN("ref's linearization: largest eigenvalue difference from the published matrices' at v = 0..10: " << worst
                                                                                                       << " (relative, absolute below 1)");
  auto A = [&](double v) { return mb::bicycle_linearization(p, v); };
  const double vw = mb::weave_speed(A, 3, 5), vc = mb::capsize_speed(A, 5, 7);
  WARN("ref's v_w = " << std::setprecision(16) << vw << ", v_c = " << vc);
  CHECK(std::abs(vw - paper()["speeds"]["weave"].value_or(0.0)) <= 1e-9);
  CHECK(std::abs(vc - paper()["speeds"]["capsize"].value_or(0.0)) <= 1e-9);
}

namespace {

// The sweeps of a motion's steps and the largest errors of the rolling rows after a step: the
// holonomic row's height (m), the nonholonomic rows' velocity (m/s), at the steps' end states
struct MotionStats {
  long steps = 0, pos_sweeps = 0, vel_sweeps = 0;
  double height = 0, slip = 0;
};

// (phi, delta, phi', delta') at t = 0 and after every `every` steps of h up to t_end
std::vector<Eigen::Vector4d> bicycle_motion(const std::string& spec, const std::string& method, double h, long every, double t_end,
                                            MotionStats* stats = nullptr) {
  const mb::Model m = mb::build_model(spec);
  auto meth = mb::make_method(method);
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  const mb::BicycleParams p;
  std::vector<Eigen::Vector4d> z;
  auto read = [&] {
    const mb::BicycleCoordinates c = mb::bicycle_coordinates(p, s);
    z.emplace_back(c.lean, c.steer, c.lean_rate, c.steer_rate);
  };
  read();
  const long n = std::lround(t_end / h);
  mb::ConstraintSystem cs(m);
  Eigen::VectorXd e, ev;
  for (long i = 1; i <= n; ++i) {
    mb::StepStats st;
    meth->step(m, s, h, st);
    if (i % every == 0) read();
    if (!stats) continue;
    ++stats->steps;
    stats->pos_sweeps += st.pos_iterations;
    stats->vel_sweeps += st.vel_iterations;
    cs.update(m, s);
    cs.position_error(m, s, e);
    cs.velocity_error(s, ev);
    for (const mb::JointBlock& b : cs.blocks()) {
      if (b.rolling < 0) continue;
      stats->height = std::max(stats->height, std::abs(e[b.row]));
      stats->slip = std::max(stats->slip, ev.segment<2>(b.row + 1).norm());
    }
  }
  return z;
}

double max_abs_lean(const std::vector<Eigen::Vector4d>& z, size_t from, size_t to) {
  double m = 0;
  for (size_t k = from; k < to && k < z.size(); ++k) m = std::max(m, std::abs(z[k][0]));
  return m;
}

}  // namespace

TEST_CASE("bicycle: the eigenvalues identified from LMVD4's and ref's motion at v = 5", "[whipple][bicycle][lagrange]") {
  // a small perturbation (lean 1e-6 rad, steer rate 1e-5 rad/s: the lateral equations are odd, so
  // the nonlinear terms are 1e-10 of the linear ones), sampled every 10 ms over 2 s
  const auto published_e = mb::eigenvalues4(mb::whipple_state_matrix(published(), 5));
  const std::string spec = "bicycle:v=5,lean0=1e-6,steer_rate0=1e-5";
  const double lmvd4 = mb::eigenvalue_error(mb::identified_eigenvalues(bicycle_motion(spec, "LMVD4", 1e-3, 10, 2), 0.01), published_e);
  const double ref = mb::eigenvalue_error(mb::identified_eigenvalues(bicycle_motion(spec, "ref", 0.01, 1, 2), 0.01), published_e);
  WARN("eigenvalue error identified from the motion over 2 s: LMVD4 at h = 1 ms " << lmvd4 << ", ref " << ref);
  CHECK(lmvd4 <= 1e-8);  // the goal is 1e-4
  CHECK(ref <= 1e-10);
  // a wrong eigenvalue is seen: the same fit against the matrices at v = 4.9
  CHECK(mb::eigenvalue_error(mb::identified_eigenvalues(bicycle_motion(spec, "ref", 0.01, 1, 2), 0.01),
                             mb::eigenvalues4(mb::whipple_state_matrix(published(), 4.9))) > 1e-3);
}

TEST_CASE("bicycle: LMVD4 converges to ref with order 4 on the bicycle", "[whipple][bicycle][lagrange]") {
  // the lean and steer at t = 1 s after a lean of 0.05 rad at v = 5, h = 4, 2, 1 ms
  const std::string spec = "bicycle:v=5,lean0=0.05";
  const Eigen::Vector4d exact = bicycle_motion(spec, "ref", 1, 1, 1).back();
  std::vector<double> err;
  for (double h : {4e-3, 2e-3, 1e-3}) err.push_back((bicycle_motion(spec, "LMVD4", h, 1, 1).back() - exact).head<2>().norm());
  const double o1 = std::log2(err[0] / err[1]), o2 = std::log2(err[1] / err[2]);
  WARN("LMVD4 on bicycle:v=5,lean0=0.05 at t = 1 s: errors " << err[0] << ", " << err[1] << ", " << err[2] << " rad; orders " << o1
                                                            << ", " << o2);
  CHECK(std::abs(o2 - 4) <= 0.3);
  CHECK(err[2] <= 1e-9);
}

TEST_CASE("bicycle: LMVD4 shows the self-stability of the benchmark bicycle at v = 5 and not at v = 3", "[whipple][bicycle][lagrange]") {
  // samples every 0.1 s; v = 5: the slowest mode (capsize, -0.32/s) decays by 0.27 over 4 s; v = 3:
  // the weave (+1.71/s) grows
  const auto fast = bicycle_motion("bicycle:v=5,lean0=0.01", "LMVD4", 1e-3, 100, 5);
  CHECK(max_abs_lean(fast, 40, 51) < 0.5 * max_abs_lean(fast, 0, 11));
  const auto slow = bicycle_motion("bicycle:v=3,lean0=0.01", "LMVD4", 1e-3, 100, 2);
  CHECK(max_abs_lean(slow, 15, 21) > 2 * max_abs_lean(slow, 0, 6));
  // the methods without them refuse the rolling rows by name; lagrange with another solver too
  for (const char* name : {"tomcin", "particles", "GC4"})
    CHECK_THAT(mb::unsupported_reason(mb::find_method(name)->info, mb::build_model("bicycle")), Catch::Contains("rolling constraints"));
  const mb::Model m = mb::build_model("bicycle");
  auto sparse = mb::make_method("LMVD4:solver=cholmod");
  CHECK_THROWS_WITH(sparse->init(m, mb::initial_state(m)), Catch::Contains("rolling constraints need solver=lu"));
}

namespace {

// the impulse methods with tolerances tight beside the motions below (lean 1e-3 rad: contact
// displacements of about 1e-3 m)
const char* const kImpulse[] = {"iterative", "sle", "linear"};
std::string tight(const std::string& method) { return method + ":tol_p=1e-12,tol_v=1e-12"; }

}  // namespace

TEST_CASE("bicycle: the impulse methods hold the rolling rows to their tolerances", "[whipple][bicycle][impulse]") {
  // 20 steps of 1 ms: after every step the holonomic row's height within tol_p, the nonholonomic
  // rows' slip velocity within tol_v (uncorrected, the slip reaches about 1e-3 m/s in a step)
  for (const char* name : kImpulse) {
    CHECK(mb::unsupported_reason(mb::find_method(name)->info, mb::build_model("bicycle")).empty());
    MotionStats st;
    bicycle_motion("bicycle:v=5,lean0=1e-3,steer_rate0=1e-2", tight(name), 1e-3, 1, 0.02, &st);
    WARN(name << ": largest contact height " << st.height << " m, slip " << st.slip << " m/s; sweeps per step: position "
              << static_cast<double>(st.pos_sweeps) / st.steps << ", velocity " << static_cast<double>(st.vel_sweeps) / st.steps);
    CHECK(st.steps == 20);
    CHECK(st.height <= 1e-12);
    CHECK(st.slip <= 1e-12);
  }
}

// The wheels' sideways rows in the look-ahead position correction (rolling=trapezoid, the
// default) give the stated order 2; in the velocity correction alone (rolling=velocity) their force
// enters the positions a step late (about h^2/2 M^-1 J^T lambda a step): order 1. The three
// correctors reach the same fixed point (their numbers agree to 1e-9), about 10 s each in Release:
// run by name, build/release/tests/mbbench_tests "[whipple-impulse]".
TEST_CASE("bicycle: the impulse methods' identified eigenvalues at v = 5", "[.whipple-impulse]") {
  // lean 1e-3 rad and steer rate 1e-2 rad/s (the nonlinear terms 1e-6 of the linear ones), sampled
  // every 10 ms over 2 s at h = 1 ms
  const auto published_e = mb::eigenvalues4(mb::whipple_state_matrix(published(), 5));
  const std::string spec = "bicycle:v=5,lean0=1e-3,steer_rate0=1e-2";
  for (const char* name : kImpulse) {
    MotionStats st;
    const double err = mb::eigenvalue_error(mb::identified_eigenvalues(bicycle_motion(spec, tight(name), 1e-3, 10, 2, &st), 0.01), published_e);
    WARN(name << " at h = 1 ms: eigenvalue error " << err << "; sweeps per step: position "
              << static_cast<double>(st.pos_sweeps) / st.steps << ", velocity " << static_cast<double>(st.vel_sweeps) / st.steps
              << "; largest contact height " << st.height << " m, slip " << st.slip << " m/s");
    CHECK(err <= 1e-4);  // the goal (measured 5.8e-5; 1.02e-2 with rolling=velocity)
    CHECK(err >= 1e-6);  // an O(h^2) method: an error far below says the fit compares the wrong thing
    CHECK(st.height <= 1e-12);
    CHECK(st.slip <= 1e-12);
  }
}

TEST_CASE("bicycle: the impulse methods' order on the bicycle", "[.whipple-impulse]") {
  const std::string spec = "bicycle:v=5,lean0=0.05";
  const Eigen::Vector4d exact = bicycle_motion(spec, "ref", 1, 1, 1).back();
  auto orders = [&](const std::string& method) {
    std::vector<double> err;
    for (double h : {4e-3, 2e-3, 1e-3}) err.push_back((bicycle_motion(spec, method, h, 1, 1).back() - exact).head<2>().norm());
    const double o1 = std::log2(err[0] / err[1]), o2 = std::log2(err[1] / err[2]);
    WARN(method << " on " << spec << " at t = 1 s: errors " << err[0] << ", " << err[1] << ", " << err[2] << " rad; orders " << o1
                << ", " << o2);
    return o2;
  };
  for (const char* name : kImpulse) CHECK(std::abs(orders(tight(name)) - 2) <= 0.2);  // measured 1.9999
  CHECK(std::abs(orders(tight("sle") + ",rolling=velocity") - 1) <= 0.2);            // measured 1.02
}

TEST_CASE("bicycle: the impulse methods show the self-stability at v = 5 and not at v = 3", "[.whipple-impulse]") {
  // the default tolerances; v = 5: the slowest mode (capsize, -0.32/s) decays; v = 3: the weave grows
  for (const char* name : kImpulse) {
    INFO(name);
    const auto fast = bicycle_motion("bicycle:v=5,lean0=0.01", name, 1e-3, 100, 5);
    CHECK(max_abs_lean(fast, 40, 51) < 0.5 * max_abs_lean(fast, 0, 11));
    const auto slow = bicycle_motion("bicycle:v=3,lean0=0.01", name, 1e-3, 100, 2);
    CHECK(max_abs_lean(slow, 15, 21) > 2 * max_abs_lean(slow, 0, 6));
    WARN(name << ": lean over 4..5 s / over 0..1 s at v = 5: " << max_abs_lean(fast, 40, 51) / max_abs_lean(fast, 0, 11)
              << "; over 1.5..2 s / over 0..0.5 s at v = 3: " << max_abs_lean(slow, 15, 21) / max_abs_lean(slow, 0, 6));
  }
}

TEST_CASE("bicycle: appendix A's formulas give the published matrices and the model's modes", "[whipple][bicycle]") {
  const mb::WhippleMatrices ours = mb::whipple_matrices(mb::BicycleParams{}), pub = published();
  const std::vector<std::pair<Eigen::Matrix2d, Eigen::Matrix2d>> pairs = {{ours.M, pub.M}, {ours.C1, pub.C1}, {ours.K0, pub.K0}, {ours.K2, pub.K2}};
  for (const auto& [a, b] : pairs) {
    INFO("ours\n" << a << "\npublished\n" << b);
    CHECK((a - b).cwiseAbs().maxCoeff() <= 1e-13);  // the published entries have 14 decimals
  }
  // the model carries the published linearization's eigenvalues at its speed (eig_err's reference)
  const mb::Model m = mb::build_model("bicycle:v=3");
  REQUIRE(m.info.modes);
  CHECK(m.info.modes->v == 3);
  const auto e = mb::eigenvalues4(mb::whipple_state_matrix(pub, 3));
  for (size_t k = 0; k < 4; ++k) CHECK(std::abs(m.info.modes->eigenvalues[k] - e[k]) <= 1e-12 * std::abs(e[k]));
}

TEST_CASE("eig_err: the metric on LMVD4's motion at v = 5 and where it does not apply", "[whipple][bicycle][metrics]") {
  const mb::Model m = mb::build_model("bicycle:v=5,lean0=1e-6,steer_rate0=1e-5");
  mb::RunConfig cfg;
  cfg.h = 2e-3;
  cfg.duration = 2;
  const mb::CaseRecord r = mb::run_case(m, "LMVD4", cfg);
  const auto err = r.metrics.get(mb::metric::eig_err);
  REQUIRE(err);
  WARN("eig_err of LMVD4 at h = 2 ms, v = 5: " << *err);
  CHECK(*err <= 1e-6);
  // the identified weave pair is the published one (-0.775 +- 4.465i, Table 2 (b))
  CHECK(mbtest::is_close(*r.metrics.get(mb::metric::eig_im[2]), 4.46486771378823, 1e-6));
  CHECK(mbtest::is_close(*r.metrics.get(mb::metric::eig_re[2]), -0.775341882195850, 1e-6));
  // a step that does not divide the 16 ms interval, a run shorter than 2 s: a note, no value
  cfg.h = 3e-3;
  const mb::CaseRecord odd = mb::run_case(m, "LMVD4", cfg);
  CHECK(!odd.metrics.get(mb::metric::eig_err));
  CHECK_THAT(*odd.metrics.note_of(mb::metric::eig_err), Catch::Contains("does not divide"));
  cfg.h = 4e-3;
  cfg.duration = 1;
  CHECK_THAT(*mb::run_case(m, "LMVD4", cfg).metrics.note_of(mb::metric::eig_err), Catch::Contains("ended before"));
  // a model without modes has no eig_err
  CHECK(!mb::run_case(mb::build_model("pendulum90"), "LMVD4", cfg).metrics.note_of(mb::metric::eig_err));
}

namespace {

// a record of `method` on the bicycle at v with eig_err = err and the published eigenvalues
mb::CaseRecord modes_record(const std::string& method, double v, double h, double err) {
  mb::CaseRecord r;
  r.model.spec = r.model.name = "bicycle:v=" + std::to_string(v);
  r.method.spec = r.method.name = method;
  r.h = r.h_requested = h;
  r.duration = 2;
  r.experiment = mb::ExperimentRef{};
  r.experiment->name = "unit";
  r.experiment->metrics = {mb::metric::eig_err};
  const auto e = mb::eigenvalues4(mb::whipple_state_matrix(published(), v));
  r.metrics.set(mb::metric::eig_err, err);
  r.metrics.set(mb::metric::eig_v, v);
  for (size_t k = 0; k < 4; ++k) {
    r.metrics.set(mb::metric::eig_re[k], e[k].real());
    r.metrics.set(mb::metric::eig_im[k], e[k].imag());
  }
  return r;
}

}  // namespace

TEST_CASE("meijaard2007 section: ref's linearization and each method's eig_err beside the published, with verdicts", "[whipple][report]") {
  std::vector<mb::CaseRecord> recs;
  for (double v : {4.0, 5.0})
    for (double h : {0.004, 0.008, 0.016}) {
      recs.push_back(modes_record("good", v, h, 1e-2 * std::pow(h / 0.016, 4)));
      recs.push_back(modes_record("bad", v, h, v == 5 && h == 0.004 ? 2e-4 : 1e-5));
    }
  recs.push_back(modes_record("good", 5, 0.001, 1e-11));  // below the floor: not in the order's fit
  const mb::ReportData d = mb::analyse(recs, mb::read_paper(kPaper));
  REQUIRE(d.modes);
  const mb::ModesAnalysis& m = *d.modes;
  CHECK((m.v == std::vector<double>{4, 5}));
  CHECK(m.ref_within);
  CHECK(m.ref_err_max <= mb::kModesRefTolerance);
  CHECK(m.speeds_within);
  CHECK(std::abs(m.weave_ref - 4.29238253634111) <= 1e-9);
  CHECK(std::abs(m.capsize_published - 6.02426201538837) <= 1e-12);
  REQUIRE(m.methods.size() == 2);
  const mb::ModesMethod &bad = m.methods[0], &good = m.methods[1];
  CHECK(good.method == "good");
  CHECK(good.within);
  REQUIRE(good.order);
  CHECK(std::abs(good.order->order - 4) <= 1e-9);
  CHECK(good.order->points == 3);
  CHECK(!bad.within);
  CHECK(bad.worst == 2e-4);
  CHECK(bad.worst_v == 5);
  // the verdicts: ref's two rows reproduced, "bad" differs by name
  const mb::TextTable v = mb::verdict_table(mb::outcomes(d, {}));
  int differs = 0;
  for (const auto& row : v.rows)
    if (row[2].text == "differs") {
      ++differs;
      CHECK_THAT(row[1].text, Catch::Contains("bad"));
      CHECK_THAT(row[3].text, Catch::Contains("2.00e-04"));
    }
  CHECK(differs == 1);
  // the section's tables: every speed, every method, no bare "-"
  const auto tables = mb::modes_tables(d);
  REQUIRE(tables.size() == 3);
  CHECK(tables[0].rows.size() == 2);
  CHECK(tables[0].header.size() == 5);
  for (const auto& t : tables)
    for (const auto& row : t.rows) {
      CHECK(row.size() == t.header.size());
      for (const auto& c : row) CHECK((c.text != "-" && !c.text.empty()));
    }
}

namespace {

// the lean of a sampled state: the rear frame's (body 1) y axis, e = q * (0, 1, 0), lean = asin(e_z)
double sampled_lean(const mb::Sample& s) {
  const auto& q = s.orientations[1];
  return std::asin(2 * (q[2] * q[3] + q[0] * q[1]));
}

}  // namespace

TEST_CASE("bicycle: contact wheels replace the rolling rows and start from the same state", "[whipple][bicycle]") {
  const mb::Model rolling = mb::build_model("bicycle:v=5,lean0=1e-6,steer_rate0=1e-5");
  for (const char* wheels : {"cylinder", "ellipsoid"}) {
    INFO(wheels);
    const mb::Model m = mb::build_model(std::string("bicycle:v=5,lean0=1e-6,steer_rate0=1e-5,wheels=") + wheels);
    CHECK(m.rolling.empty());
    REQUIRE(m.shapes.size() == 3);
    REQUIRE(m.materials.size() == 1);
    CHECK(m.materials[0].mu_static == 1);
    CHECK(m.materials[0].mu_dynamic == 1);
    CHECK(m.materials[0].restitution == 0);
    CHECK(m.shapes[0].type == mb::ShapeType::HalfSpace);
    CHECK(m.shapes[0].body == mb::kWorld);
    // the floor's normal (its y axis) points up, -z: the ground under the wheels
    CHECK((m.shapes[0].orientation * mb::Vec3::UnitY() - mb::Vec3(0, 0, -1)).norm() < 1e-15);
    REQUIRE(m.bodies.size() == rolling.bodies.size());
    for (size_t k = 0; k < m.bodies.size(); ++k) {
      CHECK(m.bodies[k].position == rolling.bodies[k].position);
      CHECK(m.bodies[k].velocity == rolling.bodies[k].velocity);
      CHECK(m.bodies[k].angular_velocity == rolling.bodies[k].angular_velocity);
    }
    // each tyre's lowest point touches the floor z = 0: the centre rR (rF) above it, the wheel's
    // plane upright to 1e-6 rad, its radius along the shape's axis across the axle
    for (size_t s = 1; s <= 2; ++s) {
      const mb::Shape& t = m.shapes[s];
      const mb::Body& b = m.bodies[static_cast<size_t>(t.body)];
      const double r = t.type == mb::ShapeType::Cylinder ? t.radius : t.half_extents.x();
      CHECK(std::abs(b.position.z() + r) < 1e-6 * r);
      CHECK(std::abs(t.type == mb::ShapeType::Cylinder ? t.length : 2 * t.half_extents.y()) == 0.02);
      // the shape's axis across the tyre is the axle, the body's y
      const mb::Vec3 across = t.type == mb::ShapeType::Cylinder ? mb::Vec3(t.orientation * mb::Vec3::UnitZ()) : mb::Vec3::UnitY();
      CHECK((across - mb::Vec3::UnitY()).norm() < 1e-15);
    }
    CHECK_THAT(m.info.description, Catch::Contains(wheels));
    CHECK(m.info.modes);
  }
}

TEST_CASE("bicycle: contact wheels at v = 5 - MuJoCo's weave is damped by its soft contact and our iterative's is close", "[whipple][bicycle][full]") {
  // measured (docs/findings.md, scripts/bicycle-peers.py): the published weave is -0.775 +- 4.465i
  const double weave_re = -0.775341882195850, weave_im = 4.46486771378823;
  const std::string spec = "bicycle:v=5,lean0=1e-6,steer_rate0=1e-5,wheels=ellipsoid";
  const mb::Model m = mb::build_model(spec);
  mb::RunConfig cfg;
  cfg.h = 1e-3;
  cfg.duration = 10;
  cfg.samples = {1, 10};
  cfg.ref_error = false;
  auto weave = [](const mb::CaseRecord& r) {
    return std::complex<double>(*r.metrics.get(mb::metric::eig_re[2]), *r.metrics.get(mb::metric::eig_im[2]));
  };
  auto lean_decays = [](const mb::CaseRecord& r) {
    REQUIRE(r.samples.size() == 2);
    return std::abs(sampled_lean(r.samples[1])) < 0.3 * std::abs(sampled_lean(r.samples[0]));
  };
  const mb::CaseRecord soft = mb::run_case(m, "mujoco", cfg);
  REQUIRE(soft.ok());
  const auto soft_err = soft.metrics.get(mb::metric::eig_err);
  REQUIRE(soft_err);
  WARN("mujoco (contact_timeconst 0.02 s) at h = 1 ms: eig_err " << *soft_err << ", weave " << weave(soft));
  CHECK(std::isfinite(*soft_err));
  CHECK(lean_decays(soft));
  // the frequency within 2 %, the decay rate more than 1.5 times the published one
  CHECK(std::abs(weave(soft).imag() - weave_im) < 0.02 * weave_im);
  CHECK(weave(soft).real() < 1.5 * weave_re);
  // a stiffer contact (time constant 4 ms) comes closer
  const mb::CaseRecord stiff = mb::run_case(m, "mujoco:contact_timeconst=0.004", cfg);
  REQUIRE(stiff.ok());
  const double stiff_err = *stiff.metrics.get(mb::metric::eig_err);
  WARN("mujoco (contact_timeconst 0.004 s): eig_err " << stiff_err << ", weave " << weave(stiff));
  CHECK(stiff_err < *soft_err / 3);
  CHECK(std::abs(weave(stiff) - std::complex<double>(weave_re, weave_im)) < std::abs(weave(soft) - std::complex<double>(weave_re, weave_im)) / 3);
  // our iterative impulse method on the same shapes (the fit's 2 s): within 2 % of every published
  // eigenvalue
  cfg.duration = 2;
  cfg.samples.clear();
  const mb::CaseRecord ours = mb::run_case(m, "iterative", cfg);
  REQUIRE(ours.ok());
  const double ours_err = *ours.metrics.get(mb::metric::eig_err);
  WARN("iterative at h = 1 ms: eig_err " << ours_err << ", weave " << weave(ours));
  CHECK(ours_err < 0.02);
}

TEST_CASE("bicycle: the engines refuse rolling wheels - simbody by name with the cause", "[whipple][bicycle][peers]") {
  const mb::Model m = mb::build_model("bicycle:v=5");
  const std::string why = mb::unsupported_reason(mb::make_method("simbody")->info(), m);
  CHECK_THAT(why, Catch::Contains("does not support rolling constraints"));
  CHECK_THAT(why, Catch::Contains("body-fixed points"));
  // another engine's refusal names the feature only; the contact wheels are taken
  const std::string ode = mb::unsupported_reason(mb::make_method("ode")->info(), m);
  CHECK_THAT(ode, Catch::Contains("does not support rolling constraints"));
  CHECK_THAT(ode, !Catch::Contains("body-fixed"));
  CHECK(mb::unsupported_reason(mb::make_method("ode")->info(), mb::build_model("bicycle:v=5,wheels=cylinder")).empty());
}
