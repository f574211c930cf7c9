// The sweep runner (docs/architecture.md): an experiment's cases on a thread pool (or over MPI
// ranks: sweep/mpi.hpp), one JSON line per finished case (append + fsync of a complete line),
// resumable, shardable; and the merge of shard outputs.
// Accuracy cases are independent (each makes its own method and state; the model, built once by
// the experiment, is only read), so a case gives the same numbers whatever --jobs is; only a
// record's "provenance" differs between runs.
#pragma once
#include <string>
#include <vector>

#include "core/progress.hpp"
#include "experiments/experiment.hpp"
#include "records/record.hpp"
#include "records/store.hpp"

namespace mb {

struct SweepOptions {
  int jobs = 1;
  bool resume = false;      // keep the finished cases of an earlier (killed) sweep
  int shard = 1, shards = 1;  // run the cases with index % shards == shard - 1
  std::string out_dir;      // default: results/out/<experiment name>
  bool progress = false;    // a progress line on stderr, redrawn (the CLI sets it when stderr is a terminal)
  double log_every = 0;     // > 0: else a plain progress line on stderr every log_every s (logs, CI)
  bool quiet = false;       // --quiet: neither
};

struct SweepSummary {
  std::string records;      // the records file written
  long cases = 0;           // cases of this shard
  long resumed = 0;         // already finished, skipped
  long ran = 0, failed = 0, unsupported = 0;  // run now, and of those failed and refused by name
  std::vector<long> ran_by_rank;  // --mpi: of `ran`, how many each rank ran (sweep/mpi.hpp)
};

// Parses "k/N" (1 <= k <= N); an InputError names the field "shard".
void parse_shard(const std::string& text, int& shard, int& shards);

// Runs one case; never throws: any error becomes a failed (or unsupported) record with its reason.
CaseRecord run_sweep_case(const Experiment& e, const Case& c);

SweepSummary run_sweep(const Experiment& e, const SweepOptions& opt);

// The parts of run_sweep that every way of distributing the cases shares (threads here, MPI ranks
// in sweep/mpi.cpp), so the records are the same whatever the distribution.
//
// A sweep's plan: this shard's cases and the records file; with --resume the finished cases are
// read back (a line cut short by a kill is dropped) and only the others are pending. Creates the
// output folder; an existing records file without --resume, or one holding another experiment's
// cases, is an InputError naming the file.
struct SweepPlan {
  std::vector<Case> cases;             // this shard's, in expansion order
  std::vector<size_t> pending;         // indices into `cases` still to run, in expansion order
  SweepSummary summary;                // records, cases, resumed
  ProgressMeter meter;                 // SweepOptions::progress, log_every
};
SweepPlan plan_sweep(const Experiment& e, const SweepOptions& opt);

// Appends a finished record to the plan's records file (one durable line) and counts it; the one
// writer of a sweep. Not thread-safe: the caller serialises.
void record_finished(SweepPlan& plan, const CaseRecord& r);

// The sweep is complete: the records file is rewritten in case order (atomically), so it is the
// same whatever the order the cases finished in.
void finish_sweep(SweepPlan& plan);

}  // namespace mb
