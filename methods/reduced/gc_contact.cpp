#include "methods/reduced/gc_contact.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <set>

#include <Eigen/CholmodSupport>
#include <fmt/format.h>

#include "core/disjoint_sets.hpp"
#include "core/error.hpp"
#include "methods/contacts/contacts.hpp"
#include "methods/reduced/ball_kernels.hpp"
#include "methods/reduced/crba.hpp"
#include "methods/reduced/tree_util.hpp"
#include "methods/stopwatch.hpp"

namespace mb {

struct GcContact::Factor {
  // simplicial: no BLAS, the same bits on every run
  struct Llt : Eigen::CholmodSimplicialLLT<Eigen::SparseMatrix<double>, Eigen::Lower> {
    cholmod_factor* factor() { return m_cholmodFactor; }
  } llt;
  // sparse_lsolve's workspace: a dense right-hand side and its pattern, CHOLMOD's results
  cholmod_dense *b = nullptr, *x = nullptr, *y = nullptr, *e = nullptr;
  cholmod_sparse *bset = nullptr, *xset = nullptr;
  std::vector<int> iperm;  // a row's place in the factor's order
  std::vector<int> rows;
  ~Factor() {
    cholmod_common& c = llt.cholmod();
    for (cholmod_dense** d : {&b, &x, &y, &e}) cholmod_free_dense(d, &c);
    for (cholmod_sparse** s : {&bset, &xset}) cholmod_free_sparse(s, &c);
  }
  // Z = L^-1 P B for H = P^T L L^T P, column by column through CHOLMOD's sparse right-hand side
  // solve (cholmod_solve2 with Bset): each column costs its reach in the elimination tree (a
  // contact's bodies' ancestors' coordinates), not the whole factor. Z^T Z = B^T H^-1 B.
  void sparse_lsolve(const Eigen::SparseMatrix<double>& B, Eigen::SparseMatrix<double>& Z) {
    cholmod_common& c = llt.cholmod();
    cholmod_factor* L = llt.factor();
    const int n = static_cast<int>(L->n);
    if (!L->is_ll || L->is_super) throw SimulationError("gc-contact: the factor is not a simplicial L L^T");
    if (!b || static_cast<int>(b->nrow) != n) {
      cholmod_free_dense(&b, &c);
      cholmod_free_sparse(&bset, &c);
      b = cholmod_zeros(n, 1, CHOLMOD_REAL, &c);
      bset = cholmod_allocate_sparse(n, 1, n, false, true, 0, CHOLMOD_PATTERN, &c);
      if (!b || !bset) throw SimulationError("gc-contact: CHOLMOD could not allocate its workspace");
    }
    iperm.resize(static_cast<size_t>(n));
    const int* perm = static_cast<const int*>(L->Perm);
    for (int k = 0; k < n; ++k) iperm[static_cast<size_t>(perm ? perm[k] : k)] = k;
    double* bx = static_cast<double*>(b->x);
    int* bi = static_cast<int*>(bset->i);
    int* bp = static_cast<int*>(bset->p);
    Z.resize(n, B.cols());  // empty, compressed: filled column by column (startVec, insertBack)
    Z.reserve(4 * B.nonZeros());
    for (int col = 0; col < B.cols(); ++col) {
      Z.startVec(col);
      int len = 0;
      for (Eigen::SparseMatrix<double>::InnerIterator it(B, col); it; ++it) {
        const int r = iperm[static_cast<size_t>(it.row())];
        bx[r] = it.value();
        bi[len++] = r;
      }
      if (len == 0) continue;
      bp[0] = 0;
      bp[1] = len;
      if (!cholmod_solve2(CHOLMOD_L, L, b, bset, &x, &xset, &y, &e, &c)) throw SimulationError("gc-contact: CHOLMOD's solve failed");
      const double* xx = static_cast<const double*>(x->x);
      const int* xi = static_cast<const int*>(xset->i);
      rows.assign(xi, xi + static_cast<const int*>(xset->p)[1]);
      std::sort(rows.begin(), rows.end());
      for (int r : rows) Z.insertBack(r, col) = xx[r];
      for (int p = 0; p < len; ++p) bx[bi[p]] = 0;
    }
    Z.finalize();
  }
};

void contact_jacobian(const TreeModel& tree, const std::vector<TreeView::Mat6X>& S, const std::vector<int>& link_of,
                      const State& s, const std::vector<Contact>& contacts, std::vector<Eigen::Triplet<double>>& out) {
  out.clear();
  for (size_t k = 0; k < contacts.size(); ++k) {
    const Contact& c = contacts[k];
    const Eigen::Matrix3d P = contact_frame(c.normal);
    // the point velocity of body `body` at p is sum over its links' ancestors j of
    // (S_v,j + S_w,j x p) qd_j = (S_v,j - [p]x S_w,j) qd_j; b's counts +, a's -
    auto add = [&](int body, const Vec3& local, double sign) {
      if (body == kWorld) return;
      const int leaf = link_of[static_cast<size_t>(body)];
      if (leaf < 0) return;  // a static body
      const Vec3 p = body_point(s, body, local);
      for (int j = leaf; j >= 0; j = tree.link[static_cast<size_t>(j)].parent) {
        const TreeLink& L = tree.link[static_cast<size_t>(j)];
        for (int d = 0; d < L.nd; ++d) {
          const Vec6 col = S[static_cast<size_t>(j)].col(d);
          const Vec3 pv = col.tail<3>() - p.cross(col.head<3>());
          const Vec3 row = sign * (P * pv);
          for (int r = 0; r < 3; ++r) out.emplace_back(static_cast<int>(3 * k) + r, L.iv + d, row(r));
        }
      }
    };
    add(c.b, c.local_b, 1);
    add(c.a, c.local_a, -1);
  }
}

MethodInfo GcContact::describe() {
  MethodInfo i;
  i.name = "gc-contact";
  i.description = "generalized coordinates with contacts: ABA free velocity, CRBA mass matrix (CHOLMOD, tree sparsity), joint-space "
      "contact Jacobians, velocity-level Signorini-Coulomb impulses by projected Gauss-Seidel, semi-implicit Euler";
  i.source = "ours (the scheme of MuJoCo, DART and Drake's discrete mode)";
  i.family = "reduced";
  i.options = {OptionInfo::integer("iterations", "100", "Gauss-Seidel sweeps over the contacts at most", 1, 1e9),
               OptionInfo::number("tol", "1e-8", "m/s: the sweeps end when the largest velocity change of a sweep is below", 0, 1, true),
               OptionInfo::number("erp", "0.2", "fraction of a contact's depth beyond slop removed per step", 0, 1),
               OptionInfo::number("slop", "1e-4", "m: the depth a contact keeps without correction", 0, 1),
               OptionInfo::number("margin", "0.005", "m: shape pairs closer than this become speculative contacts", 0, 1),
               OptionInfo::choice("warm", "on", "start each contact's impulses from its last step's", {"on", "off"}),
               OptionInfo::choice("delassus", "auto",
                                  "an island's W: dense, sparse rows, or auto (dense up to 128 rows)",
                                  {"auto", "dense", "sparse"})};
  i.orders = {{"position", "chain:n=3,body=box", 1, 0.00025, 0.002, 1, "", "semi-implicit Euler"}};
  i.supports = kActuators | kRigidBodies | kTrees | kContacts | kAppliedTorques | kMasslessFrames | kSingularInertia | kJointDampers | kJointLimits |
                kCoupledJoints;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> GcContact::make(const MethodOptions& options) {
  Options o;
  o.iterations = static_cast<int>(options.integer("iterations"));
  o.tol = options.number("tol");
  o.erp = options.number("erp");
  o.slop = options.number("slop");
  o.margin = options.number("margin");
  o.warm = options.choice("warm") == "on";
  const std::string d = options.choice("delassus");
  o.delassus = d == "dense" ? Delassus::Dense : d == "sparse" ? Delassus::Sparse : Delassus::Auto;
  return std::make_unique<GcContact>(o);
}

const MethodInfo& GcContact::info() const {
  static const MethodInfo i = describe();
  return i;
}

void GcContact::do_init(const Model& model, const State& state) {
  sys_ = ReducedSystem::extract(model);
  if (sys_.point_masses()) throw UnsupportedModel("gc-contact: trees of point masses on rods are not taken (rigid bodies only)");
  if (sys_.has_motors()) throw UnsupportedModel("gc-contact: motors (prescribed motion) are not taken");
  const TreeModel& tree = sys_.tree();
  hdata_ = TreeData(tree);
  link_of_.assign(model.bodies.size(), -1);
  for (int i = 0; i < tree.links(); ++i) link_of_[static_cast<size_t>(tree.link[static_cast<size_t>(i)].body)] = i;
  if (tree.limits.size() != static_cast<size_t>(std::count_if(model.joints.begin(), model.joints.end(), [](const Joint& j) { return j.limited(); })))
    throw UnsupportedModel("gc-contact: a joint with limits is not a hinge or slider of the tree");
  // each body's reach: the farthest point of its shapes from its centre of mass
  reach_.assign(model.bodies.size(), 0.0);
  for (const Shape& sh : model.shapes) {
    if (sh.body == kWorld) continue;
    double r = 0;
    switch (sh.type) {
      case ShapeType::Sphere: r = sh.radius; break;
      case ShapeType::Capsule: r = sh.radius + 0.5 * sh.length; break;
      case ShapeType::Cylinder: r = std::hypot(sh.radius, 0.5 * sh.length); break;
      case ShapeType::Box: r = sh.half_extents.norm(); break;
      case ShapeType::Ellipsoid: r = sh.half_extents.maxCoeff(); break;
      case ShapeType::Convex:
        for (const Vec3& p : sh.vertices) r = std::max(r, p.norm());
        break;
      case ShapeType::HalfSpace: break;
    }
    double& reach = reach_[static_cast<size_t>(sh.body)];
    reach = std::max(reach, sh.position.norm() + r);
  }
  detector_ = model.shapes.empty() ? nullptr : std::make_unique<CollisionDetector>(model, opt_.margin);
  factor_ = std::make_shared<Factor>();
  analyzed_ = false;
  kept_.clear();
  sys_.read(state, x_);
  sys_.check_couplings(model, x_);
  // the joint rates' damping: a damper's coefficient plus an actuator's velocity gain, -gear^2 bias[2]
  damping_.assign(static_cast<size_t>(tree.nv), 0.0);
  for (int i = 0; i < tree.links(); ++i) {
    const TreeLink& L = tree.link[static_cast<size_t>(i)];
    if (L.kind == TreeJoint::Hinge || L.kind == TreeJoint::Slider) damping_[static_cast<size_t>(L.iv)] += tree.setup[static_cast<size_t>(i)].damping;
  }
  for (const TreeActuator& a : tree.actuators)
    damping_[static_cast<size_t>(tree.link[static_cast<size_t>(a.link)].iv)] += std::max(0.0, -a.actuator.gear * a.actuator.gear * a.actuator.bias[2]);
  damped_ = std::any_of(damping_.begin(), damping_.end(), [](double d) { return d > 0; });
}

void GcContact::advance_positions(double h, std::vector<double>& x) const {
  const TreeModel& tree = sys_.tree();
  double* q = x.data();
  double* v = x.data() + tree.nq;
  for (const TreeLink& L : tree.link) {
    switch (L.kind) {
      case TreeJoint::Free: {
        // (omega, v_O) at the world origin, r the COM: it moves with v_c = v_O + omega x r, and v_O
        // is expressed again at the moved COM, so that v_c is what the velocity update left
        // (with do_step's convective term: MuJoCo's semi-implicit Euler on (v_c, omega))
        const Vec3 w = Eigen::Map<const Vec3>(v + L.iv);
        Eigen::Map<Vec3> vO(v + L.iv + 3), r(q + L.iq);
        const Vec3 vc = vO + w.cross(Vec3(r));
        r += h * vc;
        vO = vc - w.cross(Vec3(r));
        // the orientation turns by exp(h omega), exactly for an omega held over the step
        const Vec3 hw = h * w;
        const double angle = hw.norm();
        const Quat turn = angle > 0 ? Quat(Eigen::AngleAxisd(angle, hw / angle)) : Quat::Identity();
        store_quat(turn * load_quat(q + L.iq + 3), q + L.iq + 3);
        break;
      }
      case TreeJoint::Ball: {
        double dq[4];
        const double* qs[1] = {q + L.iq};
        const double* ws[1] = {v + L.iv};
        double* dqs[1] = {dq};
        quaternion_rates<double>(qs, ws, dqs);
        for (int k = 0; k < 4; ++k) q[L.iq + k] += h * dq[k];
        break;
      }
      case TreeJoint::Hinge:
      case TreeJoint::Slider: q[L.iq] += h * v[L.iv]; break;
      case TreeJoint::Cardan:
      case TreeJoint::Planar:
      case TreeJoint::Cylindrical:
        for (int k = 0; k < L.nd; ++k) q[L.iq + k] += h * v[L.iv + k];
        break;
      default: break;
    }
  }
  sys_.normalize(x);
}

void GcContact::factor_mass_matrix(double h, const Eigen::VectorXd& qdd, Eigen::VectorXd& f, StepStats& stats) {
  const TreeModel& tree = sys_.tree();
  mass_matrix_lower(tree, hdata_, x_.data(), S_, entries_);
  H_.resize(tree.nv, tree.nv);
  H_.setFromTriplets(entries_.begin(), entries_.end());
  // the generalized force of the step's start, H qdd, and H + h D for the implicit damping
  f = H_.selfadjointView<Eigen::Lower>() * qdd;
  for (int i = 0; i < tree.nv; ++i)
    if (damping_[static_cast<size_t>(i)] > 0) H_.coeffRef(i, i) += h * damping_[static_cast<size_t>(i)];
  if (!analyzed_) {
    const auto ta = Clock::now();
    factor_->llt.analyzePattern(H_);
    analyzed_ = true;
    stats.t_analysis += since(ta);
  }
  const auto tf = Clock::now();
  factor_->llt.factorize(H_);
  if (factor_->llt.info() != Eigen::Success) throw SimulationError("gc-contact: the joint-space mass matrix is not positive definite");
  stats.t_factorization += since(tf);
}

void GcContact::add_preview_contacts(const Model& model, const State& state, const std::vector<char>& moving) {
  std::set<std::pair<int, int>> pairs;
  for (const Contact& c : contacts_) pairs.insert({c.shape_a, c.shape_b});
  // a pair of bodies that both move less than half the margin keeps a gap: the start's contacts
  auto moves = [&](int shape) {
    const int b = model.shapes[static_cast<size_t>(shape)].body;
    return b != kWorld && moving[static_cast<size_t>(b)];
  };
  detector_->detect(model, preview_, found_, [&](int i, int j) { return (moves(i) || moves(j)) && !pairs.count({i, j}); });
  for (Contact c : found_) {
    // the same material points at the start: their gap along the preview's normal
    c.depth = -c.normal.dot(body_point(state, c.b, c.local_b) - body_point(state, c.a, c.local_a));
    contacts_.push_back(c);
  }
}

void GcContact::find_limits(double h, const Eigen::VectorXd& vstar) {
  const TreeModel& tree = sys_.tree();
  active_.clear();
  for (size_t i = 0; i < tree.limits.size(); ++i) {
    const TreeLimit& L = tree.limits[i];
    const TreeLink& link = tree.link[static_cast<size_t>(L.link)];
    const double q = x_[static_cast<size_t>(link.iq)], u = vstar(link.iv);
    // a side is a row when it is within the margin, or the free velocity would cross it in the step
    for (int side = 0; side < 2; ++side) {
      const double gap = side == 0 ? q - L.lower : L.upper - q;
      const double rate = side == 0 ? u : -u;
      if (std::isfinite(gap) && (gap < opt_.margin || gap + h * rate < 0)) active_.push_back({static_cast<int>(i), side, gap});
    }
  }
}

int GcContact::solve_rows(const Model& model, const State& state, double h, const Eigen::VectorXd& vstart, const Eigen::VectorXd& vstar,
                          StepStats& stats) {
  const TreeModel& tree = sys_.tree();
  const auto t0 = Clock::now();
  const int m = static_cast<int>(contacts_.size()), nl = static_cast<int>(active_.size()), nk = static_cast<int>(tree.couplings.size());
  const int rows = 3 * m + nl + nk;
  // the rows: 3 per contact (n, t1, t2), 1 per active limit (+-e_i: the coordinate's rate), then 1
  // per coupling (e_a - multiplier e_b: bilateral, held at 0 like GC4's, so the linear invariant
  // q_a - multiplier q_b stays)
  contact_jacobian(tree, S_, link_of_, state, contacts_, entries_);
  for (int k = 0; k < nl; ++k) {
    const Active& a = active_[static_cast<size_t>(k)];
    entries_.emplace_back(3 * m + k, tree.link[static_cast<size_t>(tree.limits[static_cast<size_t>(a.limit)].link)].iv, a.side == 0 ? 1.0 : -1.0);
  }
  for (int k = 0; k < nk; ++k) {
    const TreeCoupling& c = tree.couplings[static_cast<size_t>(k)];
    entries_.emplace_back(3 * m + nl + k, tree.link[static_cast<size_t>(c.a)].iv, 1.0);
    entries_.emplace_back(3 * m + nl + k, tree.link[static_cast<size_t>(c.b)].iv, -c.multiplier);
  }
  J_.resize(rows, tree.nv);
  J_.setFromTriplets(entries_.begin(), entries_.end());
  const Eigen::SparseMatrix<double> Jt = J_.transpose();
  Eigen::SparseMatrix<double> Z;
  factor_->sparse_lsolve(Jt, Z);  // L^-1 P J^T: W = Z^T Z = J (H + h D)^-1 J^T
  Eigen::VectorXd u = J_ * vstar;  // velocities without impulses
  const Eigen::VectorXd u0 = J_ * vstart;
  // islands: the nodes (a contact's three rows, a limit's or a coupling's row) whose columns of Z
  // share a coordinate (a moving tree) are one problem, solved to the tolerance on its own; the
  // others are independent, so a pile's sweeps leave a box at rest alone. Islands in the order of
  // their first node, each's nodes (contacts, limits, couplings) in ascending order.
  const int nodes = m + nl + nk;
  auto node = [&](int row) { return row < 3 * m ? row / 3 : row - 2 * m; };
  auto node_rows = [&](int k) { return k < m ? 3 : 1; };
  auto first_row = [&](int k) { return k < m ? 3 * k : 2 * m + k; };
  DisjointSets sets(nodes);
  std::vector<int> owner(static_cast<size_t>(tree.nv), -1);
  Eigen::VectorXd diag(rows);  // W's diagonal: |Z e_r|^2
  for (int r = 0; r < rows; ++r) {
    diag(r) = Z.col(r).squaredNorm();
    for (Eigen::SparseMatrix<double>::InnerIterator it(Z, r); it; ++it) {
      int& o = owner[static_cast<size_t>(it.index())];
      if (o < 0) o = node(r);
      else sets.unite(o, node(r));
    }
  }
  // island[k]: node k's island; first, members: each island's nodes
  std::vector<int> by_root(static_cast<size_t>(nodes), -1), island(static_cast<size_t>(nodes));
  std::vector<int> first(static_cast<size_t>(nodes) + 1, 0), members(static_cast<size_t>(nodes)), island_rows;
  int islands = 0;
  for (int k = 0; k < nodes; ++k) {
    int& i = by_root[static_cast<size_t>(sets.find(k))];
    if (i < 0) {
      i = islands++;
      island_rows.push_back(0);
    }
    island[static_cast<size_t>(k)] = i;
    ++first[static_cast<size_t>(i) + 1];
    island_rows[static_cast<size_t>(i)] += node_rows(k);
  }
  for (size_t i = 1; i < first.size(); ++i) first[i] += first[i - 1];
  {
    std::vector<int> next(first.begin(), first.end() - 1);
    for (int k = 0; k < nodes; ++k) members[static_cast<size_t>(next[static_cast<size_t>(island[static_cast<size_t>(k)])]++)] = k;
  }
  // an island of up to kDenseRows rows keeps W dense over its rows (Z_I^T Z_I over its
  // coordinates: contiguous, vectorized sweeps); a larger one, a pile, W's sparse rows
  constexpr int kDenseRows = 128;
  std::vector<char> sparse_island(static_cast<size_t>(islands));
  for (int is = 0; is < islands; ++is)
    sparse_island[static_cast<size_t>(is)] = opt_.delassus == Delassus::Sparse ||
                                             (opt_.delassus == Delassus::Auto && island_rows[static_cast<size_t>(is)] > kDenseRows);
  std::vector<int> loc(static_cast<size_t>(nodes));  // a node's first row in its island's dense W
  std::vector<Eigen::MatrixXd> Wi(static_cast<size_t>(islands));
  std::vector<int> lc(static_cast<size_t>(tree.nv), -1), seen(static_cast<size_t>(tree.nv), -1);
  bool sparse = false;
  for (int is = 0; is < islands; ++is) {
    if (sparse_island[static_cast<size_t>(is)]) {
      sparse = true;
      continue;
    }
    int nr = 0, nc = 0;
    for (int p = first[static_cast<size_t>(is)]; p < first[static_cast<size_t>(is) + 1]; ++p) {
      const int k = members[static_cast<size_t>(p)];
      loc[static_cast<size_t>(k)] = nr;
      for (int r = first_row(k); r < first_row(k) + node_rows(k); ++r)
        for (Eigen::SparseMatrix<double>::InnerIterator it(Z, r); it; ++it)
          if (seen[static_cast<size_t>(it.index())] != is) {
            seen[static_cast<size_t>(it.index())] = is;
            lc[static_cast<size_t>(it.index())] = nc++;
          }
      nr += node_rows(k);
    }
    Eigen::MatrixXd Zi = Eigen::MatrixXd::Zero(nc, nr);
    for (int p = first[static_cast<size_t>(is)]; p < first[static_cast<size_t>(is) + 1]; ++p) {
      const int k = members[static_cast<size_t>(p)];
      for (int j = 0; j < node_rows(k); ++j)
        for (Eigen::SparseMatrix<double>::InnerIterator it(Z, first_row(k) + j); it; ++it)
          Zi(lc[static_cast<size_t>(it.index())], loc[static_cast<size_t>(k)] + j) = it.value();
    }
    Wi[static_cast<size_t>(is)].noalias() = Zi.transpose() * Zi;
  }
  // W's sparse rows for the large islands: row r (an inner vector of the row-major form) is column
  // r, W being symmetric; a contact's three merged by row (one pass over the rows it moves)
  using RowMajor = Eigen::SparseMatrix<double, Eigen::RowMajor>;
  RowMajor W;
  std::vector<int> cstart(static_cast<size_t>(m) + 1, 0), crow;
  std::vector<Vec3> cval;
  if (sparse) {
    W = Z.transpose() * Z;
    for (int k = 0; k < m; ++k) {
      if (sparse_island[static_cast<size_t>(island[static_cast<size_t>(k)])]) {
        RowMajor::InnerIterator it[3] = {{W, 3 * k}, {W, 3 * k + 1}, {W, 3 * k + 2}};
        while (it[0] || it[1] || it[2]) {
          int r = std::numeric_limits<int>::max();
          for (const auto& i : it)
            if (i) r = std::min(r, static_cast<int>(i.index()));
          Vec3 w = Vec3::Zero();
          for (int j = 0; j < 3; ++j)
            if (it[j] && it[j].index() == r) {
              w(j) = it[j].value();
              ++it[j];
            }
          crow.push_back(r);
          cval.push_back(w);
        }
      }
      cstart[static_cast<size_t>(k) + 1] = static_cast<int>(crow.size());
    }
  }
  auto block = [&](int k) -> Eigen::Matrix3d {
    const int is = island[static_cast<size_t>(k)];
    if (sparse_island[static_cast<size_t>(is)]) return Eigen::Matrix3d(W.block(3 * k, 3 * k, 3, 3));
    return Wi[static_cast<size_t>(is)].block<3, 3>(loc[static_cast<size_t>(k)], loc[static_cast<size_t>(k)]);
  };
  // a normal row's target: out of a penetration by erp of its depth beyond slop a step, or no
  // further than its gap
  auto normal_target = [&](double depth) { return depth > 0 ? opt_.erp * std::max(0.0, depth - opt_.slop) / h : depth / h; };
  // the preview (preview_, do_step): the positions the free velocity reaches over the step, on
  // which each contact's material points have the gap g*; a contact's gap after the step is
  // g* + h (u_n - u*_n) to first order in the impulses, and the target asks it to reach the gap
  // normal_target asks of a motion without turns (a limb turning at w over the step moves its point
  // h^2 w^2 r / 2 off the line the velocities give, into a contact it slides over)
  std::vector<Eigen::Matrix3d> Wd(static_cast<size_t>(m));
  // per contact, once: 1 / W_nn, W_tt^-1 and W_tt's eigen-decomposition (slide_friction's metric)
  std::vector<double> inv_nn(static_cast<size_t>(m));
  std::vector<Eigen::Matrix2d> inv_tt(static_cast<size_t>(m));
  std::vector<Eigen::SelfAdjointEigenSolver<Eigen::Matrix2d>> eig_tt(static_cast<size_t>(m));
  std::vector<Material> mat(static_cast<size_t>(m));
  Eigen::VectorXd target = Eigen::VectorXd::Zero(m + nl + nk);
  // a direction a contact's point cannot move in (its bodies' joints hold it: a hinge's link
  // along the axis) has no compliance: no impulse there (pseudo-inverses below 1e-12 of W's
  // largest diagonal entry)
  const double floor = 1e-12 * (rows > 0 ? diag.maxCoeff() : 0.0);
  for (int k = 0; k < m; ++k) {
    Wd[k] = block(k);
    inv_nn[k] = Wd[k](0, 0) > floor ? 1 / Wd[k](0, 0) : 0.0;
    eig_tt[k].compute(Eigen::Matrix2d(Wd[k].block<2, 2>(1, 1)));
    const Eigen::Vector2d ev = eig_tt[k].eigenvalues();
    const Eigen::Vector2d inv_ev(ev(0) > floor ? 1 / ev(0) : 0.0, ev(1) > floor ? 1 / ev(1) : 0.0);
    inv_tt[k] = eig_tt[k].eigenvectors() * inv_ev.asDiagonal() * eig_tt[k].eigenvectors().transpose();
    const Contact& c = contacts_[static_cast<size_t>(k)];
    mat[k] = contact_material(model.materials, model.material_pairs, model.shapes[static_cast<size_t>(c.shape_a)].material,
                              model.shapes[static_cast<size_t>(c.shape_b)].material);
    const double g_star = c.normal.dot(body_point(preview_, c.b, c.local_b) - body_point(preview_, c.a, c.local_a));
    double t = u(3 * k) + normal_target(c.depth) + (-c.depth - g_star) / h;
    // an approaching contact that closes within the step bounces (a speculative one farther off
    // would turn back before it touched)
    const double approach = -u0(3 * k);
    if (mat[k].restitution > 0 && approach > 0 && approach * h >= -c.depth) t = std::max(t, mat[k].restitution * approach);
    target(k) = t;
  }
  for (int k = 0; k < nl; ++k) target(m + k) = normal_target(-active_[static_cast<size_t>(k)].gap);
  // warm start keys: a contact's shape pair and its place among the pair's contacts; a limit's
  // index and side (negative first entry)
  lambda_.setZero(rows);
  std::vector<std::tuple<int, int, int>> key(static_cast<size_t>(nodes));
  for (int k = 0, place = 0; k < m; ++k) {
    const Contact& c = contacts_[static_cast<size_t>(k)];
    place = k > 0 && contacts_[k - 1].shape_a == c.shape_a && contacts_[k - 1].shape_b == c.shape_b ? place + 1 : 0;
    key[k] = {c.shape_a, c.shape_b, place};
  }
  for (int k = 0; k < nl; ++k) key[m + k] = {-1 - active_[static_cast<size_t>(k)].limit, active_[static_cast<size_t>(k)].side, 0};
  for (int k = 0; k < nk; ++k) key[m + nl + k] = {-1 - k, 2, 0};
  if (opt_.warm) {
    for (int k = 0; k < m; ++k) {
      const auto it = kept_.find(key[k]);
      if (it == kept_.end()) continue;
      Vec3 l = contact_frame(contacts_[k].normal) * it->second;
      l(0) = std::max(0.0, l(0));
      const double radius = mat[k].mu_static * l(0);
      if (l.tail<2>().norm() > radius) l.tail<2>() *= l.tail<2>().norm() > 0 ? radius / l.tail<2>().norm() : 0.0;
      lambda_.segment<3>(3 * k) = l;
    }
    for (int k = 0; k < nl + nk; ++k) {
      const auto it = kept_.find(key[m + k]);
      if (it != kept_.end()) lambda_(3 * m + k) = k < nl ? std::max(0.0, it->second(0)) : it->second(0);
    }
  }
  // Gauss-Seidel on one island: a contact's normal first, then its tangential rows for the
  // velocity left after it (ContactSet::project); uc, ul read a contact's or a one-row node's
  // velocities, apply_c, apply_l add W's columns times an impulse change to them
  auto solve_island = [&](int is, auto&& uc, auto&& ul, auto&& apply_c, auto&& apply_l) {
    int sweep = 0;
    double change = 0;
    for (; sweep < opt_.iterations; ++sweep) {
      change = 0;
      for (int p = first[static_cast<size_t>(is)]; p < first[static_cast<size_t>(is) + 1]; ++p) {
        const int k = members[static_cast<size_t>(p)];
        if (k < m) {
          const Vec3 uk = uc(k);
          const Vec3 lk = lambda_.segment<3>(3 * k);
          const double ln = std::max(0.0, lk(0) + (target(k) - uk(0)) * inv_nn[k]);
          const double dn = ln - lk(0);
          const Eigen::Vector2d ut = uk.tail<2>() + Wd[k].block<2, 1>(1, 0) * dn;
          Eigen::Vector2d lt = lk.tail<2>() - inv_tt[k] * ut;
          if (lt.norm() > mat[k].mu_static * ln) lt = slide_friction(eig_tt[k], lt, mat[k].mu_dynamic * ln);
          const Vec3 d(dn, lt(0) - lk(1), lt(1) - lk(2));
          if (d.isZero(0)) continue;
          change = std::max(change, (Wd[k] * d).cwiseAbs().maxCoeff());
          apply_c(k, d);
          lambda_.segment<3>(3 * k) += d;
        } else {
          // a limit's impulse pushes only; a coupling's either way
          const int row = 2 * m + k;
          const double w = diag(row);
          const double l = lambda_(row) + (target(k) - ul(k)) / w;
          const double d = (k < m + nl ? std::max(0.0, l) : l) - lambda_(row);
          if (d == 0) continue;
          change = std::max(change, std::abs(w * d));
          apply_l(k, d);
          lambda_(row) += d;
        }
      }
      if (change < opt_.tol) {
        ++sweep;
        break;
      }
    }
    return std::make_pair(sweep, change);
  };
  int sweeps = 0;
  double residual = 0;
  Eigen::VectorXd ui;
  for (int is = 0; is < islands; ++is) {
    std::pair<int, double> r;
    if (!sparse_island[static_cast<size_t>(is)]) {
      const Eigen::MatrixXd& Wk = Wi[static_cast<size_t>(is)];
      Eigen::VectorXd li(Wk.rows());
      ui.resize(Wk.rows());
      for (int p = first[static_cast<size_t>(is)]; p < first[static_cast<size_t>(is) + 1]; ++p) {
        const int k = members[static_cast<size_t>(p)];
        for (int j = 0; j < node_rows(k); ++j) {
          ui(loc[static_cast<size_t>(k)] + j) = u(first_row(k) + j);
          li(loc[static_cast<size_t>(k)] + j) = lambda_(first_row(k) + j);
        }
      }
      ui.noalias() += Wk * li;  // the warm start's impulses
      r = solve_island(
          is, [&](int k) { return Vec3(ui.segment<3>(loc[static_cast<size_t>(k)])); },
          [&](int k) { return ui(loc[static_cast<size_t>(k)]); },
          [&](int k, const Vec3& d) { ui.noalias() += Wk.middleCols<3>(loc[static_cast<size_t>(k)]) * d; },
          [&](int k, double d) { ui += Wk.col(loc[static_cast<size_t>(k)]) * d; });
    } else {
      // the warm start's impulses on the island's rows
      for (int p = first[static_cast<size_t>(is)]; p < first[static_cast<size_t>(is) + 1]; ++p) {
        const int k = members[static_cast<size_t>(p)];
        for (int r0 = first_row(k); r0 < first_row(k) + node_rows(k); ++r0)
          for (RowMajor::InnerIterator it(W, r0); it; ++it) u(r0) += it.value() * lambda_(it.index());
      }
      r = solve_island(
          is, [&](int k) { return Vec3(u.segment<3>(3 * k)); }, [&](int k) { return u(2 * m + k); },
          [&](int k, const Vec3& d) {
            for (int q = cstart[static_cast<size_t>(k)]; q < cstart[static_cast<size_t>(k) + 1]; ++q)
              u(crow[static_cast<size_t>(q)]) += cval[static_cast<size_t>(q)].dot(d);
          },
          [&](int k, double d) {
            for (RowMajor::InnerIterator it(W, 2 * m + k); it; ++it) u(it.index()) += it.value() * d;
          });
    }
    sweeps = std::max(sweeps, r.first);
    residual = std::max(residual, r.second);
  }
  kept_.clear();
  for (int k = 0; k < m; ++k)
    kept_[key[k]] = contact_frame(contacts_[k].normal).transpose() * Vec3(lambda_.segment<3>(3 * k));
  for (int k = 0; k < nl + nk; ++k) kept_[key[m + k]] = Vec3(lambda_(3 * m + k), 0, 0);
  stats.vel_iterations += sweeps;
  stats.vel_residual = std::max(stats.vel_residual, residual);
  // v+ = v* + (H + h D)^-1 J^T lambda
  const Eigen::VectorXd dv = factor_->llt.solve(Eigen::VectorXd(J_.transpose() * lambda_));
  Eigen::Map<Eigen::VectorXd>(x_.data() + tree.nq, tree.nv) = vstar + dv;
  stats.t_contact += since(t0);
  return sweeps;
}

void GcContact::do_step(const Model& model, State& state, double h, StepStats& stats) {
  const TreeModel& tree = sys_.tree();
  const auto t0 = Clock::now();
  sys_.set_loads(model, state.t, h);
  sys_.derivative(x_, dx_);
  const Eigen::Map<const Eigen::VectorXd> v(x_.data() + tree.nq, tree.nv), qdd(dx_.data() + tree.nq, tree.nv);
  const Eigen::VectorXd vstart = v;
  // v* = v + h (H + h D)^-1 H qdd: the dampers implicit, every other force explicit
  Eigen::VectorXd vstar = vstart + h * qdd;
  bool factored = false;
  if (damped_) {
    Eigen::VectorXd f;
    factor_mass_matrix(h, qdd, f, stats);
    factored = true;
    vstar = vstart + h * factor_->llt.solve(f);
  }
  // in flight a free link's v_O changes by -omega x v_c - omega' x r while its COM velocity v_c stays:
  // held at the step's start r, v* would turn v_c by h omega; the term back is the COM's own
  // motion, so v* at r has v_c + h a_c (advance_positions moves r and expresses v_O there)
  for (const TreeLink& L : tree.link)
    if (L.kind == TreeJoint::Free) {
      const Vec3 w = vstart.segment<3>(L.iv), r = Eigen::Map<const Vec3>(x_.data() + L.iq);
      vstar.segment<3>(L.iv + 3) += h * w.cross(Vec3(vstart.segment<3>(L.iv + 3) + w.cross(r)));
    }
  contacts_.clear();
  if (detector_) {
    const auto tc = Clock::now();
    detector_->detect(model, state, contacts_);
    // the preview: the free motion's end
    xp_ = x_;
    Eigen::Map<Eigen::VectorXd>(xp_.data() + tree.nq, tree.nv) = vstar;
    advance_positions(h, xp_);
    preview_ = state;
    write_state(tree, hdata_, xp_, preview_);
    // a body whose shapes move farther than half the margin in the step may reach a pair the start
    // did not find: its pairs found on the preview are added, their points and normal taken there
    moving_.assign(reach_.size(), 0);
    for (size_t b = 0; b < reach_.size(); ++b)
      moving_[b] = reach_[b] > 0 && (preview_.bodies[b].v.norm() + preview_.bodies[b].w.norm() * reach_[b]) * h > 0.5 * opt_.margin;
    if (std::find(moving_.begin(), moving_.end(), 1) != moving_.end()) add_preview_contacts(model, state, moving_);
    stats.t_contact += since(tc);
  }
  stats.contacts += static_cast<long>(contacts_.size());
  find_limits(h, vstar);
  if (contacts_.empty() && active_.empty() && tree.couplings.empty()) {
    Eigen::Map<Eigen::VectorXd>(x_.data() + tree.nq, tree.nv) = vstar;
    kept_.clear();
  } else {
    if (!factored) {
      Eigen::VectorXd f;
      factor_mass_matrix(h, qdd, f, stats);
    }
    solve_rows(model, state, h, vstart, vstar, stats);
  }
  advance_positions(h, x_);
  for (double x : x_)
    if (!std::isfinite(x)) throw SimulationError("gc-contact: non-finite state");
  sys_.write(x_, state);
  stats.t_integration += since(t0);
}

}  // namespace mb
