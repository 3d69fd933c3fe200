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

typedef struct {
  uint32_t vertex_count, triangle_count;
  fl_buffer positions;    /* vec4 per vertex */
  fl_buffer indices;      /* uint32, 3 per triangle */
  fl_buffer normals;      /* vec4 per vertex */
  fl_buffer face_normals; /* vec4 per triangle */
  fl_buffer first, faces; /* vertex -> faces CSR */
  VkDescriptorSet face_set, vertex_set;
} fl_gpu_mesh;

/* Creates the two normal pipelines. */
bool fl_mesh_normals_create(fl_gpu *gpu, fl_mesh_normals *mn);
void fl_mesh_normals_destroy(fl_gpu *gpu, fl_mesh_normals *mn);
/* Uploads `mesh` and builds its adjacency and descriptor sets. */
bool fl_gpu_mesh_create(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_cpu_mesh *mesh, const char *name,
                        fl_gpu_mesh *out);
void fl_gpu_mesh_destroy(fl_gpu *gpu, fl_gpu_mesh *mesh);
/* Records the two normal dispatches (with barriers before and after). */
void fl_mesh_normals_record(const fl_mesh_normals *mn, VkCommandBuffer cmd, const fl_gpu_mesh *mesh);
/* Bytes the two normal passes must move, for the profiler. */
uint64_t fl_mesh_normals_bytes(const fl_gpu_mesh *mesh);
