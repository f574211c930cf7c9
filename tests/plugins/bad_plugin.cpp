// Plugins the loader must refuse (tests/plugin_test.cpp), one per MBBENCH_TEST_PLUGIN_<kind>: each
// is refused with an InputError naming its file, and registers nothing. They call no function of
// mbbench (the test binary exports none): the entries are built from inline code only.
#include <memory>
#include <stdexcept>
#include <vector>

#include "methods/plugin.hpp"

namespace {

mb::MethodEntry entry(const char* name) {
  mb::MethodInfo i;
  i.name = name;
  return {i, [](const mb::MethodOptions&) -> std::unique_ptr<mb::Method> { return nullptr; }};
}

[[maybe_unused]] void register_methods(std::vector<mb::MethodEntry>& methods) {
  methods.push_back(entry("test-plugin-a"));
#if defined(MBBENCH_TEST_PLUGIN_clash)
  methods.push_back(entry("GC4"));  // a built-in method's name, after a good one
#elif defined(MBBENCH_TEST_PLUGIN_twice)
  methods.push_back(entry("test-plugin-a"));
#elif defined(MBBENCH_TEST_PLUGIN_badname)
  methods.push_back(entry("test plugin:b"));
#elif defined(MBBENCH_TEST_PLUGIN_throws)
  throw std::runtime_error("the plugin cannot start");
#endif
}

}  // namespace

#if defined(MBBENCH_TEST_PLUGIN_abi)
extern "C" __attribute__((visibility("default"))) const mb::PluginDescriptor* mbbench_plugin() {
  static const mb::PluginDescriptor d{mb::kPluginAbi + 1, "test", register_methods};
  return &d;
}
#elif defined(MBBENCH_TEST_PLUGIN_none)
extern "C" __attribute__((visibility("default"))) int not_the_entry_point() { return 0; }
#else
MBBENCH_PLUGIN("test", register_methods)
#endif
