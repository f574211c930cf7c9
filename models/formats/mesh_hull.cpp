#include "models/formats/mesh_hull.hpp"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include <fmt/format.h>

#ifdef MBBENCH_WITH_MESHES
#include <assimp/Importer.hpp>
#include <assimp/config.h>
#include <assimp/scene.h>
#include <libqhull_r/qhull_ra.h>  // its declarations are extern "C" in C++
#endif

namespace mb {

namespace {

// the distance of p from the line through a along the unit vector u
double from_line(const Vec3& p, const Vec3& a, const Vec3& u) { return (p - a - (p - a).dot(u) * u).norm(); }

}  // namespace

ConvexHull convex_hull(const std::vector<Vec3>& points) {
  if (points.size() < 4) throw MeshError(fmt::format("it has {} vertices; a solid needs at least 4", points.size()));
  // four points spanning the largest volume found greedily: a flat set (a plane, a line, a point)
  // has no hull, and Qhull's own error for it is pages long
  Vec3 lo = points[0], hi = points[0];
  for (const Vec3& p : points) {
    if (!p.allFinite()) throw MeshError("a vertex is not finite");
    lo = lo.cwiseMin(p);
    hi = hi.cwiseMax(p);
  }
  const double size = (hi - lo).norm(), tol = 1e-9 * size;
  auto farthest = [&](auto&& dist) {
    size_t best = 0;
    for (size_t k = 1; k < points.size(); ++k)
      if (dist(points[k]) > dist(points[best])) best = k;
    return best;
  };
  const Vec3 a = points[farthest([&](const Vec3& p) { return (p - lo).norm(); })];
  const Vec3 b = points[farthest([&](const Vec3& p) { return (p - a).norm(); })];
  if (!((b - a).norm() > tol)) throw MeshError("its vertices coincide: it spans no volume");
  const Vec3 u = (b - a).normalized();
  const Vec3 c = points[farthest([&](const Vec3& p) { return from_line(p, a, u); })];
  if (!(from_line(c, a, u) > tol)) throw MeshError("its vertices lie on a line: it spans no volume");
  const Vec3 n = u.cross(c - a).normalized();
  const Vec3 d = points[farthest([&](const Vec3& p) { return std::abs((p - a).dot(n)); })];
  if (!(std::abs((d - a).dot(n)) > tol)) throw MeshError("it is flat: its vertices lie in a plane (it spans no volume)");
#ifndef MBBENCH_WITH_MESHES
  throw MeshError("this mbbench was built without Qhull (MBBENCH_WITH_MESHES): it computes no convex hull");
#else
  std::vector<coordT> xyz;
  xyz.reserve(3 * points.size());
  for (const Vec3& p : points) xyz.insert(xyz.end(), {p.x(), p.y(), p.z()});
  qhT context;
  qhT* qh = &context;  // the name Qhull's macros (FORALLfacets) use
  char* buffer = nullptr;
  size_t length = 0;
  FILE* err = open_memstream(&buffer, &length);  // Qhull's messages, for the error
  qh_zero(qh, err);
  char command[] = "qhull Qt";  // triangulated facets
  const int code = qh_new_qhull(qh, 3, static_cast<int>(points.size()), xyz.data(), False, command, nullptr, err);
  ConvexHull hull;
  bool foreign = false;  // a hull vertex that is not an input point (qh_pointid < 0): no hull of ours
  if (code == 0) {
    std::vector<int> index(points.size(), -1);  // input point -> hull vertex
    auto input = [&](const pointT* p) {
      const int id = qh_pointid(qh, const_cast<pointT*>(p));
      foreign = foreign || id < 0 || id >= static_cast<int>(points.size());
      return foreign ? size_t{0} : static_cast<size_t>(id);
    };
    vertexT *vertex, **vertexp;
    facetT* facet;
    FORALLvertices index[input(vertex->point)] = 0;
    for (size_t k = 0; k < points.size() && !foreign; ++k)  // in the file's order
      if (index[k] == 0) {
        index[k] = static_cast<int>(hull.vertices.size());
        hull.vertices.push_back(points[k]);
      }
    FORALLfacets {
      if (foreign) break;
      std::array<int, 3> tri{};
      int i = 0;
      FOREACHvertex_(facet->vertices) if (i < 3) tri[static_cast<size_t>(i++)] = index[input(vertex->point)];
      if (foreign || i != 3 || std::min({tri[0], tri[1], tri[2]}) < 0) continue;
      const Vec3 &p0 = hull.vertices[static_cast<size_t>(tri[0])], &p1 = hull.vertices[static_cast<size_t>(tri[1])],
                 &p2 = hull.vertices[static_cast<size_t>(tri[2])];
      const Vec3 outward(facet->normal[0], facet->normal[1], facet->normal[2]);
      if ((p1 - p0).cross(p2 - p0).dot(outward) < 0) std::swap(tri[1], tri[2]);
      hull.faces.push_back(tri);
    }
  }
  qh_freeqhull(qh, !qh_ALL);
  int curlong = 0, totlong = 0;
  qh_memfreeshort(qh, &curlong, &totlong);
  std::fclose(err);
  std::string message(buffer ? buffer : "", length);
  std::free(buffer);
  if (code != 0) throw MeshError(fmt::format("Qhull computes no convex hull: {}", message.substr(0, message.find('\n'))));
  if (foreign) throw MeshError("Qhull's hull has a vertex that is not one of the mesh's");
  return hull;
#endif
}

#ifndef MBBENCH_WITH_MESHES

bool meshes_supported() { return false; }
ConvexHull mesh_hull(const std::string&, const Vec3&) {
  throw MeshError("this mbbench was built without Assimp and Qhull (MBBENCH_WITH_MESHES): it reads no mesh files");
}

#else

bool meshes_supported() { return true; }

ConvexHull mesh_hull(const std::string& path, const Vec3& scale) {
  Assimp::Importer importer;
  importer.SetPropertyBool(AI_CONFIG_IMPORT_COLLADA_IGNORE_UP_DIRECTION, true);
  const aiScene* scene = importer.ReadFile(path, 0);  // no post-processing: only the vertices are used
  if (!scene || !scene->mRootNode) throw MeshError(fmt::format("Assimp cannot read it: {}", importer.GetErrorString()));
  std::vector<Vec3> points;
  auto walk = [&](auto&& self, const aiNode& node, const aiMatrix4x4& parent) -> void {
    const aiMatrix4x4 t = parent * node.mTransformation;
    for (unsigned k = 0; k < node.mNumMeshes; ++k) {
      const aiMesh& mesh = *scene->mMeshes[node.mMeshes[k]];
      for (unsigned v = 0; v < mesh.mNumVertices; ++v) {
        const aiVector3D p = t * mesh.mVertices[v];
        points.push_back(Vec3(p.x, p.y, p.z).cwiseProduct(scale));
      }
    }
    for (unsigned k = 0; k < node.mNumChildren; ++k) self(self, *node.mChildren[k], t);
  };
  walk(walk, *scene->mRootNode, aiMatrix4x4());
  if (points.empty()) throw MeshError("it has no vertices");
  return convex_hull(points);
}

#endif

}  // namespace mb
