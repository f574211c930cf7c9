// Heap allocations per step after init: an O(n) method allocates nothing inside a step;
// its workspaces are sized by init() (and, at most, by the first steps). A dedicated executable,
// since it counts every malloc of the process:
//   Release: malloc is interposed here and forwards to glibc's __libc_malloc (Eigen allocates with
//            malloc, std containers through operator new, which calls malloc);
//   AddressSanitizer builds: ASan owns malloc; its malloc hook counts instead.
// Only allocations made while a counter is active are counted. Tag [alloc].
#include <atomic>
#include <cstddef>
#include <string>
#include <vector>

// GCC 12 at -O1 with the sanitizers reports a false -Wmaybe-uninitialized inside libstdc++'s
// std::function, instantiated by Catch2's main (as tests/main.cpp): silenced for this file only.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
#include <Eigen/Core>
#include <fmt/format.h>

#include "methods/method.hpp"
#include "models/catalog.hpp"
#include "models/model.hpp"

#if defined(__SANITIZE_ADDRESS__)
#define MBTEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define MBTEST_ASAN 1
#endif
#endif

namespace {
std::atomic<long> g_mallocs{0};
std::atomic<bool> g_counting{false};
double* volatile g_sink = nullptr;  // pointers escape here, so that the compiler cannot elide allocations
void count() {
  if (g_counting.load(std::memory_order_relaxed)) g_mallocs.fetch_add(1, std::memory_order_relaxed);
}
}  // namespace

#ifdef MBTEST_ASAN
extern "C" int __sanitizer_install_malloc_and_free_hooks(void (*malloc_hook)(const volatile void*, size_t),
                                                         void (*free_hook)(const volatile void*));
namespace {
void malloc_hook(const volatile void*, size_t) { count(); }
void free_hook(const volatile void*) {}
const bool g_installed = __sanitizer_install_malloc_and_free_hooks(malloc_hook, free_hook) != 0;
}  // namespace
#else
extern "C" void* __libc_malloc(size_t);
extern "C" void* malloc(size_t n) {
  count();
  return __libc_malloc(n);
}
namespace {
const bool g_installed = true;
}  // namespace
#endif

namespace {

// heap allocations made by f
template <class F>
long allocations(F&& f) {
  g_mallocs = 0;
  g_counting = true;
  f();
  g_counting = false;
  return g_mallocs.load();
}

// the O(n) methods (the linear-time tree solver or the articulated-body algorithm), and the
// joint-by-joint `iterative`; not the sparse-Cholesky ones (CHOLMOD allocates its workspace per
// factorization)
const std::vector<std::string> kMethods = {"linear", "GC4", "baraff", "iterative"};

// allocations in `steps` steps of `method` on `model_spec` after init and `warm` steps
long allocations_per_run(const std::string& method, const std::string& model_spec, double h, int warm, int steps) {
  const mb::Model model = mb::build_model(model_spec);
  mb::State s = mb::initial_state(model);
  auto m = mb::make_method(method);
  m->init(model, s);
  mb::StepStats stats;
  for (int k = 0; k < warm; ++k) m->step(model, s, h, stats);
  return allocations([&] {
    for (int k = 0; k < steps; ++k) m->step(model, s, h, stats);
  });
}

}  // namespace

TEST_CASE("the counter sees allocations (malloc and operator new)", "[alloc]") {
  REQUIRE(g_installed);
  CHECK(allocations([] { std::vector<double> v(100); g_sink = v.data(); }) >= 1);
  CHECK(allocations([] { Eigen::VectorXd v(100); g_sink = v.data(); }) >= 1);
  CHECK(allocations([] {}) == 0);
}

TEST_CASE("the O(n) methods allocate nothing inside a step after init", "[alloc]") {
  REQUIRE(g_installed);
  // the bender2007 tree (rigid bodies, ball joints; the torque pulse in the first step) and a
  // schmitt2005 point-mass chain (rods)
  for (const auto& [model, h] : {std::pair<std::string, double>{"tree:joints=63", 1.0 / 30}, {"chain:n=8", 0.01}})
    for (const std::string& name : kMethods) {
      INFO(name << " on " << model);
      CHECK(allocations_per_run(name, model, h, 3, 10) == 0);
    }
}
