#include "models/formats/scene_split.hpp"

namespace mb {

namespace {
bool is_space(char c) { return c == ' ' || c == '\t'; }
}  // namespace

std::string_view array_header(std::string_view line) {
  if (line.empty() || (line[0] != '[' && !is_space(line[0]))) return {};  // most lines: a key
  size_t i = 0;
  while (i < line.size() && is_space(line[i])) ++i;
  if (line.compare(i, 2, "[[") != 0) return {};
  i += 2;
  while (i < line.size() && is_space(line[i])) ++i;
  size_t j = i;
  while (j < line.size() && line[j] >= 'a' && line[j] <= 'z') ++j;
  const std::string_view name = line.substr(i, j - i);
  if (name != "body" && name != "joint" && name != "torque" && name != "spring") return {};
  while (j < line.size() && is_space(line[j])) ++j;
  if (line.compare(j, 2, "]]") != 0) return {};
  j += 2;
  while (j < line.size() && is_space(line[j])) ++j;
  if (j < line.size() && line[j] != '#' && line[j] != '\r') return {};
  return name;
}

std::vector<ScenePart> split_scene(std::string_view text, SceneCounts* counts) {
  std::vector<ScenePart> parts{{text.substr(0, 0), 0}};
  size_t pos = 0, part_start = 0, tables = 0;
  int line = 0, part_line = 0;
  bool started = false;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string_view::npos) eol = text.size();
    // a header starts with '[' or a space: most lines (keys) are told by their first character
    const char c = pos < eol ? text[pos] : '\n';
    const std::string_view kind = c == '[' || is_space(c) ? array_header(text.substr(pos, eol - pos)) : std::string_view();
    if (counts && kind == "body") ++counts->bodies;
    if (counts && kind == "joint") ++counts->joints;
    if (!kind.empty()) {
      if (!started || tables == kPartTables) {
        parts.back().text = text.substr(part_start, pos - part_start);
        parts.back().line_offset = part_line;
        parts.push_back({});
        part_start = pos;
        part_line = line;
        tables = 0;
        started = true;
      }
      ++tables;
    }
    pos = eol + 1;
    ++line;
  }
  parts.back().text = text.substr(part_start);
  parts.back().line_offset = part_line;
  return parts;
}

}  // namespace mb
