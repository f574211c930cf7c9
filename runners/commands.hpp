// The commands of the mbbench command line (runners/main.cpp) that have a file of their own, and
// the command line's lists.
#pragma once
#include <string>
#include <vector>

#include "gate/gate.hpp"
#include "metrics/observer.hpp"

namespace mb::cli {

// "1,2.5,3" as numbers; InputError naming the field samples for an item that is not a finite number
std::vector<double> parse_samples(const std::string& text);
// "a,b,,c" as its non-empty items
std::vector<std::string> split_list(const std::string& text);

// mbbench run MODEL METHOD: the options as given on the command line
struct RunArgs {
  std::string model, method, out, append, samples, agree_with;
  double h = 0, duration = 0, fail_threshold = 1.0, agree_time = mb::kAgreeTime;
  bool h_given = false, duration_given = false;
  bool no_round = false, no_ref = false, quiet = false, self_consistency = false, step_series = false, force = false;
};
// mbbench run (runners/run_command.cpp): one case, its record written where asked and its summary
// printed; large_scene: a scene file of 16 MiB or more (its memory faulted in ahead)
int cmd_run(const RunArgs& a, bool large_scene);

struct GateArgs {
  std::string baseline = "results/baselines/gate.json";
  std::string history, against;
  bool update = false, no_instructions = false, which = false, quiet = false;
  std::string methods, models, h, joints;
  double duration = 0;
  int reps = 0;
};

// mbbench gate (runners/gate_command.cpp): exit 1 on a regression, 0 otherwise (README "The CI gate")
int cmd_gate(GateArgs a, GateConfig cfg);

}  // namespace mb::cli
