// The plugin loader (methods/plugin.hpp): dlopen, the entry point, the ABI check, then the methods
// staged, checked together and committed together.
#include "methods/plugin.hpp"

#include <dlfcn.h>

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

namespace {

std::vector<PluginInfo>& plugins() {
  static std::vector<PluginInfo> v;
  return v;
}

// A method name as a spec takes it: letters, digits and - _ . + only (no ':', ',', '=' or space).
bool well_formed(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.' || c == '+')) return false;
  return true;
}

// Where a taken name comes from, for the error.
std::string owner_of(const MethodEntry& e) {
  return e.info.plugin.empty() ? "a built-in method" : "a method of the plugin " + e.info.plugin;
}

// The handle closes unless released: a plugin refused leaves nothing mapped.
struct Handle {
  void* h = nullptr;
  ~Handle() {
    if (h) dlclose(h);
  }
  void* release() {
    void* r = h;
    h = nullptr;
    return r;
  }
};

void load_plugin(const std::string& file) {
  namespace fs = std::filesystem;
  auto fail = [&](const std::string& why) { return InputError(file, 0, "", why); };
  std::error_code ec;
  if (!fs::is_regular_file(file, ec)) throw fail("no such file");
  const std::string path = fs::weakly_canonical(fs::absolute(file), ec).string();
  for (const PluginInfo& p : plugins())
    if (p.path == path) return;

  Handle handle;
  // dlopen searches the library path for a name without a slash: the path is always absolute here
  handle.h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!handle.h) {
    const char* why = dlerror();
    throw fail(fmt::format("cannot load the shared library: {}", why ? why : "unknown reason"));
  }
  using Entry = const PluginDescriptor* (*)();
  void* symbol = dlsym(handle.h, "mbbench_plugin");
  if (!symbol) throw fail("no entry point `mbbench_plugin` (a plugin defines it with MBBENCH_PLUGIN, methods/plugin.hpp)");
  const PluginDescriptor* d = reinterpret_cast<Entry>(symbol)();
  if (!d) throw fail("its entry point `mbbench_plugin` returned no descriptor");
  // the first member alone is read before the version is known to match
  if (d->abi != kPluginAbi)
    throw fail(fmt::format("plugin ABI version {}, this mbbench takes {}: rebuild the plugin against this mbbench's headers",
                           d->abi, kPluginAbi));
  if (!d->register_methods) throw fail("its descriptor has no registration function");
  const std::string version = d->version ? d->version : "";

  std::vector<MethodEntry> staged;
  try {
    d->register_methods(staged);
  } catch (const std::exception& e) {
    throw fail(fmt::format("its registration function threw: {}", e.what()));
  }
  if (staged.empty()) throw fail("it registers no method");
  std::set<std::string> names;
  for (const MethodEntry& e : staged) {
    const std::string& n = e.info.name;
    if (!well_formed(n))
      throw fail(fmt::format("method name '{}' is not a spec name (letters, digits and - _ . + only)", n));
    if (!e.make) throw fail(fmt::format("method '{}' has no factory (MethodEntry::make)", n));
    if (!names.insert(n).second) throw fail(fmt::format("method '{}' is registered twice", n));
    if (const MethodEntry* taken = find_method(n)) throw fail(fmt::format("method '{}' clashes with {}", n, owner_of(*taken)));
  }
  // every name checked: commit all of them
  PluginInfo info{path, version, {}};
  for (MethodEntry& e : staged) {
    e.info.plugin = path;
    e.info.plugin_version = version;
    info.methods.push_back(e.info.name);
    register_method(std::move(e));
  }
  handle.release();  // the methods' code stays mapped for the life of the process
  plugins().push_back(std::move(info));
}

}  // namespace

void load_plugins(const std::vector<std::string>& files) {
  for (const std::string& f : files) load_plugin(f);
}

std::vector<std::string> plugins_from_env() {
  std::vector<std::string> v;
  const char* env = std::getenv("MBBENCH_PLUGINS");
  if (!env) return v;
  const std::string s = env;
  size_t pos = 0;
  while (pos <= s.size()) {
    const size_t c = s.find(':', pos);
    const std::string item = s.substr(pos, c == std::string::npos ? std::string::npos : c - pos);
    if (!item.empty()) v.push_back(item);
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return v;
}

const std::vector<PluginInfo>& loaded_plugins() { return plugins(); }

}  // namespace mb
