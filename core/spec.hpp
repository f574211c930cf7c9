// Spec strings name a registered thing plus options: "name:key=value,key=value".
// Used for methods and models ("chain:n=5").
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace mb {

// One option of a method or model: its type, default, allowed values and a one-line doc.
// Spec::check_options validates every given option against these (unknown name, wrong type,
// out of range or not one of the choices: an InputError naming the option).
enum class OptionType { Number, Integer, Choice, Text };
const char* to_string(OptionType t);

struct OptionInfo {
  std::string name;
  std::string default_value;  // as text, shown by `mbbench list`
  std::string description;
  OptionType type = OptionType::Text;
  std::vector<std::string> choices;  // Choice: the accepted values; Number/Integer: extra words (e.g. "auto")
  double min = -1e308, max = 1e308;  // Number/Integer: the closed range of accepted values
  bool min_open = false;             // true: min itself is excluded (e.g. a tolerance > 0)
  std::string applies_with;          // options it needs beside it, e.g. "stab=vd" (empty: always applies)

  // builders, so a method's option list reads as a table
  static OptionInfo number(std::string name, std::string def, std::string doc, double lo = -1e308, double hi = 1e308,
                           bool lo_open = false, std::vector<std::string> words = {});
  static OptionInfo integer(std::string name, std::string def, std::string doc, double lo = -1e308, double hi = 1e308);
  static OptionInfo choice(std::string name, std::string def, std::string doc, std::vector<std::string> values);
  static OptionInfo text(std::string name, std::string def, std::string doc);
  std::string range_text() const;  // "> 0", "[1, 100]", "one of: a, b", "" for Text
};

class Spec {
 public:
  // Parses "name[:k=v[,k=v...]]". An item without '=' continues the value before it, so a value
  // may hold commas ("m:ctrl=noise:1,0.2,base=free"). `what` ("method", "model") and `source`
  // (file or "command line") go into error messages.
  static Spec parse(const std::string& text, const std::string& what = "spec",
                    const std::string& source = "command line", int line = 0);

  const std::string& name() const { return name_; }
  const std::string& what() const { return what_; }  // "method", "model"
  const std::map<std::string, std::string>& options() const { return options_; }
  std::string text() const;  // canonical form: name:k=v,... in key order

  // Throws InputError listing the valid options when an option is not in `allowed` (with the
  // nearest name: core/suggest.hpp), and naming the option when its value has the wrong type, is
  // out of range or is not one of the choices. A choice given in another case ("RK4" for "rk4")
  // becomes the choice when no other choice matches it so.
  void check_options(const std::vector<OptionInfo>& allowed);

  // An InputError at this spec's source, line and field ("method", "model").
  [[noreturn]] void fail(const std::string& message) const;

  bool has(const std::string& key) const { return options_.count(key) != 0; }
  double get_double(const std::string& key, double fallback) const;
  long get_int(const std::string& key, long fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;

 private:
  std::string name_, what_, source_;
  int line_ = 0;
  std::map<std::string, std::string> options_;
};

// The options of a spec, parsed and typed against their declaration: every declared option, with
// its given value or else its declared default (OptionInfo::default_value, the one place a default
// is written). make_method builds it after Spec::check_options and hands it to the method's make().
// Asking for an option that is not declared, or as another type than the declared one (number() of
// a Choice, or of a Number whose value is one of its words), is a std::logic_error: a bug in the
// caller, not in the input.
class MethodOptions {
 public:
  // spec: checked against `declared` (Spec::check_options). A given Integer that strtol does not
  // read whole is an InputError (Spec::get_int's).
  MethodOptions(const Spec& spec, const std::vector<OptionInfo>& declared);

  const std::string& name() const { return spec_.name(); }  // the spec's (the method's name)
  double number(const std::string& key) const;               // a Number
  long integer(const std::string& key) const;                // an Integer
  const std::string& choice(const std::string& key) const;   // a Choice
  const std::string& text(const std::string& key) const;     // a Text
  // a Number's or Integer's value is `word`, one of its declared words (OptionInfo::choices: "auto")
  bool is(const std::string& key, const std::string& word) const;
  bool given(const std::string& key) const;  // in the spec (else the default)
  // the given options as text, in key order (a paper alias adds them to its expansion)
  const std::map<std::string, std::string>& given_options() const { return spec_.options(); }
  // An InputError at the spec's source, line and field.
  [[noreturn]] void fail(const std::string& message) const { spec_.fail(message); }

 private:
  struct Value {
    OptionType type = OptionType::Text;
    std::vector<std::string> words;  // Number, Integer: the declared words
    std::string text;                // as given or declared
    double number = 0;               // Number, Integer: the value unless it is a word
    long integer = 0;                // Integer
    bool word = false;               // Number, Integer: text is one of the words
    bool given = false;
  };
  const Value& get(const std::string& key, OptionType type) const;

  Spec spec_;
  std::map<std::string, Value> values_;
};

// The value of a spec's option as a finite number; none when absent or not a number.
std::optional<double> option_number(const Spec& spec, const std::string& key);
// The spec without one option, in canonical form ("m:a=1,b=2" without b: "m:a=1").
std::string spec_without(const Spec& spec, const std::string& key);

}  // namespace mb
