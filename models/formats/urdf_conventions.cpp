// URDF import: the conventions of Drake's and PyBullet's URDF rewritten on TinyXML's DOM
// (urdf_conventions.hpp).
#ifdef MBBENCH_WITH_URDF
#include "models/formats/urdf_conventions.hpp"

#include <filesystem>
#include <map>

#include <fmt/format.h>
#include <tinyxml.h>

#include "core/error.hpp"
#include "models/formats/xml_numbers.hpp"

namespace mb::urdf_import {

namespace {

std::vector<TiXmlElement*> children(TiXmlElement& e, const char* tag = nullptr) {
  std::vector<TiXmlElement*> out;
  for (TiXmlElement* c = e.FirstChildElement(); c; c = c->NextSiblingElement())
    if (!tag || std::string(c->Value()) == tag) out.push_back(c);
  return out;
}

}  // namespace

Conventions normalise(const std::string& text, const std::string& path, bool strict) {
  Conventions c;
  c.text = text;
  TiXmlDocument doc;
  doc.Parse(tinyxml_text(text).c_str(), nullptr, TIXML_ENCODING_UTF8);
  if (doc.Error() || !doc.RootElement()) return c;  // liburdfdom names the error
  TiXmlElement& robot = *doc.RootElement();
  check_xml_numbers(robot, path);
  const bool lenient = !strict && std::string(robot.Value()) == "robot";
  // geometry that URDF does not define (PyBullet's <plane> and <cdf>): its <collision> or <visual>
  // ignored, before the collisions are counted
  std::vector<std::string> unknown;
  auto foreign = [](TiXmlElement& k) -> std::string {
    for (TiXmlElement* g : children(k, "geometry"))
      for (TiXmlElement* shape : children(*g)) {
        const std::string tag = shape->Value();
        if (!(tag == "box" || tag == "sphere" || tag == "cylinder" || tag == "mesh" || tag == "capsule" || tag == "drake:capsule")) return tag;
      }
    return "";
  };
  for (TiXmlElement* l : lenient ? children(robot, "link") : std::vector<TiXmlElement*>{})
    for (const char* kind : {"collision", "visual"})
      for (TiXmlElement* k : children(*l, kind))
        if (const std::string tag = foreign(*k); !tag.empty()) {
          unknown.push_back(fmt::format("<{}> in link {}", tag, l->Attribute("name") ? l->Attribute("name") : ""));
          l->RemoveChild(k);
        }
  for (TiXmlElement* l : children(robot, "link")) {  // the lines of the collision meshes, for their errors
    size_t index = 0;
    for (TiXmlElement* k : children(*l, "collision")) {
      for (TiXmlElement* g : children(*k, "geometry"))
        for (TiXmlElement* mesh : children(*g, "mesh")) c.mesh_lines[{l->Attribute("name") ? l->Attribute("name") : "", index}] = mesh->Row();
      ++index;
    }
  }
  if (!lenient) return c;
  const std::string refused = "; strict=on refuses it";
  auto warn = [&](const std::string& what, const std::vector<std::string>& where) {
    if (!where.empty()) c.warnings.push_back(fmt::format("{}: {}: {}{}", path, what, join(where, ", "), refused));
  };

  // a robot without a name: named after its file
  if (!robot.Attribute("name")) {
    const std::string file = path.substr(path.find_last_of('/') + 1);
    const std::string stem = file.substr(0, file.rfind('.'));
    const std::string name = stem.empty() ? "robot" : stem;
    robot.SetAttribute("name", name);
    warn("a <robot> without a name is named after its file", {"'" + name + "'"});
  }

  // extension elements: namespaced ones (<drake:...>) anywhere, Bullet's <contact> in a <link>
  std::map<std::string, int> extensions;
  auto strip = [&](const auto& self, TiXmlElement& e) -> void {
    for (TiXmlElement* k : children(e)) {
      const std::string tag = k->Value();
      const bool drop = tag.find(':') != std::string::npos || (tag == "contact" && std::string(e.Value()) == "link");
      if (drop && !(tag == "drake:capsule")) {
        ++extensions["<" + tag + ">"];
        e.RemoveChild(k);
      } else {
        self(self, *k);
      }
    }
  };
  strip(strip, robot);
  std::vector<std::string> ext;
  for (const auto& [tag, n] : extensions) ext.push_back(n > 1 ? fmt::format("{} ({})", tag, n) : tag);
  warn("extension elements ignored", ext);
  warn("geometry that URDF does not define: its <collision> or <visual> ignored", unknown);

  // an undeclared parent link 'world': the fixed world
  std::set<std::string> links;
  for (TiXmlElement* l : children(robot, "link"))
    if (l->Attribute("name")) links.insert(l->Attribute("name"));
  std::vector<std::string> balls, on_world, no_limit, partial_limit, reversed, unnamed, capsules, inertia;
  for (TiXmlElement* j : children(robot, "joint")) {
    const std::string name = j->Attribute("name") ? j->Attribute("name") : "";
    for (TiXmlElement* p : children(*j, "parent"))
      if (p->Attribute("link") && std::string(p->Attribute("link")) == "world" && !links.count("world")) on_world.push_back(name);
    std::string type = j->Attribute("type") ? j->Attribute("type") : "";
    if (type == "spherical" || type == "ball") {  // liburdfdom reads it as floating; the mapping makes it a ball
      balls.push_back(name);
      c.balls.insert(name);
      j->SetAttribute("type", "floating");
      type = "floating";
    }
    const std::vector<TiXmlElement*> limit = children(*j, "limit");
    if ((type == "revolute" || type == "prismatic") && limit.empty()) {
      // no limit: a revolute joint is a continuous one; a prismatic one gets a range of zero width,
      // read as none
      no_limit.push_back(name);
      if (type == "revolute") {
        j->SetAttribute("type", "continuous");
      } else {
        TiXmlElement l("limit");
        l.SetAttribute("lower", "0");
        l.SetAttribute("upper", "0");
        l.SetAttribute("effort", "0");
        l.SetAttribute("velocity", "0");
        j->InsertEndChild(l);
        c.unlimited.insert(name);
      }
    }
    for (TiXmlElement* l : limit) {
      // PyBullet's way of saying "no limit": a lower end above the upper one
      double lower = 0, upper = 0;
      if (l->QueryDoubleAttribute("lower", &lower) == TIXML_SUCCESS && l->QueryDoubleAttribute("upper", &upper) == TIXML_SUCCESS && lower > upper) {
        reversed.push_back(name);
        c.unlimited.insert(name);
      }
      for (const char* key : {"effort", "velocity"})
        if (!l->Attribute(key)) {  // neither is modelled
          l->SetAttribute(key, "0");
          if (partial_limit.empty() || partial_limit.back() != name) partial_limit.push_back(name);
        }
    }
  }
  // links that no joint holds beside the root (Drake floats each): floating joints from 'world'
  std::set<std::string> held, joints;
  for (TiXmlElement* j : children(robot, "joint")) {
    if (j->Attribute("name")) joints.insert(j->Attribute("name"));
    for (TiXmlElement* k : children(*j, "child"))
      if (k->Attribute("link")) held.insert(k->Attribute("link"));
  }
  std::vector<std::string> roots;
  for (const std::string& l : links)
    if (!held.count(l) && l != "world") roots.push_back(l);
  std::vector<std::string> floating;
  if (roots.size() + (!on_world.empty() || links.count("world") ? 1 : 0) > 1) {
    for (const std::string& r : roots) {
      std::string name = "world_to_" + r;
      while (joints.count(name)) name += "_";
      TiXmlElement j("joint");
      j.SetAttribute("name", name);
      j.SetAttribute("type", "floating");
      TiXmlElement parent("parent"), child("child");
      parent.SetAttribute("link", "world");
      child.SetAttribute("link", r);
      j.InsertEndChild(parent);
      j.InsertEndChild(child);
      robot.InsertEndChild(j);
      c.floating.insert(name);
      floating.push_back(r);
    }
  }
  if (!on_world.empty() || (!floating.empty() && !links.count("world"))) {
    TiXmlElement world("link");
    world.SetAttribute("name", "world");
    robot.InsertBeforeChild(robot.FirstChildElement(), world);
  }
  warn("the parent link 'world' is not declared: it is the fixed world (Drake's and PyBullet's convention); joints", on_world);
  warn("links that no joint holds float (Drake's convention; of mass 0, they are welded to the world)", floating);
  warn("spherical (Bullet's) and ball (Drake's) joints map as ball joints", balls);
  warn("joints without <limit> have no limits", no_limit);
  warn("a <limit> without effort or velocity (neither is modelled)", partial_limit);
  warn("a <limit> whose lower end is above the upper one is no limit (PyBullet's convention)", reversed);

  // unnamed materials (appearance only) dropped; capsules as cylinders, mapped as capsules; the
  // missing moments of an <inertial> 0
  auto drop_unnamed = [&](TiXmlElement& e, const std::string& where) {
    for (TiXmlElement* m : children(e, "material"))
      if (!m->Attribute("name") || !*m->Attribute("name")) {
        unnamed.push_back(where);
        e.RemoveChild(m);
      }
  };
  drop_unnamed(robot, "robot");
  std::set<std::string> materials;
  std::vector<std::string> twice, no_geometry;
  for (TiXmlElement* m : children(robot, "material"))
    if (!materials.insert(m->Attribute("name")).second) {
      twice.push_back(m->Attribute("name"));
      robot.RemoveChild(m);
    }
  for (TiXmlElement* l : children(robot, "link")) {
    const std::string link = l->Attribute("name") ? l->Attribute("name") : "";
    for (TiXmlElement* v : children(*l, "visual")) {
      drop_unnamed(*v, "link " + link);
      if (children(*v, "geometry").empty()) {
        no_geometry.push_back(link);
        l->RemoveChild(v);
      }
    }
    size_t index = 0;
    for (const char* kind : {"collision", "visual"})
      for (TiXmlElement* k : children(*l, kind)) {
        for (TiXmlElement* g : children(*k, "geometry"))
          for (TiXmlElement* cap : children(*g))
            if (std::string(cap->Value()) == "capsule" || std::string(cap->Value()) == "drake:capsule") {
              cap->SetValue("cylinder");
              if (std::string(kind) == "collision") c.capsules.insert({link, index});
              if (capsules.empty() || capsules.back() != link) capsules.push_back(link);
            }
        if (std::string(kind) == "collision") ++index;
      }
    for (TiXmlElement* in : children(*l, "inertial")) {
      std::vector<TiXmlElement*> moments = children(*in, "inertia");
      if (moments.empty()) {
        TiXmlElement zero("inertia");
        in->InsertEndChild(zero);
        moments = children(*in, "inertia");
      }
      bool missing = false;
      for (TiXmlElement* m : moments)
        for (const char* key : {"ixx", "ixy", "ixz", "iyy", "iyz", "izz"})
          if (!m->Attribute(key)) {
            m->SetAttribute(key, "0");
            missing = true;
          }
      if (missing) inertia.push_back(link);
    }
  }
  warn("<material> without a name (appearance only) ignored in", unnamed);
  warn("<material> defined again (appearance only), the first definition kept", twice);
  warn("<visual> without <geometry> ignored in links", no_geometry);
  warn("<capsule> geometry (Bullet's and Drake's) maps as a capsule in links", capsules);
  warn("an <inertial> without <inertia> or some of its moments: they are 0 (Drake's convention); links", inertia);

  TiXmlPrinter printer;
  doc.Accept(&printer);
  c.text = printer.CStr();
  return c;
}

// The file a <mesh filename> names, as ROS tools find it: a plain path relative to the URDF file's
// folder; file://PATH that path; package://PKG/REST the file REST in package PKG: the nearest of
// the URDF file's folder and its ancestors named PKG, or else the folder PKG in the nearest of them
// that holds one (packages side by side in a workspace). Empty when there is no such package.
std::string mesh_file(const std::string& filename, const std::string& urdf_path) {
  namespace fs = std::filesystem;
  const std::string package = "package://", file = "file://";
  const fs::path folder = fs::absolute(fs::path(urdf_path)).parent_path();
  if (filename.rfind(file, 0) == 0) return filename.substr(file.size());
  if (filename.rfind(package, 0) != 0) return (folder / filename).lexically_normal().string();
  const std::string rest = filename.substr(package.size());
  const std::string pkg = rest.substr(0, rest.find('/')), inside = rest.find('/') == std::string::npos ? "" : rest.substr(rest.find('/') + 1);
  if (pkg.empty()) return "";
  for (fs::path d = folder; !d.empty(); d = d.parent_path()) {
    if (d.filename() == pkg) return (d / inside).lexically_normal().string();
    if (d == d.parent_path()) break;
  }
  std::error_code ec;
  for (fs::path d = folder; !d.empty(); d = d.parent_path()) {
    if (fs::is_directory(d / pkg, ec)) return (d / pkg / inside).lexically_normal().string();
    if (d == d.parent_path()) break;
  }
  return "";
}

}  // namespace mb::urdf_import

#endif
