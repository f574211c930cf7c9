// `tomcin` (tomcin2014 s.3-5, "SPD"): the impulse step with the joint correction of tomcin2014 s.3,
// a modified Newton method whose gradient is the system matrix A = J M^-1 J^T of the step (eq. 4,
// A dp = -c(p) / h), assembled sparse and factored once per step by CHOLMOD (AMD ordering, symbolic
// analysis once per mechanism, supernodal or simplicial by CHOLMOD's rule); the velocity correction
// reuses the factor.
// Redundant constraints (closed loops, s.4) make A singular; the Tikhonov regularization factors
// A + alpha 1 with alpha = eps_T * norm1(A) instead. The modified Newton iteration still converges
// to c = 0 (its fixed point does not depend on the matrix), so the regularization costs iterations,
// not accuracy. The step is the shared impulse step (methods/impulse/impulse_method.hpp): joint
// correction on the look-ahead, free flight, velocity correction; tomcin2014 applies the velocity
// correction at the start of the next step after the external impulses, the same cycle (docs/method-notes.md).
// Options (tomcin2014's names): eps_T, eps_P (the joint-correction tolerance, per joint as for every
// impulse method), eps_V (the velocity correction's), max_iterations (the paper uses 50, and 500 for
// the Peaucellier linkage), spectrum (lambda_max / lambda_min of A every step, for Figure 3),
// split (body splitting, s.5: methods/constraints/body_split.hpp); ours: velocity_floor
// (ImpulseOptions::velocity_floor: the velocity rows of redundant constraints agree only to the
// order of the joint errors).
#include <cstdlib>
#include <string>

#include <fmt/format.h>

#include "methods/constraints/body_split.hpp"
#include "methods/impulse/methods.hpp"

namespace mb {

namespace {
// split=auto: parts of at most this many joints (docs/method-notes.md: the measurement behind it)
constexpr int kAutoSplit = 4;
}  // namespace

MethodInfo TomcinMethod::describe() {
  MethodInfo i = impulse_method_info();
  i.name = "tomcin";
  i.paper_name = "SPD";
  i.description = "impulse-based: modified Newton joint correction with A = J M^-1 J^T factored once per step by CHOLMOD (AMD), "
                  "Tikhonov regularization A + eps_T norm1(A) 1 for redundant constraints";
  i.source = "tomcin2014 s.3-5";
  i.options = {
      OptionInfo::number("eps_T", "1e-10", "Tikhonov parameter: alpha = eps_T * norm1(A) is added to A's diagonal (0: none)", 0, 1e-2),
      OptionInfo::number("eps_P", "1e-9", "joint (position) correction tolerance, m (rad for rotational rows)", 0, 1),
      OptionInfo::number("eps_V", "1e-9", "velocity correction tolerance, m/s (rad/s)", 0, 1),
      OptionInfo::integer("max_iterations", "500", "joint correction iterations per step before the step fails", 1, 1000000),
      velocity_floor_option(),
      OptionInfo::choice("spectrum", "off", "on: lambda_max / lambda_min of A every step (dense, up to 4000 rows)", {"off", "on"}),
      OptionInfo::text("split", "off",
                       "body splitting (tomcin2014 s.5): off, K (a body with more than K joints becomes parts of at most K joints "
                       "joined by fixed joints), or auto (K = " + std::to_string(kAutoSplit) + ")"),
      contact_coupling_option(),
      contact_iterations_option(),
      contact_margin_option(),
      contact_detection_option(),
      spring_treatment_option(),
      warm_start_option(),
  };
  i.orders = {{"position", "pendulum90", 2, 0.0025, 0.04, 1, "eps_P=1e-12,eps_V=1e-12",
               "the impulse step's O(h^3) local error; the regularization changes the iterations, not the fixed point"}};
  i.supports |= kRedundant;
  i.timing_max_joints = 16383;
  return i;
}

std::unique_ptr<Method> TomcinMethod::make(const MethodOptions& s) {
  ImpulseOptions o;
  o.tol_p = s.number("eps_P");
  o.tol_v = s.number("eps_V");
  o.max_iter = s.integer("max_iterations");
  o.velocity_floor = parse_velocity_floor(s);
  o.couple_contacts = parse_contact_coupling(s);
  o.contact_iterations = parse_contact_iterations(s);
  o.contact_margin = parse_contact_margin(s);
  o.contacts_from_start = parse_contact_detection(s);
  o.implicit_springs = parse_spring_treatment(s);
  o.warm_start = parse_warm_start(s);
  const double eps_t = s.number("eps_T");
  const bool spectrum = s.choice("spectrum") == "on";
  const std::string& split = s.text("split");
  int max_joints = 0;
  if (split == "auto") {
    max_joints = kAutoSplit;
  } else if (split != "off") {
    char* end = nullptr;
    const long k = std::strtol(split.c_str(), &end, 10);
    if (split.empty() || *end != '\0' || k < 1 || k > 1000000)
      s.fail(fmt::format("tomcin: option 'split' must be off, auto or a whole number >= 1, got '{}'", split));
    max_joints = static_cast<int>(k);
  }
  auto m = std::make_unique<ImpulseMethod>(
      describe(), o, make_group_corrector({}, [eps_t, spectrum] { return make_regularized_cholmod_solver(eps_t, spectrum); }));
  if (max_joints == 0) return m;
  return std::make_unique<SplitMethod>(std::move(m), max_joints);
}

}  // namespace mb
