// `mbbench list`: the registry's methods (with their metadata), the catalog's models and the
// metrics, as text, JSON or Markdown. docs/methods.md and docs/models.md are this Markdown
// (tests/docs_test.cpp fails when the committed files are stale).
#pragma once
#include <string>

namespace mb {

// Text: one line per method (`list methods` fits 40 lines of 100 columns); Long: each method's
// metadata and options
enum class ListFormat { Text, Long, Json, Markdown };
// what: "all", "methods", "models" or "metrics"
std::string listing(const std::string& what, ListFormat format);

}  // namespace mb
