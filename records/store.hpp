// The record store (docs/architecture.md): JSON-lines files of CaseRecords, one complete line per case,
// appended durably (one write + fsync per line) and rewritten atomically; read back with every
// problem named by file and line; merged from shards.
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "records/record.hpp"

namespace mb {

// Reads a records file. A last line without its newline (a write cut short by a kill) is not a
// record: it is dropped (and, with `truncate`, cut off the file so appends start on a fresh
// line). Any other bad line is an InputError with the file, the line and the field.
struct RecordsRead {
  std::vector<CaseRecord> records;
  bool dropped_partial = false;
};
RecordsRead read_records_file(const std::string& path, bool truncate = false);
// Every record of the files in order (a note on stderr for a dropped partial line).
std::vector<CaseRecord> read_records(const std::vector<std::string>& files);

void append_record(const std::string& path, const CaseRecord& r);
void write_records(const std::string& path, const std::vector<CaseRecord>& records);  // atomic

// Deterministic order: experiment name, case index, case id.
void sort_records(std::vector<CaseRecord>& records);

// The first field in which two records' origins differ, or nothing. The origin is the experiment
// (its name, file, reproduces, paper, metrics, fit, and the hash of the experiment file's text) and
// the build (mbbench version, git commit, compiler, flags, build type, library versions); not the
// machine or the date, which differ between the nodes of a cluster.
struct OriginDifference {
  std::string field, a, b;  // e.g. "provenance.git_commit", the two values
};
std::optional<OriginDifference> origin_difference(const CaseRecord& a, const CaseRecord& b);

// Joins records files: one record per case id (the first seen), ordered by experiment and case
// index; written atomically. Returns the number of records written. Refuses (an InputError naming
// the file, the record and the field) records without a case id and records whose origin differs
// from the first record's: the shards of one sweep come from one experiment file and one build.
long merge_records(const std::vector<std::string>& files, const std::string& out, std::string* notes = nullptr);

}  // namespace mb
