/* sim/common/solid: the closed shapes soft bodies are made from, as an
 * inside test, a bounding box, and a fine triangle surface for drawing.
 *
 * Shapes: a sphere (center, radius), an axis-aligned box (center,
 * half_extents), a torus around the y axis (center, major radius R, minor
 * radius r) and a closed triangle mesh (already placed in world space). A
 * point is inside the mesh where its generalized winding number (the solid
 * angle sum of the triangles, Jacobson 2013) is above 1/2, so meshes with
 * small holes or flipped patches still have an inside. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/common/mesh_cpu.h"

typedef enum { FL_SOLID_SPHERE, FL_SOLID_BOX, FL_SOLID_TORUS, FL_SOLID_MESH } fl_solid_kind;

typedef struct {
  fl_solid_kind kind;
  float center[3];
  float radius;                 /* sphere radius; torus major radius R (centre of the tube) */
  float minor_radius;           /* torus tube radius r (< R) */
  float half_extents[3];        /* box */
  const fl_cpu_mesh *mesh;      /* mesh: closed, counter-clockwise seen from outside, world space */
} fl_solid;

/* The solid's axis-aligned bounding box. */
void fl_solid_bounds(const fl_solid *s, float lo[3], float hi[3]);
/* True when p is inside the solid (mesh: winding number > 1/2, summed over
 * every triangle: O(triangles) per point). */
bool fl_solid_inside(const fl_solid *s, const float p[3]);
/* The inside test at every point of a lattice: inside[(k * n[1] + j) * n[0] + i]
 * (1 or 0) for the point origin + (i, j, k) * step. The same answers as
 * fl_solid_inside (but for points on a mesh's surface), and for closed meshes
 * (vertices at equal positions welded, every edge used as often each way) much
 * faster: there the winding number is an integer, 0 before a row of points
 * (+x) meets the mesh, changing by exactly 1 (up or down by the triangle's
 * facing) where the row crosses a triangle, so each row costs its crossings. A
 * row that grazes an edge or a vertex, and every row of an open mesh (whose
 * winding number varies smoothly), are tested point by point. False
 * (fl_error_set) when out of memory. */
bool fl_solid_inside_lattice(const fl_solid *s, const double origin[3], double step, const uint32_t n[3],
                             uint8_t *inside);
/* The solid's exact volume (analytic shapes) or the mesh's signed volume. */
double fl_solid_volume(const fl_solid *s);
/* A closed, counter-clockwise render surface of the solid with about `detail`
 * segments around, welded (vertices shared between triangles, so smooth
 * normals stay continuous): sphere: the icosphere whose great circles have
 * about `detail` edges (about 5.2 * 2^s at s subdivisions); box: each face a
 * detail x detail grid, edge and corner vertices shared by the faces; torus:
 * detail x detail/2 quads; mesh: a copy of the mesh. detail in 4..1024. */
bool fl_solid_surface(const fl_solid *s, uint32_t detail, fl_cpu_mesh *out);
