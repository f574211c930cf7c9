// The mechanisms of tomcin2014 (models/catalog/mechanisms.cpp, docs/mechanisms.md): constraint
// counts against the paper's at its sizes, every joint satisfied by the initial state, scene files.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "methods/constraints/constraint_system.hpp"
#include "models/catalog.hpp"
#include "models/formats/scene.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

long rows_of(const mb::Model& m) {
  long n = 0;
  for (const mb::Joint& j : m.joints) {
    const mb::JointParts p = mb::joint_parts(j.type);
    n += mb::trans_rows(p.trans) + mb::rot_rows(p.rot);
  }
  return n;
}

// position error of every row on the initial state, and the velocity error of the initial velocities
void check_consistent(const mb::Model& m, double vel_tol) {
  mb::check_model(m, m.info.name);
  const mb::State s = mb::initial_state(m);
  mb::ConstraintSystem cs(m);
  CHECK(cs.rows() == rows_of(m));  // no joint between two fixed bodies
  Eigen::VectorXd e;
  cs.position_error(m, s, e);
  CHECK(e.cwiseAbs().maxCoeff() < 1e-9);
  cs.update(m, s);
  cs.velocity_error(s, e);
  CHECK(e.cwiseAbs().maxCoeff() < vel_tol);
  // check_model has checked positive masses and SPD inertia; the smallest, as one check
  double min_mass = 1e300, min_inertia = 1e300;
  for (const mb::Body& b : m.bodies) {
    if (b.is_static) continue;
    min_mass = std::min(min_mass, b.mass);
    min_inertia = std::min(min_inertia, b.inertia.diagonal().minCoeff());
  }
  CHECK(min_mass > 0);
  CHECK(min_inertia > 0);
}

}  // namespace

TEST_CASE("the mechanisms have tomcin2014's constraint counts at its sizes", "[mechanisms]") {
  // tomcin2014 Fig. 6: "a scissor lift with 10 segments, 500 constraints"; "8 rings (18981 constraints)"
  CHECK(rows_of(mb::build_model("scissor-lift:segments=10")) == 500);
  CHECK(rows_of(mb::build_model("octahedron-tube:rings=8")) == 18981);
  // Strandbeest: 75 N + 5 with Jansen's ten links per leg as bars; the paper's 4482 at 50 legs is not
  // matched (docs/mechanisms.md gives the arithmetic)
  CHECK(rows_of(mb::build_model("strandbeest:legs=50")) == 3755);
}

TEST_CASE("the mechanisms' constraint counts follow their formulas", "[mechanisms]") {
  for (int n : {1, 2, 3, 7}) {
    INFO("size " << n);
    CHECK(rows_of(mb::build_model("spider:legs=" + std::to_string(n))) == 8 * n);
    CHECK(rows_of(mb::build_model("scissor-lift:segments=" + std::to_string(n))) == 50 * n);
    CHECK(rows_of(mb::build_model("scissor-lift:foot=slider,segments=" + std::to_string(n))) == 50 * n + 5);
    CHECK(rows_of(mb::build_model("strandbeest:legs=" + std::to_string(n))) == 75 * n + 5);
    CHECK(rows_of(mb::build_model("octahedron-tube:around=5,rings=" + std::to_string(n))) == 9 * 5 * (14 * n - 1));
    if (n <= 3) CHECK(rows_of(mb::build_model("octahedron-cube:n=" + std::to_string(n))) == 9 * (15 * n * n * n - 3 * n * n));
  }
  // the cube's count at tomcin2014's size: 576288 = 9 x 64032, but 15 n^3 - 3 n^2 jumps from 60672
  // (n = 16) to 72828 (n = 17); docs/mechanisms.md
  auto cube_bars = [](long n) { return 15 * n * n * n - 3 * n * n; };
  CHECK(cube_bars(16) < 576288 / 9);
  CHECK(cube_bars(17) > 576288 / 9);
}

TEST_CASE("every mechanism's joints hold on its initial state", "[mechanisms]") {
  for (const char* spec : {"spider:legs=1", "spider:legs=8", "spider:legs=50", "scissor-lift:segments=1",
                           "scissor-lift:segments=10", "scissor-lift:foot=slider,segments=3", "strandbeest:legs=1",
                           "strandbeest:legs=8", "strandbeest:k=5,legs=50", "octahedron-tube:rings=1,around=3",
                           "octahedron-tube:rings=8", "octahedron-cube:n=1", "octahedron-cube:n=3"}) {
    INFO(spec);
    const mb::Model m = mb::build_model(spec);
    // the Strandbeest's velocities come from central differences of its positions in the crank angle
    check_consistent(m, 1e-7);
  }
}

TEST_CASE("the mechanisms at tomcin2014's largest sizes build consistently", "[mechanisms][large]") {
  for (const char* spec : {"scissor-lift:segments=220", "strandbeest:legs=100"}) {
    INFO(spec);
    check_consistent(mb::build_model(spec), 1e-7);
  }
}

TEST_CASE("the octahedron tube at tomcin2014's largest size", "[.][mechanisms][large]") {
  // hidden (57000 bodies, about 1 s in Release): 150 rings, 9 x 19 x 2099 rows
  const mb::Model m = mb::build_model("octahedron-tube:rings=150");
  CHECK(rows_of(m) == 358929);
  check_consistent(m, 1e-7);
}

TEST_CASE("the mechanisms round-trip through scene files", "[mechanisms][scene]") {
  for (const char* spec : {"spider:legs=5", "scissor-lift:foot=slider,segments=2", "strandbeest:k=2,legs=3",
                           "octahedron-tube:rings=2,around=4", "octahedron-cube:n=2"}) {
    INFO(spec);
    const mb::Model m = mb::build_model(spec);
    const std::string text = mb::scene_to_toml(m);
    const mb::Model back = mb::parse_scene(text, std::string(spec) + ".toml");
    CHECK(back.bodies.size() == m.bodies.size());
    CHECK(back.joints.size() == m.joints.size());
    CHECK(rows_of(back) == rows_of(m));
    CHECK(mb::scene_to_toml(back) == text);
  }
}

TEST_CASE("the octahedron cube near tomcin2014's size", "[.][mechanisms][large]") {
  // hidden (about 85000 bodies): n = 16, the largest cube below the paper's 576288 rows
  const mb::Model m = mb::build_model("octahedron-cube:n=16");
  CHECK(rows_of(m) == 546048);
  check_consistent(m, 1e-7);
}

TEST_CASE("the spider runs with the Gauss-Seidel impulse method", "[mechanisms][impulse]") {
  // a tree: the joint-by-joint sweeps converge (on the mechanisms with loops they are slow or
  // stall: docs/mechanisms.md)
  const mb::Model m = mb::build_model("spider:legs=10");
  const mb::State s = mbtest::simulate(m, "iterative", 0.01, 0.1);
  CHECK(mb::max_joint_error(m, s).pos < 1e-5);
  CHECK(mb::state_is_finite(s));
  // the legs swung out relative to the central body
  const mb::State s0 = mb::initial_state(m);
  const mb::Vec3 r0 = s0.bodies[0].q.conjugate() * (s0.bodies[2].x - s0.bodies[0].x);
  const mb::Vec3 r1 = s.bodies[0].q.conjugate() * (s.bodies[2].x - s.bodies[0].x);
  CHECK((r1 - r0).norm() > 1e-4);
}

TEST_CASE("A's lower triangle refilled in place is its assembly, value for value", "[mechanisms][impulse]") {
  // hinges in loops (the Strandbeest) and ball joints on one body (the spider)
  for (const char* spec : {"strandbeest:legs=3", "spider:legs=6"}) {
    INFO(spec);
    const mb::Model m = mb::build_model(spec);
    mb::ConstraintSystem cs(m);
    cs.update(m, mb::initial_state(m));
    Eigen::SparseMatrix<double> refilled, assembled;
    cs.assemble_sparse_lower(refilled);
    refilled.makeCompressed();
    const Eigen::VectorXd before = Eigen::Map<const Eigen::VectorXd>(refilled.valuePtr(), refilled.nonZeros());
    cs.update(m, mbtest::simulate(m, "tomcin", 0.01, 0.05));  // the bodies moved: other Jacobians
    cs.refill_sparse_lower(refilled);
    cs.assemble_sparse_lower(assembled);
    assembled.makeCompressed();
    REQUIRE(refilled.nonZeros() == assembled.nonZeros());
    long differ = 0, moved = 0;
    for (Eigen::Index k = 0; k < assembled.nonZeros(); ++k) {
      differ += refilled.innerIndexPtr()[k] != assembled.innerIndexPtr()[k] || refilled.valuePtr()[k] != assembled.valuePtr()[k];
      moved += before[k] != assembled.valuePtr()[k];
    }
    CHECK(differ == 0);
    CHECK(moved > assembled.nonZeros() / 10);  // the refill wrote new values
  }
}
