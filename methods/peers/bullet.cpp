// bullet: Bullet Physics' Featherstone multibodies (libbullet-dev, its double-precision build
// bullet-float64) as a method (docs/peers.md). Reduced coordinates: one btMultiBody per root of the
// joint tree (peer_tree): a floating root is the base, a body jointed to the world a link of a
// fixed base at the origin; ball joints are spherical links, hinges revolute, sliders prismatic,
// fixed joints fixed links, and a rod to a point mass a spherical link at the pivot (the point mass
// its centre of mass, with point_inertia). A link's frame is its principal axes (Bullet takes a
// diagonal inertia). A step is btMultiBodyDynamicsWorld::stepSimulation(h, 0): one step of h, the
// articulated-body algorithm and semi-implicit Euler (order 1). A ball joint or hinge that closes a
// loop is a btMultiBodyPoint2Point constraint (close_loops).
// Traps (docs/peers.md): the headers must see BT_USE_DOUBLE_PRECISION and the program link the
// -float64 libraries (else btScalar is float); a btMultiBody comes with linear and angular damping
// 0.04, joint speeds clamped at 100 (maxCoordinateVelocity) and sleeping on: all switched off;
// stepSimulation(h) with the default maxSubSteps = 1 steps a fixed 1/60 s with interpolation.
#include <btBulletDynamicsCommon.h>
#include <BulletDynamics/Featherstone/btMultiBody.h>
#include <BulletDynamics/Featherstone/btMultiBodyConstraintSolver.h>
#include <BulletDynamics/Featherstone/btMultiBodyDynamicsWorld.h>
#include <BulletDynamics/Featherstone/btMultiBodyLinkCollider.h>
#include <BulletDynamics/Featherstone/btMultiBodyPoint2Point.h>
#include <LinearMath/btScalar.h>

#include <chrono>
#include <functional>
#include <limits>
#include <type_traits>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/common.hpp"
#include "methods/peers/peers.hpp"

static_assert(std::is_same_v<btScalar, double>, "bullet: build with BT_USE_DOUBLE_PRECISION and the bullet-float64 libraries");

namespace mb {

namespace {

btVector3 bt(const Vec3& v) { return btVector3(v.x(), v.y(), v.z()); }
btQuaternion bt(const Quat& q) { return btQuaternion(q.x(), q.y(), q.z(), q.w()); }  // Bullet: (x, y, z, w)
Vec3 eig(const btVector3& v) { return Vec3(v.x(), v.y(), v.z()); }
Quat eig(const btQuaternion& q) { return Quat(q.w(), q.x(), q.y(), q.z()); }

class Bullet final : public Method {
 public:
  explicit Bullet(const Spec& s) : point_inertia_(s.get_double("point_inertia", 1e-12)) {}
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
    for (auto& c : constraints_)
      if (world_) world_->removeMultiBodyConstraint(c.get());
    constraints_.clear();
    for (auto& c : colliders_)
      if (world_) world_->removeCollisionObject(c.get());
    colliders_.clear();
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
    require_joint_types(model, "bullet", {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider});
    if (!model.shapes.empty()) throw UnsupportedModel("bullet: contacts are not mapped yet (collision geometry in the model)");
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
        dofs += t == JointType::Ball || t == JointType::Distance ? 3 : t == JointType::Fixed ? 0 : 1;
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
    close_loops(model, state, joints, tree);
    torque_.assign(n, Vec3::Zero());
  }

  // The joints that close loops, as btMultiBodyPoint2Point constraints (a point of one link held on a
  // point of another link or of the world, by the multibody constraint solver's impulses with
  // Baumgarte feedback: soft, docs/peers.md): a ball joint at its anchor, a hinge at its anchor and
  // 1 m along its axis (the second holds the axis). Other joint types closing a loop are refused.
  void close_loops(const Model& model, const State& state, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    if (tree.closing.empty()) return;
    // Bullet solves a multibody constraint in the simulation island of its links' colliders and
    // skips it when they have none (and btMultiBodyDynamicsWorld's unsplit path passes it the count
    // of the other constraints), so every link of a multibody with loops gets a collider that
    // collides with nothing (group and mask 0)
    if (!marker_) marker_ = std::make_unique<btSphereShape>(0.01);
    for (auto& mbp : multibodies_) {
      auto add = [&](int link) {
        auto c = std::make_unique<btMultiBodyLinkCollider>(mbp.get(), link);
        c->setCollisionShape(marker_.get());
        c->setActivationState(DISABLE_DEACTIVATION);
        world_->addCollisionObject(c.get(), 0, 0);
        if (link < 0) mbp->setBaseCollider(c.get());
        else mbp->getLink(link).m_collider = c.get();
        colliders_.push_back(std::move(c));
      };
      if (!mbp->hasFixedBase()) add(-1);
      for (int link = 0; link < mbp->getNumLinks(); ++link) add(link);
    }
    for (int k : tree.closing) {
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
      std::vector<Vec3> points = {j.anchor_a};
      if (j.type == JointType::Hinge) points.push_back(j.anchor_a + j.axis_a);
      for (const Vec3& p : points) {
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


  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    if (!model.loads.empty()) {
      average_torques(model, state.t, h, torque_);
      for (size_t i = 0; i < places_.size(); ++i) {
        const Place& p = places_[i];
        if (p.multibody < 0 || torque_[i].isZero(0)) continue;
        btMultiBody* mbp = multibodies_[static_cast<size_t>(p.multibody)].get();
        if (p.link < 0) mbp->addBaseTorque(bt(torque_[i]));  // world frame
        else mbp->addLinkTorque(p.link, bt(torque_[i]));
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
  std::vector<std::unique_ptr<btMultiBodyLinkCollider>> colliders_;  // with loops: a collider per link (close_loops)
  std::unique_ptr<btSphereShape> marker_;
  std::vector<std::vector<int>> members_;  // the bodies of each multibody
  std::vector<Place> places_;  // (nbody)
  std::vector<Vec3> torque_;
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
  i.supports = kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_bullet(const Spec& spec) { return std::make_unique<Bullet>(spec); }

}  // namespace mb
