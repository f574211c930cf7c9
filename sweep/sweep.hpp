// The sweep runner (docs/architecture.md): an experiment's cases on a thread pool, one JSON line per
// finished case (append + fsync of a complete line), resumable, shardable; and the merge of shard
// outputs. Accuracy cases are independent (each builds its own model and method), so a case gives
// the same numbers whatever --jobs is; only a record's "provenance" differs between runs.
#pragma once
#include <string>
#include <vector>

#include "experiments/experiment.hpp"
#include "records/record.hpp"
#include "records/store.hpp"

namespace mb {

struct SweepOptions {
  int jobs = 1;
  bool resume = false;      // keep the finished cases of an earlier (killed) sweep
  int shard = 1, shards = 1;  // run the cases with index % shards == shard - 1
  std::string out_dir;      // default: results/out/<experiment name>
  bool progress = false;    // a progress line on stderr (the CLI sets it when stderr is a terminal)
};

struct SweepSummary {
  std::string records;      // the records file written
  long cases = 0;           // cases of this shard
  long resumed = 0;         // already finished, skipped
  long ran = 0, failed = 0; // run now, and of those failed
};

// Parses "k/N" (1 <= k <= N); an InputError names the field "shard".
void parse_shard(const std::string& text, int& shard, int& shards);

// Runs one case; never throws: any error becomes a failed (or unsupported) record with its reason.
CaseRecord run_sweep_case(const Experiment& e, const Case& c);

SweepSummary run_sweep(const Experiment& e, const SweepOptions& opt);

}  // namespace mb
