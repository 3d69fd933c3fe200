/* sim/common/mesh_cpu: triangle meshes on the CPU: procedural shapes for the
 * colliders, the vertex-to-face adjacency (CSR) the GPU normal kernel gathers
 * through, and a CPU reference of that kernel. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

typedef struct {
  float (*positions)[4]; /* xyz, w = 1 */
  uint32_t *indices;     /* 3 per triangle, counter-clockwise seen from outside */
  uint32_t vertex_count, triangle_count;
} fl_cpu_mesh;

/* A UV sphere of `rings` latitude bands (>= 2) and `segments` longitudes (>= 3). */
bool fl_mesh_sphere(const float center[3], float radius, uint32_t rings, uint32_t segments, fl_cpu_mesh *out);
/* An axis-aligned box with flat faces (24 vertices). */
bool fl_mesh_box(const float center[3], const float half_extents[3], fl_cpu_mesh *out);
/* A capsule between a and b: two hemispheres joined by a cylinder. */
bool fl_mesh_capsule(const float a[3], const float b[3], float radius, uint32_t rings, uint32_t segments,
                     fl_cpu_mesh *out);
/* An icosphere: the icosahedron with each triangle split into four `subdivisions`
 * times (0..7), vertices pushed onto the sphere: 10 * 4^s + 2 vertices. */
bool fl_mesh_icosphere(const float center[3], float radius, uint32_t subdivisions, fl_cpu_mesh *out);
/* Signed volume enclosed by a closed mesh: sum over triangles of (x0 x x1) . x2 / 6
 * (positive for counter-clockwise-from-outside winding), in double precision. */
double fl_mesh_volume(const float (*positions)[4], const uint32_t *indices, uint32_t triangle_count);
void fl_cpu_mesh_free(fl_cpu_mesh *mesh);

/* Builds the faces of each vertex: faces_of[first[v] .. first[v+1]) (first has
 * vertex_count + 1 entries, faces_of 3 * triangle_count). Both malloc'd. */
bool fl_mesh_vertex_faces(const fl_cpu_mesh *mesh, uint32_t **first_out, uint32_t **faces_out);
/* CPU reference of common/face_normals.comp + vertex_normals.comp. */
void fl_mesh_normals_cpu(const fl_cpu_mesh *mesh, float (*normals_out)[4]);
/* The three vertex indices (j * nx + i form) of triangle `t` (0 or 1) of grid cell
 * (i, j); the diagonal alternates like a chequerboard (cloth and mass-spring grids). */
void fl_grid_cell_triangle(uint32_t nx, uint32_t i, uint32_t j, int t, uint32_t out[3]);
/* A grid mesh of nx x ny vertices (copied from `positions`, row j = vertices j*nx ..). */
bool fl_mesh_grid(const float (*positions)[4], uint32_t nx, uint32_t ny, fl_cpu_mesh *out);
/* Reads the OBJ at `path` into a mesh placed in world space: file coordinates x scale + center;
 * it must bound a solid (fl_mesh_check_solid). */
bool fl_obj_load_placed(const char *path, float scale, const float center[3], fl_cpu_mesh *out);
