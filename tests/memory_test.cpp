// The allocator's set-up at the start of mbbench (core/memory.hpp): when it executes again with
// huge pages, and that records do not change with it.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <memory>

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

TEST_CASE("memory: Prefault faults memory in while its owner writes it, and changes nothing", "[memory]") {
  const bool was = mb::Prefault::enabled();
  mb::Prefault::set_enabled(true);
  // two ranges, the second of an odd size and start; written from the bottom up meanwhile
  // (not value-initialized: the pages are first touched by the writes below or by the thread)
  const size_t na = mb::Prefault::kMinBytes / 2 + 12345, nb = na + 777;
  const std::unique_ptr<unsigned char[]> a(new unsigned char[na]), b(new unsigned char[nb]);
  mb::Prefault p;
  p.start({{a.get(), na}, {b.get() + 3, nb - 3}});
  for (size_t i = 0; i < na; ++i) a[i] = static_cast<unsigned char>(i % 251);
  for (size_t i = 0; i < nb; ++i) b[i] = static_cast<unsigned char>(i % 241);
  p.wait();
  // done, unless the kernel has no MADV_POPULATE_WRITE (then it stops at once)
  const size_t done = p.done();
  CHECK((done == na + nb - 3 || done == 0));
  size_t wrong = 0;
  for (size_t i = 0; i < na; ++i) wrong += a[i] != static_cast<unsigned char>(i % 251);
  for (size_t i = 0; i < nb; ++i) wrong += b[i] != static_cast<unsigned char>(i % 241);
  CHECK(wrong == 0);
  // less than kMinBytes in all: nothing
  mb::Prefault small;
  small.start({{a.get(), mb::Prefault::kMinBytes / 4}});
  small.wait();
  CHECK(small.done() == 0);
  mb::Prefault::set_enabled(was);
}
