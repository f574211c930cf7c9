// MJCF import (models/formats/mjcf.cpp) against MuJoCo itself: the same file loaded natively through
// MuJoCo's API gives the masses, frames, joints and the joint-space mass matrix the import must
// reproduce; a free-floating import falls exactly; what the Model cannot hold is refused or listed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iterator>
#include <memory>
#include <random>

#include "cli_util.hpp"
#include "core/error.hpp"
#include "core/io.hpp"
#include "methods/method.hpp"
#include "methods/reduced/crba.hpp"
#include "methods/reduced/tree_data.hpp"
#include "methods/reduced/tree_kinematics.hpp"
#include "methods/reduced/tree_model.hpp"
#include "models/actuators.hpp"
#include "models/catalog.hpp"
#include "models/collision.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

#ifdef MBBENCH_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

const std::string kData = std::string(MBBENCH_TEST_DATA) + "/mjcf/";
const std::string kHumanoid = "/usr/share/mujoco/model/humanoid/humanoid.xml";
const std::string kHumanoid100 = "/usr/share/mujoco/model/humanoid100/humanoid100.xml";

#ifdef MBBENCH_WITH_MUJOCO

struct Native {
  std::unique_ptr<mjModel, void (*)(mjModel*)> m{nullptr, mj_deleteModel};
  std::unique_ptr<mjData, void (*)(mjData*)> d{nullptr, mj_deleteData};
  explicit Native(const std::string& path) {
    char err[1000] = "";
    m.reset(mj_loadXML(path.c_str(), nullptr, err, sizeof err));
    INFO(err);
    REQUIRE(m);
    d.reset(mj_makeData(m.get()));
    mj_kinematics(m.get(), d.get());
  }
  int body(const std::string& name) const { return mj_name2id(m.get(), mjOBJ_BODY, name.c_str()); }
  int joint(const std::string& name) const { return mj_name2id(m.get(), mjOBJ_JOINT, name.c_str()); }
  mb::Vec3 v3(const mjtNum* p) const { return mb::Vec3(p[0], p[1], p[2]); }
  mb::Mat3 m3(const mjtNum* p) const { return Eigen::Map<const Eigen::Matrix<double, 3, 3, Eigen::RowMajor>>(p); }
};

// a joint's point and axis in world coordinates, from each of its two bodies
mb::Vec3 world_point(const mb::Model& m, int b, const mb::Vec3& p) {
  if (b == mb::kWorld) return p;
  const mb::Body& o = m.bodies[static_cast<size_t>(b)];
  return o.position + o.orientation * p;
}
mb::Vec3 world_axis(const mb::Model& m, int b, const mb::Vec3& a) {
  return b == mb::kWorld ? a : mb::Vec3(m.bodies[static_cast<size_t>(b)].orientation * a);
}
const mb::Joint& joint_named(const mb::Model& m, const std::string& name) {
  for (const mb::Joint& j : m.joints)
    if (j.name == name) return j;
  FAIL("no joint " << name);
  return m.joints.front();
}

#endif

}  // namespace

#ifdef MBBENCH_WITH_MUJOCO

TEST_CASE("mjcf: masses, frames, joints and shapes are MuJoCo's compiler's, field by field", "[mjcf]") {
  const std::string path = kData + "small.xml";
  const mb::Model m = mb::load_model(path);
  const Native n(path);
  // sensor_frame (massless, no joint) is merged into wrist; every other MuJoCo body is one of ours
  REQUIRE(m.bodies.size() == 6);
  CHECK(m.body_index("sensor_frame") == -1);
  for (const mb::Body& b : m.bodies) {
    INFO(b.name);
    const int id = n.body(b.name);
    REQUIRE(id > 0);
    CHECK(b.mass == n.m->body_mass[id]);
    CHECK(b.inertia.diagonal() == n.v3(n.m->body_inertia + 3 * id));
    CHECK(mb::is_diagonal(b.inertia));
    CHECK((b.position - n.v3(n.d->xipos + 3 * id)).norm() <= 1e-15);
    CHECK((b.orientation.toRotationMatrix() - n.m3(n.d->ximat + 9 * id)).cwiseAbs().maxCoeff() <= 1e-14);
  }
  const double total = n.m->body_mass[1] + n.m->body_mass[2] + n.m->body_mass[3] + n.m->body_mass[4] + n.m->body_mass[5] + n.m->body_mass[6];
  double ours = 0;
  for (const mb::Body& b : m.bodies) ours += b.mass;
  CHECK(ours == Approx(total).epsilon(1e-15));
  // one joint per body but the free base; each joint's point and axis from both of its bodies
  // coincide with MuJoCo's xanchor and xaxis at qpos0
  REQUIRE(m.joints.size() == 5);
  struct Expect {
    const char* name;
    mb::JointType type;
    const char* parent;
    const char* child;
    const char* mj_joint;  // the MuJoCo joint whose anchor (and axis) it has
  };
  const Expect expect[] = {{"shoulder", mb::JointType::Hinge, "base", "arm1", "shoulder"},
                           {"elbow_ball", mb::JointType::Ball, "arm1", "arm2", "elbow_ball"},
                           {"rail", mb::JointType::Slider, "base", "carriage", "rail"},
                           {"wrist_a+wrist_b+wrist_c", mb::JointType::Ball, "base", "wrist", "wrist_a"},
                           {"tool:weld", mb::JointType::Fixed, "wrist", "tool", nullptr}};
  for (const Expect& e : expect) {
    INFO(e.name);
    const mb::Joint& j = joint_named(m, e.name);
    CHECK(j.type == e.type);
    CHECK(j.a == m.body_index(e.parent));
    CHECK(j.b == m.body_index(e.child));
    const mb::Vec3 pa = world_point(m, j.a, j.anchor_a), pb = world_point(m, j.b, j.anchor_b);
    CHECK((pa - pb).norm() <= 1e-14);
    if (e.mj_joint) {
      const int k = n.joint(e.mj_joint);
      CHECK((pa - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-14);
      if (e.type != mb::JointType::Ball) {
        CHECK((world_axis(m, j.a, j.axis_a) - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-14);
        CHECK((world_axis(m, j.b, j.axis_b) - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-14);
      }
    }
    const mb::Quat qa = m.bodies[static_cast<size_t>(j.a)].orientation, qb = m.bodies[static_cast<size_t>(j.b)].orientation;
    CHECK((qa * j.rel_orientation).angularDistance(qb) <= 1e-14);
  }
  // every geom collides: the floor a half-space of the world with normal +z, the sensor on wrist
  REQUIRE(m.shapes.size() == 8);
  for (int g = 0; g < n.m->ngeom; ++g) {
    const mb::Shape& s = m.shapes[static_cast<size_t>(g)];
    INFO(s.name);
    const mb::Vec3 p = world_point(m, s.body, s.position);
    CHECK((p - n.v3(n.d->geom_xpos + 3 * g)).norm() <= 1e-14);
    const mb::Quat q = s.body == mb::kWorld ? s.orientation : m.bodies[static_cast<size_t>(s.body)].orientation * s.orientation;
    const mb::Mat3 R = n.m3(n.d->geom_xmat + 9 * g);
    if (s.type == mb::ShapeType::HalfSpace) {
      CHECK(s.body == mb::kWorld);
      CHECK(((q * mb::Vec3::UnitY()) - R.col(2)).norm() <= 1e-14);
    } else {
      CHECK((q.toRotationMatrix() - R).cwiseAbs().maxCoeff() <= 1e-14);
    }
  }
  CHECK(m.shapes[2].type == mb::ShapeType::Capsule);
  CHECK(m.shapes[2].length == 2 * n.m->geom_size[3 * 2 + 1]);
  CHECK(m.shapes[4].type == mb::ShapeType::Cylinder);
  CHECK(m.shapes[5].type == mb::ShapeType::Ellipsoid);
  CHECK(m.shapes[7].body == m.body_index("wrist"));
  // friction: MuJoCo's maximum of the two geoms' (floor 1, the rest 0.8)
  const mb::Material floor_body = mb::contact_material(m.materials, m.material_pairs, m.shapes[0].material, m.shapes[1].material);
  const mb::Material body_body = mb::contact_material(m.materials, m.material_pairs, m.shapes[1].material, m.shapes[2].material);
  CHECK(floor_body.mu_dynamic == 1);
  CHECK(body_body.mu_dynamic == 0.8);
  // what the Model does not hold: one warning line
  REQUIRE(m.info.warnings.size() == 1);
  CHECK_THAT(m.info.warnings[0], !Catch::Contains("actuator"));  // the shoulder's motor is driven
  REQUIRE(m.actuators.size() == 1);
  CHECK(m.actuators[0].name == "shoulder_motor");
  CHECK(m.actuators[0].kind == mb::ActuatorKind::Motor);
  CHECK(m.actuators[0].gear == 10);
  CHECK(m.joints[static_cast<size_t>(m.actuators[0].joint)].name == "shoulder");
  for (const char* part : {"stiffness on 1 joint(s)", "damping on 6 joint(s)", "armature on 6 joint(s)"})
    CHECK_THAT(m.info.warnings[0], Catch::Contains(part));
  CHECK_THAT(m.info.warnings[0], !Catch::Contains("limits"));
  // the shoulder's range [-1, 1] rad (qpos0 = 0) as its joint's limits; limits=ignore drops them
  const auto shoulder = std::find_if(m.joints.begin(), m.joints.end(), [](const mb::Joint& j) { return j.name == "shoulder"; });
  REQUIRE(shoulder != m.joints.end());
  CHECK(shoulder->lower == -1);
  CHECK(shoulder->upper == 1);
  const mb::Model unlimited = mb::load_model(path + ":limits=ignore");
  CHECK_FALSE(mb::has_joint_limits(unlimited));
  CHECK_THAT(unlimited.info.warnings[0], Catch::Contains("limits on 1 joint(s) (limits=ignore)"));
  CHECK(m.gravity == mb::Vec3(0, 0, -9.81));
  CHECK(m.info.default_h == 0.002);
  // contacts=off: no shapes
  CHECK(mb::load_model(path + ":contacts=off").shapes.empty());
}

TEST_CASE("urdf: the import agrees with MuJoCo's own URDF compiler on masses and joint frames", "[mjcf][urdf]") {
  // MuJoCo reads URDF too, fusing bodies welded by fixed joints into their parent (its URDF default
  // fusestatic) and bolting the root to the world, as our import does (docs/robots.md): every
  // MuJoCo body is one of ours by the name of its moving link, with its mass, centre of mass and
  // world inertia; every moving joint has MuJoCo's anchor and axis at the zero configuration
  if (!mb::urdf_supported()) {
    WARN("URDF import is not built (MBBENCH_WITH_URDF off), skipped");
    return;
  }
  for (const char* file : {"ur5.urdf", "panda.urdf", "quadruped.urdf"}) {
    const std::string path = std::string(MBBENCH_TEST_DATA) + "/robots/" + file;
    INFO(file);
    const mb::Model m = mb::load_model(path);
    // MuJoCo by default gives a link without <inertial> the mass of its collision geometry (the
    // quadruped's feet: spheres of 0.02 m, 0.0335 kg at its density 1000); URDF gives it none, as
    // we do: the native load is told so (inertiafromgeom="false" in MuJoCo's URDF extension)
    std::ifstream in(path);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const size_t robot = text.find('>', text.find("<robot"));
    REQUIRE(robot != std::string::npos);
    text.insert(robot + 1, "<mujoco><compiler inertiafromgeom=\"false\"/></mujoco>");
    const std::string native_path = (std::filesystem::temp_directory_path() / (std::string("mbbench_native_") + file)).string();
    mb::write_file_atomic(native_path, text);
    const Native n(native_path);
    std::filesystem::remove(native_path);
    REQUIRE(static_cast<int>(m.bodies.size()) == n.m->nbody - 1);
    for (int id = 1; id < n.m->nbody; ++id) {
      const std::string name = mj_id2name(n.m.get(), mjOBJ_BODY, id);
      INFO(name);
      const int b = m.body_index(name);
      REQUIRE(b >= 0);
      const mb::Body& B = m.bodies[static_cast<size_t>(b)];
      CHECK(B.mass == Approx(n.m->body_mass[id]).epsilon(1e-12));
      CHECK((B.position - n.v3(n.d->xipos + 3 * id)).norm() <= 1e-12);
      const mb::Mat3 R = n.m3(n.d->ximat + 9 * id);
      const mb::Mat3 Imj = R * n.v3(n.m->body_inertia + 3 * id).asDiagonal() * R.transpose();
      const mb::Mat3 Iours = B.orientation * B.inertia * B.orientation.conjugate().toRotationMatrix();
      CHECK((Iours - Imj).norm() <= 1e-12 * Imj.norm());
    }
    int moving = 0;
    for (const mb::Joint& j : m.joints) {
      if (j.type == mb::JointType::Fixed) continue;
      INFO(j.name);
      ++moving;
      const int k = n.joint(j.name);
      REQUIRE(k >= 0);
      CHECK((world_point(m, j.b, j.anchor_b) - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-12);
      CHECK((world_axis(m, j.a, j.axis_a).normalized() - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-12);
    }
    CHECK(moving == n.m->njnt);
  }
}

TEST_CASE("mjcf: our CRBA mass matrix equals MuJoCo's mj_fullM at 10 random configurations", "[mjcf]") {
  const std::string path = kData + "small.xml";
  const mb::Model model = mb::load_model(path + ":contacts=off");
  Native n(path);
  mjModel* mm = n.m.get();
  mjData* dd = n.d.get();
  for (int k = 0; k < mm->nv; ++k) mm->dof_armature[k] = 0;  // our Model has none
  const mb::TreeModel tree = mb::TreeModel::build(model);
  mb::TreeData td(tree);
  REQUIRE(tree.nv == mm->nv);  // 6 free + 1 hinge + 3 ball + 1 slide + 3 (three hinges: a ball)
  std::mt19937 rng(39);
  std::uniform_real_distribution<double> u(-1, 1);
  auto random_quat = [&](mjtNum* q) {
    const mb::Quat r = mb::Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
    q[0] = r.w(), q[1] = r.x(), q[2] = r.y(), q[3] = r.z();
  };
  std::vector<int> ids;
  for (const mb::Body& b : model.bodies) ids.push_back(n.body(b.name));
  mb::State s = mb::initial_state(model);
  std::vector<double> x;
  double worst = 0;
  for (int trial = 0; trial < 10; ++trial) {
    for (int j = 0; j < mm->njnt; ++j) {
      mjtNum* q = dd->qpos + mm->jnt_qposadr[j];
      switch (mm->jnt_type[j]) {
        case mjJNT_FREE:
          for (int k = 0; k < 3; ++k) q[k] = u(rng);
          random_quat(q + 3);
          break;
        case mjJNT_BALL: random_quat(q); break;
        case mjJNT_HINGE: q[0] = M_PI * u(rng); break;
        case mjJNT_SLIDE: q[0] = 0.5 * u(rng); break;
      }
    }
    mj_kinematics(mm, dd);
    mj_comPos(mm, dd);
    mj_crb(mm, dd);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Hmj(mm->nv, mm->nv);
    mj_fullM(mm, Hmj.data(), dd->qM);
    // our coordinates from the same body poses
    for (size_t i = 0; i < ids.size(); ++i) {
      s.bodies[i].x = n.v3(dd->xipos + 3 * ids[i]);
      s.bodies[i].q = mb::Quat(n.m3(dd->ximat + 9 * ids[i]));
      s.bodies[i].v.setZero();
      s.bodies[i].w.setZero();
    }
    tree.read(s, x);
    const Eigen::MatrixXd H = mb::mass_matrix(tree, td, x);
    // J: our velocity coordinates per unit MuJoCo qvel, through the bodies' velocities (linear in qvel)
    Eigen::MatrixXd J(tree.nv, mm->nv);
    std::vector<double> xv;
    for (int k = 0; k < mm->nv; ++k) {
      mju_zero(dd->qvel, mm->nv);
      dd->qvel[k] = 1;
      mj_comVel(mm, dd);
      for (size_t i = 0; i < ids.size(); ++i) {
        mjtNum vel[6];
        mj_objectVelocity(mm, dd, mjOBJ_BODY, ids[i], vel, 0);  // (angular, linear) at the COM, world axes
        s.bodies[i].w = mb::Vec3(vel[0], vel[1], vel[2]);
        s.bodies[i].v = mb::Vec3(vel[3], vel[4], vel[5]);
      }
      tree.read(s, xv);
      for (int r = 0; r < tree.nv; ++r) J(r, k) = xv[static_cast<size_t>(tree.nq + r)];
    }
    const Eigen::MatrixXd ours = J.transpose() * H * J;  // the same kinetic energy in MuJoCo's rates
    const double rel = (ours - Eigen::MatrixXd(Hmj)).cwiseAbs().maxCoeff() / Hmj.cwiseAbs().maxCoeff();
    INFO("trial " << trial << ": relative difference " << rel);
    CHECK(rel <= 1e-10);
    worst = std::max(worst, rel);
  }
  WARN("CRBA vs mj_fullM on small.xml, 10 random configurations: largest relative difference " << worst);
}

TEST_CASE("mjcf: a free-floating import without contacts falls g t^2 / 2 exactly", "[mjcf]") {
  const mb::Model m = mb::load_model(kData + "small.xml:contacts=off");
  REQUIRE(m.info.exact.size() == m.bodies.size());
  const mb::State s0 = mb::initial_state(m);
  for (const char* method : {"GC4", "ref"}) {
    const mb::State s = mbtest::simulate(m, method, 0.001, 1.0);
    double e = 0, turn = 0;
    for (size_t i = 0; i < s.bodies.size(); ++i) {
      e = std::max(e, (s.bodies[i].x - (s0.bodies[i].x + 0.5 * m.gravity)).norm());
      turn = std::max(turn, s.bodies[i].q.angularDistance(s0.bodies[i].q));
    }
    INFO(method << ": position error " << e << " m, rotation " << turn << " rad after 1 s");
    CHECK(e <= 1e-9);
    CHECK(turn <= 1e-9);
  }
}

TEST_CASE("mjcf: two perpendicular hinges through one point are a Cardan joint", "[mjcf]") {
  const mb::Model m = mb::load_model(kData + "cardan.xml");
  const Native n(kData + "cardan.xml");
  CHECK(m.shapes.empty());  // its geoms do not collide
  const mb::Joint& j = joint_named(m, "cross_1+cross_2");
  CHECK(j.type == mb::JointType::Cardan);
  CHECK(j.a == m.body_index("upper"));
  CHECK(j.b == m.body_index("lower"));
  CHECK((world_point(m, j.a, j.anchor_a) - n.v3(n.d->xanchor + 3 * n.joint("cross_1"))).norm() <= 1e-14);
  CHECK((world_axis(m, j.a, j.axis_a) - n.v3(n.d->xaxis + 3 * n.joint("cross_1"))).norm() <= 1e-14);
  CHECK((world_axis(m, j.b, j.axis_b) - n.v3(n.d->xaxis + 3 * n.joint("cross_2"))).norm() <= 1e-14);
}

TEST_CASE("mjcf: a Cardan joint runs in GC4 and ref in MuJoCo's coordinates", "[mjcf]") {
  // cardan_swing.xml: two perpendicular hinges on one body, a hinge below it; from rest, 1 s at
  // h = 1 ms. GC4 and the mujoco adapter are RK4 in the same coordinates; native MuJoCo's qpos
  // (RK4) against the tree angles read from GC4's state (theta = qpos - qpos0, the first
  // hinge's angle first)
  const std::string path = kData + "cardan_swing.xml";
  const mb::Model m = mb::load_model(path + ":contacts=off");
  const mb::Joint& j = joint_named(m, "swing_x+swing_y");
  REQUIRE(j.type == mb::JointType::Cardan);
  const mb::State ref = mbtest::simulate(m, "ref", 0.001, 1.0);
  const mb::State gc4 = mbtest::simulate(m, "GC4", 0.001, 1.0);
  const mb::State mj = mbtest::simulate(m, "mujoco", 0.001, 1.0);
  const double e_gc4 = mbtest::max_position_difference(gc4, ref), e_mj = mbtest::max_position_difference(mj, ref);
  const double swing = mbtest::max_position_difference(ref, mb::initial_state(m));
  INFO("at 1 s: GC4 " << e_gc4 << " m, mujoco " << e_mj << " m from ref; bodies moved up to " << swing << " m");
  CHECK(swing > 0.05);
  CHECK(e_gc4 <= 1e-10);
  CHECK(e_mj <= 1e-10);
  const Native n(path);
  n.m->opt.integrator = mjINT_RK4;
  for (int k = 0; k < 1000; ++k) mj_step(n.m.get(), n.d.get());
  const mb::TreeModel t = mb::TreeModel::build(m);
  std::vector<double> x;
  t.read(gc4, x);
  double worst = 0;
  for (const char* name : {"swing_x", "swing_y", "knee"}) {
    const int adr = n.m->jnt_qposadr[n.joint(name)];
    const double theta = n.d->qpos[adr] - n.m->qpos0[adr];
    worst = std::max(worst, std::abs(theta - x[static_cast<size_t>(adr)]));
    INFO(name << ": MuJoCo " << theta << ", GC4 " << x[static_cast<size_t>(adr)]);
    CHECK(std::abs(theta) > 0.01);
  }
  INFO("largest difference of the angles from MuJoCo's " << worst << " rad");
  CHECK(worst <= 1e-12);
}

TEST_CASE("mjcf: equality connect and weld close loops as ball and fixed joints", "[mjcf]") {
  const mb::Model m = mb::load_model(kData + "loops.xml");
  const mb::Joint& c = joint_named(m, "close");
  CHECK(c.type == mb::JointType::Ball);
  CHECK(c.a == m.body_index("coupler"));
  CHECK(c.b == m.body_index("rocker"));
  CHECK((world_point(m, c.a, c.anchor_a) - mb::Vec3(1, 0, 0.6)).norm() <= 1e-14);
  CHECK((world_point(m, c.b, c.anchor_b) - mb::Vec3(1, 0, 0.6)).norm() <= 1e-14);
  const mb::Joint& w = joint_named(m, "plate_to_rocker");
  CHECK(w.type == mb::JointType::Fixed);
  CHECK(w.a == m.body_index("rocker"));
  CHECK(w.b == m.body_index("plate"));
  CHECK((world_point(m, w.a, w.anchor_a) - world_point(m, w.b, w.anchor_b)).norm() <= 1e-14);
  CHECK(mb::model_features(m) & mb::kLoops);
}

TEST_CASE("mjcf: refusals name the file, line and body, MuJoCo's own errors keep its line, exit code 2", "[mjcf][bad-input]") {
  struct Row {
    const char* file;
    const char* fragment;
    int line;
  };
  const Row rows[] = {
      {"bad/axis_zero.xml", "field 'model': MuJoCo refused the file: Error: axis too small in joint 'hinge'", 4},
      {"bad/ball_hinge.xml", "field 'body': body 'hand' has 2 joints ('twist' (hinge at", 8},
  };
  for (const Row& r : rows) {
    const std::string file = kData + r.file;
    const auto res = mbtest::run_cli("run " + file + " ref --duration 0.1");
    INFO(res.output);
    CHECK(res.code == 2);
    CHECK_THAT(res.output, Catch::Contains("mbbench: error: " + file + ":" + std::to_string(r.line) + ": " + r.fragment));
  }
  // the default contacts=on: a method without contacts refuses and says how to drop them
  const auto gc4 = mbtest::run_cli("run " + kData + "small.xml GC4 --duration 0.1");
  CHECK(gc4.code == 2);
  CHECK_THAT(gc4.output, Catch::Contains("GC4 does not support contacts"));
  CHECK_THAT(gc4.output, Catch::Contains("small.xml:contacts=off` runs in GC4"));
  // the methods that take the model as it is, from the registry
  CHECK_THAT(gc4.output, Catch::Contains("methods that claim every feature of this model: "));
  CHECK_THAT(gc4.output, Catch::Contains("gc-contact"));
  // a method with contacts but without massless frames: the frames' hint, not the contacts'
  const auto sle = mbtest::run_cli("run " + kData + "ankle.xml sle --duration 0.1");
  CHECK(sle.code == 2);
  CHECK_THAT(sle.output, Catch::Contains("ankle.xml:frames=light` runs in sle (light frames are a change to the model)"));
  CHECK_THAT(sle.output, !Catch::Contains("contacts=off`"));
  // every command a hint suggests is accepted
  for (const auto* out : {&gc4.output, &sle.output}) {
    const size_t a = out->find("; `") + 3, b = out->find('`', a);
    const std::string spec = out->substr(a, b - a);
    const std::string method = out->substr(out->find(" runs in ", b) + 9);
    const auto again = mbtest::run_cli("run " + spec + " " + method.substr(0, method.find_first_of(" ;\n")) + " --duration 0.01 --no-ref --quiet");
    INFO(spec << " " << again.output);
    CHECK(again.code == 0);
  }
  CHECK_THAT(gc4.output, Catch::Contains("mbbench: warning: " + kData + "small.xml: not in the Model, ignored: stiffness"));
  const auto option = mbtest::run_cli("run " + kData + "small.xml:contacts=maybe GC4 --duration 0.1");
  CHECK(option.code == 2);
  CHECK_THAT(option.output, Catch::Contains("option 'contacts'"));
  const auto missing = mbtest::run_cli("run /nonexistent/robot.xml GC4 --duration 0.1");
  CHECK(missing.code == 2);
  CHECK_THAT(missing.output, Catch::Contains("no MJCF file '/nonexistent/robot.xml'"));
}

TEST_CASE("mjcf: a NaN or inf in an included file names that file and line before MuJoCo reads it", "[mjcf][bad-input]") {
  if (!mb::mjcf_supported()) return;
  const std::filesystem::path dir = mbtest::temp_dir("mjcf_include");
  std::ofstream(dir / "main.xml") << "<mujoco model=\"m\">\n  <include file=\"arm.xml\"/>\n</mujoco>\n";
  std::ofstream(dir / "arm.xml") << "<mujoco>\n  <worldbody>\n    <body name=\"arm\" pos=\"0 0 1\">\n"
                                    "      <joint name=\"j\" type=\"hinge\" damping=\"-inf\"/><geom type=\"sphere\" size=\"0.1\"/>\n"
                                    "    </body>\n  </worldbody>\n</mujoco>\n";
  CHECK_THROWS_WITH(mb::read_mjcf((dir / "main.xml").string()),
                    Catch::Contains((dir / "arm.xml").string() + ":4: field 'joint[j]': attribute damping=\"-inf\": numbers must be finite"));
  std::filesystem::remove_all(dir);
}

namespace {

// Our coordinates of a model whose multi-joint bodies are chains through massless frames (every
// joint a free, hinge or slide joint of MuJoCo's, named as MuJoCo names it) from MuJoCo's qpos, and
// J, our velocity coordinates per unit of MuJoCo's qvel. Ours: a hinge or slide its angle or
// displacement from qpos0 and its rate; the free root its centre of mass, the inertial frame's
// quaternion, its angular velocity (world) and the velocity of the body point at the world origin.
// MuJoCo's free joint: the body frame's origin and quaternion, that origin's velocity (world) and
// the angular velocity in the body frame.
struct ChainCoordinates {
  std::vector<double> x;
  Eigen::MatrixXd J;
};
ChainCoordinates chain_coordinates(const mb::Model& model, const mb::TreeModel& tree, const Native& n) {
  const mjModel* mm = n.m.get();
  const mjData* dd = n.d.get();
  ChainCoordinates c;
  c.x.assign(static_cast<size_t>(tree.size()), 0.0);
  c.J = Eigen::MatrixXd::Zero(tree.nv, mm->nv);
  for (const mb::TreeLink& L : tree.link) {
    const mb::Body& b = model.bodies[static_cast<size_t>(L.body)];
    if (L.kind == mb::TreeJoint::Free) {
      const int id = n.body(b.name);
      REQUIRE(id >= 0);
      REQUIRE(mm->jnt_type[mm->body_jntadr[id]] == mjJNT_FREE);
      const int d0 = mm->jnt_dofadr[mm->body_jntadr[id]];
      const mb::Quat q(n.m3(dd->ximat + 9 * id));
      for (int k = 0; k < 3; ++k) c.x[static_cast<size_t>(L.iq + k)] = dd->xipos[3 * id + k];
      c.x[static_cast<size_t>(L.iq + 3)] = q.w(), c.x[static_cast<size_t>(L.iq + 4)] = q.x();
      c.x[static_cast<size_t>(L.iq + 5)] = q.y(), c.x[static_cast<size_t>(L.iq + 6)] = q.z();
      const mb::Mat3 R = n.m3(dd->xmat + 9 * id);
      const mb::Vec3 p = n.v3(dd->xpos + 3 * id);
      mb::Mat3 px;
      px << 0, -p.z(), p.y(), p.z(), 0, -p.x(), -p.y(), p.x(), 0;
      c.J.block<3, 3>(L.iv, d0 + 3) = R;               // omega = R w_body
      c.J.block<3, 3>(L.iv + 3, d0) = mb::Mat3::Identity();  // v_O = v_origin - omega x p
      c.J.block<3, 3>(L.iv + 3, d0 + 3) = px * R;
      continue;
    }
    if (L.kind == mb::TreeJoint::Fixed) continue;
    REQUIRE((L.kind == mb::TreeJoint::Hinge || L.kind == mb::TreeJoint::Slider));
    const mb::Joint* joint = nullptr;
    for (const mb::Joint& j : model.joints)
      if (j.b == L.body) joint = &j;
    REQUIRE(joint);
    const int jid = n.joint(joint->name);
    INFO(joint->name);
    REQUIRE(jid >= 0);
    const int a = mm->jnt_qposadr[jid];
    c.x[static_cast<size_t>(L.iq)] = dd->qpos[a] - mm->qpos0[a];
    c.J(L.iv, mm->jnt_dofadr[jid]) = 1;
  }
  return c;
}

// Our CRBA against mj_fullM (armature 0) at 10 random configurations of a model of chains: returns
// the largest relative difference of J^T H J from MuJoCo's matrix; checks on the way that our
// kinematics put every massive body where MuJoCo does (the coordinates are mapped right).
double chain_crba_difference(const std::string& path, const mb::Model& model) {
  Native n(path);
  mjModel* mm = n.m.get();
  mjData* dd = n.d.get();
  for (int k = 0; k < mm->nv; ++k) mm->dof_armature[k] = 0;  // our Model has none
  const mb::TreeModel tree = mb::TreeModel::build(model);
  mb::TreeData td(tree);
  REQUIRE(tree.nv == mm->nv);
  std::mt19937 rng(39);
  std::uniform_real_distribution<double> u(-1, 1);
  double worst = 0;
  for (int trial = 0; trial < 10; ++trial) {
    for (int j = 0; j < mm->njnt; ++j) {
      mjtNum* q = dd->qpos + mm->jnt_qposadr[j];
      switch (mm->jnt_type[j]) {
        case mjJNT_FREE: {
          for (int k = 0; k < 3; ++k) q[k] = u(rng);
          const mb::Quat r = mb::Quat(u(rng), u(rng), u(rng), u(rng)).normalized();
          q[3] = r.w(), q[4] = r.x(), q[5] = r.y(), q[6] = r.z();
          break;
        }
        case mjJNT_HINGE: q[0] = mm->qpos0[mm->jnt_qposadr[j]] + M_PI * u(rng); break;
        case mjJNT_SLIDE: q[0] = mm->qpos0[mm->jnt_qposadr[j]] + 0.5 * u(rng); break;
        default: FAIL("a ball joint is no chain");
      }
    }
    mj_kinematics(mm, dd);
    mj_comPos(mm, dd);
    mj_crb(mm, dd);
    Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor> Hmj(mm->nv, mm->nv);
    mj_fullM(mm, Hmj.data(), dd->qM);
    const ChainCoordinates c = chain_coordinates(model, tree, n);
    const Eigen::MatrixXd H = mb::mass_matrix(tree, td, c.x);
    for (int i = 0; i < tree.links(); ++i) {  // the kinematics of mass_matrix at c.x
      const mb::Body& b = model.bodies[static_cast<size_t>(tree.link[static_cast<size_t>(i)].body)];
      if (b.frame) continue;
      const int id = n.body(b.name);
      const mb::LinkWork& W = td.work[static_cast<size_t>(i)];
      INFO(b.name);
      CHECK((W.x - n.v3(dd->xipos + 3 * id)).norm() <= 1e-12);
      CHECK((W.R - n.m3(dd->ximat + 9 * id)).norm() <= 1e-12);
    }
    const Eigen::MatrixXd ours = c.J.transpose() * H * c.J;  // the same kinetic energy in MuJoCo's rates
    const double rel = (ours - Eigen::MatrixXd(Hmj)).cwiseAbs().maxCoeff() / Hmj.cwiseAbs().maxCoeff();
    INFO("trial " << trial << ": relative difference " << rel);
    CHECK(rel <= 1e-10);
    worst = std::max(worst, rel);
  }
  return worst;
}

// The model with its initial joint rates set to random values (each hinge up to 1 rad/s, each
// slide 0.2 m/s, the free root's angular velocity 0.5 rad/s), read back into Cartesian velocities
// by our kinematics.
mb::Model with_random_rates(mb::Model model) {
  const mb::TreeModel tree = mb::TreeModel::build(model);
  mb::TreeData td(tree);
  std::vector<double> x;
  tree.read(mb::initial_state(model), x);
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> u(-1, 1);
  for (const mb::TreeLink& L : tree.link) {
    double* v = x.data() + tree.nq + L.iv;
    if (L.kind == mb::TreeJoint::Free)
      for (int k = 0; k < 3; ++k) v[k] = 0.5 * u(rng);  // angular; the origin's velocity stays 0
    else if (L.kind == mb::TreeJoint::Hinge)
      v[0] = u(rng);
    else if (L.kind == mb::TreeJoint::Slider)
      v[0] = 0.2 * u(rng);
  }
  mb::State s = mb::initial_state(model);
  mb::write_state(tree, td, x, s);
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    model.bodies[i].velocity = s.bodies[i].v;
    model.bodies[i].angular_velocity = s.bodies[i].w;
  }
  model.info.exact.clear();  // no longer at rest
  return model;
}

long frame_count(const mb::Model& m) {
  return std::count_if(m.bodies.begin(), m.bodies.end(), [](const mb::Body& b) { return b.frame; });
}
// the frames a chain of every multi-joint body needs: one after each joint but the last
long chain_frames(const Native& n) {
  long k = 0;
  for (int i = 1; i < n.m->nbody; ++i) k += std::max(0, n.m->body_jntnum[i] - 1);
  return k;
}

// the largest velocity and angular velocity difference of two states, over bodies
double max_velocity_difference(const mb::State& a, const mb::State& b) {
  double e = 0;
  for (size_t i = 0; i < a.bodies.size(); ++i)
    e = std::max({e, (a.bodies[i].v - b.bodies[i].v).norm(), (a.bodies[i].w - b.bodies[i].w).norm()});
  return e;
}

}  // namespace

TEST_CASE("mjcf: joints that no joint of ours holds are MuJoCo's chain through massless frames", "[mjcf]") {
  const std::string path = kData + "ankle.xml";
  const mb::Model m = mb::load_model(path + ":contacts=off");
  const Native n(path);
  // the foot's ankle_y and the carriage's rail_x and rail_z each lead to a frame at its anchor
  REQUIRE(m.bodies.size() == 6);
  for (const char* name : {"foot/ankle_y", "carriage/rail_x", "carriage/rail_z"}) {
    INFO(name);
    const mb::Body& f = m.bodies[static_cast<size_t>(m.body_index(name))];
    CHECK(f.frame);
    CHECK(f.mass == 0);
    CHECK(f.inertia == mb::Mat3::Zero());
  }
  CHECK((mb::model_features(m) & mb::kMasslessFrames) != 0);
  for (const char* name : {"ankle_y", "ankle_x", "rail_x", "rail_z", "swing"}) {
    INFO(name);
    const mb::Joint& j = joint_named(m, name);
    const int k = n.joint(name);
    CHECK((world_point(m, j.a, j.anchor_a) - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-14);
    CHECK((world_point(m, j.b, j.anchor_b) - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-14);
    CHECK((world_axis(m, j.a, j.axis_a) - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-14);
  }
  CHECK(joint_named(m, "ankle_x").a == m.body_index("foot/ankle_y"));
  // a scene file keeps the frames (type "frame", no mass or inertia): the round trip is exact
  const std::string toml = mb::scene_to_toml(m);
  CHECK_THAT(toml, Catch::Contains("name = \"foot/ankle_y\"\ntype = \"frame\"\n"));
  const mb::Model back = mb::parse_scene(toml, "ankle.toml");
  CHECK(mb::scene_to_toml(back) == toml);
  CHECK(back.bodies[static_cast<size_t>(back.body_index("foot/ankle_y"))].frame);
  CHECK_THROWS_WITH(mb::parse_scene(toml + "\n[[body]]\nname = \"extra\"\ntype = \"frame\"\nmass = 1\n", "bad.toml"),
                    Catch::Contains("a massless frame has no mass"));
  CHECK(joint_named(m, "swing").a == m.body_index("carriage/rail_z"));
  CHECK(chain_crba_difference(path, m) <= 1e-10);
  // a method without massless frames refuses the model by name; the tree methods and MuJoCo agree
  const mb::MethodEntry* sle = mb::find_method("sle");
  REQUIRE(sle);
  CHECK_THAT(mb::unsupported_reason(sle->info, m), Catch::Contains("sle does not support massless frames"));
  const mb::Model moving = with_random_rates(m);
  const mb::State ref = mbtest::simulate(moving, "ref", 0.001, 1.0);
  const mb::State gc4 = mbtest::simulate(moving, "GC4", 0.001, 1.0);
  CHECK(mbtest::max_position_difference(gc4, ref) <= 1e-6);
  CHECK(mbtest::max_position_difference(gc4, ref) > 0);
  if (mbtest::peer_built("mujoco")) {
    const mb::State mj = mbtest::simulate(moving, "mujoco", 0.001, 1.0);
    CHECK(mbtest::max_position_difference(mj, ref) <= 1e-6);
    CHECK(max_velocity_difference(mj, ref) <= 1e-5);
  }
}

TEST_CASE("mjcf: MuJoCo's humanoid.xml runs: its ankles through massless frames, checked against MuJoCo", "[mjcf]") {
  if (!std::filesystem::exists(kHumanoid) || !std::filesystem::exists(kHumanoid100)) {
    WARN("libmujoco-samples is not installed (scripts/install-deps.sh): skipped");
    return;
  }
  const mb::Model m = mb::load_model(kHumanoid + ":contacts=off,limits=ignore");  // ref has no limits
  // every body with several joints is MuJoCo's chain: a massless frame after each joint but the
  // last (humanoid.xml: abdomen 1, hips 2 + 2, ankles 1 + 1, shoulders 1 + 1)
  CHECK(frame_count(m) == 9);
  CHECK(frame_count(m) == chain_frames(Native(kHumanoid)));
  const double worst = chain_crba_difference(kHumanoid, m);
  CHECK(worst <= 1e-10);
  WARN("CRBA vs mj_fullM on humanoid.xml, 10 random configurations: largest relative difference " << worst);
  const mb::MethodEntry* sle = mb::find_method("sle");
  REQUIRE(sle);
  CHECK_THAT(mb::unsupported_reason(sle->info, m), Catch::Contains("sle does not support massless frames"));
  // from random joint rates, 1 s at h = 1 ms: GC4 and MuJoCo's RK4 against ref
  const mb::Model moving = with_random_rates(m);
  const mb::State ref = mbtest::simulate(moving, "ref", 0.001, 1.0);
  const mb::State gc4 = mbtest::simulate(moving, "GC4", 0.001, 1.0);
  const double e_gc4 = mbtest::max_position_difference(gc4, ref);
  CHECK(e_gc4 <= 1e-4);
  CHECK(e_gc4 > 0);
  if (mbtest::peer_built("mujoco")) {
    const mb::State mj = mbtest::simulate(moving, "mujoco", 0.001, 1.0);
    const double e_mj = mbtest::max_position_difference(mj, ref);
    CHECK(e_mj <= 1e-4);
    WARN("humanoid.xml from random rates, 1 s at h = 1 ms, largest body distance from ref: GC4 " << e_gc4 << " m, mujoco " << e_mj << " m");
  }
  // humanoid100.xml: the same humanoid among 100 free bodies
  const mb::Model hundred = mb::load_model(kHumanoid100 + ":contacts=off");
  CHECK(frame_count(hundred) == chain_frames(Native(kHumanoid100)));
}

TEST_CASE("mjcf: actuators push their joints with MuJoCo's own force", "[mjcf][actuators]") {
  // motor, position (with a joint ref: qpos0 != 0), velocity and general actuators, control and
  // force ranges: at a state off qpos0 with controls inside and beyond ctrlrange, our force law on
  // the imported coordinate equals MuJoCo's qfrc_actuator
  const std::filesystem::path f = std::filesystem::temp_directory_path() / "mbbench_actuators.xml";
  {
    std::ofstream out(f);
    out << R"(<mujoco model="actuated">
  <compiler angle="radian"/>
  <worldbody>
    <body name="a" pos="0 0 1">
      <joint name="ja" type="hinge" axis="0 1 0" ref="0.3"/>
      <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
      <body name="b" pos="0.3 0 0">
        <joint name="jb" type="hinge" axis="0 0.6 0.8"/>
        <geom type="capsule" fromto="0 0 0 0.3 0 0" size="0.05"/>
        <body name="c" pos="0.3 0 0">
          <joint name="jc" type="slide" axis="1 0 0"/>
          <geom type="box" size="0.05 0.05 0.05"/>
          <body name="d" pos="0.1 0 0">
            <joint name="jd" type="hinge" axis="1 0 0"/>
            <geom type="sphere" size="0.05"/>
          </body>
        </body>
      </body>
    </body>
  </worldbody>
  <actuator>
    <position name="pa" joint="ja" kp="20" ctrlrange="-1 1" ctrllimited="true"/>
    <motor name="mb" joint="jb" gear="3" forcerange="-0.5 0.5" forcelimited="true"/>
    <velocity name="vc" joint="jc" kv="4"/>
    <general name="gd" joint="jd" gear="2" gainprm="5" biastype="affine" biasprm="0.1 -1 -0.2"/>
  </actuator>
</mujoco>
)";
  }
  const mb::Model m = mb::load_model(f.string() + ":contacts=off");
  REQUIRE(m.actuators.size() == 4);
  CHECK(m.actuators[0].kind == mb::ActuatorKind::Position);
  CHECK(m.actuators[0].offset == Approx(0.3));
  CHECK(m.actuators[1].kind == mb::ActuatorKind::Motor);
  CHECK(m.actuators[2].kind == mb::ActuatorKind::Velocity);
  CHECK(m.actuators[3].kind == mb::ActuatorKind::General);
  char err[1000] = "";
  std::unique_ptr<mjModel, void (*)(mjModel*)> mm(mj_loadXML(f.string().c_str(), nullptr, err, sizeof err), mj_deleteModel);
  REQUIRE(mm);
  std::unique_ptr<mjData, void (*)(mjData*)> d(mj_makeData(mm.get()), mj_deleteData);
  const double qpos[4] = {0.3 + 0.2, -0.4, 0.05, 1.1}, qvel[4] = {0.7, -0.3, 0.2, -0.9};
  const double ctrl[4] = {1.7, 0.4, -0.6, 0.25};  // the first beyond ctrlrange
  for (int k = 0; k < 4; ++k) d->qpos[k] = qpos[k], d->qvel[k] = qvel[k], d->ctrl[k] = ctrl[k];
  mj_forward(mm.get(), d.get());
  for (int k = 0; k < 4; ++k) {
    const mb::Actuator& a = m.actuators[static_cast<size_t>(k)];
    const double c = std::clamp(ctrl[k], a.ctrl_low, a.ctrl_high);
    INFO(a.name);
    CHECK(mb::actuator_force(a, c, qpos[k], qvel[k]) == Approx(d->qfrc_actuator[k]).margin(1e-12));
  }
  std::filesystem::remove(f);
}

TEST_CASE("mjcf: frames=light, its change to humanoid.xml's motion against massless frames in GC4", "[mjcf][actuators]") {
  // the light bodies (1 % of the lighter neighbour's mass) against MuJoCo's massless frames, both
  // in GC4 without contacts under the same noise controls: the model change, measured
  if (!std::filesystem::exists(kHumanoid)) {
    WARN("no " << kHumanoid << " (libmujoco-samples): skipped");
    return;
  }
  const mb::Model massless = mb::load_model(kHumanoid + ":contacts=off,ctrl=noise:1,0.2");
  const mb::Model light = mb::load_model(kHumanoid + ":contacts=off,frames=light,ctrl=noise:1,0.2");
  REQUIRE(light.bodies.size() == massless.bodies.size());
  for (size_t k = 0; k < light.bodies.size(); ++k) {
    CHECK(light.bodies[k].frame == false);
    if (!massless.bodies[k].frame) continue;
    CHECK(light.bodies[k].light_frame);
    CHECK(light.bodies[k].mass > 0);
  }
  CHECK(mb::model_features(light) & mb::kActuators);
  CHECK(!(mb::model_features(light) & mb::kMasslessFrames));
  std::vector<double> worst;
  for (double t : {0.05, 0.1, 0.5}) {
    const mb::State a = mbtest::simulate(massless, "GC4", 1e-3, t), b = mbtest::simulate(light, "GC4", 1e-3, t);
    double w = 0;
    for (size_t k = 0; k < a.bodies.size(); ++k)
      if (!massless.bodies[k].frame) w = std::max(w, (a.bodies[k].x - b.bodies[k].x).norm());
    WARN("frames=light moves humanoid.xml's bodies by at most " << w << " m at " << t << " s (GC4, h = 1 ms, ctrl=noise:1,0.2)");
    worst.push_back(w);
  }
  CHECK(worst[0] > 0);
  CHECK(worst[0] < 5e-3);  // measured 1.4 mm at 0.05 s, 3.0 mm at 0.1 s; the noise-driven motion is chaotic after
}

TEST_CASE("mjcf: humanoid.xml's shape pairs are MuJoCo's - no parent-child pair through light or massless frames", "[mjcf][contacts]") {
  // MuJoCo's filter (mj_collision, filterparent on): two geoms collide unless their bodies share a
  // weld body or one's weld body is the other's weld body's parent (the world exempt), and their
  // contype and conaffinity bits meet
  if (!std::filesystem::exists(kHumanoid)) {
    WARN("no " << kHumanoid << " (libmujoco-samples): skipped");
    return;
  }
  const Native n(kHumanoid);
  const mjModel* mm = n.m.get();
  auto weld_parent = [&](int w) { return mm->body_weldid[mm->body_parentid[w]]; };
  for (const char* options : {"", ":frames=light"}) {
    INFO(options);
    const mb::Model m = mb::load_model(kHumanoid + options);
    const mb::ShapePairRule rule(m);
    int pairs = 0;
    for (size_t i = 0; i < m.shapes.size(); ++i)
      for (size_t j = i + 1; j < m.shapes.size(); ++j) {
        const int g1 = mj_name2id(mm, mjOBJ_GEOM, m.shapes[i].name.c_str()), g2 = mj_name2id(mm, mjOBJ_GEOM, m.shapes[j].name.c_str());
        REQUIRE(g1 >= 0);
        REQUIRE(g2 >= 0);
        const int w1 = mm->body_weldid[mm->geom_bodyid[g1]], w2 = mm->body_weldid[mm->geom_bodyid[g2]];
        const bool bits = (mm->geom_contype[g1] & mm->geom_conaffinity[g2]) || (mm->geom_contype[g2] & mm->geom_conaffinity[g1]);
        const bool mujoco = bits && w1 != w2 && !(w1 != 0 && w2 != 0 && (weld_parent(w1) == w2 || weld_parent(w2) == w1));
        INFO(m.shapes[i].name << " - " << m.shapes[j].name);
        CHECK(rule.tested(m, m.shapes[i].body, m.shapes[j].body) == mujoco);
        pairs += mujoco;
      }
    CHECK(pairs == 161);  // of the 20 geoms' 190 pairs, MuJoCo skips 29: one weld body's own, parent and child
  }
}

namespace {

// `file` of tests/data/mjcf written to the temporary directory as `name` with `edit` applied to its text
std::string edited_copy(const std::string& file, const std::string& name, const std::function<void(std::string&)>& edit) {
  std::ifstream in(kData + file);
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  REQUIRE(!text.empty());
  edit(text);
  const std::string path = (std::filesystem::temp_directory_path() / ("mbbench_" + name)).string();
  std::ofstream(path) << text;
  return path;
}

// the file with a body of two hinges that do not meet, apart from the rest: the model needs
// massless frames, so every multi-joint body of it is MuJoCo's chain
std::string with_frames(const std::string& file) {
  return edited_copy(file, "frames_" + file, [](std::string& t) {
    t.insert(t.find("</worldbody>"), "<body name=\"stopper\" pos=\"3 0 1\"><joint name=\"stop_a\" axis=\"0 1 0\"/>"
                                      "<joint name=\"stop_b\" pos=\"0 0 0.1\" axis=\"1 0 0\"/><geom type=\"box\" size=\"0.1 0.1 0.1\"/></body>\n");
  });
}

// the state of `to` with the velocities of the bodies of `from` of the same name (every body of `to`)
mb::Model rates_by_name(mb::Model to, const mb::Model& from) {
  for (mb::Body& b : to.bodies) {
    const mb::Body& o = from.bodies[static_cast<size_t>(from.body_index(b.name))];
    b.velocity = o.velocity;
    b.angular_velocity = o.angular_velocity;
  }
  to.info.exact.clear();
  return to;
}

// the largest distance of a body of `a` from the body of `b` of the same name
double named_difference(const mb::Model& ma, const mb::State& a, const mb::Model& mb_, const mb::State& b) {
  double e = 0;
  for (size_t i = 0; i < ma.bodies.size(); ++i)
    e = std::max(e, (a.bodies[i].x - b.bodies[static_cast<size_t>(mb_.body_index(ma.bodies[i].name))].x).norm());
  return e;
}

}  // namespace

TEST_CASE("mjcf: two slides and a hinge normal to them are a planar joint - a hinge and a slide along it a cylindrical one",
          "[mjcf][composite]") {
  struct Case {
    std::string path, joint, hinge;
    mb::JointType type;
  };
  // the runner's root in MuJoCo's order and with the hinge first; the sleeve's slide runs against its hinge's axis
  const std::string hinge_first = edited_copy("planar_runner.xml", "hinge_first.xml", [](std::string& t) {
    const std::string line = "      <joint name=\"rooty\" type=\"hinge\" axis=\"0 1 0\"/>\n";
    t.erase(t.find(line), line.size());
    t.insert(t.find("      <joint name=\"rootx\""), line);
  });
  const Case cases[] = {{kData + "planar_runner.xml", "rootx+rootz+rooty", "rooty", mb::JointType::Planar},
                        {hinge_first, "rooty+rootx+rootz", "rooty", mb::JointType::Planar},
                        {kData + "cylinder.xml", "spin+shift", "spin", mb::JointType::Cylindrical}};
  for (const Case& c : cases) {
    INFO(c.path);
    const mb::Model m = mb::load_model(c.path);
    const Native n(c.path);
    CHECK(m.shapes.empty());
    CHECK(frame_count(m) == 0);
    const mb::Joint& j = joint_named(m, c.joint);
    CHECK(j.type == c.type);
    CHECK(j.a == mb::kWorld);
    const int k = n.joint(c.hinge);
    CHECK((world_point(m, j.a, j.anchor_a) - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-14);
    CHECK((world_point(m, j.b, j.anchor_b) - n.v3(n.d->xanchor + 3 * k)).norm() <= 1e-14);
    CHECK((world_axis(m, j.a, j.axis_a) - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-14);
    CHECK((world_axis(m, j.b, j.axis_b) - n.v3(n.d->xaxis + 3 * k)).norm() <= 1e-14);
    const mb::TreeModel t = mb::TreeModel::build(m);
    CHECK(t.link[0].kind == (c.type == mb::JointType::Planar ? mb::TreeJoint::Planar : mb::TreeJoint::Cylindrical));
    CHECK(t.nv == n.m->nv);
    CHECK(t.nq == n.m->nq);
    // a scene file keeps the joint: the round trip is exact
    const std::string toml = mb::scene_to_toml(m);
    CHECK_THAT(toml, Catch::Contains(std::string("type = \"") + mb::joint_type_name(c.type) + "\""));
    CHECK(mb::scene_to_toml(mb::parse_scene(toml, "composite.toml")) == toml);
  }
}

TEST_CASE("mjcf: other chains of slides and a hinge stay MuJoCo's chain - refused by name where frames are", "[mjcf][composite]") {
  struct Case {
    std::string name, from, to, frame;
  };
  // the hinge off the slides' normal, parallel slides, a slide across the hinge; a range, an actuator
  // and a joint equality on a slide of a planar root, which its one joint could not carry
  const Case cases[] = {
      {"tilted.xml", "<joint name=\"rooty\" type=\"hinge\" axis=\"0 1 0\"/>", "<joint name=\"rooty\" type=\"hinge\" axis=\"0 1 0.2\"/>", "torso/rootx"},
      {"parallel.xml", "<joint name=\"rootz\" type=\"slide\" axis=\"0 0 1\"/>", "<joint name=\"rootz\" type=\"slide\" axis=\"-2 0 0\"/>", "torso/rootx"},
      {"ranged.xml", "<joint name=\"rootz\" type=\"slide\" axis=\"0 0 1\"/>", "<joint name=\"rootz\" type=\"slide\" axis=\"0 0 1\" range=\"-1 1\" limited=\"true\"/>",
       "torso/rootx"},
      {"driven.xml", "</worldbody>", "</worldbody><actuator><motor joint=\"rootx\"/></actuator>", "torso/rootx"},
      {"coupled.xml", "</worldbody>", "</worldbody><equality><joint joint1=\"hip\" joint2=\"rooty\"/></equality>", "torso/rootx"},
      {"skew.xml", "<joint name=\"shift\" type=\"slide\" axis=\"0 0 -1\"/>", "<joint name=\"shift\" type=\"slide\" axis=\"0 1 -1\"/>", "sleeve/spin"}};
  for (const Case& c : cases) {
    INFO(c.name);
    const std::string path = edited_copy(c.frame == "sleeve/spin" ? "cylinder.xml" : "planar_runner.xml", c.name, [&](std::string& t) {
      REQUIRE(t.find(c.from) != std::string::npos);
      t.replace(t.find(c.from), c.from.size(), c.to);
    });
    const mb::Model m = mb::load_model(path);
    CHECK(frame_count(m) == chain_frames(Native(path)));
    CHECK(m.body_index(c.frame) >= 0);
    for (const mb::Joint& j : m.joints) CHECK((j.type == mb::JointType::Hinge || j.type == mb::JointType::Slider));
    const mb::MethodEntry* sle = mb::find_method("sle");
    REQUIRE(sle);
    CHECK_THAT(mb::unsupported_reason(sle->info, m), Catch::Contains("sle does not support massless frames") && Catch::Contains("'" + c.frame + "'"));
  }
}

TEST_CASE("mjcf: planar and cylindrical joints run in GC4 as MuJoCo's chain does - and in the maximal-coordinate methods",
          "[mjcf][composite]") {
  // from random rates of MuJoCo's chain (the same file with a body that needs frames), 1 s at h =
  // 1 ms: GC4 in the one joint's coordinates against GC4 and ref through the frames, and every
  // maximal-coordinate method against ref; sle keeps the new rows at round-off
  for (const char* file : {"planar_runner.xml", "cylinder.xml"}) {
    INFO(file);
    const mb::Model chain = with_random_rates(mb::load_model(with_frames(file)));
    const mb::Model one = rates_by_name(mb::load_model(kData + file), chain);
    REQUIRE(frame_count(one) == 0);
    REQUIRE(mb::max_joint_error(one, mb::initial_state(one)).vel <= 1e-12);
    const mb::State gc4_chain = mbtest::simulate(chain, "GC4", 0.001, 1.0);
    const mb::State ref = mbtest::simulate(one, "ref", 0.001, 1.0);
    const mb::State gc4 = mbtest::simulate(one, "GC4", 0.001, 1.0);
    const double moved = mbtest::max_position_difference(ref, mb::initial_state(one));
    const double e_chain = named_difference(one, gc4, chain, gc4_chain), e_ref = mbtest::max_position_difference(gc4, ref);
    INFO("at 1 s: GC4 " << e_chain << " m from GC4 through frames, " << e_ref << " m from ref; bodies moved up to " << moved << " m");
    CHECK(moved > 0.1);
    CHECK(e_chain <= 1e-13);
    CHECK(e_ref <= 1e-10);
    // the impulse methods' error is their order's (second) at h = 1 ms; lagrange is RK4
    for (const char* method : {"sle", "iterative", "linear", "tomcin", "lagrange"}) {
      const double e = mbtest::max_position_difference(mbtest::simulate(one, method, 0.001, 1.0), ref);
      INFO(method << ": " << e << " m from ref at 1 s");
      CHECK(e <= (std::string(method) == "lagrange" ? 1e-9 : 2e-5));
    }
    // sle's drift of the joint's rows over the second, at tolerances of 1e-12
    auto sle = mb::make_method("sle:tol_p=1e-12,tol_v=1e-12");
    mb::State s = mb::initial_state(one);
    sle->init(one, s);
    double drift = 0;
    for (int i = 1; i <= 1000; ++i) {
      mb::StepStats st;
      sle->step(one, s, 0.001, st);
      const mb::JointError e = mb::joint_error(one, s, one.joints[0]);
      drift = std::max({drift, e.pos, e.rot});
    }
    INFO("sle: the composite joint's largest position error over 1 s " << drift);
    CHECK(drift <= 1e-12);
    // the engines that have the joint: RK4 in joint coordinates (mujoco, simbody) or first order
    // (g h t / 2 = 4.9e-3 m: dart, ode, bullet); the others refuse it by its type's name
    const bool planar = one.joints[0].type == mb::JointType::Planar;
    const std::pair<const char*, double> engines[] = {{"mujoco", 1e-10}, {"simbody", 1e-10}, {"dart", planar ? 1e-2 : 0.0},
                                                      {"ode", planar ? 0.0 : 1e-2}, {"bullet", planar ? 1e-2 : 0.0}};
    for (const auto& [engine, tolerance] : engines) {
      if (!mbtest::peer_built(engine)) continue;
      INFO(engine);
      if (tolerance == 0) {
        CHECK_THROWS_WITH(mb::make_method(engine)->init(one, mb::initial_state(one)),
                          Catch::Contains(std::string("of type ") + mb::joint_type_name(one.joints[0].type)));
        continue;
      }
      const double e = mbtest::max_position_difference(mbtest::simulate(one, engine, 0.001, 1.0), ref);
      INFO(engine << " " << e << " m from ref");
      CHECK(e <= tolerance);
    }
  }
}

#else

TEST_CASE("mjcf: without MuJoCo an MJCF file is refused by name", "[mjcf]") {
  CHECK_THROWS_WITH(mb::load_model(kData + "small.xml"), Catch::Contains("built without MuJoCo"));
}

#endif
