// The metrics (docs/metrics.md).
#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "metrics/observer.hpp"

#include "models/collision.hpp"
#include "models/modes.hpp"

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
  void begin(const Model&, const State&, const RunContext&, const StepView& v0) override { e0_ = e_prev_ = v0.energy; }
  void observe(const Model&, const State&, const StepView& v) override {
    sum_ed_ += std::abs(v.energy - e0_);
    sum_eid_ += std::abs(v.energy - e_prev_);
    e_prev_ = v.energy;
    ++n_;
  }
  void write(Metrics& m) const override {
    m.set("E0", e0_);
    m.set("E_end", e_prev_);
    m.set(metric::ED, n_ ? sum_ed_ / n_ : 0.0);
    m.set(metric::EID, n_ ? sum_eid_ / n_ : 0.0);
  }

 private:
  double e0_ = 0, e_prev_ = 0, sum_ed_ = 0, sum_eid_ = 0;
  long n_ = 0;
};

// LD = (1/m) sum_{i=1..m} |x(i T)| over the m whole periods in the run, x of the tracked body
// relative to its initial x (the pendulum starts at x = 0). Needs h = T/k. Readings: every
// crossover i T/2 instead of i T (k even); or x(0) counted as a term (i = 0..m).
//
// LD reads the motion at multiples of the declared T, so T is checked against the model's motion:
// the first period measured on it (LdReading::motion_period). That motion is the reference
// method's, never the observed method's: a method's own period error is what LD measures (at a
// coarse step its first period can be off by more than the tolerance), and this observer never
// knows which method ran.
class LocationDriftObserver final : public Observer {
 public:
  explicit LocationDriftObserver(const LdReading& r) : reading_(r) {}
  void begin(const Model& model, const State&, const RunContext& ctx, const StepView&) override {
    body_ = model.info.tracked_body;
    period_ = model.info.period.value_or(0);
    k_ = ctx.steps_per_period.value_or(0);
    every_ = reading_.half_periods ? k_ / 2 : k_;
    if (reading_.half_periods && k_ % 2 != 0) k_ = every_ = 0;
    if (reading_.with_start) m_ = 1;  // |x(0) - x0| = 0 adds a term and nothing to the sum
    if (body_ >= 0) x0_ = model.bodies[body_].position.x();
  }
  void observe(const Model&, const State& s, const StepView& v) override {
    if (every_ <= 0 || body_ < 0 || v.step % every_ != 0) return;
    sum_ += std::abs(s.bodies[body_].x.x() - x0_);
    ++m_;
  }
  void write(Metrics& m) const override {
    if (const auto& measured = reading_.motion_period; measured && std::abs(*measured - period_) > kPeriodTolerance * period_) {
      m.note(metric::LD, fmt::format("{}: the motion's first period is {:.6g} s, the model's period {:.6g} s ({:+.1f} %)", kPeriodMismatch,
                               *measured, period_, 100 * (*measured / period_ - 1)));
      return;
    }
    if (every_ <= 0) {
      m.note(metric::LD, "h is not a whole fraction T/k of the period (k even for half periods)");
      return;
    }
    m.set(metric::LD, m_ ? sum_ / m_ : 0.0);
    m.set(metric::LD_periods, static_cast<double>(m_));
    m.set(metric::LD_steps_per_period, static_cast<double>(k_));
  }

 private:
  LdReading reading_;
  int body_ = -1;
  long k_ = 0, every_ = 0, m_ = 0;
  double x0_ = 0, sum_ = 0, period_ = 0;
};

// Constraint drift: per step the max over joints of the position and velocity error; reported
// as the mean over steps i = 1..n and the max over the run.
class ConstraintDriftObserver final : public Observer {
 public:
  void begin(const Model&, const State&, const RunContext&, const StepView&) override {}
  void observe(const Model&, const State&, const StepView& v) override {
    sum_pos_ += v.joint.pos;
    sum_vel_ += v.joint.vel;
    max_pos_ = std::max(max_pos_, v.joint.pos);
    max_vel_ = std::max(max_vel_, v.joint.vel);
    max_rot_ = std::max(max_rot_, v.joint.rot);
    ++n_;
  }
  void write(Metrics& m) const override {
    m.set(metric::CD_pos_mean, n_ ? sum_pos_ / n_ : 0.0);
    m.set(metric::CD_pos_max, max_pos_);
    m.set(metric::CD_vel_mean, n_ ? sum_vel_ / n_ : 0.0);
    m.set(metric::CD_vel_max, max_vel_);
    m.set("CD_rot_max", max_rot_);
  }

 private:
  double sum_pos_ = 0, sum_vel_ = 0, max_pos_ = 0, max_vel_ = 0, max_rot_ = 0;
  long n_ = 0;
};

// Repair (models whose joints start broken, beyond kBrokenJointTolerance): the first step after
// which every joint is within kRepairedTolerance, in position and rotation.
class RepairObserver final : public Observer {
 public:
  // it measures only a run whose initial state breaks a joint (v0: the initial state's view)
  void begin(const Model&, const State&, const RunContext&, const StepView& v0) override {
    broken_ = !(std::max(v0.joint.pos, v0.joint.rot) <= kBrokenJointTolerance);
  }
  void observe(const Model&, const State&, const StepView& v) override {
    if (!broken_ || step_ || !(std::max(v.joint.pos, v.joint.rot) <= kRepairedTolerance)) return;
    step_ = v.step;
    t_ = v.t;
  }
  void write(Metrics& m) const override {
    if (!broken_) return;
    if (!step_) {
      m.note(metric::repair_steps, "not repaired within the run");
      return;
    }
    m.set(metric::repair_steps, static_cast<double>(step_));
    m.set(metric::repair_time, t_);
  }

 private:
  bool broken_ = false;
  long step_ = 0;
  double t_ = 0;
};

// Contacts (models with shapes; docs/contacts.md): the penetration the collision detector finds
// after each step (its largest depth), as the max over the run and the mean over steps, and the
// largest energy gain of one step (an impact or a contact that adds energy shows here) and its
// largest loss (an impact's dissipation, (1 - e^2) of the approach's kinetic energy, shows here).
// Stick and slip: a second detector with a margin also finds the resting contacts a step leaves
// just apart; a shape pair in contact sticks when every one of its contact points slides slower
// than kStickSpeed, and every change between sticking and slipping of a pair in contact at two
// consecutive steps counts (entering or leaving contact does not).
constexpr double kStickMargin = 1e-4;  // m
constexpr double kStickSpeed = 1e-4;   // m/s
class ContactObserver final : public Observer {
 public:
  void begin(const Model& model, const State& initial_state, const RunContext&, const StepView& initial) override {
    detector_ = std::make_unique<CollisionDetector>(model);
    near_ = std::make_unique<CollisionDetector>(model, kStickMargin);
    e_prev_ = initial.energy;
    classify(model, initial_state, sticking_);
  }
  void observe(const Model& model, const State& state, const StepView& v) override {
    detector_->detect(model, state, contacts_);
    double depth = 0;
    for (const Contact& c : contacts_) depth = std::max(depth, c.depth);
    max_ = std::max(max_, depth);
    sum_ += depth;
    gain_ = std::max(gain_, v.energy - e_prev_);
    loss_ = std::max(loss_, e_prev_ - v.energy);
    e_prev_ = v.energy;
    ++n_;
    classify(model, state, now_);
    for (const auto& [pair, stick] : now_) {
      auto it = sticking_.find(pair);
      if (it != sticking_.end() && it->second != stick) ++changes_;
    }
    std::swap(sticking_, now_);
  }
  void write(Metrics& m) const override {
    m.set(metric::PEN_max, max_);
    m.set(metric::PEN_mean, n_ ? sum_ / n_ : 0.0);
    m.set(metric::E_gain_max, gain_);
    m.set(metric::E_loss_max, loss_);
    m.set(metric::stick_slip_changes, static_cast<double>(changes_));
  }

 private:
  // shape pair -> whether it sticks, for the pairs within the margin at `state`
  void classify(const Model& model, const State& state, std::map<std::pair<int, int>, bool>& out) {
    near_->detect(model, state, near_contacts_);
    out.clear();
    for (const Contact& c : near_contacts_) {
      const Vec3 rel = world_point_velocity(model, state, c.b, c.local_b) - world_point_velocity(model, state, c.a, c.local_a);
      const double slide = (rel - rel.dot(c.normal) * c.normal).norm();
      auto [it, inserted] = out.emplace(std::make_pair(c.shape_a, c.shape_b), true);
      it->second = it->second && slide <= kStickSpeed;
    }
  }
  std::unique_ptr<CollisionDetector> detector_, near_;
  std::vector<Contact> contacts_, near_contacts_;
  std::map<std::pair<int, int>, bool> sticking_, now_;
  double max_ = 0, sum_ = 0, gain_ = 0, loss_ = 0, e_prev_ = 0;
  long n_ = 0, changes_ = 0;
};

}  // namespace

// The error against a model's closed-form motion (ModelInfo::exact): the largest |x - x_exact(t)| and
// |v - v_exact(t)| over the listed bodies and the steps.
class ExactMotionObserver final : public Observer {
 public:
  void begin(const Model& model, const State& s0, const RunContext&, const StepView&) override {
    x0_.clear();
    v0_.clear();
    for (const ExactMotion& e : model.info.exact) {
      x0_.push_back(s0.bodies[static_cast<size_t>(e.body)].x);
      v0_.push_back(s0.bodies[static_cast<size_t>(e.body)].v);
    }
    t0_ = s0.t;
  }
  void observe(const Model& model, const State& s, const StepView&) override {
    const double t = s.t - t0_;
    for (size_t k = 0; k < model.info.exact.size(); ++k) {
      const ExactMotion& e = model.info.exact[k];
      const BodyState& b = s.bodies[static_cast<size_t>(e.body)];
      pos_ = std::max(pos_, (b.x - (x0_[k] + v0_[k] * t + 0.5 * e.acceleration * t * t)).norm());
      vel_ = std::max(vel_, (b.v - (v0_[k] + e.acceleration * t)).norm());
    }
  }
  void write(Metrics& m) const override {
    m.set(metric::exact_pos_error_max, pos_);
    m.set(metric::exact_vel_error_max, vel_);
  }

 private:
  std::vector<Vec3> x0_, v0_;
  double t0_ = 0, pos_ = 0, vel_ = 0;
};

namespace {

// A walking machine (motors and shapes): walk_distance, the tracked body's displacement along +x
// over the run; slip, the mean tangential speed of the loaded feet on the ground. A foot is loaded
// at a step when its shape is within kStickMargin of a fixed shape (the world's or a static body's):
// the resting contacts a step leaves just apart count.
class WalkObserver final : public Observer {
 public:
  void begin(const Model& model, const State& s0, const RunContext&, const StepView&) override {
    body_ = model.info.tracked_body;
    x0_ = x_ = s0.bodies[static_cast<size_t>(body_)].x.x();
    near_ = std::make_unique<CollisionDetector>(model, kStickMargin);
  }
  void observe(const Model& model, const State& s, const StepView&) override {
    x_ = s.bodies[static_cast<size_t>(body_)].x.x();
    near_->detect(model, s, contacts_);
    for (const Contact& c : contacts_) {
      const bool fixed_a = c.a == kWorld || model.bodies[static_cast<size_t>(c.a)].is_static;
      const bool fixed_b = c.b == kWorld || model.bodies[static_cast<size_t>(c.b)].is_static;
      if (fixed_a == fixed_b) continue;  // two moving bodies (or two fixed ones): not a foot on the ground
      const Vec3 rel = world_point_velocity(model, s, c.b, c.local_b) - world_point_velocity(model, s, c.a, c.local_a);
      sum_ += (rel - rel.dot(c.normal) * c.normal).norm();
      ++n_;
    }
  }
  void write(Metrics& m) const override {
    m.set(metric::walk_distance, x_ - x0_);
    m.set(metric::slip, n_ ? sum_ / static_cast<double>(n_) : 0.0);
  }

 private:
  int body_ = -1;
  double x0_ = 0, x_ = 0, sum_ = 0;
  long n_ = 0;
  std::unique_ptr<CollisionDetector> near_;
  std::vector<Contact> contacts_;
};

}  // namespace

std::vector<std::unique_ptr<Observer>> make_observers(const Model& model, const LdReading& ld) {
  std::vector<std::unique_ptr<Observer>> obs;
  obs.push_back(std::make_unique<EnergyObserver>());
  if (model.info.period && model.info.tracked_body >= 0) obs.push_back(std::make_unique<LocationDriftObserver>(ld));
  obs.push_back(std::make_unique<ConstraintDriftObserver>());
  if (!model.joints.empty()) obs.push_back(std::make_unique<RepairObserver>());
  if (!model.shapes.empty()) obs.push_back(std::make_unique<ContactObserver>());
  if (!model.info.exact.empty()) obs.push_back(std::make_unique<ExactMotionObserver>());
  if (!model.motors.empty() && !model.shapes.empty() && model.info.tracked_body >= 0) obs.push_back(std::make_unique<WalkObserver>());
  if (model.info.modes) obs.push_back(std::make_unique<ModesObserver>());
  return obs;
}

namespace {
Eigen::Vector4d mode_coordinates(const LinearModes& modes, const State& s) {
  const std::array<double, 4> z = modes.coordinates(s);
  return Eigen::Vector4d(z[0], z[1], z[2], z[3]);
}
}  // namespace

void ModesObserver::begin(const Model& model, const State& state, const RunContext& ctx, const StepView&) {
  modes_ = &*model.info.modes;
  every_ = SampleRecorder::grid_index(kModesInterval, ctx.h);
  samples_ = std::lround(kModesSpan / kModesInterval) + 1;
  z_.clear();
  if (every_ > 0) z_.push_back(mode_coordinates(*modes_, state));
}

void ModesObserver::observe(const Model&, const State& state, const StepView& v) {
  if (every_ <= 0 || v.step % every_ != 0 || static_cast<long>(z_.size()) >= samples_) return;
  z_.push_back(mode_coordinates(*modes_, state));
}

void ModesObserver::write(Metrics& m) const {
  if (every_ <= 0) {
    m.note(metric::eig_err, fmt::format("h does not divide the sample interval {} s", kModesInterval));
    return;
  }
  if (static_cast<long>(z_.size()) < samples_) {
    m.note(metric::eig_err, fmt::format("the run ended before {} s", kModesSpan));
    return;
  }
  for (const auto& z : z_)
    if (!z.allFinite()) {
      m.note(metric::eig_err, "the motion is not finite");
      return;
    }
  const auto e = identified_eigenvalues(z_, kModesInterval);
  m.set(metric::eig_err, eigenvalue_error(e, modes_->eigenvalues));
  m.set(metric::eig_v, modes_->v);
  for (size_t k = 0; k < 4; ++k) {
    m.set(metric::eig_re[k], e[k].real());
    m.set(metric::eig_im[k], e[k].imag());
  }
}

void FirstPeriodObserver::begin(const Model& model, const State& s, const RunContext&, const StepView& v) {
  body_ = model.info.tracked_body;
  turns_ = 0;
  if (body_ >= 0) {
    last_v_ = s.bodies[body_].v.x();
    last_t_ = v.t;
  }
}

void FirstPeriodObserver::observe(const Model&, const State& s, const StepView& v) {
  if (body_ < 0 || turns_ == 3) return;
  const double vx = s.bodies[body_].v.x();
  if (vx == 0) return;
  if (last_v_ * vx < 0) turn_[turns_++] = last_t_ + (v.t - last_t_) * last_v_ / (last_v_ - vx);
  last_v_ = vx;
  last_t_ = v.t;
}

std::optional<double> FirstPeriodObserver::period() const {
  if (turns_ < 3) return std::nullopt;
  return turn_[2] - turn_[0];
}

// --- samples ---
Sample sample_of(const Model& model, const State& s, double t) {
  Sample out;
  out.t = t;
  bool rigid = false;
  for (size_t i = 0; i < model.bodies.size(); ++i) {
    if (model.bodies[i].is_static) continue;
    const BodyState& b = s.bodies[i];
    out.positions.push_back({b.x.x(), b.x.y(), b.x.z()});
    out.velocities.push_back({b.v.x(), b.v.y(), b.v.z()});
    out.orientations.push_back({b.q.w(), b.q.x(), b.q.y(), b.q.z()});
    out.angular_velocities.push_back({b.w.x(), b.w.y(), b.w.z()});
    rigid = rigid || !model.bodies[i].particle;
  }
  if (!rigid) {
    out.orientations.clear();
    out.angular_velocities.clear();
  }
  out.energy = total_energy(model, s);
  return out;
}

long SampleRecorder::grid_index(double t, double h) {
  const double r = t / h;
  const bool on_grid = std::abs(r - std::round(r)) <= 1e-9 * std::max(1.0, r);
  return on_grid ? std::lround(r) : -1;
}

void SampleRecorder::begin(const Model& model, const State& state, const RunContext& ctx, const StepView&) {
  std::sort(times_.begin(), times_.end());
  index_.clear();
  for (double t : times_) index_.push_back(grid_index(t, ctx.h));
  next_ = 0;
  samples_.clear();
  take(model, state, 0, 0);
}

void SampleRecorder::take(const Model& model, const State& state, long step, double t_stop) {
  while (next_ < times_.size()) {
    const bool here = step >= 0 ? index_[next_] == step : (index_[next_] < 0 && times_[next_] == t_stop);
    if (!here) break;
    samples_.push_back(sample_of(model, state, times_[next_]));
    ++next_;
  }
}

void SampleRecorder::observe(const Model& model, const State& state, const StepView& view) {
  take(model, state, view.step, 0);
}
void SampleRecorder::observe_stop(const Model& model, const State& state, double t) { take(model, state, -1, t); }

SignificantDigits significant_digits(const Sample& s, const Sample& ref) {
  double scale = 0;
  for (const auto& p : ref.positions)
    for (double x : p) scale = std::max(scale, std::abs(x));
  double rel = 0, mixed = 0;
  for (size_t k = 0; k < s.positions.size() && k < ref.positions.size(); ++k)
    for (int c = 0; c < 3; ++c) {
      const double r = ref.positions[k][c], e = std::abs(s.positions[k][c] - r);
      if (std::abs(r) > kScdZero * scale) rel = std::max(rel, e / std::abs(r));
      mixed = std::max(mixed, e / (kMescdFloor + std::abs(r)));
    }
  return {-std::log10(std::max(rel, kScdRoundOff)), -std::log10(std::max(mixed, kScdRoundOff))};
}

void SelfConsistencyObserver::observe(const Model& model, const State& state, const StepView& v) {
  if (v.step != final_step_ || !fine_) return;
  double e = 0;
  for (size_t i = 0; i < state.bodies.size(); ++i)
    if (!model.bodies[i].is_static) e = std::max(e, (state.bodies[i].x - fine_->bodies[i].x).norm());
  error_ = e;
  digits_ = significant_digits(sample_of(model, state, v.t), sample_of(model, *fine_, v.t)).mescd;
}

void SelfConsistencyObserver::write(Metrics& metrics) const {
  if (error_) {
    metrics.set(metric::self_error, *error_);
    metrics.set(metric::self_mescd, *digits_);
    return;
  }
  const std::string why = !why_.empty() ? why_ : "the run stopped before its end";
  metrics.note(metric::self_error, why);
  metrics.note(metric::self_mescd, why);
}

void AgreementObserver::observe(const Model& model, const State& state, const StepView& v) {
  if (v.step < 0 || v.step >= static_cast<long>(other_.size())) return;
  const std::vector<Vec3>& x = other_[static_cast<size_t>(v.step)];
  for (size_t i = 0; i < state.bodies.size() && i < x.size(); ++i)
    if (!model.bodies[i].is_static) error_ = std::max(error_, (state.bodies[i].x - x[i]).norm());
  ++compared_;
}

void AgreementObserver::write(Metrics& metrics) const {
  if (!why_.empty()) metrics.note(metric::agree_err, why_);
  else if (other_.empty() || compared_ < static_cast<long>(other_.size()))
    metrics.note(metric::agree_err, "the run stopped before the end of agree_time");
  else metrics.set(metric::agree_err, error_);
}

void ReferenceErrorObserver::write(Metrics& metrics) const {
  const std::vector<Sample>& samples = recorder_.samples();
  // a run that stopped before its first sample time has no error to state (0 would read as exact)
  if (samples.empty()) {
    metrics.note(metric::ref_error_max, "the run stopped before the first sample time");
    return;
  }
  metrics.set(metric::ref_error_max, error().max);
  const Sample& last = samples.back();
  const SignificantDigits d = significant_digits(last, sample_of(*model_, reference_.at(last.t), last.t));
  metrics.set(metric::scd, d.scd);
  metrics.set(metric::mescd, d.mescd);
}

ReferenceError reference_error(const Model& model, const std::vector<Sample>& samples, const Trajectory& reference) {
  ReferenceError e;
  for (const Sample& s : samples) {
    const Sample r = sample_of(model, reference.at(s.t), s.t);
    double worst = 0;
    for (size_t k = 0; k < s.positions.size() && k < r.positions.size(); ++k) {
      double d2 = 0;
      for (int c = 0; c < 3; ++c) {
        const double d = s.positions[k][c] - r.positions[k][c];
        d2 += d * d;
      }
      worst = std::max(worst, std::sqrt(d2));
    }
    e.per_sample.push_back({s.t, worst});
    e.max = std::max(e.max, worst);
  }
  return e;
}

}  // namespace mb
