// The sweep over the ranks of an MPI job (docs/cluster.md): `mpirun -n N mbbench sweep EXP --mpi`.
// Built when CMake finds MPI (option MBBENCH_MPI); without it MpiSession throws "built without MPI".
//
// Rank 0 plans the sweep as run_sweep does (sweep.hpp: shard, --resume), hands the cases out one at
// a time to whichever rank asks next (long and short cases mixed: no static split), receives each
// finished record as a JSON line (records/record_io.cpp) and is the only writer: one durable line
// per record (records/store.cpp), the rewrite in case order at the end. Rank 0 also runs cases, on
// a second thread that makes no MPI call, so `-n 1` is a sweep and `-n N` runs N cases at a time;
// its main thread only polls for messages (MPI_Iprobe and a 1 ms sleep, not a busy wait).
// A rank that dies loses only its case in flight: mpirun then ends the job, every record written
// so far is kept, and `--resume` runs the rest. The records equal those of `--jobs N`.
#pragma once
#include <optional>
#include <string>

#include "experiments/experiment.hpp"
#include "sweep/sweep.hpp"

namespace mb {

// The MPI library this binary was built with ("Open MPI v4.1.4, MPI 3.1"), "" without MPI.
std::string mpi_library();

// MPI_Init_thread (MPI_THREAD_FUNNELED: only the main thread calls MPI) on construction,
// MPI_Finalize on destruction. Without MPI the constructor throws an InputError "built without MPI".
class MpiSession {
 public:
  MpiSession();
  ~MpiSession();
  MpiSession(const MpiSession&) = delete;
  MpiSession& operator=(const MpiSession&) = delete;
  int rank() const { return rank_; }
  int size() const { return size_; }
  // the largest of the ranks' values (every rank calls it)
  int max_over_ranks(int value) const;

 private:
  int rank_ = 0, size_ = 1;
};

// Every rank calls it with the same experiment and options. Returns rank 0's summary; std::nullopt
// on the other ranks. On rank 0 it throws what run_sweep would (a bad records file, a failed
// write), after telling the other ranks to stop.
std::optional<SweepSummary> run_sweep_mpi(const MpiSession& mpi, const Experiment& e, const SweepOptions& opt);

}  // namespace mb
