// Non-finite numbers in robot files (URDF, MJCF), found on TinyXML's DOM before liburdfdom or
// MuJoCo reads the file: an attribute whose value is a list of numbers (every token a number to
// std::from_chars) with a NaN or an infinity is an InputError naming the file, the element's line,
// the element and the attribute. Names and references (name, class, link, body1, file, ...) are
// text, never numbers.
#pragma once
#include <string>
#include <string_view>

class TiXmlElement;

namespace mb {

// The text as TinyXML 2.6 (ours, liburdfdom's) can read it whatever its bytes: it steps over a
// UTF-8 character by its lead byte's length without looking for the end, so a lead byte among the
// last three bytes reads past the text. Eight NUL bytes after the text end every such step on a NUL.
std::string tinyxml_text(std::string_view text);
// The element as a field: its tags up from the nearest named element, which shows its name, e.g.
// "link[upper].inertial.mass", "body[arm].geom" (the document's root element is left out).
std::string xml_field(const TiXmlElement& e);
// Checks e and every element under it; throws InputError(path, line, field, ...) at the first
// non-finite number.
void check_xml_numbers(const TiXmlElement& e, const std::string& path);
// The same on an MJCF file and the files it includes (<include file>, relative to the including
// file's folder). A file TinyXML cannot read is left to MuJoCo, which names the error.
void check_mjcf_numbers(const std::string& path);
// The line of the first element <tag ... name="name" (either quote) in an XML file's text; 0 when
// there is none.
int xml_element_line(const std::string& text, const std::string& tag, const std::string& name);

}  // namespace mb
