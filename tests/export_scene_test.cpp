// export-scene of imported robots: a URDF or MJCF file (with its model options) written as a scene
// file reads back to the same Model, field by field, and our methods give the same metrics and
// states on both, bit for bit; what the scene format cannot hold is refused by name (exit 2).
#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/urdf.hpp"
#include "model_compare.hpp"
#include "records/record.hpp"
#include "sim/run_case.hpp"

namespace fs = std::filesystem;
using nlohmann::json;

namespace {

const std::string kData = MBBENCH_TEST_DATA;

bool imports_built() {
  if (mb::urdf_supported() && mb::mjcf_supported()) return true;
  WARN("URDF or MJCF import is not built (liburdfdom-dev, libmujoco-dev), skipped");
  return false;
}

// the record's metrics and samples of a short run
json numbers(const mb::Model& m, const std::string& method, double h, double duration) {
  mb::RunConfig cfg;
  cfg.h = h;
  cfg.duration = duration;
  const long steps = std::lround(duration / h);
  cfg.samples = {static_cast<double>(steps / 2) * h, duration};
  cfg.ref_error = false;
  const mb::CaseRecord rec = mb::run_case(m, method, cfg);
  INFO(method << ": " << rec.reason);
  REQUIRE(rec.ok());
  const json j = json::parse(mb::record_to_json_line(rec));
  return json{{"metrics", j["metrics"]}, {"samples", j["samples"]}};
}

// spec -> Model -> scene text -> Model: the same Model and the same text again, and the same
// numbers in each method
void round_trip(const std::string& spec, const std::vector<std::string>& methods, double h, double duration) {
  INFO(spec);
  const mb::Model m = mb::load_model(spec);
  const std::string text = mb::scene_to_toml(m);
  const mb::Model back = mb::parse_scene(text, "exported.toml");
  mbtest::require_same_model(m, back);
  CHECK(mb::scene_to_toml(back) == text);
  for (const std::string& method : methods) CHECK(numbers(m, method, h, duration).dump() == numbers(back, method, h, duration).dump());
}

// a table of controls for every actuator of `spec`: a step at 0.02 s
std::string control_table(const std::string& spec, const fs::path& file) {
  const size_t n = mb::load_model(spec).actuators.size();
  std::ofstream out(file);
  out << "time";
  for (size_t i = 0; i < n; ++i) out << ",u" << i;
  out << "\n";
  for (const double t : {0.0, 0.02}) {
    out << t;
    for (size_t i = 0; i < n; ++i) out << "," << (t == 0 ? 0.1 : -0.3) * static_cast<double>(i % 3 + 1);
    out << "\n";
  }
  return file.string();
}

}  // namespace

TEST_CASE("export: URDF robots round-trip to the same Model and the same numbers", "[export][scene][urdf]") {
  if (!imports_built()) return;
  const std::string robots = kData + "/robots/";
  // merged links as named frames, limits, a fixed base
  round_trip(robots + "quadruped.urdf", {"GC4"}, 0.01, 0.05);
  // joint dampers, a servo on every joint held at the start
  round_trip(robots + "ur5.urdf:damping=on,actuate=all:1,0.01,ctrl=hold", {"GC4"}, 0.002, 0.02);
  // a free base on a floor: shapes, a material, a half-space
  round_trip(robots + "quadruped.urdf:base=free,collisions=primitives,floor=on", {"sle"}, 0.005, 0.02);
}

TEST_CASE("export: MJCF robots round-trip to the same Model and the same numbers", "[export][scene][mjcf]") {
  if (!imports_built()) return;
  const std::string mjcf = kData + "/mjcf/";
  round_trip(mjcf + "limits.xml", {"GC4", "gc-contact"}, 0.01, 0.05);
  round_trip(mjcf + "hinge_floor.xml", {"gc-contact", "sle"}, 0.005, 0.05);
  // massless frames, limits, dampers, motors under noise controls, contacts
  round_trip(mjcf + "runner.xml:damping=on,ctrl=noise:3,0.5", {"gc-contact"}, 0.005, 0.02);
  // the frames as light bodies, a sine of the controls
  round_trip(mjcf + "runner.xml:frames=light,ctrl=sine:0.5,4", {"sle"}, 0.005, 0.02);
  // a free base without contacts: every body's exact fall; a table of controls
  const fs::path d = mbtest::temp_dir("export");
  const std::string ant = mjcf + "ant.xml:contacts=off";
  round_trip(ant + ",ctrl=" + control_table(ant, d / "ctrl.csv"), {"GC4"}, 0.01, 0.05);
  // every joint type MuJoCo's compiler gives us, every shape type, a welded body
  round_trip(mjcf + "small.xml:contacts=off", {"GC4"}, 0.01, 0.03);
  round_trip(mjcf + "small.xml:frames=light", {}, 0.01, 0.03);
  fs::remove_all(d);
}

TEST_CASE("export-scene takes any model run takes, and a run of the scene gives the same numbers", "[export][cli]") {
  if (!imports_built()) return;
  const fs::path d = mbtest::temp_dir("export");
  const auto same_run = [&](const std::string& spec, const std::string& method) {
    INFO(spec << " " << method);
    const std::string scene = (d / "s.toml").string();
    const auto e = mbtest::run_cli("export-scene '" + spec + "' -o " + scene);
    INFO(e.output);
    REQUIRE(e.code == 0);
    const std::string args = " " + method + " --h 0.005 --duration 0.05 --samples 0.05 --no-ref --quiet --out ";
    REQUIRE(mbtest::run_cli("run '" + spec + "'" + args + (d / "a.json").string()).code == 0);
    REQUIRE(mbtest::run_cli("run " + scene + args + (d / "b.json").string()).code == 0);
    std::ifstream a(d / "a.json"), b(d / "b.json");
    const json ja = json::parse(a), jb = json::parse(b);
    CHECK(ja["metrics"].dump() == jb["metrics"].dump());
    CHECK(ja["samples"].dump() == jb["samples"].dump());
  };
  same_run(kData + "/robots/quadruped.urdf", "GC4");
  same_run(kData + "/mjcf/hinge_floor.xml:ctrl=zero", "gc-contact");
  // the import's warnings are printed and kept in the scene
  const auto w = mbtest::run_cli("export-scene " + kData + "/mjcf/small.xml -o " + (d / "w.toml").string());
  CHECK(w.code == 0);
  CHECK_THAT(w.output, Catch::Contains("mbbench: warning: ") && Catch::Contains("not in the Model, ignored"));
  CHECK_FALSE(mb::read_scene((d / "w.toml").string()).info.warnings.empty());
  const auto u = mbtest::run_cli("export-scene nosuchmodel -o " + (d / "u.toml").string());
  CHECK(u.code == 2);
  CHECK_THAT(u.output, Catch::Contains("unknown model 'nosuchmodel'"));
  fs::remove_all(d);
}

TEST_CASE("export-scene refuses what a scene cannot hold, naming the field, exit 2", "[export][cli][errors]") {
  if (!imports_built()) return;
  // a position actuator (bias [0, -kp, .]) whose damping term pushes: kv = -1, which a scene's
  // kp and kv >= 0 cannot give
  const fs::path d = mbtest::temp_dir("export");
  const fs::path xml = d / "odd.xml";
  std::ofstream(xml) << R"(<mujoco model="odd-servo">
  <worldbody>
    <body name="arm" pos="0 0 1">
      <joint name="pivot" type="hinge" axis="0 1 0"/>
      <geom type="capsule" fromto="0 0 0 0.5 0 0" size="0.03" contype="0" conaffinity="0"/>
    </body>
  </worldbody>
  <actuator>
    <general name="odd" joint="pivot" gainprm="10" biastype="affine" biasprm="0 -10 1"/>
  </actuator>
</mujoco>
)";
  const fs::path out = d / "odd.toml";
  const auto r = mbtest::run_cli("export-scene " + xml.string() + " -o " + out.string());
  INFO(r.output);
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("field 'actuator[0].bias'") && Catch::Contains("actuator 'odd' is a position actuator") &&
                           Catch::Contains("the scene format cannot hold it"));
  CHECK_FALSE(fs::exists(out));
  fs::remove_all(d);
}

TEST_CASE("scene: controls, light frames, exact motions, named frames and open ranges read back", "[export][scene]") {
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[1].particle = false;
  m.bodies[1].light_frame = true;
  m.bodies[1].inertia = mb::Mat3::Identity() * 0.01;
  m.joints[1].type = mb::JointType::Slider;
  m.joints[1].axis_a = mb::Vec3(1, 0, 0);
  m.joints[1].axis_b = mb::Vec3(0, 1, 0);  // b's side of the axis: kept though a slider's rows use axis_a
  m.info.exact.push_back({1, mb::Vec3(0, -9.81, 0)});
  m.info.frames.push_back({"tip", 1, mb::Vec3(0.1, 0, 0), mb::Quat(Eigen::AngleAxisd(0.4, mb::Vec3::UnitZ()))});
  m.info.frames.push_back({"origin", mb::kWorld, mb::Vec3::Zero(), mb::Quat::Identity()});
  m.info.warnings = {"one \"quoted\" line", "another"};
  mb::Actuator a;
  a.name = "push";
  a.joint = 1;
  a.ctrl_low = -1;           // open above
  a.force_high = 2.5;        // open below
  m.actuators.push_back(a);
  m.control.kind = mb::ControlKind::Table;
  m.control.text = "steps.csv";
  m.control.times = {0, 0.1, 0.25};
  m.control.rows = {{0.5}, {-0.1}, {1e-17}};
  const std::string text = mb::scene_to_toml(m);
  INFO(text);
  const mb::Model back = mb::parse_scene(text, "x.toml");
  mbtest::require_same_model(m, back);
  CHECK(mb::scene_to_toml(back) == text);
  // the toml++ reading of the whole file gives the same
  mbtest::require_same_model(m, mb::parse_scene(text, "x.toml", mb::SceneParse::toml_whole));

  // a control source its text does not give again is refused by name
  m.control = {};
  m.control.kind = mb::ControlKind::Sine;
  m.control.text = "sine:1,2";
  m.control.amplitude = 3;
  CHECK_THROWS_WITH(mb::scene_to_toml(m), Catch::Contains("field 'ctrl'"));
  m.control.amplitude = 1;
  m.control.frequency = 2;
  CHECK(mb::parse_scene(mb::scene_to_toml(m), "x.toml").control.amplitude == 1);

  // bad keys name their line and field
  const auto fails = [](const std::string& scene, const std::string& fragment) {
    INFO(scene);
    CHECK_THROWS_AS(mb::parse_scene(scene, "bad.toml"), mb::InputError);
    CHECK_THROWS_WITH(mb::parse_scene(scene, "bad.toml"), Catch::Contains(fragment));
  };
  const std::string head = "[model]\nname = \"x\"\ngravity = [0.0, -9.81, 0.0]\n";
  const std::string body = "\n[[body]]\nname = \"m\"\ntype = \"particle\"\nmass = 1.0\nposition = [1.0, 0.0, 0.0]\n";
  fails(head + "ctrl = \"sine:1,2\"\n" + body, "the model has no actuators");
  fails(head + "ctrl = \"steps.csv\"\n" + body, "field 'model.ctrl'");
  fails(head + "ctrl_times = [0.0, 0.0]\nctrl_rows = [[1.0], [2.0]]\n" + body, "field 'model.ctrl_times'");
  fails(head + body + "light_frame = true\n", "field 'body[0].light_frame'");
  fails(head + body + "\n[[exact]]\nbody = \"n\"\nacceleration = [0.0, 0.0, 0.0]\n", "field 'exact[0].body'");
  fails(head + body + "\n[[named_frame]]\nname = \"f\"\nbody = \"m\"\norientation = [2.0, 0.0, 0.0, 0.0]\n", "field 'named_frame[0].orientation'");
}
