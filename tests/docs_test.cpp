// The docs a newcomer reads are complete and stay inside the repository:
// - docs/methods.md and docs/models.md are exactly what `mbbench list methods --markdown` and
//   `mbbench list models --markdown` print (regenerate them with scripts/gen-docs.sh);
// - docs/usage.md names every subcommand and every option that `mbbench SUBCOMMAND --help` lists;
// - README.md is a front door of at most 12 KB that names every registered method, catalog model
//   and metric;
// - every relative link of README.md and docs/**/*.md resolves to a file of the repository, and
//   nothing points outside it;
// - no page of docs/ is over 40 KB, docs/ holds at most 300 KB, and no line of docs/ or README.md
//   tells history ("round N", "issue N", "used to"): the docs give the current state.
#include <catch2/catch.hpp>

#include <cctype>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <sstream>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "analysis/fit.hpp"
#include "methods/peers/translation.hpp"
#include "cli_util.hpp"

namespace fs = std::filesystem;

namespace {
std::string read(const fs::path& path) {
  std::ifstream in(path);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}
const fs::path kRoot = fs::path(MBBENCH_TEST_DATA) / ".." / "..";
const std::string kDocs = (kRoot / "docs").string() + "/";

// The names in a CLI11 help text's section ("Subcommands:" or "Options:"): the first word of each
// entry line, or for options every --long name before the description.
std::vector<std::string> help_section(const std::string& help, const std::string& section) {
  std::vector<std::string> out;
  std::istringstream in(help);
  std::string line;
  bool inside = false;
  while (std::getline(in, line)) {
    if (line.rfind(section, 0) == 0) {
      inside = true;
      continue;
    }
    if (!inside) continue;
    if (line.empty() || line[0] != ' ') {
      inside = false;
      continue;
    }
    const size_t start = line.find_first_not_of(' ');
    if (start == std::string::npos || start > 4) continue;  // a description's continuation
    const std::string entry = line.substr(start, line.find("  ", start) - start);
    if (section == "Options:") {
      // "-j,--jobs INT": every "--name" (letters, digits, '-')
      for (size_t p = entry.find("--"); p != std::string::npos; p = entry.find("--", p + 2)) {
        size_t e = p + 2;
        while (e < entry.size() && (std::isalnum(static_cast<unsigned char>(entry[e])) || entry[e] == '-')) ++e;
        if (e > p + 2) out.push_back(entry.substr(p, e - p));
      }
    } else {
      out.push_back(entry.substr(0, entry.find(' ')));
    }
  }
  return out;
}
}  // namespace

TEST_CASE("docs: methods.md and models.md are generated from the registry and the catalog", "[docs]") {
  for (const char* what : {"methods", "models"}) {
    // docs/methods.md lists every peer engine: a binary built without one cannot regenerate it
    if (std::string(what) == "methods" && !mb::peers_not_built().empty()) {
      WARN("docs/methods.md not compared: this binary was built without " << mb::peers_not_built().front().first << " ("
                                                                          << mb::peers_not_built().front().second << ")");
      continue;
    }
    INFO("docs/" << what << ".md is stale: run scripts/gen-docs.sh");
    const auto r = mbtest::run_cli(std::string("list ") + what + " --markdown");
    REQUIRE(r.code == 0);
    CHECK(read(kDocs + what + ".md") == r.output);
  }
}

TEST_CASE("docs: usage.md documents every subcommand and every option of the CLI", "[docs]") {
  const std::string usage = read(kDocs + "usage.md");
  REQUIRE(!usage.empty());
  const auto top = mbtest::run_cli("--help");
  REQUIRE(top.code == 0);
  const auto subs = help_section(top.output, "Subcommands:");
  REQUIRE(subs.size() >= 9);
  long options = 0;
  for (const auto& sub : subs) {
    INFO("subcommand " << sub << ": add it to docs/usage.md");
    CHECK_THAT(usage, Catch::Contains("## " + sub + "\n"));
    const auto help = mbtest::run_cli(sub + " --help");
    REQUIRE(help.code == 0);
    for (const auto& opt : help_section(help.output, "Options:")) {
      if (opt == "--help") continue;
      ++options;
      INFO("`mbbench " << sub << " " << opt << "` is missing from docs/usage.md");
      CHECK_THAT(usage, Catch::Contains("`" + opt) || Catch::Contains(" " + opt));
    }
  }
  CHECK(options >= 30);  // the parser above found the options
}

TEST_CASE("docs: README.md is a short front door that names every method, model and metric", "[docs]") {
  const fs::path readme = kRoot / "README.md";
  CHECK(fs::file_size(readme) <= 12 * 1024);
  const std::string text = read(readme);
  const auto list = mbtest::run_cli("list --json");
  REQUIRE(list.code == 0);
  const auto j = nlohmann::json::parse(list.output);
  for (const char* what : {"methods", "models", "metrics"})
    for (const auto& item : j.at(what)) {
      const std::string name = item.at("name").get<std::string>();
      INFO("README.md does not name the " << what << " entry " << name);
      CHECK_THAT(text, Catch::Contains("`" + name + "`"));
    }
}

TEST_CASE("docs: every link resolves inside the repository and nothing points outside it", "[docs]") {
  std::vector<fs::path> pages = {kRoot / "README.md"};
  for (const auto& e : fs::recursive_directory_iterator(kRoot / "docs"))
    if (e.is_regular_file() && e.path().extension() == ".md") pages.push_back(e.path());
  REQUIRE(pages.size() >= 10);
  const fs::path root = fs::weakly_canonical(kRoot);
  for (const auto& page : pages) {
    const std::string text = read(page);
    INFO(fs::relative(page, root).string());
    // the development workspace's folder beside the checkout, spelled in two parts so that this
    // test itself names no path outside the repository
    const std::string workspace = std::string("..") + "/" + "shared";
    for (const std::string& outside : {workspace, std::string("shared/papers"), std::string("design.md"), std::string("style.md")}) {
      INFO("points outside the repository: " << outside);
      CHECK(text.find(outside) == std::string::npos);
    }
    // Markdown links "](target)" or "](target#anchor)"
    for (size_t at = text.find("]("); at != std::string::npos; at = text.find("](", at + 2)) {
      const size_t end = text.find_first_of(")# \n", at + 2);
      if (end == std::string::npos) break;
      const std::string target = text.substr(at + 2, end - at - 2);
      if (target.empty() || target.find("://") != std::string::npos) continue;
      const fs::path p = fs::weakly_canonical(page.parent_path() / target);
      INFO("link " << target);
      CHECK(fs::exists(p));
      const std::string rel = fs::relative(p, root).string();
      CHECK(rel.rfind("..", 0) != 0);
    }
  }
}

TEST_CASE("docs: no page over 40 KB, docs within 300 KB, and no history in any line", "[docs]") {
  constexpr std::uintmax_t kPageMax = 40 * 1024;
  constexpr std::uintmax_t kTotalMax = 300 * 1024;
  const fs::path root = fs::weakly_canonical(kRoot);
  std::vector<fs::path> files = {root / "README.md"};
  std::uintmax_t total = 0;
  // every file under docs/ counts toward the total (docs/slurm holds scripts); every page is bounded
  for (const auto& e : fs::recursive_directory_iterator(root / "docs")) {
    if (!e.is_regular_file()) continue;
    const std::uintmax_t size = e.file_size();
    total += size;
    files.push_back(e.path());
    if (e.path().extension() != ".md") continue;
    INFO(fs::relative(e.path(), root).string() << " is " << size << " bytes, over " << kPageMax
                                              << ": split the page or cut it to the current state");
    CHECK(size <= kPageMax);
  }
  REQUIRE(files.size() >= 10);
  INFO("docs/ holds " << total << " bytes in " << files.size() - 1 << " files, over " << kTotalMax
                      << " (docs/methods.md and docs/models.md included: they are generated)");
  CHECK(total <= kTotalMax);

  // the docs describe the current state with its command and number, not how it got there
  // (case-insensitive) "round " or "issue " followed by a digit, or "used to"
  auto tells_history = [](std::string line) {
    for (auto& c : line) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (const std::string word : {"round ", "issue "})
      for (size_t p = line.find(word); p != std::string::npos; p = line.find(word, p + 1))
        if (p + word.size() < line.size() && std::isdigit(static_cast<unsigned char>(line[p + word.size()]))) return true;
    return line.find("used to") != std::string::npos;
  };
  long lines = 0;
  for (const auto& path : files) {
    std::ifstream in(path);
    std::string line;
    for (long n = 1; std::getline(in, line); ++n) {
      ++lines;
      if (tells_history(line))
        FAIL_CHECK(fs::relative(path, root).string() << ":" << n << " tells history (round N, issue N, used to): " << line);
    }
  }
  CHECK(lines > 1000);  // the files were read
}

TEST_CASE("docs: every output the README and usage.md print is what mbbench prints", "[docs][printed]") {
  // In a ```sh block, the lines "#  TEXT" after a command `mbbench ARGS` (or build/release/mbbench)
  // are what it prints: each such line, but those that begin "#  ...", must be a line of the command's output as it
  // is now, every number to the digits shown. The commands run from the repository's root.
  int checked = 0;
  for (const char* page : {"README.md", "docs/usage.md"}) {
    std::istringstream in(read(kRoot / page));
    std::string line, command;
    std::vector<std::string> shown;
    bool block = false;
    auto check = [&] {
      if (!command.empty() && !shown.empty()) {
        const auto r = mbtest::run_command("cd " + kRoot.string() + " && " + std::string(MBBENCH_EXE) + " " + command);
        INFO(page << ": mbbench " << command << "\n" << r.output);
        CHECK(r.code == 0);
        std::set<std::string> lines;
        std::istringstream out(r.output);
        for (std::string l; std::getline(out, l);) lines.insert(l);
        for (const auto& s : shown) {
          INFO("shown: " << s);
          CHECK(lines.count(s) == 1);
          ++checked;
        }
      }
      command.clear();
      shown.clear();
    };
    while (std::getline(in, line)) {
      if (line.rfind("```", 0) == 0) {
        check();
        block = line == "```sh";
        continue;
      }
      if (!block) continue;
      if (line.rfind("#  ", 0) == 0 && !command.empty()) {
        if (line.rfind("#  ...", 0) != 0) shown.push_back(line.substr(3));
        continue;
      }
      check();
      for (const std::string prefix : {"mbbench ", "build/release/mbbench "})
        if (line.rfind(prefix, 0) == 0) command = line.substr(prefix.size(), line.find("  #") - prefix.size());
    }
  }
  CHECK(checked >= 5);
}

TEST_CASE("docs: the schmitt2005 findings table is the fit of the committed records", "[docs][printed]") {
  // each row "| Pendulum10 | ED | GC4 | 5.00 / 5.00 | 57.4879 / 57.489726 | 1.0000 | ... |": our
  // order and factor are the two-point fit (h1 = 0.005, h2 = 0.04, simulated h, steps=ceil ld=half)
  // of tests/data/records/schmitt2005.jsonl, the record set that equals this build's numbers bit for
  // bit (tests/records_regression_test.cpp), to the digits the report prints
  std::map<std::string, std::vector<mb::SeriesPoint>> series;  // "pendulum10 GC4 ED"
  {
    std::ifstream in(kRoot / "tests/data/records/schmitt2005.jsonl");
    for (std::string line; std::getline(in, line);) {
      const auto c = nlohmann::json::parse(line);
      std::istringstream id(c["case_id"].get<std::string>());
      std::string model, method, h, steps, ld;
      id >> model >> method >> h >> steps >> ld;
      if (steps != "steps=ceil" || ld != "ld=half") continue;
      for (const char* metric : {"ED", "LD"}) {
        mb::SeriesPoint p;
        p.h_nominal = std::stod(h.substr(2));
        p.h = c["h"].get<double>();
        p.failed = c["status"] != "ok";
        if (c["metrics"].contains(metric)) p.w = c["metrics"][metric].get<double>();
        series[model + " " + method + " " + metric].push_back(p);
      }
    }
  }
  std::istringstream in(read(kRoot / "docs/findings/schmitt2005.md"));
  int rows = 0;
  for (std::string line; std::getline(in, line);) {
    if (line.rfind("| Pendulum", 0) != 0) continue;
    std::vector<std::string> cell;
    for (size_t a = 1, b; (b = line.find(" |", a)) != std::string::npos; a = b + 2) cell.push_back(line.substr(a + 1, b - a - 1));
    REQUIRE(cell.size() >= 6);
    std::string model = cell[0];
    model[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(model[0])));
    const auto s = series.find(model + " " + cell[2] + " " + cell[1]);
    INFO(line);
    REQUIRE(s != series.end());
    const mb::SeriesFit f = mb::fit_series(s->second, 0.005, 0.04, mb::FitH::Simulated);
    REQUIRE(f.two_point);
    CHECK(cell[3].substr(0, cell[3].find(" /")) == fmt::format("{:.2f}", f.two_point->order));
    CHECK(cell[4].substr(0, cell[4].find(" /")) == fmt::format("{:.6g}", f.two_point->factor));
    ++rows;
  }
  CHECK(rows >= 29);
}

TEST_CASE("docs: the code contributing.md shows is the example method's, as it is", "[docs]") {
  // the section "Add a method" (up to "## Add a model")
  std::string page = read(kDocs + "contributing.md");
  page = page.substr(0, page.find("## Add a model"));
  const std::string code = read(kRoot / "tests/example_method.cpp");
  int blocks = 0;
  for (size_t a = page.find("```cpp\n"); a != std::string::npos; a = page.find("```cpp\n", a + 1)) {
    const size_t begin = a + 7, end = page.find("```", begin);
    const std::string block = page.substr(begin, end - begin);
    INFO(block);
    CHECK(code.find(block) != std::string::npos);
    ++blocks;
  }
  CHECK(blocks >= 2);
}
