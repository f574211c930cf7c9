// MJCF import: MuJoCo's colliding geoms as Shapes with their materials, the file's contact pairs
// and exclusions, and its contact options (Model::mjcf_contacts; mjcf_reader.hpp).
#ifdef MBBENCH_WITH_MUJOCO
#include <algorithm>
#include <cmath>
#include <map>

#include "models/formats/mjcf_reader.hpp"

namespace mb::mjcf_import {

void Reader::geoms(std::vector<std::string>& ignored) {
  if (!opt.contacts || (m->opt.disableflags & mjDSBL_CONTACT)) return;
  struct Key {
    double mu;
    bool frictionless;
    bool operator<(const Key& o) const { return mu != o.mu ? mu < o.mu : frictionless < o.frictionless; }
  };
  std::map<Key, int> materials;
  std::vector<Key> keys;
  std::vector<int> geom_ids;  // the MuJoCo geom of each shape
  int torsional = 0, priority = 0;
  // a geom in an explicit pair collides there whatever its contype and conaffinity
  std::vector<bool> paired(static_cast<size_t>(m->ngeom), false);
  for (int p = 0; p < m->npair; ++p) paired[static_cast<size_t>(m->pair_geom1[p])] = paired[static_cast<size_t>(m->pair_geom2[p])] = true;
  for (int g = 0; g < m->ngeom; ++g) {
    if (!m->geom_contype[g] && !m->geom_conaffinity[g] && !paired[static_cast<size_t>(g)]) continue;  // visual only
    const int mb = m->geom_bodyid[g];
    const int body = rep[static_cast<size_t>(mb)];
    const std::string field = "geom";
    Shape s;
    s.name = geom_name(g);
    s.body = body;
    mjtNum q[4];
    mju_mulQuat(q, d->xquat + 4 * mb, m->geom_quat + 4 * g);
    s.position = local_point(body, vec3(d->geom_xpos + 3 * g));
    s.orientation = (orientation(body).conjugate() * quat4(q)).normalized();
    const mjtNum* size = m->geom_size + 3 * g;
    switch (m->geom_type[g]) {
      case mjGEOM_PLANE:
        if (body != kWorld)
          fail(field, s.name, fmt::format("geom '{}' is a plane on the moving body '{}': a half-space belongs to the world (contacts=off drops the geoms)",
                                  s.name, body_name(mb)));
        s.type = ShapeType::HalfSpace;  // the plane's normal, its z, becomes the half-space's y
        s.orientation = (s.orientation * Quat(Eigen::AngleAxisd(M_PI / 2, Vec3::UnitX()))).normalized();
        break;
      case mjGEOM_SPHERE:
        s.type = ShapeType::Sphere;
        s.radius = size[0];
        break;
      case mjGEOM_CAPSULE:
      case mjGEOM_CYLINDER:
        s.type = m->geom_type[g] == mjGEOM_CAPSULE ? ShapeType::Capsule : ShapeType::Cylinder;
        s.radius = size[0];
        s.length = 2 * size[1];  // MuJoCo's size: radius, half-length
        break;
      case mjGEOM_ELLIPSOID:
        s.type = ShapeType::Ellipsoid;
        s.half_extents = vec3(size);
        break;
      case mjGEOM_BOX:
        s.type = ShapeType::Box;
        s.half_extents = vec3(size);
        break;
      default:
        fail(field, s.name, fmt::format("geom '{}' of body '{}' is a {}: only plane, sphere, capsule, cylinder, ellipsoid and box geoms become "
                                "Shapes (contacts=off drops the geoms)",
                                s.name, body_name(mb), geom_kind(m->geom_type[g])));
    }
    const Key key{m->geom_friction[3 * g], m->geom_condim[g] == 1};
    auto [it, added] = materials.emplace(key, static_cast<int>(keys.size()));
    if (added) keys.push_back(key);
    s.material = it->second;
    if (m->geom_condim[g] > 3) ++torsional;
    if (m->geom_priority[g] != 0) ++priority;
    out.shapes.push_back(s);
    geom_ids.push_back(g);
    out.mjcf_contacts.shapes.push_back(geom_contact(g));
  }
  file_pairs(geom_ids);
  if (out.shapes.empty()) return;
  for (const Key& k : keys) {
    Material mat;
    mat.name = fmt::format("mu={:g}{}", k.mu, k.frictionless ? ",condim=1" : "");
    mat.mu_static = mat.mu_dynamic = k.frictionless ? 0 : k.mu;
    out.materials.push_back(mat);
  }
  for (size_t i = 0; i < keys.size(); ++i)
    for (size_t j = i + 1; j < keys.size(); ++j) {
      MaterialPair p;
      p.a = static_cast<int>(i);
      p.b = static_cast<int>(j);
      p.mu_static = p.mu_dynamic = keys[i].frictionless && keys[j].frictionless ? 0 : std::max(keys[i].mu, keys[j].mu);
      out.material_pairs.push_back(p);
    }
  // pairs our detector tests (different bodies) that MuJoCo's contype/conaffinity bits exclude
  long filtered = 0;
  for (size_t i = 0; i < geom_ids.size(); ++i)
    for (size_t j = i + 1; j < geom_ids.size(); ++j) {
      if (out.shapes[i].body == out.shapes[j].body) continue;
      const int g1 = geom_ids[i], g2 = geom_ids[j];
      if (!((m->geom_contype[g1] & m->geom_conaffinity[g2]) || (m->geom_contype[g2] & m->geom_conaffinity[g1]))) ++filtered;
    }
  if (filtered) ignored.push_back(fmt::format("contype/conaffinity exclusions ({} geom pairs collide here)", filtered));
  if (m->npair) ignored.push_back(fmt::format("{} explicit contact pair(s)", m->npair));
  if (m->nexclude) ignored.push_back(fmt::format("{} contact exclusion(s)", m->nexclude));
  if (torsional) ignored.push_back(fmt::format("torsional/rolling friction (condim 4 or 6) on {} geom(s)", torsional));
  if (priority) ignored.push_back(fmt::format("contact priority on {} geom(s)", priority));
}

MjcfGeomContact Reader::geom_contact(int g) const {
  MjcfGeomContact c;
  c.contype = m->geom_contype[g];
  c.conaffinity = m->geom_conaffinity[g];
  c.condim = m->geom_condim[g];
  c.priority = m->geom_priority[g];
  std::copy_n(m->geom_friction + 3 * g, 3, c.friction.begin());
  std::copy_n(m->geom_solref + mjNREF * g, mjNREF, c.solref.begin());
  std::copy_n(m->geom_solimp + mjNIMP * g, mjNIMP, c.solimp.begin());
  c.solmix = m->geom_solmix[g];
  c.margin = m->geom_margin[g];
  c.gap = m->geom_gap[g];
  return c;
}

void Reader::file_pairs(const std::vector<int>& geom_ids) {
  MjcfContacts& c = out.mjcf_contacts;
  std::map<int, int> shape_of;
  for (size_t k = 0; k < geom_ids.size(); ++k) shape_of[geom_ids[k]] = static_cast<int>(k);
  for (int p = 0; p < m->npair; ++p) {
    MjcfContactPair q;
    q.shape1 = shape_of.at(m->pair_geom1[p]);
    q.shape2 = shape_of.at(m->pair_geom2[p]);
    q.condim = m->pair_dim[p];
    std::copy_n(m->pair_friction + 5 * p, 5, q.friction.begin());
    std::copy_n(m->pair_solref + mjNREF * p, mjNREF, q.solref.begin());
    std::copy_n(m->pair_solimp + mjNIMP * p, mjNIMP, q.solimp.begin());
    q.margin = m->pair_margin[p];
    q.gap = m->pair_gap[p];
    c.pairs.push_back(q);
  }
  for (int e = 0; e < m->nexclude; ++e) {  // signature (body1 + 1) << 16 + body2 + 1
    const int sig = m->exclude_signature[e], b1 = (sig >> 16) - 1, b2 = (sig & 0xFFFF) - 1;
    c.excludes.push_back({rep[static_cast<size_t>(b1)], rep[static_cast<size_t>(b2)]});
  }
}

void Reader::contact_options() {
  MjcfContacts& c = out.mjcf_contacts;
  const mjOption& o = m->opt;
  c.present = !opt.light_frames;
  c.cone = o.cone == mjCONE_ELLIPTIC ? "elliptic" : "pyramidal";
  c.solver = o.solver == mjSOL_PGS ? "PGS" : o.solver == mjSOL_CG ? "CG" : "Newton";
  c.collision = o.collision == mjCOL_PAIR ? "predefined" : o.collision == mjCOL_DYNAMIC ? "dynamic" : "all";
  c.iterations = o.iterations;
  c.noslip_iterations = o.noslip_iterations;
  c.mpr_iterations = o.mpr_iterations;
  c.impratio = o.impratio;
  c.tolerance = o.tolerance;
  c.noslip_tolerance = o.noslip_tolerance;
  c.mpr_tolerance = o.mpr_tolerance;
  c.filterparent = !(o.disableflags & mjDSBL_FILTERPARENT);
  c.overrides = o.enableflags & mjENBL_OVERRIDE;
  c.o_margin = o.o_margin;
  std::copy_n(o.o_solref, mjNREF, c.o_solref.begin());
  std::copy_n(o.o_solimp, mjNIMP, c.o_solimp.begin());
  c.nconmax = m->nconmax;
  c.njmax = m->njmax;
  c.nstack = m->nstack;
}

}  // namespace mb::mjcf_import

#endif
