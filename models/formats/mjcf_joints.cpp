// MJCF import: MuJoCo's bodies and joints as our bodies and joints (one joint of a body as it is,
// several as a Cardan, ball, planar or cylindrical joint where they are one, else a chain through
// frames), its equality constraints as loop-closing joints and its joint actuators (mjcf_reader.hpp).
#ifdef MBBENCH_WITH_MUJOCO
#include <algorithm>
#include <cmath>
#include <map>

#include "models/formats/mjcf_reader.hpp"

namespace mb::mjcf_import {

std::string Reader::merge_refusal(int i, Vec3& p, std::vector<Vec3>& a, JointType& type) const {
  const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
  std::string list;
  int hinges = 0, slides = 0;
  for (int k = j0; k < j0 + nj; ++k) {
    if (!list.empty()) list += ", ";
    list += describe_joint(k);
    hinges += m->jnt_type[k] == mjJNT_HINGE;
    slides += m->jnt_type[k] == mjJNT_SLIDE;
  }
  if (hinges == 1 && slides == nj - 1 && nj <= 3) return composite_refusal(i, list, p, a, type);
  if (hinges != nj || nj > 3)
    return fmt::format("body '{}' has {} joints ({}): a body maps with one joint, two perpendicular hinges through one point "
                       "(a Cardan joint), three hinges through one point with independent axes (a ball joint), two slides and a "
                       "hinge normal to both (a planar joint) or a hinge and a slide along it (a cylindrical joint)",
                       body_name(i), nj, list);
  type = nj == 2 ? JointType::Cardan : JointType::Ball;
  // the point nearest every hinge line: sum (I - a a^T) (p - c) = 0
  Mat3 A = Mat3::Zero();
  Vec3 rhs = Vec3::Zero();
  std::vector<Vec3> c;
  a.clear();
  for (int k = j0; k < j0 + nj; ++k) {
    c.push_back(vec3(d->xanchor + 3 * k));
    a.push_back(vec3(d->xaxis + 3 * k).normalized());
    const Mat3 P = Mat3::Identity() - a.back() * a.back().transpose();
    A += P;
    rhs += P * c.back();
  }
  double scale = 1;
  for (const Vec3& q : c) scale = std::max(scale, q.norm());
  const double parallel = a[0].cross(a[1]).norm();
  double gap = 0;
  p = c[0];
  if (parallel > kMeetTolerance) {
    p = A.fullPivLu().solve(rhs);
    for (size_t k = 0; k < c.size(); ++k) gap = std::max(gap, ((Mat3::Identity() - a[k] * a[k].transpose()) * (p - c[k])).norm());
  }
  if (parallel <= kMeetTolerance || gap > kMeetTolerance * scale) {
    // two lines: their distance; three: how far the nearest point to all of them is off one
    const std::string how = parallel <= kMeetTolerance ? " (parallel hinges)"
                            : nj == 2 ? fmt::format(" ({:.3g} m apart)", std::abs((c[1] - c[0]).dot(a[0].cross(a[1]).normalized())))
                                      : fmt::format(" (no point within {:.3g} m of all three)", gap);
    return fmt::format("body '{}' has {} joints whose axes do not meet{}: {}", body_name(i), nj, how, list);
  }
  if (nj == 2) {
    const double cosine = a[0].dot(a[1]);
    if (std::abs(cosine) > kMeetTolerance)
      return fmt::format("body '{}' has 2 hinges through one point at {:.6g} degrees, not 90 (a Cardan joint's axes are perpendicular): {}",
                         body_name(i), std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / M_PI, list);
    return {};
  }
  const double det = a[0].dot(a[1].cross(a[2]));
  if (std::abs(det) <= kMeetTolerance)
    return fmt::format("body '{}' has 3 hinges through one point whose axes are dependent (det {:.3g}): {}", body_name(i), det, list);
  return {};
}

std::string Reader::composite_refusal(int i, const std::string& list, Vec3& p, std::vector<Vec3>& a, JointType& type) const {
  const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
  int h = j0;
  std::vector<Vec3> u;  // the slides' axes
  for (int k = j0; k < j0 + nj; ++k) {
    if (m->jnt_type[k] == mjJNT_HINGE) h = k;
    else u.push_back(vec3(d->xaxis + 3 * k).normalized());
  }
  const Vec3 n = vec3(d->xaxis + 3 * h).normalized();
  auto degrees = [](double cosine) { return std::acos(std::clamp(cosine, -1.0, 1.0)) * 180 / M_PI; };
  if (nj == 2) {
    type = JointType::Cylindrical;
    if (n.cross(u[0]).norm() > kMeetTolerance)
      return fmt::format("body '{}' has a hinge and a slide {:.6g} degrees apart (a cylindrical joint slides along its hinge): {}",
                         body_name(i), degrees(std::abs(n.dot(u[0]))), list);
  } else {
    type = JointType::Planar;
    if (u[0].cross(u[1]).norm() <= kMeetTolerance)
      return fmt::format("body '{}' has two parallel slides and a hinge (a planar joint's slides span its plane): {}", body_name(i), list);
    const double off = std::max(std::abs(n.dot(u[0])), std::abs(n.dot(u[1])));
    if (off > kMeetTolerance)
      return fmt::format("body '{}' has two slides and a hinge at {:.6g} degrees to a slide, not 90 (a planar joint turns about the "
                         "normal of its slides' plane): {}", body_name(i), degrees(off), list);
  }
  // what the one joint cannot carry: its parts' limits, dampers, actuators and couplings
  for (int k = j0; k < j0 + nj; ++k) {
    std::string what;
    if (opt.limits && m->jnt_limited[k]) what = "a range (limits=on)";
    if (opt.damping && has_damping(k)) what = "damping (damping=on)";
    for (int e = 0; e < m->nu && what.empty(); ++e)
      if (m->actuator_trntype[e] == mjTRN_JOINT && m->actuator_trnid[2 * e] == k)
        what = fmt::format("actuator '{}'", name_of(m, mjOBJ_ACTUATOR, e, "actuator"));
    for (int e = 0; e < m->neq && what.empty(); ++e) {
      if (!m->eq_active[e]) continue;
      bool holds = m->eq_type[e] == mjEQ_JOINT && (m->eq_obj1id[e] == k || m->eq_obj2id[e] == k);
      if (m->eq_type[e] == mjEQ_TENDON)
        for (int id : {m->eq_obj1id[e], m->eq_obj2id[e]})
          for (int w = id < 0 ? 0 : m->tendon_adr[id]; id >= 0 && w < m->tendon_adr[id] + m->tendon_num[id]; ++w)
            holds = holds || (m->wrap_type[w] == mjWRAP_JOINT && m->wrap_objid[w] == k);
      if (holds) what = fmt::format("equality '{}'", name_of(m, mjOBJ_EQUALITY, e, "equality"));
    }
    if (!what.empty())
      return fmt::format("body '{}' has the joints of a {} joint, but joint '{}' has {}, which that joint does not carry: {}", body_name(i),
                         joint_type_name(type), joint_name(k), what, list);
  }
  p = vec3(d->xanchor + 3 * h);
  a = {n};
  return {};
}

bool Reader::chainable(int i) const {
  const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
  for (int k = j0; k < j0 + nj; ++k)
    if (m->jnt_type[k] != mjJNT_HINGE && m->jnt_type[k] != mjJNT_SLIDE) return false;
  return true;
}

Joint Reader::joint_extras(Joint j, int k) const {
  if (opt.damping) j.damping = m->dof_damping[m->jnt_dofadr[k]];
  if (opt.limits && m->jnt_limited[k]) {
    const double q0 = m->qpos0[m->jnt_qposadr[k]];
    j.lower = m->jnt_range[2 * k] - q0;
    j.upper = m->jnt_range[2 * k + 1] - q0;
    if (!(j.lower <= j.upper))
      fail("joint", joint_name(k), fmt::format("joint '{}' has range [{}, {}]: the low end is above the high end", joint_name(k),
                                               m->jnt_range[2 * k], m->jnt_range[2 * k + 1]));
    ++limits_applied;
  }
  return j;
}

bool Reader::has_damping(int k) const {
  const int n = m->jnt_type[k] == mjJNT_FREE ? 6 : m->jnt_type[k] == mjJNT_BALL ? 3 : 1;
  for (int v = m->jnt_dofadr[k]; v < m->jnt_dofadr[k] + n; ++v)
    if (m->dof_damping[v] != 0) return true;
  return false;
}

Joint Reader::multi_joint(int i, int parent) const {
  const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
  if (opt.damping && m->jnt_type[j0] == mjJNT_HINGE && m->jnt_type[j0 + 1] == mjJNT_HINGE)
    for (int k = j0; k < j0 + nj; ++k)
      if (has_damping(k))
        fail("body", body_name(i), fmt::format("body '{}' has {} hinges through one point, mapped as one {} joint, and joint '{}' has "
                                               "damping: damping=on maps the damping of a joint that stays a hinge or slide (damping=off ignores it)",
                                               body_name(i), nj, nj == 2 ? "cardan" : "ball", joint_name(k)));
  Vec3 p;
  std::vector<Vec3> a;
  JointType type = JointType::Ball;
  const std::string why = merge_refusal(i, p, a, type);
  if (!why.empty()) fail("body", body_name(i), why);
  const std::string name = [&] {
    std::string s;
    for (int k = j0; k < j0 + nj; ++k) {
      if (!s.empty()) s += "+";
      s += joint_name(k);
    }
    return s;
  }();
  const int index = static_cast<int>(out.bodies.size()) - 1;
  if (type == JointType::Cardan) return joint(type, name, parent, index, p, a[0], a[1]);
  return joint(type, name, parent, index, p, a[0], a[0]);
}

int Reader::frame_chain(int i, int parent) {
  const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
  for (int k = j0; k < j0 + nj - 1; ++k) {
    Body f;
    f.name = body_name(i) + "/" + joint_name(k);
    f.frame = !opt.light_frames;
    f.light_frame = opt.light_frames;
    if (opt.light_frames) {
      // 1 % of the lighter of the body and the massive body it hangs from (the body alone under
      // the world), as an isotropic inertia of 1 % of that body's largest moment (1 % of the
      // smallest made the frames spin up under step changes of the controls in the impulse
      // methods' explicit prediction)
      int light = i;
      for (int p = m->body_parentid[i]; p > 0; p = m->body_parentid[p])
        if (m->body_mass[p] >= mjMINVAL) {
          if (m->body_mass[p] < m->body_mass[i]) light = p;
          break;
        }
      const Vec3 moments = vec3(m->body_inertia + 3 * light);
      f.mass = kLightFrame * m->body_mass[light];
      f.inertia = kLightFrame * moments.maxCoeff() * Mat3::Identity();
      ++light_frames;
    }
    f.position = vec3(d->xanchor + 3 * k);
    f.orientation = quat4(d->xquat + 4 * i);
    const int index = static_cast<int>(out.bodies.size());
    out.bodies.push_back(f);
    const Vec3 ax = vec3(d->xaxis + 3 * k);
    out.joints.push_back(joint_extras(joint(m->jnt_type[k] == mjJNT_HINGE ? JointType::Hinge : JointType::Slider, joint_name(k), parent, index,
                                      f.position, ax, ax), k));
    parent = index;
  }
  return parent;
}

bool Reader::needs_frames() const {
  bool any = false;
  for (int i = 1; i < m->nbody; ++i) {
    if (m->body_jntnum[i] < 2) continue;
    Vec3 p;
    std::vector<Vec3> a;
    JointType type;
    const std::string why = merge_refusal(i, p, a, type);
    if (why.empty()) continue;
    if (!chainable(i))
      fail("body", body_name(i), why + "; other hinges and slides become a chain through massless frames, a ball or free joint among several does not");
    any = true;
  }
  return any;
}

void Reader::bodies() {
  frames = needs_frames();
  rep.assign(static_cast<size_t>(m->nbody), kWorld);
  for (int i = 1; i < m->nbody; ++i) {  // MuJoCo's order: parents before children
    const int parent = rep[static_cast<size_t>(m->body_parentid[i])];
    const int nj = m->body_jntnum[i], j0 = m->body_jntadr[i];
    const bool massless = m->body_mass[i] < mjMINVAL;
    if (nj == 0 && parent == kWorld) continue;  // welded to the world: part of the fixed frame
    if (nj == 0 && massless) {                  // a massless frame welded to its parent: merged into it
      rep[static_cast<size_t>(i)] = parent;
      continue;
    }
    if (massless)
      fail("body", body_name(i), fmt::format("body '{}' has {} joint(s) but no mass (a moving body needs one)", body_name(i), nj));
    Body b;
    b.name = body_name(i);
    b.mass = m->body_mass[i];
    b.inertia = vec3(m->body_inertia + 3 * i).asDiagonal();
    b.position = vec3(d->xipos + 3 * i);
    mjtNum q[4];
    mju_mulQuat(q, d->xquat + 4 * i, m->body_iquat + 4 * i);  // the inertial frame: the body's frame turned by iquat
    b.orientation = quat4(q);
    if (!b.position.allFinite() || !b.orientation.coeffs().allFinite())
      fail("body", b.name, fmt::format("body '{}' has a non-finite position or orientation as MuJoCo compiled it", b.name));
    for (int k = j0; k < j0 + nj; ++k) {
      const Vec3 axis = vec3(m->jnt_axis + 3 * k), anchor = vec3(d->xanchor + 3 * k);
      if (!anchor.allFinite()) fail("joint", joint_name(k), fmt::format("joint '{}' has a non-finite position", joint_name(k)));
      if ((m->jnt_type[k] == mjJNT_HINGE || m->jnt_type[k] == mjJNT_SLIDE) && !(axis.allFinite() && axis.norm() > 0))
        fail("joint", joint_name(k), fmt::format("joint '{}' has a zero or non-finite axis ({}, {}, {})", joint_name(k), axis.x(), axis.y(), axis.z()));
      if (opt.damping && (m->jnt_type[k] == mjJNT_FREE || m->jnt_type[k] == mjJNT_BALL) && has_damping(k))
        fail("joint", joint_name(k), fmt::format("joint '{}' is a {} joint with damping: damping=on maps the damping of hinge and slide "
                                                 "joints only (damping=off ignores it)", joint_name(k), m->jnt_type[k] == mjJNT_FREE ? "free" : "ball"));
    }
    const int index = static_cast<int>(out.bodies.size());
    rep[static_cast<size_t>(i)] = index;
    out.bodies.push_back(b);
    if (nj == 0) {
      out.joints.push_back(joint(JointType::Fixed, b.name + ":weld", parent, index, b.position, Vec3::UnitZ(), Vec3::UnitZ()));
    } else if (nj == 1) {
      const Vec3 p = vec3(d->xanchor + 3 * j0), ax = vec3(d->xaxis + 3 * j0);
      switch (m->jnt_type[j0]) {
        case mjJNT_FREE:
          if (parent != kWorld)
            fail("body", b.name, fmt::format("body '{}' has a free joint but moves with its parent", b.name));
          break;  // free-floating: no joint
        case mjJNT_BALL: out.joints.push_back(joint(JointType::Ball, joint_name(j0), parent, index, p, ax, ax)); break;
        case mjJNT_HINGE: out.joints.push_back(joint_extras(joint(JointType::Hinge, joint_name(j0), parent, index, p, ax, ax), j0)); break;
        case mjJNT_SLIDE: out.joints.push_back(joint_extras(joint(JointType::Slider, joint_name(j0), parent, index, p, ax, ax), j0)); break;
        default: fail("joint", joint_name(j0), fmt::format("joint '{}' has an unknown type {}", joint_name(j0), m->jnt_type[j0]));
      }
    } else if (frames) {
      // the chain's frames come after the body in the list (their joints name it by index)
      const int k = j0 + nj - 1;
      const int last = frame_chain(i, parent);
      const Vec3 p = vec3(d->xanchor + 3 * k), ax = vec3(d->xaxis + 3 * k);
      out.joints.push_back(joint_extras(joint(m->jnt_type[k] == mjJNT_HINGE ? JointType::Hinge : JointType::Slider, joint_name(k), last, index, p, ax, ax), k));
    } else {
      out.joints.push_back(multi_joint(i, parent));
    }
  }
  if (out.bodies.empty()) fail("model", "the model has no moving body");
}

void Reader::equalities(std::vector<std::string>& ignored) {
  int inactive = 0;
  for (int e = 0; e < m->neq; ++e) {
    const std::string name = name_of(m, mjOBJ_EQUALITY, e, "equality");
    const std::string field = "equality";
    if (!m->eq_active[e]) {
      ++inactive;
      continue;
    }
    const int type = m->eq_type[e];
    if (type == mjEQ_JOINT || type == mjEQ_TENDON) {
      coupling(e, name);
      continue;
    }
    if (type != mjEQ_CONNECT && type != mjEQ_WELD)
      fail(field, name, fmt::format("equality '{}' is a {} constraint: only connect (a ball joint), weld (a fixed joint), joint and "
                                    "tendon (a coupling) are mapped", name, "distance"));
    const int b1 = m->eq_obj1id[e], b2 = m->eq_obj2id[e];
    const int a = rep[static_cast<size_t>(b1)], b = rep[static_cast<size_t>(b2)];
    if (a == b)
      fail(field, name, fmt::format("equality '{}' joins bodies '{}' and '{}' that are one rigid body here (welded or fixed together)", name,
                              body_name(b1), body_name(b2)));
    const mjtNum* data = m->eq_data + mjNEQDATA * e;
    const Mat3 R1 = mat3(d->xmat + 9 * b1), R2 = mat3(d->xmat + 9 * b2);
    const Vec3 x1 = vec3(d->xpos + 3 * b1), x2 = vec3(d->xpos + 3 * b2);
    if (type == mjEQ_CONNECT) {
      // data: the anchor in body1's frame, and (the compiler's, at qpos0) in body2's
      const Vec3 p1 = x1 + R1 * vec3(data), p2 = x2 + R2 * vec3(data + 3);
      if ((p1 - p2).norm() > kMeetTolerance * std::max(1.0, p1.norm()))
        fail(field, name, fmt::format("connect '{}': its anchors are {:.3g} m apart at qpos0", name, (p1 - p2).norm()));
      out.joints.push_back(joint(JointType::Ball, name, a, b, p1, Vec3::UnitZ(), Vec3::UnitZ()));
    } else {
      // data: the anchor in body2's frame, then body2's pose in body1's frame (relpose; the compiler's at qpos0 unless given)
      const Quat q1 = quat4(d->xquat + 4 * b1), q2 = quat4(d->xquat + 4 * b2);
      const Vec3 rel_p = R1.transpose() * (x2 - x1);
      const Quat rel_q = q1.conjugate() * q2, given_q = quat4(data + 6);
      if ((rel_p - vec3(data + 3)).norm() > kMeetTolerance * std::max(1.0, rel_p.norm()) || std::abs(std::abs(rel_q.dot(given_q)) - 1) > kMeetTolerance)
        fail(field, name, fmt::format("weld '{}' holds a relative pose (relpose) other than its bodies' at qpos0", name));
      out.joints.push_back(joint(JointType::Fixed, name, a, b, x2 + R2 * vec3(data), Vec3::UnitZ(), Vec3::UnitZ()));
    }
  }
  if (inactive) ignored.push_back(fmt::format("{} inactive equality constraint(s)", inactive));
}

void Reader::coupling(int e, const std::string& name) {
  const mjtNum* c = m->eq_data + mjNEQDATA * e;
  const int line = element_line("equality", name);
  const bool joints = m->eq_type[e] == mjEQ_JOINT;
  const std::string what = joints ? "joint" : "tendon";
  if (c[2] != 0 || c[3] != 0 || c[4] != 0)
    throw InputError(path, line, "equality.polycoef",
                     fmt::format("equality '{}': nonlinear polycoef ({} {} {} {} {}): only a linear coupling (c2 = c3 = c4 = 0) is mapped",
                                 name, c[0], c[1], c[2], c[3], c[4]));
  // the relation as sum over joints k_j (q_j - qpos0_j) = c0: joint1 - c1 joint2, or tendon1 - c1 tendon2 with a
  // fixed tendon's length sum coef_j q_j (the references cancel: qpos0, and the tendons' lengths there)
  std::vector<std::pair<int, double>> terms;  // MuJoCo joint, coefficient
  auto add = [&](int joint, double k) {
    for (auto& t : terms)
      if (t.first == joint) return void(t.second += k);
    terms.emplace_back(joint, k);
  };
  for (int side = 0; side < 2; ++side) {
    const int id = side == 0 ? m->eq_obj1id[e] : m->eq_obj2id[e];
    if (id < 0) continue;
    const double sign = side == 0 ? 1 : -c[1];
    if (joints) {
      add(id, sign);
      continue;
    }
    for (int w = m->tendon_adr[id]; w < m->tendon_adr[id] + m->tendon_num[id]; ++w) {
      if (m->wrap_type[w] != mjWRAP_JOINT)
        throw InputError(path, line, "equality.tendon1",
                         fmt::format("equality '{}' holds tendon '{}', a spatial tendon: only a fixed tendon's equality between two joints is a coupling",
                                     name, name_of(m, mjOBJ_TENDON, id, "tendon")));
      add(m->wrap_objid[w], sign * m->wrap_prm[w]);
    }
  }
  terms.erase(std::remove_if(terms.begin(), terms.end(), [](const auto& t) { return t.second == 0; }), terms.end());
  if (terms.size() != 2)
    throw InputError(path, line, "equality." + what + "2",
                     fmt::format("equality '{}' relates {} joint coordinate(s): a coupling relates two ({} equality{})", name, terms.size(), what,
                                 m->eq_obj2id[e] < 0 ? fmt::format(" without {}2 holds its {} at qpos0 + polycoef[0]", what, what) : ""));
  if (!(std::abs(c[0] / terms[0].second) <= kCouplingStartTolerance))
    throw InputError(path, line, "equality.polycoef",
                     fmt::format("equality '{}': polycoef[0] = {} breaks the coupling at qpos0, where the model starts; only 0 is mapped", name, c[0]));
  std::map<std::string, int> ours;  // our hinges and sliders by name
  for (size_t k = 0; k < out.joints.size(); ++k)
    if (out.joints[k].type == JointType::Hinge || out.joints[k].type == JointType::Slider) ours.emplace(out.joints[k].name, static_cast<int>(k));
  JointCoupling cp;
  cp.name = name;
  for (int side = 0; side < 2; ++side) {
    const std::string jn = joint_name(terms[static_cast<size_t>(side)].first);
    const auto it = ours.find(jn);
    if (it == ours.end())
      throw InputError(path, line, "equality." + what + (side == 0 ? "1" : "2"),
                       fmt::format("equality '{}' couples joint '{}', which is not a hinge or slide here", name, jn));
    (side == 0 ? cp.a : cp.b) = it->second;
  }
  cp.multiplier = -terms[1].second / terms[0].second;
  out.couplings.push_back(cp);
  if (!joints) ++tendon_couplings;
}

void Reader::actuators(std::vector<std::string>& ignored) {
  std::map<std::string, int> ours;  // our hinges and sliders by name
  for (size_t k = 0; k < out.joints.size(); ++k)
    if (out.joints[k].type == JointType::Hinge || out.joints[k].type == JointType::Slider) ours.emplace(out.joints[k].name, static_cast<int>(k));
  std::vector<std::string> left;
  for (int u = 0; u < m->nu; ++u) {
    const std::string name = name_of(m, mjOBJ_ACTUATOR, u, "actuator");
    const int jid = m->actuator_trnid[2 * u];
    if (m->actuator_trntype[u] != mjTRN_JOINT) {
      left.push_back(name + " (not a joint transmission)");
      continue;
    }
    if (m->actuator_dyntype[u] != mjDYN_NONE) {
      left.push_back(name + " (activation dynamics)");
      continue;
    }
    if (m->actuator_gaintype[u] != mjGAIN_FIXED || (m->actuator_biastype[u] != mjBIAS_NONE && m->actuator_biastype[u] != mjBIAS_AFFINE)) {
      left.push_back(name + " (a gain or bias that is not affine)");
      continue;
    }
    const auto it = ours.find(joint_name(jid));
    if (it == ours.end()) {
      left.push_back(name + fmt::format(" (joint '{}' is not a hinge or slide here)", joint_name(jid)));
      continue;
    }
    Actuator a;
    a.name = name;
    a.joint = it->second;
    a.gear = m->actuator_gear[6 * u];
    a.gain = m->actuator_gainprm[mjNGAIN * u];
    if (m->actuator_biastype[u] == mjBIAS_AFFINE) a.bias = {m->actuator_biasprm[mjNBIAS * u], m->actuator_biasprm[mjNBIAS * u + 1], m->actuator_biasprm[mjNBIAS * u + 2]};
    if (m->actuator_ctrllimited[u]) a.ctrl_low = m->actuator_ctrlrange[2 * u], a.ctrl_high = m->actuator_ctrlrange[2 * u + 1];
    if (m->actuator_forcelimited[u]) a.force_low = m->actuator_forcerange[2 * u], a.force_high = m->actuator_forcerange[2 * u + 1];
    a.offset = m->qpos0[m->jnt_qposadr[jid]];
    // the kind MuJoCo's shortcut elements give (motor, position, velocity), else general
    const auto& b = a.bias;
    a.kind = a.gain == 1 && b[0] == 0 && b[1] == 0 && b[2] == 0 ? ActuatorKind::Motor
             : b[0] == 0 && b[1] == -a.gain && a.gain > 0      ? ActuatorKind::Position
             : b[0] == 0 && b[1] == 0 && b[2] == -a.gain && a.gain > 0 ? ActuatorKind::Velocity
                                                               : ActuatorKind::General;
    const std::pair<const char*, double> numbers[] = {{"gear", a.gear}, {"gainprm", a.gain}, {"biasprm", b[0]}, {"biasprm", b[1]}, {"biasprm", b[2]}};
    for (const auto& [field, x] : numbers)
      if (!std::isfinite(x)) fail("actuator", name, fmt::format("actuator '{}' has a non-finite {} ({})", name, field, x));
    if (!(a.ctrl_low <= a.ctrl_high))
      fail("actuator", name, fmt::format("actuator '{}' has ctrlrange [{}, {}]: the low end is above the high end", name, a.ctrl_low, a.ctrl_high));
    if (!(a.force_low <= a.force_high))
      fail("actuator", name, fmt::format("actuator '{}' has forcerange [{}, {}]: the low end is above the high end", name, a.force_low, a.force_high));
    out.actuators.push_back(a);
  }
  if (!left.empty()) {
    std::string line;
    for (const std::string& s : left) line += (line.empty() ? "" : ", ") + s;
    ignored.push_back(fmt::format("{} actuator(s) not driven: {}", left.size(), line));
  }
}

}  // namespace mb::mjcf_import

#endif
