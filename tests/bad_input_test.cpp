// Bad input, table-driven: every file in tests/data/bad/ (scenes, experiments,
// records) and a list of bad command lines, each with the message fragment it must print and the
// exit code (2), through the mbbench binary. Every file must be in the table: a new bad file
// without a row fails the test.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "cli_util.hpp"

namespace fs = std::filesystem;

namespace {

struct Row {
  const char* file;      // under tests/data/bad/ (empty: a command line only)
  const char* args;      // the command; {} is replaced by the file's path, {out} by a temporary folder
  const char* fragment;  // what the output must contain (besides the file's path, when there is a file)
  int line;              // the line the error must name (0: none)
};

const Row kRows[] = {
    // scenes: `mbbench run SCENE GC4`
    {"scenes/bad_body_type.toml", "run {} GC4 --duration 1", "field 'body[0].type': must be \"particle\", \"rigid\" or \"frame\"", 7},
    {"scenes/bad_joint_type.toml", "run {} GC4 --duration 1", "field 'joint[0].type': must be one of", 12},
    {"scenes/duplicate_body.toml", "run {} GC4 --duration 1", "duplicated body name 'm1'", 12},
    {"scenes/duplicate_joint.toml", "run {} GC4 --duration 1", "field 'joint[1].name': duplicated joint name 'rod'", 25},
    {"scenes/joint_default_name_taken.toml", "run {} GC4 --duration 1", "field 'joint[1].name': this joint has no name and its default name 'joint2' is another joint's", 24},
    {"scenes/duplicate_spring.toml", "run {} ref --duration 1", "field 'spring[1].name': duplicated spring name 's'", 19},
    {"scenes/contact_duplicate_shape.toml", "run {} sle --duration 1", "field 'shape[1].name': duplicated shape name 's'", 23},
    {"scenes/contact_duplicate_material.toml", "run {} sle --duration 1", "field 'material[1].name': duplicated material name 'rubber'", 17},
    {"scenes/empty_h_grid.toml", "run {} GC4 --duration 1", "field 'model.h_grid': needs at least one step size", 4},
    // found by the fuzzer (tests/fuzz/scene_fuzz.cpp): toml++ 3.3 asserted, or reached __builtin_unreachable
    {"scenes/fuzz_control_character.toml", "run {} GC4 --duration 1", "not valid TOML: control character U+001F", 1},
    {"scenes/fuzz_non_ascii_whitespace.toml", "run {} GC4 --duration 1", "a non-ASCII character: mbbench reads ASCII TOML files", 58},
    {"scenes/fuzz_table_header_comma.toml", "run {} GC4 --duration 1", "not valid TOML: Error while parsing key", 1},
    {"scenes/gravity_two.toml", "run {} GC4 --duration 1", "field 'model.gravity': expected 3 numbers", 3},
    {"scenes/huge_duration.toml", "run {} GC4", "field 'model.duration': duration 1e+300 s is longer than the limit", 4},
    {"scenes/joint_static_static.toml", "run {} GC4 --duration 1", "two bodies that never move", 20},
    {"scenes/joint_world_static.toml", "run {} GC4 --duration 1", "two bodies that never move", 14},
    {"scenes/missing_mass.toml", "run {} GC4 --duration 1", "field 'body[0].mass': missing required field", 5},
    {"scenes/misspelled_key.toml", "run {} GC4 --duration 1", "field 'body[0].masss': unknown field; did you mean 'mass'?; valid fields", 8},
    {"scenes/model_name_newline.toml", "run {} GC4 --duration 1", "field 'model.name': a model name may not contain a newline", 2},
    {"scenes/negative_mass.toml", "run {} GC4 --duration 1", "field 'body[0].mass': must be positive, got -1", 8},
    {"scenes/contact_negative_friction.toml", "run {} sle --duration 1", "field 'material[0].mu_static': friction coefficient must be >= 0", 14},
    {"scenes/contact_restitution_above_one.toml", "run {} sle --duration 1", "field 'material[0].restitution': restitution must be in [0, 1]", 14},
    {"scenes/contact_zero_radius.toml", "run {} sle --duration 1", "field 'shape[0].radius'", 19},
    {"scenes/contact_half_space_on_body.toml", "run {} sle --duration 1", "field 'shape[0].body': a half-space belongs to the world or a static body", 18},
    {"scenes/contact_size_of_other_type.toml", "run {} sle --duration 1", "field 'shape[0].half_extents': a sphere has no half_extents", 19},
    {"scenes/no_body.toml", "run {} GC4 --duration 1", "a scene needs at least one [[body]]", 0},
    {"scenes/no_model.toml", "run {} GC4 --duration 1", "field 'model': missing required field", 1},
    {"scenes/non_spd_inertia.toml", "run {} GC4 --duration 1", "not symmetric positive semi-definite", 9},
    {"scenes/non_unit_quaternion.toml", "run {} GC4 --duration 1", "not a unit quaternion", 11},
    {"scenes/nonfinite.toml", "run {} GC4 --duration 1", "number must be finite, got nan", 9},
    {"scenes/not_toml.toml", "run {} GC4 --duration 1", "not valid TOML", 1},
    {"scenes/particle_inertia.toml", "run {} GC4 --duration 1", "a particle has no rotational inertia", 9},
    {"scenes/rod_length_mismatch.toml", "run {} GC4 --duration 1", "rod length 3 differs from the initial distance 1", 15},
    {"scenes/self_joint.toml", "run {} GC4 --duration 1", "a joint must connect two different bodies", 14},
    {"scenes/static_negative_mass.toml", "run {} GC4 --duration 1", "a static body never moves and has no mass", 9},
    {"scenes/static_with_mass.toml", "run {} GC4 --duration 1", "a static body never moves and has no mass", 9},
    {"scenes/string_mass.toml", "run {} GC4 --duration 1", "field 'body[0].mass': expected a number, got string", 8},
    {"scenes/tiny_default_h.toml", "run {} GC4", "field 'model.default_h': default_h = 1e-300 s", 4},
    {"scenes/spring_missing_rest_length.toml", "run {} ref --duration 1", "field 'spring[0].rest_length': missing required field", 11},
    {"scenes/spring_negative_stiffness.toml", "run {} ref --duration 1", "field 'spring[0].stiffness': must be non-negative, got -100", 14},
    {"scenes/spring_unknown_body.toml", "run {} ref --duration 1", "field 'spring[0].b': no body named 'm2'; bodies: world, m1", 13},
    {"scenes/torque_reversed.toml", "run {} GC4 --duration 1", "t_end must not precede t_begin", 16},
    {"scenes/unknown_body.toml", "run {} GC4 --duration 1", "no body named 'm9'; bodies: world, m1", 14},
    {"scenes/world_body_name.toml", "run {} GC4 --duration 1", "invalid body name 'world'", 6},
    {"scenes/zero_axis.toml", "run {} GC4 --duration 1", "field 'joint[0].axis_a': axis must be non-zero", 17},
    {"scenes/zero_length_rod.toml", "run {} GC4 --duration 1", "field 'joint[0].length': must be positive, got 0", 15},
    {"scenes/zero_mass.toml", "run {} GC4 --duration 1", "field 'body[0].mass': must be positive, got 0", 8},
    // URDF robots (docs/robots.md): `mbbench run ROBOT.urdf GC4`
    {"urdf/floating_joint.urdf", "run {} GC4 --duration 1", "field 'joint[float].type': a floating joint is not mapped", 0},
    {"urdf/massless_moving_link.urdf", "run {} GC4 --duration 1", "field 'joint[elbow]': the joint-space mass matrix at the initial pose is singular", 0},
    {"urdf/mesh_collision.urdf", "run {}:collisions=primitives GC4 --duration 1", "field 'link[upper].collision[0].geometry': a mesh ('upper.stl') is not mapped", 11},
    {"urdf/mesh_missing.urdf", "run {}:collisions=all GC4 --duration 1",
     "field 'link[upper].collision[0].geometry.mesh': mesh '../../mesh_robot/meshes/nowhere.stl': no such file", 11},
    {"urdf/mesh_unreadable.urdf", "run {}:collisions=all GC4 --duration 1",
     "field 'link[upper].collision[0].geometry.mesh': mesh '../../mesh_robot/meshes/garbage.stl': Assimp cannot read it", 11},
    {"urdf/mesh_empty.urdf", "run {}:collisions=all GC4 --duration 1",
     "field 'link[upper].collision[0].geometry.mesh': mesh '../../mesh_robot/meshes/empty.stl': it has no vertices", 11},
    {"urdf/mesh_flat.urdf", "run {}:collisions=all GC4 --duration 1",
     "field 'link[upper].collision[0].geometry.mesh': mesh 'package://mesh_robot/meshes/flat.stl': it is flat", 11},
    {"urdf/missing_link.urdf", "run {} GC4 --duration 1", "liburdfdom: Failed to build tree: child link [forearm] of joint [elbow] not found", 0},
    {"urdf/mimic_offset.urdf", "run {} sle --duration 1", "field 'joint[ja].mimic.offset': offset 0.3 breaks the mimic at the start", 7},
    {"urdf/nan_mass.urdf", "run {} GC4 --duration 1", "field 'link[upper].inertial.mass': attribute value=\"nan\": numbers must be finite", 11},
    {"urdf/nan_origin.urdf", "run {} GC4 --duration 1", "field 'joint[shoulder].origin': attribute xyz=\"0 nan 1\": numbers must be finite", 8},
    {"urdf/inf_limit.urdf", "run {} GC4 --duration 1", "field 'joint[shoulder].limit': attribute lower=\"-inf\": numbers must be finite", 8},
    {"urdf/free_base_massless_root.urdf", "run {}:base=free GC4 --duration 1",
     "field 'link[base].inertial.mass': base=free: the root link 'base' has mass 0 and an inertia (PyBullet's mark of a fixed base)", 0},
    {"urdf/negative_mass.urdf", "run {} GC4 --duration 1", "field 'link[upper].inertial.mass': mass must be finite and non-negative, got -1", 0},
    {"urdf/non_pd_inertia.urdf", "run {} GC4 --duration 1", "field 'link[upper].inertial.inertia': inertia is not positive definite", 0},
    {"urdf/planar_joint.urdf", "run {} GC4 --duration 1", "field 'joint[slide].type': a planar joint is not mapped", 0},
    {"urdf/two_roots.urdf", "run {}:strict=on GC4 --duration 1", "liburdfdom: Failed to find root link: Two root links found: [base] and [stray]", 0},
    {"urdf/nan_axis.urdf", "run {} GC4 --duration 1", "field 'joint[shoulder].axis': attribute xyz=\"nan 0 1\": numbers must be finite", 9},
    {"urdf/zero_axis.urdf", "run {} GC4 --duration 1", "field 'joint[shoulder].axis': axis must be non-zero, got (0, 0, 0)", 0},
    {"urdf/limit_reversed.urdf", "run {}:strict=on gc-contact --duration 1", "field 'joint[shoulder].limit.lower': lower (1) is above upper (-1)", 0},
    {"urdf/loop_apart.urdf", "run {} GC4 --duration 1", "field 'link[forearm]': not connected to the root link 'base': its joints form a loop apart from the tree", 0},
    // MJCF models (docs/robots.md): `mbbench run MODEL.xml ref`
    {"mjcf/joint_and_equality_same_name.xml", "run {} ref --duration 1", "field 'joint': two joints are named 'j' here", 4},
    {"mjcf/nan_axis.xml", "run {} ref --duration 1", "field 'joint[hinge]': attribute axis=\"nan 0 1\": numbers must be finite", 4},
    {"mjcf/nonlinear_polycoef.xml", "run {} sle --duration 1", "field 'equality.polycoef': equality 'cam': nonlinear polycoef (0 1 0.5 0 0)", 13},
    {"mjcf/nan_position.xml", "run {} ref --duration 1", "field 'body[link]': attribute pos=\"0 nan 0\": numbers must be finite", 3},
    {"mjcf/inf_size.xml", "run {} ref --duration 1", "field 'body[link].geom': attribute size=\"inf\": numbers must be finite", 5},
    {"mjcf/newer_keyword.xml", "run {} ref --duration 1", "does not know the keyword 'implicitfast' (a newer MuJoCo's", 2},
    {"mjcf/unnamed_body_name_taken.xml", "run {} ref --duration 1", "field 'body': two bodies are named 'body2' here", 3},
    // experiments: `mbbench sweep EXPERIMENT`
    {"experiments/bad_choice_option.toml", "sweep {} --out {out}", "option 'solver' of method 'sle': not one of the choices", 3},
    {"experiments/bad_name.toml", "sweep {} --out {out}", "field 'name': must be a non-empty name without '/'", 1},
    {"experiments/empty_h.toml", "sweep {} --out {out}", "field 'h': needs at least one step size", 5},
    {"experiments/fit_same_h.toml", "sweep {} --out {out}", "field 'fit.h2': h1 and h2 must differ", 8},
    {"experiments/h_longer_than_duration.toml", "sweep {} --out {out}", "field 'h[0]': step 100 s is longer than the duration 60 s", 6},
    {"experiments/huge_duration.toml", "sweep {} --out {out}", "duration 1e+300 s is longer than the limit", 2},
    {"experiments/missing_scene.toml", "sweep {} --out {out}", "no scene file", 2},
    {"experiments/overlong_scene_name.toml", "sweep {} --out {out}", "no scene file", 3},
    {"experiments/x_option_unset.toml", "sweep {} --out {out}", "field 'x_option': no method sets the option 'budget'", 5},
    {"experiments/x_option_not_number.toml", "sweep {} --out {out}", "field 'x_option': method 'iterative:adaptive=on' sets adaptive to a value that is not a number", 5},
    {"experiments/negative_duration.toml", "sweep {} --out {out}", "field 'duration': must be positive", 5},
    // agree_err: the method compared with, and the time it is compared over
    {"experiments/agree_missing.toml", "sweep {} --out {out}", "field 'agree_with': metric 'agree_err' needs agree_with = \"METHOD\"", 5},
    {"experiments/agree_unknown_method.toml", "sweep {} --out {out}", "field 'agree_with': unknown method 'NoSuchMethod'", 5},
    {"experiments/agree_time_long.toml", "sweep {} --out {out}", "field 'agree_time': 2 s is not within [h, duration] = [", 6},
    {"experiments/agree_time_negative.toml", "sweep {} --out {out}", "field 'agree_time': must be positive, got -0.1", 6},
    {"experiments/out_of_range_option.toml", "sweep {} --out {out}", "option 'tol_p' of method 'iterative': out of range", 3},
    {"experiments/repeated_h.toml", "sweep {} --out {out}", "field 'h[2]': step size 0.01 listed twice", 5},
    {"experiments/repeated_method.toml", "sweep {} --out {out}", "method 'GC4' listed twice", 3},
    {"experiments/tiny_h.toml", "sweep {} --out {out}", "is 6e+301 steps, more than the limit", 5},
    {"experiments/timing_kind.toml", "sweep {} --out {out}", "field 'kind': this is a timing experiment: use `mbbench bench ", 3},
    // timing experiments: `mbbench bench EXPERIMENT`
    {"experiments/timing_fractional_repetitions.toml", "bench {} --out {out}", "field 'repetitions': must be a whole number in [1, 1000000], got 2.5", 6},
    {"experiments/timing_huge_joints.toml", "bench {} --out {out}", "field 'joints': 1e+300 is not a whole number in [1, 16383]", 4},
    {"experiments/timing_empty_paper.toml", "bench {} --out {out}", "field 'paper': must name a file", 7},
    {"experiments/empty_paper.toml", "sweep {} --out {out}", "field 'paper': must name a file", 2},
    {"experiments/timing_negative_min_time.toml", "bench {} --out {out}", "field 'min_time': must be positive, got -0.1", 6},
    // records: `mbbench report RECORDS`
    {"records/empty_object.jsonl", "report {} --out {out}", "field 'schema_version': missing field", 1},
    {"records/not_json.jsonl", "report {} --out {out}", "not a JSON record", 1},
    {"records/old_schema.jsonl", "report {} --out {out}", "record schema 2 is not this build's 3", 1},
    {"records/truncated_field.jsonl", "report {} --out {out}", "field 'method': missing field", 1},
    // gate histories: `mbbench trend HISTORY`
    {"history/bad_line.jsonl", "trend {} --out {out}", "not a JSON line", 3},
    {"history/negative_value.jsonl", "trend {} --out {out}", "field 'values.instructions GC4 tree:joints=63': expected a number >= 0", 1},
    // files of another kind given as records name what they are and the command that takes them
    {"records/bench.json", "report {} --out {out}", "the raw output of `mbbench bench` (Google Benchmark JSON), not records", 0},
    {"records/bench.json", "table {}", "--timing ", 0},
    {"records/run_out_record.json", "report {} --out {out}", "one record written by `mbbench run --out`", 0},
    {"records/experiment.toml", "report {} --out {out}", "this is a TOML file (an experiment, a scene or published values), not records", 0},
    // command lines
    {"", "run pendulum10 GC4 --h 1e-300", "field 'h': h = 1e-300 s over the duration 60 s", 0},
    {"", "run pendulum10 GC4 --h 1e308", "field 'h': step 1e+308 s is longer than the duration 60 s", 0},
    {"", "run pendulum10 GC4 --h -0.01", "field 'h'", 0},
    {"", "run pendulum10 GC4 --h 0", "field 'h'", 0},
    {"", "run pendulum10 GC4 --duration 1e300", "field 'duration': duration 1e+300 s is longer than the limit", 0},
    {"", "run pendulum10 GC4 --duration 1 --fail-threshold -1", "field 'fail_threshold'", 0},
    {"", "run pendulum10 GC4 --duration 1 --fail-threshold nan", "field 'fail_threshold'", 0},
    {"", "run pendulum10 GC4 --duration 1 --samples 0.5,x", "field 'samples': 'x' is not a number", 0},
    {"", "run pendulum10 GC4 --duration 1 --samples 7", "field 'samples': sample time 7 is outside the run", 0},
    // h rounded to T/k no longer divides the sample time the requested h divides
    {"", "run pendulum10 GC4 --h 0.01 --duration 1 --samples 0.5", "--no-round keeps h = 0.01", 0},
    // more than 10^8 steps: the count, an estimated time, and the flag that runs it anyway
    {"", "run pendulum10 GC4 --h 1e-7", "steps (h = 1e-07 s over 60 s) take about ", 0},
    {"", "run pendulum10 GC4 --h 1e-7", "add --force to run them", 0},
    {"", "run pendulum10 GC4 --duration 1 --agree-with NoSuchMethod", "field 'agree_with': unknown method 'NoSuchMethod'", 0},
    {"", "run pendulum10 GC4 --duration 1 --agree-with ref --agree-time 2", "field 'agree_time': agree_time 2 s must lie in [h, duration]", 0},
    {"", "run pendulum10 NoSuchMethod", "unknown method 'NoSuchMethod'; known methods: GC4", 0},
    {"", "run pendulum10 ref:tolerance=1", "unknown option 'tolerance' for method 'ref'; valid options: tol, stepper", 0},
    {"", "run pendulum10 iterative:max_iter=0", "option 'max_iter' of method 'iterative': out of range", 0},
    {"", "run pendulum10 iterative:max_iter=2.5", "option 'max_iter' of method 'iterative': not an integer", 0},
    {"", "run pendulum10 GC4:", "", 0},
    {"scenes/motor_unknown_joint.toml", "run {} iterative --duration 1", "field 'motor[0].joint': no joint named 'nope'", 28},
    {"scenes/motor_on_ball.toml", "run {} iterative --duration 1", "field 'motor[0].joint': joint 'pivot' is a ball joint; a motor drives a hinge or a slider", 26},
    {"scenes/coupling_ball_joint.toml", "run {} iterative --duration 1", "field 'coupling[0].follows': joint 'jb' is a ball joint; a coupling joins hinges and sliders", 41},
    {"scenes/motor_duplicate_name.toml", "run {} iterative --duration 1", "field 'motor[1].name': duplicated motor name 'drive'", 52},
    {"scenes/motor_two_on_joint.toml", "run {} iterative --duration 1", "field 'motor[1].joint': joint 'pivot' has a motor already ('drive')", 35},
    {"scenes/motor_table_not_increasing.toml", "run {} iterative --duration 1", "field 'motor[0].times': times must increase strictly: time 2 is 0.5, after 1", 31},
    {"scenes/motor_table_nan.toml", "run {} iterative --duration 1", "field 'motor[0].values': number must be finite, got nan", 32},
    {"scenes/motor_bad_mode.toml", "run {} iterative --duration 1", "field 'motor[0].mode': must be \"position\" or \"velocity\", got \"torque\"", 29},
    {"scenes/motor_position_start.toml", "run {} iterative --duration 1", "field 'motor[0].target': a position motor's target at t = 0 is 0.5; it must be 0", 30},
    {"scenes/motor_key_of_other_target.toml", "run {} iterative --duration 1", "field 'motor[0].frequency': a constant target has no frequency", 32},
    {"scenes/motor_zero_max_force.toml", "run {} iterative --duration 1", "field 'motor[0].max_force': must be positive, got 0", 32},
    {"", "run {root}/tests/data/motors/pendulum_motor.toml baraff --duration 1", "baraff does not support motors", 0},
    {"scenes/actuator_ctrlrange.toml", "run {} GC4 --duration 1", "field 'actuator[0].ctrlrange': the low end 1 is above the high end -1", 23},
    {"scenes/actuator_nan_gain.toml", "run {} GC4 --duration 1", "field 'actuator[0].kp': number must be finite, got nan", 23},
    {"scenes/joint_limits_reversed.toml", "run {} gc-contact --duration 1", "field 'joint[0].lower': lower (1) is above upper (-1)", 21},
    {"controls/columns.csv", "run {root}/tests/data/actuators/rotor.toml:ctrl={} GC4 --duration 1",
     "field 'ctrl': a row has 3 columns; the model has 1 actuator(s), so a row is the time and 1 control(s)", 3},
    {"", "run {root}/tests/data/actuators/rotor.toml:ctrl=/nonexistent/u.csv GC4 --duration 1", "field 'model': ctrl=/nonexistent/u.csv: no control file", 0},
    {"", "run {root}/tests/data/actuators/rotor.toml:ctrl=noise:1 GC4 --duration 1", "ctrl=noise:1: expected noise:SEED,SIGMA", 0},
    {"", "run pendulum10:ctrl=hold GC4 --duration 1", "ctrl=hold: the model has no actuators to control", 0},
    {"", "run {root}/tests/data/robots/ur5.urdf:actuate=all:40,x GC4", "actuate=all:40,x: KV 'x' must be a finite number >= 0", 0},
    {"", "run nosuchmodel GC4", "unknown model 'nosuchmodel'", 0},
    {"", "run tests/data/robots/ur5.urdf:base=floating GC4", "option 'base' of model 'tests/data/robots/ur5.urdf': not one of the choices", 0},
    {"", "run tests/data/robots/ur5.urdf:gravity=on GC4", "unknown option 'gravity' for model 'tests/data/robots/ur5.urdf'; valid options: base, collisions, damping, floor, friction, limits, strict", 0},
    {"", "run chain:n=0 GC4", "option 'n' of model 'chain': out of range", 0},
    {"", "run tree:joints=30 GC4", "tree: joints must be 2^k - 1", 0},
    {"", "run pendulum:amplitude=180 GC4", "pendulum amplitude must be in (0, 180) degrees, got 180", 0},
    {"", "run pendulum:amplitude=200 GC4", "option 'amplitude' of model 'pendulum': out of range", 0},
    {"", "run loop:n=8 GC4 --duration 1", "GC4 does not support loops", 0},
    {"", "gate --duration -1 --models none --timing-joints none", "field 'duration': must be positive and finite, got -1", 0},
    {"", "gate --timing-reps 0 --models none --timing-joints none", "field 'timing_reps': must be at least 1", 0},
    {"", "gate --timing-joints 2.5 --models none", "field 'timing_joints': tree sizes are whole numbers in [1, 1e6], got 2.5", 0},
    {"", "bench {root}/results/experiments/bender2007.toml --repetitions -1 --out {out}", "field 'repetitions': must be at least 1", 0},
    {"", "bench {root}/results/experiments/bender2007.toml --max-joints 0 --out {out}", "field 'max_joints': must be at least 1", 0},
    {"", "bench {root}/results/experiments/bender2007.toml --filter nosuchcase --out {out}", "field 'filter': 'nosuchcase' matches none of the", 0},
    {"", "sweep /nonexistent/experiment.toml", "cannot open", 0},
    {"", "sweep results/experiments/schmitt2005.toml --jobs 0", "field 'jobs': must be at least 1", 0},
    {"", "sweep results/experiments/schmitt2005.toml --shard 4/3", "field 'shard': expected k/N with 1 <= k <= N", 0},
    {"", "sweep {root}/results/experiments/bender2007.toml", "this is a timing experiment: use `mbbench bench ", 0},
    {"", "gate --baseline /nonexistent.json --models none --timing-joints none", "no such file; make one with mbbench gate --update", 0},
    {"", "gate --against /nonexistent/mbbench --timing-joints none", "field 'against': '/nonexistent/mbbench' is not an executable", 0},
    {"", "report /nonexistent.jsonl --out /tmp/x", "cannot open records file", 0},
};

std::string replace_all(std::string s, const std::string& from, const std::string& to) {
  for (size_t k = s.find(from); k != std::string::npos; k = s.find(from, k + to.size())) s.replace(k, from.size(), to);
  return s;
}

}  // namespace

TEST_CASE("bad input: every case exits with code 2 and says where and what", "[errors][bad-input]") {
  const fs::path bad = fs::path(MBBENCH_TEST_DATA) / "bad";
  const fs::path out = mbtest::temp_dir("bad_input");
  std::set<std::string> covered;
  for (const Row& r : kRows) {
    const std::string file = r.file[0] ? (bad / r.file).string() : "";
    const std::string root = (fs::path(MBBENCH_TEST_DATA) / ".." / "..").lexically_normal().string();
    std::string args = replace_all(replace_all(replace_all(r.args, "{}", file), "{out}", (out / "o").string()), "{root}", root);
    const auto res = mbtest::run_cli(args);
    INFO(args << "\n" << res.output);
    CHECK(res.code == 2);
    CHECK_THAT(res.output, Catch::Contains("mbbench: error: "));
    CHECK_THAT(res.output, Catch::Contains(r.fragment));
    // a refusal names what works: the methods that take the model, the valid or known names
    if (res.output.find(" does not support ") != std::string::npos)
      CHECK_THAT(res.output, Catch::Contains("methods that claim every feature of this model: "));
    if (res.output.find("unknown ") != std::string::npos)
      CHECK_THAT(res.output, Catch::Contains("valid options: ") || Catch::Contains("valid fields: ") || Catch::Contains("known methods: ") ||
                                 Catch::Contains("known models: ") || Catch::Contains("commands: "));
    if (res.output.find("not one of the choices") != std::string::npos) CHECK_THAT(res.output, Catch::Contains("accepted: one of: "));
    if (!file.empty()) {
      covered.insert(r.file);
      CHECK_THAT(res.output, Catch::Contains(r.line > 0 ? file + ":" + std::to_string(r.line) + ": " : file + ": "));
    }
    CHECK(!fs::exists(out / "o" / "records.jsonl"));  // no case ran
  }
  // every bad file has its row
  for (const auto& e : fs::recursive_directory_iterator(bad)) {
    if (!e.is_regular_file()) continue;
    const std::string rel = e.path().lexically_relative(bad).string();
    INFO("tests/data/bad/" << rel << " has no row in the table");
    CHECK(covered.count(rel) == 1);
  }
  CHECK(sizeof(kRows) / sizeof(kRows[0]) >= 40);
  fs::remove_all(out);
}

TEST_CASE("bad input: an empty paper in an experiment read by a relative name is a field error", "[errors][bad-input]") {
  // found by the experiment fuzz target: `paper = ""` in an experiment whose path has no folder
  // ("exp.toml") made the absolute path of "" and threw std::filesystem's error (exit code 1)
  fs::path dir = mbtest::temp_dir("empty_paper");
  fs::copy_file(fs::path(MBBENCH_TEST_DATA) / "bad" / "experiments" / "empty_paper.toml", dir / "exp.toml");
  const auto res = mbtest::run_command("cd " + dir.string() + " && " + std::string(MBBENCH_EXE) + " sweep exp.toml --out o");
  INFO(res.output);
  CHECK(res.code == 2);
  CHECK_THAT(res.output, Catch::Contains("exp.toml:2: field 'paper': must name a file"));
  fs::remove_all(dir);
}
