/* sim/softbody/solid: the closed shapes soft bodies are made from, as an
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
/* True when p is inside the solid. */
bool fl_solid_inside(const fl_solid *s, const float p[3]);
/* The solid's exact volume (analytic shapes) or the mesh's signed volume. */
double fl_solid_volume(const fl_solid *s);
/* A closed, counter-clockwise render surface of the solid with about `detail`
 * segments around (sphere: icosphere; box: each face a detail x detail grid;
 * torus: detail x detail/2 quads; mesh: a copy of the mesh). detail >= 4. */
bool fl_solid_surface(const fl_solid *s, uint32_t detail, fl_cpu_mesh *out);
