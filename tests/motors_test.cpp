// Motors (models/model.hpp, Motor): the scene table round-trips; a velocity motor turns a
// pendulum at constant speed against gravity, a position motor follows a ramp and a sine, a
// bounded motor saturates (its work is then max_force times the angle, which must equal the
// energy change) or is refused by name by a method whose motor takes no bound; GC4 and ref
// (prescribed motion: hybrid dynamics) drive a double pendulum as the Lagrange multiplier method
// does, through a target table's jumps in rate too; every method that
// does not claim motors refuses them by name.
#include <catch2/catch.hpp>

#include <cmath>

#include "core/error.hpp"
#include "core/spec.hpp"
#include "methods/method.hpp"
#include "models/formats/scene.hpp"
#include "models/kinematics.hpp"

namespace {

// A rod of length 1 and mass 1 along x, hinged to the world at the origin about z (`at_centre`:
// hinged at its centre of mass instead), turning at omega0 at the start.
mb::Model rod(bool at_centre, double omega0) {
  mb::Model m;
  m.info.name = "motor-rod";
  m.info.duration = 1;
  m.info.default_h = 0.01;
  m.info.h_grid = {0.01};
  mb::Body b;
  b.name = "rod";
  b.mass = 1;
  b.inertia = mb::Vec3(1e-3, 1.0 / 12, 1.0 / 12).asDiagonal();
  b.position = at_centre ? mb::Vec3::Zero() : mb::Vec3(0.5, 0, 0);
  b.angular_velocity = mb::Vec3(0, 0, omega0);
  b.velocity = mb::Vec3(0, 0, omega0).cross(b.position);
  m.bodies.push_back(b);
  mb::Joint j;
  j.name = "pivot";
  j.type = mb::JointType::Hinge;
  j.a = mb::kWorld;
  j.b = 0;
  j.anchor_b = -b.position;
  m.joints.push_back(j);
  return m;
}

mb::Motor motor(mb::MotorMode mode, mb::MotorTarget target, double max_force = INFINITY) {
  mb::Motor mo;
  mo.name = "drive";
  mo.joint = 0;
  mo.mode = mode;
  mo.target = std::move(target);
  mo.max_force = max_force;
  return mo;
}

mb::MotorTarget constant(double v) {
  mb::MotorTarget t;
  t.value = v;
  return t;
}

// Steps `method` over [0, t_end] with h; calls f(state) after every step.
template <class F>
void run(const mb::Model& m, const std::string& method, double h, double t_end, F&& f) {
  auto meth = mb::make_method(method);
  mb::State s = mb::initial_state(m);
  meth->init(m, s);
  mb::StepStats st;
  const long n = std::lround(t_end / h);
  for (long i = 0; i < n; ++i) {
    meth->step(m, s, h, st);
    f(s);
  }
}

// the methods that claim motors, with the tolerance their angle holds to at h = 0.01 (a peer
// engine's own motor: ODE's and MuJoCo's lag by their constraints' softness; MuJoCo's RK4 leaves
// the rate at the step's end off by up to 2.3 % at h = eq_timeconst / 2, hence its energy margin)
struct Claimer {
  const char* spec;
  double tol;
};
// the methods that claim motors and are built (a peer engine may not be)
std::vector<Claimer> claimers();
const Claimer kClaimers[] = {{"iterative:tol_p=1e-10,tol_v=1e-10", 1e-8},
                             {"sle:tol_p=1e-10,tol_v=1e-10", 1e-8},
                             {"linear:tol_p=1e-10,tol_v=1e-10", 1e-8},
                             {"tomcin:eps_P=1e-10,eps_V=1e-10", 1e-8},
                             {"Imp4", 1e-5},
                             {"LM4", 1e-6},
                             {"LMBS4", 1e-6},
                             {"LMVD4", 1e-8},
                             {"ode", 1e-3},
                             {"GC4", 1e-12},
                             {"ref", 1e-12},
                             {"bullet", 1e-9},
                             {"dart", 1e-9},
                             {"simbody", 1e-9},
                             {"mujoco:integrator=euler", 1e-3},
                             {"mujoco", 1e-2}};
std::vector<Claimer> claimers() {
  std::vector<Claimer> v;
  for (const Claimer& c : kClaimers)
    if (mb::find_method(mb::Spec::parse(c.spec, "method", "test", 0).name())) v.push_back(c);
  return v;
}

}  // namespace

TEST_CASE("motors: a velocity motor turns a pendulum at constant speed against gravity", "[motors]") {
  const double omega = 2.0;
  mb::Model m = rod(false, omega);
  m.motors.push_back(motor(mb::MotorMode::Velocity, constant(omega)));
  for (const Claimer& c : claimers()) {
    INFO(c.spec);
    double t = 0, worst = 0, worst_rate = 0;
    const double e0 = mb::total_energy(m, mb::initial_state(m));
    double work = 0, theta_prev = 0;
    run(m, c.spec, 0.01, 2.0, [&](const mb::State& s) {
      t += 0.01;
      const double q = mb::motor_coordinate(m, s, m.motors[0]);
      worst = std::max(worst, std::abs(mb::wrap_angle(q - omega * t)));
      worst_rate = std::max(worst_rate, std::abs(mb::motor_rate(m, s, m.motors[0]) - omega));
      // the motor's work at constant speed: the torque that holds omega against gravity, m g (L/2) cos(theta),
      // integrated over the step's angle (midpoint rule)
      const double theta = omega * t, mid = theta - omega * 0.005;
      work += 9.81 * 0.5 * std::cos(mid) * (theta - theta_prev);
      theta_prev = theta;
      // the energy change equals the work (the kinetic energy stays; the potential rises by the work)
      if (std::abs(t - 0.7) < 1e-9 || std::abs(t - 2.0) < 1e-9) {
        const double de = mb::total_energy(m, s) - e0;
        CHECK(std::abs(de - work) < 1e-4 + 10 * c.tol);
        CHECK(std::abs(work) > 1.0);  // the test can fail: the work is not small
      }
    });
    CHECK(worst < c.tol);
    CHECK(worst_rate < 1e3 * c.tol);
  }
}

TEST_CASE("motors: a position motor follows a ramp and a sine", "[motors]") {
  mb::MotorTarget ramp;
  ramp.kind = mb::TargetKind::Ramp;
  ramp.rate = 1.0;
  mb::MotorTarget sine;
  sine.kind = mb::TargetKind::Sine;
  sine.amplitude = 0.5;
  sine.frequency = 0.5;
  for (const mb::MotorTarget& target : {ramp, sine}) {
    mb::Model m = rod(false, target.rate_at(0));
    m.motors.push_back(motor(mb::MotorMode::Position, target));
    for (const Claimer& c : claimers()) {
      INFO(c.spec << " " << mb::target_kind_name(target.kind));
      double t = 0, worst = 0;
      run(m, c.spec, 0.01, 1.5, [&](const mb::State& s) {
        t += 0.01;
        worst = std::max(worst, std::abs(mb::wrap_angle(mb::motor_coordinate(m, s, m.motors[0]) - target.at(t))));
      });
      CHECK(worst < c.tol);
      CHECK(std::abs(target.at(1.5)) > 0.3);  // the target moves
    }
  }
}

TEST_CASE("motors: a slider motor drives a translation", "[motors]") {
  mb::Model m = rod(true, 0);
  m.joints[0].type = mb::JointType::Slider;
  m.joints[0].axis_a = mb::Vec3(1, 1, 0);
  m.bodies[0].velocity = 0.2 * mb::Vec3(1, 1, 0).normalized();  // the ramp's rate from the start (LM4 keeps J V + r)
  mb::MotorTarget ramp;
  ramp.kind = mb::TargetKind::Ramp;
  ramp.rate = 0.2;
  m.motors.push_back(motor(mb::MotorMode::Position, ramp));
  std::vector<Claimer> specs = {{"iterative:tol_p=1e-10,tol_v=1e-10", 1e-8}, {"sle:tol_p=1e-10,tol_v=1e-10", 1e-8},
                                {"linear:tol_p=1e-10,tol_v=1e-10", 1e-8}, {"LM4", 1e-6}, {"LMBS4", 1e-6}, {"LMVD4", 1e-8}};
  for (const Claimer& c : claimers())
    if (mb::find_method(mb::Spec::parse(c.spec, "method", "test", 0).name())->info.family == "peer") specs.push_back(c);
  for (const Claimer& c : specs) {
    INFO(c.spec);
    double t = 0, worst = 0;
    mb::State last;
    run(m, c.spec, 0.01, 1.0, [&](const mb::State& s) {
      t += 0.01;
      worst = std::max(worst, std::abs(mb::motor_coordinate(m, s, m.motors[0]) - 0.2 * t));
      last = s;
    });
    CHECK(worst < c.tol);
    // along the axis, against gravity: the body rose by 0.2 / sqrt(2)
    CHECK(last.bodies[0].x.y() == Approx(0.2 / std::sqrt(2.0)).margin(c.tol));
  }
}

TEST_CASE("motors: a motor on a hinge whose b is the world drives the world relative to the body", "[motors]") {
  // a = the rod, b = the world: q is the world's turn relative to the rod, -theta; a reduced-
  // coordinate engine's tree takes the world as the parent, so its joint coordinate is -q
  const double omega = 2.0;
  mb::Model m = rod(false, omega);
  std::swap(m.joints[0].a, m.joints[0].b);
  m.joints[0].anchor_a = m.joints[0].anchor_b;
  m.joints[0].anchor_b = mb::Vec3::Zero();
  m.motors.push_back(motor(mb::MotorMode::Velocity, constant(-omega)));
  for (const Claimer& c : claimers()) {
    INFO(c.spec);
    double t = 0, worst = 0;
    run(m, c.spec, 0.01, 1.0, [&](const mb::State& s) {
      t += 0.01;
      // the rod turns at +omega about z: its centre at angle omega t
      worst = std::max(worst, std::abs(mb::wrap_angle(std::atan2(s.bodies[0].x.y(), s.bodies[0].x.x()) - omega * t)));
    });
    CHECK(worst < c.tol);
  }
}

TEST_CASE("motors: a bounded motor saturates, and its work max_force * angle is the energy change", "[motors]") {
  // hinged at its centre: gravity does no work; the motor asks for 10 rad/s but may give 0.5 N m
  const double tau = 0.5, inertia = 1.0 / 12;
  mb::Model m = rod(true, 0);
  m.motors.push_back(motor(mb::MotorMode::Velocity, constant(10), tau));
  for (const char* spec : {"iterative", "sle", "linear", "tomcin", "ode", "bullet", "dart"}) {
    if (!mb::find_method(spec)) continue;  // a peer engine not built
    INFO(spec);
    double theta = 0, prev = 0, t = 0;
    mb::State last;
    run(m, spec, 0.01, 1.0, [&](const mb::State& s) {
      t += 0.01;
      const double q = mb::motor_coordinate(m, s, m.motors[0]);
      theta += mb::wrap_angle(q - prev);
      prev = q;
      last = s;
    });
    const double omega = mb::motor_rate(m, last, m.motors[0]);
    CHECK(omega == Approx(tau / inertia * t).epsilon(1e-3));  // 6 rad/s < 10: held at the bound
    // the work tau theta and the kinetic energy agree to first order: each step moves by h times
    // the velocity at its end, so the work exceeds the energy by tau omega h / 2 over the run
    CHECK(std::abs(mb::kinetic_energy(m, last) - tau * theta) <= tau * omega * 0.01);
    CHECK(theta == Approx(0.5 * tau / inertia * t * t).epsilon(2e-2));
  }
  // the multiplier methods, Imp and the prescribed motion of GC4 and ref refuse a bound by name
  for (const char* spec : {"LM4", "Imp4", "GC4", "ref"})
    CHECK_THROWS_WITH(run(m, spec, 0.01, 0.01, [](const mb::State&) {}), Catch::Contains("motor 'drive' has a force bound"));
  // so do the engines whose motor is a constraint without a force limit
  for (const char* spec : {"mujoco", "simbody"})
    if (mb::find_method(spec)) CHECK_THROWS_WITH(run(m, spec, 0.01, 0.01, [](const mb::State&) {}), Catch::Contains("motor 'drive' has a force bound"));
}

namespace {

// two rods of length 1 and mass 1 (the rod above), the second hinged to the first's end about z;
// the motor on the shoulder (joint 0, the first turning at omega0 with the second rigidly) or on
// the elbow (joint 1, the second turning at omega0 relative to the first, at rest)
mb::Model double_rod(double omega0, const mb::MotorTarget& target, int joint = 0) {
  mb::Model m = rod(false, joint == 0 ? omega0 : 0);
  mb::Body b = m.bodies[0];
  b.name = "rod2";
  b.position = mb::Vec3(1.5, 0, 0);
  b.velocity = mb::Vec3(0, 0, omega0).cross(joint == 0 ? b.position : mb::Vec3(0.5, 0, 0));
  b.angular_velocity = mb::Vec3(0, 0, omega0);
  m.bodies.push_back(b);
  mb::Joint j = m.joints[0];
  j.name = "elbow";
  j.a = 0;
  j.b = 1;
  j.anchor_a = mb::Vec3(0.5, 0, 0);
  j.anchor_b = mb::Vec3(-0.5, 0, 0);
  m.joints.push_back(j);
  m.motors.push_back(motor(mb::MotorMode::Position, target));
  m.motors.back().joint = joint;
  return m;
}

// the second rod's centre after t_end
mb::Vec3 elbow_end(const mb::Model& m, const std::string& spec, double h, double t_end) {
  mb::State last;
  run(m, spec, h, t_end, [&](const mb::State& s) { last = s; });
  return last.bodies[1].x;
}

}  // namespace

TEST_CASE("motors: GC4 and ref drive a double pendulum as the Lagrange multiplier method does", "[motors]") {
  // the shoulder follows a sine; the elbow swings free under gravity and the shoulder's motion
  mb::MotorTarget sine;
  sine.kind = mb::TargetKind::Sine;
  sine.amplitude = 0.8;
  sine.frequency = 1.0;
  const mb::Model m = double_rod(sine.rate_at(0), sine);
  const mb::Vec3 lm = elbow_end(m, "LMVD4", 1e-3, 1.0);
  const mb::Vec3 gc4 = elbow_end(m, "GC4", 1e-3, 1.0);
  const mb::Vec3 ref = elbow_end(m, "ref", 1e-3, 1.0);
  CHECK((gc4 - ref).norm() < 1e-9);  // fourth order at h = 1 ms
  CHECK((lm - ref).norm() < 1e-6);   // an independent formulation: a rheonomic constraint row
  // the motor matters: free, the shoulder falls and the elbow ends elsewhere
  mb::Model free = m;
  free.motors.clear();
  CHECK((elbow_end(free, "ref", 1e-3, 1.0) - ref).norm() > 0.1);

  // the elbow driven, the shoulder free: the driven link's articulated inertia and bias reach its parent
  const mb::Model me = double_rod(sine.rate_at(0), sine, 1);
  const mb::Vec3 lm_e = elbow_end(me, "LMVD4", 1e-3, 1.0), ref_e = elbow_end(me, "ref", 1e-3, 1.0);
  CHECK((elbow_end(me, "GC4", 1e-3, 1.0) - ref_e).norm() < 1e-9);
  CHECK((lm_e - ref_e).norm() < 1e-6);
  CHECK((elbow_end(me, "ref", 1e-3, 0.5) - elbow_end(me, "LMVD4", 1e-3, 0.5)).norm() < 1e-6);

  // a table: the shoulder's rate jumps at 0.3 s and 0.6 s (points inside GC4's steps of 7 ms),
  // and each jump passes its impulse to the elbow
  mb::MotorTarget table;
  table.kind = mb::TargetKind::Table;
  table.times = {0, 0.3, 0.6, 1.0};
  table.values = {0, 0.6, 0.1, 0.1};
  const mb::Model mt = double_rod(table.rate_at(0), table);
  const mb::Vec3 ref_t = elbow_end(mt, "ref", 1e-2, 1.0);
  const mb::Vec3 gc4_t = elbow_end(mt, "GC4", 7e-3, 1.001);
  const mb::Vec3 sle_t = elbow_end(mt, "sle:tol_p=1e-12,tol_v=1e-12", 1e-4, 1.0);
  INFO("ref " << ref_t.transpose() << " GC4 " << gc4_t.transpose() << " sle " << sle_t.transpose());
  CHECK((gc4_t - elbow_end(mt, "ref", 1.001 / 100, 1.001)).norm() < 1e-7);
  CHECK((sle_t - ref_t).norm() < 1e-6);  // first order at h = 0.1 ms (5e-8 m)

  // simbody's adaptive integrator (fixed=no) integrates from table point to table point: the
  // shoulder is on the table at every step's end, the run passes both jumps, and each jump's
  // impulse reaches the elbow as in GC4 (without it the elbow ends 0.32 m away)
  if (mb::find_method("simbody")) {
    double worst = 0;
    double t = 0;
    run(mt, "simbody:fixed=no,accuracy=1e-8", 7e-3, 1.001, [&](const mb::State& s) {
      t += 7e-3;
      worst = std::max(worst, std::abs(mb::wrap_angle(mb::motor_coordinate(mt, s, mt.motors[0]) - table.at(t))));
    });
    const mb::Vec3 simbody_t = elbow_end(mt, "simbody:fixed=no,accuracy=1e-8", 7e-3, 1.001);
    INFO("simbody: shoulder off its table by " << worst << " rad at most; elbow end " << simbody_t.transpose() << ", "
                                                << (simbody_t - gc4_t).norm() << " m from GC4's");
    CHECK(worst < 1e-9);
    CHECK((simbody_t - gc4_t).norm() < 1e-6);  // measured 6.8e-9 m
  }

  // ref takes a model with closed loops in maximal coordinates, where motors are not built
  mb::Model loop = double_rod(0, constant(0), 0);
  loop.motors.back().mode = mb::MotorMode::Velocity;
  mb::Joint close = loop.joints[0];
  close.name = "close";
  close.type = mb::JointType::Ball;
  close.b = 1;
  close.anchor_a = mb::Vec3(2, 0, 0);
  close.anchor_b = mb::Vec3(0.5, 0, 0);
  loop.joints.push_back(close);
  CHECK_THROWS_WITH(run(loop, "ref", 0.01, 0.01, [](const mb::State&) {}), Catch::Contains("motors are prescribed motion"));
  CHECK_THROWS_WITH(run(loop, "GC4", 0.01, 0.01, [](const mb::State&) {}), Catch::Contains("closes a kinematic loop"));
}

TEST_CASE("motors: every method that does not claim motors refuses them by name", "[motors]") {
  mb::Model m = rod(false, 1);
  m.motors.push_back(motor(mb::MotorMode::Velocity, constant(1)));
  int claimers = 0, refusers = 0;
  for (const auto& e : mb::method_registry()) {
    INFO(e.info.name);
    const std::string why = mb::unsupported_reason(e.info, m);
    if (e.info.supports & mb::kMotors) {
      ++claimers;
      CHECK(why.empty());
    } else {
      ++refusers;
      CHECK_THAT(why, Catch::StartsWith(e.info.name + " does not support") && Catch::Contains("motors ("));
    }
  }
  CHECK(claimers >= 8);
  CHECK(refusers >= 2);  // baraff and particles at least
}

TEST_CASE("motors: the scene table round-trips, every target kind", "[motors][scene]") {
  mb::Model m = rod(false, 0);
  mb::Joint j2 = m.joints[0];
  j2.name = "slide";
  j2.type = mb::JointType::Slider;
  j2.axis_a = mb::Vec3(1, 0, 0);
  m.joints.push_back(j2);  // not consistent dynamics: the reader's round trip only
  mb::MotorTarget table;
  table.kind = mb::TargetKind::Table;
  table.times = {0, 0.5, 2};
  table.values = {0, 0.25, -1.0 / 3};
  m.motors.push_back(motor(mb::MotorMode::Position, table, 2.5));
  mb::MotorTarget sine;
  sine.kind = mb::TargetKind::Sine;
  sine.value = 0.1;
  sine.amplitude = 0.3;
  sine.frequency = 1.5;
  sine.phase = 0.25;
  mb::Motor second = motor(mb::MotorMode::Velocity, sine);
  second.name = "wave";
  second.joint = 1;
  m.motors.push_back(second);
  const std::string text = mb::scene_to_toml(m);
  const mb::Model back = mb::parse_scene(text, "motors.toml");
  REQUIRE(back.motors.size() == 2);
  for (size_t i = 0; i < 2; ++i) {
    const mb::Motor &a = m.motors[i], &b = back.motors[i];
    CHECK(a.name == b.name);
    CHECK(a.joint == b.joint);
    CHECK(a.mode == b.mode);
    CHECK(a.max_force == b.max_force);
    CHECK(a.target.kind == b.target.kind);
    CHECK(a.target.value == b.target.value);
    CHECK(a.target.amplitude == b.target.amplitude);
    CHECK(a.target.frequency == b.target.frequency);
    CHECK(a.target.phase == b.target.phase);
    CHECK(a.target.times == b.target.times);
    CHECK(a.target.values == b.target.values);
  }
  CHECK(mb::scene_to_toml(back) == text);
  CHECK((mb::model_features(back) & mb::kMotors) != 0);
  // the table: linear between its points, constant outside
  CHECK(table.at(0.25) == Approx(0.125));
  CHECK(table.rate_at(1.0) == Approx((-1.0 / 3 - 0.25) / 1.5));
  CHECK(table.at(5) == Approx(-1.0 / 3));
  CHECK(table.rate_at(5) == 0);
}

TEST_CASE("motors: a model built in code with a bad motor is an input error", "[motors][errors]") {
  mb::Model m = rod(false, 0);
  m.motors.push_back(motor(mb::MotorMode::Position, constant(0.5)));
  CHECK_THROWS_WITH(mb::check_model(m, "built"), Catch::Contains("motor[0] 'drive'.target") && Catch::Contains("must be 0"));
  m.motors[0].target = constant(0);
  m.motors[0].joint = 3;
  CHECK_THROWS_WITH(mb::check_model(m, "built"), Catch::Contains("no such joint"));
  m.motors[0].joint = 0;
  m.motors[0].target.kind = mb::TargetKind::Table;
  m.motors[0].target.times = {0, 1, 1};
  m.motors[0].target.values = {0, 1, 2};
  CHECK_THROWS_WITH(mb::check_model(m, "built"), Catch::Contains("increase strictly"));
  m.motors[0].target.times = {0, 1, NAN};
  CHECK_THROWS_WITH(mb::check_model(m, "built"), Catch::Contains("not finite"));
}
