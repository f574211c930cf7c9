// The registry of methods: one line per method, sorted by name. Adding a method = its file in
// methods/<family>/ plus one line here. (An explicit list, not self-registering statics, which a
// static library can drop.)
#include "methods/higher_order/imp.hpp"
#include "methods/impulse/methods.hpp"
#include "methods/method.hpp"
#include "methods/reduced/gc4.hpp"
#include "methods/reduced/ref.hpp"

namespace mb {

const std::vector<MethodEntry>& method_registry() {
  static const std::vector<MethodEntry> entries = {
      {Gc4::describe(), Gc4::make},
      {describe_imp(5), [](const Spec& s) { return make_imp(5, s); }},
      {describe_imp(1), [](const Spec& s) { return make_imp(1, s); }},
      {describe_imp(2), [](const Spec& s) { return make_imp(2, s); }},
      {describe_imp(3), [](const Spec& s) { return make_imp(3, s); }},
      {describe_imp(4), [](const Spec& s) { return make_imp(4, s); }},
      {IterativeMethod::describe(), IterativeMethod::make},
      {LinearMethod::describe(), LinearMethod::make},
      {Ref::describe(), Ref::make},
      {SleMethod::describe(), SleMethod::make},
  };
  return entries;
}

}  // namespace mb
