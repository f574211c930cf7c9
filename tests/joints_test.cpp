// Every joint type keeps its invariant over a simulation, with the body it constrains still free to
// move in the directions the joint leaves open. The model: box b1 hangs from the world by a ball
// joint; box b2 is attached to b1's lower end by the joint under test; both start spinning and
// moving (the first velocity correction removes what the joints forbid).
#include <catch2/catch.hpp>

#include "methods/constraints/constraint_system.hpp"
#include "models/kinematics.hpp"
#include "test_util.hpp"

namespace {

mb::Model two_boxes(mb::JointType type) {
  mb::Model m;
  mb::Body b1 = mb::make_box("b1", 0.5, 0.05, 600), b2 = mb::make_box("b2", 0.4, 0.05, 600);
  b2.inertia(0, 0) *= 1.5;  // not symmetric
  b1.position = mb::Vec3(0, -0.25, 0);
  b2.position = mb::Vec3(0, -0.7, 0);
  b1.angular_velocity = mb::Vec3(0.5, 0.2, 1.0);
  b2.angular_velocity = mb::Vec3(1.0, 2.0, -1.5);
  b2.velocity = mb::Vec3(0.3, 0.1, -0.2);
  m.bodies = {b1, b2};
  mb::Joint hang;
  hang.name = "hang";
  hang.type = mb::JointType::Ball;
  hang.a = mb::kWorld;
  hang.b = 0;
  hang.anchor_b = mb::Vec3(0, 0.25, 0);
  mb::Joint j;
  j.name = "tested";
  j.type = type;
  j.a = 0;
  j.b = 1;
  j.anchor_a = mb::Vec3(0, -0.25, 0);
  j.anchor_b = mb::Vec3(0, 0.2, 0);
  j.axis_a = mb::Vec3(1, 0, 1).normalized();  // line direction, plane normal, hinge/twist axis
  j.axis_b = mb::Vec3(1, 0, 1).normalized();
  if (type == mb::JointType::Cardan) j.axis_b = mb::Vec3(1, 0, -1).normalized();  // the cross: perpendicular axes
  j.length = 0;
  if (type == mb::JointType::Distance) {
    j.anchor_b = mb::Vec3(0, 0.1, 0);  // rod of 0.1 m between the two points, initially satisfied
    j.length = 0.1;
  }
  m.joints = {hang, j};
  m.info.name = std::string("two-boxes-") + mb::joint_type_name(type);
  return m;
}

}  // namespace

TEST_CASE("every joint type keeps its invariant over a simulation", "[joints][impulse]") {
  for (mb::JointType type : mb::all_joint_types()) {
    const mb::Model m = two_boxes(type);
    for (const char* spec : {"iterative:tol_p=1e-10,tol_v=1e-10", "sle:tol_p=1e-10,tol_v=1e-10", "linear:tol_p=1e-10,tol_v=1e-10"}) {
      INFO(mb::joint_type_name(type) << " with " << spec);
      auto method = mb::make_method(spec);
      mb::State s = mb::initial_state(m);
      method->init(m, s);
      mb::StepStats st;
      double worst_pos = 0, worst_rot = 0, worst_vel = 0;
      const double h = 0.01;
      for (int i = 1; i <= 100; ++i) {
        method->step(m, s, h, st);
        s.t = i * h;
        const auto e = mb::joint_error(m, s, m.joints[1]);
        worst_pos = std::max(worst_pos, e.pos);
        worst_rot = std::max(worst_rot, e.rot);
        worst_vel = std::max(worst_vel, e.vel);  // the metric's velocity error (CD_vel) after the velocity correction
      }
      // the relative motion the joint allows did happen
      const mb::State s0 = mb::initial_state(m);
      const double moved = (mb::rotation_vector(s.bodies[0].q.conjugate() * s.bodies[1].q) -
                            mb::rotation_vector(s0.bodies[0].q.conjugate() * s0.bodies[1].q)).norm() +
                           ((s.bodies[1].x - s.bodies[0].x) - (s0.bodies[1].x - s0.bodies[0].x)).norm();
      INFO(mb::joint_type_name(type) << " with " << spec << ": worst position error " << worst_pos << ", rotation error "
                                     << worst_rot << ", velocity error " << worst_vel << ", relative motion " << moved);
      CHECK(worst_pos <= 1e-10);
      CHECK(worst_vel <= 1e-8);
      CHECK(worst_rot <= 1e-10);
      if (type != mb::JointType::Fixed) CHECK(moved > 1e-2);
    }
  }
}

TEST_CASE("the rows of every joint type are the time derivative of its position error", "[joints][jacobian]") {
  // J V against a central difference of e along the free motion of the state: for small dt the
  // state at t + dt is x + v dt, q rotated by w dt (world frame). Rows whose projection turns with
  // the state (rod, line, axis) are first order only, so the check is at a satisfied state, where
  // d e / dt = J V holds for every part; perpendicular: at any state (the exact derivative).
  for (mb::JointType type : mb::all_joint_types()) {
    INFO(mb::joint_type_name(type));
    mb::Model m = two_boxes(type);
    mb::State s = mb::initial_state(m);
    s.bodies[0].v = mb::Vec3(0.2, -0.1, 0.3);
    mb::ConstraintSystem cs(m);
    cs.update(m, s);
    Eigen::VectorXd jv, ep, em;
    cs.velocity_error(s, jv);
    const double dt = 1e-6;
    auto advance = [&](double t) {
      mb::State x = s;
      for (auto& b : x.bodies) {
        b.x += b.v * t;
        const double a = b.w.norm() * t;
        if (a != 0) b.q = mb::Quat(Eigen::AngleAxisd(a, b.w.normalized())) * b.q;
      }
      return x;
    };
    cs.position_error(m, advance(dt), ep);
    cs.position_error(m, advance(-dt), em);
    const Eigen::VectorXd fd = (ep - em) / (2 * dt);
    INFO("J V = " << jv.transpose() << "\nfd  = " << fd.transpose());
    CHECK((fd - jv).cwiseAbs().maxCoeff() < 1e-6);
  }
}

TEST_CASE("the perpendicular row is the exact derivative of u_a . u_b away from 90 degrees", "[joints][jacobian]") {
  mb::Model m = two_boxes(mb::JointType::Cardan);
  m.joints[1].axis_b = mb::Vec3(1, 0.3, -0.8).normalized();  // 20-odd degrees off perpendicular
  mb::State s = mb::initial_state(m);
  mb::ConstraintSystem cs(m);
  cs.update(m, s);
  Eigen::VectorXd jv, e0, e1, em;
  cs.velocity_error(s, jv);
  cs.position_error(m, s, e0);
  const double dt = 1e-6;
  mb::State sp = s, sm = s;
  for (size_t k = 0; k < s.bodies.size(); ++k) {
    const mb::Vec3 w = s.bodies[k].w;
    sp.bodies[k].q = mb::Quat(Eigen::AngleAxisd(w.norm() * dt, w.normalized())) * s.bodies[k].q;
    sm.bodies[k].q = mb::Quat(Eigen::AngleAxisd(-w.norm() * dt, w.normalized())) * s.bodies[k].q;
  }
  cs.position_error(m, sp, e1);
  cs.position_error(m, sm, em);
  const int row = cs.blocks()[1].row + 3;  // the perpendicular row of the Cardan joint
  const double ua_ub = (s.bodies[0].q * m.joints[1].axis_a.normalized()).dot(s.bodies[1].q * m.joints[1].axis_b.normalized());
  CHECK(e0[row] == Approx(ua_ub));
  CHECK(std::abs(e0[row]) > 0.1);
  CHECK((e1[row] - em[row]) / (2 * dt) == Approx(jv[row]).epsilon(1e-7));
}
