#include "methods/impulse/impulse_method.hpp"

#include <chrono>
#include <cmath>
#include <limits>

#include <Eigen/Dense>
#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

namespace {
using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }
}  // namespace

std::vector<OptionInfo> impulse_options_info() {
  return {OptionInfo::number("tol_p", "1e-6", "position correction tolerance, m (rad for rotational rows); 0: to round-off", 0),
          OptionInfo::number("tol_v", "1e-6", "velocity correction tolerance, m/s (rad/s); 0: to round-off", 0),
          OptionInfo::integer("max_iter", "1000", "maximum sweeps per correction; more is a failure", 1, 1e9),
          contact_coupling_option(), contact_iterations_option(), contact_margin_option(), contact_detection_option(),
          spring_treatment_option()};
}

OptionInfo contact_detection_option() {
  return OptionInfo::choice("contact_detection", "start",
                            "contacts: start = a shape pair within contact_margin at the step's start keeps the contacts found "
                            "there (normal and points), the preview adds the pairs new over the step (a block resting on a "
                            "thin rod at h = 0.25 s, whose preview passes through it, stays); preview = every contact from the "
                            "preview of the step (tomcin2014 s.7)",
                            {"start", "preview"});
}

bool parse_contact_detection(const Spec& s) { return s.get_string("contact_detection", "start") == "start"; }

OptionInfo contact_margin_option() {
  return OptionInfo::number("contact_margin", "1e-4",
                            "contacts: the pairs closer than this on the preview are found too, m (speculative contacts: they act only "
                            "if the step would close them; a body resting on another that the floor holds is then never missed); "
                            "0: only the pairs that penetrate on the preview",
                            0, 1);
}

double parse_contact_margin(const Spec& s) { return s.get_double("contact_margin", 1e-4); }

OptionInfo spring_treatment_option() {
  return OptionInfo::choice("springs", "explicit",
                            "force elements: explicit = each spring-damper's force at the start of the step, held over it (stable "
                            "for h below about 2 m / c); implicit = its tension at the end of the step by a linearly implicit "
                            "Euler step through the free bodies (stable at any h, first order; docs/method-notes.md)",
                            {"explicit", "implicit"});
}

bool parse_spring_treatment(const Spec& s) { return s.get_string("springs", "explicit") == "implicit"; }

OptionInfo contact_iterations_option() {
  return OptionInfo::integer("contact_iterations", "0",
                             "contacts: 0 = contacts and joints converge together or the step fails; N > 0 = the sweeps with "
                             "contacts stop after N (tomcin2014 s.3, s.7), keeping the contact impulses, and the joints alone "
                             "are then corrected to the tolerance (the contacts' residual shows as penetration)",
                             0, 1000000);
}

long parse_contact_iterations(const Spec& s) { return s.get_int("contact_iterations", 0); }

OptionInfo contact_coupling_option() {
  return OptionInfo::choice("coupling", "on",
                            "contacts: on = each contact coupled to the joints through the factored system (tomcin2014 s.7; "
                            "where the whole A is factored), off = contacts and joints alternate (Gauss-Seidel)",
                            {"on", "off"});
}

MethodInfo impulse_method_info() {
  MethodInfo i;
  i.family = "impulse";
  i.options = impulse_options_info();
  // O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 the order is lost once
  // the error nears the tolerance, so the declaration holds with tight ones
  i.orders = {{"position", "pendulum90", 2, 0.0025, 0.04, 1, "tol_p=1e-12,tol_v=1e-12",
               "O(h^3) local error (schmitt2005 s.2); with the default tolerances 1e-6 only while the error is above about 1e-5"}};
  i.supports = kParticles | kRigidBodies | kTrees | kLoops | kAppliedTorques | kAppliedForces | kContacts | kForces;
  i.timing_table = true;
  return i;
}

bool parse_contact_coupling(const Spec& s) { return s.get_string("coupling", "on") == "on"; }

ImpulseOptions parse_impulse_options(const Spec& s) {
  ImpulseOptions o;
  o.tol_p = s.get_double("tol_p", o.tol_p);
  o.tol_v = s.get_double("tol_v", o.tol_v);
  o.max_iter = s.get_int("max_iter", o.max_iter);
  o.couple_contacts = parse_contact_coupling(s);
  o.contact_iterations = parse_contact_iterations(s);
  o.contact_margin = parse_contact_margin(s);
  o.contacts_from_start = parse_contact_detection(s);
  o.implicit_springs = parse_spring_treatment(s);
  if (!(o.tol_p >= 0) || !(o.tol_v >= 0) || o.max_iter < 1)
    s.fail(fmt::format("{}: tol_p and tol_v must be >= 0 (0: to round-off) and max_iter >= 1", s.name()));
  return o;
}

// ---------------------------------------------------------------------------------------------
// joint-by-joint Gauss-Seidel

namespace {

class JointCorrector final : public Corrector {
 public:
  void init(const Model& model, const State&) override {
    cs_ = ConstraintSystem(model);
    inv_.assign(cs_.blocks().size(), Mat6::Zero());
    pred_ = State();
    pred_.bodies.resize(model.bodies.size());
    predict_.reset(model.bodies.size());
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    auto t0 = Clock::now();
    cs_.update(model, state);
    // inverse of each joint's diagonal block A_ii
    for (size_t i = 0; i < cs_.blocks().size(); ++i) {
      const JointBlock& b = cs_.blocks()[i];
      const Mat6 A = cs_.coupling(b, b);
      inv_[i].setZero();
      inv_[i].topLeftCorner(b.dim, b.dim) = A.topLeftCorner(b.dim, b.dim).inverse();
    }
    stats.t_assembly += since(t0);
  }
  int groups() const override { return static_cast<int>(cs_.blocks().size()); }

  double correct_position(int g, const Model& model, const StepLoads& loads, double h, State& state, double tol,
                          StepStats&) override {
    const JointBlock& b = cs_.blocks()[g];
    // predict the joint's two bodies (a body unchanged since its last prediction keeps it)
    if (pred_.bodies.size() != state.bodies.size()) {
      pred_ = state;
      predict_.reset(state.bodies.size());
    }
    for (int side = 0; side < 2; ++side) {
      int k = b.body[side];
      if (k >= 0) predict_.predict(model.bodies[k], k, loads.force[k], loads.torque[k], h, state.bodies[k], pred_.bodies[k]);
    }
    // joints to static bodies read those bodies from the prediction too
    for (int side = 0; side < 2; ++side) {
      int k = side == 0 ? model.joints[b.joint].a : model.joints[b.joint].b;
      if (k >= 0 && b.body[side] < 0) pred_.bodies[k] = state.bodies[k];
    }
    cs_.block_position_error(model, pred_, b, e_);
    const double err = ConstraintSystem::joint_norm(b, e_);
    if (err > tol) apply(b, g, -e_ / h, state);
    return err;
  }

  double correct_velocity(int g, State& state, double tol, StepStats&) override {
    const JointBlock& b = cs_.blocks()[g];
    cs_.block_velocity_error(state, b, e_);
    const double err = ConstraintSystem::joint_norm(b, e_);
    if (err > tol) apply(b, g, -e_, state);
    return err;
  }
  bool times_parts() const override { return false; }  // a clock read costs about one joint's correction

 private:
  void apply(const JointBlock& b, int g, const Vec6& rhs, State& state) {
    Vec6 x = Vec6::Zero();
    if (b.dim == 1)
      x[0] = inv_[g](0, 0) * rhs[0];  // a rod: one product
    else if (b.dim == 3)
      x.head<3>().noalias() = inv_[g].topLeftCorner<3, 3>() * rhs.head<3>();  // a ball joint: fixed size
    else
      x.head(b.dim) = inv_[g].topLeftCorner(b.dim, b.dim) * rhs.head(b.dim);
    cs_.apply_block_impulse(b, x, state);
  }

  ConstraintSystem cs_;
  std::vector<Mat6> inv_;  // (nblocks) A_ii^-1
  State pred_;
  RememberedFreeMotion predict_;  // writes pred_'s dynamic bodies
  Vec6 e_;
};

// ---------------------------------------------------------------------------------------------
// groups of joints solved at once

class GroupCorrector final : public Corrector, public ArticulationCoupling {
 public:
  GroupCorrector(std::vector<std::vector<int>> parts, LinearSolverFactory make)
      : parts_spec_(std::move(parts)), make_(make) {}

  void init(const Model& model, const State&) override {
    groups_.clear();
    if (parts_spec_.empty()) parts_spec_.push_back({});
    for (const auto& joints : parts_spec_) {
      Group g;
      g.cs = ConstraintSystem(model, joints);
      g.solver = make_();
      g.cs.keep_ball_jacobians(g.solver->reads_ball_jacobians());
      if (g.cs.rows() > 0) g.solver->analyze(g.cs);  // a model without joints (contacts only) has nothing to factor
      for (size_t k = 0; k < model.bodies.size(); ++k)
        if (g.cs.body_col(static_cast<int>(k)) >= 0) g.bodies.push_back(static_cast<int>(k));
      groups_.push_back(std::move(g));
    }
    // one group predicting every dynamic body: its last measuring sweep is the step's free motion
    predicts_all_ = groups_.size() == 1 &&
                    static_cast<int>(groups_[0].bodies.size()) == model.dynamic_body_count();
    predicted_ = nullptr;
  }
  void update(const Model& model, const State& state, StepStats& stats) override {
    stats.t_factorization += deferred_factor_s_;  // factorizations the contact and spring paths asked for
    deferred_factor_s_ = 0;
    predicted_ = nullptr;
    for (auto& g : groups_) {
      if (g.cs.rows() == 0) continue;
      auto t0 = Clock::now();
      g.cs.update(model, state);
      stats.t_assembly += since(t0);
      g.factored = false;
      // a solver that reports nothing of its factorization factors at the first solve (a step
      // whose corrections all start within tolerance needs none; LinearSolver::factor_on_demand)
      if (!g.solver->factor_on_demand()) factor(g, stats);
    }
  }
  int groups() const override { return static_cast<int>(groups_.size()); }
  ArticulationCoupling* coupling() override { return groups_.size() == 1 && groups_[0].cs.rows() > 0 ? this : nullptr; }

  bool couple(int a, const Eigen::Matrix<double, 3, 6>& Ja, int b, const Eigen::Matrix<double, 3, 6>& Jb,
              Eigen::Matrix<double, Eigen::Dynamic, 3>& Y, Mat3& BtY) override {
    Group& g = groups_[0];
    factor_deferred(g);
    B_.setZero(g.cs.rows(), 3);
    bool any = false;
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? a : b;
      if (k < 0) continue;
      const int bd = g.cs.body_dim(k);
      if (bd == 0) continue;
      const Eigen::Matrix<double, 3, 6>& Jc = side == 0 ? Ja : Jb;
      const Eigen::MatrixXd MJ = g.cs.mass_inverse(k).topLeftCorner(bd, bd) * Jc.leftCols(bd).transpose();  // bd x 3
      for (int bi : g.cs.blocks_of(k)) {
        const JointBlock& blk = g.cs.blocks()[static_cast<size_t>(bi)];
        const int s = blk.body[0] == k ? 0 : 1;
        B_.middleRows(blk.row, blk.dim) += g.cs.jacobian(blk, s).topLeftCorner(blk.dim, bd) * MJ;
        any = true;
      }
    }
    if (!any) return false;
    Y.resize(g.cs.rows(), 3);
    for (int c = 0; c < 3; ++c) {
      rhs_ = B_.col(c);
      g.solver->solve(rhs_, sol_);
      Y.col(c) = sol_;
    }
    if (!Y.allFinite()) throw SimulationError("contact coupling: the joint solve produced a non-finite value (singular system?)");
    BtY = B_.transpose() * Y;
    return true;
  }
  void apply_joint_impulse(const Eigen::VectorXd& x, State& s) override {
    predicted_ = nullptr;
    groups_[0].cs.apply_impulse(x, s);
  }
  bool joint_response(const Eigen::MatrixXd& dV, Eigen::MatrixXd& PhiDV, Eigen::MatrixXd& Y) override {
    Group& g = groups_[0];
    factor_deferred(g);
    PhiDV.setZero(g.cs.rows(), dV.cols());
    bool any = false;
    for (const JointBlock& blk : g.cs.blocks())
      for (int side = 0; side < 2; ++side) {
        const int k = blk.body[side];
        if (k < 0) continue;
        const int bd = g.cs.body_dim(k);
        if (bd == 0) continue;
        PhiDV.middleRows(blk.row, blk.dim) += g.cs.jacobian(blk, side).topLeftCorner(blk.dim, bd) * dV.middleRows(6 * k, bd);
        any = true;
      }
    if (!any) return false;
    Y.resize(g.cs.rows(), dV.cols());
    for (Eigen::Index c = 0; c < dV.cols(); ++c) {
      rhs_ = PhiDV.col(c);
      g.solver->solve(rhs_, sol_);
      Y.col(c) = sol_;
    }
    if (!Y.allFinite()) throw SimulationError("joint response: the joint solve produced a non-finite value (singular system?)");
    return true;
  }

  double correct_position(int gi, const Model& model, const StepLoads& loads, double h, State& state, double tol,
                          StepStats& stats) override {
    Group& g = groups_[gi];
    if (g.cs.rows() == 0) return 0.0;
    auto t0 = Clock::now();
    if (pred_.bodies.size() != state.bodies.size()) pred_ = state;
    for (size_t k = 0; k < model.bodies.size(); ++k)
      if (model.bodies[k].is_static) pred_.bodies[k] = state.bodies[k];
    free_motion_bodies(model, loads, &g.cs.inertia_inverses(), g.bodies, h, state, pred_);
    stats.t_integration += since(t0);
    predicted_ = predicts_all_ ? &state : nullptr;
    g.cs.position_error(model, pred_, g.e);
    const double err = g.cs.max_joint_norm(g.e);
    if (err > tol) {
      g.e *= -1.0 / h;
      apply(g, state, stats);
    }
    return err;
  }

  bool take_prediction(const State& state, State& out) override {
    if (predicted_ != &state) return false;
    predicted_ = nullptr;
    out.t = state.t;
    std::swap(out.bodies, pred_.bodies);
    return true;
  }

  double correct_velocity(int gi, State& state, double tol, StepStats& stats) override {
    Group& g = groups_[gi];
    if (g.cs.rows() == 0) return 0.0;
    g.cs.velocity_error(state, g.e);
    const double err = g.cs.max_joint_norm(g.e);
    if (err > tol) {
      g.e *= -1.0;
      apply(g, state, stats);
    }
    return err;
  }

 private:
  struct Group {
    ConstraintSystem cs;
    std::unique_ptr<LinearSolver> solver;
    std::vector<int> bodies;
    Eigen::VectorXd e, x;
    bool factored = false;  // the solver has factored the Jacobians of the last update()
  };
  void factor(Group& g, StepStats& stats) {
    const auto t0 = Clock::now();
    g.solver->factor(g.cs);
    g.factored = true;
    const FactorInfo fi = g.solver->factor_info();
    stats.t_factorization += since(t0) - fi.t_analysis;
    stats.t_analysis += fi.t_analysis;
    stats.nnz_a = std::max(stats.nnz_a, fi.nnz_a);
    stats.nnz_l = std::max(stats.nnz_l, fi.nnz_l);
    stats.condition = std::max(stats.condition, fi.condition);
    if (fi.rcond > 0) stats.rcond = stats.rcond > 0 ? std::min(stats.rcond, fi.rcond) : fi.rcond;
  }
  // the contact and spring paths, which have no StepStats: the time is added at the next update()
  void factor_deferred(Group& g) {
    if (g.factored) return;
    StepStats s;
    factor(g, s);
    deferred_factor_s_ += s.t_factorization;
  }
  void apply(Group& g, State& state, StepStats& stats) {
    predicted_ = nullptr;  // the state's velocities change: the prediction no longer is its free motion
    if (!g.factored) factor(g, stats);
    auto t0 = Clock::now();
    g.solver->solve(g.e, g.x);
    if (!g.x.allFinite()) throw SimulationError("impulse solve produced a non-finite impulse (singular system?)");
    g.cs.apply_impulse(g.x, state);
    stats.t_solve += since(t0);
  }

  std::vector<std::vector<int>> parts_spec_;
  Eigen::Matrix<double, Eigen::Dynamic, 3> B_;
  Eigen::VectorXd rhs_, sol_;
  LinearSolverFactory make_;
  std::vector<Group> groups_;
  State pred_;
  bool predicts_all_ = false;         // one group, and it predicts every dynamic body
  const State* predicted_ = nullptr;  // pred_ is the free motion of this state (no impulse since)
  double deferred_factor_s_ = 0;
};

}  // namespace

std::unique_ptr<Corrector> make_joint_corrector() { return std::make_unique<JointCorrector>(); }
std::unique_ptr<Corrector> make_group_corrector(std::vector<std::vector<int>> parts, LinearSolverFactory make) {
  return std::make_unique<GroupCorrector>(std::move(parts), make);
}

// ---------------------------------------------------------------------------------------------
// the step

ImpulseMethod::ImpulseMethod(MethodInfo info, ImpulseOptions options, std::unique_ptr<Corrector> corrector)
    : info_(std::move(info)), opt_(options), corrector_(std::move(corrector)) {}

void ImpulseMethod::do_init(const Model& model, const State& state) {
  corrector_->init(model, state);
  contacts_ = ContactSet(model, opt_.contact_margin, opt_.contacts_from_start);
  StepStats unused;
  corrector_->update(model, state, unused);
}

namespace {
// Sweeps until the error is within tol; with tol = 0, until it is at round-off level (below
// kRoundoffRegime) and stops decreasing: the correction is then solved as exactly as the arithmetic
// allows. (A Gauss-Seidel sweep's error need not fall monotonically far from convergence, so a
// rise above that level is not taken as stagnation.)
constexpr double kRoundoffRegime = 1e-10;
// a contact whose gap after the step is at most this (or tol_p) takes part in the velocity phase
constexpr double kContactSlack = 1e-9;
// With `limit_reached`, reaching max_iter with a finite error ends the iteration and sets it
// (the contact phases' limit, ImpulseOptions::contact_iterations) instead of failing.
template <class Sweep>
void iterate(Sweep&& sweep, double tol, long max_iter, long& iterations, double& residual, const char* what,
             const std::string& who, bool* limit_reached = nullptr) {
  double err = 0, prev = std::numeric_limits<double>::infinity();
  long it = 0;
  for (;;) {
    err = sweep();
    ++it;
    if (err <= tol) break;
    if (tol == 0 && err < kRoundoffRegime && err >= prev) break;  // stagnated at round-off
    if (limit_reached && it >= max_iter && std::isfinite(err)) {
      *limit_reached = true;
      break;
    }
    if (it >= max_iter || !std::isfinite(err))
      throw SimulationError(fmt::format("{}: {} correction did not converge in {} sweeps (error {:.3g} > tolerance {:.3g})",
                                        who, what, it, err, tol));
    prev = err;
  }
  iterations += it;
  residual = err;
}

// A correction phase whose `sweep` visits the contacts while `with_contacts`: with
// opt.contact_iterations > 0 the sweeps with contacts end after that many, and the joints alone
// are then iterated to the tolerance (ImpulseOptions::contact_iterations).
template <class Sweep>
void iterate_phase(Sweep&& sweep, bool& with_contacts, double tol, const ImpulseOptions& opt, long& iterations, double& residual,
                   const char* what, const std::string& who) {
  bool limited = false;
  const bool limit = with_contacts && opt.contact_iterations > 0;
  iterate(sweep, tol, limit ? opt.contact_iterations : opt.max_iter, iterations, residual, what, who, limit ? &limited : nullptr);
  if (!limited) return;
  with_contacts = false;  // the joints alone, to the tolerance
  iterate(sweep, tol, opt.max_iter, iterations, residual, what, who);
}
}  // namespace

PhaseTimer::PhaseTimer(const Corrector& c, StepStats& stats)
    : stats_(stats), on_(!c.times_parts()), t_contact0_(stats.t_contact) {
  if (on_) t0_ = Clock::now();
}
PhaseTimer::~PhaseTimer() {
  if (on_) stats_.t_solve += since(t0_) - (stats_.t_contact - t_contact0_);
}

void correct_positions(Corrector& c, const Model& model, const StepLoads& loads, double span, State& state,
                       const ImpulseOptions& opt, StepStats& stats, const std::string& who, ContactSet* contacts) {
  PhaseTimer timer(c, stats);
  bool with_contacts = contacts && contacts->size() > 0;
  if (with_contacts) contacts->begin_position_phase();
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
  iterate_phase(sweep, with_contacts, opt.tol_p, opt, stats.pos_iterations, stats.pos_residual, "position", who);
}

void correct_velocities(Corrector& c, State& state, const ImpulseOptions& opt, StepStats& stats, const std::string& who,
                        ContactSet* contacts) {
  PhaseTimer timer(c, stats);
  bool with_contacts = contacts && contacts->size() > 0;
  auto sweep = [&] {
    double err = 0;
    for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_velocity(g, state, opt.tol_v, stats));
    if (with_contacts) {
      const auto t0 = Clock::now();
      err = std::max(err, contacts->velocity_sweep(state, opt.tol_v));
      stats.t_contact += since(t0);
    }
    return err;
  };
  iterate_phase(sweep, with_contacts, opt.tol_v, opt, stats.vel_iterations, stats.vel_residual, "velocity", who);
}

void resolve_collisions(Corrector& c, ContactSet& contacts, State& state, const ImpulseOptions& opt, StepStats& stats,
                        const std::string& who) {
  if (!contacts.begin_collision_phase(state, opt.tol_v)) return;
  PhaseTimer timer(c, stats);
  iterate(
      [&] {
        const auto t0 = Clock::now();
        double err = contacts.collision_sweep(state, opt.tol_v);
        stats.t_contact += since(t0);
        for (int g = 0; g < c.groups(); ++g) err = std::max(err, c.correct_velocity(g, state, opt.tol_v, stats));
        return err;
      },
      opt.tol_v, opt.max_iter, stats.vel_iterations, stats.vel_residual, "collision", who);
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
  step_loads(model, state.t, h, loads_);
  // the springs' forces, held over the step: at its start (explicit) or linearly implicit
  if (opt_.implicit_springs)
    springs_.loads(model, state, h, loads_, loads_, corrector_->response());
  else
    loads_at(model, state, loads_, loads_);
  // 0. contacts: found on the preview of the step, the free motion after the joints' position
  // correction (tomcin2014 s.7: joints are fulfilled before each collision detection, so that a
  // body resting on a jointed one is seen to touch it), and (contact_detection=start) the pairs
  // touching at the step's start from there; collisions resolved on the velocities now
  ContactSet* contacts = nullptr;
  if (contacts_.enabled()) {
    const auto t0 = Clock::now();
    probe_ = state;
    if (!model.joints.empty()) correct_positions(*corrector_, model, loads_, h, probe_, opt_, stats, info_.name);
    free_motion(model, loads_, h, probe_, preview_);
    stats.t_contact += since(t0);
    contacts_.detect(model, preview_, state, stats, opt_.couple_contacts ? corrector_->coupling() : nullptr);
    contacts = &contacts_;
    resolve_collisions(*corrector_, contacts_, state, opt_, stats, info_.name);
  }
  // 1. position correction on the look-ahead prediction over the whole step
  correct_positions(*corrector_, model, loads_, h, state, opt_, stats, info_.name, contacts);
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
  correct_velocities(*corrector_, state, opt_, stats, info_.name, contacts);
}

}  // namespace mb
