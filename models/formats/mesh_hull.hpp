// Mesh files as convex shapes: a mesh's vertices read with Assimp (STL, OBJ, DAE and the other
// formats it reads), scaled, and their convex hull computed with Qhull (libqhull_r). Used by the
// URDF import (collisions=all, docs/robots.md); built when MBBENCH_WITH_MESHES is set.
#pragma once
#include <array>
#include <stdexcept>
#include <string>
#include <vector>

#include "models/model.hpp"

namespace mb {

// A convex polyhedron as ShapeType::Convex holds it: the hull's vertices (input points, exactly as
// given) and triangles counter-clockwise seen from outside.
struct ConvexHull {
  std::vector<Vec3> vertices;
  std::vector<std::array<int, 3>> faces;
};

// Why a mesh gives no convex shape (what() says it; the caller names the file and the field).
struct MeshError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// True when this binary reads mesh files (built with Assimp and Qhull).
bool meshes_supported();
// The convex hull of points: MeshError for fewer than 4 points or points that span no volume
// (all in a plane, to 1e-9 of their extent).
ConvexHull convex_hull(const std::vector<Vec3>& points);
// The convex hull of a mesh file's vertices (every mesh of the file, placed by its node
// transforms; a COLLADA file's <unit> applies, its up axis does not: the vertices are in the
// file's own axes, as ROS tools read them), each multiplied by scale: MeshError for a file that
// cannot be read, has no vertices or is flat.
ConvexHull mesh_hull(const std::string& path, const Vec3& scale);

}  // namespace mb
