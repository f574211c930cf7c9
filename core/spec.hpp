// Spec strings name a registered thing plus options: "name:key=value,key=value".
// Used for methods ("LMBS4:alpha=10,beta=10") and models ("chain:n=5").
#pragma once
#include <map>
#include <string>
#include <vector>

namespace mb {

struct OptionInfo {
  std::string name;
  std::string default_value;  // as text, shown by `mbbench list`
  std::string description;
};

class Spec {
 public:
  // Parses "name[:k=v[,k=v...]]". `what` ("method", "model") and `source` (file or
  // "command line") go into error messages.
  static Spec parse(const std::string& text, const std::string& what = "spec",
                    const std::string& source = "command line", int line = 0);

  const std::string& name() const { return name_; }
  const std::map<std::string, std::string>& options() const { return options_; }
  std::string text() const;  // canonical form: name:k=v,... in key order

  // Throws InputError listing the valid options when an option is not in `allowed`.
  void check_options(const std::vector<OptionInfo>& allowed) const;

  bool has(const std::string& key) const { return options_.count(key) != 0; }
  double get_double(const std::string& key, double fallback) const;
  long get_int(const std::string& key, long fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;

 private:
  std::string name_, what_, source_;
  int line_ = 0;
  std::map<std::string, std::string> options_;
};

}  // namespace mb
