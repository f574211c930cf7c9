// glibc's allocator set up for large models at the start of the mbbench command (docs/limits.md,
// "Large scenes"). A model of 10^6 bodies and a method's structures over it take about 2 GB in a
// few large arrays; with glibc's defaults each of them is a fresh mmap, given back when freed, and
// every 4 KiB page of it is faulted and zeroed on its first touch.
#pragma once
#include <optional>
#include <string>

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

}  // namespace mb
