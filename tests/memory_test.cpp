// The allocator's set-up at the start of mbbench (core/memory.hpp): when it executes again with
// huge pages, and that records do not change with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include "cli_util.hpp"
#include "core/memory.hpp"

namespace fs = std::filesystem;

TEST_CASE("memory: glibc.malloc.hugetlb is added once, in madvise mode, from glibc 2.35", "[memory]") {
  const std::string madvise = "always [madvise] never";
  CHECK(mb::hugetlb_tunables(nullptr, madvise, "2.36") == "glibc.malloc.hugetlb=1");
  CHECK(mb::hugetlb_tunables("", madvise, "2.35") == "glibc.malloc.hugetlb=1");
  CHECK(mb::hugetlb_tunables("glibc.malloc.arena_max=2", madvise, "2.41") == "glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1");
  // set already (the second start, or the user's own value): no further exec
  CHECK_FALSE(mb::hugetlb_tunables("glibc.malloc.hugetlb=1", madvise, "2.36"));
  CHECK_FALSE(mb::hugetlb_tunables("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=0", madvise, "2.36"));
  // the kernel decides alone, or gives none; a glibc without the tunable
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, "[always] madvise never", "2.36"));
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, "always madvise [never]", "2.36"));
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, "", "2.36"));
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, madvise, "2.34"));
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, madvise, "1.99"));
  CHECK(mb::hugetlb_tunables(nullptr, madvise, "3.0") == "glibc.malloc.hugetlb=1");
  CHECK_FALSE(mb::hugetlb_tunables(nullptr, madvise, nullptr));
}

TEST_CASE("memory: a run's record is the same bit for bit with glibc's default allocator", "[memory][cli]") {
  const fs::path d = mbtest::temp_dir("memory");
  for (const char* method : {"GC4", "linear", "sle"}) {
    INFO(method);
    const std::string args = std::string(" run chain:n=40 ") + method + " --h 0.01 --duration 0.2 --samples 0.1,0.2 --quiet --out ";
    const fs::path tuned = d / (std::string(method) + "-tuned.json"), plain = d / (std::string(method) + "-plain.json");
    const auto a = mbtest::run_command(std::string(MBBENCH_EXE) + args + tuned.string());
    const auto b = mbtest::run_command("MBBENCH_MALLOC=default " + std::string(MBBENCH_EXE) + args + plain.string());
    INFO(a.output << b.output);
    REQUIRE(a.code == 0);
    REQUIRE(b.code == 0);
    std::ifstream ta(tuned), tb(plain);
    const nlohmann::json ja = nlohmann::json::parse(ta), jb = nlohmann::json::parse(tb);
    REQUIRE(ja.at("samples").size() == 2);
    for (const char* k : {"samples", "metrics", "steps_done", "status"}) {
      INFO(k);
      CHECK(ja.at(k) == jb.at(k));
    }
  }
  fs::remove_all(d);
}
