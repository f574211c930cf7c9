// The rows of coupled joints (Model::couplings), shared by the maximal-coordinate methods that
// claim the feature "coupled joints". Coupling i is one row on the coordinates of its two joints,
//   C = q_a - m q_b - o    (models/kinematics.hpp coupling_error),
// whose Jacobian spans the up to four bodies of the two joints. A hinge's coordinate rate is
// u . (w_b - w_a) (u its world axis_a): J_a = (0, -u), J_b = (0, u) on (v, w). A slider's is
// u . (v_pb - v_pa) - (p_a - p_b) . (w_a x u) (motor_rate): J_a = (-u, -(r_a - d) x u),
// J_b = (u, r_b x u), with r the levers from the centres of mass to the joint points and
// d = p_a - p_b (a's lever reaches b's point, as a line part's does in constraint_system.hpp). A
// body in both joints sums its two entries. The row's 1 x 1 block of J M^-1 J^T is
// sum_k J_v.J_v / m_k + J_w^T (R I^-1 R^T)_k J_w over the dynamic bodies; an impulse x on it
// changes each body's (v, w) by M_k^-1 J_k^T x.
// A hinge's angle is followed through its turns: update() keeps each hinge's coordinate at the
// state it was called with, and an error on a later state adds the wrapped change from there, so
// the row holds across +-pi (a gear ratio turns one joint further than the other).
#pragma once
#include <array>
#include <vector>

#include "models/kinematics.hpp"
#include "models/model.hpp"

namespace mb {

class CouplingRows {
 public:
  CouplingRows() = default;
  // the rows of the model's couplings, the coordinates followed from `state`
  CouplingRows(const Model& model, const State& state);
  int rows() const { return static_cast<int>(rows_.size()); }
  // Jacobians and the rows' blocks at `state`, and the hinges' turns followed to it
  void update(const Model& model, const State& state);
  // C of row i on `s` (a state near the last update's: a prediction)
  double position_error(int i, const Model& model, const State& s) const;
  // J V of row i on `s`, with the Jacobian of the last update()
  double velocity_error(int i, const State& s) const;
  // 1 / (J M^-1 J^T) of row i at the last update()
  double inverse_block(int i) const { return rows_[static_cast<size_t>(i)].inv_a; }
  // V += M^-1 J^T x on row i's bodies
  void apply_impulse(int i, double x, State& s) const;
  // the dynamic bodies of row i (at most four)
  const std::vector<int>& bodies(int i) const { return rows_[static_cast<size_t>(i)].bodies; }

 private:
  struct Entry {
    int body = -1;
    Vec3 jv = Vec3::Zero(), jw = Vec3::Zero();
    double inv_m = 0;
    Mat3 inv_i = Mat3::Zero();  // world
  };
  struct Side {  // one joint of a row
    int joint = -1;
    double weight = 1;  // 1 for a, -multiplier for b
    MotorFrame frame;
    double raw = 0, q = 0;  // motor_coordinate at the last update and its followed value
  };
  struct Row {
    std::array<Side, 2> side;
    double offset = 0;
    std::vector<Entry> entries;
    std::vector<int> bodies;
    double inv_a = 0;
  };
  double coordinate(const Model& model, const State& s, const Side& side) const;
  std::vector<Row> rows_;
};

}  // namespace mb
