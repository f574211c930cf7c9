#include "methods/lagrange/lagrange_method.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <optional>
#include <stdexcept>
#include <vector>

#include <Eigen/Dense>
#include <boost/numeric/odeint/stepper/runge_kutta4.hpp>
#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/impulse/impulse_method.hpp"
#include "methods/lagrange/acceleration.hpp"
#include "methods/stopwatch.hpp"

namespace mb {

namespace {

// the linear solvers for the multipliers (and the impulse corrections of v / vd): one line each
const std::pair<const char*, LinearSolverFactory> kSolvers[] = {
    {"lu", make_lu_solver},            // dense A, partial-pivot LU: bender2007's "Lagrange"
    {"cholmod", make_cholmod_solver},  // sparse A, CHOLMOD Cholesky (AMD ordering)
    {"baraff", make_tree_solver},      // Baraff's O(n) LDL^T of H = [M -J^T; -J 0] (methods/solvers/tree_solver.hpp)
};

enum class Stab { None, Baumgarte, V, VD };
const std::pair<const char*, Stab> kStabs[] = {
    {"none", Stab::None}, {"baumgarte", Stab::Baumgarte}, {"v", Stab::V}, {"vd", Stab::VD}};
const std::pair<const char*, RodForm> kForms[] = {
    {"length", RodForm::Length}, {"half_squared", RodForm::HalfSquared}, {"squared", RodForm::Squared}};
// Baumgarte readings (docs/lagrange.md): how alpha and beta enter, which rod quantity is stabilised
const std::pair<const char*, BaumgarteGains> kGains[] = {{"2alpha_beta2", BaumgarteGains::TwoAlphaBetaSquared},
                                                         {"alpha_beta", BaumgarteGains::AlphaBeta},
                                                         {"alpha_beta2", BaumgarteGains::AlphaBetaSquared},
                                                         {"2alpha_beta", BaumgarteGains::TwoAlphaBeta}};
const std::pair<const char*, std::optional<RodForm>> kStabOn[] = {{"form", std::nullopt},
                                                                  {"length", RodForm::Length},
                                                                  {"half_squared", RodForm::HalfSquared},
                                                                  {"squared", RodForm::Squared}};
// When the impulse corrections of v / vd act (docs/lagrange.md)
enum class Apply { AboveTol, Always };
const std::pair<const char*, Apply> kApply[] = {{"above_tol", Apply::AboveTol}, {"always", Apply::Always}};

// the entry of a declared choice's value (the option's choices and the table name the same values)
template <class T, size_t N>
T pick(const std::pair<const char*, T> (&table)[N], const std::string& key, const std::string& value) {
  for (const auto& [n, v] : table)
    if (value == n) return v;
  throw std::logic_error(fmt::format("lagrange: {}={} is a declared choice without an entry", key, value));
}

std::string solver_names() {
  std::string t;
  for (const auto& [n, f] : kSolvers) t += (t.empty() ? "" : ", ") + std::string(n);
  return t;
}

// Every option of the family, with the stabilisations it applies to.
struct FamilyOption {
  OptionInfo info;
  std::vector<Stab> applies;  // empty: all
};
const std::vector<FamilyOption>& family_options() {
  static const std::vector<FamilyOption> o = {
      {OptionInfo::choice("stab", "baumgarte", "none (LM4), baumgarte (LMBS4), v (LMV4: + impulse velocity correction), "
                          "vd (LMVD4: + impulse projection and velocity correction)", {"none", "baumgarte", "v", "vd"}), {}},
      {OptionInfo::number("alpha", "10", "Baumgarte damping (see gains), 1/s", 0), {Stab::Baumgarte}},
      {OptionInfo::number("beta", "10", "Baumgarte stiffness (see alpha), 1/s", 0), {Stab::Baumgarte}},
      {OptionInfo::choice("gains", "2alpha_beta2", "how alpha and beta enter phi'' + c1 C' + c0 C = 0: 2alpha_beta2 (c1 = 2 alpha, "
                          "c0 = beta^2), alpha_beta, alpha_beta2, 2alpha_beta", {"2alpha_beta2", "alpha_beta", "alpha_beta2", "2alpha_beta"}),
       {Stab::Baumgarte}},
      {OptionInfo::choice("stab_on", "form", "rod quantity C of the Baumgarte terms: form (the form's phi), length (|d|-L), "
                          "half_squared ((|d|^2-L^2)/2), squared (|d|^2-L^2; on form=half_squared: the schmitt2005 LMBS4 rows)", {"form", "length", "half_squared", "squared"}),
       {Stab::Baumgarte}},
      {OptionInfo::choice("solver", "lu", "multiplier solver: " + solver_names(), {"lu", "cholmod", "baraff"}), {}},
      {OptionInfo::choice("form", "half_squared", "rod constraint function: half_squared ((|d|^2-L^2)/2; the schmitt2005 LM4 table), length (|d|-L), squared (|d|^2-L^2)",
                          {"half_squared", "length", "squared"}), {}},
      {OptionInfo::number("tol_p", "1e-10", "projection tolerance of vd, m (rad); 0: to round-off", 0), {Stab::VD}},
      {OptionInfo::number("tol_v", "1e-10", "velocity correction tolerance of v and vd, m/s (rad/s); 0: to round-off", 0),
       {Stab::V, Stab::VD}},
      {OptionInfo::choice("apply", "above_tol", "when v and vd correct: above_tol (while an error exceeds its tolerance), "
                          "always (also once after every step)", {"above_tol", "always"}),
       {Stab::V, Stab::VD}},
      {OptionInfo::integer("max_iter", "1000", "correction sweeps of v and vd at most; more fail", 1, 1e9), {Stab::V, Stab::VD}},
  };
  return o;
}

bool applies(const FamilyOption& o, Stab s) {
  return o.applies.empty() || std::find(o.applies.begin(), o.applies.end(), s) != o.applies.end();
}

struct Options {
  Stab stab = Stab::Baumgarte;
  AccelerationTerms terms;
  LinearSolverFactory solver = make_lu_solver;
  bool dense = true;  // solver=lu
  ImpulseOptions imp;
  Apply apply = Apply::AboveTol;
};

// s: the family's options (an alias's expansion with the user's options over it)
Options parse_options(const MethodOptions& s, const std::string& who) {
  Options o;
  const std::string& stab_text = s.choice("stab");
  o.stab = pick(kStabs, "stab", stab_text);
  for (const auto& f : family_options())
    if (s.given(f.info.name) && !applies(f, o.stab)) {
      std::string list;
      for (Stab a : f.applies)
        for (const auto& [n, v] : kStabs)
          if (v == a) list += (list.empty() ? "" : " or ") + fmt::format("stab={}", n);
      s.fail(fmt::format("{}: option '{}' applies only to {} (this is stab={})", who, f.info.name, list, stab_text));
    }
  const std::string& solver = s.choice("solver");
  o.solver = pick(kSolvers, "solver", solver);
  o.dense = solver == "lu";
  o.terms.form = pick(kForms, "form", s.choice("form"));
  if (o.stab == Stab::Baumgarte) {
    o.terms.alpha = s.number("alpha");
    o.terms.beta = s.number("beta");
    o.terms.gains = pick(kGains, "gains", s.choice("gains"));
    o.terms.stab_on = pick(kStabOn, "stab_on", s.choice("stab_on"));
  }
  o.imp.tol_p = s.number("tol_p");
  o.imp.tol_v = s.number("tol_v");
  o.imp.max_iter = s.integer("max_iter");
  o.apply = pick(kApply, "apply", s.choice("apply"));
  return o;
}

// ---------------------------------------------------------------------------------------------

class LagrangeMethod final : public Method {
 public:
  LagrangeMethod(MethodInfo info, Options o) : info_(std::move(info)), opt_(o) {}
  const MethodInfo& info() const override { return info_; }

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  void pack(const State& s, std::vector<double>& y) const;
  // positions, orientations (normalised) and velocities of the dynamic bodies from y
  void unpack(const std::vector<double>& y, State& s) const;
  void derivative(const std::vector<double>& y, const State& acc, std::vector<double>& dy) const;
  void update_limits(const Model& model, State& state, StepStats& stats);

  MethodInfo info_;
  Options opt_;
  AccelerationSolver acc_;
  std::unique_ptr<Corrector> corrector_;  // v, vd
  std::vector<int> offset_;               // (nbody) first entry of each dynamic body in y, -1 static
  std::vector<char> rigid_;               // (nbody)
  boost::numeric::odeint::runge_kutta4<std::vector<double>> rk4_;
  std::vector<double> y_;
  State stage_, accel_, next_;
  Eigen::VectorXd lambda_;
  StepLoads loads_, no_loads_, stage_loads_;
  std::vector<Vec3> saved_v_, saved_w_;
  std::vector<int> active_;  // the joint limits' active sides (AccelerationSolver::limits() indices)
  // stab=vd: the joint limits as inequality rows of the projection and velocity correction (the
  // impulse family's, contacts.hpp), which take a side stopped past its bound back onto it
  ContactSet limit_rows_;
};

// a side is at its bound within this gap (rad or m), and approaches faster than this rate (rad/s or m/s)
constexpr double kLimitSlack = 1e-9, kLimitApproach = 1e-12;

// y per dynamic body: x (3), v (3), and for rigid bodies q (w, x, y, z) (4), w (3)
void LagrangeMethod::pack(const State& s, std::vector<double>& y) const {
  for (size_t k = 0; k < offset_.size(); ++k) {
    if (offset_[k] < 0) continue;
    double* p = y.data() + offset_[k];
    const BodyState& b = s.bodies[k];
    for (int i = 0; i < 3; ++i) p[i] = b.x[i], p[3 + i] = b.v[i];
    if (!rigid_[k]) continue;
    p[6] = b.q.w(), p[7] = b.q.x(), p[8] = b.q.y(), p[9] = b.q.z();
    for (int i = 0; i < 3; ++i) p[10 + i] = b.w[i];
  }
}

void LagrangeMethod::unpack(const std::vector<double>& y, State& s) const {
  for (size_t k = 0; k < offset_.size(); ++k) {
    if (offset_[k] < 0) continue;
    const double* p = y.data() + offset_[k];
    BodyState& b = s.bodies[k];
    b.x = Vec3(p[0], p[1], p[2]);
    b.v = Vec3(p[3], p[4], p[5]);
    if (!rigid_[k]) continue;
    b.q = Quat(p[6], p[7], p[8], p[9]).normalized();
    b.w = Vec3(p[10], p[11], p[12]);
  }
}

void LagrangeMethod::derivative(const std::vector<double>& y, const State& acc, std::vector<double>& dy) const {
  for (size_t k = 0; k < offset_.size(); ++k) {
    if (offset_[k] < 0) continue;
    const double* p = y.data() + offset_[k];
    double* d = dy.data() + offset_[k];
    const BodyState& a = acc.bodies[k];
    for (int i = 0; i < 3; ++i) d[i] = p[3 + i], d[3 + i] = a.v[i];
    if (!rigid_[k]) continue;
    // q' = 1/2 [0, w] q (w in world coordinates)
    const Quat dq = Quat(0, p[10], p[11], p[12]) * Quat(p[6], p[7], p[8], p[9]);
    d[6] = 0.5 * dq.w(), d[7] = 0.5 * dq.x(), d[8] = 0.5 * dq.y(), d[9] = 0.5 * dq.z();
    for (int i = 0; i < 3; ++i) d[10 + i] = a.w[i];
  }
}

void LagrangeMethod::do_init(const Model& model, const State& state) {
  const size_t nb = model.bodies.size();
  offset_.assign(nb, -1);
  rigid_.assign(nb, 0);
  int n = 0;
  for (size_t k = 0; k < nb; ++k) {
    if (model.bodies[k].is_static) continue;
    offset_[k] = n;
    rigid_[k] = !model.bodies[k].particle;
    n += rigid_[k] ? 13 : 6;
  }
  y_.assign(n, 0.0);
  no_loads_.force.assign(nb, Vec3::Zero());
  no_loads_.torque.assign(nb, Vec3::Zero());

  // a rolling wheel's rows are solved with the dense solver only (the others order rows by joints)
  if (!model.rolling.empty() && !opt_.dense)
    throw UnsupportedModel(fmt::format("{}: rolling constraints need solver=lu", info_.name));
  // the model must give a unique, computable set of multipliers at the initial state
  acc_.init(model, opt_.solver, opt_.terms);
  const ConstraintSystem& cs = acc_.system();
  if (cs.rows() > cs.cols())
    throw UnsupportedModel(fmt::format("{}: the model has {} constraint rows but only {} velocity coordinates: "
                                       "the constraints are redundant and J M^-1 J^T is singular",
                                       info_.name, cs.rows(), cs.cols()));
  try {
    StepStats unused;
    step_loads(model, state.t, model.info.default_h, loads_);
    loads_at(model, state, loads_, loads_);
    acc_.solve(model, state, loads_, lambda_, accel_, unused);
  } catch (const SimulationError& e) {
    throw UnsupportedModel(fmt::format("{}: cannot compute the Lagrange multipliers at the initial state (redundant or "
                                       "degenerate constraints?): {}",
                                       info_.name, e.what()));
  }
  if (cs.rows() > 0 && (opt_.dense || cs.rows() <= 600)) {
    // rank of A = J M^-1 J^T at the state of the solve above (dense, as much work as one LU of the lu solver); a large sparse
    // system relies on the Cholesky factorisation failing instead
    Eigen::MatrixXd A;
    cs.assemble_dense(A);
    const Eigen::Index rank = Eigen::FullPivLU<Eigen::MatrixXd>(A).rank();
    if (rank < cs.rows())
      throw UnsupportedModel(fmt::format("{}: J M^-1 J^T has rank {} < {} rows at the initial state: the constraints "
                                         "are redundant and the multipliers are not unique",
                                         info_.name, rank, cs.rows()));
  }
  const double res = acc_.last_residual();
  if (!(res <= 1e-6))
    throw UnsupportedModel(fmt::format("{}: J M^-1 J^T is singular at the initial state (relative residual {:.2g} of the "
                                       "multipliers): redundant or degenerate constraints",
                                       info_.name, res));
  if ((opt_.stab == Stab::V || opt_.stab == Stab::VD) && cs.rows() > 0) {
    corrector_ = make_group_corrector({}, opt_.solver);
    corrector_->init(model, state);
  }
  // every side is a row (an unbounded margin; the family has no shapes): one apart stays inert
  // unless the projection would move it past its bound, as a side's impulse can move another's
  // joint through the chain
  limit_rows_ = corrector_ && opt_.stab == Stab::VD && !acc_.limits().empty() && model.shapes.empty()
                    ? ContactSet(model, std::numeric_limits<double>::infinity(), false, true)
                    : ContactSet();
}

// The joint limits' active set for the step (docs/lagrange.md, "Joint limits"): the sides at or
// beyond their bounds (gap <= kLimitSlack) that were active, or whose gap does not open (gap' <= 0);
// the inelastic impulse then stops those approaching. The set holds over the step's four stages,
// each of which drops the sides whose multipliers pull.
void LagrangeMethod::update_limits(const Model& model, State& state, StepStats& stats) {
  const std::vector<LimitSide>& sides = acc_.limits();
  const std::vector<int> was = acc_.active_limits();
  active_.clear();
  bool approaching = false;
  for (size_t i = 0; i < sides.size(); ++i) {
    if (limit_gap(model, sides[i], state) > kLimitSlack) continue;
    const double rate = limit_rate(model, state, sides[i]);
    if (rate > 0 && std::find(was.begin(), was.end(), static_cast<int>(i)) == was.end()) continue;
    active_.push_back(static_cast<int>(i));
    approaching = approaching || rate < -kLimitApproach;
  }
  acc_.set_active_limits(active_);
  if (approaching) acc_.limit_impulse(model, state, stats);
}

void LagrangeMethod::do_step(const Model& model, State& state, double h, StepStats& stats) {
  step_loads(model, state.t, h, loads_);
  if (!acc_.limits().empty()) update_limits(model, state, stats);

  // (a) one RK4 step of the whole state, the multipliers solved at every stage
  auto t0 = Clock::now();
  StepStats stage;
  stage_ = state;  // static bodies and sizes
  pack(state, y_);
  auto system = [&](const std::vector<double>& y, std::vector<double>& dy, double t) {
    unpack(y, stage_);
    stage_.t = t;  // the motors' targets at the stage's time
    const StepLoads* loads = &loads_;
    if (has_state_loads(model)) {  // spring, joint damper and actuator forces at the stage's state
      loads_at(model, stage_, loads_, stage_loads_);
      loads = &stage_loads_;
    }
    acc_.solve(model, stage_, *loads, lambda_, accel_, stage);
    derivative(y, accel_, dy);
  };
  rk4_.do_step(system, y_, state.t, h);
  unpack(y_, state);  // quaternions renormalised
  stats.t_assembly += stage.t_assembly;
  stats.t_factorization += stage.t_factorization;
  stats.t_solve += stage.t_solve;
  stats.t_integration += since(t0) - stage.t_assembly - stage.t_factorization - stage.t_solve;
  if (!corrector_) return;
  {  // the motors' targets and rates at the end of the step (no position rows of velocity motors)
    State& end = state;
    const double t_start = end.t;
    end.t = t_start + h;
    corrector_->begin_step(model, end, 0);
    end.t = t_start;
  }

  if (opt_.stab == Stab::VD) {
    corrector_->update(model, state, stats);
    // (b) save the velocities and set them to zero
    const size_t nb = state.bodies.size();
    saved_v_.resize(nb);
    saved_w_.resize(nb);
    for (size_t k = 0; k < nb; ++k) {
      saved_v_[k] = state.bodies[k].v, saved_w_[k] = state.bodies[k].w;
      state.bodies[k].v.setZero(), state.bodies[k].w.setZero();
    }
    // (c) impulse step without loads: projection by look-ahead over h, then the free motion
    if (opt_.apply == Apply::Always) {  // one correction whatever the error, then to tol_p
      PhaseTimer timer(*corrector_, stats);
      for (int g = 0; g < corrector_->groups(); ++g) corrector_->correct_position(g, model, no_loads_, h, state, -1, stats);
      ++stats.pos_iterations;
    }
    // the limits' sides are rows: a predicted gap < 0 is closed
    ContactSet* limits = nullptr;
    if (limit_rows_.enabled()) {
      limit_rows_.detect(model, state, state, stats, corrector_->coupling());
      limits = &limit_rows_;
    }
    correct_positions(*corrector_, model, no_loads_, h, state, opt_.imp, stats, info_.name, limits);
    t0 = Clock::now();
    free_motion(model, no_loads_, h, state, next_);
    std::swap(state.bodies, next_.bodies);
    stats.t_integration += since(t0);
    // (d) restore the velocities
    for (size_t k = 0; k < nb; ++k) state.bodies[k].v = saved_v_[k], state.bodies[k].w = saved_w_[k];
  }
  // (v, d) impulse velocity correction with the Jacobians of the final positions
  corrector_->update(model, state, stats);
  if (opt_.apply == Apply::Always) {  // one correction whatever the error, then to tol_v
    PhaseTimer timer(*corrector_, stats);
    for (int g = 0; g < corrector_->groups(); ++g) corrector_->correct_velocity(g, state, -1, stats);
    ++stats.vel_iterations;
  }
  ContactSet* limits = nullptr;
  if (limit_rows_.enabled() && limit_rows_.size() > 0) {  // the sides at their bounds: not approaching
    limit_rows_.refresh(model, state);
    limit_rows_.begin_velocity_phase(state, kLimitSlack);
    limits = &limit_rows_;
  }
  correct_velocities(*corrector_, state, opt_.imp, stats, info_.name, limits);
}

std::string options_text(const std::map<std::string, std::string>& o) {
  std::string t;
  for (const auto& [k, v] : o) t += (t.empty() ? "" : ",") + k + "=" + v;
  return t;
}

}  // namespace

// classic RK4: order 4 in the position error; on pendulum90 over h = 0.0025..0.02 (4.24 at
// 0.04 -> 0.02 is still pre-asymptotic with Baumgarte's alpha = beta = 10)
const DeclaredOrder kFamilyOrder{"position", "pendulum90", 4, 0.0025, 0.02, 1, "", "classic RK4"};

MethodInfo Lagrange::describe() {
  MethodInfo i;
  i.name = "lagrange";
  i.description = "acceleration-level Lagrange multipliers + classic RK4 (multipliers at every stage); "
                  "stab=baumgarte is bender2007's Lagrange";
  i.source = "schmitt2005 s.5; bender2007 s.6";
  i.family = "lagrange";
  i.paper_name = "Lagrange";
  for (const auto& o : family_options()) {
    OptionInfo oi = o.info;
    for (const auto& [n, v] : kStabs)
      if (oi.applies_with.empty() && !o.applies.empty() && applies(o, v)) oi.applies_with = std::string("stab=") + n;
    i.options.push_back(oi);
  }
  i.orders = {kFamilyOrder};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kAppliedTorques | kAppliedForces | kForces | kJointDampers | kMotors |
               kRolling | kJointLimits;
  i.particle_form = true;
  i.timing_table = true;      // bender2007's "Lagrange" (Baumgarte, dense LU)
  i.timing_max_joints = 255;  // dense O(n^3): 0.1-1 s per step at 255 joints
  i.gate_time_joints = {63};  // the dense solve LM4, LMBS4, LMV4 and LMVD4 compose
  return i;
}

std::unique_ptr<Method> Lagrange::make(const MethodOptions& s) {
  return std::make_unique<LagrangeMethod>(describe(), parse_options(s, s.name()));
}

MethodEntry Lagrange::alias(const std::string& name, const std::string& expansion, const std::string& source,
                            const std::string& description, std::vector<DeclaredOrder> orders) {
  Spec e = Spec::parse("lagrange:" + expansion, "method", "methods/registry/registry.cpp");
  e.check_options(describe().options);
  const Stab stab = pick(kStabs, "stab", MethodOptions(e, describe().options).choice("stab"));
  MethodInfo i;
  i.name = name;
  i.description = description;
  i.source = source;
  i.expands_to = "lagrange:" + expansion;
  for (const auto& o : family_options()) {
    if (o.info.name == "stab" || !applies(o, stab)) continue;
    OptionInfo oi = o.info;
    oi.default_value = e.get_string(oi.name, oi.default_value);
    i.options.push_back(oi);
  }
  i.family = "lagrange";
  i.paper_name = name == "baraff" ? "Baraff" : name;
  i.orders = orders.empty() ? std::vector<DeclaredOrder>{kFamilyOrder} : std::move(orders);
  // Baraff's O(n) factorization needs an acyclic constraint graph
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kAppliedTorques | kAppliedForces | kForces | kJointDampers | kJointLimits |
               (name == "baraff" ? 0u : kLoops | kMotors | kRolling);
  i.particle_form = true;
  i.timing_table = name == "baraff";
  i.timing_max_joints = name == "baraff" ? 16383 : 63;
  if (name == "baraff") i.gate_time_joints = {255};  // the family's O(n) factorization
  return {i, make_alias};
}

std::unique_ptr<Method> Lagrange::make_alias(const MethodOptions& s) {
  for (const auto& entry : method_registry()) {
    if (entry.info.name != s.name()) continue;
    // the expansion's options, overridden by the user's
    auto opts = Spec::parse(entry.info.expands_to, "method").options();
    for (const auto& [k, v] : s.given_options()) opts[k] = v;
    const Spec merged = Spec::parse("lagrange:" + options_text(opts), "method");
    return std::make_unique<LagrangeMethod>(entry.info, parse_options(MethodOptions(merged, describe().options), s.name()));
  }
  throw Error(fmt::format("Lagrange::make_alias: '{}' is not a registered alias", s.name()));
}

}  // namespace mb
