// The constraint system shared by the impulse and Lagrange methods (bender2007 s.3-4).
//
// Velocities of the dynamic bodies form one vector V: per rigid body (v, w) (6), per particle v (3);
// static bodies and the world have no columns. Each joint i contributes one block of rows
// (dim_i: rod 1, ball 3, hinge 3+2, fixed 3+3) with the Jacobian blocks J_i,a and J_i,b of its
// two bodies, so that J V is the joint's relative velocity in the directions it constrains:
//   translational rows P (v_a + w_a x r_a - v_b - w_b x r_b):  J_a = P [I, -r_a*],  J_b = -P [I, -r_b*]
//   rotational rows    P (w_a - w_b):                         J_a = P [0, I],     J_b = -P [0, I]
// (r* is the cross-product matrix of the lever arm r from the centre of mass to the joint point;
// for line and plane parts a's lever arm reaches b's point, r_a - (a - b), since the force acts
// where b's point slides on a's line or plane.)
// The matrix of the impulse SLE is A = J M^-1 J^T (bender2007 eq. 5/6, C = J); an impulse x on the
// rows changes V by M^-1 J^T x, i.e. +p on body a and -p on body b.
//
// Position errors e (same rows) are measured on a predicted state, with e = P (a - b) for
// translational rows (rod: |a - b| - L) and, for rotational rows, P times the rotation vector of
// (q_a rel) q_b^-1 (orientation, twist) or u_b x u_a (axis); then d e / dt = J V to first order
// (for the axis part: d(u_b x u_a)/dt = (w_a - w_b) minus its component along the axis, to first
// order when the axes are parallel; for the orientation part the rotation vector's rate is
// w_a - w_b at zero error; for the perpendicular part of a Cardan joint the error is u_a . u_b and its
// row is u_a x u_b, exactly d(u_a . u_b)/dt = (u_a x u_b) . (w_a - w_b)), and the correction solves
// A x = -e / h. The rows P are taken at the
// state the Jacobian was built from (update()): a rod's direction; for a line two unit vectors
// orthogonal to axis_a, for a plane its normal axis_a; for an axis part two unit vectors orthogonal
// to axis_a; for a twist axis_a; for a perpendicular part u_a x u_b; identity otherwise. A joint's rows are its translational rows
// followed by its rotational rows (models/model.hpp: JointParts).
//
// Motors (models/model.hpp, Motor) add one rheonomic row each, after the joints' blocks: the
// twist row of a hinge (P = u = the world axis_a, rotational) or the plane row of a slider (P = u,
// translational, b's point), so that J V = -q'. Their errors depend on time (begin_motor_step,
// set_motor_time): position e = f(t) - q (a hinge's wrapped into (-pi, pi]); in velocity mode, over a
// step of span h from q0, e = q0 + h f(t - h/2) - q (0 where no span is set); velocity e = J V + r(t)
// with r = f' (position mode) or f (velocity mode), so that e = 0 is the motor's q' = r.
//
// A rolling wheel (Model::rolling) adds three translational rows on its body after the motors' (WheelRows):
// P (v + w x r d), P = (n, e1, e2) (the plane's normal and orthogonal_basis(n)), r d the lever to
// the contact (models/kinematics.hpp rolling_contact). Row 0 is holonomic (its position error the
// contact's height over the plane, whose rate it is); rows 1, 2 are nonholonomic (no position error).
#pragma once
#include <cstdint>
#include <vector>

#include <Eigen/Core>
#include <Eigen/SparseCore>

#include "methods/bodies/spatial.hpp"
#include "models/kinematics.hpp"
#include "models/model.hpp"

namespace mb {


struct JointBlock {
  int joint = -1;        // model joint index (a motor's: the joint it drives)
  int motor = -1;        // a motor's row (Model::motors index), else -1
  int dim = 0;           // rows of this block (1..6)
  int row = 0;           // first row in the constraint vector
  int body[2] = {-1, -1};  // model body index of a and b, or -1 for the world / a static body
  int rot_row = 0;       // rows [0, rot_row) are translational, [rot_row, dim) rotational
  // A ball joint (three translational rows, P = 1): J_side = sign [I, -lever[side]*] for a rigid
  // body (sign +1 for a, -1 for b), J_side = sign [I] for a particle. The kernels act on it by
  // cross products with the lever arms (set by update()). Unless the system keeps them
  // (ConstraintSystem::keep_ball_jacobians), only the constant part sign [I, 0] of a rigid body's
  // block is kept, and ConstraintSystem::jacobian() forms the rest where a 6 x 6 block is wanted;
  // on a particle the block is kept whole. The lever arms sit beside the indices, so that a pass
  // over ball joints reads the first 80 bytes of a block only.
  bool ball = false;
  // a rolling wheel's rows (Model::rolling index; joint -1), else -1: 16 bits beside `ball`, so
  // that the lever arms still end within the block's first 80 bytes
  std::int16_t rolling = -1;
  Vec3 lever[2] = {Vec3::Zero(), Vec3::Zero()};
  // (dim x bodydim) Jacobian blocks, top-left part valid (a ball joint's on a rigid body: above):
  // read them through ConstraintSystem::jacobian() unless the block is known not to be one
  Mat6 J_kept[2] = {Mat6::Zero(), Mat6::Zero()};
  Mat3 P_trans = Mat3::Identity();  // projection of the translational rows (rod: 1, line: 2, plane: 1), set by update()
  Mat3 P_rot = Mat3::Identity();    // projection of the rotational rows (axis: 2, twist: 1), set by update()
};

// Which rows a system holds: the joints' and the motors' without a force bound (Unbounded), the
// joints' alone (None), or the motors' alone, those with a bound (OnlyBounded) or all (OnlyAll).
enum class MotorRows { Unbounded, None, OnlyBounded, OnlyAll };
// Which rolling wheels' rows a system holds: those of the whole model's system (Whole: where every
// joint is selected and the joints' rows are held), none, or the wheels' alone (Only: no joint's or
// motor's row).
enum class WheelRows { Whole, None, Only };

class ConstraintSystem {
 public:
  // Structure from the model (which bodies move, which rows each joint has). `joints` selects a
  // subset of the model's joints (all when empty).
  // `motors`: which motors of the selected joints have rows (MotorRows); `wheels`: which rolling
  // wheels have rows (WheelRows).
  explicit ConstraintSystem(const Model& model, const std::vector<int>& joints = {}, MotorRows motors = MotorRows::Unbounded,
                            WheelRows wheels = WheelRows::Whole);
  // whether a system of these arguments holds the model's rolling wheels' rows (every joint selected: `all_joints`)
  static bool holds_wheels(bool all_joints, MotorRows motors, WheelRows wheels) {
    const bool only_motors = motors == MotorRows::OnlyBounded || motors == MotorRows::OnlyAll;
    return wheels == WheelRows::Only || (wheels == WheelRows::Whole && all_joints && !only_motors);
  }
  ConstraintSystem() = default;

  int rows() const { return nrows_; }
  int cols() const { return ncols_; }
  int body_dim(int body) const { return body_dim_[body]; }     // 0, 3 or 6
  int body_col(int body) const { return body_col_[body]; }     // first column, -1 if none
  const std::vector<JointBlock>& blocks() const { return blocks_; }
  const std::vector<int>& blocks_of(int body) const { return touching_[static_cast<size_t>(body)]; }  // blocks acting on a body
  // J_i,side of block b (dim x bodydim, top-left part valid, zero else) with the lever arms of the
  // last update(): the kept block, or a ball joint's formed from its lever arm
  Mat6 jacobian(const JointBlock& b, int side) const;
  // jacobian(b, side) without a copy where the block is kept (scratch holds a ball joint's)
  const Mat6& jacobian_ref(const JointBlock& b, int side, Mat6& scratch) const {
    if (!formed(b, side)) return b.J_kept[side];
    scratch = jacobian(b, side);
    return scratch;
  }
  // M_k and M_k^-1 as 6 x 6 matrices (dim x dim top-left part valid, the rest zero), formed from
  // the parts kept: the mass and, for a rigid body, the world inertia and its inverse
  Mat6 mass(int body) const;
  Mat6 mass_inverse(int body) const;
  double mass_scalar(int body) const { return mass_[body].m; }
  double inverse_mass(int body) const { return mass_[body].inv_m; }
  const Mat3& world_inertia(int body) const { return mass_[body].I; }              // R I R^T (rigid bodies)
  const Mat3& world_inertia_inverse(int body) const { return mass_[body].Iinv; }   // R I^-1 R^T
  const Mat3& inertia_inverse(int body) const { return inertia_inv_[body]; }  // body frame (rigid bodies; zero else)
  const std::vector<Mat3>& inertia_inverses() const { return inertia_inv_; }     // (nbody)

  // Jacobians, masses and inverse masses at state s (world inertia depends on orientation).
  void update(const Model& model, const State& s);
  // Whether update() keeps a ball joint's 6 x 6 blocks on rigid bodies (J_kept) up to date: yes
  // by default (the assemblies of A read them through coupling()); no for a tree solver's users,
  // whose passes read the lever arms only, and jacobian() then forms a block where one is wanted.
  // The same numbers either way. Set it before the first update(): switching it on later leaves
  // the blocks stale until the next update().
  void keep_ball_jacobians(bool keep) { keep_ball_ = keep; }

  // The time of the motor rows' errors: the end t + h of a step of span h from `start` (velocity
  // mode: from the motor's coordinate at `start`), or the time t of a state (velocity mode: no
  // position error).
  void begin_motor_step(const Model& model, const State& start, double h);
  void set_motor_time(const Model& model, double t);
  bool has_motors() const { return has_motors_; }
  // r(t) of the motor rows, 0 on the others (rows): velocity_error() = J V + r
  void motor_rates(const Model& model, Eigen::VectorXd& r) const;
  // a motor row's r(t) and r'(t) at the motor time
  double motor_rate(const Model& model, const JointBlock& b) const;
  double motor_acceleration(const Model& model, const JointBlock& b) const;

  // e (rows): position errors of the joints on state s (typically a predicted state).
  void position_error(const Model& model, const State& s, Eigen::VectorXd& e) const;
  // e (rows) = J V on state s, with the Jacobians of the last update() (+ r on the motor rows).
  void velocity_error(const State& s, Eigen::VectorXd& e) const;
  // rows [row, row + dim) of one block only
  void block_position_error(const Model& model, const State& s, const JointBlock& b, Vec6& e) const;
  void block_velocity_error(const State& s, const JointBlock& b, Vec6& e) const;

  // The joint-wise size of an error vector: max over blocks of the Euclidean norm of the block's
  // translational rows and of its rotational rows (a ball joint: the distance of its points).
  double max_joint_norm(const Eigen::VectorXd& e) const;
  static double joint_norm(const JointBlock& b, const Vec6& e);

  // V += M^-1 J^T x for all blocks (x has rows entries) or for one block (x has its dim entries).
  void apply_impulse(const Eigen::VectorXd& x, State& s) const;
  void apply_block_impulse(const JointBlock& b, const Vec6& x, State& s) const;
  // body += M^-1 J^T x restricted to one body: the part of apply_impulse(x) that reaches it (the
  // same products; summed block by block, so equal to apply_impulse's to round-off)
  void apply_impulse_to_body(const Eigen::VectorXd& x, int body, BodyState& out) const;

  // A_ij = J_i M^-1 J_j^T for blocks i, j (dim_i x dim_j, top-left part valid).
  Mat6 coupling(const JointBlock& i, const JointBlock& j) const;
  // Calls f(i, j, A_ij) for every pair of blocks with a common body (i == j included), A_ij
  // as in coupling(); the structure of A = J M^-1 J^T.
  template <class F>
  void for_each_coupling(F&& f) const;
  // Dense A = J M^-1 J^T (rows x rows).
  void assemble_dense(Eigen::MatrixXd& A) const;
  // Its lower triangle only, the strictly upper part zero (for a factorization that reads the
  // lower triangle, as Eigen's LDLT<.., Lower>): the entries assemble_dense writes there, bit for bit.
  void assemble_dense_lower(Eigen::MatrixXd& A) const;
  // Sparse A, lower triangle only (rows x rows). Its pattern is the blocks' structure (a pair of
  // blocks with a common body), fixed for the system: entries that are zero by value stay stored.
  void assemble_sparse_lower(Eigen::SparseMatrix<double>& A) const;
  // The same values written into A, which holds the pattern of an earlier assemble_sparse_lower()
  // of this system (compressed): no sorting, no allocation; the same numbers.
  void refill_sparse_lower(Eigen::SparseMatrix<double>& A) const;
  // rows - rank(A) with the Jacobians of the last update(): the number of redundant (linearly
  // dependent) constraint rows, by a rank-revealing sparse QR of A (Eigen::SparseQR, COLAMD).
  long redundant_rows() const;

 private:
  int nrows_ = 0, ncols_ = 0;
  bool keep_ball_ = true;
  bool has_motors_ = false;
  double motor_t_ = 0, motor_h_ = 0;  // the motor rows' time and span (0: none)
  std::vector<double> motor_q0_;      // per model motor: a velocity motor's coordinate at the step's start
  std::vector<double> motor_r_;       // per model motor: r(t) at the motor time
  std::vector<double> motor_target_;  // per model motor: the coordinate sought at the motor time (set_motor_targets)
  std::vector<MotorFrame> motor_frame_;  // per model motor: its frame for motor_coordinate
  std::vector<int> body_dim_, body_col_;
  std::vector<JointBlock> blocks_;
  // A dynamic body's M_k = diag(m I, R I R^T) and M_k^-1 = diag(I / m, R I^-1 R^T) by their parts
  // (160 bytes, where two 6 x 6 matrices took 576: the passes of a step read them all)
  struct BodyMass {
    double m = 0, inv_m = 0;
    Mat3 I = Mat3::Zero(), Iinv = Mat3::Zero();
  };
  std::vector<BodyMass> mass_;
  std::vector<Mat3> inertia_inv_;  // per body: the inverse of its body-frame inertia (constant)
  std::vector<std::vector<int>> touching_;  // per body: the blocks that act on it
  // V += M^-1 J^T x of a block other than a ball joint on its rigid body (out of line: its products
  // would weigh on the particles' path)
  // one side of a block's impulse on its body (apply_block_impulse; inline: the joint-by-joint
  // sweeps call it for every joint)
  [[gnu::always_inline]] inline void apply_side_impulse(const JointBlock& b, int side, const Vec6& x, BodyState& body) const;
  // motor_target_ from the motor time and span
  void set_motor_targets(const Model& m);
  [[gnu::noinline]] void rigid_impulse(const JointBlock& b, int side, const Vec6& x, BodyState& body) const;
  template <class F>
  void for_each_block_pair(bool lower, F&& f) const;
  // a ball joint's block on a rigid body that update() does not keep
  bool formed(const JointBlock& b, int side) const {
    return b.ball && !keep_ball_ && b.body[side] >= 0 && body_dim_[b.body[side]] == 6;
  }
  // rows 0..2 of a ball joint's J_side on a rigid body written into J; returns J
  const Mat6& ball_rows(const JointBlock& b, int side, Mat6& J) const;
  // both ends of the block rigid bodies or fixed frames (no particle)
  bool rigid_ends(const JointBlock& b) const {
    return (b.body[0] < 0 || body_dim_[b.body[0]] == 6) && (b.body[1] < 0 || body_dim_[b.body[1]] == 6);
  }
};

// Constraint rows minus their rank at the initial state (redundant_rows() of the model's system).
long redundant_constraints(const Model& model);

template <class F>
void ConstraintSystem::for_each_coupling(F&& f) const {
  for_each_block_pair(false, std::forward<F>(f));
}

// f(i, j, A_ij) for every pair of blocks with a common body, or (lower) those with j <= i only: a
// block's rows all follow those of the blocks before it, so the others lie above the diagonal
template <class F>
void ConstraintSystem::for_each_block_pair(bool lower, F&& f) const {
  std::vector<int> seen;
  for (size_t bi = 0; bi < blocks_.size(); ++bi) {
    const JointBlock& i = blocks_[bi];
    seen.clear();
    for (int side = 0; side < 2; ++side) {
      if (i.body[side] < 0) continue;
      for (int bj : touching_[i.body[side]]) {
        if (lower && bj > static_cast<int>(bi)) continue;
        bool dup = false;
        for (int x : seen) dup = dup || x == bj;
        if (dup) continue;
        seen.push_back(bj);
        f(static_cast<int>(bi), bj, coupling(i, blocks_[bj]));
      }
    }
  }
}

}  // namespace mb
