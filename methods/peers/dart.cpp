// dart: DART (libdart-dev 6.12) as a method (docs/peers.md). Reduced coordinates: one Skeleton
// holding the joint tree (peer_tree) -- a floating root a FreeJoint, a ball joint a BallJoint, a
// hinge a RevoluteJoint, a slider a PrismaticJoint, a fixed joint a WeldJoint, a cardan joint a
// UniversalJoint, a planar joint a PlanarJoint (a cylindrical one is refused), and a rod to a
// point mass a UniversalJoint at the pivot with both axes perpendicular to the rod (the point
// mass is the body's centre of mass, its frame at the pivot).
// A step is World::step(): forward dynamics (articulated bodies), then semi-implicit Euler (order 1).
// A motor is its joint's servo actuator (add_motors).
// Traps (docs/peers.md): the umbrella header dart/dart.hpp needs libdart-external-ikfast-dev (we
// include the parts); DART's World defaults to gravity (0, 0, -9.81) and a time step of 1 ms: both
// are set from the model and h.
#include <dart/config.hpp>
#include <dart/constraint/BallJointConstraint.hpp>
#include <dart/constraint/BoxedLcpConstraintSolver.hpp>
#include <dart/constraint/PgsBoxedLcpSolver.hpp>
#include <dart/constraint/ConstraintSolver.hpp>
#include <dart/constraint/WeldJointConstraint.hpp>
#include <dart/collision/CollisionFilter.hpp>
#include <dart/collision/CollisionObject.hpp>
#include <dart/collision/fcl/FCLCollisionDetector.hpp>
#include <dart/dynamics/BallJoint.hpp>
#include <dart/dynamics/BoxShape.hpp>
#include <dart/dynamics/CapsuleShape.hpp>
#include <dart/dynamics/CylinderShape.hpp>
#include <dart/dynamics/EllipsoidShape.hpp>
#include <dart/dynamics/ShapeNode.hpp>
#include <dart/dynamics/SphereShape.hpp>
#include <dart/dynamics/BodyNode.hpp>
#include <dart/dynamics/FreeJoint.hpp>
#include <dart/dynamics/PlanarJoint.hpp>
#include <dart/dynamics/PrismaticJoint.hpp>
#include <dart/dynamics/RevoluteJoint.hpp>
#include <dart/dynamics/Skeleton.hpp>
#include <dart/dynamics/UniversalJoint.hpp>
#include <dart/dynamics/WeldJoint.hpp>
#include <dart/simulation/World.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <optional>
#include <unordered_map>

#include <fmt/format.h>

#include "core/error.hpp"
#include "methods/peers/peers.hpp"
#include "methods/peers/translation.hpp"
#include "models/collision.hpp"
#include "models/kinematics.hpp"

namespace mb {

namespace {
// a coordinate or rate beyond this (m, rad, m/s, rad/s) has diverged
constexpr double kDiverged = 1e8;
}  // namespace

namespace {

namespace dd = dart::dynamics;

// Our pair rule (ShapePairRule) on DART's collision objects, through each shape node's body: the
// pairs DART tests are the pairs our detector tests (a capsule's parts, on one body, never)
struct PairFilter final : dart::collision::CollisionFilter {
  const Model* model = nullptr;
  std::optional<ShapePairRule> rule;
  std::unordered_map<const dd::ShapeFrame*, int> body;  // each shape node's model body (kWorld: the world)
  bool ignoresCollision(const dart::collision::CollisionObject* a, const dart::collision::CollisionObject* b) const override {
    const auto ia = body.find(a->getShapeFrame()), ib = body.find(b->getShapeFrame());
    return ia == body.end() || ib == body.end() || !rule->tested(*model, ia->second, ib->second);
  }
};

Eigen::Isometry3d pose(const Quat& q, const Vec3& p) {
  Eigen::Isometry3d t = Eigen::Isometry3d::Identity();
  t.linear() = q.toRotationMatrix();
  t.translation() = p;
  return t;
}
// a world-aligned rotation whose first axis is x and second y (y made perpendicular to x)

class Dart final : public Method {
 public:
  explicit Dart(const MethodOptions& s)
      : point_inertia_(s.number("point_inertia")), primitive_(s.choice("collision") == "primitive") {}

  const MethodInfo& info() const override {
    static const MethodInfo i = describe_dart();
    return i;
  }

 private:
  using Frame = PeerFrame;  // a rod's universal joint: x, y = u1, u2 perpendicular to the rod (world)

  // DART keeps four dense dofs x dofs matrices (M, its augmented form and their inverses) for the
  // skeleton and four for each of its trees, and resizes them at every body it adds: 8 x 8 d^2
  // bytes for one tree of d degrees of freedom, built in time cubic in d (measured: 100 s and
  // 640 MB at tree:joints=1023, d = 3075; docs/peers.md, "Known traps"). Refused before building
  // where those matrices alone would take more than 4 GiB (d > 8192: tree:joints=4095 and up), instead
  // of hours of set-up and an allocation the machine may not survive.
  static constexpr long long kMaxDofs = 8192;
  static void refuse_large(const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    long long dofs = 0;
    for (int i : tree.order) {
      const int jk = tree.joint[static_cast<size_t>(i)];
      if (jk < 0) {
        dofs += 6;
        continue;
      }
      switch (joints[static_cast<size_t>(jk)].type) {
        case JointType::Ball: dofs += 3; break;
        case JointType::Cardan:
        case JointType::Distance: dofs += 2; break;
        case JointType::Hinge:
        case JointType::Slider: dofs += 1; break;
        default: break;
      }
    }
    if (dofs > kMaxDofs)
      throw UnsupportedModel(fmt::format(
          "dart: {} degrees of freedom: DART keeps 8 dense matrices of dofs x dofs ({:.1f} GiB here) and builds them in "
          "time cubic in the dofs (100 s at 3075); refused above {}",
          dofs, 64.0 * static_cast<double>(dofs) * static_cast<double>(dofs) / (1024.0 * 1024.0 * 1024.0), kMaxDofs));
  }

  void do_init(const Model& model, const State& state) override {
    require_joint_types(model, "dart",
                        {JointType::Distance, JointType::Ball, JointType::Hinge, JointType::Fixed, JointType::Slider, JointType::Cardan, JointType::Planar});
    check_shapes(model);
    if (!model.springs.empty()) throw UnsupportedModel("dart: force elements (springs) are not mapped");
    const auto joints = peer_joints(model, state);
    const PeerTree tree = peer_tree(model, joints, "dart", true);
    const size_t n = model.bodies.size();
    frames_ = peer_frames(model, state, joints, tree, "dart");
    refuse_large(joints, tree);
    for (int k : tree.closing) {
      const Joint& J = model.joints[static_cast<size_t>(joints[static_cast<size_t>(k)].index)];
      if (J.damping > 0) throw UnsupportedModel(fmt::format("dart: the damped joint '{}' closes a loop; its constraint has no damper", J.name));
      if (J.limited()) throw UnsupportedModel(fmt::format("dart: the limited joint '{}' closes a loop; its constraint has no limits", J.name));
    }
    nodes_.assign(n, nullptr);
    skel_ = dd::Skeleton::create("mbbench");
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const Body& b = model.bodies[u];
      const Frame& f = frames_[u];
      const int p = tree.parent[u];
      dd::BodyNode* parent = p == kWorld ? nullptr : nodes_[static_cast<size_t>(p)];
      const Frame pf = p == kWorld ? Frame{} : frames_[static_cast<size_t>(p)];
      const dd::BodyNode::Properties bp(dd::BodyNode::AspectProperties(fmt::format("b{}", i)));
      const int jk = tree.joint[u];
      dd::BodyNode* node = nullptr;
      if (jk < 0) {
        dd::FreeJoint::Properties jp;
        jp.mName = fmt::format("j{}", i);
        node = skel_->createJointAndBodyNodePair<dd::FreeJoint>(parent, jp, bp).second;
      } else {
        const PeerJoint& j = joints[static_cast<size_t>(jk)];
        const bool flip = tree.flip[u];
        Vec3 pivot = flip ? j.anchor_a : j.anchor_b;
        const Vec3 ax_parent = flip ? j.axis_b : j.axis_a, ax_child = flip ? j.axis_a : j.axis_b;
        Quat w = Quat::Identity();  // the joint frame in world axes at the initial state
        if (j.type == JointType::Cardan) w = frame_xy(ax_parent, ax_child);
        if (j.type == JointType::Planar) w = frame_z(ax_parent);
        if (j.type == JointType::Distance) w = frame_xy(f.u1, f.u2), pivot = f.origin;
        auto place = [&](dd::Joint::Properties& jp) {
          jp.mName = fmt::format("j{}", i);
          jp.mT_ParentBodyToJoint = pose(pf.q.conjugate() * w, pf.q.conjugate() * (pivot - pf.origin));
          jp.mT_ChildBodyToJoint = pose(f.q.conjugate() * w, f.q.conjugate() * (pivot - f.origin));
        };
        const Quat wi = w.conjugate();  // world -> joint frame
        // a joint's limits: DART's position limits of its coordinate (the child's turn or slide
        // relative to the parent from the start: peer_limits)
        auto limit = [&](auto& jp, const PeerJoint& pj, bool flipped) {
          const Joint& J = model.joints[static_cast<size_t>(pj.index)];
          if (!J.limited()) return;
          const auto [lo, hi] = peer_limits(J, peer_coordinate_sign(pj, flipped));
          jp.mPositionLowerLimits[0] = lo;
          jp.mPositionUpperLimits[0] = hi;
          jp.mIsPositionLimitEnforced = true;
        };
        switch (j.type) {
          case JointType::Ball: {
            dd::BallJoint::Properties jp;
            place(jp);
            node = skel_->createJointAndBodyNodePair<dd::BallJoint>(parent, jp, bp).second;
            break;
          }
          case JointType::Hinge: {
            dd::RevoluteJoint::Properties jp;
            place(jp);
            jp.mAxis = wi * ax_parent;
            jp.mDampingCoefficients[0] = model.joints[static_cast<size_t>(j.index)].damping;  // DART's joint damping
            limit(jp, j, flip);
            node = skel_->createJointAndBodyNodePair<dd::RevoluteJoint>(parent, jp, bp).second;
            break;
          }
          case JointType::Slider: {
            dd::PrismaticJoint::Properties jp;
            place(jp);
            jp.mAxis = wi * j.axis_a;
            jp.mDampingCoefficients[0] = model.joints[static_cast<size_t>(j.index)].damping;
            limit(jp, j, flip);
            node = skel_->createJointAndBodyNodePair<dd::PrismaticJoint>(parent, jp, bp).second;
            break;
          }
          case JointType::Fixed: {
            dd::WeldJoint::Properties jp;
            place(jp);
            node = skel_->createJointAndBodyNodePair<dd::WeldJoint>(parent, jp, bp).second;
            break;
          }
          case JointType::Cardan:
          case JointType::Distance: {
            dd::UniversalJoint::Properties jp;
            place(jp);
            jp.mAxis = {Vec3::UnitX(), Vec3::UnitY()};
            node = skel_->createJointAndBodyNodePair<dd::UniversalJoint>(parent, jp, bp).second;
            break;
          }
          case JointType::Planar: {  // slides along the joint frame's x and y (fixed in the parent), then the turn about z
            dd::PlanarJoint::Properties jp;
            place(jp);
            jp.setXYPlane();
            node = skel_->createJointAndBodyNodePair<dd::PlanarJoint>(parent, jp, bp).second;
            break;
          }
          default: throw UnsupportedModel("dart: unexpected joint type");
        }
      }
      const Mat3 I = b.particle ? Mat3(Mat3::Identity() * point_inertia_ * b.mass) : b.inertia;
      node->setInertia(dd::Inertia(b.mass, f.com, I));
      nodes_[u] = node;
    }
    // positions: zero except the free joints; velocities joint by joint, parents first
    for (int i : tree.order) {
      const size_t u = static_cast<size_t>(i);
      const Frame& f = frames_[u];
      const BodyState& s = state.bodies[u];
      dd::Joint* joint = nodes_[u]->getParentJoint();
      const int jk = tree.joint[u];
      if (jk < 0) {
        auto* fj = static_cast<dd::FreeJoint*>(joint);
        fj->setTransform(pose(f.q, f.origin));
        fj->setLinearVelocity(s.v + f.w.cross(f.origin - s.x));
        fj->setAngularVelocity(f.w);
        continue;
      }
      const PeerJoint& j = joints[static_cast<size_t>(jk)];
      const int p = tree.parent[u];
      const Vec3 wr = f.w - (p == kWorld ? Vec3::Zero() : frames_[static_cast<size_t>(p)].w);
      const Vec3 ax_parent = tree.flip[u] ? j.axis_b : j.axis_a, ax_child = tree.flip[u] ? j.axis_a : j.axis_b;
      switch (j.type) {
        case JointType::Ball: joint->setVelocities(wr); break;  // joint axes are world-aligned at the start
        case JointType::Hinge: joint->setVelocity(0, ax_parent.dot(wr)); break;
        case JointType::Slider: {
          const BodyState* ps = p == kWorld ? nullptr : &state.bodies[static_cast<size_t>(p)];
          const Vec3 vp = ps ? Vec3(ps->v + frames_[static_cast<size_t>(p)].w.cross(s.x - ps->x)) : Vec3::Zero();
          joint->setVelocity(0, j.axis_a.dot(s.v - vp));
          break;
        }
        case JointType::Cardan: {
          const Quat w = frame_xy(ax_parent, ax_child);
          joint->setVelocity(0, (w * Vec3::UnitX()).dot(wr));
          joint->setVelocity(1, (w * Vec3::UnitY()).dot(wr));
          break;
        }
        case JointType::Distance:
          joint->setVelocity(0, f.u1.dot(wr));
          joint->setVelocity(1, f.u2.dot(wr));
          break;
        case JointType::Planar: {  // the pivot's motion relative to the parent's point there, then the turn
          const Quat w = frame_z(ax_parent);
          const Vec3 pivot = tree.flip[u] ? j.anchor_a : j.anchor_b;
          const Vec3 rel = s.v + f.w.cross(pivot - s.x) - peer_point_velocity(state, frames_, p, pivot);
          joint->setVelocity(0, (w * Vec3::UnitX()).dot(rel));
          joint->setVelocity(1, (w * Vec3::UnitY()).dot(rel));
          joint->setVelocity(2, ax_parent.dot(wr));
          break;
        }
        default: break;
      }
    }
    world_ = dart::simulation::World::create("mbbench");
    world_->setGravity(model.gravity);
    world_->addSkeleton(skel_);
    close_loops(model, joints, tree);
    add_shapes(model, state);
    add_motors(model, joints, tree);
    torque_.assign(n, Vec3::Zero());
  }

  // Each motor as DART's servo actuator on the joint to its tree child (Joint::SERVO: a
  // velocity-level row in the constraint solver asking the joint's rate for the command, its impulse
  // within the force limits times h; no bound: DART's infinite limits). The command each step is
  // the rate the motor wants at the step's end (a position motor: the gap to f(t + h) over h). A
  // motor on a joint that closes a loop has no joint of the skeleton to drive and is refused.
  void add_motors(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    motors_.clear();
    for (size_t mi = 0; mi < model.motors.size(); ++mi) {
      const Motor& mo = model.motors[mi];
      const int child = tree_child_of_joint(joints, tree, mo.joint);
      if (child < 0)
        throw UnsupportedModel(fmt::format("dart: motor '{}' drives joint '{}', which closes a loop; DART's servo actuator drives a "
                                           "joint of the skeleton only",
                                           mo.name, model.joints[static_cast<size_t>(mo.joint)].name));
      const size_t u = static_cast<size_t>(child);
      const PeerJoint& j = joints[static_cast<size_t>(tree.joint[u])];
      // DART's joint coordinate turns (moves) the child relative to the parent about (along) the
      // axis it was built with; ours b relative to a about (along) axis_a
      const double sign = peer_coordinate_sign(j, tree.flip[u]);
      dd::Joint* joint = nodes_[u]->getParentJoint();
      joint->setActuatorType(dd::Joint::SERVO);
      const double f = mo.limited() ? mo.max_force : std::numeric_limits<double>::infinity();
      joint->setForceUpperLimit(0, f);
      joint->setForceLowerLimit(0, -f);
      motors_.push_back({static_cast<int>(mi), j.type == JointType::Slider, sign, joint});
    }
  }

  // What DART's contacts cannot express, refused before anything is built: a convex shape (its
  // mesh mapping is not built), a half-space on a moving body (planes are static here), and a pair
  // restitution other than DART's rule: DART takes the smaller friction of two shapes, as we do,
  // but the product of their restitutions, so a restitution is mapped (as sqrt e on each shape)
  // only where every shape of a positive restitution has the same material as all it can touch.
  void check_shapes(const Model& model) const {
    for (const Shape& sh : model.shapes) {
      if (sh.type == ShapeType::Convex)
        throw UnsupportedModel(fmt::format("dart: shape '{}' is convex; its mapping to a DART mesh is not built", sh.name));
      if (sh.type == ShapeType::HalfSpace && sh.body != kWorld && !model.bodies[static_cast<size_t>(sh.body)].is_static)
        throw UnsupportedModel(fmt::format("dart: shape '{}' is a half-space on a moving body; planes are static here", sh.name));
    }
    if (!model.material_pairs.empty())
      throw UnsupportedModel("dart: material pairs are not mapped (DART combines the two shapes' own coefficients)");
    const ShapePairRule rule(model);
    for (const Shape& a : model.shapes)
      for (const Shape& b : model.shapes) {
        if (&a == &b || a.material == b.material || !rule.tested(model, a.body, b.body)) continue;
        const Material& ma = model.materials[static_cast<size_t>(a.material)];
        const Material& mb = model.materials[static_cast<size_t>(b.material)];
        if (ma.restitution > 0 || mb.restitution > 0)
          throw UnsupportedModel(fmt::format("dart: shapes '{}' and '{}' of different materials with restitution; DART multiplies "
                                             "two shapes' restitutions, ours takes the smaller", a.name, b.name));
      }
  }

  // The model's shapes as DART shape nodes with collision and dynamics aspects (friction
  // mu_dynamic, restitution sqrt e: check_shapes): on their body node at their offset in its frame,
  // and the world's and static bodies' on an immobile skeleton of their own. The pairs are ours
  // (PairFilter in place of DART's body-node filter, which tests every non-adjacent pair).
  // a half-space's stand-in: 2 km wide, 10 m thick (its plane the slab's top face, y up)
  inline static const Vec3 kSlab{2000, 10, 2000};

  void add_shapes(const Model& model, const State& state) {
    if (model.shapes.empty()) return;
    // option collision: DART's FCL detector tests triangle meshes of the shapes by default (mesh),
    // or FCL's own shapes (primitive; DART warns that this is incomplete). Measured (docs/peers.md):
    // the rolling box's 20 m box on the floor slab is 1 m off its closed form with meshes and 1.5 mm
    // with primitives, the incline's cubes the other way round
    if (primitive_)
      if (auto fcl = std::dynamic_pointer_cast<dart::collision::FCLCollisionDetector>(world_->getConstraintSolver()->getCollisionDetector()))
        fcl->setPrimitiveShapeType(dart::collision::FCLCollisionDetector::PRIMITIVE);
    auto filter = std::make_shared<PairFilter>();
    dd::SkeletonPtr ground;
    auto ground_body = [&]() -> dd::BodyNode* {
      if (!ground) {
        ground = dd::Skeleton::create("ground");
        ground->createJointAndBodyNodePair<dd::WeldJoint>(nullptr);
        ground->setMobile(false);
        world_->addSkeleton(ground);
      }
      return ground->getBodyNode(0);
    };
    for (const Shape& sh : model.shapes) {
      // the shape's parts, each at its offset along the shape's z: a capsule is a cylinder and its
      // two end spheres (DART's FCL detector in primitive mode has no capsule: it puts a sphere of
      // 0.1 m in its place)
      std::vector<std::pair<dd::ShapePtr, double>> parts;
      dd::ShapePtr shape;
      switch (sh.type) {
        case ShapeType::Sphere: shape = std::make_shared<dd::SphereShape>(sh.radius); break;
        case ShapeType::Box: shape = std::make_shared<dd::BoxShape>(2 * sh.half_extents); break;
        case ShapeType::Capsule:
          shape = std::make_shared<dd::CylinderShape>(sh.radius, sh.length);
          for (const double end : {-0.5, 0.5}) parts.push_back({std::make_shared<dd::SphereShape>(sh.radius), end * sh.length});
          break;
        case ShapeType::Cylinder: shape = std::make_shared<dd::CylinderShape>(sh.radius, sh.length); break;
        case ShapeType::Ellipsoid: shape = std::make_shared<dd::EllipsoidShape>(2 * sh.half_extents); break;
        case ShapeType::HalfSpace: shape = std::make_shared<dd::BoxShape>(kSlab); break;  // below (slab_offset)
        case ShapeType::Convex: break;  // refused in check_shapes
      }
      const bool fixed = sh.body == kWorld || model.bodies[static_cast<size_t>(sh.body)].is_static;
      // a half-space is a slab whose top face is its plane: DART's FCL detector has no plane (it
      // puts a box of zero thickness in its place, through which a ball fell)
      const ShapePose w = shape_pose(sh, state);
      Quat q = w.orientation;
      Vec3 p = w.position + (sh.type == ShapeType::HalfSpace ? Vec3(q * Vec3(0, -kSlab.y() / 2, 0)) : Vec3::Zero());
      dd::BodyNode* node = fixed ? ground_body() : nodes_[static_cast<size_t>(sh.body)];
      if (!fixed) {
        const Frame& f = frames_[static_cast<size_t>(sh.body)];
        p = f.q.conjugate() * (p - f.origin);
        q = f.q.conjugate() * q;
      }
      parts.insert(parts.begin(), {shape, 0.0});
      const Material& m = model.materials[static_cast<size_t>(sh.material)];
      for (const auto& [part, offset] : parts) {
        auto* sn = node->createShapeNodeWith<dd::CollisionAspect, dd::DynamicsAspect>(part);
        filter->body[sn] = sh.body;
        sn->setRelativeTransform(pose(q, p + q * Vec3(0, 0, offset)));
        sn->getDynamicsAspect()->setFrictionCoeff(m.mu_dynamic);
        sn->getDynamicsAspect()->setRestitutionCoeff(std::sqrt(std::clamp(m.restitution, 0.0, 1.0)));
      }
    }
    skel_->enableSelfCollisionCheck();
    skel_->enableAdjacentBodyCheck();
    filter->model = &model;
    filter->rule.emplace(model);
    world_->getConstraintSolver()->getCollisionOption().collisionFilter = filter;
  }

  // The joints that close loops, as DART's joint constraints (velocity-level impulses in its
  // boxed-LCP constraint solver, with its error reduction: soft, docs/peers.md): a ball joint a
  // BallJointConstraint at its anchor, a hinge two (at its anchor and 1 m along its axis), a fixed
  // joint a WeldJointConstraint. Built once the skeleton sits at the initial state (a constraint
  // takes its points in world coordinates there). A rod, cardan or slider joint closing a loop is
  // refused.
  void close_loops(const Model& model, const std::vector<PeerJoint>& joints, const PeerTree& tree) {
    namespace dc = dart::constraint;
    if (tree.closing.empty()) return;
    dc::ConstraintSolver* solver = world_->getConstraintSolver();
    // the loops' rows are redundant (a hinge's two points give 6 rows for 5 conditions, a planar
    // loop more): DART's default Dantzig solver returned impulses that broke the Strandbeest leg
    // within 5 steps (joint error 1.2 m at h = 1 ms); projected Gauss-Seidel takes redundant rows
    if (auto* boxed = dynamic_cast<dc::BoxedLcpConstraintSolver*>(solver)) boxed->setBoxedLcpSolver(std::make_shared<dc::PgsBoxedLcpSolver>());
    for (int k : tree.closing) {
      const PeerJoint& j = joints[static_cast<size_t>(k)];
      // a world side: the one-body constructors
      const bool swap = j.a == kWorld;
      dd::BodyNode* b1 = nodes_[static_cast<size_t>(swap ? j.b : j.a)];
      dd::BodyNode* b2 = (swap ? j.a : j.b) == kWorld ? nullptr : nodes_[static_cast<size_t>(swap ? j.a : j.b)];
      auto ball = [&](const Vec3& p) {
        solver->addConstraint(b2 ? std::make_shared<dc::BallJointConstraint>(b1, b2, p) : std::make_shared<dc::BallJointConstraint>(b1, p));
      };
      switch (j.type) {
        case JointType::Ball:
        case JointType::Hinge:
          for (const Vec3& p : closure_points(j)) ball(p);
          break;
        case JointType::Fixed:
          solver->addConstraint(b2 ? std::make_shared<dc::WeldJointConstraint>(b1, b2) : std::make_shared<dc::WeldJointConstraint>(b1));
          break;
        default:
          throw UnsupportedModel(fmt::format("dart: joint '{}' ({}) closes a loop; only ball joints, hinges and fixed joints are mapped "
                                             "to DART's joint constraints",
                                             model.joints[static_cast<size_t>(j.index)].name, joint_type_name(j.type)));
      }
    }
  }

  void do_step(const Model& model, State& state, double h, StepStats& stats) override {
    const auto t0 = std::chrono::steady_clock::now();
    world_->setTimeStep(h);
    for (const DartMotor& dm : motors_) {
      const Motor& mo = model.motors[static_cast<size_t>(dm.motor)];
      const double rate = motor_step_rate(model, state, mo, h);
      dm.joint->setCommand(0, dm.sign * rate);
    }
    if (!model.loads.empty() || !model.actuators.empty()) {  // the step's average loads, world axes: a force at the centre of mass, a torque
      average_torques(model, state.t, h, torque_);
      force_.assign(nodes_.size(), Vec3::Zero());
      add_average_forces(model, state.t, h, force_);
      add_peer_actuator_loads(model, state, ctrl_, force_, torque_);
      for (size_t i = 0; i < nodes_.size(); ++i)
        if (nodes_[i]) {
          nodes_[i]->clearExternalForces();
          nodes_[i]->addExtForce(force_[i], frames_[i].com, false, true);
          nodes_[i]->addExtTorque(torque_[i]);
        }
    }
    world_->step();
    // DART checks each joint's transform and articulated inertia by assertions, which abort the
    // process on a state gone non-finite, also one step after a state diverged beyond any physical
    // size (a soak robot at 8e15 m); the run fails here instead, before a transform is read
    const Eigen::VectorXd q = skel_->getPositions(), v = skel_->getVelocities();
    auto diverged = [](const Eigen::VectorXd& x) { return !x.allFinite() || (x.size() > 0 && x.cwiseAbs().maxCoeff() > kDiverged); };
    if (diverged(q) || diverged(v))
      throw SimulationError(fmt::format("dart: the state is not finite or beyond {:g} (diverged) after the step to t = {:.6g} s", kDiverged,
                                        state.t + h));
    for (size_t i = 0; i < nodes_.size(); ++i) {
      const dd::BodyNode* node = nodes_[i];
      if (!node) continue;
      const Eigen::Isometry3d& t = node->getWorldTransform();
      write_body(model.bodies[i], state.bodies[i], node->getCOM(), Quat(t.linear()), node->getCOMLinearVelocity(), node->getAngularVelocity());
    }
    stats.t_integration += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }

  double point_inertia_;
  bool primitive_;  // option collision
  dd::SkeletonPtr skel_;
  dart::simulation::WorldPtr world_;
  std::vector<dd::BodyNode*> nodes_;  // (nbody), null for a static body
  std::vector<Frame> frames_;         // (nbody)
  std::vector<Vec3> torque_, force_;
  std::vector<double> ctrl_;  // the actuators' controls of the step
  struct DartMotor {
    int motor;  // Model::motors index
    bool slider;
    double sign;  // DART's joint rate = sign q'
    dd::Joint* joint;
  };
  std::vector<DartMotor> motors_;
};

}  // namespace

MethodInfo describe_dart() {
  MethodInfo i;
  i.name = "dart";
  i.family = "peer";
  i.version = "DART " DART_VERSION;
  i.description = "DART (libdart-dev): reduced coordinates (one Skeleton), articulated-body forward dynamics, semi-implicit Euler; loops closed at ball joints, hinges and fixed joints by its joint constraints";
  i.source = "lee2018 (DART)";
  i.options = {point_inertia_option("1e-12"),
               OptionInfo::choice("collision", "mesh",
                                  "contacts: DART's FCL detector on triangle meshes of the shapes (mesh, DART's default) or on FCL's own "
                                  "shapes (primitive)",
                                  {"mesh", "primitive"})};
  i.orders = {{"position", "double-pendulum", 1, 0.0005, 0.002, 1, "", "semi-implicit Euler; 2 on pendulum10, started at its lowest point (docs/peers.md)"}};
  i.supports = kActuators | kParticles | kRigidBodies | kTrees | kLoops | kRedundant | kAppliedTorques | kAppliedForces | kContacts | kJointDampers | kMotors |
                kJointLimits;
  i.fixed_step = true;
  return i;
}

std::unique_ptr<Method> make_dart(const MethodOptions& options) { return std::make_unique<Dart>(options); }

}  // namespace mb
