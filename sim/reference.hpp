// The reference trajectory (docs/metrics.md): the registry's reference method
// (MethodInfo::reference, `ref`) run once per model, reference spec and duration, cached for the
// whole process, and sampled at any time t.
//
// How. The reference method steps through the driver from 0 to the duration, landing on
// checkpoints every `spacing` seconds (1 s, or the duration if shorter), whose states are kept.
// at(t) starts a fresh reference run from the last checkpoint at or before t and lands exactly
// on t (the reference method is adaptive and ends a step exactly at any requested time). So the
// value at t does not depend on which other times were asked for, or in which order, or on the
// step of the method it is compared with: the same inputs give the same reference, bit for bit,
// whatever --jobs is. Times past the duration continue from the last checkpoint.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "metrics/observer.hpp"
#include "models/model.hpp"

namespace mb {

class ReferenceTrajectory final : public Trajectory {
 public:
  // The cached trajectory (computed on first use; thread-safe: concurrent callers wait for the
  // one computation). Throws what the reference method throws: UnsupportedModel when it cannot
  // simulate the model or does not claim one of the model's features (unsupported_reason: a
  // model with contacts has no reference in `ref`), SimulationError when it breaks down.
  static std::shared_ptr<const ReferenceTrajectory> get(const Model& model, const std::string& ref_spec, double duration);

  ReferenceTrajectory(const Model& model, std::string ref_spec, double duration);
  State at(double t) const override;
  double spacing() const { return spacing_; }

 private:
  Model model_;
  std::string spec_;
  double spacing_ = 1;
  std::vector<State> checkpoints_;  // at t = k spacing, k = 0..n
};

}  // namespace mb
