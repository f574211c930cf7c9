// Collision detection on a model's shapes (docs/contacts.md), with FCL: its dynamic AABB tree
// manager is the broad phase, its shape-shape queries the narrow phase. A contact joins a point of
// body a and a point of body b (kWorld for world shapes) with a unit normal n pointing from a to b;
// its gap n . (p_b - p_a) is -depth when found (the points are each body's deepest point in the
// other). Box and convex shapes against a half-space give one contact per vertex below the plane
// and a capsule one per end sphere, a cylinder four per end rim (FCL gives the deepest point only,
// on which a box or a lying capsule would rock); spheres and capsules among themselves one contact at the closest points of
// their axes; every other pair gives FCL's contacts (box-box up to 4).
// Pairs that are never tested: two shapes of one body, shapes of two bodies that never move, and
// shapes of two bodies joined by a joint (as in the common engines: the joint decides their
// relative motion).
#pragma once
#include <functional>
#include <memory>
#include <set>
#include <utility>
#include <vector>

#include "models/model.hpp"

namespace mb {

struct Contact {
  int a = kWorld, b = kWorld;            // bodies (a may be kWorld or a static body)
  Vec3 local_a = Vec3::Zero();          // the contact point on a, in a's body frame (world for kWorld)
  Vec3 local_b = Vec3::Zero();          // the contact point on b, in b's body frame
  Vec3 normal = Vec3::UnitY();          // world, from a to b
  double depth = 0;                     // penetration when found, m (> 0; with a margin, > -margin)
  int shape_a = -1, shape_b = -1;       // model shape indices
};

// Which bodies' shapes are tested against each other (the rule above), MuJoCo's filter: not one
// body's own, not two fixed bodies' (the world or static), not two of one weld group (bodies joined
// by fixed joints), not two whose weld groups are joined by a joint or by a chain of joints
// through joint frames (Body::frame, Body::light_frame); a joint to a fixed body excludes nothing
// (MuJoCo exempts the world). Shared by the detector and
// the peer engines that filter pairs themselves.
class ShapePairRule {
 public:
  explicit ShapePairRule(const Model& model);
  bool tested(const Model& model, int body_a, int body_b) const;

 private:
  std::vector<int> group_;                // (nbody) each body's weld group
  std::set<std::pair<int, int>> joined_;  // weld-group pairs joined by a joint (a < b; kWorld is -1)
};

class CollisionDetector {
 public:
  // margin > 0: also the pairs closer than the margin, with the gap as a negative depth (FCL tests
  // the shapes grown by half the margin; a convex mesh is not grown, so against it the reach is half
  // the margin, except a box or convex vertex against a half-space: the margin). For observers that
  // need the resting contacts a step leaves just apart (metrics/observers.cpp).
  explicit CollisionDetector(const Model& model, double margin = 0);
  ~CollisionDetector();
  CollisionDetector(CollisionDetector&&) noexcept;
  CollisionDetector& operator=(CollisionDetector&&) noexcept;

  // Every contact between the model's shapes at state s (penetrating pairs), in a fixed order
  // (by shape pair, then FCL's order): the same state gives the same list. With `test`, only the
  // shape pairs (i < j) it accepts reach the narrow phase.
  void detect(const Model& model, const State& s, std::vector<Contact>& out, const std::function<bool(int, int)>& test = {});

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A shape's pose in world coordinates at state s (the world's shapes: their own).
struct ShapePose {
  Vec3 position = Vec3::Zero();
  Quat orientation = Quat::Identity();
};
ShapePose shape_pose(const Shape& shape, const State& s);

// The world position of a body point given in its body frame (kWorld: the point itself).
Vec3 body_point(const State& s, int body, const Vec3& local);

}  // namespace mb
