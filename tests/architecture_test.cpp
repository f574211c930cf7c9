// The architecture's rules, checked on the source tree (docs/architecture.md):
//   - no method name in C++ outside methods/ and tests/: every stage asks the registry;
//   - no metric name as a string literal outside metrics/ and tests/: every stage uses the
//     metric registry's constants (metrics/registry.hpp) or asks it;
//   - no benchmark-counter name as a string literal outside records/ and tests/: every stage uses
//     the counter table's constants (records/counters.hpp);
//   - one direction of dependency: a stage includes only the stages before it;
//   - the same inside every folder: its rooms (subfolders, and its own files as the room ".")
//     include each other without a cycle, and only the rooms before them in the folder's order
//     below; a folder with rooms has an order (today methods/ and models/);
//   - a model is built from its spec (load_model) only where a case set's models are built;
//   - no source file outside tests/ is longer than kMaxLines: a longer one holds more than one concept.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

#include <unistd.h>

#include "methods/method.hpp"
#include "metrics/registry.hpp"
#include "records/counters.hpp"

namespace fs = std::filesystem;

namespace {

const fs::path kRoot = fs::path(MBBENCH_TEST_DATA) / ".." / "..";

// the stages, in order; a stage may include itself and any stage to its left (core first)
const std::vector<std::string> kStages = {"core",     "records",     "models", "methods", "metrics", "sim",    "bench",
                                          "analysis", "experiments", "sweep",  "report",  "gate",    "runners"};

// The rooms of a folder, in order: a file includes only from its own room and the rooms to its
// left. "." is the folder's own files (methods/method.hpp: the base every room builds on).
const std::map<std::string, std::vector<std::string>> kRooms = {
    {"methods", {".", "bodies", "constraints", "solvers", "contacts", "forces", "impulse", "lagrange", "higher_order",
                 "reduced", "peers", "registry"}},
    {"models", {".", "formats", "catalog"}},
};

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

// The includes of the project's own headers ("stage/...") in a file's code, in order.
std::vector<std::string> includes_of(const fs::path& file) {
  std::vector<std::string> v;
  const std::string inc = "#include \"";
  std::istringstream code(code_of(file));
  for (std::string line; std::getline(code, line);) {
    if (line.rfind(inc, 0) != 0) continue;
    const size_t end = line.find('"', inc.size());
    if (end != std::string::npos) v.push_back(line.substr(inc.size(), end - inc.size()));
  }
  return v;
}

// One include of one file: the file (relative to the root) and the included path.
struct Include {
  std::string file, header;
};

// The violations inside every folder below `root`'s `stages` (each a message naming the file and
// the include): an include between two rooms of a folder that closes a cycle of its rooms, a
// folder with rooms but no order in `orders`, and, in a folder of `orders`, an include of a later
// room or a room missing from the order.
std::vector<std::string> room_violations(const fs::path& root, const std::vector<std::string>& stages,
                                         const std::map<std::string, std::vector<std::string>>& orders) {
  // every file of the stages with its includes of files inside the stages
  std::vector<std::pair<std::string, std::vector<std::string>>> files;
  std::set<std::string> folders;
  for (const auto& stage : stages) {
    if (!fs::exists(root / stage)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / stage)) {
      const fs::path rel = e.path().lexically_relative(root);
      if (e.is_directory()) folders.insert(rel.generic_string());
      if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".hpp")) continue;
      std::vector<std::string> own;
      for (const auto& h : includes_of(e.path()))
        if (std::find(stages.begin(), stages.end(), h.substr(0, h.find('/'))) != stages.end()) own.push_back(h);
      files.emplace_back(rel.generic_string(), own);
    }
    folders.insert(stage);
  }
  std::sort(files.begin(), files.end());
  std::vector<std::string> out;
  for (const auto& folder : folders) {
    const std::string prefix = folder + "/";
    // the room of a path inside `folder`: its first component below it, "." for the folder's own files
    auto room = [&](const std::string& path) -> std::string {
      const std::string rest = path.substr(prefix.size());
      const size_t slash = rest.find('/');
      return slash == std::string::npos ? "." : rest.substr(0, slash);
    };
    std::set<std::string> rooms;
    std::map<std::pair<std::string, std::string>, std::vector<Include>> edges;  // (from, to) -> the includes
    for (const auto& [file, headers] : files) {
      if (file.rfind(prefix, 0) != 0) continue;
      const std::string from = room(file);
      rooms.insert(from);
      for (const auto& h : headers) {
        if (h.rfind(prefix, 0) != 0) continue;
        const std::string to = room(h);
        rooms.insert(to);
        if (to != from) edges[{from, to}].push_back({file, h});
      }
    }
    // cycles: an edge from -> to closes one when `to` reaches `from`
    std::map<std::string, std::set<std::string>> reach;
    for (const auto& [e, _] : edges) reach[e.first].insert(e.second);
    for (bool grew = true; grew;) {
      grew = false;
      for (auto& [r, to] : reach) {
        const std::set<std::string> now = to;
        for (const auto& t : now)
          for (const auto& u : reach[t]) grew |= to.insert(u).second;
      }
    }
    for (const auto& [e, incs] : edges)
      if (reach[e.second].count(e.first))
        for (const auto& i : incs)
          out.push_back(i.file + " includes " + i.header + ": a cycle between the rooms " + e.first + " and " + e.second +
                        " of " + folder + "/");
    // the order: every folder with a room besides its own files has one
    const auto order = orders.find(folder);
    if (order == orders.end()) {
      for (const auto& r : rooms)
        if (r != "." && fs::is_directory(root / folder / r)) {
          out.push_back(folder + "/ has rooms (" + r + "/) but no order (kRooms)");
          break;
        }
      continue;
    }
    std::map<std::string, size_t> rank;
    for (size_t i = 0; i < order->second.size(); ++i) rank[order->second[i]] = i;
    for (const auto& r : rooms)
      if (!rank.count(r)) out.push_back(prefix + r + " is a room of " + folder + "/ missing from its order (kRooms)");
    for (const auto& [e, incs] : edges)
      if (rank.count(e.first) && rank.count(e.second) && rank[e.second] > rank[e.first])
        for (const auto& i : incs)
          out.push_back(i.file + " includes " + i.header + ": the room " + e.first + " of " + folder +
                        "/ includes the later room " + e.second);
  }
  return out;
}

// The files of `stages` outside `allowed` whose code calls `function` (the name followed by '(',
// not part of a longer name), each a message naming the file.
std::vector<std::string> calls_outside(const fs::path& root, const std::vector<std::string>& stages,
                                       const std::string& function, const std::set<std::string>& allowed) {
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::vector<std::string> out;
  for (const auto& stage : stages) {
    if (allowed.count(stage) || !fs::exists(root / stage)) continue;
    for (const auto& e : fs::recursive_directory_iterator(root / stage)) {
      if (!e.is_regular_file() || (e.path().extension() != ".cpp" && e.path().extension() != ".hpp")) continue;
      const std::string code = code_of(e.path());
      for (size_t at = code.find(function + "("); at != std::string::npos; at = code.find(function + "(", at + 1))
        if (at == 0 || !ident(code[at - 1])) {
          out.push_back(e.path().lexically_relative(root).generic_string() + " calls " + function);
          break;
        }
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The most lines a source file outside tests/ has.
constexpr long kMaxLines = 700;

// The C++ files (.cpp, .hpp) below `root`, outside `skip` (top-level folders) and hidden folders,
// longer than `max` lines, each a message naming the file and its length.
std::vector<std::string> long_sources(const fs::path& root, long max, const std::set<std::string>& skip) {
  std::vector<std::string> out;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    const fs::path rel = it->path().lexically_relative(root);
    const std::string top = rel.begin()->string();
    if (it->is_directory() && (skip.count(top) || top.rfind('.', 0) == 0)) {
      it.disable_recursion_pending();
      continue;
    }
    if (!it->is_regular_file() || (it->path().extension() != ".cpp" && it->path().extension() != ".hpp")) continue;
    std::ifstream in(it->path());
    long lines = 0;
    for (std::string line; std::getline(in, line);) ++lines;
    if (lines > max) out.push_back(rel.generic_string() + " has " + std::to_string(lines) + " lines");
  }
  std::sort(out.begin(), out.end());
  return out;
}

// The counter-name literals outside `home`: a literal that is a counter's name, or, for a name the
// table marks as also naming something else (CounterInfo::elsewhere), a literal that stands for
// the counter: a map of counters indexed by it or asked for it.
long counter_literals_outside(const std::string& home) {
  long count = 0;
  for (const auto& stage : kStages) {
    if (stage == home) continue;
    for (const auto& f : sources(stage)) {
      const std::string code = code_of(f);
      for (const auto& c : mb::counter_catalog()) {
        const std::string lit = "\"" + c.name + "\"";
        bool found = false;
        if (c.elsewhere.empty())
          found = code.find(lit) != std::string::npos;
        else
          for (const char* use : {"counters[", "counters.find(", "counters.at(", "counters.count(", "counters.contains("})
            found = found || code.find(use + lit) != std::string::npos;
        if (found) {
          UNSCOPED_INFO(f.lexically_relative(kRoot).string() << " names the counter " << c.name);
          ++count;
        }
      }
    }
  }
  return count;
}

// Where a model is built from its spec: models/ (the loader), sim/ and experiments/ (which build
// each spec of a case set once and share it), runners/ (the command line's own model); every
// other stage takes the built model.
const std::set<std::string> kModelLoaders = {"models", "sim", "experiments"};

}  // namespace

TEST_CASE("architecture: load_model is called only where a case set's models are built", "[architecture]") {
  const std::vector<std::string> v = calls_outside(kRoot, kStages, "load_model", kModelLoaders);
  for (const auto& m : v) UNSCOPED_INFO(m);
  CHECK(v.empty());
}

TEST_CASE("architecture: the call check names the file that calls the function", "[architecture]") {
  const fs::path root = fs::temp_directory_path() / ("mbbench_calls_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& path, const std::string& text) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  };
  write("a/x.cpp", "void f() { const auto m = mb::load_model(\"p\"); }\n");
  write("a/deep/y.hpp", "// load_model(spec) in a comment\nint preload_model(int);\n");
  write("b/z.cpp", "auto m = load_model(\"p\");\n");  // allowed
  const std::vector<std::string> v = calls_outside(root, {"a", "b"}, "load_model", {"b"});
  fs::remove_all(root);
  REQUIRE(v.size() == 1);
  CHECK(v[0] == "a/x.cpp calls load_model");
}

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

TEST_CASE("architecture: no counter-name literal in C++ outside records/ and tests/", "[architecture]") {
  REQUIRE(mb::counter_catalog().size() >= 10);
  // (mb::counter::NAME instead)
  CHECK(counter_literals_outside("records") == 0);
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

TEST_CASE("architecture: inside every folder, rooms include earlier rooms only and form no cycle", "[architecture]") {
  const std::vector<std::string> v = room_violations(kRoot, kStages, kRooms);
  for (const auto& m : v) UNSCOPED_INFO(m);
  CHECK(v.empty());
  // the orders name rooms that exist
  for (const auto& [folder, rooms] : kRooms)
    for (const auto& r : rooms) {
      INFO(folder << "/" << r);
      CHECK((r == "." || fs::is_directory(kRoot / folder / r)));
    }
}

TEST_CASE("architecture: the room check names the file and the include of an upward include and a cycle", "[architecture]") {
  const fs::path root = fs::temp_directory_path() / ("mbbench_rooms_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& path, const std::string& text) {
    fs::create_directories((root / path).parent_path());
    std::ofstream(root / path) << text;
  };
  write("m/base.hpp", "#pragma once\n");
  write("m/base.cpp", "#include \"m/base.hpp\"\n#include \"m/low/low.hpp\"\n");  // up from "."
  write("m/low/low.hpp", "#include \"m/base.hpp\"\n#include \"m/high/high.hpp\"\n");  // up, and a cycle
  write("m/high/high.hpp", "#include \"m/low/low.hpp\"  // back down\n");
  write("m/high/deep/x.hpp", "#include \"m/high/y.hpp\"\n");
  write("m/high/y.hpp", "#include \"m/high/deep/x.hpp\"\n");  // a cycle inside m/high/
  write("m/new/n.hpp", "// #include \"m/high/high.hpp\" (a comment)\n");
  const std::vector<std::string> v = room_violations(root, {"m"}, {{"m", {".", "low", "high"}}});
  fs::remove_all(root);
  std::string all;
  for (const auto& m : v) all += m + "\n";
  INFO(all);
  auto has = [&](const std::string& s) { return all.find(s) != std::string::npos; };
  CHECK(has("m/base.cpp includes m/low/low.hpp: a cycle between the rooms . and low of m/"));
  CHECK(has("m/base.cpp includes m/low/low.hpp: the room . of m/ includes the later room low"));
  CHECK(has("m/low/low.hpp includes m/high/high.hpp: the room low of m/ includes the later room high"));
  CHECK(has("m/high/high.hpp includes m/low/low.hpp: a cycle between the rooms high and low of m/"));
  CHECK(has("m/high/y.hpp includes m/high/deep/x.hpp: a cycle between the rooms . and deep of m/high/"));
  CHECK(has("m/new is a room of m/ missing from its order (kRooms)"));
  CHECK(has("m/high/ has rooms (deep/) but no order (kRooms)"));
  CHECK(v.size() == 10);
}

TEST_CASE("architecture: no source file outside tests/ is over 700 lines", "[architecture]") {
  const std::vector<std::string> v = long_sources(kRoot, kMaxLines, {"tests", "build"});
  for (const auto& m : v) UNSCOPED_INFO(m);
  CHECK(v.empty());
}

TEST_CASE("architecture: the length check names the long file outside the skipped folders", "[architecture]") {
  const fs::path root = fs::temp_directory_path() / ("mbbench_lines_" + std::to_string(::getpid()));
  fs::remove_all(root);
  auto write = [&](const std::string& path, long lines) {
    fs::create_directories((root / path).parent_path());
    std::ofstream out(root / path);
    for (long i = 0; i < lines; ++i) out << "int x" << i << ";\n";
  };
  write("a/deep/long.cpp", 4);
  write("a/short.hpp", 3);
  write("a/notes.md", 9);
  write("tests/long_test.cpp", 9);
  write(".hidden/long.cpp", 9);
  const std::vector<std::string> v = long_sources(root, 3, {"tests"});
  fs::remove_all(root);
  REQUIRE(v.size() == 1);
  CHECK(v[0] == "a/deep/long.cpp has 4 lines");
}
