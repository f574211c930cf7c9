#include "methods/impulse/impulse_method.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/common/stopwatch.hpp"

namespace mb {

// Joint-by-joint Gauss-Seidel: each joint corrected alone by its own 6 x 6 block (the Corrector of
// `iterative`).
namespace {

class JointCorrector final : public Corrector {
 public:
  explicit JointCorrector(MotorRows rows = MotorRows::Unbounded) : rows_(rows) {}
  void init(const Model& model, const State&) override {
    cs_ = ConstraintSystem(model, {}, rows_);
    bound_.assign(cs_.blocks().size(), INFINITY);
    for (size_t i = 0; i < cs_.blocks().size(); ++i)
      if (const int mo = cs_.blocks()[i].motor; mo >= 0) bound_[i] = model.motors[static_cast<size_t>(mo)].max_force;
    impulse_.assign(cs_.blocks().size(), 0.0);
    inv_.assign(cs_.blocks().size(), Mat6::Zero());
    pred_ = State();
    pred_.bodies.resize(model.bodies.size());
    predict_.reset(model.bodies.size());
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    auto t0 = Clock::now();
    cs_.update(model, state);
    // inverse of each joint's diagonal block A_ii
    for (size_t i = 0; i < cs_.blocks().size(); ++i) {
      const JointBlock& b = cs_.blocks()[i];
      const Mat6 A = cs_.coupling(b, b);
      inv_[i].setZero();
      inv_[i].topLeftCorner(b.dim, b.dim) = A.topLeftCorner(b.dim, b.dim).inverse();
    }
    stats.t_assembly += since(t0);
  }
  int groups() const override { return static_cast<int>(cs_.blocks().size()); }

  double correct_position(int g, const Model& model, const StepLoads& loads, double h, State& state, double tol,
                          StepStats&) override {
    const JointBlock& b = cs_.blocks()[g];
    // predict the joint's two bodies (a body unchanged since its last prediction keeps it)
    if (pred_.bodies.size() != state.bodies.size()) {
      pred_ = state;
      predict_.reset(state.bodies.size());
    }
    for (int side = 0; side < 2; ++side) {
      int k = b.body[side];
      if (k >= 0) predict_.predict(model.bodies[k], k, loads.force[k], loads.torque[k], h, state.bodies[k], pred_.bodies[k]);
    }
    // joints to static bodies read those bodies from the prediction too
    for (int side = 0; side < 2; ++side) {
      int k = side == 0 ? model.joints[b.joint].a : model.joints[b.joint].b;
      if (k >= 0 && b.body[side] < 0) pred_.bodies[k] = state.bodies[k];
    }
    cs_.block_position_error(model, pred_, b, e_);
    const double err = ConstraintSystem::joint_norm(b, e_);
    span_ = h;
    if (err > tol && !apply(b, g, -e_ / h, state)) return 0.0;  // held at its bound
    return err;
  }

  double correct_velocity(int g, State& state, double tol, StepStats&) override {
    const JointBlock& b = cs_.blocks()[g];
    cs_.block_velocity_error(state, b, e_);
    const double err = ConstraintSystem::joint_norm(b, e_);
    if (err > tol && !apply(b, g, -e_, state)) return 0.0;
    return err;
  }
  bool times_parts() const override { return false; }  // a clock read costs about one joint's correction
  void begin_step(const Model& model, const State& start, double h) override {
    if (cs_.has_motors()) cs_.begin_motor_step(model, start, h);
  }
  void begin_position_phase() override { std::fill(impulse_.begin(), impulse_.end(), 0.0); }
  MotorRows motor_rows() const override { return rows_; }

 private:
  // Applies the block's impulse for `rhs`; false when a bounded motor's impulse was cut at its bound.
  bool apply(const JointBlock& b, int g, const Vec6& rhs, State& state) {
    if (std::isfinite(bound_[g])) {
      const double want = inv_[g](0, 0) * rhs[0];
      const double limit = bound_[g] * span_;
      const double total = std::clamp(impulse_[g] + want, -limit, limit);
      Vec6 x = Vec6::Zero();
      x[0] = total - impulse_[g];
      impulse_[g] = total;
      cs_.apply_block_impulse(b, x, state);
      return x[0] == want;
    }
    Vec6 x = Vec6::Zero();
    if (b.dim == 1)
      x[0] = inv_[g](0, 0) * rhs[0];  // a rod: one product
    else if (b.dim == 3)
      x.head<3>().noalias() = inv_[g].topLeftCorner<3, 3>() * rhs.head<3>();  // a ball joint: fixed size
    else
      x.head(b.dim) = inv_[g].topLeftCorner(b.dim, b.dim) * rhs.head(b.dim);
    cs_.apply_block_impulse(b, x, state);
    return true;
  }

  MotorRows rows_;
  double span_ = 0;          // the span of the step's position correction, s
  std::vector<double> bound_, impulse_;  // per block: a motor's max_force (inf: none) and its impulse in this step
  ConstraintSystem cs_;
  std::vector<Mat6> inv_;  // (nblocks) A_ii^-1
  State pred_;
  RememberedFreeMotion predict_;  // writes pred_'s dynamic bodies
  Vec6 e_;
};

// the main corrector's groups, then the bounded motors' rows
class WithMotorLimits final : public Corrector {
 public:
  WithMotorLimits(std::unique_ptr<Corrector> main, MotorRows rows) : main_(std::move(main)), limits_(rows) {}
  void init(const Model& m, const State& s) override {
    main_->init(m, s);
    limits_.init(m, s);
  }
  void update(const Model& m, const State& s, StepStats& st) override {
    main_->update(m, s, st);
    limits_.update(m, s, st);
  }
  int groups() const override { return main_->groups() + limits_.groups(); }
  double correct_position(int g, const Model& m, const StepLoads& l, double h, State& s, double tol, StepStats& st) override {
    return g < main_->groups() ? main_->correct_position(g, m, l, h, s, tol, st)
                               : limits_.correct_position(g - main_->groups(), m, l, h, s, tol, st);
  }
  double correct_velocity(int g, State& s, double tol, StepStats& st) override {
    return g < main_->groups() ? main_->correct_velocity(g, s, tol, st) : limits_.correct_velocity(g - main_->groups(), s, tol, st);
  }
  ArticulationCoupling* coupling() override { return main_->coupling(); }
  ArticulationCoupling* response() override { return main_->response(); }
  bool times_parts() const override { return main_->times_parts(); }
  void begin_step(const Model& m, const State& s, double h) override {
    main_->begin_step(m, s, h);
    limits_.begin_step(m, s, h);
  }
  void begin_position_phase() override {
    main_->begin_position_phase();
    limits_.begin_position_phase();
  }

 private:
  std::unique_ptr<Corrector> main_;
  JointCorrector limits_;
};

}  // namespace

std::unique_ptr<Corrector> make_joint_corrector() { return std::make_unique<JointCorrector>(); }
std::unique_ptr<Corrector> make_motor_corrector(MotorRows rows) { return std::make_unique<JointCorrector>(rows); }

std::unique_ptr<Corrector> with_motor_limits(const Model& model, std::unique_ptr<Corrector> main) {
  const bool all = main->motor_rows() == MotorRows::None;
  for (const Motor& mo : model.motors)
    if (all || mo.limited()) return std::make_unique<WithMotorLimits>(std::move(main), all ? MotorRows::OnlyAll : MotorRows::OnlyBounded);
  return main;
}

}  // namespace mb
