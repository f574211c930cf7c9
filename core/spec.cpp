#include "core/spec.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

Spec Spec::parse(const std::string& text, const std::string& what, const std::string& source,
                 int line) {
  Spec s;
  s.what_ = what;
  s.source_ = source;
  s.line_ = line;
  auto colon = text.find(':');
  s.name_ = text.substr(0, colon);
  if (s.name_.empty()) throw InputError(source, line, what, fmt::format("empty {} name in '{}'", what, text));
  if (colon == std::string::npos) return s;
  std::string rest = text.substr(colon + 1);
  size_t pos = 0;
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError(source, line, what,
                       fmt::format("option '{}' in '{}' is not of the form key=value", item, text));
    std::string key = item.substr(0, eq);
    if (s.options_.count(key))
      throw InputError(source, line, what, fmt::format("option '{}' given twice in '{}'", key, text));
    s.options_[key] = item.substr(eq + 1);
    if (comma == std::string::npos) break;
    pos = comma + 1;
  }
  return s;
}

std::string Spec::text() const {
  std::string out = name_;
  char sep = ':';
  for (const auto& [k, v] : options_) {
    out += sep;
    out += k + "=" + v;
    sep = ',';
  }
  return out;
}

void Spec::check_options(const std::vector<OptionInfo>& allowed) const {
  for (const auto& [k, v] : options_) {
    bool ok = false;
    for (const auto& a : allowed) ok = ok || a.name == k;
    if (ok) continue;
    std::string names;
    for (const auto& a : allowed) names += (names.empty() ? "" : ", ") + a.name;
    throw InputError(source_, line_, what_,
                     fmt::format("unknown option '{}' for {} '{}'; valid options: {}", k, what_, name_,
                                 names.empty() ? "(none)" : names));
  }
}

double Spec::get_double(const std::string& key, double fallback) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  const char* b = it->second.c_str();
  char* e = nullptr;
  errno = 0;
  double v = std::strtod(b, &e);
  if (e == b || *e != '\0' || errno == ERANGE || !std::isfinite(v))
    throw InputError(source_, line_, what_,
                     fmt::format("option '{}' of '{}' must be a finite number, got '{}'", key, name_, it->second));
  return v;
}

long Spec::get_int(const std::string& key, long fallback) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  const char* b = it->second.c_str();
  char* e = nullptr;
  errno = 0;
  long v = std::strtol(b, &e, 10);
  if (e == b || *e != '\0' || errno == ERANGE)
    throw InputError(source_, line_, what_,
                     fmt::format("option '{}' of '{}' must be an integer, got '{}'", key, name_, it->second));
  return v;
}

std::string Spec::get_string(const std::string& key, const std::string& fallback) const {
  auto it = options_.find(key);
  return it == options_.end() ? fallback : it->second;
}

}  // namespace mb
