// Body splitting (tomcin2014 s.5): a body with many joints makes a dense block of A = J M^-1 J^T
// (its joints form a clique of the elimination graph), so factoring A costs O(nC^3). Splitting the
// body into nP parts of mass m / nP and inertia I / nP at its centre of mass, joined by nP - 1
// fixed joints (6 rows each), and distributing its joints over the parts breaks the clique; the
// motion is the same as long as the extra joints are held (to the method's tolerance).
//
// The split is a method's own model, built once at init: the Model a method is given is never
// written. Parts: the original body keeps its index and is part 0; parts 1..nP-1 are appended
// (named "<name>#k"); the fixed joints chain the parts (part k-1 to part k, anchors at the centre
// of mass). A body's joints, in model order, go to the parts in contiguous groups of at most
// `max_joints`. Only dynamic rigid bodies with more than `max_joints` joints are split (a particle
// has no orientation for a fixed joint to hold). Applied torques stay on part 0.
// tomcin2014's Appendix B (how to choose nP) is not in the text we have; our rule is the option
// `split` of `tomcin` (docs/method-notes.md).
#pragma once
#include <memory>
#include <vector>

#include "methods/method.hpp"
#include "models/model.hpp"

namespace mb {

struct BodySplit {
  Model model;                         // the split model
  std::vector<std::vector<int>> parts; // original body -> its bodies in `model` (part 0 first)
  int split_bodies = 0;                // bodies split
};

BodySplit split_bodies(const Model& model, int max_joints);
// The split model's state from the original's: every part in its body's state.
void expand_state(const BodySplit& split, const State& original, State& out);
// The original model's state from the split one: centre of mass and velocities the mean over the
// parts (equal masses), orientation part 0's, angular velocity the mean.
void collapse_state(const BodySplit& split, const State& parts, State& out);

// A method run on the split model: init splits, each step advances the parts and writes the
// original bodies back. Its info() is the inner method's.
class SplitMethod final : public Method {
 public:
  SplitMethod(std::unique_ptr<Method> inner, int max_joints) : inner_(std::move(inner)), max_joints_(max_joints) {}
  const MethodInfo& info() const override { return inner_->info(); }

 private:
  void do_init(const Model& model, const State& state) override;
  void do_step(const Model& model, State& state, double h, StepStats& stats) override;

  std::unique_ptr<Method> inner_;
  int max_joints_;
  BodySplit split_;
  State parts_;
};

}  // namespace mb
