/* sim/common/gpu_mesh: GPU triangle meshes and their GPU-computed normals. */
#include "sim/common/gpu_mesh.h"

#include "core/log.h"
#include "flurry_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bool fl_mesh_normals_create(fl_gpu *gpu, fl_mesh_normals *mn)
{
  memset(mn, 0, sizeof *mn);
  return fl_pipeline_compute(gpu, "common/face_normals.comp", sizeof(fl_count_push), 0, &mn->face) &&
         fl_pipeline_compute(gpu, "common/vertex_normals.comp", sizeof(fl_count_push), 0, &mn->vertex);
}

void fl_mesh_normals_destroy(fl_gpu *gpu, fl_mesh_normals *mn)
{
  fl_pipeline_destroy(gpu, &mn->face);
  fl_pipeline_destroy(gpu, &mn->vertex);
}

static bool buffer_with(fl_gpu *gpu, const void *data, size_t size, const char *mesh, const char *what,
                        fl_buffer *out)
{
  char name[128];
  snprintf(name, sizeof name, "%s %s", mesh, what);
  return fl_buffer_create_with(gpu, data, size, name, out);
}

bool fl_gpu_mesh_create(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_cpu_mesh *mesh, const char *name,
                        fl_gpu_mesh *out)
{
  memset(out, 0, sizeof *out);
  uint32_t *first = NULL, *faces = NULL;
  if (!fl_mesh_vertex_faces(mesh, &first, &faces)) return false;
  size_t nv = mesh->vertex_count, nt = mesh->triangle_count;
  out->vertex_count = mesh->vertex_count;
  out->triangle_count = mesh->triangle_count;
  bool ok = buffer_with(gpu, mesh->positions, nv * 16, name, "positions", &out->positions) &&
            buffer_with(gpu, mesh->indices, nt * 12, name, "indices", &out->indices) &&
            buffer_with(gpu, NULL, nv * 16, name, "normals", &out->normals) &&
            buffer_with(gpu, NULL, nt * 16, name, "face normals", &out->face_normals) &&
            buffer_with(gpu, first, (nv + 1) * 4, name, "vertex faces first", &out->first) &&
            buffer_with(gpu, faces, nt * 12, name, "vertex faces", &out->faces);
  free(first);
  free(faces);
  ok = ok && fl_mesh_normals_bind(gpu, mn, &out->positions, &out->indices, &out->face_normals, &out->first,
                                  &out->faces, &out->normals, out->triangle_count, out->vertex_count, &out->binding);
  if (!ok) fl_gpu_mesh_destroy(gpu, out);
  return ok;
}

bool fl_mesh_normals_bind(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_buffer *positions,
                          const fl_buffer *indices, const fl_buffer *face_normals, const fl_buffer *first,
                          const fl_buffer *faces, const fl_buffer *normals, uint32_t triangle_count,
                          uint32_t vertex_count, fl_mesh_normals_binding *out)
{
  memset(out, 0, sizeof *out);
  fl_binding face_b[] = {{positions, 0, 0}, {indices, 0, 0}, {face_normals, 0, 0}};
  fl_binding vert_b[] = {{face_normals, 0, 0}, {first, 0, 0}, {faces, 0, 0}, {normals, 0, 0}};
  out->triangle_count = triangle_count;
  out->vertex_count = vertex_count;
  if (fl_pipeline_bind(gpu, &mn->face, face_b, 3, &out->face_set) &&
      fl_pipeline_bind(gpu, &mn->vertex, vert_b, 4, &out->vertex_set))
    return true;
  fl_mesh_normals_unbind(gpu, out);
  return false;
}

void fl_mesh_normals_unbind(fl_gpu *gpu, fl_mesh_normals_binding *b)
{
  if (b->face_set) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &b->face_set);
  if (b->vertex_set) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &b->vertex_set);
  memset(b, 0, sizeof *b);
}

void fl_gpu_mesh_destroy(fl_gpu *gpu, fl_gpu_mesh *mesh)
{
  fl_buffer *buffers[] = {&mesh->positions, &mesh->indices, &mesh->normals,
                          &mesh->face_normals, &mesh->first, &mesh->faces};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  fl_mesh_normals_unbind(gpu, &mesh->binding);
  memset(mesh, 0, sizeof *mesh);
}

void fl_mesh_normals_record_binding(const fl_mesh_normals *mn, VkCommandBuffer cmd, const fl_mesh_normals_binding *b)
{
  fl_count_push face_push = {.counts = {b->triangle_count, 0, 0, 0}};
  fl_count_push vert_push = {.counts = {b->vertex_count, 0, 0, 0}};
  fl_cmd_compute_barrier(cmd);
  fl_cmd_dispatch(cmd, &mn->face, b->face_set, &face_push, b->triangle_count);
  fl_cmd_compute_barrier(cmd);
  fl_cmd_dispatch(cmd, &mn->vertex, b->vertex_set, &vert_push, b->vertex_count);
  fl_cmd_compute_barrier(cmd);
}

void fl_mesh_normals_record(const fl_mesh_normals *mn, VkCommandBuffer cmd, const fl_gpu_mesh *mesh)
{
  fl_mesh_normals_record_binding(mn, cmd, &mesh->binding);
}

uint64_t fl_mesh_normals_bytes(const fl_gpu_mesh *m)
{
  uint64_t face = (uint64_t)m->triangle_count * (12 + 3 * 16 + 16);
  uint64_t vert = (uint64_t)m->vertex_count * (8 + 16) + (uint64_t)m->triangle_count * 3 * (4 + 16);
  return face + vert;
}
