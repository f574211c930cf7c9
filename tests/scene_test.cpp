// Scene files: every catalog model round-trips exactly; every kind of bad input names the file,
// the line and the field.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <random>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"
#include "models/catalog.hpp"
#include "models/formats/scene.hpp"
#include "models/formats/scene_lexer.hpp"
#include "models/formats/scene_split.hpp"
#include "model_compare.hpp"

namespace {

// every field, bit for bit
void require_same(const mb::Model& a, const mb::Model& b) { mbtest::require_same_model(a, b); }


}  // namespace

TEST_CASE("every catalog model round-trips through a scene file bit for bit", "[scene]") {
  std::vector<std::string> specs;
  for (const auto& e : mb::model_catalog()) specs.push_back(e.name);
  specs.push_back("chain:n=7");
  specs.push_back("pendulum:amplitude=45");
  specs.push_back("spring-mass:damping=0.5");
  for (const auto& spec : specs) {
    INFO(spec);
    const mb::Model m = mb::build_model(spec);
    const std::string text = mb::scene_to_toml(m);
    const mb::Model back = mb::parse_scene(text, spec + ".toml");
    require_same(m, back);
    CHECK(mb::scene_to_toml(back) == text);
  }
}

TEST_CASE("a rigid body with a full inertia tensor and every joint type round-trips", "[scene]") {
  mb::Model m = mb::build_model("double-pendulum");
  m.bodies[0].particle = false;
  m.bodies[0].inertia << 2, 0.1, 0, 0.1, 3, 0.2, 0, 0.2, 4;
  m.bodies[0].orientation = mb::Quat(Eigen::AngleAxisd(0.3, mb::Vec3(1, 2, 3).normalized()));
  m.bodies[0].angular_velocity = mb::Vec3(0.1, -0.2, 0.3);
  m.bodies[0].box = mb::Vec3(0.04, 0.04, 0.1);
  m.joints[1].type = mb::JointType::Hinge;
  m.joints[1].axis_a = mb::Vec3(0, 0, 1);
  m.joints[1].axis_b = mb::Vec3(0, 1, 1);
  mb::Joint f;
  f.name = "weld";
  f.type = mb::JointType::Fixed;
  f.a = 0;
  f.b = 1;
  f.rel_orientation = mb::Quat(Eigen::AngleAxisd(0.5, mb::Vec3::UnitX()));
  m.joints.push_back(f);
  const mb::Model back = mb::parse_scene(mb::scene_to_toml(m), "x.toml");
  require_same(m, back);
  CHECK(back.joints[1].axis_b == m.joints[1].axis_b);
  CHECK(back.joints[2].rel_orientation.coeffs() == m.joints[2].rel_orientation.coeffs());
}

TEST_CASE("bad scene files name the file, the line and the field", "[scene][errors]") {
  struct Case {
    const char* file;
    int line;
    const char* field;
    const char* text;
  };
  const Case cases[] = {
      {"missing_mass.toml", 5, "body[0].mass", "missing required field"},
      {"misspelled_key.toml", 8, "body[0].masss", "unknown field"},
      {"negative_mass.toml", 8, "body[0].mass", "must be positive"},
      {"zero_mass.toml", 8, "body[0].mass", "must be positive"},
      {"nonfinite.toml", 9, "body[0].position", "finite"},
      {"unknown_body.toml", 14, "joint[0].b", "no body named 'm9'"},
      {"zero_length_rod.toml", 15, "joint[0].length", "must be positive"},
      {"non_spd_inertia.toml", 9, "body[0].inertia", "not symmetric positive semi-definite"},
      {"duplicate_body.toml", 12, "body[1].name", "duplicated body name"},
      {"not_toml.toml", 1, "", "not valid TOML"},
  };
  for (const auto& c : cases) {
    INFO(c.file);
    const std::string path = std::string(MBBENCH_TEST_DATA) + "/bad/scenes/" + c.file;
    try {
      mb::read_scene(path);
      FAIL("no error for " << c.file);
    } catch (const mb::InputError& e) {
      CHECK(e.file == path);
      CHECK(e.line == c.line);
      CHECK(e.field == c.field);
      CHECK_THAT(e.what(), Catch::Contains(c.text));
    }
  }
}

TEST_CASE("a missing scene file is an input error", "[scene][errors]") {
  CHECK_THROWS_AS(mb::read_scene("/nonexistent/scene.toml"), mb::InputError);
}

TEST_CASE("export-scene and read back: names with quotes, backslashes, control characters and non-ASCII", "[scene]") {
  mb::Model m = mb::build_model("double-pendulum");
  m.info.name = "pendel \"zwei\" \\ gr\u00fc\u00dfe \u03b8";  // the model name: printable, any UTF-8
  m.bodies[0].name = "m\"1\\\ttab\nnewline\x01" "bell\x7f";      // body names: anything but empty or "world"
  m.bodies[1].name = "\u00e9l\u00e8ve \U0001F600";
  m.joints[0].name = "rod \"a\"\r";
  const std::string text = mb::scene_to_toml(m);
  {  // bytes that are not UTF-8 (an overlong ';', a lead byte past F7, a lone lead) are U+FFFD: written again the same
    mb::Model odd = m;
    odd.joints[1].name = "arm\xc0\xbb \xf9\x80\x80\x80 \xe0\x80\x80 \xc0";
    const std::string once = mb::scene_to_toml(odd);
    CHECK_THAT(once, Catch::Contains("name = \"arm\\uFFFD\\uFFFD \\uFFFD\\uFFFD\\uFFFD\\uFFFD \\uFFFD\\uFFFD\\uFFFD \\uFFFD\""));
    CHECK(mb::scene_to_toml(mb::parse_scene(once, "odd.toml")) == once);
  }
  for (char c : text) CHECK(((c >= 0x20 && c < 0x7f) || c == '\n'));  // ASCII, no raw control character
  const mb::Model back = mb::parse_scene(text, "roundtrip.toml");
  CHECK(back.info.name == m.info.name);
  CHECK(back.bodies[0].name == m.bodies[0].name);
  CHECK(back.bodies[1].name == m.bodies[1].name);
  CHECK(back.joints[0].name == m.joints[0].name);
  CHECK(mb::scene_to_toml(back) == text);
}

TEST_CASE("scene loading is linear in the bodies: a chain of 20000 bodies loads", "[scene][large]") {
  mb::ChainParams p;
  p.n = 20000;
  const mb::Model m = mb::make_chain(p, "long-chain");
  const std::string text = mb::scene_to_toml(m);
  const mb::Model back = mb::parse_scene(text, "long.toml");
  CHECK(back.bodies.size() == 20000);
  CHECK(back.joints.size() == 20000);
  CHECK(back.joints.back().b == 19999);
}

namespace {
// 1-based line of the first occurrence of `what` in `text`
int line_of(const std::string& text, const std::string& what) {
  const size_t pos = text.find(what);
  REQUIRE(pos != std::string::npos);
  return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(pos), '\n'));
}
}  // namespace

TEST_CASE("a large scene read in parts: the same model, errors at their file line, the whole file when a split could mislead",
          "[scene][large]") {
  mb::ChainParams p;
  p.n = 10000;  // more than two parts of 4096 tables
  const mb::Model m = mb::make_chain(p, "long-chain");
  const std::string text = mb::scene_to_toml(m);
  // read in parts, the model writes back to the same text
  CHECK(mb::scene_to_toml(mb::parse_scene(text, "long.toml")) == text);
  // an error deep in a later part names its line in the file
  {
    std::string bad = text;
    const std::string body = "name = \"m9000\"\ntype = \"particle\"\nmass = 1.0";
    const size_t at = bad.find(body);
    REQUIRE(at != std::string::npos);
    bad.replace(at, body.size(), "name = \"m9000\"\ntype = \"particle\"\nmass = -1.0");
    try {
      mb::parse_scene(bad, "long.toml");
      FAIL("a negative mass was accepted");
    } catch (const mb::InputError& e) {
      const std::string msg = e.what();
      CHECK_THAT(msg, Catch::Contains("long.toml:" + std::to_string(line_of(bad, "mass = -1.0"))));
      CHECK_THAT(msg, Catch::Contains("body[8999].mass"));
    }
  }
  // a header line inside a multi-line string of the head: the whole file is parsed (the string kept)
  {
    std::string odd = text;
    const std::string desc = "description = \"";
    const size_t at = odd.find(desc);
    REQUIRE(at != std::string::npos);
    odd.insert(at, "source_note_unused = 0\n");  // an unknown key: reported by the whole-file read
    CHECK_THROWS_WITH(mb::parse_scene(odd, "long.toml"), Catch::Contains("source_note_unused"));
    std::string quoted = text;
    quoted.replace(quoted.find(desc), desc.size(), "description = \"\"\"\n[[body]]\nname = \"not a body\"\n\"\"\"\nx_description = \"");
    quoted.replace(quoted.find("x_description"), std::string("x_description").size(), "description2");
    // description2 is not a model field: the error comes from reading the whole file, at its line
    CHECK_THROWS_WITH(mb::parse_scene(quoted, "long.toml"),
                      Catch::Contains("long.toml:" + std::to_string(line_of(quoted, "description2"))) && Catch::Contains("model.description2"));
  }
  // a body after the joints: read whole, the same model
  {
    std::string moved = text;
    const size_t b0 = moved.find("[[body]]\nname = \"m10000\"");
    const size_t j0 = moved.find("[[joint]]");
    REQUIRE(b0 < j0);
    const std::string last_body = moved.substr(b0, j0 - b0);
    moved.erase(b0, j0 - b0);
    moved += "\n" + last_body;
    const mb::Model back = mb::parse_scene(moved, "long.toml");
    CHECK(back.bodies.size() == 10000);
    CHECK(back.bodies.back().name == "m10000");
    CHECK(back.joints.back().b == 9999);
  }
}

namespace {
// the model, or the error, of `text` read one way
std::string outcome(const std::string& text, mb::SceneParse how) {
  try {
    return mb::scene_to_toml(mb::parse_scene(text, "s.toml", how));
  } catch (const mb::InputError& e) {
    return std::string("error: ") + e.what() + " | line " + std::to_string(e.line) + " | field " + e.field;
  }
}
void require_same_outcome(const std::string& text) {
  const std::string whole = outcome(text, mb::SceneParse::toml_whole);
  CHECK(outcome(text, mb::SceneParse::lines) == whole);
  CHECK(outcome(text, mb::SceneParse::toml_parts) == whole);
}
// true when the line reader reads every part of `text` (no part goes to toml++)
bool lines_read_all(const std::string& text) {
  const std::vector<mb::ScenePart> parts = mb::split_scene(text);
  mb::LexedPart lexed;
  for (size_t k = 1; k < parts.size(); ++k)
    if (!mb::lex_part(parts[k].text, parts[k].line_offset, lexed)) return false;
  return parts.size() > 1;
}
}  // namespace

TEST_CASE("the line reader and toml++ read every catalog scene to the same model", "[scene]") {
  for (const auto& e : mb::model_catalog()) {
    INFO(e.name);
    const mb::Model m = mb::build_model(e.name);
    const std::string text = mb::scene_to_toml(m);
    const mb::Model fast = mb::parse_scene(text, "s.toml", mb::SceneParse::lines);
    require_same(fast, mb::parse_scene(text, "s.toml", mb::SceneParse::toml_whole));
    CHECK(mb::scene_to_toml(fast) == text);
    if (m.shapes.empty() && m.materials.empty() && m.rolling.empty()) CHECK(lines_read_all(text));  // contact and rolling scenes go to toml++
  }
}

TEST_CASE("the line reader reads the TOML it understands as toml++ does", "[scene]") {
  const std::string head = "[model]\nname = \"x\"\ngravity = [0.0, -9.81, 0.0]\n";
  const std::string text = head +
                           "\n# a comment\n  [[body]]   # the first\r\nname = \"a\"\r\ntype=\"rigid\"\nmass = 2   # kg\n"
                           "inertia = [[2, 0.1, 0.0], [0.1, 3.0, 0], [0.0, 0, 4e0],]\n"
                           "position = [ +1.5 , -0.0, 1E-3 ]\norientation = [1, 0, 0, 0]\nvelocity = [0.1, 2.5e+1, -3.25e-2]\n"
                           "\t\n[[body]]\nname = \"b c\"\ntype = \"particle\"\nmass = 0.30000000000000004\nposition = [1.5, -1.0, 0.001]\n"
                           "[[joint]]\ntype = \"ball\"\na = \"world\"\nb = \"a\"\nanchor_a = [1.5, 0.0, 0.001]\n"
                           "[[joint]]\nname = \"rod\"\ntype = \"distance\"\na = \"a\"\nb = \"b c\"\nlength = 1.0\n"
                           "[[torque]]\nbody = \"a\"\ntorque = [0, 0, 1]\nt_begin = 0\nt_end = 0.5\n"
                           "[[spring]]\na = \"a\"\nb = \"b c\"\nstiffness = 100\nrest_length = 1\ndamping = 0.5\n";
  REQUIRE(lines_read_all(text));
  require_same_outcome(text);
  const mb::Model m = mb::parse_scene(text, "s.toml");
  CHECK(m.bodies[0].mass == 2.0);
  CHECK(m.bodies[0].inertia(1, 0) == 0.1);
  CHECK(std::signbit(m.bodies[0].position.y()));
  CHECK(m.bodies[0].velocity.y() == 25.0);
  CHECK(m.bodies[1].mass == 0.30000000000000004);
  CHECK(m.joints[0].name == "joint1");
  CHECK(m.loads[0].t_end == 0.5);
  CHECK(m.springs[0].damping == 0.5);
  // what it does not read goes to toml++, with the same result
  for (const char* other : {"name = 'c'", "name = \"c\\u0041\"", "name = \"\"\"c\"\"\"", "mass = 1_000.0",
                                   "mass = inf", "mass = 0x10", "mass = 1e400", "mass = 12345678901234567890",
                                   "position = [1.5,\n -1.0, 0.001]", "when = 1979-05-27", "v.x = 1.0", "\"name\" = \"c\"",
                                   "box = {x = 1}", "mass = 1.0\nmass = 2.0", "mass = 01.5", "mass = 1.", "mass = .5",
                                   "[body.extra]", "[[material]]", "position = [[[1.0]]]", "mass = 1.0 2.0", "mass = 1.0\r2.0"}) {
    INFO(other);
    const std::string t = head + "[[body]]\nname = \"a\"\ntype = \"particle\"\nmass = 1.0\nposition = [0.0, 0.0, 0.0]\n" +
                          "[[body]]\n" + other + "\n";
    CHECK_FALSE(lines_read_all(t));
    require_same_outcome(t);
  }
}

TEST_CASE("the line reader's decimals are toml++'s to the bit: 1 to 18 digits with and without exponents", "[scene]") {
  // short decimals take an exact division (Clinger's fast path), the rest std::from_chars; a
  // rounding of either that differs from toml++'s shows as a position that differs in a bit
  std::mt19937_64 rng(45);
  const auto pick = [&](int n) { return static_cast<int>(rng() % static_cast<unsigned>(n)); };
  std::string text = "[model]\nname = \"x\"\ngravity = [0.0, -9.81, 0.0]\n";
  std::vector<std::string> written;
  for (int i = 0; i < 1500; ++i) {
    std::string number[3];
    for (std::string& x : number) {
      const int digits = 1 + pick(18);
      const int whole = 1 + pick(digits);  // digits before the point
      if (pick(2)) x += '-';
      for (int d = 0; d < digits; ++d) {
        if (d == whole) x += '.';
        x += static_cast<char>('0' + (d == 0 && whole > 1 ? 1 + pick(9) : pick(10)));
      }
      if (whole == digits) x += ".5";
      if (pick(8) == 0) {
        x += 'e';
        x += std::to_string(pick(41) - 20);
      }
      written.push_back(x);
    }
    text += "[[body]]\nname = \"b" + std::to_string(i) + "\"\ntype = \"particle\"\nmass = 1.0\nposition = [" + number[0] + ", " +
            number[1] + ", " + number[2] + "]\n";
  }
  REQUIRE(lines_read_all(text));
  const mb::Model fast = mb::parse_scene(text, "s.toml", mb::SceneParse::lines);
  const mb::Model whole = mb::parse_scene(text, "s.toml", mb::SceneParse::toml_whole);
  REQUIRE(fast.bodies.size() == whole.bodies.size());
  int differ = 0;
  for (size_t i = 0; i < fast.bodies.size(); ++i)
    for (int k = 0; k < 3; ++k) {
      const double a = fast.bodies[i].position[k], b = whole.bodies[i].position[k];
      if (std::memcmp(&a, &b, sizeof a) != 0) {
        ++differ;
        UNSCOPED_INFO(written[3 * i + static_cast<size_t>(k)] << ": " << a << " vs " << b);
      }
    }
  CHECK(differ == 0);
}

TEST_CASE("the line reader gives toml++'s error for every bad table", "[scene][errors]") {
  // a chain of three particles, then one line replaced (its first occurrence)
  mb::ChainParams p;
  p.n = 3;
  const std::string text = mb::scene_to_toml(mb::make_chain(p, "c"));
  const std::vector<std::pair<std::string, std::string>> edits = {
      {"mass = 1.0", "mass = \"1\""},          {"mass = 1.0", "mass = -1"},
      {"mass = 1.0", "masss = 1.0"},           {"mass = 1.0", "zeta = 1\nalpha = 2"},
      {"mass = 1.0", "# no mass"},             {"mass = 1.0", "mass = [1.0]"},
      {"mass = 1.0", "mass = true"},           {"mass = 1.0", "mass = 1.0\nstatic = 1"},
      {"mass = 1.0", "mass = 1.0\ninertia = [1.0, 1.0, 1.0]"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = [[1.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = [1.0, 1.0]"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = [[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]]"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = [\"a\", 1.0, 1.0]"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = 1.0"},
      {"type = \"particle\"", "type = \"rigid\"\ninertia = [1.0, 1.0, 1.0]\norientation = [1.0, 0.5, 0.0, 0.0]"},
      {"type = \"particle\"", "type = \"shell\""},
      {"type = \"particle\"", "type = 3"},
      {"position = [2.0, 0.0, 0.0]", "position = [2.0, 0.0]"},
      {"position = [2.0, 0.0, 0.0]", "position = [2.0, \"x\", 0.0]"},
      {"name = \"m2\"", "name = \"m1\""},
      {"name = \"m2\"", "name = \"world\""},
      {"length = 1.0", "length = 2.0"},
      {"length = 1.0", "length = 1.0\nextensibility = -1.0"},
      {"type = \"distance\"", "type = \"rope\""},
      {"type = \"distance\"", "type = \"hinge\"\naxis_a = [0.0, 0.0, 0.0]"},
      {"a = \"world\"", "a = \"nobody\""},
      {"a = \"world\"", "a = \"m1\""},
      {"anchor_a = [0.0, 0.0, 0.0]", "anchor_a = 0.0"},
  };
  for (const auto& [from, to] : edits) {
    INFO(from << " -> " << to);
    std::string bad = text;
    const size_t at = bad.find(from);
    REQUIRE(at != std::string::npos);
    bad.replace(at, from.size(), to);
    const std::string whole = outcome(bad, mb::SceneParse::toml_whole);
    CHECK_THAT(whole, Catch::StartsWith("error: "));
    CHECK(outcome(bad, mb::SceneParse::lines) == whole);
  }
}

TEST_CASE("every bad scene file gives the same error through the line reader and through toml++", "[scene][errors]") {
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(std::string(MBBENCH_TEST_DATA) + "/bad/scenes")) {
    INFO(e.path().string());
    std::ifstream in(e.path(), std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string whole = outcome(ss.str(), mb::SceneParse::toml_whole);
    CHECK_THAT(whole, Catch::StartsWith("error: "));
    CHECK(outcome(ss.str(), mb::SceneParse::lines) == whole);
    ++files;
  }
  CHECK(files > 40);
}
