#include "core/toml_reader.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string_view>
#include <fstream>
#include <sstream>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/error.hpp"
#include "core/suggest.hpp"

namespace mb {

int toml_line(const toml::node& n) { return static_cast<int>(n.source().begin.line); }

namespace {
// the first character not allowed (see below), or text.size(); 16 characters at a time (SSE2
// through GCC's vector extension), then one at a time
size_t first_bad_character(std::string_view text) {
  using V = unsigned char __attribute__((vector_size(16)));
  const auto bad = [](unsigned char c) { return (c < 0x20 && c != '\t' && c != '\n' && c != '\r') || c >= 0x7f; };
  size_t i = 0;
  for (; i + 16 <= text.size(); i += 16) {
    V c;
    std::memcpy(&c, text.data() + i, 16);
    // control characters but tab, LF and CR; DEL and every non-ASCII byte
    const auto any = ((c < 0x20) & (c != '\t') & (c != '\n') & (c != '\r')) | (c >= 0x7f);
    std::uint64_t w[2];
    std::memcpy(w, &any, 16);
    if ((w[0] | w[1]) != 0) break;
  }
  for (; i < text.size(); ++i)
    if (bad(static_cast<unsigned char>(text[i]))) return i;
  return text.size();
}
}  // namespace

// The TOML files mbbench reads are ASCII: a non-ASCII character is written as an escape inside a
// string (\uXXXX, \UXXXXXXXX; mbbench export-scene does so), and raw control characters (all but
// tab and the line ends) are not TOML at all. Checked before toml++ sees the text, with the line:
// toml++ 3.3 (Debian's) has undefined behaviour on non-ASCII text in some places -- its test for
// non-ASCII whitespace, called wherever whitespace may stand and on its error paths, reaches
// __builtin_unreachable for most non-ASCII code points (e.g. U+00E9) -- found by
// tests/fuzz/scene_fuzz.cpp and experiment_fuzz.cpp.
void check_toml_characters(std::string_view text, const std::string& file) {
  const size_t at = first_bad_character(text);
  if (at == text.size()) return;
  const unsigned char c = static_cast<unsigned char>(text[at]);
  const int line = 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<std::ptrdiff_t>(at), '\n'));
  if (c < 0x80)
    throw InputError(file, line, "", fmt::format("not valid TOML: control character U+{:04X} (write it as \\u{:04X} inside a string)", c, c));
  throw InputError(file, line, "",
                   "a non-ASCII character: mbbench reads ASCII TOML files; write it as a \\uXXXX escape inside a string "
                   "(toml++ 3.3 misbehaves on some non-ASCII text)");
}

toml::table parse_toml(std::string_view text, const std::string& file) {
  check_toml_characters(text, file);
  try {
    return toml::parse(text, file);
  } catch (const toml::parse_error& e) {
    throw InputError(file, static_cast<int>(e.source().begin.line), "", fmt::format("not valid TOML: {}", e.description()));
  }
}

toml::table read_toml_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open file");
  std::stringstream ss;
  ss << in.rdbuf();
  return parse_toml(ss.str(), path);
}

TableReader::TableReader(const toml::table& t, std::string file, std::string ctx, const std::vector<std::string>& valid,
                         int line_offset)
    : t_(t), file_(std::move(file)), ctx_(std::move(ctx)), line_offset_(line_offset) {
  check_unknown(valid);
}

void TableReader::fail(const std::string& key, const std::string& msg) const {
  const toml::node* n = t_.get(key);
  throw InputError(file_, n ? at(*n) : at(t_), field(key), msg);
}

const toml::node& TableReader::need(const std::string& key) const {
  const toml::node* n = t_.get(key);
  if (!n) throw InputError(file_, at(t_), field(key), "missing required field");
  return *n;
}

double TableReader::number(const toml::node& n, const std::string& key) const {
  double v;
  if (auto f = n.as_floating_point()) v = f->get();
  else if (auto i = n.as_integer()) v = static_cast<double>(i->get());
  else throw InputError(file_, at(n), field(key), fmt::format("expected a number, got {}", type_name(n)));
  if (!std::isfinite(v)) throw InputError(file_, at(n), field(key), fmt::format("number must be finite, got {}", v));
  return v;
}

double TableReader::positive(const std::string& key) const {
  double v = num(key);
  if (!(v > 0)) fail(key, fmt::format("must be positive, got {}", v));
  return v;
}

long TableReader::integer(const std::string& key, long lo, long hi) const {
  const double v = num(key);
  if (!(v == std::floor(v) && v >= static_cast<double>(lo) && v <= static_cast<double>(hi)))
    fail(key, fmt::format("must be a whole number in [{}, {}], got {}", lo, hi, v));
  return static_cast<long>(v);
}

std::string TableReader::str(const std::string& key) const {
  const toml::node& n = need(key);
  if (auto s = n.as_string()) return s->get();
  throw InputError(file_, at(n), field(key), fmt::format("expected a string, got {}", type_name(n)));
}

bool TableReader::boolean(const std::string& key, bool fallback) const {
  if (!has(key)) return fallback;
  const toml::node& n = need(key);
  if (auto b = n.as_boolean()) return b->get();
  throw InputError(file_, at(n), field(key), fmt::format("expected true or false, got {}", type_name(n)));
}

const toml::array& TableReader::array(const std::string& key) const {
  const toml::node& n = need(key);
  const toml::array* a = n.as_array();
  if (!a) throw InputError(file_, at(n), field(key), fmt::format("expected an array, got {}", type_name(n)));
  return *a;
}

std::vector<double> TableReader::numbers(const std::string& key, size_t expect) const {
  const toml::array& a = array(key);
  if (expect && a.size() != expect)
    throw InputError(file_, at(need(key)), field(key), fmt::format("expected {} numbers, got {}", expect, a.size()));
  std::vector<double> v;
  for (const auto& e : a) v.push_back(number(e, key));
  return v;
}

std::vector<std::string> TableReader::strings(const std::string& key, std::vector<int>* lines) const {
  std::vector<std::string> v;
  const toml::array& a = array(key);
  for (size_t i = 0; i < a.size(); ++i) {
    const auto* s = a[i].as_string();
    if (!s)
      throw InputError(file_, at(a[i]), fmt::format("{}[{}]", field(key), i),
                       fmt::format("expected a string, got {}", type_name(a[i])));
    v.push_back(s->get());
    if (lines) lines->push_back(at(a[i]));
  }
  return v;
}

std::vector<std::string> TableReader::string_or_strings(const std::string& key) const {
  const toml::node& n = need(key);
  if (n.is_string()) return {str(key)};
  auto v = strings(key);
  if (v.empty()) fail(key, "expected a string or a non-empty array of strings");
  return v;
}

std::string TableReader::choice(const std::string& key, const std::vector<std::string>& allowed,
                                const std::string& fallback) const {
  if (!has(key)) return fallback;
  std::string v = str(key);
  if (std::find(allowed.begin(), allowed.end(), v) != allowed.end()) return v;
  fail(key, fmt::format("\"{}\" is not one of: {}", v, fmt::join(allowed, ", ")));
}

const toml::table* TableReader::subtable(const std::string& key) const {
  const toml::node* n = t_.get(key);
  if (!n) return nullptr;
  const toml::table* t = n->as_table();
  if (!t) throw InputError(file_, at(*n), field(key), fmt::format("expected a [{}] table", key));
  return t;
}

std::vector<const toml::table*> TableReader::tables(const std::string& key) const {
  std::vector<const toml::table*> out;
  const toml::node* n = t_.get(key);
  if (!n) return out;
  const toml::array* a = n->as_array();
  if (!a) throw InputError(file_, at(*n), field(key), fmt::format("expected [[{}]] tables", key));
  for (const auto& e : *a) {
    const toml::table* t = e.as_table();
    if (!t) throw InputError(file_, at(e), field(key), fmt::format("expected [[{}]] tables", key));
    out.push_back(t);
  }
  return out;
}

std::string TableReader::type_name(const toml::node& n) {
  std::ostringstream os;
  os << n.type();
  return os.str();
}

void TableReader::check_unknown(const std::vector<std::string>& valid) const {
  for (const auto& [k, node] : t_) {
    std::string key(k.str());
    if (std::find(valid.begin(), valid.end(), key) != valid.end()) continue;
    throw InputError(file_, at(node), field(key),
                     fmt::format("unknown field{}; valid fields: {}", did_you_mean(key, valid), fmt::join(valid, ", ")));
  }
}

}  // namespace mb
