// The lexer of the scene reader (scene_reader.cpp): the line reader, which reads the [[body]],
// [[joint]], [[torque]] and [[spring]] tables of a part of a scene (scene_split.hpp) without
// building toml++'s document, and LexAhead, which runs it on a second thread ahead of the builder.
// It reads only what it fully understands, one line at a time:
//   - the header lines of those four tables (scene_split's array_header);
//   - blank lines and comment lines;
//   - `key = value` with a bare key, a value on the line, and an optional comment after it, where
//     the value is a basic string without escapes ("b12"), a decimal integer of at most 15 digits,
//     a decimal float (1.5, -0.25e-3; no underscores, no inf or nan), true or false, or an array
//     of these on the line, nested at most once ([[1.0, 0, 0], [0, 1.0, 0], [0, 0, 1.0]]).
// Any other line (an escape, a literal or multi-line string, an inline table, a date, a dotted or
// quoted key, a key given twice, any other table header) makes the whole part go to toml++. A
// value read here is the value toml++ reads (floats by std::from_chars in both, correctly
// rounded), and LineTable reports a problem with the message, file, line and field TableReader
// (core/toml_reader.hpp) gives for the same table, so the reader the part goes through never
// changes a model or an error (tests/scene_test.cpp reads scenes both ways).
#pragma once
#include <condition_variable>
#include <cstdint>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

#include "core/error.hpp"
#include "models/formats/scene_split.hpp"

namespace mb {

struct LineValue {
  enum class Kind : unsigned char { String, Integer, Float, Boolean, Array };
  Kind kind = Kind::Integer;
  bool flag = false;              // Boolean
  int line = 0;                   // 1-based line in the file
  double number = 0;              // Integer (as a double, as TableReader converts it) and Float
  std::string_view text;          // String: the characters between the quotes
  unsigned first = 0, count = 0;  // Array: its elements, LexedPart::values[first, first + count)
};

struct LineField {
  std::string_view key;
  LineValue value;
};

struct LexedTable {
  std::string_view kind;  // "body", "joint", "torque" or "spring"
  int line = 0;           // the header's line
  unsigned first = 0, count = 0;  // its fields, LexedPart::fields[first, first + count)
};

// The tables of a part in file order; the vectors are reused from part to part.
struct LexedPart {
  std::vector<LexedTable> tables;
  std::vector<LineField> fields;
  std::vector<LineValue> values;
  std::vector<LineValue> scratch[2];  // the elements of an array being read, and of one inside it
};

// Reads `text` (a part: from a header line on; its first line is line line_offset + 1 of the
// file) into `out`; false when a line is not one the reader understands (toml++ reads the part).
bool lex_part(std::string_view text, int line_offset, LexedPart& out);

// One lexed table with TableReader's interface and messages (the subset the scene reader uses).
class LineTable {
 public:
  // the table `kind`[index] (e.g. body[2]: its fields are body[2].mass, ...); `checked`, when
  // given, holds the keys of the last table of the kind found valid, in file order: a table with
  // the same keys (a writer repeats its layout) is not checked against `valid` again, and one
  // found valid leaves its keys there (views of the text, which outlives the reading)
  LineTable(const LexedPart& part, const LexedTable& t, const std::string& file, std::string_view kind, size_t index,
            const std::vector<std::string>& valid, std::vector<std::string_view>* checked = nullptr);

  [[noreturn]] void fail(std::string_view key, const std::string& msg) const;
  std::string field(std::string_view key) const;
  int line() const { return t_.line; }
  int at(const LineValue& v) const { return v.line; }
  const std::string& file() const { return file_; }

  const LineValue* get(std::string_view key) const;
  bool has(std::string_view key) const { return get(key) != nullptr; }
  const LineValue& need(std::string_view key) const;
  const LineValue& element(const LineValue& array, size_t i) const { return part_.values[array.first + i]; }

  double number(const LineValue& v, std::string_view key) const;
  double num(std::string_view key) const { return number(need(key), key); }
  double num(std::string_view key, double fallback) const { return has(key) ? num(key) : fallback; }
  double positive(std::string_view key) const;
  std::string str(std::string_view key) const;
  std::string str(std::string_view key, const std::string& fallback) const { return has(key) ? str(key) : fallback; }
  bool boolean(std::string_view key, bool fallback) const;
  const LineValue& array(std::string_view key) const;
  std::vector<double> numbers(std::string_view key, size_t expect = 0) const;

  static std::string_view type_name(const LineValue& v);

 private:
  const LexedPart& part_;
  const LexedTable& t_;
  const std::string& file_;
  std::string_view kind_;  // a message's field is kind_[index_].key, formatted only for a message
  size_t index_;
  // bit key_bit(k) of each key of the table: most keys asked for and absent are told in one test
  std::uint64_t present_ = 0;
  static unsigned key_bit(std::string_view k) {
    return (static_cast<unsigned>(k.size()) * 7 + (k.empty() ? 0u : static_cast<unsigned char>(k[0]))) & 63u;
  }
};

// The parts' lexing (lex_part) on a second thread, ahead of the builder: about half the time of
// reading a large scene's lines, and each part's apart from the others'. A part's result is the
// same on either thread; the builder takes the parts in file order, so a model and an error are
// those of one thread. kSlots parts at most are lexed and not yet built.
class LexAhead {
 public:
  static constexpr size_t kSlots = 4;
  explicit LexAhead(const std::vector<ScenePart>& parts) : parts_(parts), worker_([this] { run(); }) {}
  ~LexAhead();
  LexAhead(const LexAhead&) = delete;
  LexAhead& operator=(const LexAhead&) = delete;

  // part k (k >= 1, in order) lexed, or nullptr when a line of it is not one lex_part reads
  const LexedPart* get(size_t k);
  // the builder is done with part k: its slot is free for part k + kSlots
  void done(size_t k);

 private:
  struct Slot {
    LexedPart part;
    bool ok = false;
  };
  void run();

  const std::vector<ScenePart>& parts_;
  Slot slots_[kSlots];
  std::mutex mutex_;
  std::condition_variable cv_;
  size_t lexed_ = 1, built_ = 1;  // parts [1, lexed_) lexed; [1, built_) built
  bool stop_ = false;
  std::thread worker_;  // last: started when the rest is set up
};

}  // namespace mb
