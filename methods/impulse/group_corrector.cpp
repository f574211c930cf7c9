#include "methods/impulse/impulse_method.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/stopwatch.hpp"

namespace mb {

// Groups of joints solved at once by a LinearSolver (the Corrector of `sle`, `linear`, `tomcin`,
// the Imp methods' linear-system solvers and the Lagrange family's impulse corrections).
namespace {

class GroupCorrector final : public Corrector, public ArticulationCoupling {
 public:
  GroupCorrector(std::vector<std::vector<int>> parts, LinearSolverFactory make, MotorRows motors, WheelRows wheels)
      : parts_spec_(std::move(parts)), make_(make), motors_(motors), wheels_(wheels) {}
  MotorRows motor_rows() const override { return motors_; }
  bool holds_wheels() const override {
    if (parts_spec_.empty()) return ConstraintSystem::holds_wheels(true, motors_, wheels_);
    for (const auto& joints : parts_spec_)
      if (ConstraintSystem::holds_wheels(joints.empty(), motors_, wheels_)) return true;
    return false;
  }

  void init(const Model& model, const State&) override {
    groups_.clear();
    if (parts_spec_.empty()) parts_spec_.push_back({});
    for (const auto& joints : parts_spec_) {
      Group g;
      g.cs = ConstraintSystem(model, joints, motors_, wheels_);
      g.solver = make_();
      g.cs.keep_ball_jacobians(g.solver->reads_ball_jacobians());
      if (g.cs.rows() > 0) g.solver->analyze(g.cs);  // a model without joints (contacts only) has nothing to factor
      g.memory.reset(g.cs.rows());
      for (size_t k = 0; k < model.bodies.size(); ++k)
        if (g.cs.body_col(static_cast<int>(k)) >= 0) g.bodies.push_back(static_cast<int>(k));
      groups_.push_back(std::move(g));
    }
    // one group predicting every dynamic body: its last measuring sweep is the step's free motion
    predicts_all_ = groups_.size() == 1 &&
                    static_cast<int>(groups_[0].bodies.size()) == model.dynamic_body_count();
    predicted_ = nullptr;
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    stats.t_factorization += deferred_factor_s_;  // factorizations the contact and spring paths asked for
    deferred_factor_s_ = 0;
    predicted_ = nullptr;
    for (auto& g : groups_) {
      if (g.cs.rows() == 0) continue;
      auto t0 = Clock::now();
      g.cs.update(model, state);
      stats.t_assembly += since(t0);
      g.factored = false;
      // a solver that reports nothing of its factorization factors at the first solve (a step
      // whose corrections all start within tolerance needs none; LinearSolver::factor_on_demand)
      if (!g.solver->factor_on_demand()) factor(g, stats);
    }
  }
  int groups() const override { return static_cast<int>(groups_.size()); }
  void begin_step(const Model& model, const State& start, double h) override {
    for (auto& g : groups_)
      if (g.cs.has_motors()) g.cs.begin_motor_step(model, start, h);
  }
  void begin_warm(WarmPhase phase, double span, State& state) override {
    for (auto& g : groups_)
      if (g.cs.rows() > 0 && g.memory.begin(phase, span)) {
        predicted_ = nullptr;
        g.cs.apply_impulse(g.memory.accumulated(), state);
      }
  }
  void end_warm() override {
    for (auto& g : groups_) g.memory.end();
  }
  ArticulationCoupling* coupling() override { return groups_.size() == 1 && groups_[0].cs.rows() > 0 ? this : nullptr; }
  bool contacts_keep_joints() const override {
    return groups_.size() == 1 && groups_[0].cs.rows() > 0 && groups_[0].solver->factors_a();
  }

  bool couple(int a, const Eigen::Matrix<double, 3, 6>& Ja, int b, const Eigen::Matrix<double, 3, 6>& Jb,
              Eigen::Matrix<double, Eigen::Dynamic, 3>& Y, Mat3& BtY) override {
    Group& g = groups_[0];
    factor_deferred(g);
    B_.setZero(g.cs.rows(), 3);
    bool any = false;
    Mat6 scratch;
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? a : b;
      if (k < 0) continue;
      if (g.cs.body_dim(k) == 0) continue;
      const Eigen::Matrix<double, 3, 6>& Jc = side == 0 ? Ja : Jb;
      // M_k^-1 Jc^T at the fixed size: M_k^-1 is zero past its body_dim rows and columns (a
      // particle's Jc is zero past its first three columns), and so are the Jacobian blocks
      const Eigen::Matrix<double, 6, 3> MJ = g.cs.mass_inverse(k) * Jc.transpose();
      for (int bi : g.cs.blocks_of(k)) {
        const JointBlock& blk = g.cs.blocks()[static_cast<size_t>(bi)];
        const int s = blk.body[0] == k ? 0 : 1;
        const Eigen::Matrix<double, 6, 3> JMJ = g.cs.jacobian_ref(blk, s, scratch) * MJ;
        B_.middleRows(blk.row, blk.dim) += JMJ.topRows(blk.dim);
        any = true;
      }
    }
    if (!any) return false;
    g.solver->solve_columns(B_, Yb_);
    Y = Yb_;
    if (!Y.allFinite()) throw SimulationError("contact coupling: the joint solve produced a non-finite value (singular system?)");
    BtY.noalias() = B_.transpose().lazyProduct(Y);
    return true;
  }
  void apply_joint_impulse(const Eigen::VectorXd& x, State& s) override {
    predicted_ = nullptr;
    groups_[0].cs.apply_impulse(x, s);
  }
  void joint_impulse_on_body(const Eigen::VectorXd& x, int body, BodyState& b) override {
    const ConstraintSystem& cs = groups_[0].cs;
    if (body >= 0 && cs.body_dim(body) > 0) cs.apply_impulse_to_body(x, body, b);
  }
  bool joint_response(const Eigen::MatrixXd& dV, Eigen::MatrixXd& PhiDV, Eigen::MatrixXd& Y) override {
    Group& g = groups_[0];
    factor_deferred(g);
    PhiDV.setZero(g.cs.rows(), dV.cols());
    bool any = false;
    for (const JointBlock& blk : g.cs.blocks())
      for (int side = 0; side < 2; ++side) {
        const int k = blk.body[side];
        if (k < 0) continue;
        const int bd = g.cs.body_dim(k);
        if (bd == 0) continue;
        PhiDV.middleRows(blk.row, blk.dim) += g.cs.jacobian(blk, side).topLeftCorner(blk.dim, bd) * dV.middleRows(6 * k, bd);
        any = true;
      }
    if (!any) return false;
    g.solver->solve_columns(PhiDV, Y);
    if (!Y.allFinite()) throw SimulationError("joint response: the joint solve produced a non-finite value (singular system?)");
    return true;
  }

  double correct_position(int gi, const Model& model, const StepLoads& loads, double h, State& state, double tol,
                          StepStats& stats) override {
    Group& g = groups_[gi];
    if (g.cs.rows() == 0) return 0.0;
    auto t0 = Clock::now();
    if (pred_.bodies.size() != state.bodies.size()) pred_ = state;
    for (size_t k = 0; k < model.bodies.size(); ++k)
      if (model.bodies[k].is_static) pred_.bodies[k] = state.bodies[k];
    free_motion_bodies(model, loads, &g.cs.inertia_inverses(), g.bodies, h, state, pred_);
    stats.t_integration += since(t0);
    predicted_ = predicts_all_ ? &state : nullptr;
    g.cs.position_error(model, pred_, g.e);
    const double err = g.cs.max_joint_norm(g.e);
    if (err > tol) {
      g.e *= -1.0 / h;
      apply(g, state, stats);
    }
    return err;
  }

  bool take_prediction(const State& state, State& out) override {
    if (predicted_ != &state) return false;
    predicted_ = nullptr;
    out.t = state.t;
    std::swap(out.bodies, pred_.bodies);
    return true;
  }

  double correct_velocity(int gi, State& state, double tol, StepStats& stats) override {
    Group& g = groups_[gi];
    if (g.cs.rows() == 0) return 0.0;
    g.cs.velocity_error(state, g.e);
    const double err = g.cs.max_joint_norm(g.e);
    if (err > tol) {
      g.e *= -1.0;
      apply(g, state, stats);
    }
    return err;
  }

 private:
  struct Group {
    ConstraintSystem cs;
    std::unique_ptr<LinearSolver> solver;
    std::vector<int> bodies;
    Eigen::VectorXd e, x;
    ImpulseMemory memory;  // warm start (ImpulseOptions::warm_start)
    bool factored = false;  // the solver has factored the Jacobians of the last update()
  };
  void factor(Group& g, StepStats& stats) {
    const auto t0 = Clock::now();
    g.solver->factor(g.cs);
    g.factored = true;
    const FactorInfo fi = g.solver->factor_info();
    stats.t_factorization += since(t0) - fi.t_analysis;
    stats.t_analysis += fi.t_analysis;
    stats.nnz_a = std::max(stats.nnz_a, fi.nnz_a);
    stats.nnz_l = std::max(stats.nnz_l, fi.nnz_l);
    stats.condition = std::max(stats.condition, fi.condition);
    if (fi.rcond > 0) stats.rcond = stats.rcond > 0 ? std::min(stats.rcond, fi.rcond) : fi.rcond;
  }
  // the contact and spring paths, which have no StepStats: the time is added at the next update()
  void factor_deferred(Group& g) {
    if (g.factored) return;
    StepStats s;
    factor(g, s);
    deferred_factor_s_ += s.t_factorization;
  }
  void apply(Group& g, State& state, StepStats& stats) {
    predicted_ = nullptr;  // the state's velocities change: the prediction no longer is its free motion
    if (!g.factored) factor(g, stats);
    auto t0 = Clock::now();
    g.solver->solve(g.e, g.x);
    if (!g.x.allFinite()) throw SimulationError("impulse solve produced a non-finite impulse (singular system?)");
    g.cs.apply_impulse(g.x, state);
    g.memory.add(g.x);
    stats.t_solve += since(t0);
  }

  std::vector<std::vector<int>> parts_spec_;
  Eigen::MatrixXd B_, Yb_;  // a contact's coupling columns and their solves
  LinearSolverFactory make_;
  MotorRows motors_;
  WheelRows wheels_;
  std::vector<Group> groups_;
  State pred_;
  bool predicts_all_ = false;         // one group, and it predicts every dynamic body
  const State* predicted_ = nullptr;  // pred_ is the free motion of this state (no impulse since)
  double deferred_factor_s_ = 0;
};

}  // namespace

std::unique_ptr<Corrector> make_group_corrector(std::vector<std::vector<int>> parts, LinearSolverFactory make, MotorRows motors,
                                                WheelRows wheels) {
  return std::make_unique<GroupCorrector>(std::move(parts), make, motors, wheels);
}

}  // namespace mb
