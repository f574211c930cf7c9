// The provenance of this build and machine.
#include "records/record.hpp"

#include <ctime>
#include <fstream>
#include <string>
#include <thread>

#include <Eigen/Core>
#include <boost/version.hpp>
#include <cholmod.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include "core/toml.hpp"

#include "core/build_info.hpp"

namespace mb {

namespace {
std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line))
    if (line.rfind("model name", 0) == 0) {
      auto c = line.find(':');
      return c == std::string::npos ? line : line.substr(c + 2);
    }
  return "unknown";
}
// per-core cache sizes by level and type, in the order the kernel lists them
std::string cpu_caches() {
  std::string out;
  for (int i = 0;; ++i) {
    const std::string dir = fmt::format("/sys/devices/system/cpu/cpu0/cache/index{}/", i);
    std::ifstream level(dir + "level"), type(dir + "type"), size(dir + "size");
    std::string l, t, s;
    if (!(level >> l) || !(type >> t) || !(size >> s)) break;
    const std::string kind = t == "Data" ? "d" : t == "Instruction" ? "i" : "";
    out += fmt::format("{}L{}{} {}", out.empty() ? "" : " ", l, kind, s);
  }
  return out.empty() ? "unknown" : out;
}
std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}
}  // namespace

Provenance current_provenance() {
  static const std::string cpu = cpu_model(), caches = cpu_caches();
  Provenance p;
  p.mbbench = build::version();
  p.git_commit = build::git_commit();
  p.compiler = build::compiler();
  p.flags = build::flags();
  p.build_type = build::build_type();
  p.cpu = cpu;
  p.caches = caches;
  p.cores = static_cast<int>(std::thread::hardware_concurrency());
  p.date = utc_now();
  p.libraries = {
      {"eigen", fmt::format("{}.{}.{}", EIGEN_WORLD_VERSION, EIGEN_MAJOR_VERSION, EIGEN_MINOR_VERSION)},
      {"boost", fmt::format("{}.{}.{}", BOOST_VERSION / 100000, BOOST_VERSION / 100 % 1000, BOOST_VERSION % 100)},
      {"fmt", fmt::format("{}.{}.{}", FMT_VERSION / 10000, FMT_VERSION / 100 % 100, FMT_VERSION % 100)},
      {"tomlplusplus", fmt::format("{}.{}.{}", TOML_LIB_MAJOR, TOML_LIB_MINOR, TOML_LIB_PATCH)},
      {"nlohmann_json", fmt::format("{}.{}.{}", NLOHMANN_JSON_VERSION_MAJOR, NLOHMANN_JSON_VERSION_MINOR, NLOHMANN_JSON_VERSION_PATCH)},
      {"cholmod", fmt::format("{}.{}.{}", CHOLMOD_MAIN_VERSION, CHOLMOD_SUB_VERSION, CHOLMOD_SUBSUB_VERSION)}};
  return p;
}

std::string machine_key(const Provenance& p) {
  return fmt::format("{} | {} | {} cores", p.cpu, p.caches.empty() ? "caches unknown" : p.caches, p.cores);
}

}  // namespace mb
