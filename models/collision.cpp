#include "models/collision.hpp"

#include <algorithm>
#include <optional>
#include <numeric>
#include <set>
#include <utility>

#include <fcl/broadphase/broadphase_dynamic_AABB_tree.h>
#include <fcl/geometry/shape/box.h>
#include <fcl/geometry/shape/capsule.h>
#include <fcl/geometry/shape/convex.h>
#include <fcl/geometry/shape/cylinder.h>
#include <fcl/geometry/shape/ellipsoid.h>
#include <fcl/geometry/shape/halfspace.h>
#include <fcl/geometry/shape/sphere.h>
#include <fcl/narrowphase/collision.h>
#include <fcl/narrowphase/collision_object.h>
#include <fcl/narrowphase/detail/primitive_shape_algorithm/capsule_capsule.h>

namespace mb {

namespace {

// FCL's geometry of a shape grown by `grow` on every side (half the detector's margin, so that two
// grown shapes touch when the shapes are closer than the margin; a convex mesh is not grown: its
// inflation() is 0)
std::shared_ptr<fcl::CollisionGeometryd> fcl_geometry(const Shape& sh, double margin) {
  switch (sh.type) {
    case ShapeType::Sphere: return std::make_shared<fcl::Sphered>(sh.radius + margin);
    case ShapeType::Box: return std::make_shared<fcl::Boxd>(2 * (sh.half_extents + Vec3::Constant(margin)));
    case ShapeType::Ellipsoid: return std::make_shared<fcl::Ellipsoidd>(sh.half_extents + Vec3::Constant(margin));
    case ShapeType::Capsule: return std::make_shared<fcl::Capsuled>(sh.radius + margin, sh.length);
    case ShapeType::Cylinder: return std::make_shared<fcl::Cylinderd>(sh.radius + margin, sh.length + 2 * margin);
    case ShapeType::HalfSpace: return std::make_shared<fcl::Halfspaced>(Vec3::UnitY(), margin);
    case ShapeType::Convex: {
      auto vertices = std::make_shared<std::vector<Vec3>>(sh.vertices);
      auto faces = std::make_shared<std::vector<int>>();
      for (const auto& f : sh.faces) faces->insert(faces->end(), {3, f[0], f[1], f[2]});
      return std::make_shared<fcl::Convexd>(vertices, static_cast<int>(sh.faces.size()), faces);
    }
  }
  return nullptr;
}

double inflation(const Shape& sh, double margin) { return sh.type == ShapeType::Convex ? 0.0 : margin / 2; }

// the vertices of a box or convex shape in its own frame (empty for other shapes)
std::vector<Vec3> shape_vertices(const Shape& sh) {
  if (sh.type == ShapeType::Convex) return sh.vertices;
  std::vector<Vec3> v;
  if (sh.type == ShapeType::Box)
    for (int k = 0; k < 8; ++k)
      v.emplace_back((k & 1 ? 1 : -1) * sh.half_extents.x(), (k & 2 ? 1 : -1) * sh.half_extents.y(),
                     (k & 4 ? 1 : -1) * sh.half_extents.z());
  return v;
}

bool fixed_body(const Model& m, int k) { return k == kWorld || m.bodies[static_cast<size_t>(k)].is_static; }

}  // namespace

ShapePose shape_pose(const Shape& sh, const State& s) {
  if (sh.body == kWorld) return {sh.position, sh.orientation};
  const BodyState& b = s.bodies[static_cast<size_t>(sh.body)];
  return {b.x + b.q * sh.position, b.q * sh.orientation};
}

Vec3 body_point(const State& s, int body, const Vec3& local) {
  if (body == kWorld) return local;
  const BodyState& b = s.bodies[static_cast<size_t>(body)];
  return b.x + b.q * local;
}

ShapePairRule::ShapePairRule(const Model& model) {
  // weld groups: bodies joined by fixed joints (union-find), each named by its root
  const int n = static_cast<int>(model.bodies.size());
  group_.resize(static_cast<size_t>(n));
  std::iota(group_.begin(), group_.end(), 0);
  auto find = [&](int x) {
    while (group_[static_cast<size_t>(x)] != x) x = group_[static_cast<size_t>(x)] = group_[static_cast<size_t>(group_[static_cast<size_t>(x)])];
    return x;
  };
  for (const Joint& j : model.joints)
    if (j.type == JointType::Fixed && j.a >= 0 && j.b >= 0) group_[static_cast<size_t>(find(j.a))] = find(j.b);
  for (int k = 0; k < n; ++k) group_[static_cast<size_t>(k)] = find(k);
  auto g = [&](int b) { return b < 0 ? b : group_[static_cast<size_t>(b)]; };
  // a joint to the world or a static body keeps the pair (MuJoCo exempts the world body: a
  // pendulum still touches the floor)
  for (const Joint& j : model.joints)
    if (!fixed_body(model, j.a) && !fixed_body(model, j.b)) joined_.insert(std::minmax(g(j.a), g(j.b)));
  // groups joined through a chain of joint frames (massless or light): MuJoCo's parent and child
  auto is_frame = [&](int b) { return b >= 0 && (model.bodies[static_cast<size_t>(b)].frame || model.bodies[static_cast<size_t>(b)].light_frame); };
  std::vector<std::vector<int>> next(model.bodies.size());
  for (const Joint& j : model.joints)
    if (j.a >= 0 && j.b >= 0) {
      next[static_cast<size_t>(j.a)].push_back(j.b);
      next[static_cast<size_t>(j.b)].push_back(j.a);
    }
  for (int f = 0; f < n; ++f) {
    if (!is_frame(f)) continue;
    // the bodies reached from this frame through frames alone, every pair of their groups joined
    std::vector<int> reached, stack = {f};
    std::set<int> seen = {f};
    while (!stack.empty()) {
      const int x = stack.back();
      stack.pop_back();
      for (int y : next[static_cast<size_t>(x)]) {
        if (!seen.insert(y).second) continue;
        if (is_frame(y)) stack.push_back(y);
        else reached.push_back(g(y));
      }
    }
    for (int a : reached)
      for (int b : reached)
        if (a < b) joined_.insert({a, b});
  }
}

bool ShapePairRule::tested(const Model& m, int a, int b) const {
  if (a == b || (fixed_body(m, a) && fixed_body(m, b))) return false;
  const int ga = a < 0 ? a : group_[static_cast<size_t>(a)], gb = b < 0 ? b : group_[static_cast<size_t>(b)];
  return ga != gb && !joined_.count(std::minmax(ga, gb));
}

struct CollisionDetector::Impl {
  std::vector<std::unique_ptr<fcl::CollisionObjectd>> objects;  // one per model shape
  std::vector<std::vector<Vec3>> vertices;                      // per shape (box, convex)
  fcl::DynamicAABBTreeCollisionManagerd manager;
  std::vector<std::pair<int, int>> candidates;
  std::vector<int> half_spaces;  // not in the manager: their AABB is unbounded (FCL's tree fails on it)
  double margin = 0;

  std::optional<ShapePairRule> rule;
  // whether the shapes of bodies a and b are tested at all
  bool tested(const Model& m, int a, int b) const { return rule->tested(m, a, b); }

  fcl::Transform3d pose(const Shape& sh, const State& s) const {
    const ShapePose p = shape_pose(sh, s);
    fcl::Transform3d tf = fcl::Transform3d::Identity();
    tf.translation() = p.position;
    tf.linear() = p.orientation.toRotationMatrix();
    return tf;
  }
};

CollisionDetector::CollisionDetector(const Model& model, double margin) : impl_(std::make_unique<Impl>()) {
  impl_->margin = margin;
  impl_->rule.emplace(model);
  std::vector<fcl::CollisionObjectd*> all;
  for (size_t i = 0; i < model.shapes.size(); ++i) {
    const Shape& sh = model.shapes[i];
    auto obj = std::make_unique<fcl::CollisionObjectd>(fcl_geometry(sh, inflation(sh, margin)));
    obj->setUserData(reinterpret_cast<void*>(i));
    impl_->objects.push_back(std::move(obj));
    impl_->vertices.push_back(shape_vertices(sh));
    if (sh.type == ShapeType::HalfSpace) impl_->half_spaces.push_back(static_cast<int>(i));
    else all.push_back(impl_->objects.back().get());
  }
  State s0 = initial_state(model);
  for (size_t i = 0; i < model.shapes.size(); ++i) {
    impl_->objects[i]->setTransform(impl_->pose(model.shapes[i], s0));
    impl_->objects[i]->computeAABB();
  }
  impl_->manager.registerObjects(all);
  impl_->manager.setup();
}

CollisionDetector::~CollisionDetector() = default;
CollisionDetector::CollisionDetector(CollisionDetector&&) noexcept = default;
CollisionDetector& CollisionDetector::operator=(CollisionDetector&&) noexcept = default;

void CollisionDetector::detect(const Model& model, const State& s, std::vector<Contact>& out, const std::function<bool(int, int)>& test) {
  out.clear();
  Impl& I = *impl_;
  if (model.shapes.empty()) return;
  for (size_t i = 0; i < model.shapes.size(); ++i) {
    if (model.shapes[i].body == kWorld) continue;
    I.objects[i]->setTransform(I.pose(model.shapes[i], s));
    I.objects[i]->computeAABB();
  }
  I.manager.update();
  // broad phase: candidate shape pairs, then in a fixed order
  I.candidates.clear();
  struct Data {
    const Model* model;
    Impl* impl;
  } data{&model, &I};
  I.manager.collide(&data, [](fcl::CollisionObjectd* o1, fcl::CollisionObjectd* o2, void* p) {
    auto* d = static_cast<Data*>(p);
    int i = static_cast<int>(reinterpret_cast<size_t>(o1->getUserData()));
    int j = static_cast<int>(reinterpret_cast<size_t>(o2->getUserData()));
    if (i > j) std::swap(i, j);
    const int a = d->model->shapes[static_cast<size_t>(i)].body, b = d->model->shapes[static_cast<size_t>(j)].body;
    if (!d->impl->tested(*d->model, a, b)) return false;
    d->impl->candidates.emplace_back(i, j);
    return false;  // go on
  });
  // each half-space against every other shape (the narrow phase decides)
  for (int hs : I.half_spaces)
    for (int k = 0; k < static_cast<int>(model.shapes.size()); ++k) {
      if (model.shapes[static_cast<size_t>(k)].type == ShapeType::HalfSpace) continue;
      const int a = model.shapes[static_cast<size_t>(hs)].body, b = model.shapes[static_cast<size_t>(k)].body;
      if (!I.tested(model, a, b)) continue;
      I.candidates.emplace_back(std::min(hs, k), std::max(hs, k));
    }
  std::sort(I.candidates.begin(), I.candidates.end());
  // narrow phase
  fcl::CollisionRequestd request(8, true);
  for (auto [i, j] : I.candidates) {
    if (test && !test(i, j)) continue;
    const Shape& si = model.shapes[static_cast<size_t>(i)];
    const Shape& sj = model.shapes[static_cast<size_t>(j)];
    // spheres and capsules among themselves skip FCL: their gap below decides (FCL's test of the
    // shapes grown by half the margin asks the same, gap < margin)
    const bool round_i = si.type == ShapeType::Sphere || si.type == ShapeType::Capsule;
    const bool round_j = sj.type == ShapeType::Sphere || sj.type == ShapeType::Capsule;
    fcl::CollisionResultd result;
    if (!(round_i && round_j) && fcl::collide(I.objects[static_cast<size_t>(i)].get(), I.objects[static_cast<size_t>(j)].get(), request, result) == 0)
      continue;
    auto local = [&](int body, const Vec3& p) {
      if (body == kWorld) return p;
      const BodyState& bs = s.bodies[static_cast<size_t>(body)];
      return Vec3(bs.q.conjugate() * (p - bs.x));
    };
    // the polyhedron (box, convex) of a pair with a half-space, if any (its contacts below)
    const bool hi = si.type == ShapeType::HalfSpace, hj = sj.type == ShapeType::HalfSpace;
    const int poly = hi && !I.vertices[static_cast<size_t>(j)].empty() ? j : hj && !I.vertices[static_cast<size_t>(i)].empty() ? i : -1;
    // spheres and capsules among themselves: the closest points of their axis segments (FCL's
    // closestPtSegmentSegment; a sphere's segment is its centre), exact where FCL's EPA leaves the
    // depth of two capsules up to 0.6 mm off
    if (round_i && round_j) {
      auto segment = [&](int k, Vec3& p, Vec3& q) {
        const Shape& sh = model.shapes[static_cast<size_t>(k)];
        const fcl::Transform3d tk = I.objects[static_cast<size_t>(k)]->getTransform();
        const double half = sh.type == ShapeType::Capsule ? 0.5 * sh.length : 0.0;
        p = tk.translation() - half * tk.linear().col(2);
        q = tk.translation() + half * tk.linear().col(2);
      };
      Vec3 pi, qi, pj, qj, ci, cj;
      segment(i, pi, qi);
      segment(j, pj, qj);
      double si_, tj_;
      const double dist = std::sqrt(fcl::detail::closestPtSegmentSegment<double>(pi, qi, pj, qj, &si_, &tj_, &ci, &cj));
      const double gap = dist - si.radius - sj.radius;
      if (gap >= I.margin) continue;
      Contact c;
      c.a = si.body;
      c.b = sj.body;
      c.shape_a = i;
      c.shape_b = j;
      c.normal = dist > 0 ? Vec3((cj - ci) / dist) : Vec3::UnitZ();  // coincident axes: any direction
      c.depth = -gap;
      c.local_a = local(c.a, ci + si.radius * c.normal);
      c.local_b = local(c.b, cj - sj.radius * c.normal);
      out.push_back(c);
      continue;
    }
    // a capsule or cylinder against a half-space: each end's sphere below the plane, or four
    // points of each end's rim, the lowest and those at quarter turns from it (a capsule or
    // cylinder lying on it touches at both ends, a cylinder standing on it along its rim); a
    // polyhedron: every vertex below the plane (FCL gives one point, on which each would rock)
    auto rounded = [](ShapeType t) { return t == ShapeType::Capsule || t == ShapeType::Cylinder; };
    const int cap = hi && rounded(sj.type) ? j : hj && rounded(si.type) ? i : -1;
    const int on_plane = cap >= 0 ? cap : poly;
    if (on_plane >= 0) {
      const int half = on_plane == i ? j : i;
      const fcl::Transform3d th = I.objects[static_cast<size_t>(half)]->getTransform();
      const fcl::Transform3d ts = I.objects[static_cast<size_t>(on_plane)]->getTransform();
      const Vec3 n = th.linear().col(1), o = th.translation();
      const Shape& so = model.shapes[static_cast<size_t>(on_plane)];
      const Shape& sh = model.shapes[static_cast<size_t>(half)];
      std::vector<Vec3> points;  // world
      if (cap < 0) {
        for (const Vec3& v : I.vertices[static_cast<size_t>(poly)]) points.push_back(ts * v);
      } else {
        const Vec3 axis = ts.linear().col(2);
        for (const double end : {-0.5, 0.5}) {
          const Vec3 centre = ts.translation() + end * so.length * axis;
          if (so.type == ShapeType::Capsule) {
            points.push_back(centre - so.radius * n);
            continue;
          }
          const Vec3 d = n - n.dot(axis) * axis;  // the rim's lowest direction is -d
          const Vec3 u = d.norm() > 1e-12 ? Vec3(d.normalized()) : Vec3(axis.unitOrthogonal()), w = axis.cross(u);
          for (const Vec3& r : {u, w, Vec3(-u), Vec3(-w)}) points.push_back(centre - so.radius * r);
        }
      }
      for (const Vec3& p : points) {
        const double dist = n.dot(p - o);
        if (dist >= I.margin) continue;
        Contact c;
        c.a = sh.body;
        c.b = so.body;
        c.shape_a = half;
        c.shape_b = on_plane;
        c.normal = n;
        c.depth = -dist;
        c.local_a = local(c.a, p - dist * n);
        c.local_b = local(c.b, p);
        out.push_back(c);
      }
      continue;
    }
    for (size_t k = 0; k < result.numContacts(); ++k) {
      const fcl::Contactd& fc = result.getContact(k);
      const int s1 = static_cast<int>(reinterpret_cast<size_t>(fc.o1 == I.objects[static_cast<size_t>(i)]->collisionGeometry().get()
                                                                   ? I.objects[static_cast<size_t>(i)]->getUserData()
                                                                   : I.objects[static_cast<size_t>(j)]->getUserData()));
      const int s2 = s1 == i ? j : i;
      Contact c;
      c.shape_a = s1;
      c.shape_b = s2;
      c.a = model.shapes[static_cast<size_t>(s1)].body;
      c.b = model.shapes[static_cast<size_t>(s2)].body;
      c.normal = fc.normal.normalized();  // from o1 to o2
      // FCL's depth and midpoint are the grown shapes': each surface point lies its shape's growth
      // back from the grown one's
      const double grow_a = inflation(model.shapes[static_cast<size_t>(s1)], I.margin);
      const double grow_b = inflation(model.shapes[static_cast<size_t>(s2)], I.margin);
      c.depth = fc.penetration_depth - grow_a - grow_b;
      c.local_a = local(c.a, fc.pos + (0.5 * fc.penetration_depth - grow_a) * c.normal);
      c.local_b = local(c.b, fc.pos - (0.5 * fc.penetration_depth - grow_b) * c.normal);
      out.push_back(c);
    }
  }
}

}  // namespace mb
