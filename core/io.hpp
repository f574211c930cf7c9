// Files are never half-written: write to a temporary beside the target, fsync, rename.
#pragma once
#include <string>

namespace mb {
void write_file_atomic(const std::string& path, const std::string& content);
// Appends one complete line (content + '\n') with a single write and fsyncs it.
void append_line_durable(const std::string& path, const std::string& line);
// True when PATH names a regular file; never throws: a name too long, a NUL byte or a
// permission error answers false (std::filesystem::is_regular_file would throw on those).
bool is_file(const std::string& path) noexcept;
// The installed data (experiments, published values, baselines, references) sit in
// share/mbbench/ beside the bin/ of the executable (`cmake --install`). A relative path that names
// no file from the working directory is looked up there, so `results/experiments/X.toml` works
// from any folder with an installed mbbench; else the path is returned as given.
std::string data_file(const std::string& path);
}  // namespace mb
