// The registry of methods: one line per method, sorted by name. Adding a method = its file in
// methods/<family>/ plus one line here. (An explicit list, not self-registering statics, which a
// static library can drop.)
#include "methods/higher_order/imp.hpp"
#include "methods/impulse/methods.hpp"
#include "methods/lagrange/lagrange_method.hpp"
#include "methods/method.hpp"
#include "methods/reduced/gc4.hpp"
#include "methods/reduced/ref.hpp"
#include "methods/testing/test_methods.hpp"

namespace mb {

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> entries = [] {
    std::vector<MethodEntry> e = {
        {Gc4::describe(), Gc4::make},
        {describe_imp(5), [](const Spec& s) { return make_imp(5, s); }},
        {describe_imp(1), [](const Spec& s) { return make_imp(1, s); }},
        {describe_imp(2), [](const Spec& s) { return make_imp(2, s); }},
        {describe_imp(3), [](const Spec& s) { return make_imp(3, s); }},
        {describe_imp(4), [](const Spec& s) { return make_imp(4, s); }},
        Lagrange::alias("LM4", "stab=none,solver=lu", "schmitt2005 s.5", "Lagrange multipliers + RK4, unstabilised"),
        Lagrange::alias("LMBS4", "stab=baumgarte,alpha=10,beta=10,solver=lu", "schmitt2005 s.5", "Lagrange multipliers + RK4, Baumgarte stabilisation (his Example 1)"),
        Lagrange::alias("LMV4", "stab=v,solver=lu", "schmitt2005 s.5", "Lagrange multipliers + RK4 + impulse velocity correction after each step"),
        Lagrange::alias("LMVD4", "stab=vd,solver=lu", "schmitt2005 s.5", "Lagrange multipliers + RK4 + impulse position projection and velocity correction (steps (a)-(d))"),
        Lagrange::alias("baraff", "stab=baumgarte,alpha=10,beta=10,solver=baraff", "bender2007 s.6", "Lagrange multipliers + RK4, Baumgarte, Baraff's O(n) LDL^T of H"),
        {IterativeMethod::describe(), IterativeMethod::make},
        {Lagrange::describe(), Lagrange::make},
        {LinearMethod::describe(), LinearMethod::make},
        {Ref::describe(), Ref::make},
        {SleMethod::describe(), SleMethod::make},
    };
    // the gate's test-only methods (methods/testing/test_methods.hpp), only with MBBENCH_TEST_METHODS=1
    if (test_methods_enabled())
      for (auto& t : test_method_entries()) e.push_back(std::move(t));
    return e;
  }();
  return entries;
}

}  // namespace mb
