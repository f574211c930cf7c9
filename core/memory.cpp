#include "core/memory.hpp"

#include <fcntl.h>
#include <gnu/libc-version.h>
#include <malloc.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <system_error>

namespace mb {

namespace {

// tune_allocator set malloc up: a freed block stays in the heap
bool g_tuned = false;
// Prefault works (tune_allocator, or a test)
std::atomic<bool> g_prefault{false};

bool sanitized() {
#if defined(__SANITIZE_ADDRESS__)
  return true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
  return true;
#else
  return false;
#endif
#else
  return false;
#endif
}

// the first line of a small file (of /sys), or empty
std::string first_line(const char* path) {
  const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0) return {};
  char buf[256];
  const ssize_t n = ::read(fd, buf, sizeof buf - 1);
  ::close(fd);
  if (n <= 0) return {};
  std::string s(buf, static_cast<size_t>(n));
  return s.substr(0, s.find('\n'));
}

// the running binary's path: its name becomes the new process's name (`exe` for
// /proc/self/exe itself, which stays the fallback when the file was replaced since)
std::string self_path() {
  char buf[4096];
  const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return "/proc/self/exe";
  const std::string p(buf, static_cast<size_t>(n));
  return ::access(p.c_str(), X_OK) == 0 ? p : "/proc/self/exe";
}

}  // namespace

std::optional<std::string> hugetlb_tunables(const char* current, const std::string& thp_enabled, const char* glibc_version) {
  if (thp_enabled.find("[madvise]") == std::string::npos) return std::nullopt;
  int major = 0, minor = 0;
  if (!glibc_version || std::sscanf(glibc_version, "%d.%d", &major, &minor) != 2) return std::nullopt;
  if (major < 2 || (major == 2 && minor < 35)) return std::nullopt;
  const std::string before = current ? current : "";
  if (before.find("glibc.malloc.hugetlb") != std::string::npos) return std::nullopt;
  return before.empty() ? "glibc.malloc.hugetlb=1" : before + ":glibc.malloc.hugetlb=1";
}

void tune_allocator(char** argv, bool reexec) {
  const char* opt = std::getenv("MBBENCH_MALLOC");
  if (sanitized() || (opt && std::strcmp(opt, "default") == 0)) return;
  const char* preload = std::getenv("LD_PRELOAD");
  if (preload && std::strstr(preload, "vgpreload")) return;  // valgrind's tools
  // every block from the heap, a freed one reused (no fresh pages, no munmap), the heap never
  // trimmed (its pages go back when the process ends)
  const bool no_mmap = mallopt(M_MMAP_THRESHOLD, INT_MAX) == 1;
  const bool no_trim = mallopt(M_TRIM_THRESHOLD, INT_MAX) == 1;
  g_tuned = no_mmap && no_trim;
  g_prefault = g_tuned && !(opt && std::strcmp(opt, "no-prefault") == 0);
  if (!reexec || !argv || !argv[0]) return;
  const char* old = std::getenv("GLIBC_TUNABLES");
  const std::optional<std::string> tunables =
      hugetlb_tunables(old, first_line("/sys/kernel/mm/transparent_hugepage/enabled"), gnu_get_libc_version());
  if (!tunables) return;
  const std::string before = old ? old : "";
  if (::setenv("GLIBC_TUNABLES", tunables->c_str(), 1) != 0) return;
  ::execv(self_path().c_str(), argv);
  // the exec failed: go on in this process, its environment as it was
  if (old) ::setenv("GLIBC_TUNABLES", before.c_str(), 1);
  else ::unsetenv("GLIBC_TUNABLES");
}

void Prefault::start(std::vector<Range> ranges) {
  stop();
  size_t total = 0;
  for (const Range& r : ranges) total += r.bytes;
  if (!g_prefault || total < kMinBytes) return;
  stop_ = false;
  done_ = 0;
  const auto work = [this, ranges = std::move(ranges)] {
    constexpr std::uintptr_t kPage = std::uintptr_t{2} << 20;  // a huge page: glibc advises its heap for them
    for (const Range& r : ranges) {
      const auto lo = reinterpret_cast<std::uintptr_t>(r.data);
      for (std::uintptr_t hi = lo + r.bytes; hi > lo && !stop_.load(std::memory_order_relaxed);) {
        // [a, hi): down to a 2 MiB boundary, or to lo (the first page of lo's)
        const std::uintptr_t a = std::max(lo, (hi - 1) & ~(kPage - 1));
        const std::uintptr_t page = a & ~std::uintptr_t{4095};
        if (::madvise(reinterpret_cast<void*>(page), hi - page, MADV_POPULATE_WRITE) != 0 && errno == EINVAL) return;
        done_.fetch_add(hi - a, std::memory_order_relaxed);
        hi = a;
      }
    }
  };
  try {
    thread_ = std::thread(work);
  } catch (const std::system_error&) {
    // no thread to be had: the owner faults its pages itself, as without Prefault
  }
}

void Prefault::start_fresh(size_t bytes) {
  stop();
  // at most 1 GiB: the heap serves it (below M_MMAP_THRESHOLD, INT_MAX: a larger block would be
  // mapped apart and unmapped when freed), and its free top stays below M_TRIM_THRESHOLD (INT_MAX)
  bytes = std::min(bytes, size_t{1} << 30);
  if (!g_tuned || bytes < kMinBytes) return;
  void* p = std::malloc(bytes);
  if (!p) return;
  // the address as a number, which GCC does not follow past free (-Wuse-after-free): the memory
  // stays mapped, as the heap is never trimmed, and only madvise uses the address
  std::uintptr_t at = reinterpret_cast<std::uintptr_t>(p);
  asm volatile("" : "+r"(at));
  std::free(p);
  start({{reinterpret_cast<const void*>(at), bytes}});
}

void Prefault::stop() {
  stop_ = true;
  wait();
}

void Prefault::wait() {
  if (thread_.joinable()) thread_.join();
}

bool Prefault::enabled() { return g_prefault; }
void Prefault::set_enabled(bool on) { g_prefault = on; }

}  // namespace mb
