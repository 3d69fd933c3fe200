/* sim/xpbd/hierarchy_gpu: records the coarse levels of hierarchical PBD
 * (hierarchy.h): one dispatch per colour and sweep, one per prolongation. */
#include "sim/xpbd/hierarchy_gpu.h"

#include <string.h>

bool fl_hierarchy_gpu_create(fl_gpu *gpu, const fl_hierarchy *h, uint32_t particle_count, fl_hierarchy_gpu *out)
{
  memset(out, 0, sizeof *out);
  if (h->levels < 2) return true;
  out->on = true;
  return fl_buffer_create_with(gpu, h->constraints, (VkDeviceSize)h->constraint_count * sizeof *h->constraints,
                               "cloth hierarchy constraints", &out->constraints) &&
         fl_buffer_create_with(gpu, NULL, (VkDeviceSize)h->constraint_count * 4, "cloth hierarchy lambda",
                               &out->lambda) &&
         fl_buffer_create_with(gpu, h->prolong, (VkDeviceSize)h->prolong_count * sizeof *h->prolong,
                               "cloth hierarchy prolongation", &out->prolong) &&
         fl_buffer_create_with(gpu, NULL, (VkDeviceSize)particle_count * 16, "cloth hierarchy start", &out->x0);
}

void fl_hierarchy_gpu_destroy(fl_gpu *gpu, fl_hierarchy_gpu *g)
{
  fl_buffer *b[] = {&g->constraints, &g->lambda, &g->prolong, &g->x0};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) fl_buffer_destroy(gpu, b[i]);
  memset(g, 0, sizeof *g);
}

/* Bytes of the whole pass: per coarse constraint and sweep its record, lambda read and write,
 * two positions read and written; per prolongation its record, the target read and written,
 * four parents' x and x0; the snapshot copy (n vec4 read and written). */
static uint64_t hierarchy_bytes(const fl_hierarchy *h, uint32_t n, uint32_t iterations)
{
  return (uint64_t)h->constraint_count * iterations * (sizeof(fl_gpu_distance) + 8 + 2 * 32) +
         (uint64_t)h->prolong_count * (sizeof(fl_gpu_prolong) + 32 + 4 * 32) + (uint64_t)n * 32;
}

void fl_hierarchy_gpu_record(const fl_hierarchy_gpu *g, const fl_hierarchy *h, fl_rec *r, const fl_buffer *pos,
                             uint32_t particle_count, fl_xpbd_push push, uint32_t iterations)
{
  if (!g->on) return;
  fl_rec_begin(r, "cloth/hierarchy", hierarchy_bytes(h, particle_count, iterations));
  vkCmdFillBuffer(r->cmd, g->lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  VkBufferCopy region = {0, 0, (VkDeviceSize)particle_count * 16};
  vkCmdCopyBuffer(r->cmd, pos->buffer, g->x0.buffer, 1, &region);
  fl_rec_barrier(r);
  for (uint32_t l = h->levels - 1; l >= 1; l--) {
    for (uint32_t it = 0; it < iterations; it++)
      for (uint32_t c = 0; c < FL_HIER_COLORS; c++) {
        uint32_t k = (l - 1) * FL_HIER_COLORS + c;
        push.first = h->color_offsets[k];
        push.count = h->color_offsets[k + 1] - push.first;
        if (push.count)
          fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/hier_distance", FL_PUSH(push), .threads = push.count,
                                    FL_BUFFERS(pos, &g->constraints, &g->lambda)});
      }
    push.first = h->prolong_first[l];
    push.count = h->prolong_first[l + 1] - push.first;
    if (push.count)
      fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/hier_prolong", FL_PUSH(push), .threads = push.count,
                                FL_BUFFERS(pos, &g->x0, &g->prolong)});
  }
  fl_rec_end(r);
}
