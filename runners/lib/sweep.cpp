#include "runners/lib/sweep.hpp"

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
#include <mutex>
#include <set>
#include <sstream>
#include <thread>

#include <fmt/format.h>

#include "core/error.hpp"
#include "core/io.hpp"
#include "models/catalog.hpp"
#include "runners/lib/provenance.hpp"

namespace mb {

using nlohmann::json;
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
std::string non_finite_metric(const json& metrics) {
  for (const auto& [k, v] : metrics.items())
    if (v.is_number_float() && !std::isfinite(v.get<double>())) return k;
  return "";
}

// a record for a case that threw before run_case could make one
json failed_record(const Case& c, const std::string& reason) {
  json rec;
  rec["schema_version"] = 2;
  rec["model"] = {{"name", c.model}};
  rec["method"] = {{"spec", c.method}};
  rec["h_requested"] = c.h_nominal;
  rec["h"] = c.h_nominal;
  rec["duration"] = c.cfg.duration;
  try {  // the planned step and duration, when the model builds
    StepPlan p = plan_steps(build_model(c.model), c.cfg);
    rec["h"] = p.h;
    rec["duration"] = p.duration;
  } catch (const std::exception&) {
  }
  rec["steps"] = 0;
  rec["steps_done"] = 0;
  rec["status"] = "failed";
  rec["failure"] = {{"reason", reason}, {"t", 0.0}};
  rec["metrics"] = json::object();
  rec["readings"] = {{"steps", to_string(c.cfg.steps)}, {"ld_periods", to_string(c.cfg.ld_periods)}};
  rec["provenance"] = provenance();
  return rec;
}

}  // namespace

json run_sweep_case(const Experiment& e, const Case& c) {
  json rec;
  try {
    Model model = build_model(c.model);
    rec = run_case(model, c.method, c.cfg);
    if (std::string bad = non_finite_metric(rec["metrics"]); !bad.empty() && rec["status"] == "ok") {
      rec["status"] = "failed";
      rec["failure"] = {{"reason", fmt::format("non-finite metric '{}'", bad)}, {"t", rec["duration"]}};
    }
  } catch (const UnsupportedModel& ex) {
    rec = failed_record(c, fmt::format("unsupported model: {}", ex.what()));
  } catch (const std::exception& ex) {
    rec = failed_record(c, ex.what());
  } catch (...) {
    rec = failed_record(c, "unknown exception");
  }
  rec["model"]["spec"] = c.model;
  rec["experiment"] = experiment_json(e);
  rec["experiment"]["case_id"] = c.id;
  rec["experiment"]["case_index"] = c.index;
  rec["experiment"]["readings_primary"] = c.cfg.steps == e.steps.front() && c.cfg.ld_periods == e.ld_periods.front();
  return rec;
}

json without_provenance(const json& record) {
  json r = record;
  r.erase("provenance");
  return r;
}

RecordsRead read_records_file(const std::string& path, bool truncate) {
  RecordsRead out;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open records file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  in.close();
  // complete lines end with '\n'; a tail without one was cut short
  size_t end_of_complete = text.rfind('\n');
  end_of_complete = end_of_complete == std::string::npos ? 0 : end_of_complete + 1;
  if (end_of_complete < text.size()) {
    out.dropped_partial = true;
    if (truncate) fs::resize_file(path, end_of_complete);
  }
  size_t pos = 0;
  int line = 0;
  while (pos < end_of_complete) {
    size_t nl = text.find('\n', pos);
    std::string s = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (s.find_first_not_of(" \t\r") == std::string::npos) continue;
    try {
      out.records.push_back(json::parse(s));
    } catch (const json::exception& ex) {
      throw InputError(path, line, "", fmt::format("not a JSON record: {}", ex.what()));
    }
  }
  return out;
}

std::vector<json> read_records(const std::vector<std::string>& files) {
  std::vector<json> all;
  for (const auto& f : files) {
    auto r = read_records_file(f);
    if (r.dropped_partial) fmt::print(stderr, "mbbench: note: {}: ignored an incomplete last line\n", f);
    for (auto& j : r.records) all.push_back(std::move(j));
  }
  return all;
}

namespace {

std::string case_id(const json& r) { return r.at("experiment").at("case_id").get<std::string>(); }

// deterministic order: experiment, then case index, then id
bool record_less(const json& a, const json& b) {
  auto key = [](const json& r) {
    const json& e = r.at("experiment");
    return std::make_tuple(e.at("name").get<std::string>(), e.at("case_index").get<long>(), e.at("case_id").get<std::string>());
  };
  return key(a) < key(b);
}

std::string join_lines(const std::vector<json>& recs) {
  std::string s;
  for (const auto& r : recs) s += r.dump() + "\n";
  return s;
}

// the progress line: cases done, failures, ETA
void print_progress(long done, long total, long failed, double elapsed, bool final) {
  double eta = done > 0 ? elapsed / static_cast<double>(done) * static_cast<double>(total - done) : 0;
  fmt::print(stderr, "\r[{:>5}/{:<5}] {} failed  elapsed {:.0f} s  ETA {:.0f} s   {}", done, total, failed, elapsed,
             eta, final ? "\n" : "");
  std::fflush(stderr);
}

}  // namespace

SweepSummary run_sweep(const Experiment& e, const SweepOptions& opt) {
  SweepSummary sum;
  // this shard's cases, in expansion order
  std::vector<Case> cases;
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
  if (fs::exists(sum.records)) {
    if (!opt.resume)
      throw InputError(sum.records, 0, "", "records file exists; pass --resume to continue it, or remove it to start afresh");
    auto prev = read_records_file(sum.records, /*truncate=*/true);
    if (prev.dropped_partial) fmt::print(stderr, "mbbench: note: {}: dropped an incomplete last line\n", sum.records);
    for (const json& r : prev.records) {
      // a record must be a case of this experiment and shard, run with today's duration
      std::string id = r.contains("experiment") ? r["experiment"].value("case_id", "") : "";
      auto it = wanted.find(id);
      if (it == wanted.end() || r["experiment"].value("name", "") != e.name)
        throw InputError(sum.records, 0, "", fmt::format("holds case '{}', which is not a case of this experiment and shard; "
                                                         "use another --out or remove the file", id));
      const Case& c = *it->second;
      double planned = plan_steps(build_model(c.model), c.cfg).duration;
      if (r.value("duration", -1.0) != planned)
        throw InputError(sum.records, 0, "", fmt::format("case '{}' was run with duration {}, the experiment now gives {}",
                                                         id, r.value("duration", -1.0), planned));
      done_ids.insert(id);
    }
  }
  std::vector<const Case*> pending;
  for (const Case& c : cases)
    if (!done_ids.count(c.id)) pending.push_back(&c);
  sum.resumed = static_cast<long>(done_ids.size());

  // the pool: workers take the next case; each finished record is appended as one durable line
  std::atomic<size_t> next{0};
  std::mutex mu;
  std::exception_ptr error;
  const auto t0 = std::chrono::steady_clock::now();
  long done = sum.resumed;
  auto worker = [&] {
    for (;;) {
      size_t i = next++;
      if (i >= pending.size()) return;
      json rec = run_sweep_case(e, *pending[i]);
      std::lock_guard<std::mutex> lock(mu);
      if (error) return;
      try {
        append_line_durable(sum.records, rec.dump());
      } catch (...) {
        error = std::current_exception();
        next = pending.size();
        return;
      }
      ++sum.ran;
      ++done;
      if (rec["status"] != "ok") ++sum.failed;
      if (opt.progress)
        print_progress(done, sum.cases, sum.failed,
                       std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), false);
    }
  };
  const int jobs = std::max(1, std::min<int>(opt.jobs, static_cast<int>(std::max<size_t>(1, pending.size()))));
  std::vector<std::thread> pool;
  for (int j = 0; j < jobs; ++j) pool.emplace_back(worker);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
  if (opt.progress)
    print_progress(done, sum.cases, sum.failed, std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), true);

  // complete: rewrite the file in case order (atomically), so it is the same whatever --jobs was
  auto all = read_records_file(sum.records).records;
  std::sort(all.begin(), all.end(), record_less);
  write_file_atomic(sum.records, join_lines(all));
  return sum;
}

long merge_records(const std::vector<std::string>& files, const std::string& out, std::string* notes) {
  std::vector<json> merged;
  std::set<std::string> seen;
  long duplicates = 0, differing = 0;
  std::map<std::string, json> first;
  for (const auto& f : files) {
    auto r = read_records_file(f);
    if (r.dropped_partial && notes) *notes += fmt::format("{}: ignored an incomplete last line\n", f);
    for (auto& rec : r.records) {
      if (!rec.contains("experiment") || !rec["experiment"].contains("case_id"))
        throw InputError(f, 0, "experiment.case_id", "a record without a case id (not from mbbench sweep)");
      std::string id = rec["experiment"]["name"].get<std::string>() + "\n" + case_id(rec);
      if (seen.insert(id).second) {
        first[id] = without_provenance(rec);
        merged.push_back(std::move(rec));
      } else {
        ++duplicates;
        if (without_provenance(rec) != first[id]) ++differing;
      }
    }
  }
  std::sort(merged.begin(), merged.end(), record_less);
  write_file_atomic(out, join_lines(merged));
  if (notes && duplicates)
    *notes += fmt::format("{} duplicated case(s) dropped (the first kept){}\n", duplicates,
                          differing ? fmt::format("; {} of them had different numbers", differing) : "");
  return static_cast<long>(merged.size());
}

}  // namespace mb
