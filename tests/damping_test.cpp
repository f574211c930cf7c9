// Joint dampers (Joint::damping: a hinge's or slider's viscous joint force -d qd): a damped
// cart-pole (a slider from the world, a hinge on the cart) loses exactly the energy its dampers
// dissipate, the integral of d qd^2, in ref; GC4, the force-element methods and the peer engines
// agree with ref; methods without the feature refuse the model by name; the scene key round-trips;
// the URDF and MJCF importers map <dynamics damping> and dof_damping with damping=on.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "core/error.hpp"
#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

constexpr double kRail = 0.8;   // N s/m, the slider's damper
constexpr double kPivot = 0.05;  // N m s/rad, the hinge's damper

// A cart (2 kg) on a slider along x from the world, a pole (0.5 kg, its centre of mass 0.5 m from
// the pivot) on a hinge about z at the cart's centre, released at 60 degrees from hanging down;
// gravity (0, -9.81, 0). The cart's inertia is the pole's turned by 30 degrees (a full inertia).
mb::Model cart_pole(double rail = kRail, double pivot = kPivot) {
  mb::Model m;
  m.info.name = "damped-cart-pole";
  m.info.energy_conserved = false;
  m.info.h_grid = mb::default_h_grid();
  const double a = M_PI / 3;
  mb::Body cart;
  cart.name = "cart";
  cart.mass = 2;
  cart.inertia = mb::Vec3(0.02, 0.05, 0.06).asDiagonal();
  cart.orientation = mb::Quat(Eigen::AngleAxisd(M_PI / 6, mb::Vec3(1, 1, 0).normalized()));
  mb::Body pole;
  pole.name = "pole";
  pole.mass = 0.5;
  pole.inertia = mb::Vec3(0.042, 0.001, 0.042).asDiagonal();  // long axis: body y
  pole.orientation = mb::Quat(Eigen::AngleAxisd(a, mb::Vec3::UnitZ()));
  pole.position = mb::Vec3(0.5 * std::sin(a), -0.5 * std::cos(a), 0);
  m.bodies = {cart, pole};
  mb::Joint rail_joint;
  rail_joint.name = "rail";
  rail_joint.type = mb::JointType::Slider;
  rail_joint.a = mb::kWorld;
  rail_joint.b = 0;
  rail_joint.axis_a = mb::Vec3::UnitX();
  rail_joint.axis_b = cart.orientation.conjugate() * mb::Vec3::UnitX();
  rail_joint.rel_orientation = cart.orientation;
  rail_joint.damping = rail;
  mb::Joint hinge;
  hinge.name = "pivot";
  hinge.type = mb::JointType::Hinge;
  hinge.a = 0;
  hinge.b = 1;
  hinge.axis_a = cart.orientation.conjugate() * mb::Vec3::UnitZ();
  hinge.axis_b = mb::Vec3::UnitZ();
  hinge.anchor_b = mb::Vec3(0, 0.5, 0);  // the pivot, 0.5 m up the pole's axis
  hinge.rel_orientation = cart.orientation.conjugate() * pole.orientation;
  hinge.damping = pivot;
  m.joints = {rail_joint, hinge};
  mb::check_model(m, "cart_pole");
  return m;
}

// The dampers' power at `s`: -(d_rail v_x^2 + d_pivot (w_pole - w_cart)_z^2)
double damper_power(const mb::Model& m, const mb::State& s) {
  const double v = s.bodies[0].v.x(), w = (s.bodies[1].w - s.bodies[0].w).z();
  return -(m.joints[0].damping * v * v + m.joints[1].damping * w * w);
}

}  // namespace

TEST_CASE("damping: the feature, the loads on both bodies, and the check of bad values", "[damping]") {
  const mb::Model m = cart_pole();
  CHECK((mb::model_features(m) & mb::kJointDampers) != 0);
  CHECK((mb::model_features(m) & mb::kForces) == 0);
  CHECK((mb::model_features(cart_pole(0, 0)) & mb::kJointDampers) == 0);
  // a state moving the cart at 1 m/s and turning the pole at 2 rad/s relative to it
  mb::State s = mb::initial_state(m);
  s.bodies[0].v = mb::Vec3(1, 0, 0);
  s.bodies[1].w = mb::Vec3(0, 0, 2);
  s.bodies[1].v = mb::Vec3(1, 0, 0) + s.bodies[1].w.cross(s.bodies[1].x - s.bodies[0].x);
  std::vector<mb::Vec3> f(2, mb::Vec3::Zero()), tau(2, mb::Vec3::Zero());
  mb::add_joint_damper_loads(m, s, f, tau);
  // the rail pushes the cart back; the pivot brakes the pole and drives the cart the other way
  CHECK((f[0] - mb::Vec3(-kRail, 0, 0)).norm() < 1e-15);
  CHECK((tau[1] - mb::Vec3(0, 0, -2 * kPivot)).norm() < 1e-15);
  CHECK((tau[0] - mb::Vec3(0, 0, 2 * kPivot)).norm() < 1e-15);
  CHECK(f[1].norm() == 0);
  // the loads' power equals the dampers' power
  const double power = f[0].dot(s.bodies[0].v) + tau[0].dot(s.bodies[0].w) + tau[1].dot(s.bodies[1].w);
  CHECK(power == Approx(damper_power(m, s)).epsilon(1e-14));
  mb::Model bad = m;
  bad.joints[0].damping = -1;
  CHECK_THROWS_WITH(mb::check_model(bad, "x"), Catch::Contains("joint[0].damping"));
  bad = m;
  bad.joints[1].type = mb::JointType::Ball;
  CHECK_THROWS_WITH(mb::check_model(bad, "x"), Catch::Contains("only a hinge or a slider"));
}

TEST_CASE("damping: ref loses exactly the energy the dampers dissipate, and GC4 agrees with ref", "[damping]") {
  const mb::Model m = cart_pole();
  const double h = 1e-3;
  const int n = 1000;  // 1 s, an even number of intervals (Simpson's rule)
  auto ref = mb::make_method("ref");
  mb::State s = mb::initial_state(m);
  ref->init(m, s);
  const double e0 = mb::total_energy(m, s);
  mb::StepStats stats;
  double work = damper_power(m, s);  // Simpson's sum of the power, weights 1 4 2 4 ... 4 1
  for (int i = 1; i <= n; ++i) {
    ref->step(m, s, h, stats);
    work += damper_power(m, s) * (i == n ? 1 : (i % 2 ? 4 : 2));
  }
  work *= h / 3;
  const double e1 = mb::total_energy(m, s);
  INFO("energy " << e0 << " -> " << e1 << " J; the dampers' work " << work << " J");
  CHECK(work < -0.1);  // the dampers do work (a wrong sign would add energy)
  CHECK(std::abs((e1 - e0) - work) < 1e-8 * std::abs(work));
  // GC4: the same joint force in the same recursion, RK4 at 1 ms
  const mb::State gc4 = mbtest::simulate(m, "GC4", h, 1.0);
  const double e = mbtest::max_position_difference(gc4, s);
  INFO("GC4 - ref at 1 s: " << e << " m");
  CHECK(e < 1e-8);
  // the undamped cart-pole ends elsewhere: the dampers act
  CHECK(mbtest::max_position_difference(mbtest::simulate(cart_pole(0, 0), "ref", 0.01, 1.0), s) > 1e-2);
}

TEST_CASE("damping: the force-element methods agree with ref within their order", "[damping]") {
  const mb::Model m = cart_pole();
  const mb::State ref = mbtest::simulate(m, "ref", 0.002, 0.5);
  // linear (impulse): the dampers' loads held over the step, first order
  const double l1 = mbtest::max_position_difference(mbtest::simulate(m, "linear", 0.002, 0.5), ref);
  const double l2 = mbtest::max_position_difference(mbtest::simulate(m, "linear", 0.001, 0.5), ref);
  INFO("linear - ref at 0.5 s: " << l1 << " m (h = 2 ms), " << l2 << " m (1 ms)");
  CHECK(l2 < 1e-3);
  CHECK(std::log2(l1 / l2) > 0.8);
  // LM4 (the pole alone on its damped hinge, the cart bolted to the world) evaluates the damper at
  // every RK4 stage
  mb::Model pole = cart_pole();
  pole.bodies[0].is_static = true;
  pole.bodies[0].mass = 0;
  pole.bodies[0].inertia.setZero();
  pole.joints.erase(pole.joints.begin());
  mb::check_model(pole, "pole");
  const mb::State pole_ref = mbtest::simulate(pole, "ref", 0.002, 0.5);
  CHECK(mbtest::max_position_difference(pole_ref, mb::initial_state(pole)) > 0.1);
  const double lm4 = mbtest::max_position_difference(mbtest::simulate(pole, "LM4", 0.002, 0.5), pole_ref);
  INFO("LM4 - ref (the pole alone): " << lm4 << " m");
  CHECK(lm4 < 1e-7);
}

TEST_CASE("damping: the peer engines map the dampers and agree with ref", "[damping][peers]") {
  const mb::Model m = cart_pole();
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 0.5);
  struct Case {
    const char* engine;
    double bound;  // m at 0.5 s, h = 1 ms
  };
  for (const Case c : {Case{"mujoco", 1e-8}, Case{"simbody", 1e-6}, Case{"dart", 5e-3}, Case{"ode", 5e-3}}) {
    if (!mbtest::peer_built(c.engine)) continue;
    const double e = mbtest::max_position_difference(mbtest::simulate(m, c.engine, 0.001, 0.5), ref);
    INFO(c.engine << " - ref at 0.5 s: " << e << " m");
    CHECK(e < c.bound);
  }
  if (mbtest::peer_built("bullet")) {
    const mb::MethodEntry* bullet = mb::find_method("bullet");
    CHECK_THAT(mb::unsupported_reason(bullet->info, m), Catch::Contains("bullet does not support joint dampers"));
  }
}

TEST_CASE("damping: the scene key round-trips and bad values name the field", "[damping]") {
  const mb::Model m = cart_pole();
  const std::string text = mb::scene_to_toml(m);
  CHECK_THAT(text, Catch::Contains("damping = 0.8") && Catch::Contains("damping = 0.05"));
  const mb::Model back = mb::parse_scene(text, "cart.toml");
  REQUIRE(back.joints.size() == 2);
  CHECK(back.joints[0].damping == kRail);
  CHECK(back.joints[1].damping == kPivot);
  CHECK(mb::scene_to_toml(back) == text);
  std::string ball = text;
  ball.replace(ball.find("type = \"hinge\""), 14, "type = \"ball\"");
  CHECK_THROWS_WITH(mb::parse_scene(ball, "cart.toml"), Catch::Contains("damping") && Catch::Contains("only a hinge or a slider"));
  std::string negative = text;
  negative.replace(negative.find("damping = 0.8"), 13, "damping = -0.8");
  CHECK_THROWS_WITH(mb::parse_scene(negative, "cart.toml"), Catch::Contains("finite and >= 0"));
}

TEST_CASE("damping: URDF <dynamics damping> with damping=on, in GC4 and ref", "[damping][urdf]") {
  if (!mb::urdf_supported()) {
    WARN("URDF import is not built, skipped");
    return;
  }
  // the cart-pole as a URDF: a prismatic rail and a continuous pivot, both with <dynamics>
  const char* urdf = R"(<robot name="cartpole">
  <link name="world"/>
  <joint name="rail" type="prismatic"><parent link="world"/><child link="cart"/><axis xyz="1 0 0"/>
    <limit lower="-5" upper="5" effort="100" velocity="10"/><dynamics damping="0.8" friction="0.1"/></joint>
  <link name="cart"><inertial><mass value="2"/><inertia ixx="0.02" ixy="0" ixz="0" iyy="0.05" iyz="0" izz="0.06"/></inertial></link>
  <joint name="pivot" type="continuous"><parent link="cart"/><child link="pole"/><axis xyz="0 1 0"/>
    <origin xyz="0 0 0" rpy="0 1.0471975511965976 0"/><dynamics damping="0.05"/></joint>
  <link name="pole"><inertial><origin xyz="0 0 -0.5"/><mass value="0.5"/>
    <inertia ixx="0.042" ixy="0" ixz="0" iyy="0.042" iyz="0" izz="0.001"/></inertial></link>
</robot>)";
  const mb::Model off = mb::parse_urdf(urdf, "cartpole.urdf");
  CHECK((mb::model_features(off) & mb::kJointDampers) == 0);
  CHECK_THAT(off.info.warnings.back(), Catch::Contains("joint damping and friction are not modelled (damping=on applies the damping)") &&
                                           Catch::Contains("rail (damping 0.8, friction 0.1)"));
  mb::UrdfOptions o;
  o.damping = true;
  const mb::Model m = mb::parse_urdf(urdf, "cartpole.urdf", o);
  REQUIRE(m.joints.size() == 2);
  CHECK(m.joints[0].damping == 0.8);
  CHECK(m.joints[1].damping == 0.05);
  CHECK_FALSE(m.info.energy_conserved);
  CHECK_THAT(m.info.warnings.back(), Catch::Contains("joint friction is not modelled: rail (friction 0.1)"));
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 1.0);
  const double e = mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 1.0), ref);
  INFO("GC4 - ref: " << e << " m");
  CHECK(e < 1e-8);
  CHECK(mbtest::max_position_difference(mbtest::simulate(off, "ref", 0.001, 1.0), ref) > 1e-2);
  // a negative damping names the joint
  std::string bad = urdf;
  bad.replace(bad.find("damping=\"0.05\""), 14, "damping=\"-0.05\"");
  CHECK_THROWS_WITH(mb::parse_urdf(bad, "cartpole.urdf", o), Catch::Contains("joint[pivot].dynamics.damping"));
}

TEST_CASE("damping: MJCF dof_damping with damping=on", "[damping][mjcf]") {
  if (!mb::mjcf_supported()) {
    WARN("MJCF import is not built, skipped");
    return;
  }
  const std::string path = "damping_test_hinges.xml";
  {
    std::ofstream f(path);
    f << R"(<mujoco model="damped"><option timestep="0.001"/>
  <worldbody><body name="a" pos="0 0 1"><joint name="h1" type="hinge" axis="0 1 0" damping="0.3"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05" contype="0" conaffinity="0"/>
    <body name="b" pos="0.5 0 0"><joint name="s1" type="slide" axis="1 0 0" damping="2"/>
      <geom type="sphere" size="0.1" contype="0" conaffinity="0"/>
      <body name="c"><joint name="ball" type="ball" damping="1"/><geom type="box" size="0.1 0.05 0.02" pos="0.2 0 0" contype="0" conaffinity="0"/></body>
    </body></body></worldbody></mujoco>)";
  }
  const mb::Model off = mb::load_mjcf(path);
  CHECK_FALSE(mb::has_joint_dampers(off));
  CHECK_THAT(off.info.warnings.at(0), Catch::Contains("damping on 3 joint(s) (damping=on applies it)"));
  // a ball joint's damper is not mapped: refused by name
  CHECK_THROWS_WITH(mb::load_mjcf(path + ":damping=on"), Catch::Contains("joint 'ball' is a ball joint with damping"));
  {
    std::ofstream f(path);
    f << R"(<mujoco model="damped"><option timestep="0.001"/>
  <worldbody><body name="a" pos="0 0 1"><joint name="h1" type="hinge" axis="0 1 0" damping="0.3"/>
    <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.05" contype="0" conaffinity="0"/>
    <body name="b" pos="0.5 0 0"><joint name="s1" type="slide" axis="1 0 0" damping="2"/>
      <geom type="sphere" size="0.1" contype="0" conaffinity="0"/></body></body></worldbody></mujoco>)";
  }
  const mb::Model m = mb::load_mjcf(path + ":damping=on");
  REQUIRE(m.joints.size() == 2);
  CHECK(m.joints[0].damping == 0.3);
  CHECK(m.joints[1].damping == 2);
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 1.0);
  const double e = mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 1.0), ref);
  INFO("GC4 - ref: " << e << " m");
  CHECK(e < 1e-8);
  // MuJoCo's own damping (the file loaded by our mujoco adapter, RK4) agrees
  const double em = mbtest::max_position_difference(mbtest::simulate(m, "mujoco", 0.001, 1.0), ref);
  INFO("mujoco - ref: " << em << " m");
  CHECK(em < 1e-6);
  std::remove(path.c_str());
}
