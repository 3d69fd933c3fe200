/* sim/common/gpu_mesh: a triangle mesh in GPU buffers with its normals
 * computed on the GPU (common/face_normals.comp then vertex_normals.comp,
 * gathered through a CSR adjacency, no atomics). Materials whose surfaces move
 * (cloth, soft bodies) record fl_mesh_normals_record every frame; static meshes
 * (colliders) once at load. */
#pragma once
#include "gpu/rec.h"
#include "sim/common/mesh_cpu.h"

/* What the two normal passes read and write: positions -> normals over a
 * topology (indices, a face-normal scratch, the vertex-to-face CSR). */
typedef struct {
  const fl_buffer *positions, *indices, *face_normals, *first, *faces, *normals;
  uint32_t triangle_count, vertex_count;
} fl_mesh_normals_binding;

typedef struct {
  uint32_t vertex_count, triangle_count;
  fl_buffer positions;    /* vec4 per vertex */
  fl_buffer indices;      /* uint32, 3 per triangle */
  fl_buffer normals;      /* vec4 per vertex */
  fl_buffer face_normals; /* vec4 per triangle */
  fl_buffer first, faces; /* vertex -> faces CSR */
} fl_gpu_mesh;

/* Uploads `mesh` and builds its adjacency. */
bool fl_gpu_mesh_create(fl_gpu *gpu, const fl_cpu_mesh *mesh, const char *name, fl_gpu_mesh *out);
void fl_gpu_mesh_destroy(fl_gpu *gpu, fl_gpu_mesh *mesh);

/* Records the two normal dispatches of a binding (with barriers before and after). */
void fl_mesh_normals_record_binding(fl_rec *r, const fl_mesh_normals_binding *b);
/* Records the two normal dispatches of a mesh (with barriers before and after). */
void fl_mesh_normals_record(fl_rec *r, const fl_gpu_mesh *mesh);
/* Bytes the two normal passes must move, for the profiler. */
uint64_t fl_mesh_normals_bytes(const fl_gpu_mesh *mesh);
