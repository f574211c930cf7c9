// Method plugins (methods/plugin.hpp) and the install (cmake/install.cmake):
//   - a plugin the loader refuses (wrong ABI version, no entry point, a name taken or given twice
//     or malformed, a registration that throws, a file that is no shared library) is an InputError
//     naming the file, and none of its methods is registered;
//   - the CLI says so with exit code 2, for --plugin and MBBENCH_PLUGINS;
//   - `gate --against OTHER` times the plugin's methods in both builds (OTHER's children load the
//     same plugins), gates their accuracy against the baseline, and exits 2 naming a plugin file
//     either build cannot load;
//   - [full]: this build installed to a temporary prefix, examples/plugin built against it with
//     find_package(mbbench) (mbbench::headers: no code of the library in the plugin), and its
//     method run, listed, recorded and conformance-checked by the installed mbbench, which also
//     finds its installed data; its method takes the same instructions per step (within 1 %) as
//     the same source built in; examples/program linked with mbbench::mbbench runs pendulum10
//     and its metrics are those `mbbench run` records.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "core/error.hpp"
#include "gate/gate.hpp"
#include "methods/plugin.hpp"

namespace fs = std::filesystem;

namespace {

// valgrind cannot run a binary built with AddressSanitizer
#if defined(__SANITIZE_ADDRESS__)
constexpr bool kAsan = true;
#else
constexpr bool kAsan = false;
#endif

std::string test_plugin(const std::string& kind) { return std::string(MBBENCH_TEST_PLUGINS) + "/libtest_plugin_" + kind + ".so"; }

// the first line of `text` that holds every one of `parts` ("" when none does)
std::string line_with(const std::string& text, std::initializer_list<std::string> parts) {
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (std::all_of(parts.begin(), parts.end(), [&](const std::string& p) { return line.find(p) != std::string::npos; })) return line;
  return "";
}

std::vector<std::string> words(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> w;
  for (std::string x; in >> x;) w.push_back(x);
  return w;
}

std::string refusal(const std::string& file) {
  try {
    mb::load_plugins({file});
  } catch (const mb::InputError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("plugin: a refused plugin is an InputError naming its file and registers nothing", "[plugin]") {
  const size_t before = mb::method_registry().size();
  const std::pair<const char*, const char*> cases[] = {
      {"abi", "plugin ABI version 3, this mbbench takes 2"},
      {"none", "no entry point `mbbench_plugin`"},
      {"clash", "method 'GC4' clashes with a built-in method"},
      {"twice", "method 'test-plugin-a' is registered twice"},
      {"badname", "method name 'test plugin:b' is not a spec name"},
      {"throws", "its registration function threw: the plugin cannot start"},
  };
  for (const auto& [kind, why] : cases) {
    const std::string file = test_plugin(kind);
    INFO(file);
    REQUIRE(fs::exists(file));
    const std::string what = refusal(file);
    CHECK_THAT(what, Catch::Contains(file) && Catch::Contains(why));
    CHECK(mb::find_method("test-plugin-a") == nullptr);
  }
  const fs::path d = mbtest::temp_dir("plugin_refused");
  std::ofstream(d / "text.so") << "not a shared library\n";
  CHECK_THAT(refusal((d / "text.so").string()), Catch::Contains("text.so") && Catch::Contains("cannot load the shared library"));
  CHECK_THAT(refusal((d / "absent.so").string()), Catch::Contains("absent.so") && Catch::Contains("no such file"));
  CHECK(mb::method_registry().size() == before);
  CHECK(mb::loaded_plugins().empty());
  fs::remove_all(d);
}

TEST_CASE("plugin: the CLI refuses a bad plugin by name with exit code 2", "[plugin][cli]") {
  const std::string clash = test_plugin("clash");
  auto r = mbtest::run_cli("run pendulum10 GC4 --duration 0.1 --plugin " + clash);
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains(clash) && Catch::Contains("clashes with a built-in method"));
  r = mbtest::run_command("MBBENCH_PLUGINS=" + test_plugin("abi") + " " + MBBENCH_EXE + " list methods");
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains(test_plugin("abi")) && Catch::Contains("ABI version"));
  r = mbtest::run_cli("conformance");
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("--plugin"));
}

TEST_CASE("plugin: gate --against times the plugin's method in both builds and gates its accuracy", "[plugin][gate]") {
  const fs::path d = mbtest::temp_dir("plugin_gate_ab");
  const std::string plugin = MBBENCH_EXAMPLE_PLUGIN, exe = MBBENCH_EXE, baseline = (d / "gate.json").string();
  // OTHER builds as scripts around this one: one that loads what MBBENCH_PLUGINS names, one that
  // loads no plugin, one that is also given a file that does not exist
  const fs::path missing = d / "gone.so";
  auto other = [&](const std::string& name, const std::string& env) {
    const fs::path f = d / name;
    std::ofstream(f) << "#!/bin/sh\n" << env << "exec " << exe << " \"$@\"\n";
    fs::permissions(f, fs::perms::owner_all);
    return f.string();
  };
  const std::string same = other("same", ""), bare = other("bare", "unset MBBENCH_PLUGINS\n"),
                    broken = other("broken", "MBBENCH_PLUGINS=\"$MBBENCH_PLUGINS:" + missing.string() + "\"; export MBBENCH_PLUGINS\n");
  const std::string gate = exe + " gate --baseline " + baseline + " --plugin " + plugin +
                           " --methods euler --models pendulum10 --h 0.01 --duration 1 --timing-reps 3 --quiet";
  auto r = mbtest::run_command(gate + " --timing-joints none --update");
  INFO(r.output);
  REQUIRE(r.code == 0);

  // euler timed by this build and by OTHER (which has it only from the plugin), its accuracy
  // cases compared with the baseline's
  r = mbtest::run_command(gate + " --timing-joints 15 --against " + same);
  INFO(r.output);
  CHECK(r.code == 0);
  const std::string timed = line_with(r.output, {"time A/B", "euler tree:joints=15"});
  const std::vector<std::string> w = words(timed);  // time A/B euler tree:joints=15 OTHER ms THIS ms ...
  REQUIRE(w.size() >= 8);
  CHECK((std::stod(w[4]) > 0 && w[5] == "ms" && std::stod(w[6]) > 0 && w[7] == "ms"));
  CHECK_THAT(timed, Catch::Contains(" ok (") || Catch::Contains(" faster ("));
  CHECK_THAT(r.output, Catch::Contains("time A/B against " + same + " (1 tests)") && Catch::Contains("gate: passed"));

  // a worse accuracy value of euler in the baseline's place (ED halved) is a regression named by
  // the plugin's method; OTHER without the plugin does not have euler: not compared
  std::ifstream in(baseline);
  nlohmann::json b = nlohmann::json::parse(in);
  in.close();
  for (auto& c : b.at("cases"))
    if (c.at("method") == "euler") c.at("metrics").at("ED") = 0.5 * c.at("metrics").at("ED").get<double>();
  std::ofstream(baseline) << b.dump();
  r = mbtest::run_command(gate + " --timing-joints 15 --against " + bare);
  INFO(r.output);
  CHECK(r.code == 1);
  CHECK_THAT(line_with(r.output, {"ED", "pendulum10", "euler"}), Catch::Contains("REGRESSION"));
  CHECK_THAT(line_with(r.output, {"time A/B", "euler tree:joints=15"}), Catch::Contains("not compared (other build: "));

  // a plugin OTHER cannot load, or one this build cannot: exit 2 naming the file, before any case runs
  r = mbtest::run_command(gate + " --timing-joints 15 --against " + broken);
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains("cannot load the plugins") && Catch::Contains(missing.string()) && Catch::Contains("no such file"));
  r = mbtest::run_command(exe + " gate --baseline " + baseline + " --plugin " + missing.string() + " --against " + same);
  CHECK(r.code == 2);
  CHECK_THAT(r.output, Catch::Contains(missing.string()) && Catch::Contains("no such file"));
  fs::remove_all(d);
}

TEST_CASE("plugin: the example builds against the installed mbbench and runs as a plugin", "[plugin][full]") {
  const fs::path d = mbtest::temp_dir("plugin_example");
  const fs::path prefix = d / "prefix", build = d / "build";
  const std::string cmake = MBBENCH_CMAKE;
  const fs::path source = fs::path(MBBENCH_TEST_DATA) / ".." / ".." / "examples" / "plugin";
  auto r = mbtest::run_command(cmake + " --install " + MBBENCH_BUILD_DIR + " --prefix " + prefix.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  for (const char* f : {"bin/mbbench", "lib/libmbbench.a", "include/mbbench/methods/plugin.hpp", "include/mbbench/methods/reduced/aba.hpp",
                        "include/mbbench/sim/run_case.hpp", "lib/cmake/mbbench/mbbenchConfig.cmake",
                        "lib/cmake/mbbench/mbbenchLibraries.cmake", "share/mbbench/results/experiments/schmitt2005.toml",
                        "share/mbbench/results/paper/schmitt2005.toml", "share/mbbench/results/baselines/gate.json"}) {
    INFO(f);
    CHECK(fs::exists(prefix / f));
  }
  r = mbtest::run_command(cmake + " -S " + source.string() + " -B " + build.string() + " -G Ninja -DCMAKE_PREFIX_PATH=" +
                          prefix.string() + " -DCMAKE_CXX_COMPILER=" + MBBENCH_CXX + " -DCMAKE_BUILD_TYPE=" + MBBENCH_BUILD_TYPE +
                          " && " + cmake + " --build " + build.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  const std::string plugin = fs::canonical(build / "libeuler_plugin.so").string();
  const std::string exe = (prefix / "bin" / "mbbench").string();
  // mbbench::headers links no library: the plugin defines none of the library's functions
  r = mbtest::run_command("nm -DC --defined-only " + plugin);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("mbbench_plugin") && !Catch::Contains("mb::make_method") && !Catch::Contains("mb::register_method"));

  // a program linking mbbench::mbbench (libmbbench.a) runs pendulum10 with GC4 itself: the
  // library's run_case gives the metrics `mbbench run` records, bit for bit
  const fs::path program_source = fs::path(MBBENCH_TEST_DATA) / ".." / ".." / "examples" / "program", program = d / "program";
  r = mbtest::run_command(cmake + " -S " + program_source.string() + " -B " + program.string() + " -G Ninja -DCMAKE_PREFIX_PATH=" +
                          prefix.string() + " -DCMAKE_CXX_COMPILER=" + MBBENCH_CXX + " -DCMAKE_BUILD_TYPE=" + MBBENCH_BUILD_TYPE +
                          " && " + cmake + " --build " + program.string());
  INFO(r.output);
  REQUIRE(r.code == 0);
  r = mbtest::run_command("cd " + d.string() + " && " + (program / "run_model").string() + " pendulum10 GC4");
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("status: ok") && Catch::Contains("by hand: last body at ("));
  const fs::path cli_record = d / "cli.json";
  const auto c = mbtest::run_command(exe + " run pendulum10 GC4 --h 0.01 --duration 2 --quiet --out " + cli_record.string());
  REQUIRE(c.code == 0);
  {
    std::ifstream in(cli_record);
    const auto j = nlohmann::json::parse(in);
    for (const char* m : {"ED", "EID", "CD_pos_mean"}) {
      INFO(m);
      CHECK_THAT(r.output, Catch::Contains(fmt::format("{} = {:.17g}\n", m, j.at("metrics").at(m).get<double>())));
    }
  }

  // semi-implicit Euler's positions are Stormer-Verlet's (examples/plugin/euler.cpp): the position
  // error against the reference falls by 4 when h halves (4.3e-5 m at h = 0.01 s)
  double err[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    const fs::path out = d / ("run" + std::to_string(k) + ".json");
    r = mbtest::run_command(exe + " run pendulum10 euler --plugin " + plugin + " --h " + (k ? "0.005" : "0.01") +
                            " --no-round --duration 2 --samples 2 --out " + out.string());
    INFO(r.output);
    REQUIRE(r.code == 0);
    std::ifstream in(out);
    const auto j = nlohmann::json::parse(in);
    CHECK(j.at("provenance").at("plugin") == plugin);
    CHECK(j.at("provenance").at("plugin_version") == "euler-plugin 1.0");
    CHECK(j.at("method").at("order") == 2);
    err[k] = j.at("metrics").at("ref_error_max").get<double>();
  }
  INFO("errors at h = 0.01 and 0.005: " << err[0] << ", " << err[1]);
  CHECK(err[0] < 1e-4);
  CHECK(std::log2(err[0] / err[1]) == Approx(2).margin(0.3));

  r = mbtest::run_command(exe + " list methods --plugin " + plugin);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("euler") && Catch::Contains("plugin " + plugin));
  // the same plugin twice: loaded once
  r = mbtest::run_command("MBBENCH_PLUGINS=" + plugin + " " + exe + " conformance --plugin " + plugin);
  INFO(r.output);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("ok   euler order pendulum90") && Catch::Contains("on 1 method(s), 0 failed"));
  // an experiment names the plugin's method: sweep, report and gate take it
  std::ofstream(d / "euler.toml") << "name = \"plugin-euler\"\nmodels = [\"pendulum10\"]\nmethods = [\"euler\", \"GC4\"]\n"
                                     "h = [0.01, 0.02]\nduration = 1.0\nmetrics = [\"ED\"]\n";
  r = mbtest::run_command(exe + " sweep " + (d / "euler.toml").string() + " --quiet --out " + (d / "sweep").string() + " --plugin " + plugin);
  INFO(r.output);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("4 cases: 4 run now (0 failed)"));
  r = mbtest::run_command(exe + " report " + (d / "sweep" / "records.jsonl").string() + " --out " + (d / "report").string() +
                          " --plugin " + plugin);
  CHECK(r.code == 0);
  const std::string gate = exe + " gate --baseline " + (d / "gate.json").string() + " --plugin " + plugin +
                           " --methods euler --models pendulum10 --h 0.01 --duration 1 --timing-joints none --no-instructions --quiet";
  r = mbtest::run_command(gate + " --update");
  CHECK(r.code == 0);
  r = mbtest::run_command(gate);
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("gate: passed"));
  // the installed data, from a folder without results/
  r = mbtest::run_command("cd " + d.string() + " && " + exe + " gate --which");
  CHECK(r.code == 0);
  CHECK_THAT(r.output, Catch::Contains("baseline: " + (prefix / "share/mbbench/results/baselines/gate.json").string()));

  // the same source built in (euler-builtin) and loaded as this plugin (euler), stepped by one
  // executable (tests/plugins/builtin_example.cpp), take the same instructions per step within 1 %:
  // cachegrind on runs of 8 and 40 steps, whose difference leaves start-up out
  if (mbtest::run_command("command -v valgrind").code != 0 || kAsan) {
    WARN("instructions per step not compared: no valgrind, or a sanitized build");
  } else {
    auto per_step = [&](const std::string& env, const std::string& method) {
      double ir[2] = {0, 0};
      for (int k = 0; k < 2; ++k) {
        const std::string out = (d / ("cg." + method + std::to_string(k))).string();
        const auto c = mbtest::run_command(env + " valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=" + out + " " +
                                           MBBENCH_BUILTIN_EXAMPLE + " steps pendulum10 " + method + (k ? " 40" : " 8"));
        INFO(c.output);
        REQUIRE(c.code == 0);
        std::ifstream in(out);
        const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        ir[k] = mb::parse_cachegrind(text, out).instructions;
      }
      return (ir[1] - ir[0]) / 32;
    };
    const double builtin = per_step("", "euler-builtin"), loaded = per_step("MBBENCH_PLUGINS=" + plugin, "euler");
    INFO("instructions per step on pendulum10: built in " << builtin << ", plugin " << loaded << ", ratio " << loaded / builtin);
    CHECK(builtin > 0);
    CHECK(std::abs(loaded / builtin - 1) < 0.01);
  }
  fs::remove_all(d);
}
