// URDF import (models/formats/urdf.cpp, docs/robots.md): the merge of fixed links (mass, centre of mass and
// inertia against a hand computation), the spec options, the errors of bad files (here through
// the library; tests/bad_input_test.cpp runs the files of tests/data/bad/urdf/ through the CLI),
// a floating robot in free fall, and the robots of tests/data/robots/ in GC4 against ref and in
// the peer engines MuJoCo and Simbody.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <string>

#include "cli_util.hpp"
#include "methods/method.hpp"
#include "methods/peers/translation.hpp"
#include "models/catalog.hpp"
#include "models/formats/mesh_hull.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/formats/xml_numbers.hpp"
#include "test_methods.hpp"
#include "test_util.hpp"

#if __has_include(<tinyxml.h>)
#include <tinyxml.h>
#endif

namespace {

const std::string kRobots = MBBENCH_TEST_DATA "/robots/";

bool urdf_built() {
  if (mb::urdf_supported()) return true;
  WARN("URDF import is not built (MBBENCH_WITH_URDF off: liburdfdom-dev not found), skipped");
  return false;
}


// A massless root, link A (2 kg) on a hinge 1 m up, link B (1 kg) welded to A 1 m along x and
// turned 90 degrees about z, a massless frame "tool" welded to B.
const char* kMerge = R"(<robot name="merge">
  <link name="world"/>
  <joint name="hinge" type="continuous">
    <parent link="world"/><child link="A"/>
    <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/>
  </joint>
  <link name="A"><inertial><origin xyz="0 0 0"/><mass value="2"/>
    <inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>
  <joint name="weld" type="fixed">
    <parent link="A"/><child link="B"/>
    <origin xyz="1 0 0" rpy="0 0 1.5707963267948966"/>
  </joint>
  <link name="B"><inertial><origin xyz="0 0 0"/><mass value="1"/>
    <inertia ixx="0.01" ixy="0" ixz="0" iyy="0.02" iyz="0" izz="0.03"/></inertial></link>
  <joint name="tool_joint" type="fixed">
    <parent link="B"/><child link="tool"/>
    <origin xyz="0 0.5 0" rpy="0 0 0"/>
  </joint>
  <link name="tool"/>
</robot>)";

const mb::NamedFrame* frame(const mb::Model& m, const std::string& name) {
  for (const mb::NamedFrame& f : m.info.frames)
    if (f.name == name) return &f;
  return nullptr;
}

// InputError's message of parsing `text` as `path` (empty: no error)
std::string error_of(const std::string& text, const mb::UrdfOptions& o = {}) {
  try {
    mb::parse_urdf(text, "robot.urdf", o);
  } catch (const mb::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("urdf: a link welded by a fixed joint is merged into its parent (mass, centre of mass, inertia)", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::parse_urdf(kMerge, "merge.urdf");
  REQUIRE(m.bodies.size() == 1);
  REQUIRE(m.joints.size() == 1);
  const mb::Body& b = m.bodies[0];
  CHECK(b.name == "A");
  // by hand: mass 3; centre (2 (0, 0, 1) + 1 (1, 0, 1)) / 3 = (1/3, 0, 1); about it, world axes:
  // A diag(0.1, 0.2, 0.3) + 2 diag(0, 1/9, 1/9), B turned about z diag(0.02, 0.01, 0.03) + 1 diag(0, 4/9, 4/9)
  CHECK(b.mass == 3);
  CHECK((b.position - mb::Vec3(1.0 / 3, 0, 1)).norm() < 1e-15);
  const mb::Mat3 R = b.orientation.toRotationMatrix();
  const mb::Mat3 I = R * b.inertia * R.transpose();
  mb::Mat3 expected = mb::Vec3(0.12, 0.21 + 6.0 / 9, 0.33 + 6.0 / 9).asDiagonal();
  INFO("inertia about the centre of mass, world axes:\n" << I);
  CHECK((I - expected).cwiseAbs().maxCoeff() < 1e-15);
  // the hinge: at (0, 0, 1), axis y, in the merged body's frame
  const mb::Joint& j = m.joints[0];
  CHECK(j.name == "hinge");
  CHECK(j.a == mb::kWorld);
  CHECK((j.anchor_a - mb::Vec3(0, 0, 1)).norm() < 1e-15);
  CHECK((b.position + b.orientation * j.anchor_b - mb::Vec3(0, 0, 1)).norm() < 1e-15);
  CHECK((b.orientation * j.axis_b - mb::Vec3::UnitY()).norm() < 1e-15);
  // the frames keep every link's name: B and tool on the body, the root on the world
  const mb::NamedFrame* tool = frame(m, "tool");
  REQUIRE(tool);
  CHECK(tool->body == 0);
  // tool: 0.5 m along B's y from B's origin (1, 0, 1); B is turned 90 degrees about z, its y is world -x
  CHECK((b.position + b.orientation * tool->position - mb::Vec3(0.5, 0, 1)).norm() < 1e-15);
  REQUIRE(frame(m, "world"));
  CHECK(frame(m, "world")->body == mb::kWorld);
  REQUIRE(frame(m, "B"));
  CHECK(frame(m, "B")->body == 0);
}

TEST_CASE("urdf: a massless link on a hinge with a massive link welded to it is one body named after the massive one", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::parse_urdf(R"(<robot name="r"><link name="base"/>
    <joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/>
      <origin xyz="0 0 1" rpy="0 0 0"/><axis xyz="0 1 0"/></joint>
    <link name="upper"/>
    <joint name="weld" type="fixed"><parent link="upper"/><child link="upper_mass"/><origin xyz="0.5 0 0" rpy="0 0 0"/></joint>
    <link name="upper_mass"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>
  </robot>)",
                                     "r.urdf");
  REQUIRE(m.bodies.size() == 1);
  CHECK(m.bodies[0].name == "upper_mass");
  CHECK(m.bodies[0].position == mb::Vec3(0.5, 0, 1));
  REQUIRE(m.joints.size() == 1);
  CHECK(m.joints[0].b == 0);
  CHECK(m.joints[0].anchor_b == mb::Vec3(-0.5, 0, 0));  // the hinge stays at the massless link's origin
  REQUIRE(frame(m, "upper"));
  CHECK(frame(m, "upper")->position == mb::Vec3(-0.5, 0, 0));
}

TEST_CASE("urdf: a lone massive link keeps its inertial frame and numbers", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::load_model(MBBENCH_TEST_DATA "/urdf/arm.urdf");
  // the arm's tool (0.1 kg) is welded to the slide: one body, mass 0.4
  REQUIRE(m.bodies.size() == 3);
  CHECK(m.bodies[0].name == "upper");
  CHECK(m.bodies[0].mass == 1.0);
  CHECK(m.bodies[0].inertia == mb::Vec3(0.002, 0.0218, 0.0215).asDiagonal().toDenseMatrix());
  CHECK(m.bodies[2].mass == Approx(0.4).epsilon(1e-15));
  CHECK(m.joints.size() == 3);
}

TEST_CASE("urdf: the robots' massless frames are merged and their masses add up", "[urdf]") {
  if (!urdf_built()) return;
  struct Case {
    const char* file;
    size_t bodies, joints;
    double mass;  // kg, the moving links' total
  };
  for (const Case& c : {Case{"ur5.urdf", 6, 6, 3.7 + 8.393 + 2.33 + 1.219 + 1.219 + 0.1879},
                        Case{"panda.urdf", 7, 7, 4.970684 + 0.646926 + 3.228604 + 3.587895 + 1.225946 + 1.666555 + 0.735522 + 0.73},
                        Case{"quadruped.urdf:base=free", 13, 12, 4.713 + 4 * (0.696 + 1.013 + 0.166)}}) {
    INFO(c.file);
    const mb::Model m = mb::load_model(kRobots + c.file);
    CHECK(m.bodies.size() == c.bodies);
    CHECK(m.joints.size() == c.joints);
    double mass = 0;
    for (const mb::Body& b : m.bodies) mass += b.mass;
    CHECK(mass == Approx(c.mass).epsilon(1e-14));
    for (const mb::Joint& j : m.joints) CHECK(j.type == mb::JointType::Hinge);
  }
  // the quadruped's base is a massless root welded to the trunk: the free body is the trunk
  const mb::Model q = mb::load_model(kRobots + "quadruped.urdf:base=free");
  CHECK(q.bodies[0].name == "trunk");
  for (const mb::Joint& j : q.joints) CHECK(j.a != mb::kWorld);
  REQUIRE(frame(q, "base"));
  CHECK(frame(q, "base")->body == 0);
  // base=fixed: the trunk is the world, 12 bodies
  CHECK(mb::load_model(kRobots + "quadruped.urdf").bodies.size() == 12);
}

TEST_CASE("urdf: spec options (base, collisions, limits) and the joint limits", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model plain = mb::load_model(kRobots + "quadruped.urdf:base=free");
  CHECK(plain.shapes.empty());
  CHECK(plain.info.warnings.empty());
  // <limit lower upper> of every revolute joint as its hinge's limits (the file's zero is the start)
  int limited = 0;
  for (const mb::Joint& j : plain.joints) {
    limited += j.limited();
    if (j.name == "FR_hip_joint") CHECK((j.lower == -0.802851455917 && j.upper == 0.802851455917));
  }
  CHECK(limited == 12);
  CHECK_FALSE(mb::has_joint_limits(mb::load_model(kRobots + "quadruped.urdf:base=free,limits=ignore")));
  const mb::Model c = mb::load_model(kRobots + "quadruped.urdf:base=free,collisions=primitives,limits=ignore");
  CHECK(c.info.warnings.empty());
  // the trunk's box, four thighs' cylinders, four feet's spheres (the feet merged into the calves)
  REQUIRE(c.shapes.size() == 9);
  CHECK(c.shapes[0].type == mb::ShapeType::Box);
  CHECK(c.shapes[0].half_extents == mb::Vec3(0.1335, 0.097, 0.057));
  int spheres = 0, cylinders = 0;
  for (const mb::Shape& s : c.shapes) {
    spheres += s.type == mb::ShapeType::Sphere;
    cylinders += s.type == mb::ShapeType::Cylinder;
    if (s.type == mb::ShapeType::Sphere) {
      // a foot, on its calf's body: 0.2 m down the thigh pitched 0.8 rad, 0.2 m down the calf
      // pitched -1.5 rad from the thigh
      const mb::Body& calf = c.bodies[static_cast<size_t>(s.body)];
      CHECK(calf.name.find("_calf") != std::string::npos);
      CHECK((calf.position + calf.orientation * s.position).z() == Approx(-0.2 * (std::cos(0.8) + std::cos(0.7))).margin(1e-15));
    }
  }
  CHECK(spheres == 4);
  CHECK(cylinders == 4);
  CHECK(c.materials.size() == 1);
  // a bad value of an option, an unknown option
  CHECK_THROWS_WITH(mb::load_model(kRobots + "ur5.urdf:base=floating"), Catch::Contains("option 'base'") && Catch::Contains("not one of the choices"));
  CHECK_THROWS_WITH(mb::load_model(kRobots + "ur5.urdf:damping=yes"), Catch::Contains("option 'damping'") && Catch::Contains("not one of the choices"));
  CHECK_THROWS_WITH(mb::load_model(kRobots + "ur5.urdf:friction=on"), Catch::Contains("option 'friction'"));
  CHECK_THROWS_WITH(mb::load_model(kRobots + "ur5.urdf:gravity=on"), Catch::Contains("unknown option 'gravity'"));
  // floor=on: a half-space touching the lowest collision shape (the feet) at the start; a height;
  // it needs the shapes
  const mb::Model f = mb::load_model(kRobots + "quadruped.urdf:base=free,floor=on,friction=0.8,limits=ignore");
  REQUIRE(f.shapes.size() == 10);
  const mb::Shape& floor = f.shapes.back();
  CHECK(floor.type == mb::ShapeType::HalfSpace);
  CHECK(floor.body == mb::kWorld);
  CHECK((floor.orientation * mb::Vec3::UnitY() - mb::Vec3::UnitZ()).norm() < 1e-15);
  CHECK(floor.position.z() == Approx(-0.2 * (std::cos(0.8) + std::cos(0.7)) - 0.02).margin(1e-12));
  CHECK(f.materials.size() == 1);
  CHECK(f.materials[0].mu_dynamic == 0.8);
  CHECK(mb::load_model(kRobots + "quadruped.urdf:base=free,floor=-0.5,limits=ignore").shapes.back().position.z() == -0.5);
  CHECK_THROWS_WITH(mb::load_model(kRobots + "quadruped.urdf:floor=on,collisions=off"), Catch::Contains("floor=on needs the collision shapes"));
  CHECK_THROWS_WITH(mb::load_model(kRobots + "quadruped.urdf:floor=low"), Catch::Contains("'low' is not off, on or a height"));
  CHECK_THROWS_WITH(mb::load_model(kRobots + "nosuch.urdf:base=free"), Catch::Contains("no URDF file"));
}

TEST_CASE("urdf: every bad value is an InputError naming the file and the link or joint", "[urdf]") {
  if (!urdf_built()) return;
  const std::string head = R"(<robot name="r"><link name="base"/>)";
  auto hinge = [](const std::string& axis, const std::string& xyz = "0 0 1") {
    return R"(<joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/><origin xyz=")" + xyz +
           R"(" rpy="0 0 0"/><axis xyz=")" + axis + R"("/></joint>)";
  };
  auto link = [](const std::string& mass, const std::string& iyy = "0.1", const std::string& extra = "") {
    return R"(<link name="upper"><inertial><mass value=")" + mass + R"("/><inertia ixx="0.1" ixy="0" ixz="0" iyy=")" + iyy +
           R"(" iyz="0" izz="0.1"/></inertial>)" + extra + "</link>";
  };
  struct Case {
    std::string text, fragment;
  };
  const Case cases[] = {
      {head + hinge("0 0 0") + link("1") + "</robot>", "field 'joint[shoulder].axis': axis must be non-zero"},
      {head + hinge("0 1 0") + link("-1") + "</robot>", "field 'link[upper].inertial.mass': mass must be finite and non-negative, got -1"},
      {head + hinge("0 1 0") + link("1", "-0.1") + "</robot>", "field 'link[upper].inertial.inertia': inertia is not positive definite"},
      // a massless leaf link on a joint: with an inertia about its axis refused; without one its joint
      // is held, and nothing moves (a static object, with base=auto)
      {head + hinge("0 1 0") + link("0") + "</robot>", "field 'link[upper]': the link moved by joint 'shoulder' has no mass"},
      {head + hinge("0 1 0") + R"(<link name="upper"/></robot>)", "the robot has no moving link"},
      {head + hinge("0 1 0") + link("1", "0.1", R"(<collision><geometry><mesh filename="upper.stl"/></geometry></collision>)") + "</robot>",
       "field 'link[upper].collision[0].geometry': a mesh ('upper.stl') is not mapped"},
      {head + R"(<joint name="slide" type="planar"><parent link="base"/><child link="upper"/><axis xyz="0 0 1"/></joint>)" + link("1") + "</robot>",
       "field 'joint[slide].type': a planar joint is not mapped"},
      {head + R"(<joint name="float" type="floating"><parent link="base"/><child link="upper"/></joint>)" + link("1") + "</robot>",
       "field 'joint[float].type': a floating joint is not mapped"},
      // refused by liburdfdom: its message, naming the links or the joint, in our error
      {head + hinge("0 1 0") + R"(</robot>)", "liburdfdom: Failed to build tree: child link [upper] of joint [shoulder] not found"},
      // a joint from a link to itself: the link reached twice (and the link it left out floats)
      {head + hinge("0 1 0") + link("1") + R"(<joint name="self" type="continuous"><parent link="upper"/><child link="upper"/>)"
                                           R"(<axis xyz="0 1 0"/></joint><link name="out"/></robot>)",
       "field 'joint[self].child': link 'upper' is reached a second time: the joints form a loop"},
      // non-finite numbers, found before liburdfdom reads the file: the element's line and the attribute
      {head + hinge("0 1 0", "0 nan 1") + link("1") + "</robot>", "robot.urdf:1: field 'joint[shoulder].origin': attribute xyz=\"0 nan 1\": numbers must be finite"},
      {head + hinge("0 1 0") + link("nan") + "</robot>", "field 'link[upper].inertial.mass': attribute value=\"nan\": numbers must be finite"},
      {head + hinge("0 1 0") + link("1", "-Infinity") + "</robot>", "field 'link[upper].inertial.inertia': attribute iyy=\"-Infinity\""},
      {head + hinge("0 1 0") + link("1", "1e999") + "</robot>", "field 'link[upper].inertial.inertia': attribute iyy=\"1e999\""},
  };
  for (const Case& c : cases) {
    INFO(c.text);
    mb::UrdfOptions o;
    o.collisions = true;
    const std::string e = error_of(c.text, o);
    CHECK_THAT(e, Catch::StartsWith("robot.urdf:") && Catch::Contains(c.fragment));
  }
  // base=free needs a mass in the root's group
  mb::UrdfOptions free;
  free.free_base = true;
  CHECK_THAT(error_of(head + hinge("0 1 0") + link("1") + "</robot>", free), Catch::Contains("field 'link[base]': base=free needs a mass"));
}

TEST_CASE("urdf: the CLI says once that a method runs without the limits and exits 2 on a bad option", "[urdf][cli]") {
  if (!urdf_built()) return;
  auto r = mbtest::run_cli("run " + kRobots + "ur5.urdf GC4 --h 0.01 --duration 0.1");
  INFO(r.output);
  CHECK(r.code == 0);
  const std::string w = "mbbench: warning: GC4 runs without the joint limits of 6 joint(s) (it does not claim them)";
  CHECK_THAT(r.output, Catch::Contains(w));
  CHECK(r.output.find(w) == r.output.rfind(w));
  r = mbtest::run_cli("run " + kRobots + "ur5.urdf:limits=ignore GC4 --h 0.01 --duration 0.1");
  CHECK(r.code == 0);
  CHECK(r.output.find("warning") == std::string::npos);
  r = mbtest::run_cli("run " + kRobots + "ur5.urdf:collisions=meshes GC4 --duration 0.1");
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("option 'collisions'") && Catch::Contains("ur5.urdf"));
}

TEST_CASE("urdf: a floating robot without contacts falls freely, every body g t^2 / 2", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::load_model(kRobots + "quadruped.urdf:base=free");
  const mb::State s0 = mb::initial_state(m);
  const double t = 0.5, drop = 9.81 * t * t / 2;
  for (const char* method : {"GC4", "linear", "sle"}) {
    INFO(method);
    const mb::State s = mbtest::simulate(m, method, 0.001, t);
    double worst = 0;
    for (size_t i = 0; i < m.bodies.size(); ++i)
      worst = std::max(worst, (s.bodies[i].x - (s0.bodies[i].x - mb::Vec3(0, 0, drop))).norm());
    INFO("worst deviation from the free fall " << worst << " m");
    CHECK(worst < 1e-9);
  }
}

TEST_CASE("urdf: the robots in GC4 agree with ref at 1 s (h = 1 ms)", "[urdf]") {
  if (!urdf_built()) return;
  for (const char* file : {"ur5.urdf", "panda.urdf", "quadruped.urdf"}) {
    INFO(file);
    const mb::Model m = mb::load_model(kRobots + file);
    const mb::State gc4 = mbtest::simulate(m, "GC4", 0.001, 1.0), ref = mbtest::simulate(m, "ref", 0.001, 1.0);
    const double moved = mbtest::max_position_difference(mb::initial_state(m), ref);
    const double e = mbtest::max_position_difference(gc4, ref);
    INFO("GC4 - ref: " << e << " m; the robot moved " << moved << " m");
    CHECK(moved > 0.05);
    CHECK(e < 1e-4);
  }
}

TEST_CASE("urdf: the robots run in MuJoCo and Simbody and agree with ref", "[urdf][peers]") {
  if (!urdf_built()) return;
  for (const char* file : {"ur5.urdf", "panda.urdf", "quadruped.urdf", "quadruped.urdf:base=free"}) {
    const mb::Model m = mb::load_model(kRobots + file + std::string(std::strchr(file, ':') ? "," : ":") + "limits=ignore");  // ref has none
    const mb::State ref = mbtest::simulate(m, "ref", 0.001, 1.0);
    for (const char* engine : {"mujoco", "simbody"}) {
      if (!mbtest::peer_built(engine)) continue;
      INFO(file << " in " << engine);
      const double e = mbtest::max_position_difference(mbtest::simulate(m, engine, 0.001, 1.0), ref);
      INFO(engine << " - ref at 1 s, h = 1 ms: " << e << " m");
      CHECK(e < 1e-4);
    }
  }
}

TEST_CASE("urdf: a collision name used twice names its shape by its link instead, and the scene reads back", "[urdf]") {
  if (!urdf_built()) return;
  mb::UrdfOptions o;
  o.collisions = true;
  const mb::Model m = mb::parse_urdf(R"(<robot name="r"><link name="base"/>
    <joint name="j1" type="continuous"><parent link="base"/><child link="a"/><axis xyz="0 0 1"/></joint>
    <link name="a"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
      <collision name="c"><geometry><sphere radius="0.1"/></geometry></collision></link>
    <joint name="j2" type="continuous"><parent link="a"/><child link="b"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/></joint>
    <link name="b"><inertial><mass value="1"/><inertia ixx="1" ixy="0" ixz="0" iyy="1" iyz="0" izz="1"/></inertial>
      <collision name="c"><geometry><sphere radius="0.1"/></geometry></collision>
      <collision name="c"><origin xyz="0.2 0 0"/><geometry><sphere radius="0.1"/></geometry></collision></link>
    </robot>)", "r.urdf", o);
  REQUIRE(m.shapes.size() == 3);
  CHECK(m.shapes[0].name == "c");
  CHECK(m.shapes[1].name == "b/0");
  CHECK(m.shapes[2].name == "b/1");
  const mb::Model back = mb::parse_scene(mb::scene_to_toml(m), "r.toml");
  REQUIRE(back.shapes.size() == 3);
  CHECK(back.shapes[2].name == "b/1");
}

TEST_CASE("urdf: a point mass or a singular inertia welded to a link is merged - alone on a joint through it it is refused", "[urdf]") {
  if (!urdf_built()) return;
  // public robots weld such links to their trunks and wrists: a 'base' of 1e-3 kg whose inertia is
  // 1e-6 in every entry (rank 1), a force sensor's tool link of 0.1 kg with inertia 0
  auto robot = [](const std::string& sensor_joint) {
    return R"(<robot name="r"><link name="world"/>
    <joint name="j1" type="continuous"><parent link="world"/><child link="a"/><axis xyz="0 1 0"/></joint>
    <link name="a"><inertial><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>
    <joint name="j2" type=")" + sensor_joint + R"("><parent link="a"/><child link="tool"/><origin xyz="0.5 0 0"/><axis xyz="0 1 0"/></joint>
    <link name="tool"><inertial><mass value="0.1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link>
    <joint name="j3" type="fixed"><parent link="a"/><child link="dummy"/></joint>
    <link name="dummy"><inertial><mass value="0.001"/><inertia ixx="1e-6" ixy="1e-6" ixz="1e-6" iyy="1e-6" iyz="1e-6" izz="1e-6"/></inertial></link>
    </robot>)";
  };
  const mb::Model m = mb::parse_urdf(robot("fixed"), "r.urdf");
  REQUIRE(m.bodies.size() == 1);
  CHECK(m.bodies[0].mass == Approx(2.101).epsilon(1e-14));
  // the tool's point mass 0.5 m out along x adds m d^2 = 0.025 to iyy and izz about the joint
  // axis; the sum stays positive definite
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 0.2);
  CHECK(mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 0.2), ref) < 1e-9);
  // alone on a hinge through it, the point mass adds nothing to the joint-space mass matrix: the
  // hinge is held (the body is the welded one) or, with strict=on, refused by name
  const mb::Model held = mb::parse_urdf(robot("continuous"), "r.urdf");
  REQUIRE(held.bodies.size() == 1);
  CHECK(held.bodies[0].mass == m.bodies[0].mass);
  CHECK(held.bodies[0].inertia == m.bodies[0].inertia);
  CHECK_THAT(held.info.warnings.back(), Catch::Contains("joints that move no mass") && Catch::Contains("welded: j2;"));
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(robot("continuous"), strict),
             Catch::Contains("field 'joint[j2]': the joint-space mass matrix at the initial pose is singular at joint 'j2'"));
  // a point mass written with an off-diagonal of round-off size (eigenvalues +-1e-20) is a point
  // mass; an off-diagonal at the scale of the mass at 1 mm is a real indefinite inertia
  auto tool_ixz = [&](const char* ixz) {
    std::string text = robot("fixed");
    const std::string zero = R"(<mass value="0.1"/><inertia ixx="0" ixy="0" ixz="0")";
    text.replace(text.find(zero), zero.size(), std::string(R"(<mass value="0.1"/><inertia ixx="0" ixy="0" ixz=")") + ixz + '"');
    return text;
  };
  CHECK(mb::parse_urdf(tool_ixz("1.4e-20"), "r.urdf").bodies[0].mass == Approx(2.101).epsilon(1e-14));
  CHECK_THROWS_WITH(mb::parse_urdf(tool_ixz("1e-7"), "r.urdf"), Catch::Contains("field 'link[tool].inertial.inertia': inertia is not positive definite"));
}

namespace {

// one convention of Drake's or PyBullet's URDF: a robot of one hinge with the convention in it, the
// warning it gives, and liburdfdom's refusal with strict=on (empty: liburdfdom ignores it)
struct Convention {
  const char* name;
  std::string text;
  const char* warning;
  const char* strict;
};

std::string one_hinge(const std::string& joint_extra, const std::string& link_extra = "", const std::string& type = "continuous",
                      const std::string& parent = "base", const std::string& inertia = R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/>)") {
  return std::string(R"(<robot name="r" xmlns:drake="http://drake.mit.edu">)") + (parent == "base" ? R"(<link name="base"/>)" : "") +
         R"(<joint name="shoulder" type=")" + type + R"("><parent link=")" + parent + R"("/><child link="upper"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/>)" +
         joint_extra + R"(</joint><link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>)" + inertia + "</inertial>" + link_extra +
         "</link></robot>";
}

}  // namespace

TEST_CASE("urdf: Drake's and PyBullet's conventions are read with one warning each and strict=on refuses them", "[urdf]") {
  if (!urdf_built()) return;
  std::string materials_twice = one_hinge("");
  materials_twice.insert(materials_twice.find("<link"), R"(<material name="white"><color rgba="1 1 1 1"/></material>)"
                                                        R"(<material name="white"><color rgba="0.9 0.9 0.9 1"/></material>)");
  const Convention conventions[] = {
      {"undeclared world", one_hinge("", "", "continuous", "world"), "the parent link 'world' is not declared: it is the fixed world",
       "parent link [world] of joint [shoulder] not found"},
      {"revolute without limit", one_hinge("", "", "revolute"), "joints without <limit> have no limits: shoulder", "does not specify limits"},
      {"prismatic without limit", one_hinge("", "", "prismatic"), "joints without <limit> have no limits: shoulder", "PRISMATIC without limits"},
      {"limit without effort", one_hinge(R"(<limit lower="-1" upper="1"/>)", "", "revolute"), "a <limit> without effort or velocity", "no effort"},
      {"unnamed material", one_hinge("", R"(<visual><geometry><box size="1 1 1"/></geometry><material><color rgba="1 0 0 1"/></material></visual>)"),
       "<material> without a name (appearance only) ignored in: link upper", "Visual material must contain a name attribute"},
      {"capsule", one_hinge("", R"(<collision><geometry><capsule radius="0.1" length="0.5"/></geometry></collision>)"),
       "<capsule> geometry (Bullet's and Drake's) maps as a capsule in links: upper", "Unknown geometry type 'capsule'"},
      {"inertial without inertia", one_hinge("", "", "continuous", "base", ""), "an <inertial> without <inertia> or some of its moments",
       "Inertial element must have inertia element"},
      {"limit reversed", one_hinge(R"(<limit lower="1" upper="-1" effort="1" velocity="1"/>)", "", "revolute"),
       "a <limit> whose lower end is above the upper one is no limit (PyBullet's convention): shoulder", "lower (1) is above upper (-1)"},
      {"material defined twice", materials_twice, "<material> defined again (appearance only), the first definition kept: white",
       "material 'white' is not unique"},
      {"visual without geometry", one_hinge("", R"(<visual><origin xyz="0 0 0"/></visual>)"), "<visual> without <geometry> ignored in links: upper",
       "Could not parse visual element for Link [upper]"},
      {"extension elements", one_hinge(R"(<drake:rotor_inertia value="1"/>)", R"(<contact><lateral_friction value="1"/></contact>)"),
       "extension elements ignored: <contact>, <drake:rotor_inertia>", ""},
      {"spherical joint", one_hinge("", "", "spherical"), "spherical (Bullet's) and ball (Drake's) joints map as ball joints: shoulder",
       "has no known type [spherical]"},
      {"plane geometry", one_hinge("", R"(<collision><geometry><plane normal="0 0 1"/></geometry></collision>)"),
       "geometry that URDF does not define: its <collision> or <visual> ignored: <plane> in link upper", "Unknown geometry type 'plane'"},
  };
  mb::UrdfOptions lenient, strict;
  lenient.collisions = strict.collisions = true;
  strict.strict = true;
  for (const Convention& c : conventions) {
    INFO(c.name << ": " << c.text);
    const mb::Model m = mb::parse_urdf(c.text, "r.urdf", lenient);
    CHECK(m.bodies.size() == 1);
    CHECK(m.joints.size() == 1);
    int lines = 0;
    for (const std::string& w : m.info.warnings) {
      lines += w.find(c.warning) != std::string::npos;
      CHECK_THAT(w, Catch::StartsWith("r.urdf: "));
    }
    CHECK(lines == 1);
    if (*c.strict) {
      CHECK_THAT(error_of(c.text, strict), Catch::Contains(c.strict));
    } else {
      CHECK(mb::parse_urdf(c.text, "r.urdf", strict).info.warnings.empty());
    }
  }
  // a joint without <limit> has none; a capsule is a Capsule of the cylinder's length between its caps
  const mb::Model prismatic = mb::parse_urdf(conventions[2].text, "r.urdf", lenient);
  CHECK(prismatic.joints[0].type == mb::JointType::Slider);
  CHECK(!prismatic.joints[0].limited());
  for (const mb::Model& m : {mb::parse_urdf(conventions[1].text, "r.urdf", lenient), prismatic}) CHECK(!m.joints[0].limited());
  const mb::Model capsule = mb::parse_urdf(conventions[5].text, "r.urdf", lenient);
  REQUIRE(capsule.shapes.size() == 1);
  CHECK(capsule.shapes[0].type == mb::ShapeType::Capsule);
  CHECK(capsule.shapes[0].radius == 0.1);
  CHECK(capsule.shapes[0].length == 0.5);
  // <?xml version="0.0"?> (PyBullet's files) is read as it is, without a warning
  CHECK(mb::parse_urdf(R"(<?xml version="0.0" ?>)" + one_hinge(""), "r.urdf", lenient).info.warnings.empty());
}

TEST_CASE("urdf: a root of mass 0 with an inertia is ignored with base=fixed and refused by name with base=free", "[urdf]") {
  if (!urdf_built()) return;
  const std::string text = R"(<robot name="r"><link name="base"><inertial><mass value="0"/>)"
                           R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="-0.1" iyz="0" izz="0.1"/></inertial></link>)"
                           R"(<joint name="shoulder" type="continuous"><parent link="base"/><child link="upper"/><axis xyz="0 1 0"/></joint>)"
                           R"(<link name="upper"><inertial><origin xyz="0.5 0 0"/><mass value="1"/>)"
                           R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link></robot>)";
  const mb::Model m = mb::parse_urdf(text, "r.urdf");
  CHECK(m.bodies.size() == 1);
  CHECK(m.info.warnings.empty());
  mb::UrdfOptions free;
  free.free_base = true;
  CHECK_THAT(error_of(text, free), Catch::Contains("field 'link[base].inertial.mass': base=free: the root link 'base' has mass 0 and an inertia"));
  // a negative mass is refused on the root too
  std::string negative = text;
  negative.replace(negative.find(R"(<mass value="0"/>)"), 17, R"(<mass value="-1"/>)");
  CHECK_THAT(error_of(negative), Catch::Contains("field 'link[base].inertial.mass': mass must be finite and non-negative, got -1"));
}

TEST_CASE("urdf: tests/data/urdf/conventions.urdf runs in GC4 as in ref with one warning per convention", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/urdf/conventions.urdf");
  CHECK(m.bodies.size() == 3);
  CHECK(m.joints.size() == 3);
  CHECK(m.info.warnings.size() == 7);
  int limited = 0;
  for (const mb::Joint& j : m.joints) limited += j.limited();
  CHECK(limited == 1);  // the wrist's
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 0.2);
  CHECK(mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 0.2), ref) < 1e-9);
}

TEST_CASE("urdf: point masses and thin rods on hinges run where the joint-space mass matrix is positive definite", "[urdf][peers]") {
  if (!urdf_built()) return;
  const mb::Model m = mb::load_model(std::string(MBBENCH_TEST_DATA) + "/urdf/point_masses.urdf");
  REQUIRE(m.bodies.size() == 3);
  CHECK((mb::model_features(m) & mb::kSingularInertia) != 0);
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 0.3);
  CHECK(mbtest::max_position_difference(mbtest::simulate(m, "GC4", 0.001, 0.3), ref) < 1e-9);
  // the peers add point_inertia x mass (1e-12 kg m^2 per kg) to a singular inertia
  for (const char* peer : {"mujoco", "simbody"}) {
    if (!mbtest::peer_built(peer)) continue;
    INFO(peer);
    CHECK(mbtest::max_position_difference(mbtest::simulate(m, peer, 0.001, 0.3), ref) < 1e-6);
  }
  // a maximal-coordinate method refuses by name
  const auto r = mbtest::run_cli("run " + std::string(MBBENCH_TEST_DATA) + "/urdf/point_masses.urdf sle --duration 0.01");
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("sle does not support singular inertias"));
}

namespace {

const std::string kMeshRobot = MBBENCH_TEST_DATA "/mesh_robot/";

bool meshes_built() {
  if (!urdf_built()) return false;
  if (mb::meshes_supported()) return true;
  WARN("mesh files are not read (MBBENCH_WITH_MESHES off: libassimp-dev or libqhull-dev not found), skipped");
  return false;
}

// the shape's vertices, sorted (Qhull keeps one of an STL's repeated corners, in no set order)
std::vector<std::array<double, 3>> sorted_vertices(const mb::Shape& sh) {
  std::vector<std::array<double, 3>> v;
  for (const mb::Vec3& p : sh.vertices) v.push_back({p.x(), p.y(), p.z()});
  std::sort(v.begin(), v.end());
  return v;
}

// every face counter-clockwise seen from outside: its normal points away from the vertices' mean
bool faces_outward(const mb::Shape& sh) {
  mb::Vec3 c = mb::Vec3::Zero();
  for (const mb::Vec3& p : sh.vertices) c += p / static_cast<double>(sh.vertices.size());
  for (const auto& f : sh.faces) {
    const mb::Vec3 &a = sh.vertices[static_cast<size_t>(f[0])], &b = sh.vertices[static_cast<size_t>(f[1])], &d = sh.vertices[static_cast<size_t>(f[2])];
    if (!((b - a).cross(d - a).dot(a - c) > 0)) return false;
  }
  return true;
}

}  // namespace

TEST_CASE("urdf: collisions=all reads an STL and an OBJ mesh as its convex hull - scaled and at its origin", "[urdf]") {
  if (!meshes_built()) return;
  // a dented tetrahedron (STL; its fifth vertex inside), by a path relative to the URDF file's folder
  const std::string text = R"(<robot name="tetra"><link name="tetra">
    <inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial>
    <collision><origin xyz="0.1 -0.2 0.3" rpy="0 0 1.5707963267948966"/>
      <geometry><mesh filename="../meshes/dented_tetra.stl" scale="2 3 0.5"/></geometry></collision></link></robot>)";
  mb::UrdfOptions o;
  o.free_base = o.collisions = o.meshes = true;
  const mb::Model t = mb::parse_urdf(text, kMeshRobot + "urdf/inline.urdf", o);
  REQUIRE(t.shapes.size() == 1);
  const mb::Shape& sh = t.shapes[0];
  CHECK(sh.type == mb::ShapeType::Convex);
  CHECK(sh.position == mb::Vec3(0.1, -0.2, 0.3));
  CHECK((sh.orientation * mb::Vec3::UnitX() - mb::Vec3::UnitY()).norm() < 1e-15);
  using V = std::vector<std::array<double, 3>>;
  CHECK((sorted_vertices(sh) == V{{0, 0, 0}, {0, 0, 0.5}, {0, 3, 0}, {2, 0, 0}}));  // the inner (0.5, 0.75, 0.125) dropped
  CHECK(sh.faces.size() == 4);
  CHECK(faces_outward(sh));
  o.meshes = false;  // collisions=primitives refuses it by name
  CHECK_THROWS_WITH(mb::parse_urdf(text, kMeshRobot + "urdf/inline.urdf", o), Catch::Contains("a mesh ('../meshes/dented_tetra.stl') is not mapped"));

  // a dented cube (OBJ; its top dented to a ninth vertex inside) by package://, in a floor=on model:
  // the floor at the hull's lowest point, -0.2 + 0.3 * 0.5
  const mb::Model b = mb::load_model(kMeshRobot + "urdf/block.urdf:base=free,collisions=all,floor=on");
  REQUIRE(b.shapes.size() == 2);
  V cube;
  for (double x : {-0.1, 0.1})
    for (double y : {-0.1, 0.1})
      for (double z : {0.5 * 0.3, 1.5 * 0.3}) cube.push_back({x, y, z});
  std::sort(cube.begin(), cube.end());
  CHECK((sorted_vertices(b.shapes[0]) == cube));
  CHECK(b.shapes[0].faces.size() == 12);
  CHECK(faces_outward(b.shapes[0]));
  CHECK(b.shapes[0].position == mb::Vec3(0, 0, -0.2));
  CHECK(b.shapes[1].type == mb::ShapeType::HalfSpace);
  CHECK(b.shapes[1].position.z() == Approx(-0.05).margin(1e-15));
  // the hull of too few or flat points is refused by name
  CHECK_THROWS_WITH(mb::convex_hull({mb::Vec3(0, 0, 0), mb::Vec3(1, 0, 0), mb::Vec3(0, 1, 0), mb::Vec3(1, 1, 1e-12)}), Catch::Contains("flat"));
  CHECK_THROWS_WITH(mb::convex_hull({mb::Vec3(0, 0, 0), mb::Vec3(1, 0, 0), mb::Vec3(2, 0, 0), mb::Vec3(3, 0, 0)}), Catch::Contains("on a line"));
}

TEST_CASE("urdf: a mesh block dropped on a floor rests on its hull in an impulse method and the peers that take convex shapes", "[urdf][peers]") {
  if (!meshes_built()) return;
  // the hull's lowest point is 0.05 m below the block's centre; the floor at -0.1: it falls 5 cm and
  // rests with its centre at -0.05
  const mb::Model m = mb::load_model(kMeshRobot + "urdf/block.urdf:base=free,collisions=all,floor=-0.1");
  struct Case {
    const char* method;
    double lift, tol;  // the rest height above the hull's, and the tolerance
  };
  // MuJoCo's soft contact sinks g tc^2 (4e-5 m at tc = 2 ms); Bullet's margin grows the hull by 1 mm
  for (const Case& c : {Case{"iterative", 0, 1e-6}, Case{"mujoco:contact_timeconst=0.002", 0, 2e-5}, Case{"bullet", 1e-3, 1e-4}}) {
    const std::string engine = std::string(c.method).substr(0, std::string(c.method).find(':'));
    if (engine != "iterative" && !mbtest::peer_built(engine)) continue;
    INFO(c.method);
    const mb::State s = mbtest::simulate(m, c.method, 0.001, 0.6);
    const double error = s.bodies[0].x.z() - (-0.05 + c.lift);
    INFO("rest height - expected: " << error << " m, tilt " << (s.bodies[0].q * mb::Vec3::UnitZ()).z());
    CHECK(std::abs(error) < c.tol);
    CHECK(s.bodies[0].v.norm() < 1e-3);
  }
  for (const char* engine : {"ode", "dart"}) {
    if (!mbtest::peer_built(engine)) continue;
    INFO(engine);
    CHECK_THROWS_WITH(mbtest::simulate(m, engine, 0.001, 0.01), Catch::Contains("shape 'block' is convex"));
  }
}

#if __has_include(<tinyxml.h>)
TEST_CASE("urdf: text that ends in a UTF-8 lead byte is read to its end by TinyXML and no further", "[urdf]") {
  // TinyXML 2.6 steps over a character by its lead byte's length: after "\xE2\x82" it passes the
  // text's NUL and reads on. tinyxml_text ends every such step on a NUL: the element after it in
  // memory is never read.
  for (const std::string lead : {"\xCC", "\xE2", "\xE2\x82", "\xF0\x9F\x98"}) {
    const std::string text = "<robot name=\"r\"><link name=\"a\"/>text" + lead;
    const std::string memory = mb::tinyxml_text(text) + "<link name=\"ghost\"/></robot>";
    TiXmlDocument doc;
    doc.Parse(memory.c_str(), nullptr, TIXML_ENCODING_UTF8);
    REQUIRE(doc.RootElement());
    int links = 0;
    for (const TiXmlElement* c = doc.RootElement()->FirstChildElement(); c; c = c->NextSiblingElement()) ++links;
    CHECK(links == 1);
    if (urdf_built()) CHECK_THROWS_AS(mb::parse_urdf(text, "lead.urdf", mb::UrdfOptions{}), mb::InputError);
  }
}
#endif

TEST_CASE("urdf: base=auto floats a file without moving joints and bolts a robot", "[urdf]") {
  if (!urdf_built()) return;
  const std::string data = MBBENCH_TEST_DATA;
  const mb::Model box = mb::load_model(data + "/urdf/lone_box.urdf");
  REQUIRE(box.bodies.size() == 1);
  REQUIRE_FALSE(box.info.warnings.empty());
  CHECK_THAT(box.info.warnings.back(), Catch::Contains("base=auto: no joint moves a link, so the robot floats"));
  // free fall from z = 0.5: z(1 s) = 0.5 - g / 2
  const mb::State s = mbtest::simulate(box, "GC4", 1e-3, 1.0);
  CHECK(s.bodies[0].x.z() == Approx(0.5 - 9.81 / 2).margin(1e-9));
  CHECK_THROWS_WITH(mb::load_model(data + "/urdf/lone_box.urdf:base=fixed"), Catch::Contains("the robot has no moving link"));
  // a robot with a moving joint stays bolted; a lone massless link or PyBullet's fixed-base mark
  // (a root of mass 0 with an inertia) does not float
  CHECK(mb::load_model(data + "/urdf/arm.urdf").info.description.find("the root link fixed") != std::string::npos);
  // a static object (no moving joint, no mass: PyBullet's plane or table) loads with nothing that
  // moves; base=fixed and strict=on refuse it
  mb::UrdfOptions automatic, strict;
  automatic.auto_base = strict.auto_base = strict.strict = true;
  const std::string plane = R"(<robot name="p"><link name="plane"/></robot>)";
  const std::string marked = R"(<robot name="p"><link name="plane"><inertial><mass value="0"/>)"
                             R"(<inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link></robot>)";
  for (const std::string& text : {plane, marked}) {
    const mb::Model m = mb::parse_urdf(text, "p.urdf", automatic);
    CHECK(m.bodies.empty());
    CHECK_THAT(m.info.warnings.back(), Catch::Contains("p.urdf: base=auto: a static object, nothing moves: no joint moves a mass"));
    CHECK_THAT(error_of(text), Catch::Contains("the robot has no moving link: no joint moves a link and no link has a mass (a static object)"));
    CHECK_THAT(error_of(text, strict), Catch::Contains("the robot has no moving link"));
  }
}

TEST_CASE("urdf: a static object stands still in every method that claims it", "[urdf]") {
  if (!urdf_built()) return;
  mb::UrdfOptions automatic;
  automatic.auto_base = true;
  const mb::Model m = mb::parse_urdf(R"(<robot name="p"><link name="plane"/></robot>)", "p.urdf", automatic);
  int ran = 0;
  for (const auto& e : mb::method_registry()) {
    if (mbtest::is_gate_test_method(e.info.name) || !mb::unsupported_reason(e.info, m).empty()) continue;
    INFO(e.info.name);
    CHECK(mbtest::simulate(m, e.info.name, 1e-3, 0.005).bodies.empty());
    ++ran;
  }
  CHECK(ran >= 18);
  // a table from a file: run says why nothing moves; a static object has no scene form
  const std::string table = std::string(MBBENCH_TEST_DATA) + "/urdf/table.urdf";
  const auto r = mbtest::run_cli("run " + table + ":collisions=primitives gc-contact --duration 0.01");
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("a static object, nothing moves") && Catch::Contains("status: ok"));
  const auto x = mbtest::run_cli("export-scene " + table + " -o table.toml");
  CHECK(x.code == 2);
  CHECK_THAT(x.output, Catch::Contains("nothing moves (a static object): a scene needs at least one [[body]]"));
}

TEST_CASE("urdf: a joint that moves no mass is held - the robot is the one with that joint fixed", "[urdf]") {
  if (!urdf_built()) return;
  // an arm on a hinge with four idle joints: a massless finger (and a massless link beyond it), a
  // slider to a massless link, a spin about x to a point mass on x, a ball to a point mass at its centre
  auto robot = [](const std::string& finger, const std::string& slide, const std::string& spin, const std::string& ball) {
    auto point = [](const char* at) {
      return std::string(R"(<inertial><origin xyz=")") + at + R"("/><mass value="0.2"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial>)";
    };
    return R"(<robot name="r"><link name="base"/>)"
           R"(<joint name="j1" type="continuous"><parent link="base"/><child link="arm"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>)"
           R"(<link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>)"
           R"(<joint name="finger" type=")" + finger + R"("><parent link="arm"/><child link="f1"/><origin xyz="1 0 0"/><axis xyz="0 0 1"/>)"
           R"(<limit lower="-1" upper="1" effort="1" velocity="1"/></joint><link name="f1"/>)"
           R"(<joint name="tip" type="fixed"><parent link="f1"/><child link="f2"/><origin xyz="0.1 0 0"/></joint><link name="f2"/>)"
           R"(<joint name="slide" type=")" + slide + R"("><parent link="arm"/><child link="s"/><axis xyz="1 0 0"/>)"
           R"(<limit lower="-1" upper="1" effort="1" velocity="1"/></joint><link name="s"/>)"
           R"(<joint name="spin" type=")" + spin + R"("><parent link="arm"/><child link="p"/><origin xyz="1 0 0" rpy="0 0.3 0"/><axis xyz="1 0 0"/></joint>)"
           R"(<link name="p">)" + point("0.3 0 0") + R"(</link>)"
           R"(<joint name="ball" type=")" + ball + R"("><parent link="arm"/><child link="b"/><origin xyz="0 0 -0.2"/></joint>)"
           R"(<link name="b">)" + point("0 0 0") + R"(</link></robot>)";
  };
  const mb::Model held = mb::parse_urdf(robot("revolute", "prismatic", "continuous", "spherical"), "r.urdf");
  const mb::Model fixed = mb::parse_urdf(robot("fixed", "fixed", "fixed", "fixed"), "r.urdf");
  REQUIRE(held.bodies.size() == 1);
  REQUIRE(held.joints.size() == 1);
  CHECK(held.bodies[0].mass == Approx(1.4).epsilon(1e-15));
  CHECK(held.bodies[0].mass == fixed.bodies[0].mass);
  CHECK((held.bodies[0].position - fixed.bodies[0].position).norm() < 1e-15);
  CHECK((held.bodies[0].inertia - fixed.bodies[0].inertia).norm() < 1e-15);
  CHECK(frame(held, "f2") != nullptr);
  auto warnings = [](const mb::Model& m) {
    std::string all;
    for (const std::string& w : m.info.warnings) all += w + "\n";
    return all;
  };
  CHECK_THAT(warnings(held), Catch::Contains("held at 0, their links welded: ball, finger, slide, spin; strict=on refuses them"));
  const mb::State gc4 = mbtest::simulate(held, "GC4", 1e-3, 0.5);
  CHECK(mbtest::max_position_difference(mb::initial_state(held), gc4) > 0.1);
  CHECK(mbtest::max_position_difference(gc4, mbtest::simulate(held, "ref", 1e-3, 0.5)) < 1e-9);
  // a point mass off the spin's axis, or a mass beyond the slider, moves: not held
  std::string moving = robot("revolute", "prismatic", "continuous", "spherical");
  moving.replace(moving.find(R"(xyz="0.3 0 0")"), 13, R"(xyz="0.3 0.1 0")");
  const mb::Model m2 = mb::parse_urdf(moving, "r.urdf");
  REQUIRE(m2.joints.size() == 2);
  CHECK(m2.joints[1].name == "spin");
  CHECK_THAT(warnings(m2), Catch::Contains("welded: ball, finger, slide;"));
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(robot("revolute", "prismatic", "continuous", "fixed"), strict),
             Catch::Contains("the link moved by joint '") && Catch::Contains("has no mass"));
}

TEST_CASE("urdf: a mimic that couples nothing is ignored and an unnamed robot is named after its file", "[urdf]") {
  if (!urdf_built()) return;
  const std::string text =
      R"(<robot><link name="base"/>)"
      R"(<joint name="a" type="continuous"><parent link="base"/><child link="l1"/><axis xyz="0 1 0"/><mimic joint="ghost"/></joint>)"
      R"(<link name="l1"><inertial><origin xyz="0.5 0 0"/><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link>)"
      R"(<joint name="weld" type="fixed"><parent link="l1"/><child link="l2"/><mimic joint="a"/></joint><link name="l2"/></robot>)";
  const mb::Model m = mb::parse_urdf(text, "dir/arm.urdf");
  CHECK(m.info.name == "arm");
  CHECK(m.couplings.empty());
  std::string all;
  for (const std::string& w : m.info.warnings) all += w + "\n";
  CHECK_THAT(all, Catch::Contains("dir/arm.urdf: a <robot> without a name is named after its file: 'arm'; strict=on refuses it"));
  CHECK_THAT(all, Catch::Contains("a <mimic> that couples no two moving joints is ignored: joint 'a' mimics 'ghost': no such joint; "
                                  "joint 'weld' is fixed: only a moving joint mimics another; strict=on refuses it"));
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict), Catch::Contains("No name given for the robot"));
  std::string named = text;
  named.replace(0, 7, R"(<robot name="r">)");
  CHECK_THAT(error_of(named, strict), Catch::Contains("field 'joint[a].mimic.joint': joint 'a' mimics 'ghost': no such joint"));
}

TEST_CASE("urdf: a massless link with an inertia adds its moments to its body", "[urdf]") {
  if (!urdf_built()) return;
  const std::string text =
      R"(<robot name="r"><link name="base"/>)"
      R"(<joint name="a" type="continuous"><parent link="base"/><child link="arm"/><axis xyz="0 0 1"/></joint>)"
      R"(<link name="arm"><inertial><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>)"
      R"(<joint name="weld" type="fixed"><parent link="arm"/><child link="wheel"/><origin xyz="1 0 0"/></joint>)"
      R"(<link name="wheel"><inertial><mass value="0"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0.5"/></inertial></link></robot>)";
  const mb::Model m = mb::parse_urdf(text, "r.urdf");
  REQUIRE(m.bodies.size() == 1);
  // no mass moves the centre; the moments add without a parallel-axis term
  CHECK(m.bodies[0].mass == 1);
  CHECK(m.bodies[0].position.norm() < 1e-15);
  CHECK(m.bodies[0].inertia(2, 2) == Approx(0.8).epsilon(1e-14));
  CHECK(m.bodies[0].inertia(0, 0) == Approx(0.1).epsilon(1e-14));
  REQUIRE_FALSE(m.info.warnings.empty());
  CHECK_THAT(m.info.warnings.back(), Catch::Contains("links of mass 0 with an inertia: the inertia joins their body's") && Catch::Contains("wheel"));
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict), Catch::Contains("field 'link[wheel].inertial.inertia': a link of mass 0 (a massless frame) must have inertia 0"));
}

TEST_CASE("urdf: a spherical joint is a ball - released from rest it swings as the hinge does", "[urdf]") {
  if (!urdf_built()) return;
  const mb::Model ball = mb::parse_urdf(one_hinge("", "", "spherical"), "r.urdf"), hinge = mb::parse_urdf(one_hinge(""), "r.urdf");
  REQUIRE(ball.joints.size() == 1);
  CHECK(ball.joints[0].type == mb::JointType::Ball);
  // the arm starts horizontal; gravity turns it about the hinge's axis only
  const mb::State b = mbtest::simulate(ball, "GC4", 1e-3, 1.0), h = mbtest::simulate(hinge, "GC4", 1e-3, 1.0);
  CHECK(mbtest::max_position_difference(mb::initial_state(hinge), h) > 0.3);
  CHECK(mbtest::max_position_difference(b, h) < 1e-9);
  CHECK(mbtest::max_position_difference(mbtest::simulate(ball, "ref", 1e-3, 1.0), h) < 1e-9);
  // Drake's name for it, and a file that is refused with strict=on
  std::string drake = one_hinge("", "", "ball");
  CHECK(mb::parse_urdf(drake, "r.urdf").joints[0].type == mb::JointType::Ball);
}

TEST_CASE("urdf: a massless link between two joints is a massless frame - GC4 agrees with ref", "[urdf]") {
  if (!urdf_built()) return;
  // a waist as a public humanoid writes it: a turn about a tilted z, a massless link, a turn about y
  const std::string text =
      R"(<robot name="waist"><link name="base"/>)"
      R"(<joint name="waist_z" type="continuous"><parent link="base"/><child link="mid"/><origin xyz="0 0 1"/><axis xyz="0.3 0 1"/></joint>)"
      R"(<link name="mid"/>)"
      R"(<joint name="waist_y" type="continuous"><parent link="mid"/><child link="torso"/><axis xyz="0 1 0"/></joint>)"
      R"(<link name="torso"><inertial><origin xyz="0.5 0.2 0"/><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>)"
      R"(</robot>)";
  const mb::Model m = mb::parse_urdf(text, "r.urdf");
  REQUIRE(m.bodies.size() == 2);
  CHECK(m.bodies[0].frame);
  CHECK(m.bodies[0].name == "mid");
  REQUIRE_FALSE(m.info.warnings.empty());
  CHECK_THAT(m.info.warnings.back(), Catch::Contains("links of mass 0 moved by a joint are massless frames") && Catch::Contains(": mid;"));
  const mb::State ref = mbtest::simulate(m, "ref", 1e-3, 1.0), gc4 = mbtest::simulate(m, "GC4", 1e-3, 1.0);
  CHECK(mbtest::max_position_difference(mb::initial_state(m), ref) > 0.05);
  CHECK(mbtest::max_position_difference(gc4, ref) < 1e-9);
  // both joints turned: the frame is not welded in disguise
  CHECK(std::abs(gc4.bodies[0].q.angularDistance(mb::initial_state(m).bodies[0].q)) > 0.01);
  CHECK_THAT(mb::unsupported_reason(mb::make_method("sle")->info(), m), Catch::Contains("massless frames") && Catch::Contains("'mid'"));
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict), Catch::Contains("field 'link[mid]': the link moved by joint 'waist_z' has no mass"));
}

TEST_CASE("urdf: links that no joint holds float as in Drake - a massless one is welded and a point mass translates", "[urdf]") {
  if (!urdf_built()) return;
  // an arm on a massless base, a point mass (Drake's <inertial> without <inertia>) and a box: three
  // links that no joint holds
  const std::string text =
      R"(<robot name="three"><link name="arm_base"/>)"
      R"(<joint name="j" type="continuous"><parent link="arm_base"/><child link="arm"/><origin xyz="0 0 1"/><axis xyz="0 1 0"/></joint>)"
      R"(<link name="arm"><inertial><origin xyz="0.5 0 0"/><mass value="1"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>)"
      R"(<link name="ball"><inertial><origin xyz="2 0 3"/><mass value="0.5"/></inertial></link>)"
      R"(<link name="box"><inertial><origin xyz="-2 0 3" rpy="0.3 0 0"/><mass value="2"/><inertia ixx="0.1" ixy="0" ixz="0" iyy="0.2" iyz="0" izz="0.3"/></inertial></link>)"
      R"(</robot>)";
  const mb::Model m = mb::parse_urdf(text, "r.urdf");
  std::string all;
  for (const std::string& w : m.info.warnings) all += w + "\n";
  CHECK_THAT(all, Catch::Contains("links that no joint holds float (Drake's convention; of mass 0, they are welded to the world): "
                                  "arm_base, ball, box; strict=on refuses it"));
  CHECK_THAT(all, Catch::Contains("a free body of inertia 0 (a point mass) translates without turning") && Catch::Contains("frames: ball;"));
  // the arm hangs from the world; the ball on three sliders through two massless frames; the box free
  REQUIRE(m.joints.size() == 4);
  CHECK(m.joints[0].name == "j");
  CHECK(m.joints[0].a == mb::kWorld);
  int frames = 0;
  for (const mb::Body& b : m.bodies) frames += b.frame ? 1 : 0;
  CHECK(frames == 2);
  CHECK(m.bodies.size() == 5);
  // 1 s of free fall: the ball and the box drop g / 2 from z = 3; GC4 agrees with ref
  const mb::State gc4 = mbtest::simulate(m, "GC4", 1e-3, 1.0), ref = mbtest::simulate(m, "ref", 1e-3, 1.0);
  CHECK(mbtest::max_position_difference(gc4, ref) < 1e-9);
  for (size_t b = 0; b < m.bodies.size(); ++b) {
    if (m.bodies[b].name != "ball" && m.bodies[b].name != "box") continue;
    INFO(m.bodies[b].name);
    CHECK(gc4.bodies[b].x.z() == Approx(3 - 9.81 / 2).margin(1e-9));
    CHECK(std::abs(gc4.bodies[b].x.x()) == Approx(2).margin(1e-12));
  }
  mb::UrdfOptions strict;
  strict.strict = true;
  CHECK_THAT(error_of(text, strict), Catch::Contains("Two root links found"));
  // a lone point mass floats (base=auto) and translates; a lone thin rod cannot turn about its axis
  mb::UrdfOptions automatic;
  automatic.auto_base = true;
  const std::string point = R"(<robot name="p"><link name="p"><inertial><mass value="1"/><inertia ixx="0" ixy="0" ixz="0" iyy="0" iyz="0" izz="0"/></inertial></link></robot>)";
  const mb::Model p = mb::parse_urdf(point, "p.urdf", automatic);
  CHECK(p.joints.size() == 3);
  CHECK(mbtest::simulate(p, "GC4", 1e-3, 1.0).bodies[0].x.z() == Approx(-9.81 / 2).margin(1e-9));
  automatic.strict = true;
  CHECK_THAT(error_of(point, automatic), Catch::Contains("base=free: the floating base cannot turn about its x axis"));
  automatic.strict = false;
  CHECK_THAT(error_of(R"(<robot name="r"><link name="r"/><link name="rod"><inertial><mass value="1"/>)"
                      R"(<inertia ixx="0" ixy="0" ixz="0" iyy="0.1" iyz="0" izz="0.1"/></inertial></link></robot>)", automatic),
             Catch::Contains("field 'link[rod]': a link that no joint holds floats, and its inertia is singular"));
}
