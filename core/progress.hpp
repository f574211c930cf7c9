// Progress of long work (a sweep's cases, the gate's accuracy cases) on stderr, never stdout: on a
// terminal one line redrawn in place; otherwise (a log, CI) a plain line at most every `every`
// seconds. Not thread-safe: the caller serialises.
#pragma once
#include <chrono>
#include <string>

namespace mb {

class ProgressMeter {
 public:
  enum class Mode { Off, Terminal, Log };
  ProgressMeter() = default;
  ProgressMeter(std::string label, long total, Mode mode, double every = 10);
  // work done so far; on a terminal redrawn, in a log printed when `every` has passed
  void update(long done, long failed);
  // the last line again (a terminal's ends with a newline); nothing in a log
  void finish();
  // in a log, the line of the last update when `every` has passed since the last line (a ticker
  // calls it while a long item runs)
  void tick();
  double elapsed() const;

 private:
  void print(bool final);
  std::string label_;
  long total_ = 0, done_ = 0, failed_ = 0, base_ = -1;  // base_: done at the first update
  Mode mode_ = Mode::Off;
  double every_ = 10, printed_at_ = 0;
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now();
};

}  // namespace mb
