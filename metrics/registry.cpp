#include "metrics/registry.hpp"

namespace mb {

const std::vector<MetricInfo>& metric_catalog() {
  using namespace metric;
  constexpr Better lower = Better::Lower, higher = Better::Higher, neither = Better::Neither;
  static const std::vector<MetricInfo> m = {
      {ED, "energy drift (1/n) sum_{i=1..n} |E_i - E_0|, J", true, "J", 0, lower, {}},
      {EID, "energy increment drift (1/n) sum_{i=1..n} |E_i - E_{i-1}|, J", true, "J", 0, lower, {}},
      {LD, "location (oscillation-time) drift (1/m) sum_{i=1..m} |x(i T)|, m; needs h = T/k", true, "m", kNeedsPeriod, lower,
       {LD_periods, LD_steps_per_period}},
      {CD_pos_mean, "constraint position error: mean over steps of the max over joints, m", true, "m", 0, lower, {}},
      {CD_pos_max, "constraint position error: max over the run of the max over joints, m", true, "m", 0, lower, {}},
      {CD_vel_mean, "constraint velocity error: mean over steps of the max over joints, m/s", true, "m/s", 0, lower, {}},
      {CD_vel_max, "constraint velocity error: max over the run, m/s", true, "m/s", 0, lower, {}},
      {PEN_max, "contact models: deepest penetration found after any step, m", true, "m", kNeedsContacts, lower, {}},
      {PEN_mean, "contact models: mean over steps of the deepest penetration after the step, m", true, "m", kNeedsContacts, lower, {}},
      {E_gain_max, "contact models: largest energy increase over one step, J (0 if energy never rises)", true, "J", kNeedsContacts,
       lower, {}},
      {E_loss_max, "contact models: largest energy decrease over one step, J: an impact's dissipation, (1 - e^2) of the kinetic "
                   "energy of the approach for restitution e (0 if energy never falls)", true, "J", kNeedsContacts, neither, {}},
      {stick_slip_changes, "contact models: changes between sticking (every point of a touching shape pair slower than 1e-4 m/s) "
                           "and slipping, summed over the shape pairs in contact at consecutive steps", true, "", kNeedsContacts,
       neither, {}},
      {exact_pos_error_max, "models with a closed-form motion (a sliding cube, rolling-box): max over the steps and those bodies of "
                            "|x - x_exact(t)|, m", true, "m", kNeedsExactMotion, lower, {}},
      {exact_vel_error_max, "the same for the velocity, max |v - v_exact(t)|, m/s", true, "m/s", kNeedsExactMotion, lower, {}},
      {fail, "max constraint error > fail threshold (1 m) or a non-finite state; recorded with reason and time", false, "", 0,
       neither, {}},
      {ref_error_max, "max over the sample times of the max over bodies of |x - x_ref(t)|, against the reference method, m", false,
       "m", kNeedsReference, lower, {}},
      {scd, "significant correct digits at the last sample time: -log10 max_i |y_i - r_i| / |r_i| over the position coordinates "
            "against the reference method (coordinates that are zero to round-off left out); an experiment naming it samples the end "
            "of the run", true, "", kNeedsReference | kNeedsEndSample, higher, {}},
      {mescd, "mixed significant correct digits at the last sample time: -log10 max_i |y_i - r_i| / (1 + |r_i|) (positions in m)",
       true, "", kNeedsReference | kNeedsEndSample, higher, {}},
      {self_error, "self-consistency error at the end: max over bodies of |x - x_fine|, x_fine of the same method at h/64 "
                   "(for models without a reference; an experiment naming it makes the fine run), m", true, "m", kNeedsFineRun, lower,
       {}},
      {self_mescd, "mixed significant correct digits of the end positions against the same method at h/64 (with self_error)", true,
       "", kNeedsFineRun, higher, {}},
      {agree_err, "max over the steps to agree_time and bodies of |x - x_other|, against the agree_with method at the same h, m", true, "m", kNeedsOtherRun, lower, {}},
      {repair_steps, "models whose joints start broken (broken-chain): the first step after which every joint is within 1e-9 m "
                     "and rad (with repair_time, its time in s); none: not repaired within the run", true, "", kNeedsBrokenStart,
       lower, {repair_time}},
      {walk_distance, "walking machines (motors and contacts: walker): the tracked body's displacement along +x (the walking "
                      "direction) from the start to the end of the run, m", true, "m", kNeedsWalking, higher, {}},
      {slip, "walking machines: the mean over the steps and the loaded feet (shapes of moving bodies touching the fixed ground) "
             "of the tangential speed of the contact point on the ground, m/s (0 if no foot touches)", true, "m/s", kNeedsWalking,
       lower, {}},
      {eig_err, "bicycle: the largest relative error (absolute below 1) of the 4 eigenvalues identified from the motion "
                "(docs/metrics.md) against the published at the model's v", true, "", kNeedsModes, lower,
       {eig_re[0], eig_re[1], eig_re[2], eig_re[3], eig_im[0], eig_im[1], eig_im[2], eig_im[3], eig_v}},
  };
  return m;
}

const MetricInfo* metric_info(const std::string& name) {
  for (const auto& m : metric_catalog()) {
    if (m.name == name) return &m;
    for (const auto& a : m.also)
      if (a == name) return &m;
  }
  return nullptr;
}

const std::string& metric_unit(const std::string& name) {
  static const std::string none;
  for (const auto& m : metric_catalog())
    if (m.name == name) return m.unit;
  return none;
}

bool metric_needs(const std::string& name, unsigned needs) {
  const MetricInfo* m = metric_info(name);
  return m && (m->needs & needs) != 0;
}

std::string needs_text(unsigned needs) {
  static const std::pair<unsigned, const char*> kText[] = {
      {kNeedsPeriod, "a known period (h = T/k)"}, {kNeedsReference, "a reference"},
      {kNeedsEndSample, "a sample at the end"},   {kNeedsFineRun, "a run at h/64"},
      {kNeedsContacts, "contacts"},               {kNeedsExactMotion, "a closed-form motion"},
      {kNeedsBrokenStart, "joints broken at the start"},   {kNeedsWalking, "motors, contacts and a tracked body"},
      {kNeedsModes, "known linear modes"},        {kNeedsOtherRun, "another method's run"},
  };
  std::string s;
  for (const auto& [bit, text] : kText)
    if (needs & bit) s += (s.empty() ? "" : ", ") + std::string(text);
  return s;
}

const std::vector<std::string>& paper_metrics() {
  static const std::vector<std::string> m = {metric::ED, metric::EID, metric::LD, metric::CD_pos_mean};
  return m;
}

}  // namespace mb
