// The impulse-based methods (iterative, sle, linear): agreement, tolerances, order against ref,
// conservation, and the correction of a broken joint.
#include <array>
#include <cstring>
#include <random>

#include <boost/numeric/odeint/stepper/runge_kutta4_classic.hpp>
#include <catch2/catch.hpp>

#include "methods/bodies/free_motion.hpp"
#include "methods/impulse/impulse_method.hpp"
#include "methods/impulse/methods.hpp"
#include "metrics/observer.hpp"
#include "models/kinematics.hpp"
#include "sim/run_case.hpp"
#include "test_util.hpp"

namespace {

const char* const kImpulseMethods[] = {"iterative", "sle", "sle:solver=cholmod", "linear"};
const char* const kTightImpulseMethods[] = {"iterative:tol_p=1e-13,tol_v=1e-13", "sle:tol_p=1e-13,tol_v=1e-13",
                                            "sle:solver=cholmod,tol_p=1e-13,tol_v=1e-13", "linear:tol_p=1e-13,tol_v=1e-13"};

// steps `spec` over [0, t_end] and checks every joint error after every step against `bound`
mb::State run_checked(const mb::Model& m, const std::string& spec, double h, double t_end, double bound) {
  auto method = mb::make_method(spec);
  mb::State s = mb::initial_state(m);
  method->init(m, s);
  mb::StepStats st;
  const long n = std::lround(t_end / h);
  double worst = 0;
  for (long i = 1; i <= n; ++i) {
    method->step(m, s, h, st);
    s.t = static_cast<double>(i) * h;
    worst = std::max(worst, mb::max_joint_error(m, s).pos);
  }
  INFO(spec << " on " << m.info.name << ": worst joint error after a step " << worst);
  CHECK(worst <= bound);
  return s;
}

}  // namespace

TEST_CASE("the impulse methods reach the same state and keep every joint within tol_p", "[methods][impulse]") {
  const std::pair<const char*, double> models[] = {{"pendulum90", 0.005}, {"tree:joints=31", 1.0 / 30}, {"loop:n=8", 0.01}};
  for (auto [name, h] : models) {
    const mb::Model m = mb::build_model(name);
    std::vector<mb::State> end;
    for (const char* method : kImpulseMethods)
      end.push_back(run_checked(m, std::string(method) + (std::string(method).find(':') == std::string::npos ? ":" : ",") +
                                       "tol_p=1e-8,tol_v=1e-8",
                                   h, 1.0, 1e-8));
    for (size_t i = 1; i < end.size(); ++i) {
      double d = mbtest::max_position_difference(end[0], end[i]);
      INFO(name << ": " << kImpulseMethods[0] << " vs " << kImpulseMethods[i] << " differ by " << d << " m after 1 s");
      CHECK(d < 1e-5);
    }
  }
}

TEST_CASE("the impulse step converges to ref with order 2 on the pendulum", "[methods][impulse][order]") {
  const mb::Model m = mb::build_model("pendulum90");
  const mb::State ref = mbtest::simulate(m, "ref", 0.05, 1.0);
  for (const char* spec : {"iterative:tol_p=1e-12,tol_v=1e-12", "sle:tol_p=1e-12,tol_v=1e-12", "linear:tol_p=1e-12,tol_v=1e-12"}) {
    double e1 = mbtest::max_position_difference(mbtest::simulate(m, spec, 0.01, 1.0), ref);
    double e2 = mbtest::max_position_difference(mbtest::simulate(m, spec, 0.005, 1.0), ref);
    double order = std::log2(e1 / e2);
    INFO(spec << ": error(0.01) = " << e1 << ", error(0.005) = " << e2 << ", observed order " << order);
    CHECK(order > 1.8);
    CHECK(order < 2.3);
  }
}

// Relative change of linear and angular momentum of a free-floating zero-g tree over 1 s at step h,
// measured after the (external) torque pulse has ended.
std::pair<double, double> momentum_drift(const std::string& spec, double h) {
  mb::TreeParams p;
  p.joints = 31;
  p.g = 0;
  const mb::Model m = mb::make_tree(p, "tree-zero-g");
  auto method = mb::make_method(spec);
  mb::State s = mb::initial_state(m);
  method->init(m, s);
  mb::StepStats st;
  mb::Vec3 P0 = mb::Vec3::Zero(), L0 = mb::Vec3::Zero();
  double scale_p = 0, scale_l = 0, dp = 0, dl = 0;
  const long n = std::lround(1.0 / h);
  for (long i = 1; i <= n; ++i) {
    method->step(m, s, h, st);
    s.t = static_cast<double>(i) * h;
    if (s.t < 1.0 / 30 - 1e-12) continue;
    const mb::Vec3 P = mb::linear_momentum(m, s), L = mb::angular_momentum(m, s);
    if (scale_p == 0) {
      P0 = P, L0 = L;
      // the momenta of the moving parts set the scale
      for (size_t k = 0; k < m.bodies.size(); ++k) {
        scale_p += m.bodies[k].mass * s.bodies[k].v.norm();
        scale_l += (m.bodies[k].mass * s.bodies[k].x.cross(s.bodies[k].v) +
                    mb::world_inertia(m.bodies[k], s.bodies[k]) * s.bodies[k].w).norm();
      }
      continue;
    }
    dp = std::max(dp, (P - P0).norm() / scale_p);
    dl = std::max(dl, (L - L0).norm() / scale_l);
  }
  return {dp, dl};
}

TEST_CASE("a free-floating tree without gravity conserves linear and angular momentum", "[methods][impulse]") {
  // A joint's impulse pair (+p at its point on a, -p at its point on b) conserves linear momentum
  // exactly and changes angular momentum by (a - b) x p, which is bounded by the position
  // tolerance; with tol 1e-13 both momenta are conserved to round-off, at any h.
  for (const char* spec : kTightImpulseMethods) {
    auto [dp, dl] = momentum_drift(spec, 1.0 / 120);
    INFO(spec << ": relative drift of linear momentum " << dp << ", angular momentum " << dl);
    CHECK(dp < 1e-10);
    CHECK(dl < 1e-10);
  }
  // at the default tolerance 1e-6 m the angular momentum drift is of the order of the tolerance
  auto [dp, dl] = momentum_drift("sle", 1.0 / 120);
  INFO("sle at tol 1e-6: linear " << dp << ", angular " << dl);
  CHECK(dp < 1e-10);
  CHECK(dl < 1e-5);
}

TEST_CASE("free motion of a torque-free spinning box keeps its energy to RK4 accuracy", "[methods][free]") {
  mb::Body b = mb::make_box("box", 0.3, 0.1, 600);
  b.inertia(0, 0) *= 1.7;  // make all three moments distinct
  b.angular_velocity = mb::Vec3(1, 2, 3);
  auto energy_error = [&](double h) {
    mb::BodyState s{b.position, b.orientation, b.velocity, b.angular_velocity}, out;
    const double e0 = 0.5 * s.w.dot(mb::world_inertia(b, s) * s.w);
    for (int i = 0; i < std::lround(1.0 / h); ++i) {
      mb::free_motion_body(b, mb::Vec3::Zero(), mb::Vec3::Zero(), h, s, out);
      s = out;
    }
    return std::abs(0.5 * s.w.dot(mb::world_inertia(b, s) * s.w) - e0) / e0;
  };
  const double e1 = energy_error(0.01), e2 = energy_error(0.005);
  INFO("relative energy error " << e1 << " at h = 0.01, " << e2 << " at h = 0.005, order " << std::log2(e1 / e2));
  CHECK(e1 < 1e-6);
  CHECK(std::log2(e1 / e2) > 3.5);
}

TEST_CASE("a remembered free motion is the free motion of the current inputs", "[methods][free]") {
  mb::Body b = mb::make_box("box", 0.3, 0.1, 600);
  b.angular_velocity = mb::Vec3(1, 2, 3);
  const mb::Vec3 F(0, 0, -9.81 * b.mass), tau = mb::Vec3::Zero();
  const double h = 0.01;
  mb::BodyState s{b.position, b.orientation, b.velocity, b.angular_velocity}, out, expect;
  mb::RememberedFreeMotion memo;
  memo.reset(1);
  auto same = [](const mb::BodyState& x, const mb::BodyState& y) {
    return x.x == y.x && x.v == y.v && x.w == y.w && x.q.coeffs() == y.q.coeffs();
  };
  memo.predict(b, 0, F, tau, h, s, out);
  mb::free_motion_body(b, F, tau, h, s, expect);
  CHECK(same(out, expect));
  memo.predict(b, 0, F, tau, h, s, out);  // the same inputs: remembered
  CHECK(same(out, expect));
  // any input that changes, in its last bit, is predicted anew
  s.w.x() = std::nextafter(s.w.x(), 2.0);
  memo.predict(b, 0, F, tau, h, s, out);
  mb::free_motion_body(b, F, tau, h, s, expect);
  CHECK(same(out, expect));
  memo.predict(b, 0, F, tau, 2 * h, s, out);
  mb::free_motion_body(b, F, tau, 2 * h, s, expect);
  CHECK(same(out, expect));
  const mb::Vec3 tau2(0, 0.5, 0);
  memo.predict(b, 0, F, tau2, 2 * h, s, out);
  mb::free_motion_body(b, F, tau2, 2 * h, s, expect);
  CHECK(same(out, expect));
  // another output buffer is not assumed to hold the prediction
  mb::BodyState other;
  memo.predict(b, 0, F, tau2, 2 * h, s, other);
  CHECK(same(other, expect));
}

namespace {
// The rotation of a free motion in Eigen's own expressions (the form free_motion.cpp writes out
// term by term, and the one it had before): the oracle of the test below.
void eigen_free_rotation(const mb::Body& b, const mb::Vec3& tau, double h, const mb::BodyState& in, mb::BodyState& out) {
  using Rot = std::array<double, 7>;
  const mb::Mat3& J = b.inertia;
  const mb::Mat3 Jinv = J.inverse();
  const bool torque = (tau.array() != 0.0).any();
  const mb::Vec3 wb = in.q.conjugate() * in.w;
  Rot x = {wb.x(), wb.y(), wb.z(), in.q.w(), in.q.x(), in.q.y(), in.q.z()};
  auto rhs = [&](const Rot& s, Rot& ds, double) {
    const mb::Vec3 w(s[0], s[1], s[2]);
    const mb::Quat q(s[3], s[4], s[5], s[6]);
    const mb::Vec3 tb = torque ? mb::Vec3(q.conjugate() * tau) : mb::Vec3::Zero();
    const mb::Vec3 dw = Jinv * (tb - w.cross(J * w));
    const mb::Quat dq = q * mb::Quat(0, w.x(), w.y(), w.z());
    ds = {dw.x(), dw.y(), dw.z(), 0.5 * dq.w(), 0.5 * dq.x(), 0.5 * dq.y(), 0.5 * dq.z()};
  };
  boost::numeric::odeint::runge_kutta4_classic<Rot> rk4;
  rk4.do_step(rhs, x, 0.0, h);
  out.q = mb::Quat(x[3], x[4], x[5], x[6]).normalized();
  out.w = out.q * mb::Vec3(x[0], x[1], x[2]);
}
bool same_bits(const mb::BodyState& a, const mb::BodyState& b) {
  return std::memcmp(a.q.coeffs().data(), b.q.coeffs().data(), 4 * sizeof(double)) == 0 &&
         std::memcmp(a.w.data(), b.w.data(), 3 * sizeof(double)) == 0 && std::memcmp(a.x.data(), b.x.data(), 3 * sizeof(double)) == 0 &&
         std::memcmp(a.v.data(), b.v.data(), 3 * sizeof(double)) == 0;
}
}  // namespace

TEST_CASE("the free motion's rotation has the bits of Eigen's expressions, alone and two bodies at a time", "[methods][free]") {
  // bodies of diagonal and of full inertia, with and without a torque, moved one at a time
  // (free_motion_body) and in pairs (free_motion_bodies: one per lane of an SSE2 packet)
  MBTEST_SKIP_UNLESS_SSE2_ORDER();
  std::mt19937_64 gen(7);
  std::uniform_real_distribution<double> u(-1, 1);
  mb::Model m;
  mb::StepLoads loads;
  mb::State in;
  for (int k = 0; k < 24; ++k) {
    mb::Body b = mb::make_box(std::to_string(k), 0.2 + 0.1 * std::abs(u(gen)), 0.1, 500);
    if (k % 3 == 1) {  // a full inertia: the box turned
      const mb::Mat3 R = mb::Quat(u(gen), u(gen), u(gen), u(gen)).normalized().toRotationMatrix();
      b.inertia = R * b.inertia * R.transpose();
    }
    m.bodies.push_back(b);
    loads.force.push_back(mb::Vec3(0, 0, -9.81 * b.mass));
    loads.torque.push_back(k % 4 == 0 ? mb::Vec3(u(gen), u(gen), u(gen)) : mb::Vec3::Zero());
    in.bodies.push_back({mb::Vec3(u(gen), u(gen), u(gen)), mb::Quat(u(gen), u(gen), u(gen), u(gen)).normalized(),
                         mb::Vec3(u(gen), u(gen), u(gen)), 5 * mb::Vec3(u(gen), u(gen), u(gen))});
  }
  const double h = 0.02;
  mb::State alone = in, paired = in, all = in;
  std::vector<int> order;
  for (int k = 23; k >= 0; --k) order.push_back(k);  // any order
  int diagonal = 0;
  for (int k = 0; k < 24; ++k) {
    const mb::Body& b = m.bodies[k];
    diagonal += mb::is_diagonal(b.inertia);
    mb::free_motion_body(b, loads.force[k], loads.torque[k], h, in.bodies[k], alone.bodies[k]);
    mb::BodyState expect = alone.bodies[k];
    eigen_free_rotation(b, loads.torque[k], h, in.bodies[k], expect);
    INFO("body " << k << (mb::is_diagonal(b.inertia) ? " (diagonal inertia)" : " (full inertia)"));
    CHECK(same_bits(alone.bodies[k], expect));
  }
  CHECK(diagonal == 16);
  mb::free_motion_bodies(m, loads, nullptr, order, h, in, paired);
  mb::free_motion(m, loads, h, in, all);
  for (int k = 0; k < 24; ++k) {
    INFO("body " << k);
    CHECK(same_bits(paired.bodies[k], alone.bodies[k]));
    CHECK(same_bits(all.bodies[k], alone.bodies[k]));
  }
}

namespace {
// Forwards everything to the corrector it wraps; take_prediction is forwarded and counted, or
// refused (then the step computes its free motion itself).
class PredictionProbe final : public mb::Corrector {
 public:
  PredictionProbe(std::unique_ptr<mb::Corrector> inner, bool allow, long& taken) : inner_(std::move(inner)), allow_(allow), taken_(taken) {}
  void init(const mb::Model& m, const mb::State& s) override { inner_->init(m, s); }
  void update(const mb::Model& m, const mb::State& s, mb::StepStats& st) override { inner_->update(m, s, st); }
  int groups() const override { return inner_->groups(); }
  double correct_position(int g, const mb::Model& m, const mb::StepLoads& l, double h, mb::State& s, double tol,
                          mb::StepStats& st) override {
    return inner_->correct_position(g, m, l, h, s, tol, st);
  }
  double correct_velocity(int g, mb::State& s, double tol, mb::StepStats& st) override {
    return inner_->correct_velocity(g, s, tol, st);
  }
  mb::ArticulationCoupling* response() override { return inner_->response(); }
  bool take_prediction(const mb::State& s, mb::State& out) override {
    if (!allow_ || !inner_->take_prediction(s, out)) return false;
    ++taken_;
    return true;
  }

 private:
  std::unique_ptr<mb::Corrector> inner_;
  bool allow_;
  long& taken_;
};
}  // namespace

TEST_CASE("the step's free motion taken from the last measuring sweep is the free motion, bit for bit", "[methods][impulse]") {
  mb::TreeParams p;
  p.joints = 31;
  const mb::Model m = mb::make_tree(p, "tree");
  long taken = 0, refused = 0;
  double tol = 1e-6;
  auto run = [&](bool allow, long& count) {
    mb::ImpulseOptions o;
    o.tol_p = o.tol_v = tol;
    mb::ImpulseMethod method(mb::impulse_method_info(), o,
                             std::make_unique<PredictionProbe>(mb::make_linear_corrector(), allow, count));
    mb::State s = mb::initial_state(m);
    method.init(m, s);
    mb::StepStats st;
    for (int i = 0; i < 60; ++i) method.step(m, s, 1.0 / 30, st);  // through the torque pulse
    return s;
  };
  auto same = [&](const mb::State& a, const mb::State& b) {
    for (size_t k = 0; k < a.bodies.size(); ++k) {
      INFO("body " << k);
      CHECK(a.bodies[k].x == b.bodies[k].x);
      CHECK(a.bodies[k].v == b.bodies[k].v);
      CHECK(a.bodies[k].w == b.bodies[k].w);
      CHECK(a.bodies[k].q.coeffs() == b.bodies[k].q.coeffs());
    }
  };
  {
    const mb::State a = run(true, taken), b = run(false, refused);
    INFO("steps whose free motion was the last sweep's prediction: " << taken << " of 60");
    CHECK(taken > 30);  // most steps end their position phase with a measuring sweep
    CHECK(refused == 0);
    same(a, b);
  }
  // solved to round-off (tol 0), a position phase ends on a sweep that applied impulses after
  // predicting: that prediction is not the step's free motion and must not be taken
  tol = 0;
  taken = refused = 0;
  const mb::State a = run(true, taken), b = run(false, refused);
  CHECK(taken == 0);
  same(a, b);
}

TEST_CASE("a broken joint is corrected within a few steps", "[methods][impulse]") {
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[1].position.x() += 0.1;  // the second rod starts 0.1 m too long
  for (const char* spec : kImpulseMethods) {
    auto method = mb::make_method(spec);
    mb::State s = mb::initial_state(m);
    REQUIRE(mb::max_joint_error(m, s).pos == Approx(0.1));
    method->init(m, s);
    mb::StepStats st;
    method->step(m, s, 0.01, st);
    INFO(spec << ": joint error after one step " << mb::max_joint_error(m, s).pos);
    CHECK(mb::max_joint_error(m, s).pos <= 1e-6);
  }
}

TEST_CASE("a non-convergent correction is recorded as the case's failure", "[methods][impulse][fail]") {
  mb::RunConfig c;
  c.h = 0.01;
  c.duration = 0.1;
  auto r = mb::run_case(mb::build_model("triple-pendulum"), "iterative:max_iter=1,tol_p=1e-12", c);
  CHECK(r.status == mb::Status::Failed);
  CHECK_THAT(r.reason, Catch::Contains("did not converge"));
}
