#include "core/io.hpp"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <system_error>
#include <unistd.h>

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

namespace {
void write_all(int fd, const std::string& s, const std::string& path) {
  size_t done = 0;
  while (done < s.size()) {
    ssize_t w = ::write(fd, s.data() + done, s.size() - done);
    if (w < 0) {
      if (errno == EINTR) continue;
      throw Error(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
    done += static_cast<size_t>(w);
  }
}
}  // namespace

void write_file_atomic(const std::string& path, const std::string& content) {
  std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot create '{}': {}", tmp, std::strerror(errno)));
  try {
    write_all(fd, content, tmp);
  } catch (...) {
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  ::fsync(fd);
  ::close(fd);
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    throw Error(fmt::format("cannot rename '{}' to '{}': {}", tmp, path, std::strerror(errno)));
  }
}

void append_line_durable(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) throw Error(fmt::format("cannot open '{}': {}", path, std::strerror(errno)));
  try {
    write_all(fd, line + "\n", path);
  } catch (...) {
    ::close(fd);
    throw;
  }
  ::fsync(fd);
  ::close(fd);
}

bool is_file(const std::string& path) noexcept {
  if (path.empty() || path.find('\0') != std::string::npos) return false;
  std::error_code ec;
  const bool regular = std::filesystem::is_regular_file(path, ec);
  return regular && !ec;
}

std::string data_file(const std::string& path) {
  namespace fs = std::filesystem;
  if (path.empty() || is_file(path) || fs::path(path).is_absolute()) return path;
  std::error_code ec;
  const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
  if (ec) return path;
  const fs::path installed = exe.parent_path().parent_path() / "share" / "mbbench" / path;
  return is_file(installed.string()) ? installed.lexically_normal().string() : path;
}

}  // namespace mb
