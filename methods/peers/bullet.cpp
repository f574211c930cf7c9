// bullet: Bullet Physics' Featherstone multibodies (libbullet-dev, its double-precision build
// bullet-float64) as a method (docs/peers.md). Reduced coordinates: one btMultiBody per root of the
// joint tree (peer_tree): a floating root is the base, a body jointed to the world a link of a
// fixed base at the origin; ball joints are spherical links, hinges revolute, sliders prismatic,
// fixed joints fixed links, planar joints planar links, and a rod to a point mass a spherical link
// at the pivot (the point mass its centre of mass, with point_inertia). A link's frame is its principal axes (Bullet takes a
// diagonal inertia). A step is btMultiBodyDynamicsWorld::stepSimulation(h, 0): one step of h, the
// articulated-body algorithm and semi-implicit Euler (order 1). A ball joint or hinge that closes a
// loop is a btMultiBodyPoint2Point constraint (close_loops). A motor on a tree joint is a
// btMultiBodyJointMotor (add_motors).
// Traps (docs/peers.md): the headers must see BT_USE_DOUBLE_PRECISION and the program link the
// -float64 libraries (else btScalar is float); a btMultiBody comes with linear and angular damping
// 0.04, joint speeds clamped at 100 (maxCoordinateVelocity) and sleeping on: all switched off;
// stepSimulation(h) with the default maxSubSteps = 1 steps a fixed 1/60 s with interpolation.
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointLimitConstraint.h>
#include <BulletDynamics/Featherstone/btMultiBodyJointMotor.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>
#include <BulletCollision/CollisionDispatch/btManifoldResult.h>
#include <LinearMath/btScalar.h>

#include <chrono>
#include <functional>
#include <mutex>
#include <limits>
#include <optional>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/peers.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"

static_assert(std::is_same_v<btScalar, double>, "bullet: build with BT_USE_DOUBLE_PRECISION and the bullet-float64 libraries");

namespace mb {

namespace {

btVector3 bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
btQuaternion bt(const Quat& q) { return btQuaternion(q.x(), q.y(), q.z(), q.w()); }  // Bullet: (x, y, z, w)
Vec3 eig(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }
Quat eig(const btQuaternion& q) { return Quat(q.w(), q.x(), q.y(), q.z()); }

// A collision object's contact material (its user pointer): Bullet combines two objects' friction
// and restitution by products, ours by the model's pair rule (contact_material). The callbacks are
// global in Bullet; objects that are not ours (no user pointer) keep Bullet's products.
struct ColliderMaterial {
  const Model* model = nullptr;
  int material = 0;
};
Material pair_material(const btCollisionObject* a, const btCollisionObject* b) {
  const auto* ma = static_cast<const ColliderMaterial*>(a->getUserPointer());
  const auto* mb = static_cast<const ColliderMaterial*>(b->getUserPointer());
  return contact_material(ma->model->materials, ma->model->material_pairs, ma->material, mb->material);
}
bool ours(const btCollisionObject* a, const btCollisionObject* b) { return a->getUserPointer() && b->getUserPointer(); }
btScalar combined_friction(const btCollisionObject* a, const btCollisionObject* b) {
  return ours(a, b) ? pair_material(a, b).mu_dynamic : a->getFriction() * b->getFriction();
}
btScalar combined_restitution(const btCollisionObject* a, const btCollisionObject* b) {
  return ours(a, b) ? pair_material(a, b).restitution : a->getRestitution() * b->getRestitution();
}

// Our pair rule (ShapePairRule) on the collision objects' bodies (their user index; -1: the world),
// after Bullet's group and mask test
struct PairFilter final : btOverlapFilterCallback {
  const Model* model = nullptr;
  std::optional<ShapePairRule> rule;
  bool needBroadphaseCollision(btBroadphaseProxy* p0, btBroadphaseProxy* p1) const override {
    if (!(p0->m_collisionFilterGroup & p1->m_collisionFilterMask) || !(p1->m_collisionFilterGroup & p0->m_collisionFilterMask)) return false;
    const auto* a = static_cast<const btCollisionObject*>(p0->m_clientObject);
    const auto* b = static_cast<const btCollisionObject*>(p1->m_clientObject);
    return rule->tested(*model, a->getUserIndex(), b->getUserIndex());
  }
};

class Bullet final : public Method {
 public:
  explicit Bullet(const MethodOptions& s) : point_inertia_(s.number("point_inertia")) {}
  ~Bullet() override { reset(); }
  Bullet(const Bullet&) = delete;
  Bullet& operator=(const Bullet&) = delete;

  const MethodInfo& info() const override {
    static const MethodInfo i = describe_bullet();
    return i;
  }

 private:
  // one of our bodies in Bullet: its multibody, its link (-1: the base), the rotation from its
  // link frame to its body frame, and the link frame's angular velocity at the initial state
  struct Place {
    int multibody = -1, link = -1;
    Quat link_to_body = Quat::Identity();
    Quat frame = Quat::Identity();  // link frame -> world at the initial state
    Vec3 w = Vec3::Zero();
  };

  void reset() {
    for (auto& m : motors_)
      if (world_) world_->removeMultiBodyConstraint(m.constraint.get());
    motors_.clear();
    for (auto& c : limits_)
      if (world_) world_->removeMultiBodyConstraint(c.get());
    limits_.clear();
    for (auto& c : constraints_)
      if (world_) world_->removeMultiBodyConstraint(c.get());
    constraints_.clear();
    for (auto& c : colliders_)
      if (world_) world_->removeCollisionObject(c.get());
    colliders_.clear();
    for (auto& o : statics_)
      if (world_) world_->removeCollisionObject(o.get());
    statics_.clear();
    shapes_.clear();
    materials_.clear();
    for (auto& mbp : multibodies_) {
      if (world_) world_->removeMultiBody(mbp.get());
    }
    multibodies_.clear();
    members_.clear();
    world_.reset();
    solver_.reset();
    broadphase_.reset();
    dispatcher_.reset();
    config_.reset();
  }

  void do_init(const Model& model, const State& state) override {
    require_joint_types(model, "bullet", {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Planar});
    for (const Shape& sh : model.shapes) {
      if (sh.type == ShapeType::Ellipsoid) throw UnsupportedModel(fmt::format("bullet: shape '{}' is an ellipsoid, which Bullet does not have", sh.name));
      if (sh.type == ShapeType::HalfSpace && sh.body != kWorld && !model.bodies[static_cast<size_t>(sh.body)].is_static)
        throw UnsupportedModel(fmt::format("bullet: shape '{}' is a half-space on a moving body; Bullet's planes are static", sh.name));
      for (const Shape& other : model.shapes)
        if (other.body == sh.body && other.material != sh.material && sh.body != kWorld)
          throw UnsupportedModel(fmt::format("bullet: the shapes of body '{}' have different materials; Bullet's friction and "
                                             "restitution belong to a collision object, one per body",
                                             model.bodies[static_cast<size_t>(sh.body)].name));
    }
    if (!model.springs.empty()) throw UnsupportedModel("bullet: force elements (springs) are not mapped");
    reset();
    config_ = std::make_unique<btDefaultCollisionConfiguration>();
    dispatcher_ = std::make_unique<btCollisionDispatcher>(config_.get());
    broadphase_ = std::make_unique<btDbvtBroadphase>();
    solver_ = std::make_unique<btMultiBodyConstraintSolver>();
    world_ = std::make_unique<btMultiBodyDynamicsWorld>(dispatcher_.get(), broadphase_.get(), solver_.get(), config_.get());
    world_->setGravity(bt(model.gravity));

    const auto joints = peer_joints(model, state);
    const PeerTree tree = peer_tree(model, joints, "bullet", true);
    const size_t n = model.bodies.size();
    places_.assign(n, Place{});
    const std::vector<PeerFrame> frames = peer_frames(model, state, joints, tree, "bullet");
    // link frames, masses and inertias
    std::vector<Vec3> moments(n, Vec3::Zero());
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const Body& b = model.bodies[u];
      Place& p = places_[u];
      if (b.particle) {
        moments[u] = Vec3::Constant(point_inertia_ * b.mass);
      } else {
        const PrincipalAxes pa = principal_axes(b.inertia);
        moments[u] = pa.moments;
        p.link_to_body = pa.rotation.conjugate();
        p.frame = state.bodies[u].q * pa.rotation;
      }
      p.w = frames[u].w;  // a point mass on a rod turns with the rod
    }
    // one multibody per root, its bodies in tree order
    std::vector<std::vector<int>> groups;
    std::vector<int> group_of(n, -1);
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const int parent = tree.parent[u];
      if (parent == kWorld) {
        group_of[u] = static_cast<int>(groups.size());
        groups.push_back({i});
      } else {
        group_of[u] = group_of[static_cast<size_t>(parent)];
        groups[static_cast<size_t>(group_of[u])].push_back(i);
      }
    }
    for (const auto& g : groups) {
      const size_t r = static_cast<size_t>(g.front());
      const bool floating = tree.joint[r] < 0;
      // btMultiBody::finalizeMultiDof sizes one buffer of 12 + 2 d + d^2 doubles (d: the degrees of
      // freedom) with int arithmetic: it overflows above d = 46339 (a null buffer, then a crash), and
      // the memory grows as d^2 (4.8 GB at d = 24576, tree:joints=8191)
      long long dofs = floating ? 6 : 0;
      for (size_t k = floating ? 1 : 0; k < g.size(); ++k) {
        const JointType t = joints[static_cast<size_t>(tree.joint[static_cast<size_t>(g[k])])].type;
        dofs += t == JointType::Ball || t == JointType::Distance || t == JointType::Planar ? 3 : t == JointType::Fixed ? 0 : 1;
      }
      if (12 + 2 * dofs + dofs * dofs > std::numeric_limits<int>::max())
        throw UnsupportedModel(fmt::format("bullet: a btMultiBody of {} degrees of freedom: Bullet sizes a buffer of d^2 + 2 d + 12 "
                                           "doubles in an int, which overflows above d = 46339",
                                           dofs));
      const int links = static_cast<int>(g.size()) - (floating ? 1 : 0);
      const Body& rb = model.bodies[r];
      auto mbp = floating ? std::make_unique<btMultiBody>(links, rb.mass, bt(moments[r]), false, false)
                          : std::make_unique<btMultiBody>(links, 1.0, btVector3(1, 1, 1), true, false);
      const int mi = static_cast<int>(multibodies_.size());
      std::vector<std::function<void()>> velocities;  // set once finalizeMultiDof has sized the buffers
      if (floating) {
        places_[r].multibody = mi;
        places_[r].link = -1;
        mbp->setBasePos(bt(state.bodies[r].x));
        mbp->setWorldToBaseRot(bt(places_[r].frame.conjugate()));
        velocities.push_back([m = mbp.get(), v = state.bodies[r].v, w = places_[r].w] {
          m->setBaseVel(bt(v));
          m->setBaseOmega(bt(w));  // world frame
        });
      } else {
        mbp->setBasePos(btVector3(0, 0, 0));
        mbp->setWorldToBaseRot(btQuaternion(0, 0, 0, 1));
      }
      int next = 0;
      for (size_t k = floating ? 1 : 0; k < g.size(); ++k) {
        const size_t u = static_cast<size_t>(g[k]);
        Place& p = places_[u];
        p.multibody = mi;
        p.link = next++;
        const int parent = tree.parent[u];
        const int parent_link = parent == kWorld ? -1 : places_[static_cast<size_t>(parent)].link;
        const Quat parent_frame = parent == kWorld ? Quat::Identity() : places_[static_cast<size_t>(parent)].frame;
        const Vec3 parent_com = parent == kWorld ? Vec3::Zero() : state.bodies[static_cast<size_t>(parent)].x;
        const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
        const Vec3 pivot = tree.flip[u] ? j.anchor_a : j.anchor_b;
        const Vec3 pivot_parent = j.type == JointType::Distance ? (tree.flip[u] ? j.anchor_b : j.anchor_a) : pivot;
        const Vec3& x = state.bodies[u].x;
        const btQuaternion rot = bt(p.frame.conjugate() * parent_frame);  // points: parent frame -> this frame
        const btVector3 parent_to_pivot = bt(parent_frame.conjugate() * (pivot_parent - parent_com));
        const btVector3 pivot_to_com = bt(p.frame.conjugate() * (x - pivot_parent));
        const double m = model.bodies[u].mass;
        const btVector3 inertia = bt(moments[u]);
        const Vec3 ax_parent = tree.flip[u] ? j.axis_b : j.axis_a;
        const Vec3 wr = p.w - (parent == kWorld ? Vec3::Zero() : places_[static_cast<size_t>(parent)].w);
        switch (j.type) {
          case JointType::Ball:
          case JointType::Distance: {
            mbp->setupSpherical(p.link, m, inertia, parent_link, rot, parent_to_pivot, pivot_to_com, true);
            const Vec3 wl = p.frame.conjugate() * wr;  // in this link's frame
            velocities.push_back([m = mbp.get(), link = p.link, wl] {
              const double qd[3] = {wl.x(), wl.y(), wl.z()};
              m->setJointVelMultiDof(link, qd);
            });
            break;
          }
          case JointType::Hinge:
            mbp->setupRevolute(p.link, m, inertia, parent_link, rot, bt(p.frame.conjugate() * ax_parent), parent_to_pivot, pivot_to_com, true);
            velocities.push_back([m = mbp.get(), link = p.link, qd = ax_parent.dot(wr)] { m->setJointVel(link, qd); });
            break;
          case JointType::Slider: {
            mbp->setupPrismatic(p.link, m, inertia, parent_link, rot, bt(p.frame.conjugate() * j.axis_a), parent_to_pivot, pivot_to_com, true);
            velocities.push_back([m = mbp.get(), link = p.link, qd = j.axis_a.dot(state.bodies[u].v - peer_point_velocity(state, frames, parent, x))] {
              m->setJointVel(link, qd);
            });
            break;
          }
          case JointType::Fixed: mbp->setupFixed(p.link, m, inertia, parent_link, rot, parent_to_pivot, pivot_to_com); break;
          case JointType::Planar: {
            // Bullet's planar link turns about the axis through its centre of mass and slides in the
            // plane normal to it: the same relative motions as ours about the anchor, other
            // coordinates. Its rates: the turn, then the COM's velocity relative to the parent along
            // the two plane axes Bullet picks, in the link's frame
            mbp->setupPlanar(p.link, m, inertia, parent_link, rot, bt(p.frame.conjugate() * ax_parent),
                             bt(parent_frame.conjugate() * (x - parent_com)), true);
            const Vec3 vl = p.frame.conjugate() * (state.bodies[u].v - peer_point_velocity(state, frames, parent, x));
            velocities.push_back([m = mbp.get(), link = p.link, turn = ax_parent.dot(wr), vl] {
              const btMultibodyLink& L = m->getLink(link);
              const double qd[3] = {turn, L.getAxisBottom(1).dot(bt(vl)), L.getAxisBottom(2).dot(bt(vl))};
              m->setJointVelMultiDof(link, qd);
            });
            break;
          }
          default: throw UnsupportedModel("bullet: unexpected joint type");
        }
      }
      // neutral: no damping, no speed clamp, no sleeping
      mbp->setLinearDamping(0);
      mbp->setAngularDamping(0);
      mbp->setMaxCoordinateVelocity(1e300);
      mbp->setCanSleep(false);
      mbp->setCanWakeup(true);
      mbp->setHasSelfCollision(false);
      mbp->finalizeMultiDof();
      for (const auto& set : velocities) set();
      world_->addMultiBody(mbp.get());
      multibodies_.push_back(std::move(mbp));
      members_.push_back(g);
    }
    add_colliders(model, state, !tree.closing.empty() || !model.motors.empty() || has_joint_limits(model));
    close_loops(model, state, joints, tree);
    add_motors(model, joints, tree);
    add_limits(model, joints, tree);
    torque_.assign(n, Vec3::Zero());
    force_.assign(n, Vec3::Zero());
  }

  // Collision objects. With shapes: each body's shapes as one collider of its link (a compound in
  // the link frame), the world's and static bodies' shapes as static objects, colliding by our pair
  // rule (PairFilter: Bullet's own would skip a multibody's non-adjacent links without
  // self-collision and collide two bodies joined by a loop's closing joint) with the pair's
  // mu_dynamic and restitution (combined_friction, combined_restitution). With loops: every link
  // has a collider, for Bullet solves a multibody constraint only in the simulation island of its
  // links' colliders and skips it when they have none (and btMultiBodyDynamicsWorld's unsplit path
  // passes it the count of the other constraints); a link without shapes gets a marker that
  // collides with nothing (group and mask 0).
  void add_colliders(const Model& model, const State& state, bool loops) {
    if (model.shapes.empty() && !loops) return;
    const size_t n = model.bodies.size();
    std::vector<std::vector<size_t>> shapes_of(n + 1);  // the world last
    for (size_t k = 0; k < model.shapes.size(); ++k) {
      const int b = model.shapes[k].body;
      shapes_of[b == kWorld || model.bodies[static_cast<size_t>(b)].is_static ? n : static_cast<size_t>(b)].push_back(k);
    }
    if (!model.shapes.empty()) {
      static std::once_flag once;
      std::call_once(once, [] {
        gCalculateCombinedFrictionCallback = combined_friction;
        gCalculateCombinedRestitutionCallback = combined_restitution;
      });
      filter_ = std::make_unique<PairFilter>();
      filter_->model = &model;
      filter_->rule.emplace(model);
      world_->getPairCache()->setOverlapFilterCallback(filter_.get());
    }
    // a shape as a Bullet shape. Bullet's collision margin (0.04 m by default) rounds a box's and a
    // cylinder's edges inside their extents (a 0.1 m cube became nearly a ball, rocked and sank
    // 5 mm on the incline) and grows a convex hull outwards: 1 mm here (kMargin)
    constexpr double kMargin = 1e-3;
    auto shape_of = [&](const Shape& sh) -> std::unique_ptr<btCollisionShape> {
      std::unique_ptr<btCollisionShape> s;
      switch (sh.type) {
        case ShapeType::Sphere: return std::make_unique<btSphereShape>(sh.radius);
        case ShapeType::Capsule: return std::make_unique<btCapsuleShapeZ>(sh.radius, sh.length);
        case ShapeType::HalfSpace: return std::make_unique<btStaticPlaneShape>(btVector3(0, 1, 0), 0);  // the shape's y
        case ShapeType::Box: s = std::make_unique<btBoxShape>(bt(sh.half_extents)); break;
        case ShapeType::Cylinder: s = std::make_unique<btCylinderShapeZ>(btVector3(sh.radius, sh.radius, sh.length / 2)); break;
        case ShapeType::Convex: {
          auto hull = std::make_unique<btConvexHullShape>();
          for (const Vec3& v : sh.vertices) hull->addPoint(bt(v), false);
          hull->recalcLocalAabb();
          s = std::move(hull);
          break;
        }
        case ShapeType::Ellipsoid: break;  // refused in do_init
      }
      if (s) s->setMargin(kMargin);
      return s;
    };
    auto material_of = [&](size_t body) {
      materials_.push_back(std::make_unique<ColliderMaterial>(ColliderMaterial{&model, model.shapes[shapes_of[body].front()].material}));
      return materials_.back().get();
    };
    // the world's and the static bodies' shapes
    for (size_t k : shapes_of[n]) {
      const Shape& sh = model.shapes[k];
      auto o = std::make_unique<btCollisionObject>();
      shapes_.push_back(shape_of(sh));
      o->setCollisionShape(shapes_.back().get());
      const ShapePose w = shape_pose(sh, state);
      o->setWorldTransform(btTransform(bt(w.orientation), bt(w.position)));
      o->setUserIndex(kWorld);
      materials_.push_back(std::make_unique<ColliderMaterial>(ColliderMaterial{&model, sh.material}));
      o->setUserPointer(materials_.back().get());
      world_->addCollisionObject(o.get(), 1, 1);
      statics_.push_back(std::move(o));
    }
    if (!marker_) marker_ = std::make_unique<btSphereShape>(0.01);
    for (size_t mi = 0; mi < multibodies_.size(); ++mi) {
      btMultiBody* mbp = multibodies_[mi].get();
      bool any = loops;
      for (int i : members_[mi]) any = any || !shapes_of[static_cast<size_t>(i)].empty();
      if (!any) continue;
      mbp->setHasSelfCollision(!model.shapes.empty());  // the pairs are PairFilter's
      for (int i : members_[mi]) {
        const size_t u = static_cast<size_t>(i);
        const Place& pl = places_[u];
        if (shapes_of[u].empty() && !loops) continue;
        auto c = std::make_unique<btMultiBodyLinkCollider>(mbp, pl.link);
        if (shapes_of[u].empty()) {
          c->setCollisionShape(marker_.get());
        } else {
          auto compound = std::make_unique<btCompoundShape>();
          for (size_t k : shapes_of[u]) {
            const Shape& sh = model.shapes[k];
            shapes_.push_back(shape_of(sh));
            const ShapePose w = shape_pose(sh, state);
            // in the link frame: its origin the centre of mass, its axes pl.frame
            compound->addChildShape(btTransform(bt(pl.frame.conjugate() * w.orientation), bt(pl.frame.conjugate() * (w.position - state.bodies[u].x))),
                                    shapes_.back().get());
          }
          c->setCollisionShape(compound.get());
          shapes_.push_back(std::move(compound));
          c->setUserPointer(material_of(u));
        }
        c->setUserIndex(i);
        c->setWorldTransform(btTransform(bt(pl.frame), bt(state.bodies[u].x)));
        c->setActivationState(DISABLE_DEACTIVATION);
        const int group = shapes_of[u].empty() ? 0 : 1;
        world_->addCollisionObject(c.get(), group, group);
        if (pl.link < 0) mbp->setBaseCollider(c.get());
        else mbp->getLink(pl.link).m_collider = c.get();
        colliders_.push_back(std::move(c));
      }
    }
  }

  // The joints that close loops, as btMultiBodyPoint2Point constraints (a point of one link held on a
  // point of another link or of the world, by the multibody constraint solver's impulses with
  // Baumgarte feedback: soft, docs/peers.md): a ball joint at its anchor, a hinge at its anchor and
  // 1 m along its axis (the second holds the axis). Other joint types closing a loop are refused.
  void close_loops(const Model& model, const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    for (int k : tree.closing) {  // every link has a collider (add_colliders)
      const PeerJoint& j = joints[static_cast<size_t>(k)];
      if (j.type != JointType::Ball && j.type != JointType::Hinge)
        throw UnsupportedModel(fmt::format("bullet: joint '{}' ({}) closes a loop; Bullet's btMultiBodyPoint2Point holds points only "
                                           "(ball joints, and hinges as two points)",
                                           model.joints[static_cast<size_t>(j.index)].name, joint_type_name(j.type)));
      // the multibody body first: a world side becomes a null rigid body with its pivot in world axes
      const bool swap = j.a == kWorld;
      const int b1 = swap ? j.b : j.a, b2 = swap ? j.a : j.b;
      auto local = [&](int b, const Vec3& p) -> btVector3 {
        if (b == kWorld) return bt(p);
        const Place& pl = places_[static_cast<size_t>(b)];
        return bt(pl.frame.conjugate() * (p - state.bodies[static_cast<size_t>(b)].x));
      };
      for (const Vec3& p : closure_points(j)) {
        const Place& p1 = places_[static_cast<size_t>(b1)];
        btMultiBody* m1 = multibodies_[static_cast<size_t>(p1.multibody)].get();
        std::unique_ptr<btMultiBodyPoint2Point> c;
        if (b2 == kWorld) {
          c = std::make_unique<btMultiBodyPoint2Point>(m1, p1.link, nullptr, local(b1, p), local(kWorld, p));
        } else {
          const Place& p2 = places_[static_cast<size_t>(b2)];
          c = std::make_unique<btMultiBodyPoint2Point>(m1, p1.link, multibodies_[static_cast<size_t>(p2.multibody)].get(), p2.link,
                                                       local(b1, p), local(b2, p));
        }
        c->setMaxAppliedImpulse(std::numeric_limits<double>::max());  // Bullet's default caps it at 100 N s
        world_->addMultiBodyConstraint(c.get());
        constraints_.push_back(std::move(c));
      }
    }
  }


  // Each motor as a btMultiBodyJointMotor on the link its joint leads to: a velocity-level row that
  // asks the joint's rate for the rate the motor wants at the end of the step, its impulse bounded by
  // the motor's max_force times h (no bound: the largest double). Every link has a collider
  // (add_colliders), for the solver skips a constraint outside the islands of colliders. A motor
  // on a joint that closes a loop has no link to drive and is refused.
  void add_motors(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    for (size_t mi = 0; mi < model.motors.size(); ++mi) {
      const Motor& mo = model.motors[mi];
      const int child = tree_child_of_joint(joints, tree, mo.joint);
      if (child < 0)
        throw UnsupportedModel(fmt::format("bullet: motor '{}' drives joint '{}', which closes a loop; btMultiBodyJointMotor drives "
                                           "a joint of a multibody's tree only",
                                           mo.name, model.joints[static_cast<size_t>(mo.joint)].name));
      const size_t u = static_cast<size_t>(child);
      const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
      const Place& p = places_[u];
      // Bullet's joint coordinate turns (moves) the child link relative to its parent about (along)
      // the axis it was set up with; ours b relative to a about (along) axis_a
      const double sign = peer_coordinate_sign(j, tree.flip[u]);
      auto c = std::make_unique<btMultiBodyJointMotor>(multibodies_[static_cast<size_t>(p.multibody)].get(), p.link, 0.0,
                                                       std::numeric_limits<double>::max());
      world_->addMultiBodyConstraint(c.get());
      motors_.push_back({static_cast<int>(mi), j.type == JointType::Slider, sign, std::move(c)});
    }
  }

  // A joint's limits: btMultiBodyJointLimitConstraint on Bullet's joint coordinate (sign q, as a
  // motor's), an open end far away; a limited joint that closes a loop is refused. Its links have
  // colliders (add_colliders), for the solver skips a constraint outside their islands.
  void add_limits(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    for (size_t k = 0; k < model.joints.size(); ++k) {
      const Joint& J = model.joints[k];
      if (!J.limited()) continue;
      const int child = tree_child_of_joint(joints, tree, static_cast<int>(k));
      if (child < 0)
        throw UnsupportedModel(fmt::format("bullet: the limited joint '{}' closes a loop; its constraint has no limits", J.name));
      const size_t u = static_cast<size_t>(child);
      const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
      const Place& p = places_[u];
      const auto [lo, hi] = peer_limits(J, peer_coordinate_sign(j, tree.flip[u]));
      auto c = std::make_unique<btMultiBodyJointLimitConstraint>(multibodies_[static_cast<size_t>(p.multibody)].get(), p.link,
                                                                 std::isfinite(lo) ? lo : -1e10, std::isfinite(hi) ? hi : 1e10);
      world_->addMultiBodyConstraint(c.get());
      limits_.push_back(std::move(c));
    }
  }

  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    // motors: the rate they ask for at the end of the step (a position motor: the rate that
    // reaches f(t + h) from where the joint is), their impulse bound over the step or none
    for (const BulletMotor& bm : motors_) {
      const Motor& mo = model.motors[static_cast<size_t>(bm.motor)];
      const double rate = motor_step_rate(model, state, mo, h);
      bm.constraint->setVelocityTarget(bm.sign * rate);
      bm.constraint->setMaxAppliedImpulse(mo.limited() ? mo.max_force * h : std::numeric_limits<double>::max());
    }
    if (!model.loads.empty() || !model.actuators.empty()) {
      average_torques(model, state.t, h, torque_);
      std::fill(force_.begin(), force_.end(), Vec3::Zero());
      add_average_forces(model, state.t, h, force_);
      add_peer_actuator_loads(model, state, ctrl_, force_, torque_);
      for (size_t i = 0; i < places_.size(); ++i) {
        const Place& p = places_[i];
        if (p.multibody < 0) continue;
        btMultiBody* mbp = multibodies_[static_cast<size_t>(p.multibody)].get();
        if (!torque_[i].isZero(0)) {
          if (p.link < 0) mbp->addBaseTorque(bt(torque_[i]));  // world frame
          else mbp->addLinkTorque(p.link, bt(torque_[i]));
        }
        if (!force_[i].isZero(0)) {  // at the centre of mass, world frame
          if (p.link < 0) mbp->addBaseForce(bt(force_[i]));
          else mbp->addLinkForce(p.link, bt(force_[i]));
        }
      }
    }
    world_->stepSimulation(h, 0);  // maxSubSteps = 0: exactly one step of h
    // per multibody: the link frames and velocities (local axes), then its bodies in world axes
    for (size_t mi = 0; mi < multibodies_.size(); ++mi) {
      btMultiBody* mbp = multibodies_[mi].get();
      mbp->forwardKinematics(world_to_local_, local_origin_);
      omega_.resize(static_cast<size_t>(mbp->getNumLinks()) + 1);
      vel_.resize(omega_.size());
      mbp->compTreeLinkVelocities(omega_.data(), vel_.data());
      for (int i : members_[mi]) {
        const Place& p = places_[static_cast<size_t>(i)];
        const int k = p.link + 1;
        const btQuaternion to_world = world_to_local_[k].inverse();
        write_body(model.bodies[static_cast<size_t>(i)], state.bodies[static_cast<size_t>(i)], eig(local_origin_[k]), eig(to_world) * p.link_to_body,
                   eig(quatRotate(to_world, vel_[static_cast<size_t>(k)])), eig(quatRotate(to_world, omega_[static_cast<size_t>(k)])));
      }
    }
    stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  double point_inertia_;
  std::unique_ptr<btDefaultCollisionConfiguration> config_;
  std::unique_ptr<btCollisionDispatcher> dispatcher_;
  std::unique_ptr<btDbvtBroadphase> broadphase_;
  std::unique_ptr<btMultiBodyConstraintSolver> solver_;
  std::unique_ptr<btMultiBodyDynamicsWorld> world_;
  std::vector<std::unique_ptr<btMultiBody>> multibodies_;
  std::vector<std::unique_ptr<btMultiBodyPoint2Point>> constraints_;  // the loops' closures
  struct BulletMotor {
    int motor;  // Model::motors index
    bool slider;
    double sign;  // Bullet's joint rate = sign q'
    std::unique_ptr<btMultiBodyJointMotor> constraint;
  };
  std::vector<BulletMotor> motors_;
  std::vector<std::unique_ptr<btMultiBodyJointLimitConstraint>> limits_;  // the joints' limits (add_limits)
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders_;  // with shapes or loops (add_colliders)
  std::vector<std::unique_ptr<btCollisionObject>> statics_;          // the world's and static bodies' shapes
  std::vector<std::unique_ptr<btCollisionShape>> shapes_;
  std::vector<std::unique_ptr<ColliderMaterial>> materials_;
  std::unique_ptr<PairFilter> filter_;
  std::unique_ptr<btSphereShape> marker_;
  std::vector<std::vector<int>> members_;  // the bodies of each multibody
  std::vector<Place> places_;  // (nbody)
  std::vector<Vec3> torque_, force_;
  std::vector<double> ctrl_;  // the actuators' controls of the step
  btAlignedObjectArray<btQuaternion> world_to_local_;
  btAlignedObjectArray<btVector3> local_origin_;
  std::vector<btVector3> omega_, vel_;
};

}  // namespace

MethodInfo describe_bullet() {
  MethodInfo i;
  i.name = "bullet";
  i.family = "peer";
  i.version = fmt::format("Bullet {}.{} (double)", btGetVersion() / 100, btGetVersion() % 100);
  i.description = "Bullet Physics (libbullet-dev, bullet-float64): Featherstone btMultiBody in reduced coordinates, "
                  "semi-implicit Euler; trees of ball, hinge, slider and fixed joints; loops closed at ball joints and hinges by "
                  "btMultiBodyPoint2Point";
  i.source = "coumans2015 (Bullet)";
  i.options = {point_inertia_option("1e-12")};
  i.orders = {{"position", "double-pendulum", 1, 0.0005, 0.002, 1, "", "semi-implicit Euler; 2 on pendulum10, started at its lowest point (docs/peers.md)"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kAppliedForces | kContacts | kMotors |
                kJointLimits;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_bullet(const MethodOptions& options) { return std::make_unique<Bullet>(options); }

}  // namespace mb
