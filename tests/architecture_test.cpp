// The architecture's rules, checked on the source tree (docs/architecture.md):
//   - no method name in C++ outside methods/ and tests/: every stage asks the registry;
//   - no metric name as a string literal outside metrics/ and tests/: every stage uses the
//     metric registry's constants (metrics/registry.hpp) or asks it;
//   - one direction of dependency: a stage includes only the stages before it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include "methods/method.hpp"
#include "metrics/registry.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(MBBENCH_TEST_DATA) / ".." / "..";

// the stages, in order; a stage may include itself and any stage to its left (core first)
const std::vector<std::string> kStages = {"core",     "records",     "models", "methods", "metrics", "sim",    "bench",
                                          "analysis", "experiments", "sweep",  "report",  "gate",    "runners"};

std::vector<fs::path> sources(const std::string& folder) {
  std::vector<fs::path> v;
  if (!fs::exists(kRoot / folder)) return v;
  for (const auto& e : fs::recursive_directory_iterator(kRoot / folder))
    if (e.is_regular_file() && (e.path().extension() == ".cpp" || e.path().extension() == ".hpp")) v.push_back(e.path());
  return v;
}

// the file without its comments (// to the end of the line)
std::string code_of(const fs::path& p) {
  std::ifstream in(p);
  std::string out, line;
  while (std::getline(in, line)) {
    bool in_string = false;
    size_t cut = std::string::npos;
    for (size_t i = 0; i + 1 < line.size(); ++i) {
      if (line[i] == '"' && (i == 0 || line[i - 1] != '\\')) in_string = !in_string;
      if (!in_string && line[i] == '/' && line[i + 1] == '/') {
        cut = i;
        break;
      }
    }
    out += line.substr(0, cut) + "\n";
  }
  return out;
}

// The string literals of `names` in the C++ of every stage but `home` (a literal that is the name,
// or with `specs` one starting with "name:"), each reported as `what`.
long literals_outside(const std::string& home, const std::set<std::string>& names, bool specs, const std::string& what) {
  long count = 0;
  for (const auto& stage : kStages) {
    if (stage == home) continue;
    for (const auto& f : sources(stage)) {
      const std::string code = code_of(f);
      for (const auto& n : names)
        if (code.find("\"" + n + "\"") != std::string::npos || (specs && code.find("\"" + n + ":") != std::string::npos)) {
          UNSCOPED_INFO(f.lexically_relative(kRoot).string() << " names the " << what << " " << n);
          ++count;
        }
    }
  }
  return count;
}

}  // namespace

TEST_CASE("architecture: no method name in C++ outside methods/ and tests/", "[architecture]") {
  std::set<std::string> names;
  for (const auto& e : mb::builtin_methods()) names.insert(e.info.name);
  REQUIRE(names.size() >= 16);
  // a string literal that is the name, or a spec starting with it ("name" or "name:...")
  CHECK(literals_outside("methods", names, true, "method") == 0);
}

TEST_CASE("architecture: no metric-name literal in C++ outside metrics/ and tests/", "[architecture]") {
  std::set<std::string> names;
  for (const auto& m : mb::metric_catalog()) {
    names.insert(m.name);
    names.insert(m.also.begin(), m.also.end());
  }
  REQUIRE(names.size() >= 20);
  // (mb::metric::NAME instead)
  CHECK(literals_outside("metrics", names, false, "metric") == 0);
}

TEST_CASE("architecture: each stage includes only itself and the stages before it", "[architecture]") {
  std::map<std::string, size_t> rank;
  for (size_t i = 0; i < kStages.size(); ++i) rank[kStages[i]] = i;
  const std::string inc = "#include \"";
  long bad = 0;
  for (const auto& stage : kStages)
    for (const auto& f : sources(stage)) {
      std::istringstream code(code_of(f));
      for (std::string line; std::getline(code, line);) {
        if (line.rfind(inc, 0) != 0) continue;
        const size_t slash = line.find('/', inc.size());
        if (slash == std::string::npos) continue;
        const std::string to = line.substr(inc.size(), slash - inc.size());
        if (!rank.count(to)) continue;
        if (rank[to] > rank[stage]) {
          UNSCOPED_INFO(f.lexically_relative(kRoot).string() << " (" << stage << ") includes " << to << "/");
          ++bad;
        }
      }
    }
  CHECK(bad == 0);
}
