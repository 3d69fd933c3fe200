/* sim/common/mesh_sdf: a closed triangle mesh's signed distance field baked on
 * a grid at load, for mesh colliders (issue 17). Each node holds the exact
 * distance to the nearest triangle (closest point on a triangle, Ericson 2005,
 * Real-Time Collision Detection 5.1.5), negative inside; the sign is the solid's
 * inside test (winding number, sim/common/solid.h). The grid spans the mesh's
 * box and FL_MESH_SDF_MARGIN cells more on every side; shaders/common/sdf.glsl
 * reads it by trilinear interpolation and takes its gradient by the four-point
 * tetrahedral difference of the SDF note (NOTES.md section 1). */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#include "sim/common/mesh_cpu.h"

#define FL_MESH_SDF_MARGIN 3

typedef struct {
  float grid_min[3]; /* position of node (0,0,0) */
  float cell;        /* node spacing (m) */
  uint32_t dims[3];  /* nodes per axis */
  float *values;     /* dims[0] * dims[1] * dims[2], x fastest (malloc'd) */
} fl_mesh_sdf;

/* Bakes `mesh` (closed, counter-clockwise from outside) with `resolution` cells
 * along its longest side. False with a one-line error when out of memory or
 * when the bake would cost more than 2e9 point-triangle tests. */
bool fl_mesh_sdf_bake(const fl_cpu_mesh *mesh, uint32_t resolution, fl_mesh_sdf *out);
/* The exact signed distance from p to the mesh (the bake's value at one point, O(triangles)). */
double fl_mesh_sdf_exact(const fl_cpu_mesh *mesh, const double p[3]);
void fl_mesh_sdf_free(fl_mesh_sdf *sdf);
