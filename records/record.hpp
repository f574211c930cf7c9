// Typed records (docs/architecture.md). A CaseRecord is the result of one case (model x method x
// options x h): its identity, the step plan, the status (a failure is a status inside the same
// type, with its reason and time), the metrics, the step statistics, the samples and the error
// against the reference, and the provenance (where, when, how long it took).
//
// Every stage after the driver (sweep, merge, fits, tables, report, gate) works on these types.
// JSON exists only at the file boundary: records/record_io.cpp is the one file that spells the
// JSON keys and the CSV columns, and the one place a record file is parsed (an error there names
// the file, the line and the field). The keys of the plain fields are in each struct's field list
// (records/fields.hpp), next to the members they name.
#pragma once
#include <algorithm>
#include <array>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "records/fields.hpp"
#include "records/stats.hpp"

namespace mb {

constexpr int kRecordSchemaVersion = 3;

enum class Status { Ok, Failed, Unsupported };
const char* to_string(Status s);

// Where and with what a record was made. Everything outside the provenance is
// bit-identical for the same inputs and build; the provenance is not (date, wall times).
struct Provenance {
  std::string mbbench, git_commit, compiler, flags, build_type, cpu, date;
  // the machine beside the CPU's model name: per-core cache sizes ("L1d 32K L1i 32K L2 1024K
  // L3 32768K", from /sys/devices/system/cpu/cpu0/cache) and its count of cores
  std::string caches;
  int cores = 0;
  std::map<std::string, std::string> libraries;  // name -> version
  std::string experiment_hash;  // a sweep's: experiment_hash() of its experiment file ("" otherwise)
  // a plugin's method (methods/plugin.hpp): the shared library's path and the plugin's version
  std::string plugin, plugin_version;

  // (libraries: a JSON object of its own, in records/record_io.cpp)
  template <class V>
  static void fields(V&& v) {
    using S = Provenance;
    v(field("mbbench", &S::mbbench));
    v(field("git_commit", &S::git_commit));
    v(field("compiler", &S::compiler));
    v(field("flags", &S::flags));
    v(field("build_type", &S::build_type));
    v(field("cpu", &S::cpu));
    v(field("caches", &S::caches, Presence::IfSet));
    v(field("cores", &S::cores, Presence::IfSet));
    v(field("date", &S::date));
    v(field("experiment_hash", &S::experiment_hash, Presence::IfSet));  // a sweep's records only
    v(field("plugin", &S::plugin, Presence::IfSet));
    v(field("plugin_version", &S::plugin_version, Presence::IfSet, "plugin"));
  }
};
Provenance current_provenance();  // of this build and machine, now
// The machine a time was measured on, as one string: the CPU's model name, its cache sizes and
// its core count ("AMD EPYC | L1d 32K L1i 32K L2 1024K L3 32768K | 2 cores"). Timings compare
// only between equal keys (the gate's baselines are keyed by it).
std::string machine_key(const Provenance& p);

// The experiment a case belongs to (absent for a single `mbbench run`).
struct ExperimentRef {
  std::string name, file, reproduces, paper;
  std::vector<std::string> metrics;  // the metrics the experiment tabulates
  double fit_h1 = 0.005, fit_h2 = 0.04;
  std::string fit_h = "simulated";   // analysis/fit.hpp FitH
  std::string case_id;
  long case_index = 0;
  bool readings_primary = true;      // the experiment's first (main) reading
  std::string x_option;              // the method option the figures also draw over (Experiment::x_option)

  template <class V>
  static void fields(V&& v) {
    using S = ExperimentRef;
    v(field("name", &S::name));
    v(field("file", &S::file));
    v(field("reproduces", &S::reproduces));
    v(field("paper", &S::paper));
    v(field("metrics", &S::metrics));
    v(field("fit.h1", &S::fit_h1));
    v(field("fit.h2", &S::fit_h2));
    v(field("fit.h", &S::fit_h));
    v(field("case_id", &S::case_id));
    v(field("case_index", &S::case_index));
    v(field("readings_primary", &S::readings_primary));
    v(field("x_option", &S::x_option, Presence::IfSet));
  }
};

struct ModelRef {
  std::string spec;  // as given (catalog spec or scene path)
  std::string name, source;
  long bodies = 0, joints = 0;
  std::optional<double> period;

  template <class V>
  static void fields(V&& v) {
    using S = ModelRef;
    v(field("spec", &S::spec));
    v(field("name", &S::name));
    v(field("source", &S::source));
    v(field("bodies", &S::bodies));
    v(field("joints", &S::joints));
    v(field("period", &S::period, Presence::IfSet));
  }
};

struct MethodRef {
  std::string spec, name;
  double order = 0;  // the method's primary declared order (0: none)

  template <class V>
  static void fields(V&& v) {
    v(field("spec", &MethodRef::spec));
    v(field("name", &MethodRef::name));
    v(field("order", &MethodRef::order));
  }
};

// The readings of schmitt2005 that a case ran with (runners' RunConfig).
struct ReadingsRef {
  std::string steps = "floor", ld_periods = "whole";
  bool round_to_period = true;
  double fail_threshold = 1.0;

  template <class V>
  static void fields(V&& v) {
    using S = ReadingsRef;
    v(field("steps", &S::steps));
    v(field("ld_periods", &S::ld_periods));
    v(field("round_to_period", &S::round_to_period));
    v(field("fail_threshold", &S::fail_threshold));
  }
};

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

  // The fields of the list; the others (schema_version, status, failure, metrics, samples,
  // ref_error, step_series, provenance with its timing) have a JSON shape of their own
  // (records/record_io.cpp).
  template <class V>
  static void fields(V&& v) {
    using S = CaseRecord;
    v(field("experiment", &S::experiment, Presence::IfSet));
    v(field("model", &S::model));
    v(field("method", &S::method));
    v(field("h_requested", &S::h_requested));
    v(field("h", &S::h));
    v(field("duration", &S::duration));
    v(field("steps", &S::steps));
    v(field("steps_done", &S::steps_done));
    v(field("readings", &S::readings));
    v(field("stats", &S::stats));
  }
};

// --- the CI gate's result (gate/gate.hpp): a quick experiment, and what a baseline file holds ---
struct GateCase {
  std::string method, model;
  double h = 0;            // requested
  double h_simulated = 0;  // used (T/k for models with a period)
  Status status = Status::Ok;
  std::string failure;
  Metrics metrics;         // the gated metrics the case has

  // (status, failure and metrics: records/record_io.cpp)
  template <class V>
  static void fields(V&& v) {
    v(field("method", &GateCase::method));
    v(field("model", &GateCase::model));
    v(field("h", &GateCase::h));
    v(field("h_simulated", &GateCase::h_simulated));
  }
};
struct GateTiming {
  std::string method;
  int joints = 0;
  long reps = 0;
  Status status = Status::Ok;
  std::string failure;
  double median_s = 0, min_s = 0, max_s = 0;  // CPU time per step (reps > 0)
  std::optional<double> ratio, ratio_min, ratio_max;  // to the timing reference, median over the repetitions
  std::vector<double> ratios;                         // the ratio of each repetition (the U test's sample)
  // under cachegrind (gate/gate.hpp): instructions and last-level cache misses per step
  std::optional<double> instructions, ll_misses;

  // (joints, status, failure and the times of a timed method: records/record_io.cpp)
  template <class V>
  static void fields(V&& v) {
    using S = GateTiming;
    using P = Presence;
    v(field("method", &S::method));
    v(field("reps", &S::reps));
    v(field("ratio", &S::ratio, P::IfSet));
    v(field("ratio_min", &S::ratio_min, P::IfSet, "ratio"));
    v(field("ratio_max", &S::ratio_max, P::IfSet, "ratio"));
    v(field("ratios", &S::ratios, P::IfSet));
    v(field("instructions", &S::instructions, P::IfSet));
    v(field("ll_misses", &S::ll_misses, P::IfSet, "instructions"));
  }
};
struct GateUnsupported {
  std::string method, model, reason;

  template <class V>
  static void fields(V&& v) {
    v(field("method", &GateUnsupported::method));
    v(field("model", &GateUnsupported::model));
    v(field("reason", &GateUnsupported::reason));
  }
};
// One machine's time values in a baseline file: the timings of the gate's time signal as measured
// on the machine `key` (machine_key()) by the build of `commit`.
struct GateMachine {
  std::string key, commit, date;
  std::vector<GateTiming> timing;  // time values only (ratios and CPU times per step)
};
struct GateRecord {
  int schema_version = 4;
  std::vector<std::string> models;
  std::vector<double> h;
  double duration = 0;
  std::vector<int> timing_joints;
  int timing_reps = 0;
  double timing_rep_seconds = 0;
  int timing_window_steps = 0;
  std::string timing_reference;
  std::vector<double> instruction_steps;  // the two step counts run under cachegrind (empty: not run)
  std::string instructions_note;          // why instruction counts were not measured ("" : measured)
  std::vector<std::string> metrics;
  std::vector<std::string> methods;
  std::vector<GateCase> cases;
  std::vector<GateUnsupported> unsupported;
  std::vector<GateTiming> timing;
  // a baseline file's time values, one entry per machine (gate/gate.hpp); its `timing` then holds
  // the instruction counts alone. Empty in a gate run's own result, whose `timing` holds both.
  std::vector<GateMachine> machines;
  Provenance provenance;
  double accuracy_seconds = 0, timing_seconds = 0;

  // (schema_version, config.timing_joints, cases, unsupported, timing, provenance and the gate's
  // own times:
  // records/record_io.cpp)
  template <class V>
  static void fields(V&& v) {
    using S = GateRecord;
    v(field("config.models", &S::models));
    v(field("config.h", &S::h));
    v(field("config.duration", &S::duration));
    v(field("config.timing_reps", &S::timing_reps));
    v(field("config.timing_rep_seconds", &S::timing_rep_seconds));
    v(field("config.timing_window_steps", &S::timing_window_steps));
    v(field("config.timing_reference", &S::timing_reference));
    v(field("config.instruction_steps", &S::instruction_steps, Presence::IfSet));
    v(field("instructions_note", &S::instructions_note, Presence::IfSet));
    v(field("config.metrics", &S::metrics));
    v(field("methods", &S::methods));
  }
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
