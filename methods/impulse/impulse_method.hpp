// The impulse-based step shared by `iterative`, `sle` and `linear` (schmitt2003; bender2007 s.3):
//  1. position correction: predict the state at t+h by free motion (look-ahead, external loads
//     included), measure the joint errors e on the prediction, apply the impulses that change the
//     joints' relative velocities by -e/h; repeat until every |e| <= tol_p;
//  2. free motion of every body over h with the corrected velocities (= the last prediction);
//  3. velocity correction: apply the impulses that cancel the joints' relative velocities J V;
//     repeat until every |J V| <= tol_v.
// The Jacobians (and, for the linear-system solvers, the factorisation of A = J M^-1 J^T) are
// computed once per step at the end of step 3's free motion; they serve the velocity correction
// and the next step's position correction (bender2007 s.3: "factorised only once per step").
// The three methods differ only in how the impulses are computed (the Corrector): joint by joint
// (Gauss-Seidel), or for groups of joints at once by a linear solver.
// Errors are measured per row: rods | |a-b| - L |, ball joint components of a - b (m); rotational
// rows in rad. A correction that has not converged after max_iter sweeps is a SimulationError.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/constraint_system.hpp"
#include "methods/contacts/contacts.hpp"
#include "methods/forces/implicit_springs.hpp"
#include "methods/method.hpp"
#include "methods/solvers/linear_solver.hpp"

namespace mb {

struct ImpulseOptions {
  double tol_p = 1e-6;   // m (rad for rotational rows)
  double tol_v = 1e-6;   // m/s (rad/s)
  long max_iter = 1000;  // sweeps per correction
  bool couple_contacts = true;  // contacts as the last rows of the joints' system (tomcin2014 s.7), where it is factored
  // > 0: the sweeps of a phase with contacts stop after this many (tomcin2014 s.3 and s.7: its
  // iterations end at a maximum count), the contacts keep their impulses and the joints alone are
  // then corrected to tol_p / tol_v; 0: contacts and joints sweep together until they converge, and
  // only a phase still above the tolerance after max_iter sweeps ends the contacts so. Either
  // counts in StepStats::contact_stops (the contacts' residual shows as penetration and slip).
  long contact_iterations = 0;
  // contacts: pairs closer than this on the preview are found too (speculative contacts, inert
  // unless the step would close them), m; 0: only the pairs that penetrate on the preview
  double contact_margin = 1e-4;
  // contacts: true = a shape pair within contact_margin at the step's start keeps the start's
  // contacts, the preview adds the new pairs; false = every contact from the preview
  bool contacts_from_start = true;
  // the springs' forces: false = at the start of the step, held over it (explicit); true = the
  // linearly implicit tensions of ImplicitSprings (methods/forces/implicit_springs.hpp)
  bool implicit_springs = false;
  // > 0 (anytime, schmitt2003 s.3: "the loop can be interrupted at any time"): every correction
  // phase stops after this many sweeps and the step goes on with the error reached (recorded as the
  // phase's residual and in StepStats::budget_stops); only a non-finite error fails. 0: off
  long budget = 0;
  // adaptive step (schmitt2003 s.3): a step whose corrections fail is taken again as two of half
  // the size, down to h / 2^kMaxHalvings; after kGrowAfter good internal steps the size doubles
  // back, up to the driver's h
  bool adaptive = false;
  static constexpr int kMaxHalvings = 10;
  static constexpr int kGrowAfter = 8;
  // joints broken at the start (kBrokenJointTolerance, models/kinematics.hpp; schmitt2003 s.3: "the
  // correction method can even fix a model which has totally broken joints"): true = each step
  // first projects the positions onto the joints (project_positions: the velocities kept, no
  // energy added) with at most max_iter sweeps (budget's, if set), ending without failure; while
  // the joints are still open beyond tol_p
  // (kRepairedTolerance with tol_p = 0) the rest of the step is the free motion and a velocity
  // correction of as many sweeps, and the steps after that are the method's own. false = the
  // step's look-ahead correction closes them at once (the gap over h becomes velocity)
  bool repair_project = true;
  // Redundant rows (closed loops of 3-D joints, as a planar linkage) agree only to the order of
  // the joints' position errors: at a state whose joints hold to tol_p their velocity rows ask
  // for relative velocities that differ by about tol_p times the links' relative rates, and
  // directions of A with eigenvalues far below a regularization's shift (tomcin) are corrected by
  // a fraction of it per sweep (docs/method-notes.md, "The velocity floor"). true: a velocity
  // correction whose error stops falling within 10 tol_v ends there (its residual kept: the
  // record's CD_vel_max shows it); false: it fails after max_iter sweeps
  bool velocity_floor = false;
  // Warm start: the preview's and the step's position correction and the velocity correction each
  // begin with the impulses that the same phase of the step before ended with (every joint's and
  // unbounded motor's, and every contact's found again on the same shape pair), applied to the
  // velocities, and iterate from there to the same tolerances: the same fixed point within them,
  // reached in few sweeps where the impulses change little from step to step (a mechanism
  // carrying a steady load). false: every phase from zero impulses (schmitt2003, bender2007)
  bool warm_start = false;
  // A rolling wheel's nonholonomic rows (the contact's sideways slip): true = in the look-ahead
  // position correction too, as the slip displacement over the step by the trapezoid (its slip at
  // the start and on the prediction), and in the velocity correction (order 2); false = in the
  // velocity correction only, the sideways force reaching the positions a step late (order 1)
  bool rolling_slip_in_position = true;
};
std::vector<OptionInfo> impulse_options_info();
// The metadata iterative, sle and linear share: family, the tolerance options, the declared order
// (2, with tight tolerances), the features, timing-table eligibility. Each adds its own name,
// paper name, description, source and timing size.
MethodInfo impulse_method_info();
ImpulseOptions parse_impulse_options(const MethodOptions& options);
// the `coupling` option of contacts (contacts.hpp), shared by every impulse method
OptionInfo contact_coupling_option();
bool parse_contact_coupling(const MethodOptions& options);
// the `contact_iterations` option (ImpulseOptions::contact_iterations), shared likewise
OptionInfo contact_iterations_option();
long parse_contact_iterations(const MethodOptions& options);
// the `contact_margin` option (ImpulseOptions::contact_margin), shared likewise
OptionInfo contact_margin_option();
double parse_contact_margin(const MethodOptions& options);
// the `contact_detection` option (ImpulseOptions::contacts_from_start), shared likewise
OptionInfo contact_detection_option();
bool parse_contact_detection(const MethodOptions& options);
// the `warm_start` option (ImpulseOptions::warm_start), shared likewise
OptionInfo warm_start_option();
bool parse_warm_start(const MethodOptions& options);
// the `velocity_floor` option (ImpulseOptions::velocity_floor) of the methods that take redundant
// constraints (sle, tomcin), on by default
OptionInfo velocity_floor_option();
bool parse_velocity_floor(const MethodOptions& options);
// the `rolling` option (ImpulseOptions::rolling_slip_in_position) of the methods that take rolling
// wheels (iterative, sle, linear)
OptionInfo rolling_slip_option();
bool parse_rolling_slip(const MethodOptions& options);
// the `springs` option (ImpulseOptions::implicit_springs), shared likewise
OptionInfo spring_treatment_option();
bool parse_spring_treatment(const MethodOptions& options);

// The phases of a step that warm starting (ImpulseOptions::warm_start) keeps impulses for: the
// preview's position correction (no contacts), the step's position correction, its velocity
// correction. None: a phase from zero, remembered by nothing (the collision phase, the repair's
// projection, the higher-order and Lagrange methods' corrections).
enum class WarmPhase { None = -1, Preview = 0, Position = 1, Velocity = 2 };

// The impulses one ConstraintSystem's rows accumulate in each warm-started phase, kept to begin
// the same phase of the next step (ImpulseOptions::warm_start): the shared part of the correctors'
// warm start. Impulses carrying a steady load grow with the span they act over, so a phase over
// another span begins with them scaled by the ratio of the spans.
class ImpulseMemory {
 public:
  // rows of the system; forgets every phase
  void reset(int rows);
  // A phase begins: accumulated() = its remembered impulses (scaled to `span`), or zero for a
  // phase not yet remembered (WarmPhase::None: nothing is accumulated, and false). True when that
  // start is not zero: the caller then applies accumulated() to the velocities.
  bool begin(WarmPhase phase, double span);
  const Eigen::VectorXd& accumulated() const { return acc_; }
  // an impulse of rows [row, row + dim) applied in the phase
  void add(int row, int dim, const Eigen::Matrix<double, 6, 1>& x) {
    if (phase_ != WarmPhase::None) acc_.segment(row, dim) += x.head(dim);
  }
  void add(const Eigen::VectorXd& x) {
    if (phase_ != WarmPhase::None) acc_ += x;
  }
  // the phase ended: its impulses are remembered for the next step's
  void end();

 private:
  static constexpr int kPhases = 3;
  WarmPhase phase_ = WarmPhase::None;
  double span_ = 0;
  Eigen::VectorXd acc_;
  Eigen::VectorXd kept_[kPhases];
  double kept_span_[kPhases] = {0, 0, 0};  // 0: nothing kept
};

// How impulses are computed. A corrector works on groups of joints; one sweep visits every group.
class Corrector {
 public:
  virtual ~Corrector() = default;
  virtual void init(const Model& model, const State& state) = 0;
  // Jacobians (and factorisations) at `state`.
  virtual void update(const Model& model, const State& state, StepStats& stats) = 0;
  virtual int groups() const = 0;
  // Predicts the bodies of group g over h from `state`, measures the group's position error and,
  // if it exceeds tol, applies the correcting impulses to `state`. Returns the error measured.
  virtual double correct_position(int g, const Model& model, const StepLoads& loads, double h, State& state,
                                  double tol, StepStats& stats) = 0;
  // The same for the velocity error J V.
  virtual double correct_velocity(int g, State& state, double tol, StepStats& stats) = 0;
  // The coupling of contacts to the joints (contacts.hpp), nullptr where the corrector has no
  // factorization of the whole A (joint by joint; several groups).
  virtual ArticulationCoupling* coupling() { return nullptr; }
  // The factored articulation for the implicit force elements (implicit_springs.hpp): coupling()
  // where it exists, and also where the corrector keeps its contacts uncoupled (linear)
  virtual ArticulationCoupling* response() { return coupling(); }
  // true when coupling() holds every row the corrector corrects and solves them through a
  // factorization of A itself: a coupled contact's impulse x = -A^-1 B lambda then leaves every
  // row's velocity error as it was (J M^-1 Jc^T lambda - A x = 0 to round-off), and a velocity
  // correction need not measure the joints again until the contacts hold (correct_velocities)
  virtual bool contacts_keep_joints() const { return false; }
  // When the last position sweep predicted every dynamic body from `state` and applied no impulse
  // after it (the sweep that found the error within tolerance), that prediction is the free motion
  // of `state` over the same span: swaps it into out.bodies and returns true (the same bits as
  // free_motion, one evaluation less). False when the corrector cannot tell.
  virtual bool take_prediction(const State& state, State& out) {
    (void)state, (void)out;
    return false;
  }
  // Whether correct_position and correct_velocity time their own parts (the prediction as
  // integration, the impulses as solve, a lazy factorization as factorization). The joint-by-joint
  // corrector does not: a clock read costs about as much as one joint's correction, so the phases
  // below time its sweeps as a whole, as solve (PhaseTimer).
  virtual bool times_parts() const { return true; }
  // The motor rows' time for a step of span h from `start` (ConstraintSystem::begin_motor_step),
  // before its corrections.
  virtual void begin_step(const Model& model, const State& start, double h) {
    (void)model, (void)start, (void)h;
  }
  // A position correction begins: the bounded motors' impulses of the step start from zero.
  virtual void begin_position_phase() {}
  // Warm start (ImpulseOptions::warm_start): a phase begins over `span`; the corrector applies to
  // `state` the impulses its rows ended the same phase of the last step with (ImpulseMemory) and
  // accumulates this phase's from them. WarmPhase::None: from zero, kept for nothing. A corrector
  // without a memory (the default) starts every phase from zero.
  virtual void begin_warm(WarmPhase phase, double span, State& state) { (void)phase, (void)span, (void)state; }
  // the phase begun by begin_warm ended (converged): its impulses are kept for the next step's
  virtual void end_warm() {}
  // The motor rows the corrector holds (with_extra_rows adds the others)
  virtual MotorRows motor_rows() const { return MotorRows::Unbounded; }
  // Whether it holds the rolling wheels' rows (with_extra_rows adds them where not)
  virtual bool holds_wheels() const { return false; }
};

// Times a correction phase of a corrector that does not time its parts, as a whole, into
// stats.t_solve (the contacts' share, timed inside the phase as t_contact, left out); does
// nothing for a corrector that times its parts.
class PhaseTimer {
 public:
  PhaseTimer(const Corrector& c, StepStats& stats);
  ~PhaseTimer();
  PhaseTimer(const PhaseTimer&) = delete;
  PhaseTimer& operator=(const PhaseTimer&) = delete;

 private:
  StepStats& stats_;
  bool on_;
  double t_contact0_;
  std::chrono::steady_clock::time_point t0_;
};

// Block Gauss-Seidel over single joints (schmitt2003): each joint's impulse from its own
// dim x dim block A_ii of A. The joints' and motors' rows, no wheel's.
std::unique_ptr<Corrector> make_joint_corrector();
// Motor rows alone, one by one (projected Gauss-Seidel): a bounded motor's impulse over a step,
// summed over its position and velocity corrections, stays within max_force h, and a row held at
// its bound reports no error (a bound is not a row of a factored system; nor is a motor's row
// beside its joint's in a tree solver, where the two would close a cycle).
// (`rows`: OnlyBounded or OnlyAll)
std::unique_ptr<Corrector> make_motor_corrector(MotorRows rows);
// `main` with the motor rows it does not hold (make_motor_corrector), then the rolling wheels' rows
// if it does not hold them, visited after its groups in every sweep (block Gauss-Seidel), where the
// model has such rows (main itself otherwise). A wheel's rows are one group of a joint-by-joint
// corrector: in a position sweep its holonomic row alone (the contact's height; the nonholonomic
// rows have no position error and take no part), in a velocity sweep its three rows at once. The
// coupled joints' rows (methods/constraints/coupling_rows.hpp) come last, one group each.
std::unique_ptr<Corrector> with_extra_rows(const Model& model, std::unique_ptr<Corrector> main, bool slip_in_position = true);

// Groups of joints each solved at once by its own LinearSolver; several groups are iterated
// (bender2007 s.5). `parts` lists the model's joint indices per group (one group of all joints
// when empty); `wheels`: the rolling wheels' rows held (ConstraintSystem).
std::unique_ptr<Corrector> make_group_corrector(std::vector<std::vector<int>> parts, LinearSolverFactory make_solver,
                                                MotorRows motors = MotorRows::Unbounded, WheelRows wheels = WheelRows::Whole);

// The phases of the impulse step, shared by every method that corrects with impulses.
// Position correction: impulses such that free motion over `span` from `state` satisfies every
// joint to opt.tol_p (look-ahead). Velocity correction: impulses cancelling J V to opt.tol_v.
// Both use the corrector's current Jacobians; both throw SimulationError after opt.max_iter sweeps.
// With `contacts`, each sweep also visits the contacts (their position or velocity phase, which
// the caller began), Gauss-Seidel with the joints (docs/contacts.md); with
// opt.contact_iterations > 0 after that many sweeps, else after max_iter, the joints are finished
// alone.
// `warm` (with opt.warm_start): the phase's corrector and contact impulses begin from those of
// the same phase of the step before (Corrector::begin_warm, ContactSet's warm start).
void correct_positions(Corrector& c, const Model& model, const StepLoads& loads, double span, State& state,
                       const ImpulseOptions& opt, StepStats& stats, const std::string& who, ContactSet* contacts = nullptr,
                       WarmPhase warm = WarmPhase::None);
void correct_velocities(Corrector& c, State& state, const ImpulseOptions& opt, StepStats& stats, const std::string& who,
                        ContactSet* contacts = nullptr, WarmPhase warm = WarmPhase::None, double span = 0);
// The collision phase (contacts.hpp): restitution impulses of the approaching contacts, with the
// joints' velocity correction in each sweep, until both hold.
void resolve_collisions(Corrector& c, ContactSet& contacts, State& state, const ImpulseOptions& opt, StepStats& stats,
                        const std::string& who);
// Impulse position projection (schmitt2005 s.5, LMVD4 step (c)): with the velocities set to zero
// and no external loads, the position correction over `span` and the free motion over `span`
// move the bodies onto the constraints; the velocities are then restored. Uses the corrector's
// current Jacobians (call c.update() at `state` first).
void project_positions(Corrector& c, const Model& model, double span, State& state, const ImpulseOptions& opt,
                       StepStats& stats, const std::string& who);

class ImpulseMethod : public Method {
 public:
  ImpulseMethod(MethodInfo info, ImpulseOptions options, std::unique_ptr<Corrector> corrector);
  const MethodInfo& info() const override { return info_; }

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  void step_once(const Model& model, State& state, double h, StepStats& stats);
  void step_adaptive(const Model& model, State& state, double h, StepStats& stats);

  MethodInfo info_;
  ImpulseOptions opt_;
  std::unique_ptr<Corrector> corrector_;
  bool extra_rows_ = false;  // corrector_ went through with_extra_rows
  ImplicitSprings springs_;
  StepLoads loads_;
  State next_;
  ContactSet contacts_;
  State probe_, preview_;
  // adaptive: the current halvings of the driver's step, the good internal steps at this size, and
  // the state an internal step starts from (restored when it fails)
  int halvings_ = 0;
  int good_steps_ = 0;
  State saved_;
  bool broken_ = false;  // the joints are still open beyond tol_p (repair_project)
};

}  // namespace mb
