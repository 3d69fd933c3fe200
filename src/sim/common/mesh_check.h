/* sim/common/mesh_check: is a triangle mesh a solid that can be filled (snow,
 * soft bodies) or inflated (balloons)? A clear message names what is wrong with
 * it: too small, flat, open, or wound inside out. */
#pragma once
#include "sim/common/mesh_cpu.h"

/* The smallest extent (m) a solid mesh may span: the scene's smallest length (FL_JR_LENGTH). */
#define FL_MESH_MIN_EXTENT 1e-5

/* Checks that `mesh` spans at least FL_MESH_MIN_EXTENT, is not flat (every axis
 * spans more than 1e-6 of the largest), is closed (every edge borders exactly two
 * triangles) and encloses a positive volume (counter-clockwise seen from outside).
 * Otherwise records "SOURCE: the mesh is ..." and returns false. */
bool fl_mesh_check_solid(const fl_cpu_mesh *mesh, const char *source);
