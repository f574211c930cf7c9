// Imp2 .. Imp10 (schmitt2005 s.2-3): the extrapolation weights, the orders they give for known
// forces, the angular velocity of a free rigid body, and the methods on the pendulum.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>

#include <boost/numeric/odeint/integrate/integrate_adaptive.hpp>
#include <boost/numeric/odeint/stepper/controlled_runge_kutta.hpp>
#include <boost/numeric/odeint/stepper/generation.hpp>
#include <boost/numeric/odeint/stepper/runge_kutta_fehlberg78.hpp>

#include "methods/higher_order/weights.hpp"
#include "models/kinematics.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

TEST_CASE("the extrapolation weights equal the printed ones", "[methods][imp][weights]") {
  // schmitt2005 s.2
  const std::vector<std::vector<long double>> printed = {
      {1.0L},
      {-1.0L / 3, 4.0L / 3},
      {5.0L / 120, -128.0L / 120, 243.0L / 120},
      {-1.0L / 360, 16.0L / 45, -729.0L / 280, 1024.0L / 315},
      {1.0L / 8640, -64.0L / 945, 6561.0L / 4480, -16384.0L / 2835, 390625.0L / 72576}};
  for (int k = 1; k <= 5; ++k) {
    const auto w = mb::extrapolation_weights(k);
    REQUIRE(w.size() == static_cast<size_t>(k));
    for (int n = 0; n < k; ++n) CHECK(std::fabs(w[n] - printed[k - 1][n]) <= 1e-17L * std::fabs(printed[k - 1][n]));
    // the combination is exact for every power i <= 2k - 2 (the even ones follow from the odd ones)
    for (int i = 0; i <= 2 * k - 2; ++i) {
      long double s = 0;
      for (int n = 1; n <= k; ++n) s += w[n - 1] * mb::middle_step_coefficient(n, i);
      CHECK(std::fabs(s - 1.0L / ((i + 1) * (i + 2))) < 1e-15L);
    }
  }
}

namespace {

// a free particle (m = 1) under F(t) = sum a_i t^i, i = 0..9, from p(0) = 0, v(0) = 1
const std::array<long double, 10> kA = {1.0L, -2.0L, 1.5L, 3.0L, -1.0L, 2.0L, -0.5L, 1.0L, 0.7L, -1.3L};

long double impulse(long double t0, long double t1) {  // integral of F over [t0, t1]
  long double s = 0;
  for (int i = 0; i < 10; ++i) s += kA[i] * (std::pow(t1, i + 1) - std::pow(t0, i + 1)) / (i + 1);
  return s;
}
long double exact(long double h) {
  long double s = h;
  for (int i = 0; i < 10; ++i) s += kA[i] * std::pow(h, i + 2) / ((i + 1) * (i + 2));
  return s;
}
// n middle steps: the impulse of each sub-interval applied at its middle (schmitt2005 s.2)
long double p_n(int n, long double h) {
  long double s = h;
  for (int j = 1; j <= n; ++j) s += (2.0L * (n - j) + 1) * h / (2.0L * n) * impulse((j - 1) * h / n, j * h / n);
  return s;
}
long double combined_error(int k, long double h) {
  const auto w = mb::extrapolation_weights(k);
  long double p = 0;
  for (int n = 1; n <= k; ++n) p += w[n - 1] * p_n(n, h);
  return std::fabs(p - exact(h));
}

}  // namespace

TEST_CASE("extrapolated middle steps are exact to the order the paper states for known forces", "[methods][imp][weights]") {
  // p_1 error O(h^3), p_1+2 O(h^5), ..., p_1+...+5 O(h^11) (long double)
  for (int k = 1; k <= 5; ++k) {
    const long double h = k <= 3 ? 0.05L : 0.2L;
    const double order = static_cast<double>(std::log2(combined_error(k, h) / combined_error(k, h / 2)));
    INFO("k = " << k << ": observed order " << order << " (claim " << 2 * k + 1 << ")");
    CHECK(std::abs(order - (2 * k + 1)) < 0.3);
  }
}

namespace {

// torque-free rigid body: exact angular velocity (world frame) after h, by RKF78 at 1e-14
mb::Vec3 exact_omega(const mb::Body& b, double h) {
  using S = std::vector<double>;
  const mb::Mat3 J = b.inertia, Ji = J.inverse();
  const mb::Vec3 wb = b.orientation.conjugate() * b.angular_velocity;
  S x = {wb.x(), wb.y(), wb.z(), b.orientation.w(), b.orientation.x(), b.orientation.y(), b.orientation.z()};
  // (a std::vector state: with std::array odeint's stepper copy trips gcc's -Wuninitialized)
  auto rhs = [&](const S& s, S& d, double) {
    const mb::Vec3 w(s[0], s[1], s[2]);
    const mb::Quat q(s[3], s[4], s[5], s[6]);
    const mb::Vec3 dw = Ji * (-w.cross(J * w));
    const mb::Quat dq = q * mb::Quat(0, w.x(), w.y(), w.z());
    d = {dw.x(), dw.y(), dw.z(), 0.5 * dq.w(), 0.5 * dq.x(), 0.5 * dq.y(), 0.5 * dq.z()};
  };
  namespace odeint = boost::numeric::odeint;
  odeint::integrate_adaptive(odeint::make_controlled(1e-15, 1e-15, odeint::runge_kutta_fehlberg78<S>()), rhs, x, 0.0, h, h / 64);
  return mb::Quat(x[3], x[4], x[5], x[6]).normalized() * mb::Vec3(x[0], x[1], x[2]);
}

}  // namespace

TEST_CASE("Imp4 extrapolates the angular velocity of a free asymmetric body to order >= 4.5", "[methods][imp]") {
  mb::Model m;
  m.gravity = mb::Vec3::Zero();
  mb::Body b = mb::make_box("box", 0.3, 0.1, 600);
  b.inertia(0, 0) *= 1.7;  // three distinct moments
  b.angular_velocity = mb::Vec3(3, 5, 7);
  b.orientation = mb::Quat(Eigen::AngleAxisd(0.4, mb::Vec3(1, 2, 3).normalized()));
  m.bodies.push_back(b);
  auto local_error = [&](double h) {
    auto method = mb::make_method("Imp4");
    mb::State s = mb::initial_state(m);
    method->init(m, s);
    mb::StepStats st;
    method->step(m, s, h, st);
    return (s.bodies[0].w - exact_omega(b, h)).norm();
  };
  const double e1 = local_error(0.02), e2 = local_error(0.01);
  INFO("angular velocity error after one step: " << e1 << " at h = 0.02, " << e2 << " at h = 0.01, order " << std::log2(e1 / e2));
  CHECK(std::log2(e1 / e2) >= 4.5);
}

TEST_CASE("Imp2..Imp10 on pendulum10: location error falls with the order, each converges to ref", "[methods][imp][order]") {
  const mb::Model m = mb::build_model("pendulum10");
  const double T = *m.info.period;
  const long k = std::lround(T / 0.01);  // h = T/k close to 0.01
  double previous = 1e300;
  const mb::State ref1 = mbtest::simulate(m, "ref", 0.05, 1.0);
  for (const char* name : {"Imp2", "Imp4", "Imp6", "Imp8", "Imp10"}) {
    // location error at t = 5T
    const mb::State s = mbtest::simulate(m, name, T / k, 5 * T);
    const double loc = std::abs(s.bodies[0].x.x());
    INFO(name << ": |x(5T)| = " << loc);
    CHECK(loc < previous);
    previous = loc;
    // convergence to ref at t = 1 s over h = 0.02, 0.01, 0.005
    double e[3];
    const double hs[3] = {0.02, 0.01, 0.005};
    for (int i = 0; i < 3; ++i) e[i] = mbtest::max_position_difference(mbtest::simulate(m, name, hs[i], 1.0), ref1);
    INFO(name << ": errors " << e[0] << ", " << e[1] << ", " << e[2] << "; orders " << std::log2(e[0] / e[1]) << ", "
              << std::log2(e[1] / e[2]));
    CHECK(std::log2(e[0] / e[1]) >= 1.8);
    CHECK(std::log2(e[1] / e[2]) >= 1.8);
  }
}

TEST_CASE("Imp methods run on rigid-body trees with every inner solver", "[methods][imp]") {
  const mb::Model m = mb::build_model("tree:joints=7,anchor=ball");
  mb::State a = mbtest::simulate(m, "Imp4:solver=sle", 1.0 / 60, 0.25);
  mb::State b = mbtest::simulate(m, "Imp4:solver=linear", 1.0 / 60, 0.25);
  mb::State c = mbtest::simulate(m, "Imp4:solver=iterative", 1.0 / 60, 0.25);
  CHECK(mbtest::max_position_difference(a, b) < 1e-10);
  CHECK(mbtest::max_position_difference(a, c) < 1e-10);
  CHECK(mb::max_joint_error(m, a).pos < 1e-12);
}
