// Typed records (docs/architecture.md). A CaseRecord is the result of one case (model x method x
// options x h): its identity, the step plan, the status (a failure is a status inside the same
// type, with its reason and time), the metrics, the step statistics, the samples and the error
// against the reference, and the provenance (where, when, how long it took).
//
// Every stage after the driver (sweep, merge, fits, tables, report, gate) works on these types.
// JSON exists only at the file boundary: records/record_io.cpp is the one file that spells the
// JSON keys and the CSV columns, and the one place a record file is parsed (an error there names
// the file, the line and the field).
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mb {

constexpr int kRecordSchemaVersion = 3;

enum class Status { Ok, Failed, Unsupported };
const char* to_string(Status s);

// Where and with what a record was made. Everything outside the provenance is
// bit-identical for the same inputs and build; the provenance is not (date, wall times).
struct Provenance {
  std::string mbbench, git_commit, compiler, flags, build_type, cpu, date;
  std::map<std::string, std::string> libraries;  // name -> version
  std::string experiment_hash;  // a sweep's: experiment_hash() of its experiment file ("" otherwise)
};
Provenance current_provenance();  // of this build and machine, now

// Wall-clock time of the steps of a case, s (in the provenance: it depends on the machine's load).
struct CaseTiming {
  double step_seconds_total = 0, step_seconds_mean = 0;
  double assembly = 0, factorization = 0, solve = 0, integration = 0;
  double analysis = 0;  // symbolic analysis of a sparse factorization
  double contact = 0;   // contact detection and the contact impulses (docs/contacts.md)
};

// The experiment a case belongs to (absent for a single `mbbench run`).
struct ExperimentRef {
  std::string name, file, reproduces, paper;
  std::vector<std::string> metrics;  // the metrics the experiment tabulates
  double fit_h1 = 0.005, fit_h2 = 0.04;
  std::string fit_h = "simulated";   // analysis/fit.hpp FitH
  std::string case_id;
  long case_index = 0;
  bool readings_primary = true;      // the experiment's first (main) reading
};

struct ModelRef {
  std::string spec;  // as given (catalog spec or scene path)
  std::string name, source;
  long bodies = 0, joints = 0;
  std::optional<double> period;
};

struct MethodRef {
  std::string spec, name;
  double order = 0;  // the method's primary declared order (0: none)
};

// The readings of schmitt2005 that a case ran with (runners' RunConfig).
struct ReadingsRef {
  std::string steps = "floor", ld_periods = "whole";
  bool round_to_period = true;
  double fail_threshold = 1.0;
};

// Sums over the steps of a case (methods/method.hpp StepStats), and the last residuals.
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
};
// Sums and extremes of two runs of steps (`more` after `into`).
inline void merge(StatsSummary& into, const StatsSummary& more) {
  into.pos_iterations += more.pos_iterations;
  into.vel_iterations += more.vel_iterations;
  into.internal_steps += more.internal_steps;
  into.rejected_steps += more.rejected_steps;
  into.pos_residual_last = more.pos_residual_last;
  into.vel_residual_last = more.vel_residual_last;
  into.pos_iterations_max = std::max(into.pos_iterations_max, more.pos_iterations_max);
  into.nnz_a_max = std::max(into.nnz_a_max, more.nnz_a_max);
  into.nnz_l_max = std::max(into.nnz_l_max, more.nnz_l_max);
  if (more.rcond_min > 0) into.rcond_min = into.rcond_min > 0 ? std::min(into.rcond_min, more.rcond_min) : more.rcond_min;
  into.condition_max = std::max(into.condition_max, more.condition_max);
  into.contacts_max = std::max(into.contacts_max, more.contacts_max);
}

// The state written at a sample time, one entry per dynamic body in model order.
struct Sample {
  double t = 0;
  std::vector<std::array<double, 3>> positions, velocities;
  std::vector<std::array<double, 4>> orientations;        // w, x, y, z; rigid bodies only
  std::vector<std::array<double, 3>> angular_velocities;  // rigid bodies only
  double energy = 0;
};

struct ReferenceError {
  struct Point {
    double t = 0, max_pos_error = 0;
  };
  std::vector<Point> per_sample;
  double max = 0;
  std::string note;  // non-empty: no reference ("no reference: ...") and no points
};

// A metric set in definition order: name -> value; a metric that does not apply carries a note
// instead of a value (e.g. LD when h is not T/k).
struct Metrics {
  std::vector<std::pair<std::string, double>> values;
  std::vector<std::pair<std::string, std::string>> notes;
  void set(const std::string& name, double v);
  void note(const std::string& name, const std::string& why);
  std::optional<double> get(const std::string& name) const;
  const std::string* note_of(const std::string& name) const;
};

// Per grid step 1..n of a run that asked for it (RunConfig::step_series; tomcin2014 Figure 3's
// iterations and condition over time): the step's end time, its correction iterations and its
// system's spectral condition lambda_max / lambda_min and CHOLMOD's rcond (0 where the method does
// not compute them).
struct StepSeries {
  std::vector<double> t;
  std::vector<long> pos_iterations, vel_iterations;
  std::vector<double> condition, rcond;
};

struct CaseRecord {
  int schema_version = kRecordSchemaVersion;
  std::optional<ExperimentRef> experiment;
  ModelRef model;
  MethodRef method;
  double h_requested = 0, h = 0, duration = 0;
  long steps = 0, steps_done = 0;
  Status status = Status::Ok;
  std::string reason;    // why it failed or is unsupported
  double fail_time = 0;  // s
  Metrics metrics;
  ReadingsRef readings;
  StatsSummary stats;
  std::vector<Sample> samples;
  std::optional<ReferenceError> ref_error;
  std::optional<StepSeries> step_series;
  Provenance provenance;
  CaseTiming timing;

  bool ok() const { return status == Status::Ok; }
};

// --- the CI gate's result (gate/gate.hpp): a quick experiment, and what a baseline file holds ---
struct GateCase {
  std::string method, model;
  double h = 0;            // requested
  double h_simulated = 0;  // used (T/k for models with a period)
  Status status = Status::Ok;
  std::string failure;
  Metrics metrics;         // the gated metrics the case has
};
struct GateTiming {
  std::string method;
  int joints = 0;
  long reps = 0;
  Status status = Status::Ok;
  std::string failure;
  double median_s = 0, min_s = 0, max_s = 0;  // wall time per step
  std::optional<double> ratio, ratio_min, ratio_max;  // to the timing reference, median over the repetitions
};
struct GateUnsupported {
  std::string method, model, reason;
};
struct GateRecord {
  int schema_version = 2;
  std::vector<std::string> models;
  std::vector<double> h;
  double duration = 0;
  std::vector<int> timing_joints;
  int timing_reps = 0;
  double timing_rep_seconds = 0;
  int timing_window_steps = 0;
  std::string timing_reference;
  std::vector<std::string> metrics;
  std::vector<std::string> methods;
  std::vector<GateCase> cases;
  std::vector<GateUnsupported> unsupported;
  std::vector<GateTiming> timing;
  Provenance provenance;
  double accuracy_seconds = 0, timing_seconds = 0;
};
std::string gate_record_to_json(const GateRecord& g);
GateRecord gate_record_from_json(const std::string& text, const std::string& file);

// --- file boundary (records/record_io.cpp) ---
// One record as one JSON line (no newline), and back. `file` and `line` go into the InputError a
// missing or mistyped field raises, with the field's path ("metrics.ED").
std::string record_to_json_line(const CaseRecord& r);
CaseRecord record_from_json_line(const std::string& text, const std::string& file, int line);
// The same record as indented JSON (mbbench run --out).
std::string record_to_json_pretty(const CaseRecord& r);

// The accuracy fields: everything but the provenance and timing, as one JSON line. Two runs of
// the same inputs on the same build give the same string.
std::string accuracy_fields(const CaseRecord& r);

// CSV: one header and one row per record (a column per metric given).
std::string records_csv_header(const std::vector<std::string>& metrics);
std::string record_csv_row(const CaseRecord& r, const std::vector<std::string>& metrics);

}  // namespace mb
