// glibc's allocator set up for large models at the start of the mbbench command (docs/limits.md,
// "Large scenes"). A model of 10^6 bodies and a method's structures over it take about 2 GB in a
// few large arrays; with glibc's defaults each of them is a fresh mmap, given back when freed, and
// every 4 KiB page of it is faulted and zeroed on its first touch.
#pragma once
#include <atomic>
#include <cstddef>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace mb {

// Keeps freed memory in the process for reuse (malloc serves every size from its heap and never
// trims it); with `reexec`, and when hugetlb_tunables gives a value, executes this program again
// (the same binary, arguments and pid) with that GLIBC_TUNABLES, so that glibc advises huge pages
// for its heap: glibc reads the tunable before main. Nothing is changed in a sanitized build (its
// allocator is not glibc's), under valgrind (its tools replace malloc), or when the environment
// has MBBENCH_MALLOC=default (glibc's defaults). Returns when it does not execute again, or when
// the exec fails (the run then goes on without huge pages).
void tune_allocator(char** argv, bool reexec);

// The GLIBC_TUNABLES to execute again with (`current` with glibc.malloc.hugetlb=1 added), given
// the variable's value (null: unset), the first line of
// /sys/kernel/mm/transparent_hugepage/enabled and glibc's version; nothing when it would not
// help or is set already: huge pages not in `madvise` mode (in `always` mode the kernel uses
// them unadvised, in `never` mode not at all), a glibc before 2.35 (no such tunable), or
// glibc.malloc.hugetlb named in `current` (by the user, or by the first start: no third one).
std::optional<std::string> hugetlb_tunables(const char* current, const std::string& thp_enabled, const char* glibc_version);

// Fresh memory faulted in ahead of its use, on a second thread. The first touch of a page costs
// its thread a page fault, and in this virtual machine, whose host takes a guest's freed pages
// back within seconds (free page reporting), about 2.6 s of system time a GiB; a large run spends
// most of its system time so, in the one thread that builds the model and the method's
// structures, while the other core waits. Prefault hands that work to a thread of its own:
// madvise(MADV_POPULATE_WRITE) faults pages in as a write would, without writing, so the memory
// may be in use (and written by its owner) meanwhile. Each range goes from its top down, while
// its owner fills it from the bottom up: the two meet once. A no-op unless tune_allocator set
// malloc up (not in a sanitized build, under valgrind, with MBBENCH_MALLOC=default, nor in a
// program but mbbench), with MBBENCH_MALLOC=no-prefault, for less than kMinBytes in all, or on a
// kernel without MADV_POPULATE_WRITE (Linux 5.14). Records are the same bit for bit either way.
class Prefault {
 public:
  static constexpr size_t kMinBytes = size_t{64} << 20;
  struct Range {
    const void* data;
    size_t bytes;
  };

  Prefault() = default;
  ~Prefault() { stop(); }
  Prefault(const Prefault&) = delete;
  Prefault& operator=(const Prefault&) = delete;

  // faults in the ranges (allocated, touched or not), one after the other
  void start(std::vector<Range> ranges);
  // faults in `bytes` of the heap's free top, which the allocations after it take: a block of
  // that size (at most 1 GiB) allocated and freed at once, which stays in the heap
  void start_fresh(size_t bytes);
  // ends the thread between two 2 MiB pages and joins it; start() calls it first
  void stop();
  // waits until every range is done
  void wait();
  // bytes done (faulted in, or found present) so far
  size_t done() const { return done_.load(); }

  // on when tune_allocator set malloc up; tests turn it on (start() needs no more than a kernel
  // that has MADV_POPULATE_WRITE; start_fresh needs the heap that is never trimmed)
  static bool enabled();
  static void set_enabled(bool on);

 private:
  std::thread thread_;
  std::atomic<bool> stop_{false};
  std::atomic<size_t> done_{0};
};

}  // namespace mb
