// Contacts in the impulse step (docs/contacts.md; tomcin2014 s.7, after Guendelman et al. 2003).
// Contacts are found on the preview of the step (free motion over h with the external loads) and,
// for the shape pairs already touching, at its start (ContactSet's from_start); each becomes three rows, the normal n (from body a to body b) and two tangents, on the relative
// velocity u = P (v_b(p_b) - v_a(p_a)) of its two points. An impulse lambda on the rows adds
// +P^T lambda to b at p_b and -P^T lambda to a at p_a. Each phase accumulates its impulses from zero
// (or, warm started, from the last step's: warm()) and projects them, one contact at a time
// (Gauss-Seidel): lambda_n >= 0, and Coulomb's cone
// |lambda_t| <= mu_static lambda_n; a tangential impulse that would leave the cone slides, with
// |lambda_t| = mu_dynamic lambda_n against the slide.
//  - collision phase (before the position correction, on the velocities at the start of the step):
//    a contact approaching with u_n < 0 separates with u_n >= -e u_n (restitution e), and the
//    friction impulse opposes the tangential velocity;
//  - position phase (with the joints' position correction): the predicted gap over the step
//    becomes >= 0 and, for a sticking contact, the predicted tangential displacement 0;
//  - velocity phase (with the joints' velocity correction, for the contacts still touching):
//    u_n >= 0 and, for a sticking contact, u_t = 0.
// The position and velocity phases split the contact impulse of a resting or sliding contact
// into halves, which makes a sliding block's motion exact (x = v h + a h^2/2 with
// a = g (sin theta - mu cos theta)) and a resting body stay where it is to round-off.
// Joint limits (with `limits`: Joint::lower, upper) are rows of the same phases: one normal row
// per side of a limited hinge or slider, on the joint's coordinate q (models/kinematics.hpp
// motor_coordinate: a hinge's angle wrapped into (-pi, pi], a slider's displacement), with the gap
// q - lower or upper - q and the velocity +-q' (J V: a hinge's u . (w_b - w_a), a slider's rate of
// (p_b - p_a) . u). A side is a row when its gap on the preview or at the start is within the
// margin; its impulse is >= 0 (a torque or force pair about or along the axis), it never
// collides (inelastic: no bounce), and it is coupled to the articulation as a contact is.
#pragma once
#include <vector>

#include <Eigen/Eigenvalues>

#include "methods/bodies/free_motion.hpp"
#include "methods/constraints/joint_limits.hpp"
#include "methods/method.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"

namespace mb {

// The articulation a contact is coupled to (tomcin2014 s.7): the contact's three rows are the last
// rows of the joints' system [A B; B^T K], solved through the factorization of A that the step
// already has. An impulse lambda on the contact then comes with the joint impulses
// x = -A^-1 B lambda that leave every joint's velocity unchanged, and changes the contact's own
// velocity by S lambda, S = K - B^T A^-1 B: the contact sees the articulated bodies' effective mass.
// Implemented by the impulse correctors that factor A (sle, linear, tomcin; one group).
class ArticulationCoupling {
 public:
  virtual ~ArticulationCoupling() = default;
  // Jc: the contact rows' Jacobian blocks of bodies a and b (-1: none), 3 x body_dim each.
  // Fills Y = A^-1 B (joint rows x 3) and returns B^T Y; false when nothing couples.
  virtual bool couple(int a, const Eigen::Matrix<double, 3, 6>& Ja, int b, const Eigen::Matrix<double, 3, 6>& Jb,
                      Eigen::Matrix<double, Eigen::Dynamic, 3>& Y, Mat3& BtY) = 0;
  // V += M^-1 J^T x for joint impulses x (joint rows)
  virtual void apply_joint_impulse(const Eigen::VectorXd& x, State& s) = 0;
  // The part of apply_joint_impulse(x) that reaches one body, added to `b` (the same to round-off)
  virtual void joint_impulse_on_body(const Eigen::VectorXd& x, int body, BodyState& b) = 0;
  // The joints' response to body velocity changes: dV holds one change per column, [v; w] of body k
  // in rows 6k..6k+5 (a particle's w rows ignored). Fills PhiDV = J dV (joint rows x columns), the
  // joint rows' velocity change, and Y = A^-1 PhiDV: the joint impulses -Y cancel it, and the change
  // left is dV - M^-1 J^T Y (force elements, methods/forces/implicit_springs.hpp). False when
  // nothing couples.
  virtual bool joint_response(const Eigen::MatrixXd& dV, Eigen::MatrixXd& PhiDV, Eigen::MatrixXd& Y) = 0;
};

// The sliding friction impulse (Coulomb's law with maximal dissipation): of the tangential
// impulses in the disk |lambda| <= radius (mu lambda_n), the one nearest to `stick`, the impulse that
// would have stuck, in the metric of the tangential rows' compliance Ktt (s.p.d.):
//   minimize (lambda - stick)^T Ktt (lambda - stick) / 2 subject to |lambda| <= radius.
// At the solution Ktt (lambda - stick) = -nu lambda with nu >= 0: the slide left after the impulse
// is opposite to the friction impulse, as Coulomb's law demands, and the impulse is continuous
// across the cone's boundary. (Opposing the slide the contact would have without its own friction,
// Ktt stick, is neither where Ktt is anisotropic, as for the foot of a mechanism coupled to its
// joints: a contact at the cone's boundary then flipped between sticking and a sliding impulse of
// another direction from sweep to sweep, and the correction never converged: docs/contacts.md,
// "The Strandbeest landing".) For |stick| <= radius the answer is `stick`; callers use it beyond.
Eigen::Vector2d slide_friction(const Eigen::Matrix2d& Ktt, const Eigen::Vector2d& stick, double radius);
// A contact's rows for its normal n: P = [n; t1; t2], right-handed, t1 = n.unitOrthogonal()
Eigen::Matrix3d contact_frame(const Vec3& n);
// The same with Ktt's eigen-decomposition given, for a caller that projects onto one cone often.
Eigen::Vector2d slide_friction(const Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>& Ktt, const Eigen::Vector2d& stick, double radius);

class ContactSet {
 public:
  ContactSet() = default;
  // margin > 0: also the pairs closer than the margin on the preview (speculative contacts, inert
  // unless a phase would close them; they never collide)
  // from_start: a shape pair within the margin at the step's start takes its contacts (normal,
  // points) from there, and the preview adds only the pairs new over the step (docs/contacts.md,
  // "Detection at the start"); false: every contact from the preview (tomcin2014 s.7)
  // limits: the model's joint limits are rows too (above)
  explicit ContactSet(const Model& model, double margin = 0, bool from_start = false, bool limits = false);
  bool enabled() const { return enabled_; }
  size_t size() const { return rows_.size(); }
  // whether the last detect() coupled the contacts to an articulation (a contact's impulse then
  // comes with the joint impulses that keep the joints' rows where they were)
  bool coupled() const { return coupling_ != nullptr; }

  // Finds the contacts on `preview` (the state the step would reach without contacts), and with
  // from_start those at `state` (the step's start), and prepares their rows and effective masses at
  // `state`. With `coupling`, each contact is coupled
  // to the articulation (above).
  void detect(const Model& model, const State& preview, const State& state, StepStats& stats,
              ArticulationCoupling* coupling = nullptr);
  // Recomputes the contacts' lever arms, effective masses and coupling at `state`, with the
  // coupling's current factorization: the impulse step refactors A at the end of the step, and a
  // contact coupled through the A of the step's start would then apply joint impulses -A^-1 B
  // lambda computed for the old Jacobians with the new ones (docs/contacts.md, "The Strandbeest
  // landing").
  void refresh(const Model& model, const State& state);
  // Phases; each sweep returns its largest remaining error (m/s for velocities, m for positions).
  // The collision phase starts with the contacts approaching at `state` (u_n < -tol) whose
  // restitution is positive; false if there are none.
  // With `hold`, a sweep keeps the joint impulses of its coupled contacts back (they stay pending
  // for the next sweeps, whose contacts read their bodies with them added) until apply_held():
  // for a caller that knows the joints need none of them to be measured (correct_velocities).
  bool begin_collision_phase(const State& state, double tol);
  double collision_sweep(State& state, double tol, bool hold = false);
  void begin_position_phase();
  // limits_only: the joint limits' rows alone
  double position_sweep(const Model& model, const StepLoads& loads, double h, State& state, bool limits_only = false);
  // rows of joint limits in the last detect()
  int limit_rows() const { return limit_rows_; }
  // The velocity phase starts with the contacts whose gap at `state` is at most `slack`.
  void begin_velocity_phase(const State& state, double slack);
  double velocity_sweep(State& state, double tol, bool hold = false);
  // Applies the joint impulses the sweeps held back (nothing if none)
  void apply_held(State& s) { flush(s); }

  // Warm start (the impulse methods' warm_start): after begin_position_phase or
  // begin_velocity_phase, each contact of the phase begins with the impulse its predecessor ended
  // the same phase of the last step with, applied to `state` (with its joint impulses, where
  // coupled) and projected onto the cone. A contact's predecessor is the one at the same place among
  // the contacts of the same shape pair, where the pair had as many rows; a contact new, or of a
  // pair whose rows changed, begins from zero. The impulse is kept as a world vector (the tangent
  // axes follow the normal) scaled by span / the span it was made over.
  enum class Phase { Position = 0, Velocity = 1 };
  void warm(Phase phase, double span, State& state);
  // the phase ended: its impulses are kept for the next step's warm()
  void keep(Phase phase, double span);

 private:
  struct Row {
    Contact c;
    Material mat;
    Eigen::Matrix3d P;       // rows n, t1, t2
    Eigen::Matrix3d K;       // P (sum of the bodies' point compliances) P^T; coupled: S = K - B^T A^-1 B
    Eigen::Matrix<double, Eigen::Dynamic, 3> Y;  // coupled: A^-1 B (joint rows x 3); empty otherwise
    Vec3 ra = Vec3::Zero(), rb = Vec3::Zero();  // lever arms: the contact point on the preview from each centre of mass, world
    Vec3 lambda = Vec3::Zero();                 // accumulated impulse of the current phase
    double target_n = 0;                        // collision phase: the separating velocity sought
    bool active = true;
    bool coupled = false;  // Y and S formed (couple())
    bool normal_only = false;  // a member of a patch: its friction is the patch's row
    std::vector<int> members;  // a patch's friction row: its normal rows (before it in rows_)
    int limit = -1;  // a joint limit's row (limits_ index; normal_only, P = 1), else -1
    LimitRow Jl[2] = {LimitRow::Zero(), LimitRow::Zero()};  // a limit's J on c.a, c.b
  };
  void add_limit_rows(const Model& model, const State& preview, const State& state);
  std::vector<LimitSide> limits_;  // the sides of the joints' limits (methods/constraints/joint_limits.hpp)
  int limit_rows_ = 0;
  double margin_ = 0;
  State limit_state_;  // a limit's bodies on the prediction (position_sweep), the others at detect()'s state
  void update_inertia(const Model& model, const State& state);
  void merge_start(const Model& model, const State& state);
  // K of a row at `state` (its lever arms set); its coupling (Y, and S in K) waits for couple()
  void prepare(const Model& model, Row& r);
  // Y and S of a row, through the coupling's factorization, when a phase first projects an impulse
  // of it: many rows of a phase never do (speculative contacts, feet lifting off, rows apart at
  // the step's end), and the coupling solves are the contacts' largest cost. The factorization and the row's lever arms and inertias do not change
  // within a phase, so a row coupled late has the numbers it would have had at once.
  void couple(Row& r);
  Vec3 relative_velocity(const Row& r, const State& s);
  // A sweep applies each contact's own impulse to its bodies at once and sums the joint impulses
  // that come with it (-Y dlambda) into pending_, which reaches every body only when the sweep ends
  // (flush): a contact reads its bodies with the pending joint impulses added (body), so each
  // contact sees every impulse before it, as if each had been applied to every body, and a sweep
  // applies one joint impulse instead of one per contact.
  const BodyState& body(const State& s, int k, BodyState& scratch);
  void flush(State& s);
  double normal_impulse(const Row& r) const;  // a patch row: its members' sum
  void activate_patches();
  // the error of a row in a phase from its normal violation (with and without impulse) and its
  // tangential motion; false when the row has nothing to do
  bool row_error(const Row& r, double normal_with_impulse, double normal_without, const Eigen::Vector2d& tangential,
                 double& err) const;
  void apply(const Row& r, const Vec3& dlambda, State& s);
  // projects lambda + d onto the friction cone (normal first); returns the change applied
  Vec3 project(Row& r, const Vec3& du);

  // a row's impulse at the end of a phase (keep)
  struct Kept {
    int shape_a = -1, shape_b = -1;
    int place = 0, count = 0;  // its place among the pair's rows, and their number
    Vec3 p = Vec3::Zero();     // P^T lambda: the world impulse on b
  };
  std::vector<Kept> kept_[2];
  double kept_span_[2] = {0, 0};
  // calls f(row index, place, count) for every row, by shape pairs
  template <class F>
  void for_each_place(F&& f) const;

  bool enabled_ = false;
  bool from_start_ = false;
  ArticulationCoupling* coupling_ = nullptr;
  const Model* model_ = nullptr;  // the model of the last detect() or refresh(), for couple()
  Eigen::VectorXd pending_;  // the sweep's joint impulses not yet applied (joint rows)
  bool pending_any_ = false;
  std::unique_ptr<CollisionDetector> detector_;
  std::vector<Contact> found_, start_found_, merged_;
  std::vector<char> at_start_;  // per merged_ contact: found at the step's start (else on the preview)
  std::vector<Row> rows_;
  std::vector<double> inv_mass_;          // per body (0: static)
  std::vector<Mat3> inv_inertia_;         // per body, world frame, at detect()
  BodyState pa_, pb_, va_, vb_;
};

}  // namespace mb
