// Fuzz target: the record readers (records/record_io.cpp): a case record line and a gate
// baseline; what reads must write back and read again to the same text.
#include <cstdlib>

#include "fuzz_common.hpp"
#include "records/record.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string text = mbfuzz::text_of(data, size);
  mbfuzz::guarded([&] {
    const mb::CaseRecord r = mb::record_from_json_line(text, "fuzz.jsonl", 1);
    const std::string line = mb::record_to_json_line(r);
    if (mb::record_to_json_line(mb::record_from_json_line(line, "fuzz-roundtrip.jsonl", 1)) != line) std::abort();
  });
  mbfuzz::guarded([&] {
    const mb::GateRecord g = mb::gate_record_from_json(text, "fuzz.json");
    const std::string j = mb::gate_record_to_json(g);
    if (mb::gate_record_to_json(mb::gate_record_from_json(j, "fuzz-roundtrip.json")) != j) std::abort();
  });
  return 0;
}
