#include "core/progress.hpp"

#include <cstdio>

#include <fmt/format.h>

namespace mb {

ProgressMeter::ProgressMeter(std::string label, long total, Mode mode, double every)
    : label_(std::move(label)), total_(total), mode_(mode), every_(every) {}

double ProgressMeter::elapsed() const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start_).count();
}

void ProgressMeter::update(long done, long failed) {
  if (base_ < 0) base_ = done;  // work found done (a resumed sweep) does not count towards the rate
  done_ = done;
  failed_ = failed;
  if (mode_ == Mode::Terminal) print(false);
  else tick();
}

void ProgressMeter::tick() {
  if (mode_ != Mode::Log || elapsed() - printed_at_ < every_) return;
  print(false);
}

void ProgressMeter::finish() {
  if (mode_ == Mode::Terminal) print(true);
}

void ProgressMeter::print(bool final) {
  const double t = elapsed();
  printed_at_ = t;
  const long ran = done_ - std::max(base_, 0L);
  const std::string left = ran > 0 && done_ < total_
                               ? fmt::format(", about {:.0f} s left", t / static_cast<double>(ran) * static_cast<double>(total_ - done_))
                               : "";
  const std::string text = fmt::format("{}: {}/{} cases, {} failed, {:.0f} s elapsed{}", label_, done_, total_, failed_, t, left);
  if (mode_ == Mode::Terminal) fmt::print(stderr, "\r{}   {}", text, final ? "\n" : "");
  else fmt::print(stderr, "{}\n", text);
  std::fflush(stderr);
}

}  // namespace mb
