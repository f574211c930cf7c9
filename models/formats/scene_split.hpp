// The large-file path of the scene reader (scene_reader.cpp): a large scene is parsed in parts of
// kPartTables array tables each, so that toml++'s document of the whole file never exists: a
// part's memory is reused by the next (docs/limits.md, "Large scenes"). A part starts at a line
// that is exactly a [[body]], [[joint]], [[torque]] or [[spring]] header; the head before the first
// one holds [model]. Anything the split could misread (a header line inside a multi-line string or
// array, tables out of the usual order, other keys in a part) makes a part fail to parse or fail
// the reader's checks, and then the whole file is parsed at once, so the meaning of a file never
// depends on the split.
#pragma once
#include <cstddef>
#include <string_view>
#include <vector>

namespace mb {

constexpr size_t kPartTables = 4096;
struct ScenePart {
  std::string_view text;
  int line_offset = 0;
};

// The array-table kind a line opens: "body", "joint", "torque" or "spring" for a line that is
// exactly such a header ([[body]], spaces and a comment allowed), else empty.
std::string_view array_header(std::string_view line);
// The header lines of [[body]] and [[joint]] tables (an upper bound of the tables: a header-like
// line inside a multi-line string counts too), for reserving the model's memory.
struct SceneCounts {
  size_t bodies = 0, joints = 0;
};
// The head (parts[0]: before the first array table) and the parts of kPartTables tables each.
std::vector<ScenePart> split_scene(std::string_view text, SceneCounts* counts = nullptr);

}  // namespace mb
