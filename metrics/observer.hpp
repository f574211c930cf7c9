// Observers (metrics). The runner computes a StepView once per step (energy and joint errors,
// shared by every observer) and hands it to each observer; an observer never knows which method
// ran. Adding a metric = one observer class + one line in make_observers() (metrics/observers.cpp).
#pragma once
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "models/kinematics.hpp"
#include "models/model.hpp"
#include "metrics/registry.hpp"
#include "records/record.hpp"

namespace mb {

struct RunContext {
  double h = 0;                        // step actually used
  long steps = 0;                      // steps planned
  std::optional<long> steps_per_period;  // when h = T/k for the model's period T
};

// LD readings (the experiment's ld_periods): |x| at every crossover i T/2 (k even) instead of
// i T; x(0) = 0 counted as a period end (divides by m + 1). motion_period: the model's first
// period as its motion shows it (FirstPeriodObserver on a run of the reference method, made by
// sim/run_case.cpp); when it differs from the declared period by more than kPeriodTolerance, LD
// does not apply (kPeriodMismatch). None: not measured, LD as declared.
struct LdReading {
  bool half_periods = false;
  bool with_start = false;
  std::optional<double> motion_period;
};
constexpr double kPeriodTolerance = 0.01;

struct StepView {
  long step = 0;  // i = 0 (initial state) .. n
  double t = 0;
  double energy = 0;
  JointError joint;  // max over joints
  bool finite = true;
};

StepView view_state(const Model& model, const State& state, long step);

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void begin(const Model& model, const State& initial_state, const RunContext& ctx, const StepView& initial) = 0;
  virtual void observe(const Model& model, const State& state, const StepView& view) = 0;
  // an adaptive method stopped at t between two grid points (sim/driver.hpp DriverOptions::stops)
  virtual void observe_stop(const Model&, const State&, double /*t*/) {}
  // adds this observer's metrics to `metrics`
  virtual void write(Metrics& metrics) const = 0;
};

// The start of LD's note when the model's period does not match its motion (metrics/observers.cpp):
// what `run` warns about.
inline constexpr const char* kPeriodMismatch = "not applicable: period mismatch";

// The first whole period of the tracked body's motion: from the first to the third sign change of
// its x velocity, each time interpolated linearly between the steps around it (x turns twice per
// period; a body circling the vertical too). A step ending on vx = 0 exactly is no sign change.
class FirstPeriodObserver final : public Observer {
 public:
  void begin(const Model& model, const State& state, const RunContext& ctx, const StepView& v) override;
  void observe(const Model& model, const State& state, const StepView& v) override;
  void write(Metrics&) const override {}
  // none: fewer than three sign changes seen
  std::optional<double> period() const;

 private:
  int body_ = -1;
  double last_v_ = 0, last_t_ = 0;  // the last non-zero x velocity and its time
  double turn_[3] = {0, 0, 0};
  int turns_ = 0;
};

// eig_err (models with ModelInfo::modes): the coordinates sampled every kModesInterval over the
// first kModesSpan s of the run, the eigenvalues identified from them (models/modes.hpp) against
// the model's published ones. A step that does not divide the interval, or a run shorter than the
// span, has a note instead.
constexpr double kModesInterval = 0.016;  // s: every step of the default grid 0.25 * 2^i ms divides it
constexpr double kModesSpan = 2;          // s
class ModesObserver final : public Observer {
 public:
  void begin(const Model& model, const State& state, const RunContext& ctx, const StepView& v) override;
  void observe(const Model& model, const State& state, const StepView& v) override;
  void write(Metrics& metrics) const override;

 private:
  long every_ = 0, samples_ = 0;
  std::vector<Eigen::Vector4d> z_;
  const LinearModes* modes_ = nullptr;
};

// The observers that apply to a model (LD only where the model has a period).
std::vector<std::unique_ptr<Observer>> make_observers(const Model& model, const LdReading& ld = {});

// --- samples and the error against a reference trajectory ---
// A trajectory that can be evaluated at any time in its range (sim/reference.hpp makes one from
// the reference method).
class Trajectory {
 public:
  virtual ~Trajectory() = default;
  virtual State at(double t) const = 0;
};

// The state at given times: grid times are taken in observe() (a time within 1e-9 relative of a
// step end t_i counts as t_i and is recorded as the given time), other times in observe_stop().
Sample sample_of(const Model& model, const State& state, double t);
class SampleRecorder final : public Observer {
 public:
  explicit SampleRecorder(std::vector<double> times) : times_(std::move(times)) {}
  void begin(const Model& model, const State& state, const RunContext& ctx, const StepView& initial) override;
  void observe(const Model& model, const State& state, const StepView& view) override;
  void observe_stop(const Model& model, const State& state, double t) override;
  void write(Metrics&) const override {}
  const std::vector<Sample>& samples() const { return samples_; }
  // the grid index of time t for step h (-1 when t is not within 1e-9 relative of a grid point)
  static long grid_index(double t, double h);

 private:
  void take(const Model& model, const State& state, long step, double t_stop);
  std::vector<double> times_;
  std::vector<long> index_;
  size_t next_ = 0;
  std::vector<Sample> samples_;
};

// ref_error_max: max over the sample times of the max over dynamic bodies of |x - x_ref(t)|.
ReferenceError reference_error(const Model& model, const std::vector<Sample>& samples, const Trajectory& reference);

// Significant correct digits of the position coordinates (x, y, z of every dynamic body's centre of
// mass) of `s` against `ref` (the Test Set for IVP Solvers' measures, docs/metrics.md):
//   scd   = -log10 max_i |y_i - r_i| / |r_i|, over the coordinates with |r_i| > kScdZero max_j |r_j|
//           (the others are zero up to round-off, e.g. z of a planar model);
//   mescd = -log10 max_i |y_i - r_i| / (kMescdFloor + |r_i|), over all coordinates.
// An error below kScdRoundOff (relative) counts as kScdRoundOff: the digits of a double.
struct SignificantDigits {
  double scd = 0, mescd = 0;
};
constexpr double kScdZero = 1e-10;
constexpr double kMescdFloor = 1.0;  // atol / rtol of the Test Set's mixed measure (atol = rtol)
constexpr double kScdRoundOff = 0x1p-52;
SignificantDigits significant_digits(const Sample& s, const Sample& ref);

// The error against a reference trajectory at the sample times, as an observer: it records the
// samples and, at the end, compares them with the reference (ref_error_max; scd and mescd at the
// last sample time, the end of the run when the samples include it).
class ReferenceErrorObserver final : public Observer {
 public:
  ReferenceErrorObserver(std::vector<double> times, const Trajectory& reference)
      : recorder_(std::move(times)), reference_(reference) {}
  void begin(const Model& model, const State& state, const RunContext& ctx, const StepView& v) override {
    model_ = &model;
    recorder_.begin(model, state, ctx, v);
  }
  void observe(const Model& model, const State& state, const StepView& v) override { recorder_.observe(model, state, v); }
  void observe_stop(const Model& model, const State& state, double t) override { recorder_.observe_stop(model, state, t); }
  void write(Metrics& metrics) const override;
  ReferenceError error() const { return reference_error(*model_, recorder_.samples(), reference_); }

 private:
  SampleRecorder recorder_;
  const Trajectory& reference_;
  const Model* model_ = nullptr;
};

// The self-consistency error, for models without a reference (IFToMM's practice): the end state of
// the run against the end state of the same method at h / kSelfRefinement (run_case makes it and
// hands it over; the observer never knows the method). self_error: max over dynamic bodies of
// |x - x_fine|, m; self_mescd: the mixed digits of the end positions against the fine ones.
constexpr int kSelfRefinement = 64;
class SelfConsistencyObserver final : public Observer {
 public:
  // final_step: the run's last step; fine_end: the fine run's end state, or none with `why`
  SelfConsistencyObserver(long final_step, std::optional<State> fine_end, std::string why = "")
      : final_step_(final_step), fine_(std::move(fine_end)), why_(std::move(why)) {}
  void begin(const Model&, const State&, const RunContext&, const StepView&) override {}
  void observe(const Model& model, const State& state, const StepView& v) override;
  void write(Metrics& metrics) const override;

 private:
  long final_step_;
  std::optional<State> fine_;
  std::string why_;
  std::optional<double> error_, digits_;
};

// The agreement with another method (agree_err): the run's positions at the steps 0..n of the first
// agree_time s against the other method's at the same h and steps (run_case makes that run and
// hands its positions over; the observer never knows either method). agree_err: max over those
// steps and the dynamic bodies of |x - x_other|, m. None, with a note: the other run is missing
// (`why`), or this run stopped before step n.
constexpr double kAgreeTime = 0.2;  // s: agree_time's default
class AgreementObserver final : public Observer {
 public:
  // other[i]: every body's position after step i of the other run, i = 0..n
  AgreementObserver(std::vector<std::vector<Vec3>> other, std::string why = "")
      : other_(std::move(other)), why_(std::move(why)) {}
  void begin(const Model& model, const State& state, const RunContext&, const StepView& v) override { observe(model, state, v); }
  void observe(const Model& model, const State& state, const StepView& v) override;
  void write(Metrics& metrics) const override;

 private:
  std::vector<std::vector<Vec3>> other_;
  std::string why_;
  double error_ = 0;
  long compared_ = 0;  // steps compared
};

}  // namespace mb
