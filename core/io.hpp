// Files are never half-written: write to a temporary beside the target, fsync, rename.
#pragma once
#include <string>

namespace mb {
void write_file_atomic(const std::string& path, const std::string& content);
// Appends one complete line (content + '\n') with a single write and fsyncs it.
void append_line_durable(const std::string& path, const std::string& line);
}  // namespace mb
