#include "models/formats/scene_lexer.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <new>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "core/suggest.hpp"
#include "models/formats/scene_split.hpp"

namespace mb {

namespace {

bool is_space(char c) { return c == ' ' || c == '\t'; }
bool is_digit(char c) { return c >= '0' && c <= '9'; }
// A-Z a-z 0-9 _ -, by a table: the lexer's most frequent test
constexpr auto kBareKey = [] {
  std::array<bool, 256> t{};
  for (int c = 0; c < 256; ++c)
    t[static_cast<size_t>(c)] = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
  return t;
}();
bool is_bare_key(char c) { return kBareKey[static_cast<unsigned char>(c)]; }
// where toml++ ends a value
bool ends_value(std::string_view l, size_t i) { return i == l.size() || is_space(l[i]) || l[i] == ',' || l[i] == ']' || l[i] == '#'; }

constexpr size_t kMaxElements = 16;  // of one array (longer ones go to toml++)
constexpr size_t kMaxNumberChars = 40;
// 10^k, exact in a double for k <= 22
constexpr double kPow10[] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,  1e8,  1e9,  1e10, 1e11,
                             1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};

class Lexer {
 public:
  Lexer(std::string_view l, int line, LexedPart& out) : l_(l), line_(line), out_(out) {}

  void skip_space() {
    while (i_ < l_.size() && is_space(l_[i_])) ++i_;
  }
  // the rest of the line is empty or a comment
  bool at_end() {
    skip_space();
    return i_ == l_.size() || l_[i_] == '#';
  }
  bool key(std::string_view& k) {
    const size_t k0 = i_;
    while (i_ < l_.size() && is_bare_key(l_[i_])) ++i_;
    if (i_ == k0) return false;
    k = l_.substr(k0, i_ - k0);
    skip_space();
    if (i_ == l_.size() || l_[i_] != '=') return false;
    ++i_;
    skip_space();
    return true;
  }
  bool value(LineValue& v, int depth) {
    v = LineValue{};
    v.line = line_;
    if (i_ == l_.size()) return false;
    const char c = l_[i_];
    if (c == '"') return string(v);
    if (c == '[') return depth < 2 && array(v, depth);  // a top-level array, or one inside it
    if (c == 't' || c == 'f') return boolean(v);
    return number(v);
  }

 private:
  bool string(LineValue& v) {
    const size_t s = i_ + 1;
    size_t e = s;
    while (e < l_.size() && l_[e] != '"' && l_[e] != '\\') ++e;
    if (e == l_.size() || l_[e] != '"') return false;  // an escape or no closing quote
    if (e == s && e + 1 < l_.size() && l_[e + 1] == '"') return false;  // """: a multi-line string
    v.kind = LineValue::Kind::String;
    v.text = l_.substr(s, e - s);
    i_ = e + 1;
    return ends_value(l_, i_);
  }
  bool boolean(LineValue& v) {
    for (const std::string_view word : {std::string_view("true"), std::string_view("false")})
      if (l_.compare(i_, word.size(), word) == 0 && ends_value(l_, i_ + word.size())) {
        v.kind = LineValue::Kind::Boolean;
        v.flag = word == "true";
        i_ += word.size();
        return true;
      }
    return false;
  }
  // [+-]? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?: a float with a fraction or an
  // exponent, else an integer
  bool number(LineValue& v) {
    const size_t s = i_;
    size_t i = i_;
    const bool negative = l_[i] == '-';
    if (l_[i] == '+' || l_[i] == '-') ++i;
    const size_t d0 = i;
    if (i == l_.size() || !is_digit(l_[i])) return false;
    // the digits as an integer m (while it has at most 19 of them) and the count of fraction digits
    std::uint64_t m = 0;
    size_t digits = 0, fraction_digits = 0;
    const auto digit = [&](char c) {
      if (digits < 19) m = 10 * m + static_cast<std::uint64_t>(c - '0');
      if (m != 0 || digits != 0) ++digits;  // leading zeros do not count
    };
    if (l_[i] == '0') ++i;
    else
      while (i < l_.size() && is_digit(l_[i])) digit(l_[i++]);
    const size_t int_digits = i - d0;
    bool is_float = false;
    if (i < l_.size() && l_[i] == '.') {
      ++i;
      if (i == l_.size() || !is_digit(l_[i])) return false;
      while (i < l_.size() && is_digit(l_[i])) {
        digit(l_[i++]);
        ++fraction_digits;
      }
      is_float = true;
    }
    bool has_exponent = false;
    if (i < l_.size() && (l_[i] == 'e' || l_[i] == 'E')) {
      ++i;
      if (i < l_.size() && (l_[i] == '+' || l_[i] == '-')) ++i;
      if (i == l_.size() || !is_digit(l_[i])) return false;
      while (i < l_.size() && is_digit(l_[i])) ++i;
      is_float = true;
      has_exponent = true;
    }
    if (!ends_value(l_, i) || i - s > kMaxNumberChars) return false;  // 012, 1_000, 0x1f, dates, ...
    const char* first = l_.data() + (l_[s] == '+' ? s + 1 : s);
    const char* last = l_.data() + i;
    if (is_float) {
      double x = 0;
      if (!has_exponent && digits <= 15 && fraction_digits <= 22) {
        // m < 10^15 < 2^53 and 10^k (k <= 22) are exact doubles, so one correctly rounded division
        // gives the correctly rounded value from_chars gives (Clinger's fast path)
        x = static_cast<double>(m) / kPow10[fraction_digits];
        if (negative) x = -x;
      } else {
        const auto r = std::from_chars(first, last, x);
        if (r.ec != std::errc{} || r.ptr != last || !std::isfinite(x)) return false;
      }
      v.kind = LineValue::Kind::Float;
      v.number = x;
    } else {
      if (int_digits > 15) return false;
      std::int64_t x = 0;
      const auto r = std::from_chars(first, last, x);
      if (r.ec != std::errc{} || r.ptr != last) return false;
      v.kind = LineValue::Kind::Integer;
      v.number = static_cast<double>(x);
    }
    i_ = i;
    return true;
  }
  // [a, b, ...] on the line, a trailing comma allowed; the elements go to out_.values together
  bool array(LineValue& v, int depth) {
    ++i_;
    std::vector<LineValue>& elems = out_.scratch[depth];  // an array inside uses the next one
    elems.clear();
    for (;;) {
      skip_space();
      if (i_ == l_.size()) return false;
      if (l_[i_] == ']') break;
      if (elems.size() == kMaxElements) return false;
      if (!value(elems.emplace_back(), depth + 1)) return false;
      skip_space();
      if (i_ == l_.size()) return false;
      if (l_[i_] == ',') ++i_;
      else if (l_[i_] != ']') return false;
    }
    ++i_;
    v.kind = LineValue::Kind::Array;
    v.line = line_;
    v.first = static_cast<unsigned>(out_.values.size());
    v.count = static_cast<unsigned>(elems.size());
    out_.values.insert(out_.values.end(), elems.begin(), elems.end());
    return ends_value(l_, i_);
  }

  std::string_view l_;
  size_t i_ = 0;
  int line_;
  LexedPart& out_;
};

}  // namespace

namespace {
// a == b for short keys: most keys of a table differ in their first character
bool same_key(std::string_view a, std::string_view b) {
  return a.size() == b.size() && (a.empty() || (a[0] == b[0] && a.compare(b) == 0));
}
}  // namespace

bool lex_part(std::string_view text, int line_offset, LexedPart& out) {
  out.tables.clear();
  out.fields.clear();
  out.values.clear();
  const bool has_cr = text.find('\r') != std::string_view::npos;  // else no line needs the CR checks
  size_t pos = 0;
  int line = line_offset;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    const bool has_newline = eol != std::string_view::npos;
    if (!has_newline) eol = text.size();
    std::string_view l = text.substr(pos, eol - pos);
    pos = eol + 1;
    ++line;
    if (has_cr) {
      if (has_newline && !l.empty() && l.back() == '\r') l.remove_suffix(1);  // CRLF
      if (l.find('\r') != std::string_view::npos) return false;               // a lone CR
    }
    Lexer lx(l, line, out);
    if (lx.at_end()) continue;  // blank or a comment
    size_t i = 0;
    while (is_space(l[i])) ++i;
    if (l[i] == '[') {
      const std::string_view kind = array_header(l);
      if (kind.empty()) return false;
      out.tables.push_back({kind, line, static_cast<unsigned>(out.fields.size()), 0});
      continue;
    }
    if (out.tables.empty()) return false;
    LineField f;
    if (!lx.key(f.key) || !lx.value(f.value, 0) || !lx.at_end()) return false;
    LexedTable& t = out.tables.back();
    for (unsigned k = t.first; k < t.first + t.count; ++k)
      if (same_key(out.fields[k].key, f.key)) return false;  // a key given twice: toml++'s error
    out.fields.push_back(f);
    ++t.count;
  }
  return true;
}

LineTable::LineTable(const LexedPart& part, const LexedTable& t, const std::string& file, std::string_view kind, size_t index,
                     const std::vector<std::string>& valid, std::vector<std::string_view>* checked)
    : part_(part), t_(t), file_(file), kind_(kind), index_(index) {
  bool same = checked && checked->size() == t.count;
  for (unsigned k = t.first; k < t.first + t.count; ++k) {
    const std::string_view key = part.fields[k].key;
    present_ |= std::uint64_t{1} << key_bit(key);
    same = same && same_key((*checked)[k - t.first], key);
  }
  if (same) return;
  // the first unknown key in key order, as TableReader (toml++'s tables are ordered by key)
  const LineField* unknown = nullptr;
  for (unsigned k = t.first; k < t.first + t.count; ++k) {
    const LineField& f = part.fields[k];
    bool known = false;
    for (size_t k2 = 0; k2 < valid.size() && !known; ++k2) known = same_key(valid[k2], f.key);
    if (!known && (!unknown || f.key < unknown->key)) unknown = &f;
  }
  if (unknown)
    throw InputError(file_, unknown->value.line, field(unknown->key),
                     fmt::format("unknown field{}; valid fields: {}", did_you_mean(std::string(unknown->key), valid), fmt::join(valid, ", ")));
  if (checked) {
    checked->clear();
    for (unsigned k = t.first; k < t.first + t.count; ++k) checked->push_back(part.fields[k].key);
  }
}

std::string LineTable::field(std::string_view key) const {
  return fmt::format("{}[{}].{}", kind_, index_, key);
}

void LineTable::fail(std::string_view key, const std::string& msg) const {
  const LineValue* v = get(key);
  throw InputError(file_, v ? v->line : t_.line, field(key), msg);
}

const LineValue* LineTable::get(std::string_view key) const {
  if (!(present_ >> key_bit(key) & 1)) return nullptr;
  for (unsigned k = t_.first; k < t_.first + t_.count; ++k)
    if (same_key(part_.fields[k].key, key)) return &part_.fields[k].value;
  return nullptr;
}

const LineValue& LineTable::need(std::string_view key) const {
  const LineValue* v = get(key);
  if (!v) throw InputError(file_, t_.line, field(key), "missing required field");
  return *v;
}

std::string_view LineTable::type_name(const LineValue& v) {
  switch (v.kind) {
    case LineValue::Kind::String: return "string";
    case LineValue::Kind::Integer: return "integer";
    case LineValue::Kind::Float: return "floating-point";
    case LineValue::Kind::Boolean: return "boolean";
    case LineValue::Kind::Array: return "array";
  }
  return "none";
}

double LineTable::number(const LineValue& v, std::string_view key) const {
  if (v.kind != LineValue::Kind::Float && v.kind != LineValue::Kind::Integer)
    throw InputError(file_, v.line, field(key), fmt::format("expected a number, got {}", type_name(v)));
  if (!std::isfinite(v.number)) throw InputError(file_, v.line, field(key), fmt::format("number must be finite, got {}", v.number));
  return v.number;
}

double LineTable::positive(std::string_view key) const {
  const double v = num(key);
  if (!(v > 0)) fail(key, fmt::format("must be positive, got {}", v));
  return v;
}

std::string LineTable::str(std::string_view key) const {
  const LineValue& v = need(key);
  if (v.kind == LineValue::Kind::String) return std::string(v.text);
  throw InputError(file_, v.line, field(key), fmt::format("expected a string, got {}", type_name(v)));
}

bool LineTable::boolean(std::string_view key, bool fallback) const {
  const LineValue* v = get(key);
  if (!v) return fallback;
  if (v->kind == LineValue::Kind::Boolean) return v->flag;
  throw InputError(file_, v->line, field(key), fmt::format("expected true or false, got {}", type_name(*v)));
}

const LineValue& LineTable::array(std::string_view key) const {
  const LineValue& v = need(key);
  if (v.kind != LineValue::Kind::Array)
    throw InputError(file_, v.line, field(key), fmt::format("expected an array, got {}", type_name(v)));
  return v;
}

std::vector<double> LineTable::numbers(std::string_view key, size_t expect) const {
  const LineValue& a = array(key);
  if (expect && a.count != expect)
    throw InputError(file_, a.line, field(key), fmt::format("expected {} numbers, got {}", expect, a.count));
  std::vector<double> v;
  v.reserve(a.count);
  for (size_t i = 0; i < a.count; ++i) v.push_back(number(element(a, i), key));
  return v;
}

LexAhead::~LexAhead() {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  cv_.notify_all();
  worker_.join();
}

const LexedPart* LexAhead::get(size_t k) {
  std::unique_lock<std::mutex> lock(mutex_);
  cv_.wait(lock, [&] { return lexed_ > k; });
  const Slot& s = slots_[k % kSlots];
  return s.ok ? &s.part : nullptr;
}

void LexAhead::done(size_t k) {
  {
    const std::lock_guard<std::mutex> lock(mutex_);
    built_ = k + 1;
  }
  cv_.notify_all();
}

void LexAhead::run() {
  for (size_t k = 1; k < parts_.size(); ++k) {
    {
      std::unique_lock<std::mutex> lock(mutex_);
      cv_.wait(lock, [&] { return stop_ || k < built_ + kSlots; });
      if (stop_) return;
    }
    Slot& s = slots_[k % kSlots];
    try {
      s.ok = lex_part(parts_[k].text, parts_[k].line_offset, s.part);
    } catch (const std::bad_alloc&) {
      s.ok = false;  // toml++ reads the part on the builder's thread (and meets the shortage there)
    }
    {
      const std::lock_guard<std::mutex> lock(mutex_);
      lexed_ = k + 1;
    }
    cv_.notify_all();
  }
}

}  // namespace mb
