#include "methods/impulse/impulse_method.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/stopwatch.hpp"
#include "models/actuators.hpp"
#include "models/kinematics.hpp"

namespace mb {

ImpulseMethod::ImpulseMethod(MethodInfo info, ImpulseOptions options, std::unique_ptr<Corrector> corrector)
    : info_(std::move(info)), opt_(options), corrector_(std::move(corrector)) {}

void ImpulseMethod::do_init(const Model& model, const State& state) {
  if (!extra_rows_) {  // a later init keeps the wrapper, which then holds the rows of that model
    Corrector* before = corrector_.get();
    corrector_ = with_extra_rows(model, std::move(corrector_), opt_.rolling_slip_in_position);
    extra_rows_ = corrector_.get() != before;
  }
  corrector_->init(model, state);
  contacts_ = ContactSet(model, opt_.contact_margin, opt_.contacts_from_start, true);  // joint limits as its rows
  StepStats unused;
  corrector_->update(model, state, unused);
  broken_ = false;
  if (opt_.repair_project && !model.joints.empty()) {
    const JointError e = max_joint_error(model, state);
    broken_ = !(std::max(e.pos, e.rot) <= kBrokenJointTolerance);
  }
}

namespace {
// Sweeps until the error is within tol; with tol = 0, until it is at round-off level (below
// kRoundoffRegime) and stops decreasing: the correction is then solved as exactly as the arithmetic
// allows. (A Gauss-Seidel sweep's error need not fall monotonically far from convergence, so a
// rise above that level is not taken as stagnation.)
constexpr double kRoundoffRegime = 1e-10;
// a contact whose gap after the step is at most this (or tol_p) takes part in the velocity phase
constexpr double kContactSlack = 1e-9;
// The velocity floor (ImpulseOptions::velocity_floor): an error within kFloorFactor tol whose
// smallest value, falling at its rate over the last kFloorWindow sweeps, would not reach tol within
// the sweeps left of max_iter has stopped falling.
constexpr double kFloorFactor = 10;
constexpr long kFloorWindow = 20;
// With `limit_reached`, reaching max_iter with a finite error ends the iteration and sets it
// (the contact phases' limit, ImpulseOptions::contact_iterations, and the anytime budget) instead
// of failing. With `floor_reached`, an error at the velocity floor (above) ends it and sets that.
template <class Sweep>
void iterate(Sweep&& sweep, double tol, long max_iter, long& iterations, double& residual, const char* what,
             const std::string& who, bool* limit_reached = nullptr, bool* floor_reached = nullptr) {
  double err = 0, prev = std::numeric_limits<double>::infinity();
  double best = prev, window_best = prev;  // the smallest error so far, and at the last window's end
  long it = 0;
  for (;;) {
    err = sweep();
    ++it;
    if (err <= tol) break;
    if (tol == 0 && err < kRoundoffRegime && err >= prev) break;  // stagnated at round-off
    if (floor_reached) {
      best = std::min(best, err);
      if (it % kFloorWindow == 0) {
        const double fall = window_best - best, left = static_cast<double>(max_iter - it);
        if (err <= kFloorFactor * tol && fall * left < (best - tol) * static_cast<double>(kFloorWindow)) {
          *floor_reached = true;
          break;
        }
        window_best = best;
      }
    }
    if (limit_reached && it >= max_iter && std::isfinite(err)) {
      *limit_reached = true;
      break;
    }
    if (it >= max_iter || !std::isfinite(err)) {
      const std::string message = fmt::format(
          "{}: {} correction did not converge in {} sweeps (error {:.3g} > tolerance {})", who, what, it, err,
          tol > 0 ? fmt::format("{:.3g}", tol) : std::string("0 = round-off"));
      if (!std::isfinite(err)) throw SimulationError(message);
      throw ConvergenceError(message, std::string(what) == "position" ? "tol_p" : "tol_v", err);
    }
    prev = err;
  }
  iterations += it;
  residual = err;
}

// A correction phase whose `sweep` visits the contacts while `with_contacts`: the sweeps with
// contacts end after opt.contact_iterations (> 0) or, still above the tolerance, after max_iter,
// and the joints alone are then iterated to the tolerance (ImpulseOptions::contact_iterations).
// With opt.budget > 0 the phase ends after that many sweeps, whatever the error
// (ImpulseOptions::budget). With `floor`
// (the velocity phase of ImpulseOptions::velocity_floor) an error that stops falling within
// kFloorFactor tol ends it (its error kept as the phase's residual), though not the sweeps with
// contacts that contact_iterations limits: their joints are finished alone.
template <class Sweep>
void iterate_phase(Sweep&& sweep, bool& with_contacts, double tol, const ImpulseOptions& opt, StepStats& stats,
                   long& iterations, double& residual, const char* what, const std::string& who, bool floor = false) {
  bool limited = false, floored = false;
  bool* at_floor = floor ? &floored : nullptr;  // counted in StepStats::floor_stops
  if (opt.budget > 0) {
    iterate(sweep, tol, opt.budget, iterations, residual, what, who, &limited, at_floor);
    stats.budget_stops += limited;
    stats.floor_stops += floored;
    return;
  }
  const bool limit = with_contacts && opt.contact_iterations > 0;
  iterate(sweep, tol, limit ? opt.contact_iterations : opt.max_iter, iterations, residual, what, who,
          with_contacts ? &limited : nullptr, limit ? nullptr : at_floor);
  if (limited) {
    with_contacts = false;  // the joints alone, to the tolerance
    ++stats.contact_stops;
    iterate(sweep, tol, opt.max_iter, iterations, residual, what, who, nullptr, at_floor);
  }
  stats.floor_stops += floored;
}
}  // namespace

void ImpulseMemory::reset(int rows) {
  phase_ = WarmPhase::None;
  acc_.setZero(rows);
  for (int p = 0; p < kPhases; ++p) kept_[p].resize(0), kept_span_[p] = 0;
}

bool ImpulseMemory::begin(WarmPhase phase, double span) {
  phase_ = phase;
  span_ = span;
  if (phase == WarmPhase::None) return false;  // add() keeps nothing, acc_ is not read
  const int p = static_cast<int>(phase);
  if (!(kept_span_[p] > 0) || kept_[p].size() != acc_.size() || !(span > 0)) {
    acc_.setZero();
    return false;
  }
  acc_ = kept_[p] * (span / kept_span_[p]);
  return !acc_.isZero(0.0);
}

void ImpulseMemory::end() {
  if (phase_ == WarmPhase::None) return;
  const int p = static_cast<int>(phase_);
  kept_[p] = acc_;
  kept_span_[p] = span_;
  phase_ = WarmPhase::None;
}

PhaseTimer::PhaseTimer(const Corrector& c, StepStats& stats)
    : stats_(stats), on_(!c.times_parts()), t_contact0_(stats.t_contact) {
  if (on_) t0_ = Clock::now();
}
PhaseTimer::~PhaseTimer() {
  if (on_) stats_.t_solve += since(t0_) - (stats_.t_contact - t_contact0_);
}

void correct_positions(Corrector& c, const Model& model, const StepLoads& loads, double span, State& state,
                       const ImpulseOptions& opt, StepStats& stats, const std::string& who, ContactSet* contacts,
                       WarmPhase warm) {
  PhaseTimer timer(c, stats);
  c.begin_position_phase();
  c.begin_warm(opt.warm_start ? warm : WarmPhase::None, span, state);
  bool with_contacts = contacts && contacts->size() > 0;
  const bool warm_contacts = contacts && opt.warm_start && warm != WarmPhase::None;
  if (with_contacts) contacts->begin_position_phase();
  if (with_contacts && warm_contacts) {
    const auto t0 = Clock::now();
    contacts->warm(ContactSet::Phase::Position, span, state);
    stats.t_contact += since(t0);
  }
  auto sweep = [&] {
    double err = 0;
    for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_position(g, model, loads, span, state, opt.tol_p, stats));
    if (with_contacts) {
      const auto t0 = Clock::now();
      err = std::max(err, contacts->position_sweep(model, loads, span, state));
      stats.t_contact += since(t0);
    }
    return err;
  };
  iterate_phase(sweep, with_contacts, opt.tol_p, opt, stats, stats.pos_iterations, stats.pos_residual, "position", who);
  // The sweeps stop on errors each measured before its correction of that sweep: an uncoupled
  // contact's impulse of the last sweep moves its body, and the joints at it, after they were
  // measured (by up to that impulse's correction, itself within tol_p). The joints alone then
  // finish the phase, to the tolerance. (A coupled contact's impulse comes with the joint impulses
  // that keep the joints' rows; the anytime budget ends the phase where it is.) Joint limits' rows
  // take part, each sweep's first: in the last sweep they are corrected, and the joints, measured
  // after them within tol_p, apply nothing that would move them.
  if (with_contacts && !contacts->coupled() && opt.budget == 0) {
    with_contacts = false;
    if (contacts->limit_rows() > 0) {
      auto limits_then_joints = [&] {
        const auto t0 = Clock::now();
        double err = contacts->position_sweep(model, loads, span, state, true);
        stats.t_contact += since(t0);
        for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_position(g, model, loads, span, state, opt.tol_p, stats));
        return err;
      };
      iterate(limits_then_joints, opt.tol_p, opt.max_iter, stats.pos_iterations, stats.pos_residual, "position", who);
    } else {
      iterate(sweep, opt.tol_p, opt.max_iter, stats.pos_iterations, stats.pos_residual, "position", who);
    }
  }
  c.end_warm();
  if (warm_contacts) contacts->keep(ContactSet::Phase::Position, span);
}

void correct_velocities(Corrector& c, State& state, const ImpulseOptions& opt, StepStats& stats, const std::string& who,
                        ContactSet* contacts, WarmPhase warm, double span) {
  PhaseTimer timer(c, stats);
  c.begin_warm(opt.warm_start ? warm : WarmPhase::None, span, state);
  bool with_contacts = contacts && contacts->size() > 0;
  const bool warm_contacts = contacts && opt.warm_start && warm != WarmPhase::None;
  if (with_contacts && warm_contacts) {
    const auto t0 = Clock::now();
    contacts->warm(ContactSet::Phase::Velocity, span, state);
    stats.t_contact += since(t0);
  }
  // Contacts coupled to every row of the corrector through a factorization of A leave the joints'
  // velocity errors as they find them (Corrector::contacts_keep_joints): once a sweep has measured
  // the joints within tol_v, the sweeps after it visit the contacts alone, holding their joint
  // impulses back (ContactSet::velocity_sweep), and the joints are measured again, with those
  // impulses applied, in the sweep whose contacts are within tol_v. A joint found beyond it there
  // is corrected, and the sweeps measure the joints every time again until they hold.
  const bool keep = with_contacts && contacts->coupled() && c.contacts_keep_joints();
  bool joints_hold = false;
  auto joints = [&] {
    double err = 0;
    for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_velocity(g, state, opt.tol_v, stats));
    joints_hold = keep && err <= opt.tol_v;
    return err;
  };
  auto sweep = [&] {
    if (!with_contacts) {
      if (contacts) contacts->apply_held(state);  // the contacts' sweeps ended (contact_iterations)
      return joints();
    }
    const bool measured = !joints_hold;
    double err = measured ? joints() : 0.0;
    const auto t0 = Clock::now();
    const double contact_err = contacts->velocity_sweep(state, opt.tol_v, joints_hold);
    if (!measured && contact_err <= opt.tol_v) contacts->apply_held(state);
    stats.t_contact += since(t0);
    err = std::max(err, contact_err);
    if (!measured && contact_err <= opt.tol_v) err = std::max(err, joints());
    return err;
  };
  iterate_phase(sweep, with_contacts, opt.tol_v, opt, stats, stats.vel_iterations, stats.vel_residual, "velocity", who,
                opt.velocity_floor);
  if (contacts) contacts->apply_held(state);  // a phase ended by its budget
  c.end_warm();
  if (warm_contacts) contacts->keep(ContactSet::Phase::Velocity, span);
}

void resolve_collisions(Corrector& c, ContactSet& contacts, State& state, const ImpulseOptions& opt, StepStats& stats,
                        const std::string& who) {
  if (!contacts.begin_collision_phase(state, opt.tol_v)) return;
  PhaseTimer timer(c, stats);
  bool limited = false;
  iterate(
      [&] {
        const auto t0 = Clock::now();
        double err = contacts.collision_sweep(state, opt.tol_v);
        stats.t_contact += since(t0);
        for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_velocity(g, state, opt.tol_v, stats));
        return err;
      },
      opt.tol_v, opt.budget > 0 ? opt.budget : opt.max_iter, stats.vel_iterations, stats.vel_residual, "collision", who,
      opt.budget > 0 ? &limited : nullptr);
  stats.budget_stops += limited;
}

void project_positions(Corrector& c, const Model& model, double span, State& state, const ImpulseOptions& opt,
                       StepStats& stats, const std::string& who) {
  // save the velocities and start from rest, without gravity or applied torques
  State moving = state;
  for (auto& b : state.bodies) b.v.setZero(), b.w.setZero();
  StepLoads none;
  none.force.assign(model.bodies.size(), Vec3::Zero());
  none.torque.assign(model.bodies.size(), Vec3::Zero());
  correct_positions(c, model, none, span, state, opt, stats, who);
  State moved;
  free_motion(model, none, span, state, moved);
  // the new poses with the saved velocities
  for (size_t k = 0; k < state.bodies.size(); ++k) {
    state.bodies[k].x = moved.bodies[k].x;
    state.bodies[k].q = moved.bodies[k].q;
    state.bodies[k].v = moving.bodies[k].v;
    state.bodies[k].w = moving.bodies[k].w;
  }
}

void ImpulseMethod::do_step(const Model& model, State& state, double h, StepStats& stats) {
  if (opt_.adaptive)
    step_adaptive(model, state, h, stats);
  else
    step_once(model, state, h, stats);
}

// The driver's step h as internal steps of h / 2^halvings_, on a grid of h / 2^kMaxHalvings
// ("ticks"), so that the internal steps end exactly at t + h. A failed internal step (a
// SimulationError: corrections that do not converge) is restored and taken again at half the size;
// after kGrowAfter good ones the size doubles, where the grid of the doubled size allows.
void ImpulseMethod::step_adaptive(const Model& model, State& state, double h, StepStats& stats) {
  constexpr int kMax = ImpulseOptions::kMaxHalvings;
  constexpr long kTicks = 1L << kMax;
  const double t0 = state.t;
  long done = 0;
  while (done < kTicks) {
    const long span = 1L << (kMax - halvings_);
    const double sub = h * static_cast<double>(span) / static_cast<double>(kTicks);
    saved_ = state;
    state.t = t0 + h * static_cast<double>(done) / static_cast<double>(kTicks);
    try {
      step_once(model, state, sub, stats);
    } catch (const SimulationError& e) {
      state = saved_;
      ++stats.rejected_steps;
      good_steps_ = 0;
      if (halvings_ == kMax)
        throw SimulationError(fmt::format("{} (adaptive: still at h / 2^{} = {:.3g} s)", e.what(), kMax, sub));
      ++halvings_;
      corrector_->update(model, state, stats);  // the Jacobians of the restored state
      continue;
    }
    done += span;
    ++stats.internal_steps;
    stats.h_min = stats.h_min > 0 ? std::min(stats.h_min, sub) : sub;
    stats.h_max = std::max(stats.h_max, sub);
    if (halvings_ > 0 && ++good_steps_ >= ImpulseOptions::kGrowAfter && done % (2 * span) == 0) {
      --halvings_;
      good_steps_ = 0;
    }
  }
}

void ImpulseMethod::step_once(const Model& model, State& state, double h, StepStats& stats) {
  corrector_->begin_step(model, state, h);  // the motors' targets at t + h
  if (broken_) {
    // repair: a projection of at most max_iter sweeps (or the budget's); while the joints are
    // still open, the step is the free motion and a velocity correction of as many sweeps, so that
    // no gap becomes velocity (the look-ahead correction would close it over h)
    ImpulseOptions repair = opt_;
    repair.budget = opt_.budget > 0 ? opt_.budget : opt_.max_iter;
    project_positions(*corrector_, model, h, state, repair, stats, info_.name);
    corrector_->update(model, state, stats);
    const JointError e = max_joint_error(model, state);
    broken_ = !(std::max(e.pos, e.rot) <= std::max(opt_.tol_p, kRepairedTolerance));
    if (broken_) {
      step_loads(model, state.t, h, loads_);
      loads_at(model, state, loads_, loads_);
      free_motion(model, loads_, h, state, next_);
      std::swap(state.bodies, next_.bodies);
      corrector_->update(model, state, stats);
      correct_velocities(*corrector_, state, repair, stats, info_.name);
      return;
    }
  }
  step_loads(model, state.t, h, loads_);
  // the springs' forces, held over the step: at its start (explicit) or linearly implicit
  if (opt_.implicit_springs) {
    springs_.loads(model, state, h, loads_, loads_, corrector_->response());
    add_joint_damper_loads(model, state, loads_.force, loads_.torque);  // the joint dampers: explicit
    if (!model.actuators.empty()) add_actuator_loads(model, state, loads_.ctrl, loads_.force, loads_.torque);  // so are the actuators
  } else {
    loads_at(model, state, loads_, loads_);
  }
  // 0. contacts: found on the preview of the step, the free motion after the joints' position
  // correction (tomcin2014 s.7: joints are fulfilled before each collision detection, so that a
  // body resting on a jointed one is seen to touch it), and (contact_detection=start) the pairs
  // touching at the step's start from there; collisions resolved on the velocities now
  ContactSet* contacts = nullptr;
  if (contacts_.enabled()) {
    const auto t0 = Clock::now();
    probe_ = state;
    if (!model.joints.empty())
      correct_positions(*corrector_, model, loads_, h, probe_, opt_, stats, info_.name, nullptr, WarmPhase::Preview);
    free_motion(model, loads_, h, probe_, preview_);
    stats.t_contact += since(t0);
    contacts_.detect(model, preview_, state, stats, opt_.couple_contacts ? corrector_->coupling() : nullptr);
    contacts = &contacts_;
    resolve_collisions(*corrector_, contacts_, state, opt_, stats, info_.name);
  }
  // 1. position correction on the look-ahead prediction over the whole step
  correct_positions(*corrector_, model, loads_, h, state, opt_, stats, info_.name, contacts, WarmPhase::Position);
  // 2. free motion with the corrected velocities: the last position sweep's prediction when it
  // applied nothing after predicting (and no contact sweep followed it)
  auto t0 = Clock::now();
  const bool contact_sweeps = contacts && contacts->size() > 0;
  if (contact_sweeps || !corrector_->take_prediction(state, next_)) free_motion(model, loads_, h, state, next_);
  std::swap(state.bodies, next_.bodies);
  stats.t_integration += since(t0);
  // Jacobians and factorisation at the new state, for 3. and the next step's 1.
  corrector_->update(model, state, stats);
  // 3. velocity correction (with the contacts that still touch)
  if (contacts) {
    // the contacts' lever arms, effective masses and coupling at this state, through the new
    // factorization (the coupling of the step's start would apply its joint impulses with the
    // new Jacobians: docs/contacts.md, "The Strandbeest landing")
    contacts_.refresh(model, state);
    contacts_.begin_velocity_phase(state, std::max(10 * opt_.tol_p, kContactSlack));
  }
  correct_velocities(*corrector_, state, opt_, stats, info_.name, contacts, WarmPhase::Velocity, h);
}

}  // namespace mb
