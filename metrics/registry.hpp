// The metric registry: every metric's name, unit, definition, when it applies and which way is
// better, in one table (metrics/registry.cpp). Every stage that names a metric uses the constants
// below or asks the registry (tests/architecture_test.cpp counts metric-name literals outside
// metrics/ and tests/); `mbbench list metrics` and the generated docs print the table.
#pragma once
#include <string>
#include <vector>

namespace mb {

// The names, as records, experiment files and reports spell them.
namespace metric {
inline constexpr char ED[] = "ED";
inline constexpr char EID[] = "EID";
inline constexpr char LD[] = "LD";
inline constexpr char LD_periods[] = "LD_periods";                    // recorded with LD
inline constexpr char LD_steps_per_period[] = "LD_steps_per_period";  // recorded with LD
inline constexpr char CD_pos_mean[] = "CD_pos_mean";
inline constexpr char CD_pos_max[] = "CD_pos_max";
inline constexpr char CD_vel_mean[] = "CD_vel_mean";
inline constexpr char CD_vel_max[] = "CD_vel_max";
inline constexpr char PEN_max[] = "PEN_max";
inline constexpr char PEN_mean[] = "PEN_mean";
inline constexpr char E_gain_max[] = "E_gain_max";
inline constexpr char E_loss_max[] = "E_loss_max";
inline constexpr char stick_slip_changes[] = "stick_slip_changes";
inline constexpr char exact_pos_error_max[] = "exact_pos_error_max";
inline constexpr char exact_vel_error_max[] = "exact_vel_error_max";
inline constexpr char fail[] = "fail";
inline constexpr char ref_error_max[] = "ref_error_max";
inline constexpr char scd[] = "scd";
inline constexpr char mescd[] = "mescd";
inline constexpr char self_error[] = "self_error";
inline constexpr char self_mescd[] = "self_mescd";
inline constexpr char agree_err[] = "agree_err";
inline constexpr char repair_steps[] = "repair_steps";
inline constexpr char repair_time[] = "repair_time";  // recorded with repair_steps
inline constexpr char walk_distance[] = "walk_distance";
inline constexpr char slip[] = "slip";
inline constexpr char eig_err[] = "eig_err";
// recorded with eig_err: the identified eigenvalues, sorted by real part (models/modes.hpp)
inline constexpr char eig_re[4][10] = {"eig_re_1", "eig_re_2", "eig_re_3", "eig_re_4"};
inline constexpr char eig_im[4][10] = {"eig_im_1", "eig_im_2", "eig_im_3", "eig_im_4"};
inline constexpr char eig_v[] = "eig_v";  // the model's speed (m/s), with eig_err
}  // namespace metric

// What a case must have for a metric to apply (MetricInfo::needs); a case without it has no
// value, or a note saying why.
enum MetricNeeds : unsigned {
  kNeedsPeriod = 1u << 0,       // a model with a known period, and h = T/k
  kNeedsReference = 1u << 1,    // samples, and a reference trajectory (the reference method)
  kNeedsEndSample = 1u << 2,    // a sample at the end of the run (an experiment naming it takes one)
  kNeedsFineRun = 1u << 3,      // the same method again at h / kSelfRefinement
  kNeedsContacts = 1u << 4,     // a model with collision shapes
  kNeedsExactMotion = 1u << 5,  // a model with a closed-form motion (ModelInfo::exact)
  kNeedsBrokenStart = 1u << 6,  // joints broken at the start (kBrokenJointTolerance, models/kinematics.hpp)
  kNeedsWalking = 1u << 7,      // motors and collision shapes (a walking machine), and a tracked body
  kNeedsModes = 1u << 8,        // known linear modes (ModelInfo::modes: the benchmark bicycle)
  kNeedsOtherRun = 1u << 9,     // another method's run of the model at the same h (RunConfig::agree_with)
};
std::string needs_text(unsigned needs);  // "a known period, a reference"; "" for none

// Which way a value is better.
enum class Better { Lower, Higher, Neither };

// Names, one-line definitions and units, for `mbbench list` and every printed value.
struct MetricInfo {
  std::string name, definition;
  bool per_case = true;  // a number in every record's "metrics" (what experiments may name and fit)
  std::string unit;      // SI ("J", "m", "m/s"); empty for counts and digits
  unsigned needs = 0;    // MetricNeeds bits
  Better better = Better::Lower;
  std::vector<std::string> also;  // values the record holds beside it (LD: its periods and steps)
  bool lower_is_better() const { return better == Better::Lower; }
};
const std::vector<MetricInfo>& metric_catalog();
// The entry of a metric, or of a value recorded beside one (LD_periods: LD's); null for another name.
const MetricInfo* metric_info(const std::string& name);
// The unit of a metric of the catalog ("" for a dimensionless one or a name not in it).
const std::string& metric_unit(const std::string& name);
// Whether the metric (or the value beside one) of this name needs any of `needs`.
bool metric_needs(const std::string& name, unsigned needs);
// The metrics of schmitt2005's tables: what a report shows for records without an experiment.
const std::vector<std::string>& paper_metrics();

}  // namespace mb
