// The record store (docs/architecture.md): JSON-lines files of CaseRecords, one complete line per case,
// appended durably (one write + fsync per line) and rewritten atomically; read back with every
// problem named by file and line; merged from shards.
#pragma once
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

// Joins records files: one record per case id (the first seen), ordered by experiment and case
// index; written atomically. Returns the number of records written.
long merge_records(const std::vector<std::string>& files, const std::string& out, std::string* notes = nullptr);

}  // namespace mb
