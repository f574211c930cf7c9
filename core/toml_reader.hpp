// Reading TOML tables with errors that name the file, the line and the field (scene files,
// experiment files, published values). Unknown (misspelled) keys are reported first, with their
// line and the list of valid keys, before a missing key could be reported in their place.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "core/toml.hpp"

namespace mb {

int toml_line(const toml::node& n);  // 1-based source line of a node

// The characters mbbench's TOML files may hold (ASCII, no control characters but tab and line
// breaks); anything else is an InputError with its line (toml++ 3.3 misbehaves on the rest).
void check_toml_characters(std::string_view text, const std::string& file);
// Parses TOML text; a syntax error is an InputError with the file and line.
toml::table parse_toml(std::string_view text, const std::string& file);
// Reads a whole file and parses it; a missing file is an InputError.
toml::table read_toml_file(const std::string& path);

class TableReader {
 public:
  // ctx prefixes field names in messages ("body[2]" -> "body[2].mass"); valid lists the keys
  // line_offset: added to the lines toml++ reports, for a table parsed from a part of a file that
  // starts after line_offset lines (models/formats/scene_reader.cpp reads large scenes in parts)
  TableReader(const toml::table& t, std::string file, std::string ctx, const std::vector<std::string>& valid,
              int line_offset = 0);

  [[noreturn]] void fail(const std::string& key, const std::string& msg) const;
  std::string field(const std::string& key) const { return ctx_.empty() ? key : ctx_ + "." + key; }
  int line() const { return at(t_); }
  int at(const toml::node& n) const { return toml_line(n) + line_offset_; }  // a node's line in the file
  const std::string& file() const { return file_; }
  const toml::table& table() const { return t_; }

  bool has(const std::string& key) const { return t_.contains(key); }
  const toml::node& need(const std::string& key) const;

  // scalars
  double number(const toml::node& n, const std::string& key) const;  // finite float or integer
  double num(const std::string& key) const { return number(need(key), key); }
  double num(const std::string& key, double fallback) const { return has(key) ? num(key) : fallback; }
  double positive(const std::string& key) const;
  // a whole number in [lo, hi] (a TOML integer, or a float without a fraction)
  long integer(const std::string& key, long lo, long hi) const;
  long integer(const std::string& key, long fallback, long lo, long hi) const { return has(key) ? integer(key, lo, hi) : fallback; }
  std::string str(const std::string& key) const;
  std::string str(const std::string& key, const std::string& fallback) const { return has(key) ? str(key) : fallback; }
  bool boolean(const std::string& key, bool fallback) const;

  // arrays
  const toml::array& array(const std::string& key) const;
  std::vector<double> numbers(const std::string& key, size_t expect = 0) const;
  // each element is a string; `lines` (if given) receives each element's line
  std::vector<std::string> strings(const std::string& key, std::vector<int>* lines = nullptr) const;
  // a string, or an array of strings (a choice that may be swept)
  std::vector<std::string> string_or_strings(const std::string& key) const;
  // one of `allowed`; the error lists them
  std::string choice(const std::string& key, const std::vector<std::string>& allowed, const std::string& fallback) const;

  // a sub-table [key] (nullptr if absent); an error if key is not a table
  const toml::table* subtable(const std::string& key) const;
  // [[key]] tables (empty if absent)
  std::vector<const toml::table*> tables(const std::string& key) const;

  static std::string type_name(const toml::node& n);

 private:
  void check_unknown(const std::vector<std::string>& valid) const;
  const toml::table& t_;
  std::string file_, ctx_;
  int line_offset_ = 0;
};

}  // namespace mb
