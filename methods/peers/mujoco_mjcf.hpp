// mujoco: the MJCF text MuJoCo compiles a model from (methods/peers/mujoco.cpp; MuJoCo 2.2 has no
// model-building API). Plain text: no MuJoCo header is needed to write it.
#pragma once
#include <string>
#include <vector>

#include "methods/peers/translation.hpp"

namespace mb {

// The motors as MuJoCo joint equality constraints: the joint's coordinate (from its initial value)
// held at eq_data[0], which each step sets to where the motor wants it (motor_reference). MuJoCo's
// actuators are explicit forces, and a servo stiff enough to carry the walker on legs of 1e-4
// kg m^2 is unstable at h = 0.01 s; the constraint solver's soft equality is stable at any
// stiffness down to its time constant of 2 h. Its time constant is eq_timeconst, its impedance
// kMujocoMotorImpedance (nearly hard); MuJoCo's equalities have no force limit, so a bounded motor is
// refused, and a motor on a joint that closes a loop (no MuJoCo joint) too.
constexpr double kMujocoMotorImpedance = 0.9999;

// A motor as the MuJoCo joint equality that holds its joint (motor_reference in mujoco.cpp sets
// where, each step).
struct MujocoMotor {
  int motor;        // Model::motors index
  int eq;           // its MuJoCo equality
  double sign;      // MuJoCo's joint coordinate = sign q
  double integral;  // a velocity motor: the integral of its target up to now
};

// the method's options the text depends on (docs/methods.md, mujoco)
struct MujocoMjcfOptions {
  bool rk4;               // integrator=rk4
  int iterations;         // the constraint solver's iterations
  bool iterations_given;  // iterations given: contacts=file takes them instead of the file's
  bool file_contacts;     // contacts=file: the MJCF file's own contact model (Model::mjcf_contacts)
  double point_inertia;   // a singular inertia plus point_inertia x mass
  double eq_timeconst;    // the equality constraints' solref time constant, s
};

struct MujocoMjcf {
  std::string xml;
  std::vector<int> chain_body;      // (nbody) for a massless frame: our body whose MuJoCo body holds its joint; else -1
  std::vector<double> zeta;         // per contact pair: the damping ratio of its restitution
  std::vector<MujocoMotor> motors;  // the motors' equalities (eq not yet looked up: -1)
};

// The MJCF of the model at the initial state: its tree (peer_tree) with the bodies framed as
// frames (peer_frames). UnsupportedModel for what MJCF cannot say here (a loop MuJoCo's equality
// constraints cannot close, a bounded motor, a massless frame not between a hinge or slider and
// one child).
MujocoMjcf mujoco_mjcf(const Model& model, const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree,
                       const std::vector<PeerFrame>& frames, const MujocoMjcfOptions& options);

}  // namespace mb
