// The metrics of design.md s.5.
#include <algorithm>
#include <cmath>

#include "metrics/observer.hpp"

namespace mb {

StepView view_state(const Model& model, const State& state, long step) {
  StepView v;
  v.step = step;
  v.t = state.t;
  v.finite = state_is_finite(state);
  v.energy = total_energy(model, state);
  v.joint = max_joint_error(model, state);
  return v;
}

namespace {

// ED = (1/n) sum_{i=1..n} |E_i - E_0|;  EID = (1/n) sum_{i=1..n} |E_i - E_{i-1}|
class EnergyObserver final : public Observer {
 public:
  void begin(const Model&, const RunContext&, const StepView& v0) override { e0_ = e_prev_ = v0.energy; }
  void observe(const Model&, const State&, const StepView& v) override {
    sum_ed_ += std::abs(v.energy - e0_);
    sum_eid_ += std::abs(v.energy - e_prev_);
    e_prev_ = v.energy;
    ++n_;
  }
  void write(nlohmann::json& m) const override {
    m["E0"] = e0_;
    m["E_end"] = e_prev_;
    m["ED"] = n_ ? sum_ed_ / n_ : 0.0;
    m["EID"] = n_ ? sum_eid_ / n_ : 0.0;
  }

 private:
  double e0_ = 0, e_prev_ = 0, sum_ed_ = 0, sum_eid_ = 0;
  long n_ = 0;
};

// LD = (1/m) sum_{i=1..m} |x(i T)| over the m whole periods in the run, x of the tracked body
// relative to its initial x (the pendulum starts at x = 0). Needs h = T/k. Readings: every
// crossover i T/2 instead of i T (k even); or x(0) counted as a term (i = 0..m).
class LocationDriftObserver final : public Observer {
 public:
  void begin(const Model& model, const RunContext& ctx, const StepView&) override {
    body_ = model.info.tracked_body;
    k_ = ctx.steps_per_period.value_or(0);
    every_ = ctx.ld_half_periods ? k_ / 2 : k_;
    if (ctx.ld_half_periods && k_ % 2 != 0) k_ = every_ = 0;
    if (ctx.ld_with_start) m_ = 1;  // |x(0) - x0| = 0 adds a term and nothing to the sum
    if (body_ >= 0) x0_ = model.bodies[body_].position.x();
  }
  void observe(const Model&, const State& s, const StepView& v) override {
    if (every_ <= 0 || body_ < 0 || v.step % every_ != 0) return;
    sum_ += std::abs(s.bodies[body_].x.x() - x0_);
    ++m_;
  }
  void write(nlohmann::json& m) const override {
    if (every_ <= 0) {
      m["LD"] = nullptr;
      m["LD_note"] = "h is not a whole fraction T/k of the period (k even for half periods)";
      return;
    }
    m["LD"] = m_ ? sum_ / m_ : 0.0;
    m["LD_periods"] = m_;
    m["LD_steps_per_period"] = k_;
  }

 private:
  int body_ = -1;
  long k_ = 0, every_ = 0, m_ = 0;
  double x0_ = 0, sum_ = 0;
};

// Constraint drift: per step the max over joints of the position and velocity error; reported
// as the mean over steps i = 1..n and the max over the run.
class ConstraintDriftObserver final : public Observer {
 public:
  void begin(const Model&, const RunContext&, const StepView&) override {}
  void observe(const Model&, const State&, const StepView& v) override {
    sum_pos_ += v.joint.pos;
    sum_vel_ += v.joint.vel;
    max_pos_ = std::max(max_pos_, v.joint.pos);
    max_vel_ = std::max(max_vel_, v.joint.vel);
    max_rot_ = std::max(max_rot_, v.joint.rot);
    ++n_;
  }
  void write(nlohmann::json& m) const override {
    m["CD_pos_mean"] = n_ ? sum_pos_ / n_ : 0.0;
    m["CD_pos_max"] = max_pos_;
    m["CD_vel_mean"] = n_ ? sum_vel_ / n_ : 0.0;
    m["CD_vel_max"] = max_vel_;
    m["CD_rot_max"] = max_rot_;
  }

 private:
  double sum_pos_ = 0, sum_vel_ = 0, max_pos_ = 0, max_vel_ = 0, max_rot_ = 0;
  long n_ = 0;
};

}  // namespace

std::vector<std::unique_ptr<Observer>> make_observers(const Model& model) {
  std::vector<std::unique_ptr<Observer>> obs;
  obs.push_back(std::make_unique<EnergyObserver>());
  if (model.info.period && model.info.tracked_body >= 0) obs.push_back(std::make_unique<LocationDriftObserver>());
  obs.push_back(std::make_unique<ConstraintDriftObserver>());
  return obs;
}

const std::vector<MetricInfo>& metric_catalog() {
  static const std::vector<MetricInfo> m = {
      {"ED", "energy drift (1/n) sum_{i=1..n} |E_i - E_0|, J", true},
      {"EID", "energy increment drift (1/n) sum_{i=1..n} |E_i - E_{i-1}|, J", true},
      {"LD", "location (oscillation-time) drift (1/m) sum_{i=1..m} |x(i T)|, m; needs h = T/k", true},
      {"CD_pos_mean", "constraint position error: mean over steps of the max over joints, m", true},
      {"CD_pos_max", "constraint position error: max over the run of the max over joints, m", true},
      {"CD_vel_mean", "constraint velocity error: mean over steps of the max over joints, m/s", true},
      {"CD_vel_max", "constraint velocity error: max over the run, m/s", true},
      {"fail", "max constraint error > fail threshold (1 m) or a non-finite state; recorded with reason and time", false},
      {"ref_error", "max over bodies of |x - x_ref| at each sample time, against the `ref` method, m", false},
  };
  return m;
}

}  // namespace mb
