#include "records/store.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <tuple>
#include <type_traits>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/io.hpp"

namespace mb {

namespace fs = std::filesystem;

namespace {

// Files of another kind given where records are expected, named with the command that takes them.
// Records are one JSON object per line; a first line that is not one is looked at as a whole.
void check_records_kind(const std::string& text, const std::string& path) {
  const size_t first = text.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return;
  const size_t eol = text.find('\n', first);
  const std::string line = text.substr(first, eol == std::string::npos ? std::string::npos : eol - first);
  if (text[first] == '{') {
    if (nlohmann::json::accept(line)) return;  // a record per line
    const nlohmann::json j = nlohmann::json::parse(text, nullptr, false);
    if (j.is_object() && j.contains("benchmarks") && j.contains("context"))
      throw InputError(path, 0, "",
                       "this is the raw output of `mbbench bench` (Google Benchmark JSON), not records: add its timing to a "
                       "report with `mbbench report RECORDS --out DIR --timing " +
                           (fs::path(path).has_parent_path() ? fs::path(path).parent_path().string() : std::string(".")) +
                           "` (the folder holding bench.json)");
    if (j.is_object() && j.contains("schema_version"))
      throw InputError(path, 0, "",
                       "this is one record written by `mbbench run --out` (a JSON document), not a records file of one record "
                       "per line: write those with `mbbench run ... --append FILE` or `mbbench sweep`");
    return;
  }
  if (fs::path(path).extension() == ".toml" || text[first] == '#' || text[first] == '[')
    throw InputError(path, 0, "",
                     "this is a TOML file (an experiment, a scene or published values), not records: records are the JSON lines "
                     "`mbbench sweep EXPERIMENT` writes (results/out/<name>/records.jsonl)");
}

}  // namespace

RecordsRead read_records_file(const std::string& path, bool truncate) {
  RecordsRead out;
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open records file");
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();
  in.close();
  check_records_kind(text, path);
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
    const size_t nl = text.find('\n', pos);
    const std::string s = text.substr(pos, nl - pos);
    pos = nl + 1;
    ++line;
    if (s.find_first_not_of(" \t\r") == std::string::npos) continue;
    out.records.push_back(record_from_json_line(s, path, line));
  }
  return out;
}

std::vector<CaseRecord> read_records(const std::vector<std::string>& files) {
  std::vector<CaseRecord> all;
  for (const auto& f : files) {
    auto r = read_records_file(f);
    if (r.dropped_partial) fmt::print(stderr, "mbbench: note: {}: ignored an incomplete last line\n", f);
    for (auto& x : r.records) all.push_back(std::move(x));
  }
  return all;
}

void append_record(const std::string& path, const CaseRecord& r) { append_line_durable(path, record_to_json_line(r)); }

void write_records(const std::string& path, const std::vector<CaseRecord>& records) {
  std::string s;
  for (const auto& r : records) s += record_to_json_line(r) + "\n";
  write_file_atomic(path, s);
}

void sort_records(std::vector<CaseRecord>& records) {
  auto key = [](const CaseRecord& r) {
    return r.experiment ? std::make_tuple(r.experiment->name, r.experiment->case_index, r.experiment->case_id)
                        : std::make_tuple(std::string(), 0L, std::string());
  };
  std::stable_sort(records.begin(), records.end(), [&](const CaseRecord& a, const CaseRecord& b) { return key(a) < key(b); });
}

std::optional<OriginDifference> origin_difference(const CaseRecord& a, const CaseRecord& b) {
  auto join = [](const auto& items) {
    std::string s;
    for (const auto& x : items) {
      if constexpr (std::is_same_v<std::decay_t<decltype(x)>, std::string>) s += x + ",";
      else s += x.first + " " + x.second + ",";
    }
    return s;
  };
  const ExperimentRef none;
  const ExperimentRef& ea = a.experiment ? *a.experiment : none;
  const ExperimentRef& eb = b.experiment ? *b.experiment : none;
  const Provenance &pa = a.provenance, &pb = b.provenance;
  // a peer engine's record carries the engine's version among the libraries, under its method's
  // name (sim/run_case.cpp): the build's libraries are the rest, and two records of one method
  // that both carry it compare the engine's version too
  auto libraries = [&](const CaseRecord& r, const CaseRecord& other) {
    std::map<std::string, std::string> l = r.provenance.libraries;
    const std::string& engine = r.method.name;
    if (a.method.name != b.method.name || !other.provenance.libraries.count(engine)) l.erase(engine);
    return l;
  };
  const std::vector<std::tuple<const char*, std::string, std::string>> fields = {
      {"experiment.name", ea.name, eb.name},
      {"provenance.experiment_hash", pa.experiment_hash, pb.experiment_hash},
      {"experiment.file", ea.file, eb.file},
      {"experiment.reproduces", ea.reproduces, eb.reproduces},
      {"experiment.paper", ea.paper, eb.paper},
      {"experiment.metrics", join(ea.metrics), join(eb.metrics)},
      {"experiment.fit", fmt::format("{} {} {}", ea.fit_h1, ea.fit_h2, ea.fit_h), fmt::format("{} {} {}", eb.fit_h1, eb.fit_h2, eb.fit_h)},
      {"provenance.mbbench", pa.mbbench, pb.mbbench},
      {"provenance.git_commit", pa.git_commit, pb.git_commit},
      {"provenance.compiler", pa.compiler, pb.compiler},
      {"provenance.flags", pa.flags, pb.flags},
      {"provenance.build_type", pa.build_type, pb.build_type},
      {"provenance.libraries", join(libraries(a, b)), join(libraries(b, a))}};
  for (const auto& [field, x, y] : fields)
    if (x != y) return OriginDifference{field, x, y};
  return std::nullopt;
}

long merge_records(const std::vector<std::string>& files, const std::string& out, std::string* notes) {
  std::vector<CaseRecord> merged;
  std::map<std::string, std::string> first;  // case -> its accuracy fields
  long duplicates = 0, differing = 0;
  struct Origin {
    std::string file;
    CaseRecord rec;
  };
  std::optional<Origin> origin;  // the first record's
  for (const auto& f : files) {
    auto r = read_records_file(f);
    if (r.dropped_partial && notes) *notes += fmt::format("{}: ignored an incomplete last line\n", f);
    long n = 0;
    for (auto& rec : r.records) {
      ++n;
      if (!rec.experiment) throw InputError(f, 0, "experiment.case_id", "a record without a case id (not from mbbench sweep)");
      // one experiment file, one build: anything else is not the shards of one sweep
      if (!origin) origin = Origin{f, rec};
      if (auto d = origin_difference(origin->rec, rec))
        throw InputError(f, 0, d->field,
                         fmt::format("record {} (case '{}') is of another {}: {} '{}', the first record (in {}) has '{}'; merge "
                                     "joins the shards of one sweep, made from one experiment file by one build",
                                     n, rec.experiment->case_id, d->field.rfind("provenance.", 0) == 0 &&
                                     d->field != "provenance.experiment_hash" ? "build" : "experiment file",
                                     d->field, d->b, origin->file, d->a));
      const std::string id = rec.experiment->name + "\n" + rec.experiment->case_id;
      auto it = first.find(id);
      if (it == first.end()) {
        first.emplace(id, accuracy_fields(rec));
        merged.push_back(std::move(rec));
      } else {
        ++duplicates;
        if (accuracy_fields(rec) != it->second) ++differing;
      }
    }
  }
  sort_records(merged);
  write_records(out, merged);
  if (notes && duplicates)
    *notes += fmt::format("{} duplicated case(s) dropped (the first kept){}\n", duplicates,
                          differing ? fmt::format("; {} of them had different numbers", differing) : "");
  return static_cast<long>(merged.size());
}

}  // namespace mb
