#include "sweep/sweep.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <fstream>
#include <map>
#include <condition_variable>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "methods/method.hpp"
#include "sim/run_case.hpp"

namespace mb {

namespace fs = std::filesystem;

void parse_shard(const std::string& text, int& shard, int& shards) {
  int k = 0, n = 0;
  char tail = 0;
  if (std::sscanf(text.c_str(), "%d/%d%c", &k, &n, &tail) != 2 || n < 1 || k < 1 || k > n)
    throw InputError("command line", 0, "shard", fmt::format("expected k/N with 1 <= k <= N, got '{}'", text));
  shard = k;
  shards = n;
}

namespace {

// the first non-finite metric, if any (JSON would silently write it as null)
std::string non_finite_metric(const Metrics& metrics) {
  for (const auto& [k, v] : metrics.values)
    if (!std::isfinite(v)) return k;
  return "";
}

// a record for a case that did not run: its inputs and the reason
CaseRecord record_without_run(const Case& c, Status status, const std::string& reason) {
  CaseRecord r;
  r.model.spec = r.model.name = c.model;
  r.method.spec = r.method.name = c.method;
  r.h_requested = r.h = c.h_nominal;
  r.duration = c.cfg.duration;
  if (c.built) {
    const Model& model = *c.built;
    r.model = {c.model, model.info.name, model.info.source, static_cast<long>(model.bodies.size()),
               static_cast<long>(model.joints.size()), model.info.period};
    try {  // the planned step and duration, when they plan
      const StepPlan p = plan_steps(model, c.cfg);
      r.h = p.h;
      r.duration = p.duration;
    } catch (const std::exception&) {
    }
  }
  r.status = status;
  r.reason = reason;
  r.readings = {to_string(c.cfg.steps), to_string(c.cfg.ld_periods), c.cfg.round_to_period, c.cfg.fail_threshold};
  r.provenance = current_provenance();
  return r;
}

}  // namespace

CaseRecord run_sweep_case(const Experiment& e, const Case& c) {
  CaseRecord r;
  try {
    if (!c.built) throw Error(fmt::format("model '{}' not built", c.model));
    r = run_case(*c.built, c.method, c.cfg);
    if (std::string bad = non_finite_metric(r.metrics); !bad.empty() && r.ok()) {
      r.status = Status::Failed;
      r.reason = fmt::format("non-finite metric '{}'", bad);
      r.fail_time = r.duration;
    }
  } catch (const UnsupportedModel& ex) {
    r = record_without_run(c, Status::Unsupported, ex.what());
  } catch (const std::exception& ex) {
    r = record_without_run(c, Status::Failed, ex.what());
  } catch (...) {
    r = record_without_run(c, Status::Failed, "unknown exception");
  }
  r.model.spec = c.model;
  r.experiment = experiment_ref(e);
  r.experiment->case_id = c.id;
  r.experiment->case_index = c.index;
  r.experiment->readings_primary = c.cfg.steps == e.steps.front() && c.cfg.ld_periods == e.ld_periods.front();
  r.provenance.experiment_hash = e.hash;
  return r;
}

SweepPlan plan_sweep(const Experiment& e, const SweepOptions& opt) {
  SweepPlan plan;
  SweepSummary& sum = plan.summary;
  // this shard's cases, in expansion order
  std::vector<Case>& cases = plan.cases;
  for (Case& c : expand_cases(e))
    if (c.index % opt.shards == opt.shard - 1) cases.push_back(std::move(c));
  sum.cases = static_cast<long>(cases.size());

  // the records file
  fs::path dir = opt.out_dir.empty() ? fs::path("results/out") / e.name : fs::path(opt.out_dir);
  fs::create_directories(dir);
  std::string name = opt.shards == 1 ? "records.jsonl" : fmt::format("records.shard-{}-of-{}.jsonl", opt.shard, opt.shards);
  sum.records = (dir / name).string();

  // resume: keep finished cases (dropping a line cut short by a kill); otherwise start afresh
  std::map<std::string, const Case*> wanted;
  for (const Case& c : cases) wanted[c.id] = &c;
  std::set<std::string> done_ids;
  long duplicates = 0;
  if (fs::exists(sum.records)) {
    if (!opt.resume)
      throw InputError(sum.records, 0, "", "records file exists; pass --resume to continue it, or remove it to start afresh");
    auto prev = read_records_file(sum.records, /*truncate=*/true);
    CaseRecord now;  // what this sweep's records carry besides the case
    now.experiment = experiment_ref(e);
    now.provenance = current_provenance();
    now.provenance.experiment_hash = e.hash;
    if (prev.dropped_partial) fmt::print(stderr, "mbbench: note: {}: dropped an incomplete last line\n", sum.records);
    for (const CaseRecord& r : prev.records) {
      // a record must be a case of this experiment and shard, run with today's duration
      const std::string id = r.experiment ? r.experiment->case_id : "";
      auto it = wanted.find(id);
      if (it == wanted.end() || !r.experiment || r.experiment->name != e.name)
        throw InputError(sum.records, 0, "", fmt::format("holds case '{}', which is not a case of this experiment and shard; "
                                                         "use another --out or remove the file", id));
      const Case& c = *it->second;
      const double planned = plan_steps(*c.built, c.cfg).duration;
      if (r.duration != planned)
        throw InputError(sum.records, 0, "", fmt::format("case '{}' was run with duration {}, the experiment now gives {}",
                                                         id, r.duration, planned));
      // and by this build from this experiment file (the set must not mix builds: merge refuses it),
      // a peer engine's with the engine's version this build has (run_case adds it)
      CaseRecord here = now;
      here.method.name = r.method.name;
      if (const MethodEntry* m = find_method(r.method.name)) add_engine_version(m->info.name, m->info.version, here.provenance);
      if (auto d = origin_difference(r, here))
        throw InputError(sum.records, 0, d->field,
                         fmt::format("case '{}' was written with {} '{}', this sweep has '{}'; finish it with that build and "
                                     "experiment file, or remove the file",
                                     id, d->field, d->a, d->b));
      if (!done_ids.insert(id).second) ++duplicates;  // a case written twice: the first is kept
    }
    if (duplicates) {
      fmt::print(stderr, "mbbench: note: {}: {} case(s) appeared more than once; the first of each is kept\n", sum.records,
                 duplicates);
      std::vector<CaseRecord> kept;
      std::set<std::string> seen;
      for (auto& r : prev.records)
        if (seen.insert(r.experiment->case_id).second) kept.push_back(std::move(r));
      write_records(sum.records, kept);
    }
  }
  for (size_t i = 0; i < cases.size(); ++i)
    if (!done_ids.count(cases[i].id)) plan.pending.push_back(i);
  sum.resumed = static_cast<long>(done_ids.size());
  plan.meter = ProgressMeter("sweep", sum.cases,
                             opt.progress ? ProgressMeter::Mode::Terminal
                             : opt.log_every > 0 ? ProgressMeter::Mode::Log
                                                 : ProgressMeter::Mode::Off,
                             opt.log_every);
  return plan;
}

void record_finished(SweepPlan& plan, const CaseRecord& r) {
  SweepSummary& sum = plan.summary;
  append_record(sum.records, r);
  ++sum.ran;
  if (r.status == Status::Failed) ++sum.failed;
  if (r.status == Status::Unsupported) ++sum.unsupported;
  plan.meter.update(sum.resumed + sum.ran, sum.failed);
}

void finish_sweep(SweepPlan& plan) {
  SweepSummary& sum = plan.summary;
  plan.meter.finish();
  auto all = read_records_file(sum.records).records;
  sort_records(all);
  write_records(sum.records, all);
}

SweepSummary run_sweep(const Experiment& e, const SweepOptions& opt) {
  SweepPlan plan = plan_sweep(e, opt);

  // the pool: workers take the next case; each finished record is appended as one durable line
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  const size_t n = plan.pending.size();
  auto worker = [&] {
    for (;;) {
      size_t i = next++;
      if (i >= n) return;
      CaseRecord rec = run_sweep_case(e, plan.cases[plan.pending[i]]);
      std::lock_guard<std::mutex> lock(mu);
      if (error) return;
      try {
        record_finished(plan, rec);
      } catch (...) {
        error = std::current_exception();
        next = n;
        return;
      }
    }
  };
  const int jobs = std::max(1, std::min<int>(opt.jobs, static_cast<int>(std::max<size_t>(1, n))));
  std::vector<std::thread> pool;
  for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
  // the plain progress line also while a long case runs: a ticker woken every log_every
  std::condition_variable tick;
  bool workers_done = false;
  std::thread ticker;
  if (opt.log_every > 0)
    ticker = std::thread([&] {
      std::unique_lock<std::mutex> lock(mu);
      while (!tick.wait_for(lock, std::chrono::duration<double>(opt.log_every), [&] { return workers_done; }))
        plan.meter.tick();
    });
  for (auto& t : pool) t.join();
  if (ticker.joinable()) {
    {
      std::lock_guard<std::mutex> lock(mu);
      workers_done = true;
    }
    tick.notify_all();
    ticker.join();
  }
  if (error) std::rethrow_exception(error);

  // complete: rewrite the file in case order (atomically), so it is the same whatever --jobs was
  finish_sweep(plan);
  return plan.summary;
}

}  // namespace mb
