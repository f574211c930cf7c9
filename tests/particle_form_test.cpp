// The particle form of point masses (models/particle_form.hpp; docs/robots.md "Particle form"):
// the maximal-coordinate methods run a body of inertia 0 as a particle where nothing but one joint
// depends on its orientation, and refuse it by name otherwise. Checked against `ref` on the model as
// given (which takes singular inertias in joint space) and against the conical pendulum's closed form.
#include <catch2/catch.hpp>

#include <cmath>
#include <optional>
#include <string>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/particle_form.hpp"
#include "test_util.hpp"

namespace {

const std::string kData = MBBENCH_TEST_DATA;

// `method` on the model it runs for `m` (its particle form), h, to t_end
mb::State run(const mb::Model& m, const std::string& method, double h, double t_end) {
  std::optional<mb::Model> storage;
  const mb::Model& pm = mb::method_model(mb::make_method(method)->info(), m, storage);
  REQUIRE(storage.has_value());
  return mbtest::simulate(pm, method, h, t_end);
}

// LM4 (RK4 with multipliers) on the particle form agrees with ref on the model as given to its
// truncation error; sle (second order) to its own
void check_against_ref(const mb::Model& m) {
  const mb::State ref = mbtest::simulate(m, "ref", 1e-3, 1.0);
  // the tip swings far from its start: a wrong joint point would show at the 0.1 m scale
  CHECK((ref.bodies[1].x - m.bodies[1].position).norm() > 0.3);
  const double lm4 = mbtest::max_position_difference(run(m, "LM4", 1e-3, 1.0), ref);
  const double sle = mbtest::max_position_difference(run(m, "sle:tol_p=1e-12,tol_v=1e-12", 1e-3, 1.0), ref);
  INFO("LM4 " << lm4 << ", sle " << sle);
  CHECK(lm4 < 1e-8);
  CHECK(sle < 1e-3);
}

}  // namespace

TEST_CASE("particle form: a hinge and a slider of point masses as rows on their centres", "[particle_form]") {
  if (!mb::urdf_supported()) return;
  const mb::Model m = mb::read_urdf(kData + "/urdf/point_mass_cart.urdf");
  REQUIRE((mb::model_features(m) & mb::kSingularInertia) != 0);
  const mb::ParticleForm f = mb::particle_form(m);
  REQUIRE(f.changes.size() == 2);
  const std::string changes = f.changes[0] + "\n" + f.changes[1];
  CHECK_THAT(changes, Catch::Contains("'bob' (inertia 0) as a particle: hinge 'swing' as two rods from its axis ('swing', 'swing/rod')"));
  CHECK_THAT(changes, Catch::Contains("'bead' (inertia 0) as a particle: slider 'groove' as a point-on-line"));
  CHECK((mb::model_features(f.model) & mb::kSingularInertia) == 0);
  CHECK((mb::model_features(f.model) & mb::kBrokenJoints) == 0);  // the rows hold at the start
  // the rods: the bob's distance from the hinge axis, 0.5 m (its 0.1 m along the axis aside), and
  // from the axis point 0.5 m further along it
  const mb::Joint& rod = f.model.joints.back();
  CHECK(rod.name == "swing/rod");
  CHECK(rod.length == Approx(0.5 * std::sqrt(2.0)).epsilon(1e-12));
  for (const mb::Joint& j : f.model.joints)
    if (j.name == "swing") CHECK(j.length == Approx(0.5).epsilon(1e-12));
  for (const char* method : {"sle", "iterative", "linear", "tomcin", "LMVD4"})
    CHECK(mb::unsupported_reason(mb::make_method(method)->info(), m).empty());

  // ref on the model as given; LM4 (RK4, multipliers) on the particle form agrees to its
  // truncation error, sle converges to it at second order
  const mb::State ref = mbtest::simulate(m, "ref", 1e-3, 1.0);
  CHECK((ref.bodies[1].x - m.bodies[1].position).norm() > 0.1);  // the bob swings
  const double lm4 = mbtest::max_position_difference(run(m, "LM4", 1e-3, 1.0), ref);
  INFO("LM4 " << lm4);
  CHECK(lm4 < 1e-8);
  const double e1 = mbtest::max_position_difference(run(m, "sle:tol_p=1e-12,tol_v=1e-12", 2e-3, 1.0), ref);
  const double e2 = mbtest::max_position_difference(run(m, "sle:tol_p=1e-12,tol_v=1e-12", 1e-3, 1.0), ref);
  INFO("sle at 2 ms " << e1 << ", at 1 ms " << e2);
  CHECK(e2 < 1e-3);
  CHECK(e1 / e2 > 3.0);  // second order: 4
  CHECK(e1 / e2 < 5.0);
  for (const char* method : {"iterative:tol_p=1e-12,tol_v=1e-12", "linear:tol_p=1e-12,tol_v=1e-12", "tomcin:eps_P=1e-12,eps_V=1e-12"}) {
    const double e = mbtest::max_position_difference(run(m, method, 1e-3, 1.0), ref);
    INFO(method << " " << e);
    CHECK(e < 2 * e2);
  }
}

TEST_CASE("particle form: a point mass welded or hinged off its centre on a link agrees with ref", "[particle_form]") {
  mb::Model m = mb::read_scene(kData + "/particle_form/welded.toml");
  const mb::ParticleForm f = mb::particle_form(m);
  REQUIRE(f.changes.size() == 1);
  CHECK_THAT(f.changes[0], Catch::Contains("'tip' (inertia 0) as a particle: fixed joint 'weld' as a ball"));
  check_against_ref(m);
  // the weld a hinge about z: the tip swings 0.1 m about the link's point
  m.joints[1].type = mb::JointType::Hinge;
  const mb::ParticleForm g = mb::particle_form(m);
  REQUIRE(g.changes.size() == 1);
  CHECK_THAT(g.changes[0], Catch::Contains("'tip' (inertia 0) as a particle: hinge 'weld' as two rods from its axis"));
  check_against_ref(m);
}

TEST_CASE("particle form: a point mass on a ball joint off its centre is the conical pendulum", "[particle_form]") {
  const mb::Model m = mb::read_scene(kData + "/particle_form/conical.toml");
  const mb::ParticleForm f = mb::particle_form(m);
  REQUIRE(f.changes.size() == 1);
  CHECK_THAT(f.changes[0], Catch::Contains("'bob' (inertia 0) as a particle: ball 'socket' as a rod"));
  // the circle at half-angle 0.5 rad, rate w = sqrt(g / (L cos 0.5)), about +y
  const double L = 1, th = 0.5, w = std::sqrt(9.81 / (L * std::cos(th))), t = 1;
  const mb::Vec3 exact(L * std::sin(th) * std::cos(w * t), -L * std::cos(th), -L * std::sin(th) * std::sin(w * t));
  for (const char* method : {"LM4", "sle:tol_p=1e-12,tol_v=1e-12", "iterative:tol_p=1e-12,tol_v=1e-12"}) {
    const mb::State s = run(m, method, 1e-3, t);
    const double e = (s.bodies[0].x - exact).norm();
    INFO(method << " " << e);
    CHECK(e < (std::string(method) == "LM4" ? 1e-9 : 1e-3));
  }
}

TEST_CASE("particle form: refusals name the body and the reason", "[particle_form]") {
  const auto reason = [](const mb::Model& m) { return mb::unsupported_reason(mb::make_method("sle")->info(), m); };
  if (mb::urdf_supported()) {
    // a thin rod's inertia is singular but not 0
    const mb::Model rod = mb::read_urdf(kData + "/urdf/point_masses.urdf");
    CHECK_THAT(reason(rod), Catch::Contains("sle does not support singular inertias") &&
                                Catch::Contains("'rod' has no particle form: its inertia is singular but not 0"));
    CHECK_THROWS_WITH(mb::particle_form(rod), Catch::Contains("'rod' has no particle form"));
  }
  mb::Model m = mb::read_scene(kData + "/particle_form/conical.toml");
  {
    // a second joint that turns with the point mass
    mb::Model two = m;
    mb::Body child = two.bodies[0];
    child.name = "child";
    child.inertia = mb::Mat3::Identity() * 0.01;
    child.position += mb::Vec3(0, -0.5, 0);
    two.bodies.push_back(child);
    mb::Joint hinge;
    hinge.name = "elbow";
    hinge.type = mb::JointType::Hinge;
    hinge.a = 0;
    hinge.b = 1;
    hinge.anchor_b = mb::Vec3(0, 0.5, 0);
    two.joints.push_back(hinge);
    CHECK_THAT(reason(two), Catch::Contains("'bob' has no particle form: joints 'socket' and 'elbow' both depend on its orientation"));
  }
  {
    // a box turns with it
    mb::Model boxed = m;
    mb::Shape box;
    box.name = "block";
    box.type = mb::ShapeType::Box;
    box.body = 0;
    box.half_extents = mb::Vec3(0.1, 0.1, 0.1);
    boxed.shapes.push_back(box);
    boxed.materials.emplace_back();
    CHECK_THAT(reason(boxed), Catch::Contains("'bob' has no particle form: its shape 'block' is not a sphere about its centre"));
  }
  {
    // a limit on the joint replaced
    mb::Model w = mb::read_scene(kData + "/particle_form/welded.toml");
    w.joints[1].type = mb::JointType::Hinge;
    w.joints[1].upper = 0.5;
    CHECK_THAT(reason(w), Catch::Contains("'tip' has no particle form: hinge 'weld' has limits"));
  }
  // a method that takes singular inertias runs the model as it is
  std::optional<mb::Model> storage;
  CHECK(&mb::method_model(mb::make_method("ref")->info(), m, storage) == &m);
  CHECK_FALSE(storage.has_value());
}
