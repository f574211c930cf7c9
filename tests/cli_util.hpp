// Running the mbbench binary from the tests (end-to-end tests of the CLI).
#pragma once
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <string>

#include <catch2/catch.hpp>

namespace mbtest {

struct CliResult {
  int code;
  std::string output;  // stdout and stderr
};

// Runs a shell command and collects its output (stdout and stderr) and exit code.
inline CliResult run_command(const std::string& command) {
  std::string cmd = command + " 2>&1";
  FILE* p = popen(cmd.c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

// Runs `mbbench ARGS` through the shell and collects its output and exit code.
inline CliResult run_cli(const std::string& args) { return run_command(std::string(MBBENCH_EXE) + " " + args); }

// A fresh folder per test process and name.
inline std::filesystem::path temp_dir(const std::string& name = "cli") {
  auto d = std::filesystem::temp_directory_path() / ("mbbench_" + name + "_test_" + std::to_string(getpid()));
  std::filesystem::remove_all(d);
  std::filesystem::create_directories(d);
  return d;
}

}  // namespace mbtest
