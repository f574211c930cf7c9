// The analysis stage (docs/architecture.md): records -> series of each metric over h -> fits
// (analysis/fit.hpp) -> the comparison with the published values, with verdicts computed here,
// once, as data. The report (report/) only formats what analyse() returns.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "analysis/fit.hpp"
#include "analysis/work_precision.hpp"
#include "analysis/whipple.hpp"
#include "records/record.hpp"

namespace mb {

// --- published values (results/paper/*.toml) ---
struct PaperRow {
  std::string method;
  double order = 0, factor = 0;
};
struct PaperTable {
  std::string model, paper_model, function, metric, source;
  std::vector<PaperRow> rows;
};
struct PaperFigure {
  std::string number, model, metric;  // model "*": every model
};
// A published time (ms) per step, or of one part of a step (quantity), at a tree size.
struct PaperTiming {
  std::string method, paper_method, quantity, source, quote;
  int joints = 0;
  double ms = 0;
};
// A published statement relative to real time or to another method (`than`).
// A published summary of a method's speed-up over a set of cases (bayer2009 Table 1).
struct PaperSpeedup {
  std::string method, label, source, quote;
  std::string experiment;  // the timing experiment (name) whose cases it summarises ("": any)
  double best = 0, worst = 0, average = 0;
};
// A published runtime in percent of the reference (bayer2009 Figures 2 and 3) of `method` over the
// cases with model variant `model` and method variant `variant` ("" : over all): what = average,
// best (the smallest percent) or worst (the largest).
struct PaperPercent {
  std::string figure, method, what, model, variant, source, quote, reading;
  std::string experiment;  // as PaperSpeedup's
  double percent = 0;
};
struct PaperClaim {
  std::string method, than, relation, source, quote;
  int joints = 0;        // 0: every size
  double factor = 0;     // the speed-up stated (0: none)
  std::string model = "";       // the model variant it is about ("": the experiment's only one)
  std::string experiment = "";  // the timing experiment (name) it is checked in ("": any)
};
// A published whole run (tomcin2014 s.7's table): the paper's method ran `duration` s at step h
// in tc_ms of computation, with its largest `metric` printed as a bound (error_max: "< 1e-6") or
// as a value (error). model, method: our case set beside it; experiment: the experiment that runs it.
struct PaperRun {
  std::string experiment, model, method, paper_method, metric, source;
  double h = 0, duration = 0, tc_ms = 0;
  std::optional<double> error_max, error;
};
// The run settings of a paper's tables ([settings]): its simulated time and its step-size range.
struct PaperSettings {
  double duration = 0;      // s
  double h_min = 0, h_max = 0;  // s
  std::string source;
};
struct Paper {
  std::string file, citation, title, fit;
  std::optional<PaperLinear> linear;
  std::optional<PaperSettings> settings;
  std::vector<PaperTable> tables;
  std::vector<PaperFigure> figures;
  std::vector<std::pair<std::string, std::string>> context;  // [context]: machine, h, integrator, ...
  std::vector<PaperTiming> timings;
  std::vector<PaperClaim> claims;
  std::vector<PaperSpeedup> speedups;
  std::vector<PaperPercent> percents;
  std::vector<PaperRun> runs;
};
Paper read_paper(const std::string& path);

// --- what the report shows, computed once ---
// One metric of one model x method (x readings) over the step sizes.
struct Series {
  std::string model, method, metric;
  std::string readings;      // "steps=floor ld=whole"
  bool primary = true;       // the experiment's first (main) reading
  FitH fit_h = FitH::Simulated;
  double fit_h1 = 0.005, fit_h2 = 0.04;
  std::vector<SeriesPoint> points;  // by h
  double duration = 0;       // s, the simulated time of its cases
  std::vector<std::string> failures;  // "h=0.08: reason at t = ..."
  SeriesFit fit;             // with the experiment's fit reading
  SeriesFit fit_other;       // with the other fit reading (nominal <-> simulated)
  std::vector<PowerFit> pair_fits;  // two-point fits at every (h_i, h_j) with h_j / h_i = h2 / h1
  std::vector<std::pair<double, double>> pairs;  // their (h_i, h_j), nominal
};

// Tolerances within which a row counts as reproduced: order 0.02 absolute (the paper prints two
// decimals; ours is rounded the same way before the comparison), factor 1 %.
constexpr double kOrderTolerance = 0.02;
constexpr double kFactorTolerance = 0.01;

// Ours beside a published row: the differences and the verdict.
enum class Verdict { Reproduced, Differs, NoPublishedValue, NoFit, NotRun };
const char* to_string(Verdict v);
struct Comparison {
  std::optional<PowerFit> ours;  // the two-point fit
  std::optional<PaperRow> paper;
  double order_diff = 0, factor_ratio = 0;  // ours - paper, ours / paper
  Verdict verdict = Verdict::NotRun;
  std::string note;                         // why there is no fit
};
Comparison compare_fit(const SeriesFit& fit, const std::optional<PaperRow>& paper);

// A row of a paper table: ours beside the published values.
struct ComparedRow {
  const PaperTable* table = nullptr;
  std::string method;
  std::optional<PaperRow> paper;
  const Series* ours = nullptr;  // the primary series; nullptr: not run
  Comparison comparison;         // of the primary series' fit
  // how our settings differ from the paper's (PaperSettings): "4 s, the paper's 60 s"; empty: same
  std::string settings_differ;
};

// For a published row, over every reading in the records and both fit readings: the closest
// (minimising |d order| / 0.02 + |log factor ratio| / 0.01) and how many reproduce it.
struct Finding {
  const ComparedRow* row = nullptr;
  std::string main_reading, closest_reading;
  PowerFit closest;
  double closest_ratio = 0;
  int tried = 0, reproduced = 0;
  double order_min = 0, order_max = 0, ratio_min = 0, ratio_max = 0;
};

// One fit reading of one series beside the published row of its table (the readings table).
struct ReadingRow {
  const PaperTable* table = nullptr;
  const Series* series = nullptr;
  FitH fit_h = FitH::Simulated;
  const SeriesFit* fit = nullptr;
  Comparison comparison;
};

// A metric the experiment asks for that does not apply to a model (no case has a value, and the
// records say why, e.g. LD on a model without a period): "not applicable", never "failed".
struct NotApplicable {
  std::string model, metric, reason;
  int cases = 0;
};

// failed: records whose run failed; unsupported: recorded refusals (the method does not take the
// model), a separate count: a refusal is no failure of the run
struct ProvenanceSummary {
  long records = 0, failed = 0, unsupported = 0;
  struct Exp {
    std::string name, file, reproduces;
  };
  std::vector<Exp> experiments;
  std::set<std::string> git_commits, build_types, compilers, flags, cpus, versions;
  std::string first_date, last_date;
};

// The cost of the contact phases of one case with contacts (docs/contacts.md): the wall time per
// step of the whole step and of the contact phases (detection and contact impulses,
// CaseTiming::contact), from a record whose steps found at least one contact.
struct ContactTiming {
  std::string model, method;
  double h = 0;
  long steps = 0, contacts_max = 0;
  double step_ms = 0, contact_ms = 0;  // per step
  double share = 0;                    // contact_ms / step_ms
  bool measured = true;                // false: the method does not time its contact phases apart (a peer engine's step)
};
std::vector<ContactTiming> contact_timing(const std::vector<CaseRecord>& records);

// One metric of one model x method over a method option (Experiment::x_option: budget), at one
// step size: the cases whose method spec sets the option, one line per spec without it.
struct OptionSeries {
  std::string model, method, option, metric;  // method: the spec without the option
  double h = 0;
  struct Point {
    double x = 0;             // the option's value
    bool failed = false;
    std::optional<double> w;  // the metric
  };
  std::vector<Point> points;  // by x
};

// A published whole run beside our record of the same model, method, h and duration: the step
// time (the driver's clock) and the CPU time over the paper's tc, our `metric` against its bound
// (Within: below error_max) or over its value, and the experiment's other metrics.
struct RunComparison {
  enum class Verdict { Within, Exceeds, NoBound, Failed, NotRun };
  PaperRun paper;
  Verdict verdict = Verdict::NotRun;
  std::string note;  // Failed: the reason
  std::optional<double> step_s, cpu_s;            // ours, s
  std::optional<double> step_ratio, cpu_ratio;    // ours / the paper's tc
  std::optional<double> error, error_ratio;       // our metric; / the paper's value (error)
  std::vector<std::pair<std::string, double>> metrics;  // the experiment's other metrics with a value
};
const char* to_string(RunComparison::Verdict v);
// The published runs of the experiments in `records` beside their cases (a run of another
// experiment is left out: a report of the drop has no ODE records).
std::vector<RunComparison> compare_runs(const std::vector<CaseRecord>& records, const std::vector<PaperRun>& runs,
                                        const std::vector<std::string>& metrics);

struct ReportData {
  std::vector<CaseRecord> records;      // deduplicated, in case order
  std::vector<Series> series;
  std::vector<OptionSeries> option_series;  // of the experiments with an x_option
  std::optional<Paper> paper;
  std::vector<ComparedRow> rows;        // every paper table row, and our extra methods
  std::vector<Finding> findings;        // every published row we ran
  std::vector<ReadingRow> readings;     // every reading of every series with a paper table
  std::vector<std::string> metrics;     // the metrics the experiments ask for
  std::vector<NotApplicable> not_applicable;  // model x metric pairs without a series
  ProvenanceSummary provenance;
  WorkPrecision work_precision;         // of the records whose experiment asks for mescd
  std::vector<ContactTiming> contacts;  // of the records that found contacts
  std::vector<RunComparison> runs;      // the paper's whole runs beside ours
  std::optional<ModesAnalysis> modes;   // records with eig_err beside a published linearization
  long failed = 0, unsupported = 0;     // records by status (a refusal is not a failure)
};

ReportData analyse(std::vector<CaseRecord> records, const std::optional<Paper>& paper);

}  // namespace mb
