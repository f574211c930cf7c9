// What one step of a method did (StepStats), its summary over the steps of a case (StatsSummary,
// the record's "stats") and the case's split wall time (CaseTiming, the record's
// "provenance.timing"). The summaries' field lists name, for each field, its JSON key, the step's
// member it summarises and how two values combine: the driver's accumulation, merge(), the JSON
// reading and writing and the benchmark counters all follow them. A new step statistic is one
// member of StepStats (which the method sets), one member of StatsSummary and one line of
// StatsSummary::fields (docs/contributing.md, "Adding a statistic").
#pragma once
#include <algorithm>
#include <type_traits>

#include "records/counters.hpp"
#include "records/fields.hpp"

namespace mb {

// What one step did; summed by the driver. Timings are in seconds.
struct StepStats {
  long pos_iterations = 0;   // position (joint) correction iterations
  long vel_iterations = 0;   // velocity correction iterations
  double pos_residual = 0;   // final max joint position error of the correction, m
  double vel_residual = 0;   // final max joint velocity error of the correction, m/s
  long internal_steps = 0;   // accepted internal steps of an adaptive integrator
  long rejected_steps = 0;   // rejected internal steps of an adaptive integrator
  double t_assembly = 0, t_factorization = 0, t_solve = 0, t_integration = 0;
  double t_analysis = 0;     // symbolic analysis of a sparse factorization (once per structure)
  // the step's linear system, for methods that factor one (0 where not known): nonzeros of the
  // lower triangle of A (diagonal included) and of its factor L, CHOLMOD's reciprocal condition
  // estimate of the factored matrix, and the spectral condition lambda_max / lambda_min of A over
  // its nonzero eigenvalues (computed only when a method is asked to)
  long nnz_a = 0, nnz_l = 0;
  double rcond = 0, condition = 0;
  // contacts (docs/contacts.md): how many were found, and the time of their detection and impulses
  long contacts = 0;
  double t_contact = 0;
  // anytime (an impulse method's `budget`): correction phases ended by the budget, with their error
  long budget_stops = 0;
  // the velocity floor (ImpulseOptions::velocity_floor): velocity phases ended above tol_v at the
  // floor of redundant rows, their error kept
  long floor_stops = 0;
  // contacts (an impulse method's `contact_iterations`): correction phases whose contacts stopped
  // sweeping at their limit, the joints then corrected alone
  long contact_stops = 0;
  // adaptive step (an impulse method's `adaptive`): the smallest and largest internal step taken, s
  double h_min = 0, h_max = 0;
};

// How a summary combines a further value (of a step, or of a later run of steps).
enum class Merge {
  Sum,
  Max,
  MinPositive,  // the smallest positive value (0: none seen)
  Last,
};
template <class T>
void merge_value(T& into, T more, Merge rule) {
  switch (rule) {
    case Merge::Sum: into += more; break;
    case Merge::Max: into = std::max(into, more); break;
    case Merge::MinPositive:
      if (more > 0) into = into > 0 ? std::min(into, more) : more;
      break;
    case Merge::Last: into = more; break;
  }
}

// A summary field: a Field with the step's member it summarises and its merge rule.
template <class S, class T, class U>
struct SummaryField : Field<S, T> {
  U StepStats::*step = nullptr;  // none: not fed by the steps
  Merge merge = Merge::Sum;
  const char* counter = nullptr;  // the benchmark counter (records/counters.hpp) that shows it, if any
};
template <class S, class T, class U>
constexpr SummaryField<S, T, U> summary_field(const char* key, T S::*member, U StepStats::*step, Merge merge,
                                              Presence presence = Presence::Required, const char* with = nullptr,
                                              const char* counter = nullptr) {
  return {{key, member, presence, with}, step, merge, counter};
}

// Sums and extremes over the steps of a case, and the last residuals.
struct StatsSummary {
  long pos_iterations = 0, vel_iterations = 0;
  double pos_residual_last = 0, vel_residual_last = 0;
  long internal_steps = 0, rejected_steps = 0;
  // per step: the most position-correction iterations; of the step's linear system (0: none):
  // the most nonzeros of A's lower triangle and of its factor L, the smallest reciprocal
  // condition estimate, the largest spectral condition lambda_max / lambda_min
  long pos_iterations_max = 0, nnz_a_max = 0, nnz_l_max = 0;
  double rcond_min = 0, condition_max = 0;
  long contacts_max = 0;  // the most contacts found in one step
  long budget_stops = 0;   // correction phases ended by an anytime budget (their residual kept)
  long floor_stops = 0;    // velocity phases ended at the floor of redundant rows (their residual kept)
  long contact_stops = 0;  // correction phases whose contacts stopped at their sweep limit
  double h_min = 0, h_max = 0;  // the smallest and largest internal step of an adaptive step, s

  // The linear-system statistics are written only where a method reports them.
  template <class V>
  static void fields(V&& v) {
    using S = StatsSummary;
    using P = Presence;
    using M = Merge;
    v(summary_field("pos_iterations", &S::pos_iterations, &StepStats::pos_iterations, M::Sum));
    v(summary_field("vel_iterations", &S::vel_iterations, &StepStats::vel_iterations, M::Sum));
    v(summary_field("pos_residual_last", &S::pos_residual_last, &StepStats::pos_residual, M::Last));
    v(summary_field("vel_residual_last", &S::vel_residual_last, &StepStats::vel_residual, M::Last));
    v(summary_field("internal_steps", &S::internal_steps, &StepStats::internal_steps, M::Sum));
    v(summary_field("rejected_steps", &S::rejected_steps, &StepStats::rejected_steps, M::Sum));
    v(summary_field("pos_iterations_max", &S::pos_iterations_max, &StepStats::pos_iterations, M::Max, P::IfSet));
    v(summary_field("nnz_a_max", &S::nnz_a_max, &StepStats::nnz_a, M::Max, P::IfSet, nullptr, counter::nnz_a));
    v(summary_field("nnz_l_max", &S::nnz_l_max, &StepStats::nnz_l, M::Max, P::IfSet, "nnz_a_max", counter::nnz_l));
    v(summary_field("rcond_min", &S::rcond_min, &StepStats::rcond, M::MinPositive, P::IfSet, "nnz_a_max"));
    v(summary_field("condition_max", &S::condition_max, &StepStats::condition, M::Max, P::IfSet));
    v(summary_field("contacts_max", &S::contacts_max, &StepStats::contacts, M::Max, P::IfSet));
    v(summary_field("budget_stops", &S::budget_stops, &StepStats::budget_stops, M::Sum, P::IfSet));
    v(summary_field("floor_stops", &S::floor_stops, &StepStats::floor_stops, M::Sum, P::IfSet));
    v(summary_field("contact_stops", &S::contact_stops, &StepStats::contact_stops, M::Sum, P::IfSet));
    v(summary_field("h_min", &S::h_min, &StepStats::h_min, M::MinPositive, P::IfSet));
    v(summary_field("h_max", &S::h_max, &StepStats::h_max, M::Max, P::IfSet, "h_min"));
  }
};

// Wall-clock time of the steps of a case, s (in the provenance: it depends on the machine's load).
struct CaseTiming {
  double step_seconds_total = 0, step_seconds_mean = 0;
  double realtime_factor = 0;  // simulated s per wall s of the steps: steps_done h / step_seconds_total (0: none timed)
  double cpu_seconds_total = 0;  // CPU time of the running thread over the whole loop (steps and metrics), s
  double assembly = 0, factorization = 0, solve = 0, integration = 0;
  double analysis = 0;  // symbolic analysis of a sparse factorization
  double contact = 0;   // contact detection and the contact impulses (docs/contacts.md)

  // The step times are the driver's own clock; the split is the methods' StepStats.
  template <class V>
  static void fields(V&& v) {
    using S = CaseTiming;
    using P = Presence;
    constexpr double StepStats::*none = nullptr;
    v(summary_field("step_seconds_total", &S::step_seconds_total, none, Merge::Sum));
    v(summary_field("step_seconds_mean", &S::step_seconds_mean, none, Merge::Last));
    v(summary_field("realtime_factor", &S::realtime_factor, none, Merge::Last, P::Optional));
    v(summary_field("cpu_seconds_total", &S::cpu_seconds_total, none, Merge::Sum, P::IfSet));
    v(summary_field("assembly", &S::assembly, &StepStats::t_assembly, Merge::Sum));
    v(summary_field("factorization", &S::factorization, &StepStats::t_factorization, Merge::Sum));
    v(summary_field("solve", &S::solve, &StepStats::t_solve, Merge::Sum));
    v(summary_field("integration", &S::integration, &StepStats::t_integration, Merge::Sum));
    v(summary_field("analysis", &S::analysis, &StepStats::t_analysis, Merge::Sum, P::Optional));
    v(summary_field("contact", &S::contact, &StepStats::t_contact, Merge::Sum, P::IfSet));
  }
};

// Adds one step to a summary (StatsSummary or CaseTiming): each field fed by the steps merges the
// step's value by its rule.
template <class S>
void add_step(S& into, const StepStats& one) {
  S::fields([&](const auto& f) {
    if (f.step) merge_value(into.*f.member, static_cast<std::remove_reference_t<decltype(into.*f.member)>>(one.*f.step), f.merge);
  });
}

// Sums and extremes of two runs of steps (`more` after `into`).
template <class S, std::enable_if_t<is_described_v<S>, int> = 0>
void merge(S& into, const S& more) {
  S::fields([&](const auto& f) { merge_value(into.*f.member, more.*f.member, f.merge); });
}

}  // namespace mb
