#include "core/error.hpp"

#include <fmt/format.h>

namespace mb {

namespace {
std::string format_input_error(const std::string& file, int line, const std::string& field,
                               const std::string& message) {
  std::string where = line > 0 ? fmt::format("{}:{}", file, line) : file;
  if (field.empty()) return fmt::format("{}: {}", where, message);
  return fmt::format("{}: field '{}': {}", where, field, message);
}
}  // namespace

InputError::InputError(std::string file_, int line_, std::string field_, const std::string& message_)
    : Error(format_input_error(file_, line_, field_, message_)),
      file(std::move(file_)),
      line(line_),
      field(std::move(field_)),
      message(message_) {}

}  // namespace mb
