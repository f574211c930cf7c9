// The scene reader: a scene file mapped into memory, split into parts (scene_split.hpp) that the
// lexer (scene_lexer.hpp) reads ahead on a second thread, and the parts given in file order to the
// builder (scene_builder.hpp); a file the parts path cannot read is parsed whole by toml++.
#include "models/formats/scene.hpp"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>
#include <thread>

#include "core/error.hpp"
#include "core/memory.hpp"
#include "core/toml_reader.hpp"
#include "models/formats/scene_builder.hpp"
#include "models/formats/scene_lexer.hpp"
#include "models/formats/scene_split.hpp"

namespace mb {

namespace {

const std::vector<std::string> kTopKeys = {"model", "body", "joint", "torque", "force", "material", "material_pair", "shape", "spring", "motor", "actuator", "rolling",
                                        "exact", "named_frame", "coupling"};

// The parts path: the model, or nothing when the file must be parsed whole. A part goes through the
// line reader (scene_lexer.hpp) when it reads every line of it, else through toml++; either way its
// bodies are read first, then its joints, torques and springs, as toml++ groups a document's
// arrays of tables.
std::optional<Model> parse_in_parts(const std::vector<ScenePart>& parts, const SceneCounts& counts, const std::string& file,
                                    bool lines) {
  SceneBuilder b(file);
  b.reserve(counts);
  // the model's memory faulted in on a thread of its own while the parts are read (core/memory.hpp)
  Prefault prefault;
  prefault.start(b.reserved());
  LexedPart own;
  // a second thread for a scene of three parts or more (of kPartTables tables), when there is a core for it
  std::optional<LexAhead> ahead;
  if (lines && parts.size() > 3 && std::thread::hardware_concurrency() > 1) ahead.emplace(parts);
  toml::table head;
  try {
    head = toml::parse(parts[0].text);
  } catch (const toml::parse_error&) {
    return std::nullopt;
  }
  for (const char* k : {"body", "joint", "torque", "spring", "material", "material_pair", "shape", "motor", "actuator", "exact", "named_frame", "rolling", "coupling"})
    if (head.contains(k)) return std::nullopt;  // contact scenes are read whole
  b.model_table(TableReader(head, file, "", kTopKeys));
  bool bodies_done = false;
  for (size_t k = 1; k < parts.size(); ++k) {
    const LexedPart* lexed_part = nullptr;
    if (ahead) lexed_part = ahead->get(k);
    else if (lines && lex_part(parts[k].text, parts[k].line_offset, own)) lexed_part = &own;
    if (lexed_part) {
      const LexedPart& lexed = *lexed_part;
      bool rest = false;  // a joint, torque or spring in this part
      for (const LexedTable& t : lexed.tables) {
        if (t.kind != "body") {
          rest = true;
          continue;
        }
        if (bodies_done) return std::nullopt;  // a body after a joint or torque: read the file whole
        b.body(lexed, t);
      }
      if (rest && !bodies_done) {
        b.bodies_done();
        bodies_done = true;
      }
      for (const std::string_view kind : {"joint", "torque", "spring"})
        for (const LexedTable& t : lexed.tables) {
          if (t.kind != kind) continue;
          if (kind == "joint") b.joint(lexed, t);
          else if (kind == "torque") b.torque(lexed, t);
          else b.spring(lexed, t);
        }
      if (ahead) ahead->done(k);
      continue;
    }
    if (ahead) ahead->done(k);
    toml::table t;
    try {
      t = toml::parse(parts[k].text);
    } catch (const toml::parse_error&) {
      return std::nullopt;
    }
    for (const auto& [key, node] : t) {
      if (key != "body" && key != "joint" && key != "torque" && key != "spring") return std::nullopt;
      if (!node.is_array_of_tables()) return std::nullopt;
    }
    const int off = parts[k].line_offset;
    if (const toml::array* a = t["body"].as_array()) {
      if (bodies_done) return std::nullopt;  // a body after a joint or torque: read the file whole
      for (const auto& e : *a) b.body(*e.as_table(), off);
    }
    const toml::array* joints = t["joint"].as_array();
    const toml::array* torques = t["torque"].as_array();
    const toml::array* springs = t["spring"].as_array();
    if ((joints || torques || springs) && !bodies_done) {
      b.bodies_done();
      bodies_done = true;
    }
    if (joints)
      for (const auto& e : *joints) b.joint(*e.as_table(), off);
    if (torques)
      for (const auto& e : *torques) b.torque(*e.as_table(), off);
    if (springs)
      for (const auto& e : *springs) b.spring(*e.as_table(), off);
  }
  if (!bodies_done) b.bodies_done();
  return b.finish();
}

}  // namespace

Model parse_scene(std::string_view text, const std::string& file, SceneParse how) {
  check_toml_characters(text, file);
  if (how != SceneParse::toml_whole) {
    SceneCounts counts;
    const std::vector<ScenePart> parts = split_scene(text, &counts);
    if (parts.size() > 1)
      if (std::optional<Model> m = parse_in_parts(parts, counts, file, how == SceneParse::lines)) return std::move(*m);
  }
  toml::table root = parse_toml(text, file);
  SceneBuilder b(file);
  TableReader top(root, file, "", kTopKeys);
  b.model_table(top);
  for (const toml::table* t : top.tables("body")) b.body(*t, 0);
  b.bodies_done();
  for (const toml::table* t : top.tables("joint")) b.joint(*t, 0);
  for (const toml::table* t : top.tables("torque")) b.torque(*t, 0);
  for (const toml::table* t : top.tables("force")) b.load(*t, 0, true);
  for (const toml::table* t : top.tables("spring")) b.spring(*t, 0);
  for (const toml::table* t : top.tables("material")) b.material(*t);
  for (const toml::table* t : top.tables("material_pair")) b.material_pair(*t);
  for (const toml::table* t : top.tables("shape")) b.shape(*t);
  for (const toml::table* t : top.tables("motor")) b.motor(*t);
  for (const toml::table* t : top.tables("actuator")) b.actuator(*t);
  for (const toml::table* t : top.tables("exact")) b.exact(*t);
  for (const toml::table* t : top.tables("named_frame")) b.named_frame(*t);
  for (const toml::table* t : top.tables("rolling")) b.rolling(*t);
  for (const toml::table* t : top.tables("coupling")) b.coupling(*t);
  return b.finish();
}

namespace {
// A regular file's text mapped read-only (no copy of it, no zeroed buffer); empty when the file
// cannot be mapped (a pipe, an empty file), and then it is read as a stream.
class MappedFile {
 public:
  explicit MappedFile(const std::string& path) {
    const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return;
    struct stat st {};
    if (::fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && st.st_size > 0) {
      void* p = ::mmap(nullptr, static_cast<size_t>(st.st_size), PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
      if (p != MAP_FAILED) {
        data_ = p;
        size_ = static_cast<size_t>(st.st_size);
      }
    }
    ::close(fd);
  }
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  MappedFile(const MappedFile&) = delete;
  MappedFile& operator=(const MappedFile&) = delete;
  bool mapped() const { return data_ != nullptr; }
  std::string_view text() const { return {static_cast<const char*>(data_), size_}; }

 private:
  void* data_ = nullptr;
  size_t size_ = 0;
};
}  // namespace

Model read_scene(const std::string& path) {
  if (const MappedFile mapped(path); mapped.mapped()) return parse_scene(mapped.text(), path);
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, "", "cannot open scene file");
  std::stringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw InputError(path, 0, "", "cannot read scene file");
  return parse_scene(ss.str(), path);
}

}  // namespace mb
