// Method plugins (docs/contributing.md "Out-of-tree methods"): a shared library that adds methods to
// the registry at run time, loaded by `mbbench ... --plugin FILE.so` or MBBENCH_PLUGINS.
//
// A plugin defines, in one of its files,
//
//   void register_methods(std::vector<mb::MethodEntry>& methods) { methods.push_back({...}); }
//   MBBENCH_PLUGIN("my-methods 1.0", register_methods)
//
// which exports the C-linkage entry point `mbbench_plugin`. The loader reads the descriptor it
// returns field by field: the ABI version first, so that a plugin built against another version of
// these headers is refused without reading any other field. The methods a plugin registers are
// staged and checked together (names well formed, none taken, none twice); either all of them
// join the registry or none does.
//
// The plugin is compiled against the installed headers (find_package(mbbench): mbbench::headers)
// and links no mbbench library: its references resolve to the mbbench executable that loads it,
// which exports the library's symbols.
#pragma once
#include <string>
#include <vector>

#include "methods/method.hpp"

namespace mb {

// The version of the plugin interface: the layout of every type a plugin sees (Method, MethodInfo,
// MethodEntry, Spec, MethodOptions, Model, State, StepStats and the building blocks of the installed
// headers). A change to any of them changes this number.
inline constexpr int kPluginAbi = 2;

// What the entry point returns. Its first member stays an int in every version.
struct PluginDescriptor {
  int abi = kPluginAbi;
  const char* version = "";  // the plugin's own version ("euler-plugin 1.0"), recorded in provenance
  void (*register_methods)(std::vector<MethodEntry>& methods) = nullptr;
};

// A loaded plugin: its path (absolute), its version string and the methods it added.
struct PluginInfo {
  std::string path, version;
  std::vector<std::string> methods;
};

// Loads each file in order; a file loaded already is skipped. Throws InputError naming the file
// when it cannot be opened, has no entry point, was built for another ABI version, throws while
// registering, or registers no method, a malformed name, one name twice or a name that is taken;
// the registry is then as before the call for that file. Call before the registry is used from
// several threads.
void load_plugins(const std::vector<std::string>& files);
// The files of MBBENCH_PLUGINS (colon-separated; empty entries ignored).
std::vector<std::string> plugins_from_env();
// Every plugin loaded, in load order.
const std::vector<PluginInfo>& loaded_plugins();

}  // namespace mb

// The plugin's entry point: `version` a string literal, `fn` its registration function.
#define MBBENCH_PLUGIN(version, fn)                                                          \
  extern "C" __attribute__((visibility("default"))) const mb::PluginDescriptor* mbbench_plugin() { \
    static const mb::PluginDescriptor descriptor{mb::kPluginAbi, version, fn};               \
    return &descriptor;                                                                      \
  }
