// The catalog of models. A model is named by a spec string ("pendulum90", "chain:n=5").
// Adding a model family = one builder in models/catalog/<family>.cpp + one line in catalog.cpp.
#pragma once
#include <array>
#include <functional>
#include <numbers>
#include <string>
#include <vector>

#include "core/spec.hpp"
#include "models/model.hpp"
#include "models/modes.hpp"

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
// A catalog spec or the path of a scene file (ends in .toml or names a file): the model. Defined
// with the file formats it reads (models/formats/load_model.cpp).
// Every model takes the options of model_options() (ctrl=, actuate=: models/actuators.hpp) beside
// its own: "robot.urdf:base=free,actuate=all:40,1,ctrl=hold".
Model load_model(const std::string& spec_or_path, const std::string& source = "command line", int line = 0);
const std::vector<OptionInfo>& model_options();
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
Model build_broken_chain(const Spec&);  // models/catalog/broken.cpp
Model build_loop(const Spec&);
// joints the builders share: a rod of `length` between two points, a ball joint at two points
// (anchors in the bodies' frames; world coordinates for kWorld)
Joint rod_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b, double length);
Joint ball_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b);

// The Peaucellier-Lipkin linkage of tomcin2014 s.4 (models/catalog/peaucellier.cpp), swinging from
// its symmetric pose to a crank angle of amplitude_deg in (0, 60).
Model make_peaucellier(double amplitude_deg, const std::string& name);
Model build_peaucellier(const Spec&);
// contact models (models/catalog/contacts.cpp)
Model build_bouncing_ball(const Spec&);
Model build_incline_cubes(const Spec&);
Model build_sledge_pendulum(const Spec&);
Model build_heavy_rod(const Spec&);
Model build_rolling_box(const Spec&);
Model build_spinning_egg(const Spec&);
double rolling_box_acceleration(double force, bool box);
// incline-cubes: the friction coefficient of cube i (0-based)
double incline_cube_mu(int i);
// the mechanisms of tomcin2014 (models/catalog/mechanisms.cpp: structure, dimensions and rows)
Model make_spider(int legs, const std::string& name);
Model make_scissor_lift(int segments, bool slider_foot, const std::string& name);
// drop > 0: a floor drop m below the lowest foot, the feet spheres (tomcin2014 s.7's drop)
// motor: a velocity motor turns the crank at 1 rev/s relative to the frame, the feet on a floor
// (or, with fixed, the frame static and no floor)
Model make_strandbeest(int legs, double k_frame, const std::string& name, double drop = 0, bool motor = false, bool fixed = false);
// Jansen's stride: the horizontal extent, m, of the foot's path (the frame fixed) where the foot
// is within `band` m of its lowest point (the ground phase)
double strandbeest_stride(double band);
Model make_octahedron_tube(int rings, int around, const std::string& name);
Model make_octahedron_cube(int n, const std::string& name);
Model build_spider(const Spec&);
Model build_scissor_lift(const Spec&);
Model build_strandbeest(const Spec&);
Model build_octahedron_tube(const Spec&);
Model build_octahedron_cube(const Spec&);

// schmitt2003's six-legged walking machine (models/catalog/walker.cpp: our dimensions, the gait).
struct WalkerParams {
  double mu = 0.8;            // friction of the floor (static = dynamic)
  double gait_period = 1;     // s, one step cycle of each tripod
  double stride = 0.06;       // m, a foot's travel along the ground in one stance
  bool terrain_escape = false;  // ice (mu 0.05) with a rough mat (mu 0.8) ahead, instead of the floor
  bool push = false;          // leg 2 pushes into the ground at t = 2 s: the machine topples
};
Model make_walker(const WalkerParams& p, const std::string& name);
Model build_walker(const Spec&);

// The cloth of bayer2009 s.5 (models/catalog/cloth.cpp).
struct ClothParams {
  int n = 20;                 // particles per side
  int scenario = 1;           // 1: left row fixed; 2: and a fixed sphere; 3: top and bottom rows fixed, a heavy sphere dropped
  double extensibility = 0.01;  // maximum relative stretch of every rod (bayer2009: 0.001 %, 1 %, 10 %)
  double size = 1;            // m, side of the square
  double mass = 1;            // kg, the whole cloth (spread evenly over its particles; fixed ones are static)
  double g = 10;              // m/s^2
  double sphere_mass = 1;     // kg, scenario 3's sphere (400 times a particle of the 20 x 20 cloth)
  double span = 0.9;          // scenario 3: distance of the two fixed rows as a fraction of size (< 1: the cloth hangs between them)
};
Model make_cloth(const ClothParams& p, const std::string& name);
Model build_cloth(const Spec&);

// The benchmark bicycle of meijaard2007 (models/catalog/bicycle.cpp): Table 1's parameters (SI;
// inertias about each body's centre of mass, x forward, z down; the rear frame's and the fork's
// centres (x, z)).
struct BicycleParams {
  double w = 1.02, c = 0.08, lambda = std::numbers::pi / 10, g = 9.81;  // wheelbase, trail, steer axis tilt, gravity
  double rR = 0.3, mR = 2, IRxx = 0.0603, IRyy = 0.12;      // rear wheel
  double xB = 0.3, zB = -0.9, mB = 85, IBxx = 9.2, IByy = 11, IBzz = 2.8, IBxz = 2.4;  // rear frame and rider
  double xH = 0.9, zH = -0.7, mH = 4, IHxx = 0.05892, IHyy = 0.06, IHzz = 0.00708, IHxz = -0.00756;  // handlebar and fork
  double rF = 0.35, mF = 3, IFxx = 0.1405, IFyy = 0.28;     // front wheel
  // the lean-lean entry of the linearized mass matrix, from the bodies: sum of I_xx + m (y^2 + z^2)
  double lean_mass() const;
};
// Lean phi, steer delta and their rates (models/catalog/bicycle.cpp names the conventions).
struct BicycleCoordinates {
  double lean = 0, steer = 0, lean_rate = 0, steer_rate = 0;
};
// The bodies (rear wheel, rear frame, fork, front wheel) at the coordinates z, both wheels on the
// ground (the rear frame's pitch solved), moving with the rear wheel's spin -v / rR relative to the
// rear frame, every constraint held to round-off (heading 0, rear contact at the origin).
State bicycle_state(const BicycleParams& p, const BicycleCoordinates& z, double v);
BicycleCoordinates bicycle_coordinates(const BicycleParams& p, const State& s);
// (phi'', delta'') of a state s and its accelerations (acc.bodies[k].v, .w: dv/dt, dw/dt)
std::array<double, 2> bicycle_accelerations(const BicycleParams& p, const State& s, const State& acc);
// The linearized equations' matrices from the parameters by meijaard2007's appendix A formulas
// (the published matrices: tests/whipple_test.cpp checks them against results/paper/meijaard2007.toml).
WhippleMatrices whipple_matrices(const BicycleParams& p);
Model make_bicycle(const BicycleParams& p, double v, double lean0, double steer_rate0, const std::string& name);
Model build_bicycle(const Spec&);

Model build_pendulum10(const Spec&);
Model build_pendulum90(const Spec&);
Model build_pendulum(const Spec&);
Model build_conical_pendulum(const Spec&);
Model build_double_pendulum(const Spec&);
Model build_triple_pendulum(const Spec&);
Model build_chain(const Spec&);
Model build_iftomm_a01(const Spec&);
// IFToMM A02 (models/catalog/iftomm.cpp): n four-bar windows in a row, 2n + 1 links of 1 m and 1 kg
Model make_four_bar(int n, const std::string& name);
Model build_four_bar(const Spec&);
// IFToMM A05 (models/catalog/iftomm.cpp): the stiff flyball governor
Model make_flyball_governor(const std::string& name);
Model build_flyball_governor(const Spec&);
// IFToMM A04 (models/catalog/iftomm.cpp): Bricard's overconstrained mechanism
Model make_bricard(const std::string& name);
Model build_bricard(const Spec&);

// A point mass hanging from the origin on a spring-damper (models/catalog/pendulums.cpp), started at
// its equilibrium y_eq = -(rest_length + m g / k) moving down at v0: the vertical displacement from
// y_eq is -(v0 / w_d) exp(-zeta w0 t) sin(w_d t), w0 = sqrt(k / m), zeta = c / (2 sqrt(k m)),
// w_d = w0 sqrt(1 - zeta^2) (under-damped, zeta < 1).
struct SpringMassParams {
  double mass = 1;         // kg
  double stiffness = 100;  // N/m
  double rest_length = 1;  // m
  double damping = 0;      // N s/m
  double v0 = 1;           // m/s, downward
  double g = 9.81;         // m/s^2
};
Model make_spring_mass(const SpringMassParams& p, const std::string& name);
double spring_mass_displacement(const SpringMassParams& p, double t);  // m, from y_eq
Model build_spring_mass(const Spec&);

// Andrews' squeezing mechanism (models/catalog/andrews.cpp): the Test Set for IVP Solvers' problem
// "andrews" (mazzia2008; hairer1996 s.VII.7), its parameters in SI units.
struct AndrewsParams {
  std::array<double, 7> mass = {.04325, .00365, .02373, .00706, .07050, .00706, .05498};               // kg, m1..m7
  std::array<double, 7> inertia = {2.194e-6, 4.410e-7, 5.255e-6, 5.667e-7, 1.169e-5, 5.667e-7, 1.912e-5};  // kg m^2, I1..I7
  double xa = -.06934, ya = -.00227, xb = -.03635, yb = .03273, xc = .014, yc = .072;  // m, fixed points A, B, C
  double d = 28e-3, da = 115e-4, e = 2e-2, ea = 1421e-5, rr = 7e-3, ra = 92e-5;       // m
  double ss = 35e-3, sa = 1874e-5, sb = 1043e-5, sc = 18e-3, sd = 2e-2;               // m
  double ta = 2308e-5, tb = 916e-5, u = 4e-2, ua = 1228e-5, ub = 449e-5;              // m
  double zf = 2e-2, zt = 4e-2, fa = 1421e-5;                                          // m
  double c0 = 4530, l0 = 7785e-5;  // spring: N/m, m
  double mom = 33e-3;              // driving torque on body 1, N m
  // initial angles beta, Theta, gamma, Phi, delta, Omega, epsilon (rad); the velocities are zero
  std::array<double, 7> q0 = {-0.0617138900142764496358948458001, 0, 0.455279819163070380255912382449,
                              0.222668390165885884674473185609,  0.487364979543842550225598953530,
                              -0.222668390165885884674473185609, 1.23054744454982119249735015568};
};
Model make_andrews(const AndrewsParams& p, const std::string& name);
Model build_andrews(const Spec&);
// The Test Set's angles (beta, Theta, gamma, Phi, delta, Omega, epsilon) of a state of the model,
// each on the branch nearest `previous` (nullptr: in (-pi, pi]); follow a run step by step to unwrap
// the turns of the crank.
std::array<double, 7> andrews_angles(const State& state, const std::array<double, 7>* previous);

}  // namespace mb
