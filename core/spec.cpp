#include "core/spec.hpp"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <stdexcept>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

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
  std::string last;  // the key of the option before (its value may hold commas)
  while (pos <= rest.size()) {
    size_t comma = rest.find(',', pos);
    std::string item = rest.substr(pos, comma == std::string::npos ? std::string::npos : comma - pos);
    auto eq = item.find('=');
    // an item without '=' after an option continues that option's value: ctrl=noise:1,0.2
    if (eq == std::string::npos && !last.empty() && !item.empty()) {
      s.options_[last] += "," + item;
      if (comma == std::string::npos) break;
      pos = comma + 1;
      continue;
    }
    if (eq == std::string::npos || eq == 0 || eq + 1 == item.size())
      throw InputError(source, line, what,
                       fmt::format("option '{}' in '{}' is not of the form key=value", item, text));
    std::string key = item.substr(0, eq);
    if (s.options_.count(key))
      throw InputError(source, line, what, fmt::format("option '{}' given twice in '{}'", key, text));
    s.options_[key] = item.substr(eq + 1);
    last = key;
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

const char* to_string(OptionType t) {
  switch (t) {
    case OptionType::Number: return "number";
    case OptionType::Integer: return "integer";
    case OptionType::Choice: return "choice";
    case OptionType::Text: return "text";
  }
  return "?";
}

namespace {
OptionInfo option(std::string name, std::string def, std::string doc, OptionType type) {
  OptionInfo o;
  o.name = std::move(name);
  o.default_value = std::move(def);
  o.description = std::move(doc);
  o.type = type;
  return o;
}
}  // namespace

OptionInfo OptionInfo::number(std::string name, std::string def, std::string doc, double lo, double hi, bool lo_open,
                              std::vector<std::string> words) {
  OptionInfo o = option(std::move(name), std::move(def), std::move(doc), OptionType::Number);
  o.min = lo;
  o.max = hi;
  o.min_open = lo_open;
  o.choices = std::move(words);
  return o;
}
OptionInfo OptionInfo::integer(std::string name, std::string def, std::string doc, double lo, double hi) {
  OptionInfo o = option(std::move(name), std::move(def), std::move(doc), OptionType::Integer);
  o.min = lo;
  o.max = hi;
  return o;
}
OptionInfo OptionInfo::choice(std::string name, std::string def, std::string doc, std::vector<std::string> values) {
  OptionInfo o = option(std::move(name), std::move(def), std::move(doc), OptionType::Choice);
  o.choices = std::move(values);
  return o;
}
OptionInfo OptionInfo::text(std::string name, std::string def, std::string doc) {
  return option(std::move(name), std::move(def), std::move(doc), OptionType::Text);
}

std::string OptionInfo::range_text() const {
  std::string words;
  for (const auto& w : choices) words += (words.empty() ? "" : ", ") + w;
  if (type == OptionType::Choice) return "one of: " + words;
  if (type == OptionType::Text) return "";
  const bool has_lo = min > -1e308, has_hi = max < 1e308;
  std::string r;
  if (has_lo && has_hi) r = fmt::format("{}{:g}, {:g}]", min_open ? "(" : "[", min, max);
  else if (has_lo) r = fmt::format("{} {:g}", min_open ? ">" : ">=", min);
  else if (has_hi) r = fmt::format("<= {:g}", max);
  if (!words.empty()) r += (r.empty() ? "" : "; or ") + words;
  return r;
}

void Spec::fail(const std::string& message) const { throw InputError(source_, line_, what_, message); }

void Spec::check_options(const std::vector<OptionInfo>& allowed) {
  for (auto& kv : options_) {
    const std::string& k = kv.first;  // (named copies: clang 14 cannot capture structured bindings)
    std::string& v = kv.second;
    const OptionInfo* info = nullptr;
    for (const auto& a : allowed)
      if (a.name == k) info = &a;
    if (!info) {
      std::string names;
      std::vector<std::string> list;
      for (const auto& a : allowed) {
        names += (names.empty() ? "" : ", ") + a.name;
        list.push_back(a.name);
      }
      throw InputError(source_, line_, what_,
                       fmt::format("unknown option '{}' for {} '{}'{}; valid options: {}", k, what_, name_, did_you_mean(k, list),
                                   names.empty() ? "(none)" : names));
    }
    const OptionInfo& o = *info;
    auto bad = [&](const std::string& why) {
      throw InputError(source_, line_, what_,
                       fmt::format("option '{}' of {} '{}': {} (got '{}'; accepted: {})", k, what_, name_, why, v,
                                   o.range_text()));
    };
    switch (o.type) {
      case OptionType::Text: break;
      case OptionType::Choice: {
        bool ok = false;
        for (const auto& c : o.choices) ok = ok || c == v;
        if (!ok) {
          const std::string c = case_insensitive_match(v, o.choices);
          if (c.empty()) bad("not one of the choices" + did_you_mean(v, o.choices));
          v = c;
        }
        break;
      }
      case OptionType::Number:
      case OptionType::Integer: {
        bool word = false;
        for (const auto& c : o.choices) word = word || c == v;
        if (word) break;
        if (const std::string c = case_insensitive_match(v, o.choices); !c.empty()) {
          v = c;
          break;
        }
        const char* b = v.c_str();
        char* e = nullptr;
        errno = 0;
        const double x = std::strtod(b, &e);
        if (e == b || *e != '\0' || errno == ERANGE || !std::isfinite(x)) bad("not a finite number");
        if (o.type == OptionType::Integer && x != std::floor(x)) bad("not an integer");
        if (x < o.min || (o.min_open && x == o.min) || x > o.max) bad("out of range");
        break;
      }
    }
  }
}

namespace {
// the whole text as a finite number (strtod) or as an integer (strtol, base 10)
std::optional<double> read_double(const std::string& text) {
  const char* b = text.c_str();
  char* e = nullptr;
  errno = 0;
  const double v = std::strtod(b, &e);
  if (e == b || *e != '\0' || errno == ERANGE || !std::isfinite(v)) return std::nullopt;
  return v;
}
std::optional<long> read_long(const std::string& text) {
  const char* b = text.c_str();
  char* e = nullptr;
  errno = 0;
  const long v = std::strtol(b, &e, 10);
  if (e == b || *e != '\0' || errno == ERANGE) return std::nullopt;
  return v;
}
}  // namespace

double Spec::get_double(const std::string& key, double fallback) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  const std::optional<double> v = read_double(it->second);
  if (!v)
    throw InputError(source_, line_, what_,
                     fmt::format("option '{}' of '{}' must be a finite number, got '{}'", key, name_, it->second));
  return *v;
}

long Spec::get_int(const std::string& key, long fallback) const {
  auto it = options_.find(key);
  if (it == options_.end()) return fallback;
  const std::optional<long> v = read_long(it->second);
  if (!v)
    throw InputError(source_, line_, what_,
                     fmt::format("option '{}' of '{}' must be an integer, got '{}'", key, name_, it->second));
  return *v;
}

std::string Spec::get_string(const std::string& key, const std::string& fallback) const {
  auto it = options_.find(key);
  return it == options_.end() ? fallback : it->second;
}

MethodOptions::MethodOptions(const Spec& spec, const std::vector<OptionInfo>& declared) : spec_(spec) {
  for (const OptionInfo& o : declared) {
    Value v;
    v.type = o.type;
    if (o.type == OptionType::Number || o.type == OptionType::Integer) v.words = o.choices;
    v.given = spec.has(o.name);
    v.text = v.given ? spec.get_string(o.name, "") : o.default_value;
    v.word = std::find(v.words.begin(), v.words.end(), v.text) != v.words.end();
    if ((o.type == OptionType::Number || o.type == OptionType::Integer) && !v.word) {
      // a given value as Spec reads it (its InputError); a default that does not read is the declaration's bug
      const std::optional<double> d = v.given ? std::optional<double>(spec.get_double(o.name, 0)) : read_double(v.text);
      const std::optional<long> i = o.type == OptionType::Number ? std::optional<long>(0)
                                    : v.given                    ? std::optional<long>(spec.get_int(o.name, 0))
                                                                 : read_long(v.text);
      if (!d || !i)
        throw std::logic_error(fmt::format("{} '{}': the default '{}' of option '{}' is not a {}", spec.what(), spec.name(), v.text,
                                           o.name, to_string(o.type)));
      v.number = *d;
      v.integer = *i;
    }
    values_[o.name] = std::move(v);
  }
  for (const auto& kv : spec.options())
    if (!values_.count(kv.first))
      throw std::logic_error(fmt::format("{} '{}': option '{}' is not declared (Spec::check_options first)", spec.what(), spec.name(),
                                         kv.first));
}

const MethodOptions::Value& MethodOptions::get(const std::string& key, OptionType type) const {
  const auto it = values_.find(key);
  if (it == values_.end())
    throw std::logic_error(fmt::format("{} '{}' declares no option '{}'", spec_.what(), spec_.name(), key));
  if (it->second.type != type)
    throw std::logic_error(fmt::format("option '{}' of {} '{}' is a {}, read as a {}", key, spec_.what(), spec_.name(),
                                       to_string(it->second.type), to_string(type)));
  return it->second;
}

double MethodOptions::number(const std::string& key) const {
  const Value& v = get(key, OptionType::Number);
  if (v.word)
    throw std::logic_error(fmt::format("option '{}' of {} '{}' is the word '{}', not a number (test is() first)", key, spec_.what(),
                                       spec_.name(), v.text));
  return v.number;
}

long MethodOptions::integer(const std::string& key) const {
  const Value& v = get(key, OptionType::Integer);
  if (v.word)
    throw std::logic_error(fmt::format("option '{}' of {} '{}' is the word '{}', not an integer (test is() first)", key, spec_.what(),
                                       spec_.name(), v.text));
  return v.integer;
}

const std::string& MethodOptions::choice(const std::string& key) const { return get(key, OptionType::Choice).text; }

const std::string& MethodOptions::text(const std::string& key) const { return get(key, OptionType::Text).text; }

bool MethodOptions::is(const std::string& key, const std::string& word) const {
  const auto it = values_.find(key);
  if (it == values_.end())
    throw std::logic_error(fmt::format("{} '{}' declares no option '{}'", spec_.what(), spec_.name(), key));
  const Value& v = it->second;
  if (std::find(v.words.begin(), v.words.end(), word) == v.words.end())
    throw std::logic_error(fmt::format("'{}' is not a declared word of option '{}' of {} '{}'", word, key, spec_.what(), spec_.name()));
  return v.text == word;
}

bool MethodOptions::given(const std::string& key) const {
  const auto it = values_.find(key);
  if (it == values_.end())
    throw std::logic_error(fmt::format("{} '{}' declares no option '{}'", spec_.what(), spec_.name(), key));
  return it->second.given;
}

}  // namespace mb

namespace mb {

std::optional<double> option_number(const Spec& spec, const std::string& key) {
  const auto it = spec.options().find(key);
  if (it == spec.options().end() || it->second.empty()) return std::nullopt;
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(it->second.c_str(), &end);
  if (errno != 0 || *end != '\0' || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::string spec_without(const Spec& spec, const std::string& key) {
  std::string out = spec.name();
  char sep = ':';
  for (const auto& [k, v] : spec.options()) {
    if (k == key) continue;
    out += sep;
    out += k + "=" + v;
    sep = ',';
  }
  return out;
}

}  // namespace mb
