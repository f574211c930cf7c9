// The sweep over MPI ranks (sweep/mpi.hpp). The protocol, on MPI_COMM_WORLD:
//   rank k > 0 -> 0  tag kRecord: a finished record as one JSON line; empty: "ready" (the first)
//   0 -> rank k      tag kCase:   the next case (its index in expand_cases, a long)
//   0 -> rank k      tag kStop:   no case left (or rank 0 hit an error): finish
// Every message from a worker is answered by exactly one kCase or kStop, so the ranks end together.
#include "sweep/mpi.hpp"

#include <chrono>
#include <exception>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "records/record.hpp"

#ifdef MBBENCH_HAVE_MPI
#include <mpi.h>
#endif

namespace mb {

#ifndef MBBENCH_HAVE_MPI

std::string mpi_library() { return ""; }

MpiSession::MpiSession() {
  throw InputError("command line", 0, "mpi",
                   "this mbbench was built without MPI (install libopenmpi-dev, configure with -DMBBENCH_MPI=ON and rebuild)");
}
MpiSession::~MpiSession() = default;
int MpiSession::max_over_ranks(int value) const { return value; }

std::optional<SweepSummary> run_sweep_mpi(const MpiSession&, const Experiment&, const SweepOptions&) {
  throw InputError("command line", 0, "mpi", "this mbbench was built without MPI");
}

#else

std::string mpi_library() {
  char text[MPI_MAX_LIBRARY_VERSION_STRING];
  int len = 0;
  MPI_Get_library_version(text, &len);  // callable before MPI_Init
  std::string s(text, static_cast<size_t>(len));
  // "Open MPI v4.1.4, package: ..., ident: ..." -> "Open MPI v4.1.4"; MPICH's starts "MPICH Version: 4.0..."
  s = s.substr(0, s.find_first_of(",\n"));
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
  return fmt::format("{}, MPI {}.{}", s, MPI_VERSION, MPI_SUBVERSION);
}

MpiSession::MpiSession() {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
  if (provided < MPI_THREAD_FUNNELED) {
    MPI_Finalize();
    throw Error("the MPI library offers no thread support (MPI_THREAD_FUNNELED), which rank 0 needs to run cases "
                "beside the dispatch");
  }
}

MpiSession::~MpiSession() { MPI_Finalize(); }

int MpiSession::max_over_ranks(int value) const {
  int out = value;
  MPI_Allreduce(&value, &out, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  return out;
}

namespace {

constexpr int kRecord = 1, kCase = 2, kStop = 3;

// rank k > 0: ask for a case, run it, send its record back with the next request
void worker(const MpiSession& mpi, const Experiment& e) {
  const std::vector<Case> cases = expand_cases(e);
  std::string line;  // empty: ready for the first case
  for (;;) {
    MPI_Send(line.data(), static_cast<int>(line.size()), MPI_CHAR, 0, kRecord, MPI_COMM_WORLD);
    long index = -1;
    MPI_Status st;
    MPI_Recv(&index, 1, MPI_LONG, 0, MPI_ANY_TAG, MPI_COMM_WORLD, &st);
    if (st.MPI_TAG == kStop) return;
    if (index < 0 || index >= static_cast<long>(cases.size())) {
      fmt::print(stderr, "mbbench: error: rank {}: case index {} out of range (0..{})\n", mpi.rank(), index, cases.size());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
    try {
      line = record_to_json_line(run_sweep_case(e, cases[static_cast<size_t>(index)]));
    } catch (const std::exception& ex) {  // run_sweep_case does not throw; the JSON writer might
      fmt::print(stderr, "mbbench: error: rank {}: case {}: {}\n", mpi.rank(), cases[static_cast<size_t>(index)].id, ex.what());
      MPI_Abort(MPI_COMM_WORLD, 1);
    }
  }
}

// rank 0: plan, dispatch, run cases on a second thread, write every record
SweepSummary coordinator(const MpiSession& mpi, const Experiment& e, const SweepOptions& opt) {
  std::mutex mu;  // guards plan, next and error: the dispatch and rank 0's own cases share them
  std::exception_ptr error;
  SweepPlan plan;
  try {
    plan = plan_sweep(e, opt);
    plan.summary.ran_by_rank.assign(static_cast<size_t>(mpi.size()), 0);
  } catch (...) {
    error = std::current_exception();  // the other ranks are still told to stop
  }
  size_t next = 0;
  auto take = [&]() -> const Case* {
    std::lock_guard<std::mutex> lock(mu);
    if (error || next >= plan.pending.size()) return nullptr;
    return &plan.cases[plan.pending[next++]];
  };
  auto write = [&](const CaseRecord& r, int rank) {
    std::lock_guard<std::mutex> lock(mu);
    if (error) return;
    try {
      record_finished(plan, r);
      ++plan.summary.ran_by_rank[static_cast<size_t>(rank)];
    } catch (...) {
      error = std::current_exception();
    }
  };

  // rank 0's own cases: a thread without MPI calls (MPI_THREAD_FUNNELED)
  std::thread local([&] {
    while (const Case* c = take()) write(run_sweep_case(e, *c), 0);
  });

  // the dispatch: answer every worker's message with its next case or a stop
  int active = mpi.size() - 1;
  while (active > 0) {
    int flag = 0;
    MPI_Status st;
    MPI_Iprobe(MPI_ANY_SOURCE, kRecord, MPI_COMM_WORLD, &flag, &st);
    if (!flag) {
      std::this_thread::sleep_for(std::chrono::milliseconds(1));
      continue;
    }
    int count = 0;
    MPI_Get_count(&st, MPI_CHAR, &count);
    std::string line(static_cast<size_t>(count), '\0');
    MPI_Recv(line.data(), count, MPI_CHAR, st.MPI_SOURCE, kRecord, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (count > 0) {
      try {
        write(record_from_json_line(line, fmt::format("the record sent by rank {}", st.MPI_SOURCE), 1), st.MPI_SOURCE);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mu);
        if (!error) error = std::current_exception();
      }
    }
    if (const Case* c = take()) {
      long index = c->index;
      MPI_Send(&index, 1, MPI_LONG, st.MPI_SOURCE, kCase, MPI_COMM_WORLD);
    } else {
      MPI_Send(nullptr, 0, MPI_LONG, st.MPI_SOURCE, kStop, MPI_COMM_WORLD);
      --active;
    }
  }
  local.join();
  if (error) std::rethrow_exception(error);

  // complete: the same file, in case order, as run_sweep writes
  finish_sweep(plan);
  return plan.summary;
}

}  // namespace

std::optional<SweepSummary> run_sweep_mpi(const MpiSession& mpi, const Experiment& e, const SweepOptions& opt) {
  if (mpi.rank() == 0) return coordinator(mpi, e, opt);
  worker(mpi, e);
  return std::nullopt;
}

#endif

}  // namespace mb
