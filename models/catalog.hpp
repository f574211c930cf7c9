// The catalog of models. A model is named by a spec string ("pendulum90", "chain:n=5").
// Adding a model family = one builder in models/catalog/<family>.cpp + one line in catalog.cpp.
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "models/model.hpp"

namespace mb {

struct ModelEntry {
  std::string name;
  std::string description;
  std::string source;
  std::vector<OptionInfo> options;
  std::function<Model(const Spec&)> build;
};

const std::vector<ModelEntry>& model_catalog();

// Builds a catalog model; throws InputError listing the valid names/options on a bad spec.
Model build_model(const std::string& spec, const std::string& source = "command line", int line = 0);
// A catalog spec or the path of a scene file (ends in .toml or names a file): the model.
Model load_model(const std::string& spec_or_path, const std::string& source = "command line", int line = 0);
bool is_scene_path(const std::string& text);

// --- builders (models/catalog/*.cpp) ---
struct PendulumParams {
  double amplitude_deg = 10;  // maximal swing angle from the vertical, degrees
  double length = 1;          // m
  double mass = 1;            // kg
  double g = 9.81;            // m/s^2
};
Model make_pendulum(const PendulumParams& p, const std::string& name);
// Exact period of the planar mathematical pendulum: T = 4 K(sin(amp/2)) sqrt(L/g).
double pendulum_period(const PendulumParams& p);

struct ChainParams {
  int n = 2;          // number of point masses
  double length = 1;  // m, every rod
  double mass = 1;    // kg, every mass
  double g = 9.81;
};
// n point masses on rods from a pivot at the origin, at rest, stretched horizontally to +x.
Model make_chain(const ChainParams& p, const std::string& name);

struct TreeParams {
  int joints = 31;       // 2^d - 1
  bool anchor_ball = false;
  double density = 600;  // kg/m^3
  double torque = 10;    // N m about world z on the top body during the first 1/30 s
  double g = 9.81;
};
Model make_tree(const TreeParams& p, const std::string& name);
// a box 0.04 x length x 0.04 m (long axis local y), mass and inertia from the density
Body make_box(const std::string& name, double length, double width, double density);
// n boxes of `length` joined by ball joints, hung from the origin, stretched to +x
Model make_box_chain(const ChainParams& p, const std::string& name);
// n rods with both ends fixed: a closed loop of n - 1 point masses
Model make_loop(int n, const std::string& name);

Model build_tree(const Spec&);
Model build_loop(const Spec&);
// joints the builders share: a rod of `length` between two points, a ball joint at two points
// (anchors in the bodies' frames; world coordinates for kWorld)
Joint rod_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b, double length);
Joint ball_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b);

// The Peaucellier-Lipkin linkage of tomcin2014 s.4 (models/catalog/peaucellier.cpp), swinging from
// its symmetric pose to a crank angle of amplitude_deg in (0, 60).
Model make_peaucellier(double amplitude_deg, const std::string& name);
Model build_peaucellier(const Spec&);
// the mechanisms of tomcin2014 (models/catalog/mechanisms.cpp: structure, dimensions and rows)
Model make_spider(int legs, const std::string& name);
Model make_scissor_lift(int segments, bool slider_foot, const std::string& name);
Model make_strandbeest(int legs, double k_frame, const std::string& name);
Model make_octahedron_tube(int rings, int around, const std::string& name);
Model make_octahedron_cube(int n, const std::string& name);
Model build_spider(const Spec&);
Model build_scissor_lift(const Spec&);
Model build_strandbeest(const Spec&);
Model build_octahedron_tube(const Spec&);
Model build_octahedron_cube(const Spec&);

// The cloth of bayer2009 s.5 (models/catalog/cloth.cpp).
struct ClothParams {
  int n = 20;                 // particles per side
  int scenario = 1;           // 1: left row fixed; 2: and a fixed sphere; 3: top and bottom rows fixed, a heavy sphere dropped
                              // (the spheres are not built yet: they need collision shapes)
  double extensibility = 0.01;  // maximum relative stretch of every rod (bayer2009: 0.001 %, 1 %, 10 %)
  double size = 1;            // m, side of the square
  double mass = 1;            // kg, the whole cloth (spread evenly over its particles; fixed ones are static)
  double g = 10;              // m/s^2
};
Model make_cloth(const ClothParams& p, const std::string& name);
Model build_cloth(const Spec&);

Model build_pendulum10(const Spec&);
Model build_pendulum90(const Spec&);
Model build_pendulum(const Spec&);
Model build_double_pendulum(const Spec&);
Model build_triple_pendulum(const Spec&);
Model build_chain(const Spec&);

}  // namespace mb
