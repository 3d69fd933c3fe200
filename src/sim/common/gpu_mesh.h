/* sim/common/gpu_mesh: a triangle mesh in GPU buffers with its normals
 * computed on the GPU (common/face_normals.comp then vertex_normals.comp,
 * gathered through a CSR adjacency, no atomics). Materials whose surfaces move
 * (cloth, soft bodies) record fl_mesh_normals_record every frame; static meshes
 * (colliders) once at load. */
#pragma once
#include "gpu/gpu.h"
#include "sim/common/mesh_cpu.h"

typedef struct {
  fl_pipeline face, vertex;
} fl_mesh_normals;

/* Descriptor sets of the two normal passes for one positions -> normals pair. */
typedef struct {
  VkDescriptorSet face_set, vertex_set;
  uint32_t triangle_count, vertex_count;
} fl_mesh_normals_binding;

typedef struct {
  uint32_t vertex_count, triangle_count;
  fl_buffer positions;    /* vec4 per vertex */
  fl_buffer indices;      /* uint32, 3 per triangle */
  fl_buffer normals;      /* vec4 per vertex */
  fl_buffer face_normals; /* vec4 per triangle */
  fl_buffer first, faces; /* vertex -> faces CSR */
  fl_mesh_normals_binding binding;
} fl_gpu_mesh;

/* Creates the two normal pipelines. */
bool fl_mesh_normals_create(fl_gpu *gpu, fl_mesh_normals *mn);
void fl_mesh_normals_destroy(fl_gpu *gpu, fl_mesh_normals *mn);
/* Uploads `mesh` and builds its adjacency and descriptor sets. */
bool fl_gpu_mesh_create(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_cpu_mesh *mesh, const char *name,
                        fl_gpu_mesh *out);
void fl_gpu_mesh_destroy(fl_gpu *gpu, fl_gpu_mesh *mesh);

/* Binds the two normal passes to any positions -> normals pair over a topology
 * (indices, face-normal scratch, vertex-to-face CSR). */
bool fl_mesh_normals_bind(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_buffer *positions,
                          const fl_buffer *indices, const fl_buffer *face_normals, const fl_buffer *first,
                          const fl_buffer *faces, const fl_buffer *normals, uint32_t triangle_count,
                          uint32_t vertex_count, fl_mesh_normals_binding *out);
/* Frees the binding's descriptor sets; accepts a zeroed binding. */
void fl_mesh_normals_unbind(fl_gpu *gpu, fl_mesh_normals_binding *b);
/* Records the two normal dispatches of a binding (with barriers before and after). */
void fl_mesh_normals_record_binding(const fl_mesh_normals *mn, VkCommandBuffer cmd, const fl_mesh_normals_binding *b);
/* Records the two normal dispatches of a mesh (with barriers before and after). */
void fl_mesh_normals_record(const fl_mesh_normals *mn, VkCommandBuffer cmd, const fl_gpu_mesh *mesh);
/* Bytes the two normal passes must move, for the profiler. */
uint64_t fl_mesh_normals_bytes(const fl_gpu_mesh *mesh);
