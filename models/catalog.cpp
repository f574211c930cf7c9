#include "models/catalog.hpp"

#include <filesystem>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace mb {

const std::vector<ModelEntry>& model_catalog() {
  // sorted by name; one line per family
  static const std::vector<ModelEntry> entries = {
      {"andrews", "Andrews' squeezing mechanism: 7 bodies, 10 hinges (9 redundant rows), a spring, a 0.033 N m driving torque, no gravity; t_end = 0.03 s",
       "mazzia2008; hairer1996 s.VII.7; IFToMM A03", {}, build_andrews},
      {"bicycle", "the benchmark bicycle (Whipple): 4 bodies, 3 hinges, 2 knife-edge wheels rolling without slipping; x forward, z down",
       "meijaard2007", {OptionInfo::number("v", "5", "forward speed, m/s", 0, 100),
                                  OptionInfo::number("lean0", "0", "initial lean, rad", -1, 1),
                                  OptionInfo::number("steer_rate0", "0", "initial steer rate, rad/s", -100, 100),
                                  OptionInfo::choice("wheels", "rolling", "rolling (constraints), cylinder or ellipsoid (tyres on a floor: docs/findings.md)",
                                                     {"rolling", "cylinder", "ellipsoid"})}, build_bicycle},
      {"bouncing-ball", "a 1 kg ball of radius 0.1 m dropped on a floor (half-space); apex heights height e^(2k), impacts at analytic times",
       "ours (analytic)", {OptionInfo::number("e", "0.8", "restitution coefficient", 0, 1),
                           OptionInfo::number("height", "1", "initial height of the ball's lowest point, m", 0, 1e3, true)}, build_bouncing_ball},
      {"bricard", "IFToMM A04 Bricard's mechanism: five 1 m, 1 kg rods on cube edges, six hinges; zero degrees of freedom by the count, one in fact; at rest under gravity; 10 s",
       "IFToMM A04 (gonzalez2006)", {}, build_bricard},
      {"broken-chain", "n boxes hung by a ball joint and joined by hinges, every body moved off its joints at the start (up to "
       "`displace` m and `rotate` degrees): the joints start broken, for the position correction to repair",
       "schmitt2003 (repair)", {OptionInfo::integer("n", "6", "number of boxes", 1, 10000),
                                OptionInfo::number("displace", "0.5", "largest displacement of a body off its joints, m", 0, 10),
                                OptionInfo::number("rotate", "90", "largest rotation of a body off its joints, degrees", 0, 180)},
       build_broken_chain},
      {"chain", "n point masses of 1 kg on 1 m rods (body=particle) or n boxes with ball joints (body=box) from a fixed pivot, at rest, stretched horizontally",
       "ours", {OptionInfo::integer("n", "4", "number of links", 1, 100000),
                OptionInfo::choice("body", "particle", "particle (rods) or box (0.04 x 0.1 x 0.04 m boxes, ball joints)", {"particle", "box"})}, build_chain},
      {"cloth", "n x n particles over 1 m x 1 m, rods between grid neighbours with a maximum extensibility, h = 0.01 s, g = 10; "
       "scenario 1: left row fixed, swinging; 2: and hitting a fixed sphere; 3: top and bottom rows fixed, a heavy sphere dropped on it",
       "bayer2009 s.5", {OptionInfo::integer("n", "20", "particles per side (>= 2)", -1e9, 1e9),
                         OptionInfo::integer("scenario", "1", "1, 2 or 3 (bayer2009 s.5, Figure 5; 2 and 3 with particle radii and a sphere)", -1e9, 1e9),
                         OptionInfo::number("ext", "1", "maximum extensibility of every rod in percent (the paper: 0.001, 1, 10)"),
                         OptionInfo::number("sphere_mass", "1", "mass of scenario 3's sphere, kg (the paper: very heavy; the cloth: 1 kg)", 0, 1e6, true),
                         OptionInfo::number("span", "0.9", "scenario 3: distance of the fixed rows as a fraction of the cloth's size (< 1: it hangs between them as an arc)", 0.2, 1, true)}, build_cloth},
      {"conical-pendulum", "1 kg point mass on a 1 m rod circling the vertical at a fixed angle (a spatial point-mass tree); closed-form circle and period",
       "ours (closed form)", {OptionInfo::number("angle", "30", "angle of the rod from the vertical, degrees", 0, 89, true)}, build_conical_pendulum},
      {"double-pendulum", "2 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_double_pendulum},
      {"flyball-governor", "IFToMM A05 stiff flyball governor: shaft spinning at 2 pi rad/s, two rods with 5 kg balls, a sliding sleeve, "
       "the couplers spring-dampers k = 8e5 N/m, c = 4e4 N s/m; gravity -y; 10 s",
       "IFToMM A05 (gonzalez2006)", {}, build_flyball_governor},
      {"four-bar", "IFToMM A02: N four-bar windows in a row (2N + 1 links of 1 m, 1 kg), B0 starting at 1 m/s in +x, through the singular horizontal pose; 20 s; 3N redundant rows",
       "IFToMM A02 (gonzalez2006)", {OptionInfo::integer("n", "40", "four-bar windows N", 1, 1000)}, build_four_bar},
      {"heavy-rod", "a 7.5 t block resting on a 50 kg rod held by a hinge and a hanger (tomcin2014 Figure 1d): stays at rest; mass ratio 150",
       "tomcin2014 s.1", {}, build_heavy_rod},
      {"iftomm-a01", "IFToMM A01 simple pendulum: 1 kg point mass on a massless 1 m bar, released at rest from the horizontal at (-1, 0); 10 s",
       "IFToMM A01 (gonzalez2006)", {}, build_iftomm_a01},
      {"incline-cubes", "cubes of 0.1 m and 1 kg at rest on an inclined plane, cube i with friction mu = 0.1 + 0.15 (i - 1); slides with a = g (sin - mu cos) when mu < tan(angle), else stays",
       "schmitt2003", {OptionInfo::number("angle", "30", "inclination in degrees (0: a floor)", 0, 89),
                       OptionInfo::integer("cubes", "6", "number of cubes", 1, 1000)}, build_incline_cubes},
      {"loop", "closed loop: n rods of 1 m with both ends fixed, n - 1 point masses started on a half circle",
       "schmitt2003", {OptionInfo::integer("n", "8", "number of rods", 3, 10000)}, build_loop},
      {"octahedron-cube", "n^3 octahedra of hubs and bars (Cardan + revolute per bar) on a cubic lattice, neighbours linked by bars; rows 9 (15 n^3 - 3 n^2)",
       "tomcin2014 s.6", {OptionInfo::integer("n", "2", "octahedra per edge of the cube", 1, 24)}, build_octahedron_cube},
      {"octahedron-tube", "rings of octahedra of hubs and bars (Cardan + revolute per bar) around a tube, linked around and along; rows 9 M (14 R - 1)",
       "tomcin2014 s.6", {OptionInfo::integer("rings", "8", "rings R along the tube", 1, 1000),
                          OptionInfo::integer("around", "19", "octahedra M per ring", 3, 1000)}, build_octahedron_tube},
      {"peaucellier", "Peaucellier-Lipkin linkage, 7 bars and 10 hinges (9 redundant constraint rows), green bars 2 m, h = 0.03 s; "
       "the point P moves on the line y = -2", "tomcin2014 s.4",
       {OptionInfo::number("amplitude", "47.5", "crank angle in degrees the swing reaches (48.19 is singular; 47.5: lambda_max / lambda_min about 1e7)", 0, 48.18, true)}, build_peaucellier},
      {"pendulum", "planar mathematical pendulum, 1 kg on a 1 m rod, started at the lowest point",
       "schmitt2005 s.4", {OptionInfo::number("amplitude", "10", "amplitude in degrees", 0, 180, true)}, build_pendulum},
      {"pendulum10", "mathematical pendulum, 10 degree amplitude", "schmitt2005 s.4", {}, build_pendulum10},
      {"pendulum90", "mathematical pendulum, 90 degree amplitude", "schmitt2005 s.4", {}, build_pendulum90},
      {"scissor-lift", "scissor lift: crossed 0.5 m bars in two planes hinged at their middles, every bar end hinged to a cross axle, base pivot fixed; rows 50 N (+5 with foot=slider)",
       "tomcin2014 s.6", {OptionInfo::integer("segments", "10", "segments N", 1, 10000),
                          OptionInfo::choice("foot", "free", "free (the paper's count) or slider (the foot axle slides on the floor)", {"free", "slider"})}, build_scissor_lift},
      {"rolling-box", "a 10 kg box sliding on the floor (mu 0.4) under a horizontal force, 25 balls of 1 kg rolling on it (mu 0.8): the SimBenchmark rolling test; exact a = 0.739 m/s^2 (box), 0.211 (balls) at 150 N",
       "SimBenchmark (RSL, ETH)", {OptionInfo::number("force", "150", "the horizontal force on the box, N (a closed form up to 600 N)", 0, 1e4)}, build_rolling_box},
      {"sledge-pendulum", "a 4 kg sledge on a 20 degree incline with a 1 kg, 0.3 m pendulum hinged 0.3 m above its centre, started 45 degrees out; high friction: stop and go, low: sliding",
       "schmitt2003", {OptionInfo::number("mu", "0.45", "friction coefficient sledge-plane (static = dynamic; tan 20 degrees = 0.364)", 0, 100)}, build_sledge_pendulum},
      {"spider", "central box with N legs on ball joints, each leg a thigh and a shank on a knee hinge; free-floating, spinning; rows 8 N",
       "tomcin2014 s.5", {OptionInfo::integer("legs", "8", "legs N", 1, 10000)}, build_spider},
      {"spinning-egg", "a 60 g uniform prolate spheroid (semi-axes 0.03, 0.022 m) lying on a table, spun about the vertical: fast enough, it rises onto its end (schmitt2003; Moffatt and Shimomura 2002)",
       "schmitt2003", {OptionInfo::number("spin", "60", "initial spin about the vertical, rad/s", 0, 1e4),
                       OptionInfo::number("mu", "0.3", "friction coefficient egg-table (static = dynamic)", 0, 100)}, build_spinning_egg},
      {"spring-mass", "1 kg point mass hanging on a 100 N/m spring-damper (rest length 1 m), started at the equilibrium moving down at 1 m/s; closed form",
       "ours", {OptionInfo::number("damping", "0", "damping coefficient c in N s/m (under-damped: c < 20)", 0, 20)}, build_spring_mass},
      {"strandbeest", "Theo Jansen's linkage (his link lengths, 1 unit = 1 cm): N legs in mirrored pairs on one crank shaft and one frame, 15 pin hinges per leg; crank turning at 1 rev/s; rows 75 N + 5",
       "tomcin2014 s.6-7", {OptionInfo::integer("legs", "8", "legs N", 1, 1000),
                            OptionInfo::number("k", "0", "frame mass factor: frame mass = (1 + k) x original", 0, 1e6),
                            OptionInfo::number("drop", "0", "0: in the air; H > 0: dropped onto a floor from H m (feet: spheres; tomcin2014 s.7), 5 s at h = 20 ms", 0, 100),
                            OptionInfo::choice("motor", "off", "on: a velocity motor turns the crank at 1 rev/s, the feet (spheres) on a floor touching the lowest, friction 0.6: it walks (5 s at h = 10 ms)", {"off", "on"}),
                            OptionInfo::choice("fixed", "off", "on (with motor=on): the frame fixed and no floor, for the foot path", {"off", "on"})}, build_strandbeest},
      {"tree", "top box + full binary tree of boxes with ball joints; 10 N m on the top body for 1/30 s",
       "bender2007 s.6", {OptionInfo::integer("joints", "31", "2^k - 1 up to 16383", 1, 16383),
                          OptionInfo::choice("anchor", "none", "none (free-floating) or ball (top hung from the origin)", {"none", "ball"})}, build_tree},
      {"triple-pendulum", "3 point masses of 1 kg, rods of 1 m, at rest stretched horizontally to +x",
       "schmitt2005 s.4", {}, build_triple_pendulum},
      {"walker", "schmitt2003's six-legged walking machine, our dimensions: a 0.36 x 0.06 x 0.16 m, 1.5 kg body box; 6 legs (x = 0, -+0.14 m, z = -+0.1 m) of two 0.1 m, "
       "0.108 kg bars on a hip and a knee hinge (axes z), each driven by a position motor (piecewise-linear tables: a tripod gait, each foot pushing back "
       "by the stride in 40 % of its stance, then holding); sphere feet of 0.015 m, 0.14 m below the hips; walks to +x; 10 s at h = 0.01 s",
       "schmitt2003", {OptionInfo::number("mu", "0.8", "friction coefficient feet-floor (static = dynamic)", 0, 100),
                       OptionInfo::number("gait_period", "1", "period of the gait, s", 0.1, 100),
                       OptionInfo::number("stride", "0.06", "a foot's travel in one stance, m", 0, 0.1),
                       OptionInfo::choice("terrain", "flat", "flat (a floor of friction mu) or escape (ice, mu 0.05, with a rough mat, mu 0.8, from x = 0.35 m on; 30 s)", {"flat", "escape"}),
                       OptionInfo::choice("push", "off", "on: leg 2 pushes 0.055 m into the ground at t = 2 s, and the machine topples", {"off", "on"})}, build_walker},
  };
  return entries;
}

Joint rod_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b, double length) {
  Joint j = ball_joint(name, a, anchor_a, b, anchor_b);
  j.type = JointType::Distance;
  j.length = length;
  return j;
}

Joint ball_joint(const std::string& name, int a, const Vec3& anchor_a, int b, const Vec3& anchor_b) {
  Joint j;
  j.name = name;
  j.type = JointType::Ball;
  j.a = a;
  j.b = b;
  j.anchor_a = anchor_a;
  j.anchor_b = anchor_b;
  return j;
}

Model build_model(const std::string& text, const std::string& source, int line) {
  Spec spec = Spec::parse(text, "model", source, line);
  for (const auto& e : model_catalog()) {
    if (e.name != spec.name()) continue;
    spec.check_options(e.options);
    Model m = e.build(spec);
    check_model(m, source);
    return m;
  }
  std::string names;
  std::vector<std::string> list;
  for (const auto& e : model_catalog()) {
    names += (names.empty() ? "" : ", ") + e.name;
    list.push_back(e.name);
  }
  throw InputError(source, line, "model",
                   fmt::format("unknown model '{}'{}; known models: {} (or a path to a .toml scene, .urdf or MJCF .xml file)",
                               spec.name(), did_you_mean(spec.name(), list), names));
}

}  // namespace mb
