/* sim/xpbd/xpbd_tear: cloth tearing wired into the XPBD system (tear.h, tear_gpu.h):
 * the slot's report read after its fence (with the triangle contacts' edges and
 * owners rebuilt from the new triangles, tri_contact_build.h), and the upload of a
 * changed topology at the start of the next frame recorded. */
#include "sim/xpbd/xpbd.h"

#include "core/log.h"
#include "sim/common/mesh_cpu.h"

#include <stdlib.h>

uint32_t fl_xpbd_collect_tears(fl_xpbd_system *s, uint32_t slot)
{
  uint32_t made = s->tear.on ? fl_tear_collect(&s->tear, &s->build, slot) : 0;
  if (made && s->tri.any) { /* the contact edges and owners of the new triangles (uploaded with them) */
    double t0 = fl_tear_now_ms();
    fl_tri_contacts_rebuild(&s->build, &s->tri);
    double ms = fl_tear_now_ms() - t0;
    s->tear.cpu_ms_total += ms;
    s->tear.cpu_ms_batch += ms;
    s->tear.contact_ms_total += ms;
    if (ms > s->tear.contact_ms_max) s->tear.contact_ms_max = ms;
  }
  return made;
}

/* A family's records and CSR (the counts may have shrunk: the buffers keep the load's size). */
static uint64_t upload_family(VkCommandBuffer cmd, const fl_xpbd_family *g, const fl_constraint_family *f,
                              const void *records, size_t record_size, uint32_t arity, uint32_t particles)
{
  uint64_t bytes = (uint64_t)f->count * record_size, first = ((uint64_t)particles + 1) * 4,
           items = (uint64_t)f->count * arity * 4;
  if (!f->count) return 0;
  fl_tear_update_buffer(cmd, &g->constraints, records, bytes);
  fl_tear_update_buffer(cmd, &g->first, f->particle_first, first);
  fl_tear_update_buffer(cmd, &g->items, f->particle_items, items);
  fl_tear_update_buffer(cmd, &g->colours, f->color_offsets, (f->color_count + 1) * 4ull); /* the recolouring's */
  return bytes + first + items + (f->color_count + 1) * 4ull;
}

void fl_xpbd_record_topology(fl_xpbd_system *s, fl_rec *r)
{
  fl_tear *t = &s->tear;
  const fl_xpbd_build *b = &s->build;
  uint32_t n = b->particle_count, tris = b->triangle_count;
  double t0 = fl_tear_now_ms();
  fl_cpu_mesh mesh = {.positions = b->positions, .indices = b->triangles, .vertex_count = n, .triangle_count = tris};
  uint32_t *tri_first = NULL, *tri_items = NULL;
  if (!fl_mesh_vertex_faces(&mesh, &tri_first, &tri_items)) { /* out of host memory */
    fl_log(FL_LOG_ERROR, "cloth tearing: %s", fl_error_message());
    exit(1);
  }
  double ms = fl_tear_now_ms() - t0;
  t->cpu_ms_total += ms;
  t->cpu_ms_batch += ms;
  if (t->cpu_ms_batch > t->cpu_ms_max) t->cpu_ms_max = t->cpu_ms_batch;
  t->cpu_ms_batch = 0;
  /* The bytes written (each once) and read by the split pass. */
  uint64_t bytes = (uint64_t)tris * 12 * 2 + ((uint64_t)n + 1) * 4 + (uint64_t)b->object_count * sizeof(fl_gpu_xpbd_object) +
                   (uint64_t)b->body_count * sizeof(fl_gpu_body);
  bytes += (uint64_t)b->distance.count * sizeof(fl_gpu_distance) + ((uint64_t)n + 1) * 4 + b->distance.count * 8ull;
  bytes += (uint64_t)b->bend.count * sizeof(fl_gpu_bend) + ((uint64_t)n + 1) * 4 + b->bend.count * 16ull;
  bytes += b->area.count ? (uint64_t)b->area.count * sizeof(fl_gpu_area) + ((uint64_t)n + 1) * 4 + b->area.count * 12ull : 0;
  uint64_t contact_bytes = s->tri.any ? (uint64_t)s->tri.edge_count * 8 + (uint64_t)tris * 4 : 0; /* edges, owners */
  bytes += contact_bytes;
  fl_rec_begin(r, "xpbd/tear_upload", bytes + (uint64_t)t->queued_count * 16 * 10);
  fl_rec_barrier(r); /* after every earlier read of these buffers (the frames before, on this queue) */
  fl_tear_update_buffer(r->cmd, &s->triangles, b->triangles, (uint64_t)tris * 12);
  fl_tear_update_buffer(r->cmd, &s->tri_first, tri_first, ((uint64_t)n + 1) * 4);
  fl_tear_update_buffer(r->cmd, &s->tri_items, tri_items, (uint64_t)tris * 12);
  fl_tear_update_buffer(r->cmd, &s->objects, b->objects, (uint64_t)b->object_count * sizeof(fl_gpu_xpbd_object));
  if (b->body_count) /* a torn balloon's pressure is off */
    fl_tear_update_buffer(r->cmd, &s->bodies, b->bodies, (uint64_t)b->body_count * sizeof(fl_gpu_body));
  upload_family(r->cmd, &s->distance, &b->distance, b->distances, sizeof(fl_gpu_distance), 2, n);
  upload_family(r->cmd, &s->bend, &b->bend, b->bends, sizeof(fl_gpu_bend), 4, n);
  upload_family(r->cmd, &s->area, &b->area, b->areas, sizeof(fl_gpu_area), 3, n);
  if (s->tri.any) { /* the edge list may have grown: the push constant's edge count is read at each substep */
    fl_tear_update_buffer(r->cmd, &s->edges, s->tri.edges, (uint64_t)s->tri.edge_count * 8);
    fl_tear_update_buffer(r->cmd, &s->tri_owned, s->tri.owned, (uint64_t)tris * 4);
    if (contact_bytes > t->contact_bytes_max) t->contact_bytes_max = contact_bytes;
  }
  fl_tear_record_split(t, r, &s->pos, &s->prev, &s->vel, &s->older, &s->vel_old); /* its barriers: before and after */
  fl_rec_barrier(r);
  fl_rec_end(r);
  if (bytes > t->upload_bytes_max) t->upload_bytes_max = bytes;
  t->upload = false;
  free(tri_first);
  free(tri_items);
}
