#include "methods/impulse/impulse_method.hpp"

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
  void init(const Model& model, const State&) override {
    cs_ = ConstraintSystem(model);
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
    if (err > tol) apply(b, g, -e_ / h, state);
    return err;
  }

  double correct_velocity(int g, State& state, double tol, StepStats&) override {
    const JointBlock& b = cs_.blocks()[g];
    cs_.block_velocity_error(state, b, e_);
    const double err = ConstraintSystem::joint_norm(b, e_);
    if (err > tol) apply(b, g, -e_, state);
    return err;
  }
  bool times_parts() const override { return false; }  // a clock read costs about one joint's correction

 private:
  void apply(const JointBlock& b, int g, const Vec6& rhs, State& state) {
    Vec6 x = Vec6::Zero();
    if (b.dim == 1)
      x[0] = inv_[g](0, 0) * rhs[0];  // a rod: one product
    else if (b.dim == 3)
      x.head<3>().noalias() = inv_[g].topLeftCorner<3, 3>() * rhs.head<3>();  // a ball joint: fixed size
    else
      x.head(b.dim) = inv_[g].topLeftCorner(b.dim, b.dim) * rhs.head(b.dim);
    cs_.apply_block_impulse(b, x, state);
  }

  ConstraintSystem cs_;
  std::vector<Mat6> inv_;  // (nblocks) A_ii^-1
  State pred_;
  RememberedFreeMotion predict_;  // writes pred_'s dynamic bodies
  Vec6 e_;
};

}  // namespace

std::unique_ptr<Corrector> make_joint_corrector() { return std::make_unique<JointCorrector>(); }

}  // namespace mb
