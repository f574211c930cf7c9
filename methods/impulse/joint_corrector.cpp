#include "methods/impulse/impulse_method.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/constraints/coupling_rows.hpp"
#include "methods/stopwatch.hpp"

namespace mb {

// Joint-by-joint Gauss-Seidel: each joint corrected alone by its own block of A (the Corrector of
// `iterative`). A joint and its unbounded motor are one unit: the motor's row is one more row of
// the joint's block, both solved at once from their common (dim + 1) x (dim + 1) block of A. (As
// two blocks visited one after the other, the hinge's rows and its motor's row on the same two
// bodies are strongly coupled: on a thin bar turned about its end their coupling's squared cosine
// is 3/4, and through a jointed leg standing on the ground the sweeps stall.) A rolling wheel's rows
// (WheelRows) are a unit of their own, after the others: its holonomic row alone in a position
// sweep (its 1 x 1 block of A; the nonholonomic rows have no position error and take no part),
// its three rows in a velocity sweep.
namespace {

class JointCorrector final : public Corrector {
 public:
  explicit JointCorrector(MotorRows rows = MotorRows::Unbounded, WheelRows wheels = WheelRows::None, bool slip_in_position = true)
      : rows_(rows), wheels_(wheels), slip_in_position_(slip_in_position) {}
  void init(const Model& model, const State&) override {
    cs_ = ConstraintSystem(model, {}, rows_, wheels_);
    const auto& blocks = cs_.blocks();
    bound_.assign(blocks.size(), INFINITY);
    for (size_t i = 0; i < blocks.size(); ++i)
      if (const int mo = blocks[i].motor; mo >= 0) bound_[i] = model.motors[static_cast<size_t>(mo)].max_force;
    // the units: every joint's block with its unbounded motor's row, then the motors left alone,
    // then the wheels
    units_.clear();
    std::vector<int> unit_of(model.joints.size(), -1);
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].motor < 0 && blocks[i].rolling < 0) {
        unit_of[static_cast<size_t>(blocks[i].joint)] = static_cast<int>(units_.size());
        units_.push_back({static_cast<int>(i), -1, blocks[i].dim, false});
      }
    for (size_t i = 0; i < blocks.size(); ++i) {
      const JointBlock& b = blocks[i];
      if (b.motor < 0) continue;
      const int u = unit_of[static_cast<size_t>(b.joint)];
      if (u >= 0 && !std::isfinite(bound_[i]) && units_[static_cast<size_t>(u)].dim < 6) {
        units_[static_cast<size_t>(u)].motor = static_cast<int>(i);
        ++units_[static_cast<size_t>(u)].dim;
      } else {
        units_.push_back({static_cast<int>(i), -1, 1, false});
      }
    }
    for (size_t i = 0; i < blocks.size(); ++i)
      if (blocks[i].rolling >= 0) units_.push_back({static_cast<int>(i), -1, blocks[i].dim, true});
    merged_ = false;
    for (size_t i = 0; i < units_.size(); ++i)
      merged_ = merged_ || units_[i].block != static_cast<int>(i) || units_[i].motor >= 0 || units_[i].wheel;
    impulse_.assign(blocks.size(), 0.0);
    memory_.reset(cs_.rows());
    inv_.assign(units_.size(), Mat6::Zero());
    row0_inv_.assign(units_.size(), 0.0);
    pred_ = State();
    pred_.bodies.resize(model.bodies.size());
    predict_.reset(model.bodies.size());
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    auto t0 = Clock::now();
    cs_.update(model, state);
    // inverse of each unit's diagonal block of A
    for (size_t i = 0; i < units_.size(); ++i) {
      const Unit& u = units_[i];
      const JointBlock& b = cs_.blocks()[static_cast<size_t>(u.block)];
      Mat6 A = cs_.coupling(b, b);
      if (u.motor >= 0) {
        const JointBlock& m = cs_.blocks()[static_cast<size_t>(u.motor)];
        const Mat6 Abm = cs_.coupling(b, m);
        A.block(0, b.dim, b.dim, 1) = Abm.block(0, 0, b.dim, 1);
        A.block(b.dim, 0, 1, b.dim) = Abm.block(0, 0, b.dim, 1).transpose();
        A(b.dim, b.dim) = cs_.coupling(m, m)(0, 0);
      }
      inv_[i].setZero();
      inv_[i].topLeftCorner(u.dim, u.dim) = A.topLeftCorner(u.dim, u.dim).inverse();
      if (u.wheel) row0_inv_[i] = 1 / A(0, 0);  // the holonomic row alone
    }
    stats.t_assembly += since(t0);
  }
  int groups() const override { return static_cast<int>(units_.size()); }

  double correct_position(int g, const Model& model, const StepLoads& loads, double h, State& state, double tol,
                          StepStats&) override {
    return merged_ ? position<true>(g, model, loads, h, state, tol) : position<false>(g, model, loads, h, state, tol);
  }
  double correct_velocity(int g, State& state, double tol, StepStats&) override {
    return merged_ ? velocity<true>(g, state, tol) : velocity<false>(g, state, tol);
  }
  bool times_parts() const override { return false; }  // a clock read costs about one joint's correction
  void begin_step(const Model& model, const State& start, double h) override {
    if (cs_.has_motors()) cs_.begin_motor_step(model, start, h);
  }
  void begin_position_phase() override { std::fill(impulse_.begin(), impulse_.end(), 0.0); }
  // a bounded motor's row is never remembered (apply): its bound holds the step's sum of impulses
  void begin_warm(WarmPhase phase, double span, State& state) override {
    if (!memory_.begin(phase, span)) return;
    const Eigen::VectorXd& x = memory_.accumulated();
    Vec6 xb;
    for (const JointBlock& b : cs_.blocks()) {
      xb.head(b.dim) = x.segment(b.row, b.dim);
      xb.tail(6 - b.dim).setZero();
      if (!xb.isZero(0.0)) cs_.apply_block_impulse(b, xb, state);
    }
  }
  void end_warm() override { memory_.end(); }
  MotorRows motor_rows() const override { return rows_; }
  bool holds_wheels() const override { return ConstraintSystem::holds_wheels(true, rows_, wheels_); }

 private:
  // a joint's block and its unbounded motor's row (-1: none), dim rows in all; or a motor alone; or
  // a wheel's rows (`wheel`)
  struct Unit {
    int block = -1, motor = -1, dim = 0;
    bool wheel = false;
  };
  // unit g; kUnits false: every unit is block g alone (no motor merged into a joint's block), and
  // the passes compile without the merged motor's rows
  template <bool kUnits>
  Unit unit(int g) const {
    if constexpr (kUnits) return units_[static_cast<size_t>(g)];
    else return {g, -1, 0, false};  // dim: the block's (apply reads it there)
  }

  template <bool kUnits>
  double position(int g, const Model& model, const StepLoads& loads, double h, State& state, double tol) {
    const Unit u = unit<kUnits>(g);
    const JointBlock& b = cs_.blocks()[static_cast<size_t>(u.block)];
    // predict the joint's two bodies (a body unchanged since its last prediction keeps it)
    if (pred_.bodies.size() != state.bodies.size()) {
      pred_ = state;
      predict_.reset(state.bodies.size());
    }
    for (int side = 0; side < 2; ++side) {
      int k = b.body[side];
      if (k >= 0) predict_.predict(model.bodies[k], k, loads.force[k], loads.torque[k], h, state.bodies[k], pred_.bodies[k]);
    }
    span_ = h;
    if (kUnits && u.wheel) return wheel_position(g, b, model, h, state, tol);
    // joints to static bodies read those bodies from the prediction too
    for (int side = 0; side < 2; ++side) {
      int k = side == 0 ? model.joints[b.joint].a : model.joints[b.joint].b;
      if (k >= 0 && b.body[side] < 0) pred_.bodies[k] = state.bodies[k];
    }
    cs_.block_position_error(model, pred_, b, e_);
    double err = ConstraintSystem::joint_norm(b, e_);
    if (kUnits && u.motor >= 0) {
      cs_.block_position_error(model, pred_, cs_.blocks()[static_cast<size_t>(u.motor)], em_);
      e_[b.dim] = em_[0];
      err = std::max(err, std::abs(em_[0]));
    }
    if (err > tol && !apply<kUnits>(u, g, -e_ / h, state)) return 0.0;  // held at its bound
    return err;
  }

  // A wheel on the prediction: row 0 the contact's height over the plane; rows 1, 2 the slip
  // displacement over the step, h times the mean of the contact's slip velocity at the start (the
  // velocities as corrected so far) and on the prediction (the trapezoid). With rows 1, 2 in the
  // look-ahead correction the sideways contact force acts within the step, as a holonomic row's
  // does: without them (slip_in_position_ false: the velocity correction alone) it reaches the
  // positions a step late, an O(h^2) error a step (order 1).
  double wheel_position(int g, const JointBlock& b, const Model& model, double h, State& state, double tol) {
    cs_.block_position_error(model, pred_, b, e_);
    const int dim = slip_in_position_ ? 3 : 1;
    if (slip_in_position_) {
      const Rolling& r = model.rolling[static_cast<size_t>(b.rolling)];
      const size_t k = static_cast<size_t>(b.body[0]);
      const Vec3 slip = (0.5 * h) * (rolling_contact(r, state.bodies[k]).slip + rolling_contact(r, pred_.bodies[k]).slip);
      e_.segment<2>(1) = b.P_trans.bottomRows<2>() * slip;
    }
    const double err = e_.head(dim).norm();
    if (err > tol) {
      Vec6 x = Vec6::Zero();
      if (slip_in_position_)
        x.head<3>() = inv_[static_cast<size_t>(g)].topLeftCorner<3, 3>() * (-e_.head<3>() / h);
      else
        x[0] = -row0_inv_[static_cast<size_t>(g)] * e_[0] / h;
      cs_.apply_block_impulse(b, x, state);
      memory_.add(b.row, dim, x);
    }
    return err;
  }

  template <bool kUnits>
  double velocity(int g, State& state, double tol) {
    const Unit u = unit<kUnits>(g);
    const JointBlock& b = cs_.blocks()[static_cast<size_t>(u.block)];
    cs_.block_velocity_error(state, b, e_);
    double err = ConstraintSystem::joint_norm(b, e_);
    if (kUnits && u.motor >= 0) {
      cs_.block_velocity_error(state, cs_.blocks()[static_cast<size_t>(u.motor)], em_);
      e_[b.dim] = em_[0];
      err = std::max(err, std::abs(em_[0]));
    }
    if (err > tol && !apply<kUnits>(u, g, -e_, state)) return 0.0;
    return err;
  }
  // Applies the unit's impulse for `rhs` (its rows: the block's, then the motor's); false when a
  // bounded motor's impulse was cut at its bound. Inlined into both sweeps (their hot loop).
  template <bool kUnits>
  [[gnu::always_inline]] bool apply(const Unit& u, int g, const Vec6& rhs, State& state) {
    const JointBlock& b = cs_.blocks()[static_cast<size_t>(u.block)];
    if (std::isfinite(bound_[static_cast<size_t>(u.block)])) {
      const double want = inv_[g](0, 0) * rhs[0];
      const double limit = bound_[static_cast<size_t>(u.block)] * span_;
      double& impulse = impulse_[static_cast<size_t>(u.block)];
      const double total = std::clamp(impulse + want, -limit, limit);
      Vec6 x = Vec6::Zero();
      x[0] = total - impulse;
      impulse = total;
      cs_.apply_block_impulse(b, x, state);
      return x[0] == want;  // not remembered (begin_warm)
    }
    Vec6 x = Vec6::Zero();
    const int dim = kUnits ? u.dim : b.dim;
    if (dim == 1)
      x[0] = inv_[g](0, 0) * rhs[0];  // a rod: one product
    else if (dim == 3)
      x.head<3>().noalias() = inv_[g].topLeftCorner<3, 3>() * rhs.head<3>();  // a ball joint: fixed size
    else
      x.head(dim) = inv_[g].topLeftCorner(dim, dim) * rhs.head(dim);
    if (kUnits && u.motor >= 0) {
      Vec6 xm = Vec6::Zero();
      xm[0] = x[b.dim];
      x[b.dim] = 0;
      const JointBlock& m = cs_.blocks()[static_cast<size_t>(u.motor)];
      cs_.apply_block_impulse(b, x, state);
      cs_.apply_block_impulse(m, xm, state);
      memory_.add(b.row, b.dim, x);
      memory_.add(m.row, 1, xm);
      return true;
    }
    cs_.apply_block_impulse(b, x, state);
    memory_.add(b.row, b.dim, x);
    return true;
  }

  MotorRows rows_;
  WheelRows wheels_;
  bool slip_in_position_ = true;  // rows 1, 2 of a wheel in the position correction (wheel_position)
  double span_ = 0;          // the span of the step's position correction, s
  std::vector<double> bound_, impulse_;  // per block: a motor's max_force (inf: none) and its impulse in this step
  ConstraintSystem cs_;
  std::vector<Unit> units_;
  bool merged_ = false;  // a unit other than block i alone at index i (a motor merged into its joint's block, a wheel)
  std::vector<Mat6> inv_;  // per unit: the inverse of its diagonal block of A
  std::vector<double> row0_inv_;  // per unit: a wheel's 1 / A_00 (its holonomic row), else 0
  State pred_;
  RememberedFreeMotion predict_;  // writes pred_'s dynamic bodies
  Vec6 e_, em_;
  ImpulseMemory memory_;  // warm start (ImpulseOptions::warm_start)
};

// The coupled joints' rows (CouplingRows), one group each, Gauss-Seidel: a row's impulse from its
// 1 x 1 block of A, on the prediction of its bodies (position) or on J V (velocity).
class CouplingCorrector final : public Corrector {
 public:
  void init(const Model& model, const State& state) override {
    rows_ = CouplingRows(model, state);
    pred_ = state;
    predict_.reset(state.bodies.size());
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    const auto t0 = Clock::now();
    rows_.update(model, state);
    stats.t_assembly += since(t0);
  }
  int groups() const override { return rows_.rows(); }
  double correct_position(int g, const Model& model, const StepLoads& loads, double h, State& state, double tol, StepStats&) override {
    if (pred_.bodies.size() != state.bodies.size()) {
      pred_ = state;
      predict_.reset(state.bodies.size());
    }
    for (const int k : rows_.bodies(g))
      predict_.predict(model.bodies[static_cast<size_t>(k)], k, loads.force[static_cast<size_t>(k)], loads.torque[static_cast<size_t>(k)], h,
                       state.bodies[static_cast<size_t>(k)], pred_.bodies[static_cast<size_t>(k)]);
    const double e = rows_.position_error(g, model, pred_);
    if (std::abs(e) > tol) rows_.apply_impulse(g, -rows_.inverse_block(g) * e / h, state);
    return std::abs(e);
  }
  double correct_velocity(int g, State& state, double tol, StepStats&) override {
    const double e = rows_.velocity_error(g, state);
    if (std::abs(e) > tol) rows_.apply_impulse(g, -rows_.inverse_block(g) * e, state);
    return std::abs(e);
  }
  bool times_parts() const override { return false; }

 private:
  CouplingRows rows_;
  State pred_;  // its static bodies: the state's (never predicted)
  RememberedFreeMotion predict_;
};

// the main corrector's groups, then the motors' rows it does not hold (limits_), then the wheels'
// rows it does not hold (wheels_), then the coupled joints' rows (couplings_): nullptr where the
// model has no such rows
class WithExtraRows final : public Corrector {
 public:
  WithExtraRows(std::unique_ptr<Corrector> main, std::unique_ptr<JointCorrector> limits, std::unique_ptr<JointCorrector> wheels,
                std::unique_ptr<CouplingCorrector> couplings)
      : main_(std::move(main)), limits_(std::move(limits)), wheels_(std::move(wheels)), couplings_(std::move(couplings)) {}
  void init(const Model& m, const State& s) override {
    main_->init(m, s);
    if (limits_) limits_->init(m, s);
    if (wheels_) wheels_->init(m, s);
    if (couplings_) couplings_->init(m, s);
  }
  void update(const Model& m, const State& s, StepStats& st) override {
    main_->update(m, s, st);
    if (limits_) limits_->update(m, s, st);
    if (wheels_) wheels_->update(m, s, st);
    if (couplings_) couplings_->update(m, s, st);
  }
  int groups() const override { return main_->groups() + limit_groups() + wheel_groups() + (couplings_ ? couplings_->groups() : 0); }
  double correct_position(int g, const Model& m, const StepLoads& l, double h, State& s, double tol, StepStats& st) override {
    if (g < main_->groups()) return main_->correct_position(g, m, l, h, s, tol, st);
    g -= main_->groups();
    if (g < limit_groups()) return limits_->correct_position(g, m, l, h, s, tol, st);
    g -= limit_groups();
    if (g < wheel_groups()) return wheels_->correct_position(g, m, l, h, s, tol, st);
    return couplings_->correct_position(g - wheel_groups(), m, l, h, s, tol, st);
  }
  double correct_velocity(int g, State& s, double tol, StepStats& st) override {
    if (g < main_->groups()) return main_->correct_velocity(g, s, tol, st);
    g -= main_->groups();
    if (g < limit_groups()) return limits_->correct_velocity(g, s, tol, st);
    g -= limit_groups();
    if (g < wheel_groups()) return wheels_->correct_velocity(g, s, tol, st);
    return couplings_->correct_velocity(g - wheel_groups(), s, tol, st);
  }
  // the contacts couple to the main corrector's rows (contacts_keep_joints: not all of them)
  ArticulationCoupling* coupling() override { return main_->coupling(); }
  ArticulationCoupling* response() override { return main_->response(); }
  bool times_parts() const override { return main_->times_parts(); }
  void begin_step(const Model& m, const State& s, double h) override {
    main_->begin_step(m, s, h);
    if (limits_) limits_->begin_step(m, s, h);
  }
  void begin_position_phase() override {
    main_->begin_position_phase();
    if (limits_) limits_->begin_position_phase();
  }
  // the bounded motors (limits_) start every phase from zero; the wheels are warm started as the
  // main corrector's rows are
  void begin_warm(WarmPhase phase, double span, State& state) override {
    main_->begin_warm(phase, span, state);
    if (wheels_) wheels_->begin_warm(phase, span, state);
  }
  void end_warm() override {
    main_->end_warm();
    if (wheels_) wheels_->end_warm();
  }
  bool holds_wheels() const override { return wheels_ || main_->holds_wheels(); }

 private:
  int limit_groups() const { return limits_ ? limits_->groups() : 0; }
  int wheel_groups() const { return wheels_ ? wheels_->groups() : 0; }
  std::unique_ptr<Corrector> main_;
  std::unique_ptr<JointCorrector> limits_, wheels_;
  std::unique_ptr<CouplingCorrector> couplings_;
};

}  // namespace

std::unique_ptr<Corrector> make_joint_corrector() { return std::make_unique<JointCorrector>(); }
std::unique_ptr<Corrector> make_motor_corrector(MotorRows rows) { return std::make_unique<JointCorrector>(rows); }

std::unique_ptr<Corrector> with_extra_rows(const Model& model, std::unique_ptr<Corrector> main, bool slip_in_position) {
  const bool all = main->motor_rows() == MotorRows::None;
  const MotorRows rows = all ? MotorRows::OnlyAll : MotorRows::OnlyBounded;
  std::unique_ptr<JointCorrector> limits, wheels;
  if (std::any_of(model.motors.begin(), model.motors.end(), [&](const Motor& mo) { return all || mo.limited(); }))
    limits = std::make_unique<JointCorrector>(rows);
  if (!model.rolling.empty() && !main->holds_wheels()) wheels = std::make_unique<JointCorrector>(MotorRows::None, WheelRows::Only, slip_in_position);
  std::unique_ptr<CouplingCorrector> couplings;
  if (!model.couplings.empty()) couplings = std::make_unique<CouplingCorrector>();
  if (!limits && !wheels && !couplings) return main;
  return std::make_unique<WithExtraRows>(std::move(main), std::move(limits), std::move(wheels), std::move(couplings));
}

}  // namespace mb
