// `particles` (bayer2009 s.3-4): the iterative impulse-based solver for particle systems with
// distance constraints (rods) and particle-sphere contacts, and the paper's four optimizations as
// options. One step:
//  1. position loop: every constraint c between particles a and b has a direction n_c (the unit
//     vector from a's to b's previewed position a(t+h) = p + v h + F/(2m) h^2) and an error
//     e_c = n_c (b - a) - L_c (4.1's formulation); a rod is satisfied when |e_c| <= eps_c =
//     extensibility L_c (the Model's Joint::extensibility), a contact between two spheres (their
//     centres a and b, L_c = r_a + r_b) when e_c >= -eps_contact L_c. A violated constraint gets the impulse
//     along n_c that removes its error on the preview: dv_a = +w_a n_c e_c / ((w_a + w_b) h),
//     dv_b = -w_b n_c e_c / ((w_a + w_b) h) (w = 1/m, 0 for a fixed particle). Constraints are
//     visited one after another (Gauss-Seidel) until a whole sweep corrects none;
//  2. p(t+h) = the last preview, v(t+h) = v + F/m h (the corrected velocities);
//  3. velocity loop (option vc): the same for e_c = n_c (v_b - v_a) with tolerance eps_v, n_c at
//     the new positions (rods, and contacts that touch: e_c <= 0).
// The directions are recomputed ("changed") before every sweep from the current previews, so
// that the last, correction-free sweep saw every error along the true connecting line.
// The options (each changes the runtime; 4.2 and 4.3 never the result beyond round-off):
//  o41 (4.1) the error of a sweep as n_c (b - a) - L_c with the sweep's direction; off: the
//      original, the direction d / |d| and the error |d| - L_c each from the fresh previews at
//      every visit (two square roots; within eps of 4.1's result, not bit for bit);
//  o42 (4.2) anticipation: the errors are computed with the directions and then updated, never
//      recomputed: correcting c_i by the position change P_i = e_i / (w_a + w_b) changes every
//      c_j sharing a particle k with it by kappa_ji P_i, kappa_ji = -s_j(k) s_i(k) w_k (n_j . n_i)
//      (s(k) = -1 for the first particle, +1 for the second); the velocities are changed once,
//      after the loop. With directions changed every sweep, only constraints later in the sweep
//      are anticipated (the next direction change resets the others);
//  o43 (4.3) skipping satisfied constraints: a constraint found satisfied is skipped until one
//      of its particles is corrected (with o42: a flag set by the anticipation; without: a
//      change counter per particle, the paper's per-particle bits without their limit of 64);
//  o44 (4.4) the directions are changed only when a sweep corrected nothing; the loop ends when
//      the first sweep after a change corrects nothing;
//  pmax (4.2's p'_max) the impulse of one correction is at most p'_max / h, in both loops: a
//      larger error is corrected in part (by p'_max (w_a + w_b) on the preview) and stays violated.
// Contacts (bayer2009 s.3: particles with a radius): every particle or fixed point that carries a
// sphere shape (Model::shapes, centred on it) is a sphere; two spheres give the unilateral
// constraint c = |p_b - p_a| - (r_a + r_b) >= 0, treated by the same loops (Con::contact: violated
// when e < -eps_contact (r_a + r_b), eps_contact relative as a rod's extensibility is; in the
// velocity loop only when touching at the new positions). The contacts of a step are the pairs the
// shared collision detection (models/collision.hpp: FCL's broad phase) finds at the free previews
// with every radius grown by a margin (option `margin`, default the smallest radius): the
// corrections move particles within the step (rods pull a cloth up into the sphere that presses on
// it), so pairs a little apart at the free previews are constraints too; a unilateral constraint
// that is not violated costs one test per sweep. Pairs joined by a rod are never tested.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <memory>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/bodies/free_motion.hpp"
#include "methods/stopwatch.hpp"
#include "models/collision.hpp"
#include "methods/impulse/methods.hpp"

namespace mb {

namespace {

struct ParticleOptions {
  bool o41 = true, o42 = false, o43 = false, o44 = false;
  bool vc = true;            // velocity loop
  double eps_contact = 0.1;  // a contact is violated when it penetrates deeper than this fraction of r_a + r_b
  double margin = -1;        // m: detection margin added to every radius; < 0: the smallest radius
  double eps_v = 0.01;       // m/s
  double tol_p = 1e-6;       // m: the tolerance of a rod without extensibility
  long max_iter = 100000;    // sweeps per loop
  double pmax = 0;           // kg m: p'_max of s.4.2, the largest mass-weighted position change of one correction (0: unlimited)
};

// One constraint of a step: particles (endpoints) a and b, length L, tolerance eps; a contact is
// unilateral (e >= -eps), L the sum of the two radii.
struct Con {
  int a = 0, b = 0;
  double L = 0, eps = 0;  // m: length (a contact: r_a + r_b), position tolerance
  bool contact = false;
  bool touching = false;  // a contact at the new positions (e <= 0): in the velocity loop
};

class Particles final : public Method {
 public:
  explicit Particles(ParticleOptions o) : opt_(o), info_(ParticlesMethod::describe()) {}
  const MethodInfo& info() const override { return info_; }

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;

  void build_incidence();
  // the Gauss-Seidel loops; `position`: on the previews (target L), else on the velocities (target 0)
  void loop_plain(bool position, double h, StepStats& stats);
  void loop_anticipated(bool position, double h, StepStats& stats);
  void directions(bool position, double h);
  void couplings();
  bool violated(const Con& c, double e, bool position) const {
    if (position) return c.contact ? e < -c.eps : std::abs(e) > c.eps;
    return c.contact ? c.touching && e < -opt_.eps_v : std::abs(e) > opt_.eps_v;
  }
  Vec3 preview(int k, double h) const { return x_[k] + h * (v_[k] + (0.5 * h) * acc_[k]); }
  [[noreturn]] void not_converged(bool position, long it) const;

  ParticleOptions opt_;
  MethodInfo info_;
  StepLoads loads_;
  // endpoints: the model's bodies, then fixed points (rod ends and sphere centres off a particle) (nend)
  std::vector<Vec3> x_, v_, acc_;
  std::vector<double> w_;
  std::vector<Con> rods_, cons_;          // the model's rods; this step's rods + contacts (ncon)
  // contacts: the detector on the model's sphere shapes grown by the margin (detect_model_), each
  // shape's endpoint, the previews as a State
  Model detect_model_;
  std::unique_ptr<CollisionDetector> detector_;
  std::vector<int> shape_end_;
  State preview_state_;
  std::vector<Contact> contacts_;
  std::vector<Vec3> n_;                   // (ncon) directions
  std::vector<double> e_, p_;             // (ncon) anticipated errors, accumulated corrections (o42)
  std::vector<char> flag_;                // (ncon) o42+o43: violated
  std::vector<long> ver_;                 // (nend) o43 without o42: corrections of the particle
  std::vector<long> seen_a_, seen_b_;     // (ncon) the counters when the constraint was last found satisfied
  std::vector<int> inc_start_, inc_con_;  // CSR: constraints at each endpoint
  std::vector<int> cpl_start_, cpl_con_;  // CSR: constraints coupled to each constraint through a particle
  std::vector<double> cpl_w_, cpl_k_;     // -s_j s_i w_k, and kappa_ji = that * (n_j . n_i)
  std::vector<Vec3> d_;                   // (nend) o42: folded corrections (displacement or velocity change)
};

void Particles::do_init(const Model& model, const State&) {
  for (const Body& b : model.bodies)
    if (!b.particle && !b.is_static)
      throw UnsupportedModel(fmt::format("particles: body '{}' is a rigid body; the method simulates particles only", b.name));
  const int nb = static_cast<int>(model.bodies.size());
  x_.assign(nb, Vec3::Zero());
  w_.assign(nb, 0.0);
  for (int k = 0; k < nb; ++k) {
    x_[k] = model.bodies[k].position;
    w_[k] = model.bodies[k].is_static ? 0.0 : 1.0 / model.bodies[k].mass;
  }
  // a joint's end: a particle's centre, or a fixed point (the world's, a static body's) as an
  // endpoint of its own that never moves
  auto end = [&](int k, const Vec3& anchor, const std::string& joint) {
    if (k != kWorld && (anchor == Vec3::Zero() || !model.bodies[k].is_static)) {
      if (anchor != Vec3::Zero())
        throw UnsupportedModel(fmt::format("particles: joint '{}' is anchored off a particle's centre", joint));
      return k;
    }
    x_.push_back(k == kWorld ? anchor : Vec3(model.bodies[k].position + model.bodies[k].orientation * anchor));
    w_.push_back(0.0);
    return static_cast<int>(x_.size()) - 1;
  };
  rods_.clear();
  for (const Joint& j : model.joints) {
    if (j.type != JointType::Distance)
      throw UnsupportedModel(fmt::format("particles: joint '{}' is a {} joint; the method has distance constraints only", j.name,
                                         joint_type_name(j.type)));
    Con c;
    c.a = end(j.a, j.anchor_a, j.name);
    c.b = end(j.b, j.anchor_b, j.name);
    c.L = j.length;
    c.eps = j.extensibility > 0 ? j.extensibility * j.length : opt_.tol_p;
    rods_.push_back(c);
  }
  // spheres: centred on a particle, or fixed (on the world or a static body: an endpoint of their own)
  shape_end_.clear();
  for (const Shape& sh : model.shapes) {
    if (sh.type != ShapeType::Sphere)
      throw UnsupportedModel(fmt::format("particles: shape '{}' is a {}; the method's contacts are between spheres (particles with a "
                                         "radius, bayer2009 s.3)",
                                         sh.name, shape_type_name(sh.type)));
    if (sh.body != kWorld && !model.bodies[sh.body].is_static && sh.position != Vec3::Zero())
      throw UnsupportedModel(fmt::format("particles: sphere '{}' is off the centre of its particle", sh.name));
    shape_end_.push_back(end(sh.body, sh.position, sh.name));
  }
  detector_.reset();
  if (!model.shapes.empty()) {
    double margin = opt_.margin;
    if (margin < 0) {
      margin = std::numeric_limits<double>::infinity();
      for (const Shape& sh : model.shapes) margin = std::min(margin, sh.radius);
    }
    detect_model_ = model;
    for (Shape& sh : detect_model_.shapes) sh.radius += margin;
    detector_ = std::make_unique<CollisionDetector>(detect_model_);
    preview_state_ = initial_state(model);
  }
  v_.assign(x_.size(), Vec3::Zero());
  acc_ = v_;
}

void Particles::build_incidence() {
  const int nend = static_cast<int>(x_.size()), ncon = static_cast<int>(cons_.size());
  inc_start_.assign(nend + 1, 0);
  for (const Con& c : cons_) ++inc_start_[c.a + 1], ++inc_start_[c.b + 1];
  for (int k = 0; k < nend; ++k) inc_start_[k + 1] += inc_start_[k];
  inc_con_.resize(inc_start_[nend]);
  std::vector<int> fill(inc_start_.begin(), inc_start_.end() - 1);
  for (int i = 0; i < ncon; ++i) inc_con_[fill[cons_[i].a]++] = i, inc_con_[fill[cons_[i].b]++] = i;
  if (!opt_.o42) return;
  // couplings through a moving particle shared with another constraint
  cpl_start_.assign(ncon + 1, 0);
  cpl_con_.clear();
  cpl_w_.clear();
  for (int i = 0; i < ncon; ++i) {
    for (int side = 0; side < 2; ++side) {
      const int k = side == 0 ? cons_[i].a : cons_[i].b;
      if (w_[k] == 0) continue;
      const double si = side == 0 ? -1.0 : 1.0;
      for (int q = inc_start_[k]; q < inc_start_[k + 1]; ++q) {
        const int j = inc_con_[q];
        if (j == i) continue;
        const double sj = cons_[j].a == k ? -1.0 : 1.0;
        cpl_con_.push_back(j);
        cpl_w_.push_back(-sj * si * w_[k]);
      }
    }
    cpl_start_[i + 1] = static_cast<int>(cpl_con_.size());
  }
  cpl_k_.resize(cpl_w_.size());
}

void Particles::not_converged(bool position, long it) const {
  throw SimulationError(fmt::format("particles: {} loop did not converge in {} sweeps", position ? "position" : "velocity", it));
}

// Directions (and, with o42, the errors) of every constraint from the current previews (position)
// or positions (velocity loop; its directions never change).
void Particles::directions(bool position, double h) {
  const int ncon = static_cast<int>(cons_.size());
  for (int i = 0; i < ncon; ++i) {
    const Con& c = cons_[i];
    Vec3 pa, pb;
    if (opt_.o42 && position) {
      pa = preview(c.a, h) + d_[c.a];
      pb = preview(c.b, h) + d_[c.b];
    } else if (position) {
      pa = preview(c.a, h);
      pb = preview(c.b, h);
    } else {
      pa = x_[c.a];
      pb = x_[c.b];
    }
    Vec3 d = pb - pa;
    const double l = d.norm();
    if (!(l > 0)) throw SimulationError(fmt::format("particles: the two particles of constraint {} coincide", i));
    n_[i] = d / l;
    if (!position) cons_[i].touching = c.contact && l - c.L <= 0;
    if (opt_.o42) {
      e_[i] = position ? l - c.L : n_[i].dot(v_[c.b] + d_[c.b] - v_[c.a] - d_[c.a]);
      flag_[i] = violated(c, e_[i], position);
    }
  }
}

void Particles::couplings() {
  const int ncon = static_cast<int>(cons_.size());
  for (int i = 0; i < ncon; ++i)
    for (int q = cpl_start_[i]; q < cpl_start_[i + 1]; ++q) cpl_k_[q] = cpl_w_[q] * n_[cpl_con_[q]].dot(n_[i]);
}

// s.3 with 4.1, 4.3, 4.4: impulses on the velocities, the errors measured on fresh previews.
void Particles::loop_plain(bool position, double h, StepStats& stats) {
  const int ncon = static_cast<int>(cons_.size());
  const bool o43 = opt_.o43;
  bool change = true;  // the directions are changed before this sweep
  long it = 0;
  for (;;) {
    if (change && position) directions(true, h);
    if (change && o43) std::fill(seen_a_.begin(), seen_a_.end(), -1);
    bool any = false;
    for (int i = 0; i < ncon; ++i) {
      const Con& c = cons_[i];
      if (o43 && seen_a_[i] == ver_[c.a] && seen_b_[i] == ver_[c.b]) continue;
      double e;
      if (position && opt_.o41) {
        e = n_[i].dot(preview(c.b, h) - preview(c.a, h)) - c.L;
      } else if (position) {
        // the original formulation: the direction and the error each from the fresh previews
        const Vec3 d = preview(c.b, h) - preview(c.a, h);
        n_[i] = d.normalized();
        e = d.norm() - c.L;
      } else {
        e = n_[i].dot(v_[c.b] - v_[c.a]);
      }
      if (!violated(c, e, position)) {
        if (o43) seen_a_[i] = ver_[c.a], seen_b_[i] = ver_[c.b];
        continue;
      }
      double dv = (position ? e / h : e) / (w_[c.a] + w_[c.b]);
      if (opt_.pmax > 0) dv = std::clamp(dv, -opt_.pmax / h, opt_.pmax / h);  // the impulse limit p'_max / h
      v_[c.a] += (w_[c.a] * dv) * n_[i];
      v_[c.b] -= (w_[c.b] * dv) * n_[i];
      if (o43) ++ver_[c.a], ++ver_[c.b];
      any = true;
    }
    ++it;
    if (!any && (change || !position)) break;
    if (it >= opt_.max_iter) not_converged(position, it);
    change = position && (!opt_.o44 || !any);
  }
  (position ? stats.pos_iterations : stats.vel_iterations) += it;
}

// 4.2 (with 4.3, 4.4): anticipated errors, corrections accumulated per constraint and folded into
// the particles' displacements (velocity changes) when the directions change and at the end.
void Particles::loop_anticipated(bool position, double h, StepStats& stats) {
  const int ncon = static_cast<int>(cons_.size());
  const bool o43 = opt_.o43, all_later = !(position && !opt_.o44);
  const double limit = position ? opt_.pmax : opt_.pmax / h;  // p'_max, or the impulse limit p'_max / h
  std::fill(d_.begin(), d_.end(), Vec3::Zero());
  std::fill(p_.begin(), p_.end(), 0.0);
  auto fold = [&] {
    for (int i = 0; i < ncon; ++i) {
      if (p_[i] == 0) continue;
      const Con& c = cons_[i];
      d_[c.a] += (w_[c.a] * p_[i]) * n_[i];
      d_[c.b] -= (w_[c.b] * p_[i]) * n_[i];
      p_[i] = 0;
    }
  };
  bool change = true;
  long it = 0;
  for (;;) {
    if (change) {
      fold();
      directions(position, h);
      couplings();
    }
    bool any = false;
    for (int i = 0; i < ncon; ++i) {
      const Con& c = cons_[i];
      if (o43 ? !flag_[i] : !violated(c, e_[i], position)) continue;
      double dp = e_[i] / (w_[c.a] + w_[c.b]);
      if (limit > 0 && std::abs(dp) > limit) {
        // s.4.2 with the impulse limited: the error keeps what the limited correction leaves
        dp = std::copysign(limit, dp);
        e_[i] -= dp * (w_[c.a] + w_[c.b]);
        flag_[i] = violated(c, e_[i], position);
      } else {
        e_[i] = 0;
        flag_[i] = 0;
      }
      p_[i] += dp;
      any = true;
      // anticipate the constraints sharing a particle; with directions changed every sweep,
      // only those later in this sweep
      for (int q = cpl_start_[i]; q < cpl_start_[i + 1]; ++q) {
        const int j = cpl_con_[q];
        if (!all_later && j < i) continue;
        e_[j] += cpl_k_[q] * dp;
        if (o43) flag_[j] = violated(cons_[j], e_[j], position);
      }
    }
    ++it;
    if (!any && (change || !position)) break;
    if (it >= opt_.max_iter) not_converged(position, it);
    change = position && (!opt_.o44 || !any);
  }
  fold();
  // the corrections become velocity changes (position: displacement / h)
  const int nend = static_cast<int>(x_.size());
  for (int k = 0; k < nend; ++k)
    if (w_[k] != 0) v_[k] += position ? d_[k] / h : d_[k];
  (position ? stats.pos_iterations : stats.vel_iterations) += it;
}

void Particles::do_step(const Model& model, State& state, double h, StepStats& stats) {
  auto t0 = Clock::now();
  const int nb = static_cast<int>(model.bodies.size());
  step_loads(model, state.t, h, loads_);
  for (int k = 0; k < nb; ++k) {
    x_[k] = state.bodies[k].x;
    v_[k] = state.bodies[k].v;
    acc_[k] = w_[k] * loads_.force[k];
  }
  cons_ = rods_;  // this step's constraints: the rods, then the contacts found at the free previews
  if (detector_) {
    const auto tc = Clock::now();
    for (int k = 0; k < nb; ++k) preview_state_.bodies[k].x = preview(k, h);
    detector_->detect(detect_model_, preview_state_, contacts_);
    for (const Contact& c : contacts_) {
      Con k;
      k.a = shape_end_[c.shape_a];
      k.b = shape_end_[c.shape_b];
      k.L = model.shapes[c.shape_a].radius + model.shapes[c.shape_b].radius;
      k.eps = opt_.eps_contact * k.L;
      k.contact = true;
      cons_.push_back(k);
    }
    stats.contacts = std::max(stats.contacts, static_cast<long>(contacts_.size()));
    stats.t_contact += since(tc);
  }
  const int ncon = static_cast<int>(cons_.size()), nend = static_cast<int>(x_.size());
  n_.resize(ncon);
  if (opt_.o42) {
    e_.resize(ncon);
    p_.resize(ncon);
    flag_.resize(ncon);
    d_.resize(nend);
  } else if (opt_.o43) {
    ver_.assign(nend, 0);
    seen_a_.resize(ncon);
    seen_b_.resize(ncon);
  }
  build_incidence();
  stats.t_assembly += since(t0);
  // 1. position loop on the previews
  t0 = Clock::now();
  if (opt_.o42)
    loop_anticipated(true, h, stats);
  else
    loop_plain(true, h, stats);
  stats.t_solve += since(t0);
  // 2. the new state: the last previews, the corrected velocities plus the loads
  t0 = Clock::now();
  for (int k = 0; k < nb; ++k) {
    if (w_[k] == 0) continue;
    x_[k] = preview(k, h);
    v_[k] += h * acc_[k];
  }
  stats.t_integration += since(t0);
  // 3. velocity loop
  if (opt_.vc) {
    t0 = Clock::now();
    if (opt_.o42) {
      loop_anticipated(false, h, stats);
    } else {
      directions(false, h);
      if (opt_.o43) ver_.assign(nend, 0), std::fill(seen_a_.begin(), seen_a_.end(), -1);
      loop_plain(false, h, stats);
    }
    stats.t_solve += since(t0);
  }
  for (int k = 0; k < nb; ++k) {
    state.bodies[k].x = x_[k];
    state.bodies[k].v = v_[k];
  }
}

}  // namespace

MethodInfo ParticlesMethod::describe() {
  MethodInfo i;
  i.name = "particles";
  i.family = "impulse";
  i.description = "iterative impulse-based solver for particles with distance constraints (to their extensibility) and sphere contacts; "
                  "bayer2009's optimizations 4.1-4.4 as options";
  i.source = "bayer2009 s.3-4";
  i.options = {
      OptionInfo::choice("o41", "on", "4.1 alternative constraint formulation: the error along the sweep's direction (off: |b - a| - L)", {"on", "off"}),
      OptionInfo::choice("o42", "off", "4.2 anticipation of constraint errors", {"on", "off"}),
      OptionInfo::choice("o43", "off", "4.3 skipping satisfied constraints", {"on", "off"}),
      OptionInfo::choice("o44", "off", "4.4 avoiding changes of the constraint direction", {"on", "off"}),
      OptionInfo::choice("vc", "on", "velocity correction loop after the step", {"on", "off"}),
      OptionInfo::number("eps_contact", "0.1", "contact tolerance eps_d: the penetration a contact may keep, as a fraction of the sum of the two radii (bayer2009 s.5: 0.1)", 0, 1),
      OptionInfo::number("margin", "auto", "contact detection margin added to every radius, m (auto: the smallest radius)", 0, 1e6, false, {"auto"}),
      OptionInfo::number("eps_v", "0.01", "velocity correction tolerance eps_v, m/s", 0, 1e6),
      OptionInfo::number("tol_p", "1e-6", "position tolerance of a rod whose model states no extensibility, m", 1e-15, 1e6),
      OptionInfo::integer("max_iter", "100000", "sweeps per loop; more is a failure", 1, 1e9),
      OptionInfo::number("pmax", "off", "p'_max of s.4.2, kg m: one correction's impulse is at most p'_max / h (its position change at most "
                         "p'_max (w_a + w_b)); off: unlimited", 0, 1e6, true, {"off"}),
  };
  // no order declared: the impulse along the previews' direction (bayer2009 s.4.2) leaves an
  // O(h^2) tangential velocity error per step (order 1 on the pendulum, tests/particles_test.cpp);
  // with a model's extensibility the error is set by the tolerance
  // cloth-like particle systems with loops; not trees: on the pendulums its first-order impulse
  // direction loses energy beyond the conformance bound (docs/findings.md "bayer2009")
  i.supports = kParticles | kLoops | kRedundant | kContacts;
  return i;
}

std::unique_ptr<Method> ParticlesMethod::make(const MethodOptions& s) {
  ParticleOptions o;
  auto on = [&](const char* key) { return s.choice(key) == "on"; };
  o.o41 = on("o41");
  o.o42 = on("o42");
  o.o43 = on("o43");
  o.o44 = on("o44");
  o.vc = on("vc");
  o.eps_contact = s.number("eps_contact");
  o.eps_v = s.number("eps_v");
  if (!s.is("margin", "auto")) o.margin = s.number("margin");
  o.tol_p = s.number("tol_p");
  o.max_iter = s.integer("max_iter");
  if (!s.is("pmax", "off")) o.pmax = s.number("pmax");
  if (!o.o41 && (o.o42 || o.o44))
    s.fail("particles: o42 and o44 build on 4.1's formulation (the error along a direction); o41=off goes with neither");
  return std::make_unique<Particles>(o);
}

}  // namespace mb
