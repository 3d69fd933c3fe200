/* sim/common/gpu_mesh: GPU triangle meshes and their GPU-computed normals. */
#include "sim/common/gpu_mesh.h"

#include "core/log.h"
#include "flurry_shared.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bool buffer_with(fl_gpu *gpu, const void *data, size_t size, const char *mesh, const char *what,
                        fl_buffer *out)
{
  char name[128];
  snprintf(name, sizeof name, "%s %s", mesh, what);
  return fl_buffer_create_with(gpu, data, size, name, out);
}

bool fl_gpu_mesh_create(fl_gpu *gpu, const fl_cpu_mesh *mesh, const char *name, fl_gpu_mesh *out)
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
  if (!ok) fl_gpu_mesh_destroy(gpu, out);
  return ok;
}

void fl_gpu_mesh_destroy(fl_gpu *gpu, fl_gpu_mesh *mesh)
{
  fl_buffer *buffers[] = {&mesh->positions, &mesh->indices, &mesh->normals,
                          &mesh->face_normals, &mesh->first, &mesh->faces};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  memset(mesh, 0, sizeof *mesh);
}

void fl_mesh_normals_record_binding(fl_rec *r, const fl_mesh_normals_binding *b)
{
  fl_count_push face_push = {.count = b->triangle_count};
  fl_count_push vert_push = {.count = b->vertex_count};
  fl_rec_barrier(r);
  fl_rec_pass(r, &(fl_pass){.kernel = "common/face_normals", FL_PUSH(face_push), .threads = b->triangle_count,
                            FL_BUFFERS(b->positions, b->indices, b->face_normals)});
  fl_rec_pass(r, &(fl_pass){.kernel = "common/vertex_normals", FL_PUSH(vert_push), .threads = b->vertex_count,
                            FL_BUFFERS(b->face_normals, b->first, b->faces, b->normals)});
}

void fl_mesh_normals_record(fl_rec *r, const fl_gpu_mesh *m)
{
  fl_mesh_normals_record_binding(r, &(fl_mesh_normals_binding){&m->positions, &m->indices, &m->face_normals,
                                                               &m->first, &m->faces, &m->normals, m->triangle_count,
                                                               m->vertex_count});
}

uint64_t fl_mesh_normals_bytes(const fl_gpu_mesh *m)
{
  uint64_t face = (uint64_t)m->triangle_count * (12 + 3 * 16 + 16);
  uint64_t vert = (uint64_t)m->vertex_count * (8 + 16) + (uint64_t)m->triangle_count * 3 * (4 + 16);
  return face + vert;
}
