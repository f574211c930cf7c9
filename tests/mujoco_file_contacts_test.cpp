// `mujoco:contacts=file` (docs/peers.md): an MJCF model stepped with the file's own contact model
// (its geoms' contype/conaffinity, condim, friction, solref, solimp, its <pair>s and <exclude>s,
// its <option> cone and solver) instead of our explicit pairs for every two shapes our detector
// tests. The test files (tests/data/mjcf/file_contacts.xml, incline.xml) differ between the two
// contact models by construction; the file's contact model is also stepped natively by MuJoCo from
// the same file, and the adapter follows it.
#include <catch2/catch.hpp>

#include <cmath>
#include <memory>
#include <string>

#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/formats/mjcf.hpp"
#include "test_util.hpp"

#ifdef MBBENCH_WITH_MUJOCO
#include <mujoco/mujoco.h>
#endif

namespace {

const std::string kData = std::string(MBBENCH_TEST_DATA) + "/mjcf/";

double z_of(const mb::Model& m, const mb::State& s, const std::string& body) { return s.bodies[static_cast<size_t>(m.body_index(body))].x.z(); }

bool ready() { return mb::mjcf_supported() && mbtest::peer_built("mujoco"); }

}  // namespace

TEST_CASE("mujoco file contacts: the importer keeps the file's contact model", "[mujoco-file][mjcf]") {
  if (!mb::mjcf_supported()) return;
  const mb::Model m = mb::load_model(kData + "file_contacts.xml");
  const mb::MjcfContacts& c = m.mjcf_contacts;
  REQUIRE(c.present);
  // the pair-only geom is a shape too (it collides in the file)
  REQUIRE(m.shapes.size() == 5);
  REQUIRE(c.shapes.size() == m.shapes.size());
  CHECK(c.shapes[2].contype == 2);
  CHECK(c.shapes[2].conaffinity == 2);
  CHECK(c.shapes[4].contype == 0);
  REQUIRE(c.pairs.size() == 1);
  CHECK(((c.pairs[0].shape1 == 0 && c.pairs[0].shape2 == 4) || (c.pairs[0].shape1 == 4 && c.pairs[0].shape2 == 0)));
  REQUIRE(c.excludes.size() == 1);
  const int excluded = m.body_index("excluded");
  CHECK(((c.excludes[0][0] == mb::kWorld && c.excludes[0][1] == excluded) || (c.excludes[0][1] == mb::kWorld && c.excludes[0][0] == excluded)));
  CHECK(c.cone == "pyramidal");
  const mb::Model incline = mb::load_model(kData + "incline.xml");
  CHECK(incline.mjcf_contacts.cone == "elliptic");
  REQUIRE(incline.mjcf_contacts.pairs.size() == 1);
  CHECK(incline.mjcf_contacts.pairs[0].condim == 1);
  // frames=light adds bodies the file has not
  CHECK_FALSE(mb::load_model(kData + "ankle.xml:frames=light").mjcf_contacts.present);
}

TEST_CASE("mujoco file contacts: contype/conaffinity, <exclude> and <pair> decide who rests on the floor", "[mujoco-file]") {
  if (!ready()) return;
  const mb::Model m = mb::load_model(kData + "file_contacts.xml");
  const mb::State ours = mbtest::simulate(m, "mujoco:integrator=euler", 0.002, 1.0);
  const mb::State file = mbtest::simulate(m, "mujoco:integrator=euler,contacts=file", 0.002, 1.0);
  for (const char* b : {"kept", "ghost", "excluded", "paired"}) {
    INFO(b << ": ours z " << z_of(m, ours, b) << ", file z " << z_of(m, file, b));
    CHECK(std::abs(z_of(m, ours, b) - 0.1) < 0.01);  // every sphere rests on the floor
  }
  CHECK(std::abs(z_of(m, file, "kept") - 0.1) < 0.01);
  CHECK(std::abs(z_of(m, file, "paired") - 0.1) < 0.01);
  CHECK(z_of(m, file, "ghost") < -4);  // falls through: 0.3 - g / 2
  CHECK(z_of(m, file, "excluded") < -4);
}

TEST_CASE("mujoco file contacts: a frictionless condim-1 pair slides down the incline, condim 3 holds", "[mujoco-file]") {
  if (!ready()) return;
  const mb::Model m = mb::load_model(kData + "incline.xml");
  const mb::State s0 = mb::initial_state(m);
  auto moved = [&](const mb::State& s, const std::string& b) {
    const size_t i = static_cast<size_t>(m.body_index(b));
    return (s.bodies[i].x - s0.bodies[i].x).norm();
  };
  const mb::State ours = mbtest::simulate(m, "mujoco:integrator=euler", 0.002, 1.0);
  const mb::State file = mbtest::simulate(m, "mujoco:integrator=euler,contacts=file", 0.002, 1.0);
  INFO("ours: grip " << moved(ours, "grip") << " m, slick " << moved(ours, "slick") << " m; file: grip " << moved(file, "grip") << " m, slick "
                     << moved(file, "slick") << " m");
  CHECK(moved(ours, "grip") < 0.02);
  CHECK(moved(ours, "slick") < 0.02);  // ours: friction 1 in every pair
  CHECK(moved(file, "grip") < 0.02);
  // frictionless: g sin 20 deg t^2 / 2 = 1.68 m
  CHECK(moved(file, "slick") > 1.5);
}

#ifdef MBBENCH_WITH_MUJOCO
TEST_CASE("mujoco file contacts: the adapter follows MuJoCo stepping the file itself", "[mujoco-file]") {
  if (!ready()) return;
  for (const std::string name : {"file_contacts.xml", "incline.xml"}) {
    for (const bool rk4 : {false, true}) {
      INFO(name << (rk4 ? ", RK4" : ", Euler"));
      const std::string path = kData + name;
      const mb::Model m = mb::load_model(path);
      const double h = 0.002, t = 1.0;
      const mb::State ours = mbtest::simulate(m, rk4 ? "mujoco:contacts=file" : "mujoco:integrator=euler,contacts=file", h, t);
      char err[1000] = "";
      const std::unique_ptr<mjModel, void (*)(mjModel*)> nm(mj_loadXML(path.c_str(), nullptr, err, sizeof err), mj_deleteModel);
      REQUIRE(nm);
      const std::unique_ptr<mjData, void (*)(mjData*)> nd(mj_makeData(nm.get()), mj_deleteData);
      nm->opt.timestep = h;
      nm->opt.integrator = rk4 ? mjINT_RK4 : mjINT_EULER;
      for (long k = 0; k < std::lround(t / h); ++k) mj_step(nm.get(), nd.get());
      mj_kinematics(nm.get(), nd.get());
      double gap = 0;
      for (size_t i = 0; i < m.bodies.size(); ++i) {
        const int b = mj_name2id(nm.get(), mjOBJ_BODY, m.bodies[i].name.c_str());
        REQUIRE(b >= 0);
        const mjtNum* x = nd->xipos + 3 * b;
        gap = std::max(gap, (ours.bodies[i].x - mb::Vec3(x[0], x[1], x[2])).norm());
      }
      WARN(name << (rk4 ? ", RK4" : ", Euler") << ": mujoco:contacts=file against MuJoCo on the file, 1 s at 2 ms: largest body distance " << gap << " m");
      CHECK(gap < 1e-6);
    }
  }
}
#endif

TEST_CASE("mujoco file contacts: a model not read from MJCF refuses contacts=file, naming it", "[mujoco-file]") {
  if (!mbtest::peer_built("mujoco")) return;
  const mb::Model m = mb::load_model("bouncing-ball");
  REQUIRE_FALSE(m.shapes.empty());
  auto meth = mb::make_method("mujoco:contacts=file");
  mb::State s = mb::initial_state(m);
  CHECK_THROWS_WITH(meth->init(m, s), Catch::Contains("contacts=file") && Catch::Contains("not read from MJCF"));
  if (!mb::mjcf_supported()) return;
  const mb::Model light = mb::load_model(kData + "ankle.xml:frames=light");
  mb::State ls = mb::initial_state(light);
  CHECK_THROWS_AS(mb::make_method("mujoco:contacts=file")->init(light, ls), mb::UnsupportedModel);
  CHECK_THROWS_WITH(mb::make_method("mujoco:contacts=fil"), Catch::Contains("contacts"));
}
