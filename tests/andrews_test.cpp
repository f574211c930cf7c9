// Andrews' squeezing mechanism (models/catalog/andrews.cpp) against the Test Set for IVP Solvers'
// published end values (results/paper/mazzia2008.toml): our `ref`, in maximal coordinates with ten
// hinges, a spring and the driving torque, must agree with the Test Set's angles at t = 0.03 s
// within 1e-8 relative in every position coordinate.
#include <catch2/catch.hpp>

#include <array>
#include <cmath>
#include <map>
#include <string>

#include <Eigen/Dense>

#include "core/toml.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

const std::string kPaper = std::string(MBBENCH_TEST_DATA) + "/../../results/paper/mazzia2008.toml";
const char* const kNames[7] = {"beta", "Theta", "gamma", "Phi", "delta", "Omega", "epsilon"};

std::map<std::string, double> published(const char* table) {
  const toml::table paper = toml::parse_file(kPaper);
  std::map<std::string, double> v;
  for (const auto& e : *paper[table].as_array()) {
    const auto& t = *e.as_table();
    v[t["name"].value_or(std::string())] = t["value"].value_or(0.0);
  }
  return v;
}

// the angles at t_end from `method` with step h, unwrapped step by step (the crank turns 2.5 times)
std::array<double, 7> end_angles(const mb::Model& m, const std::string& method, double h, mb::State* end = nullptr) {
  auto meth = mb::make_method(method);
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  std::array<double, 7> a = mb::andrews_angles(s, nullptr);
  const long n = std::lround(0.03 / h);
  for (long i = 0; i < n; ++i) {
    mb::StepStats st;
    meth->step(m, s, h, st);
    a = mb::andrews_angles(s, &a);
  }
  if (end) *end = s;
  return a;
}

}  // namespace

TEST_CASE("andrews: the model holds the Test Set's initial angles and constraints", "[andrews]") {
  const mb::Model m = mb::build_model("andrews");
  REQUIRE(m.bodies.size() == 7);
  REQUIRE(m.joints.size() == 10);
  REQUIRE(m.springs.size() == 1);
  REQUIRE(m.loads.size() == 1);
  const mb::State s = mb::initial_state(m);
  const std::array<double, 7> a = mb::andrews_angles(s, nullptr);
  const mb::AndrewsParams p;
  for (int i = 0; i < 7; ++i) CHECK(mbtest::is_close(a[i], p.q0[i], 1e-15));
  mb::ConstraintSystem cs(m);
  cs.update(m, s);
  CHECK(cs.rows() == 50);
  CHECK(mb::redundant_constraints(m) == 9);
  Eigen::VectorXd e;
  cs.position_error(m, s, e);
  CHECK(e.cwiseAbs().maxCoeff() < 1e-15);
  // the spring is compressed at the start (l = 0.05267 m < l0 = 0.07785 m): it pushes D away from C
  std::vector<mb::Vec3> f(7, mb::Vec3::Zero()), tau(7, mb::Vec3::Zero());
  mb::add_spring_loads(m, s, f, tau);
  const mb::Vec3 D = mb::world_point(m, s, 2, m.springs[0].anchor_a), C(p.xc, p.yc, 0);
  CHECK(mbtest::is_close((D - C).norm(), 0.052672516110736665, 1e-15));
  CHECK(mbtest::is_close(f[2].norm(), p.c0 * (p.l0 - (D - C).norm()), 1e-9));
  CHECK(f[2].dot(C - D) < 0);
}

TEST_CASE("andrews: ref agrees with the Test Set's published end values within 1e-8 relative", "[andrews][reference]") {
  const mb::Model m = mb::build_model("andrews");
  const auto q = published("end_value");
  const auto v = published("end_velocity");
  REQUIRE(q.size() == 7);
  mb::State s;
  const std::array<double, 7> a = end_angles(m, "ref:tol=1e-13", 1e-4, &s);
  // angular velocities from the body rates (z components) in the Test Set's coordinates
  const double w[7] = {s.bodies[0].w.z(), s.bodies[1].w.z(), s.bodies[2].w.z(), s.bodies[3].w.z(), s.bodies[4].w.z(),
                       s.bodies[5].w.z(), s.bodies[6].w.z()};
  const double rate[7] = {w[0], w[1] - w[0], w[2], w[3] - w[4], w[4], w[5] - w[6], w[6]};
  double worst = 0, worst_v = 0;
  for (int i = 0; i < 7; ++i) {
    const double ref = q.at(kNames[i]);
    const double rel = std::abs(a[i] - ref) / std::abs(ref);
    const double rel_v = std::abs(rate[i] - v.at(kNames[i])) / std::abs(v.at(kNames[i]));
    INFO(kNames[i] << ": ours " << a[i] << ", published " << ref << ", relative error " << rel << "; velocity relative error " << rel_v);
    CHECK(rel < 1e-8);
    worst = std::max(worst, rel);
    worst_v = std::max(worst_v, rel_v);
  }
  WARN("andrews: ref:tol=1e-13 against the Test Set: max relative error of the angles " << worst << " (scd "
       << -std::log10(worst) << "), of the angular velocities " << worst_v);
}
