// gc-contact: generalized coordinates with contacts, the scheme of MuJoCo, DART, Bullet's multibody
// and Drake's discrete mode (docs/contacts.md "Contacts in generalized coordinates"):
//  1. the free velocity v* = v + h (H + h D)^-1 H qdd, qdd from the articulated-body algorithm
//     (aba.hpp) with gravity, applied torques, joint dampers and actuators at the step's start;
//     D, the dampers' coefficients and the actuators' velocity gains (-gear^2 bias[2]; also while
//     an actuator's force is clamped to its forcerange), implicit (MuJoCo's implicit damping): a
//     light link on a damped joint stays stable at any h;
//  2. contacts at the step's start (FCL, with a margin: pairs closer than it are speculative rows),
//     and where a body's shapes move more than half the margin in the step, the new pairs of the
//     free motion's end (the preview), their gap measured at the start;
//     each joins body points p_a, p_b with rows n, t1, t2 and the joint-space Jacobian
//     J = P (J_b(p_b) - J_a(p_a)), its columns the motion subspaces of the points' ancestors;
//  3. H, the joint-space mass matrix (CRBA, crba.hpp), with h D factored by CHOLMOD in an AMD
//     order that keeps the tree's sparsity (no fill on a tree), and the Delassus matrix
//     W = J (H + h D)^-1 J^T = Z^T Z, Z = L^-1 P J^T: two contacts couple only through a tree they
//     share, and the contacts so coupled are an island, its W dense over its rows (or sparse rows
//     for a large one);
//  4. velocity-level Signorini-Coulomb impulses lambda by projected Gauss-Seidel over each
//     island's contacts, to its own tolerance: lambda_n >= 0 with the normal velocity after the step u_n >= target, the Coulomb
//     disk |lambda_t| <= mu_static lambda_n, a slide at mu_dynamic lambda_n with maximal
//     dissipation (slide_friction, contacts.hpp); the previous step's impulses start it (warm);
//  5. v+ = v* + (H + h D)^-1 J^T lambda, then q+ = q + h q'(q, v+) (semi-implicit Euler; quaternions
//     turn by exp(h w); a free joint's COM moves with its velocity v_c, which flight keeps).
// Position handling: a penetrating contact's gap after the step is to grow by erp (depth - slop)
// (Baumgarte at the velocity level: it drives a depth beyond `slop` out by the fraction erp a step),
// a speculative one's to stay >= 0 (it may close its gap within the step, no further); the gap
// after the step is the one of the free motion's end (the preview: its turns included) plus
// h (u_n - u*_n), so the target on u_n is u*_n + (gap sought - preview gap) / h. A
// contact approaching at u_n(start) < 0 that closes within the step bounces with restitution e:
// u_n >= -e u_n(start). First order.
// Joint limits are rows like contacts: a side within `margin` of the coordinate, or that the free
// velocity would cross in the step, is a row +-e_i (lambda >= 0, the same targets; no friction;
// margin and slop read in rad on a hinge). A coupling (q_a = multiplier q_b) is a bilateral row
// e_a - multiplier e_b held at 0, as GC4 holds it.
// Trees of rigid bodies only (the joints GC4 takes, massless frames included); no motors.
#pragma once
#include <map>
#include <memory>
#include <tuple>
#include <vector>

#include <Eigen/SparseCore>

#include "methods/method.hpp"
#include "methods/reduced/reduced_system.hpp"
#include "models/collision.hpp"

namespace mb {

// The contact rows' joint-space Jacobian: for each contact, rows n, t1, t2 (3 k .. 3 k + 2) of
// P (J_b(p_b) - J_a(p_a)), from every link's motion subspace at the world origin (crba.hpp's
// subspace_at_origin, after tree_kinematics at q). link_of: each model body's link (-1: fixed).
// p_a and p_b are the contact's points on the state the contacts were found on.
void contact_jacobian(const TreeModel& tree, const std::vector<TreeView::Mat6X>& S, const std::vector<int>& link_of,
                      const State& s, const std::vector<Contact>& contacts, std::vector<Eigen::Triplet<double>>& out);

class GcContact final : public Method {
 public:
  enum class Delassus { Auto, Dense, Sparse };  // an island's W: dense up to 128 rows, or as given
  struct Options {
    int iterations = 100;   // Gauss-Seidel sweeps at most
    double tol = 1e-8;      // m/s: a sweep whose largest velocity change is below ends the solve
    double erp = 0.2;       // fraction of the depth beyond slop removed per step
    double slop = 1e-4;     // m: depth left alone
    double margin = 0.005;  // m: speculative contacts
    bool warm = true;
    Delassus delassus = Delassus::Auto;
  };
  explicit GcContact(Options o) : opt_(o) {}
  static MethodInfo describe();
  static std::unique_ptr<Method> make(const MethodOptions& options);
  const MethodInfo& info() const override;

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;
  // the pairs found on the preview that the start did not find, added to contacts_; moving: the
  // bodies whose shapes move farther than half the margin in the step (the others' pairs keep a gap)
  void add_preview_contacts(const Model& model, const State& state, const std::vector<char>& moving);
  // the limit sides that are rows this step (active_)
  void find_limits(double h, const Eigen::VectorXd& vstar);
  // the impulses lambda (3 per contact, 1 per active limit) for the free velocity vstar, and v+;
  // returns the sweeps taken
  int solve_rows(const Model& model, const State& state, double h, const Eigen::VectorXd& vstart, const Eigen::VectorXd& vstar,
                 StepStats& stats);
  // H at the positions of x_ (and the links' subspaces S_), f = H qdd, and the factorization of
  // H + h D (D: the joint rates' damping)
  void factor_mass_matrix(double h, const Eigen::VectorXd& qdd, Eigen::VectorXd& f, StepStats& stats);
  // q += h q'(q, v) over the coordinates of x, v its velocities
  void advance_positions(double h, std::vector<double>& x) const;

  Options opt_;
  ReducedSystem sys_;
  TreeData hdata_;  // H's and the Jacobians' kinematics
  std::vector<int> link_of_;
  std::vector<double> damping_;  // (nv) a damper's coefficient plus an actuator's velocity gain
  bool damped_ = false;
  std::unique_ptr<CollisionDetector> detector_;
  std::vector<double> x_, dx_, xp_;
  State preview_;  // the free motion's end (solve_rows)
  std::vector<Contact> contacts_, found_;
  std::vector<double> reach_;  // (nbody) the farthest point of a body's shapes from its centre of mass
  std::vector<char> moving_;   // (nbody) add_preview_contacts' moving bodies
  struct Active {
    int limit = 0;   // TreeModel::limits index
    int side = 0;    // 0: lower, 1: upper
    double gap = 0;  // the coordinate's distance inside the limit (negative: beyond it)
  };
  std::vector<Active> active_;
  std::vector<TreeView::Mat6X> S_;
  std::vector<Eigen::Triplet<double>> entries_;
  Eigen::SparseMatrix<double> H_, J_;
  Eigen::VectorXd lambda_;
  bool analyzed_ = false;
  struct Factor;
  std::shared_ptr<Factor> factor_;
  // warm start: each contact's world impulse P^T lambda at the end of the last step, by its shape
  // pair and its place among the pair's contacts
  std::map<std::tuple<int, int, int>, Vec3> kept_;
};

}  // namespace mb
