#include "models/formats/xml_numbers.hpp"

namespace mb {

std::string tinyxml_text(std::string_view text) {
  std::string padded(text);
  padded.append(8, '\0');
  return padded;
}

}  // namespace mb

#ifdef MBBENCH_WITH_TINYXML
#include <tinyxml.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <set>
#include <string_view>

#include <fmt/format.h>

#include "core/error.hpp"

namespace mb {

namespace {

// attributes that hold names, references, file names or keywords
bool text_attribute(const char* name) {
  static const char* const names[] = {"name",   "class",  "childclass", "file",    "link",     "joint",  "joint1", "joint2",  "body",
                                      "body1",  "body2",  "geom",       "geom1",   "geom2",    "site",   "tendon", "mesh",    "material",
                                      "texture", "hfield", "target",    "objname", "prefix",   "model",  "type",   "filename", "meshdir",
                                      "texturedir", "actuator", "sensor", "slidersite", "cranksite", "refsite", "key"};
  for (const char* n : names)
    if (std::strcmp(n, name) == 0) return true;
  return false;
}

// True when every token of `value` is a number and one of them is a NaN or an infinity
bool non_finite_list(std::string_view value) {
  bool any = false, bad = false;
  size_t i = 0;
  while (i < value.size()) {
    while (i < value.size() && std::isspace(static_cast<unsigned char>(value[i]))) ++i;
    if (i == value.size()) break;
    size_t end = i;
    while (end < value.size() && !std::isspace(static_cast<unsigned char>(value[end]))) ++end;
    const char* first = value.data() + i + (value[i] == '+' ? 1 : 0);  // from_chars takes no '+'
    const char* last = value.data() + end;
    double x = 0;
    const auto [ptr, ec] = std::from_chars(first, last, x);
    if (ec == std::errc::result_out_of_range) {
      bad = true;  // beyond double's range: an infinity to the parsers that read it
    } else if (ec != std::errc() || ptr != last) {
      return false;
    } else if (!std::isfinite(x)) {
      bad = true;
    }
    any = true;
    i = end;
  }
  return any && bad;
}

void check_one(const TiXmlElement& e, const std::string& path) {
  for (const TiXmlAttribute* a = e.FirstAttribute(); a; a = a->Next()) {
    if (text_attribute(a->Name()) || std::strchr(a->Name(), ':')) continue;
    if (non_finite_list(a->Value()))
      throw InputError(path, e.Row(), xml_field(e), fmt::format("attribute {}=\"{}\": numbers must be finite", a->Name(), a->Value()));
  }
  for (const TiXmlElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) check_one(*c, path);
}

// each file once (a file including itself is MuJoCo's to refuse)
void check_file(const std::string& path, std::set<std::string>& seen) {
  std::error_code ec;
  const std::string key = std::filesystem::weakly_canonical(path, ec).string();
  if (!seen.insert(ec ? path : key).second) return;
  std::ifstream in(path, std::ios::binary);
  if (!in) return;
  std::ostringstream text;
  text << in.rdbuf();
  TiXmlDocument doc;
  doc.Parse(tinyxml_text(text.str()).c_str(), nullptr, TIXML_ENCODING_UNKNOWN);
  if (doc.Error() || !doc.RootElement()) return;
  check_one(*doc.RootElement(), path);
  // <include> anywhere in the tree: its file relative to this file's folder
  const std::filesystem::path dir = std::filesystem::path(path).parent_path();
  auto includes = [&](const auto& self, const TiXmlElement& e) -> void {
    for (const TiXmlElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement()) {
      if (std::strcmp(c->Value(), "include") == 0 && c->Attribute("file")) check_file((dir / c->Attribute("file")).string(), seen);
      self(self, *c);
    }
  };
  includes(includes, *doc.RootElement());
}

}  // namespace

std::string xml_field(const TiXmlElement& e) {
  std::string field;
  for (const TiXmlNode* n = &e; n && n->ToElement() && n->Parent() && n->Parent()->ToElement(); n = n->Parent()) {
    const TiXmlElement& el = *n->ToElement();
    const char* name = el.Attribute("name");
    std::string part = el.Value();
    if (name && *name) part += fmt::format("[{}]", name);
    field = field.empty() ? part : part + "." + field;
    if (name && *name) break;
  }
  return field.empty() ? std::string(e.Value()) : field;
}

void check_xml_numbers(const TiXmlElement& e, const std::string& path) { check_one(e, path); }

void check_mjcf_numbers(const std::string& path) {
  std::set<std::string> seen;
  check_file(path, seen);
}

int xml_element_line(const std::string& text, const std::string& tag, const std::string& name) {
  for (const char q : {'"', '\''}) {
    const std::string key = "name=" + std::string(1, q) + name + q;
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + 1)) {
      const size_t open = text.rfind('<', at);
      if (open != std::string::npos && text.compare(open + 1, tag.size(), tag) == 0 &&
          std::isspace(static_cast<unsigned char>(text[open + 1 + tag.size()])))
        return 1 + static_cast<int>(std::count(text.begin(), text.begin() + static_cast<long>(at), '\n'));
    }
  }
  return 0;
}

}  // namespace mb

#endif
