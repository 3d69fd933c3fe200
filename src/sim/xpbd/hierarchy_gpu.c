/* sim/xpbd/hierarchy_gpu: records the coarse levels of hierarchical PBD
 * (hierarchy.h): one dispatch per colour and sweep, one per prolongation, then
 * the carry: one dispatch per level, a copy, and one apply sweep of the fine colours. */
#include "sim/xpbd/hierarchy_gpu.h"

#include <string.h>

#include "../xpbd/buffers.glsl" /* found through the shaders/common include path */

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
         fl_buffer_create_with(gpu, NULL, (VkDeviceSize)particle_count * 16, "cloth hierarchy start", &out->x0) &&
         fl_buffer_create_with(gpu, h->carry, (VkDeviceSize)(h->carry_count ? h->carry_count : 1) * sizeof *h->carry,
                               "cloth hierarchy carry", &out->carry);
}

void fl_hierarchy_gpu_destroy(fl_gpu *gpu, fl_hierarchy_gpu *g)
{
  fl_buffer *b[] = {&g->constraints, &g->lambda, &g->prolong, &g->x0, &g->carry};
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++) fl_buffer_destroy(gpu, b[i]);
  memset(g, 0, sizeof *g);
}

/* Bytes of the whole pass: per coarse constraint and sweep its record, lambda read and write,
 * two positions read and written; per prolongation its record, the target read and written,
 * four parents' x and x0; the snapshot copy (n vec4 read and written); with the carry the
 * restore (the same again), per carry pair the pair, the coarse lambda, the fine lambda read and written; the apply
 * sweep: per fine constraint its record, its lambda, two positions read and written. */
static uint64_t hierarchy_bytes(const fl_hierarchy *h, uint32_t n, uint32_t iterations, uint32_t fine_count)
{
  uint64_t carry = fine_count ? (uint64_t)n * 32 + (uint64_t)h->carry_count * (8 + 4 + 8) +
                                    (uint64_t)fine_count * (sizeof(fl_gpu_distance) + 4 + 2 * 32)
                              : 0; /* fine_count 0: no carry this substep */
  return (uint64_t)h->constraint_count * iterations * (sizeof(fl_gpu_distance) + 8 + 2 * 32) +
         (uint64_t)h->prolong_count * (sizeof(fl_gpu_prolong) + 32 + 4 * 32) + (uint64_t)n * 32 + carry;
}

/* One colour [first, first + count) of distance constraints in `mode` (xpbd/distance_gs). */
static void distance_colour(fl_rec *r, fl_xpbd_push push, uint32_t mode, uint32_t first, uint32_t count,
                            const fl_buffer *pos, const fl_buffer *constraints, const fl_buffer *lambda)
{
  if (!count) return;
  const fl_buffer *table[FL_XPBD_B_LAMBDA + 1] = {0};
  table[FL_XPBD_B_POS] = pos;
  table[FL_XPBD_B_CONSTRAINTS] = constraints;
  table[FL_XPBD_B_LAMBDA] = lambda;
  push.distance_mode = mode;
  push.first = first;
  push.count = count;
  fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/distance_gs", FL_PUSH(push), .threads = count, .table = table,
                            .table_count = FL_XPBD_B_LAMBDA + 1});
}

void fl_hierarchy_gpu_record(const fl_hierarchy_gpu *g, const fl_hierarchy *h, fl_rec *r, const fl_buffer *pos,
                             uint32_t particle_count, fl_xpbd_push push, uint32_t iterations,
                             const fl_hierarchy_fine *fine, fl_hierarchy_gpu_fine fine_gpu)
{
  if (!g->on) return;
  uint32_t fine_count = fl_hierarchy_carries(h, push.solve_h) ? fine->color_offsets[fine->color_count] : 0;
  fl_rec_begin(r, "cloth/hierarchy", hierarchy_bytes(h, particle_count, iterations, fine_count));
  vkCmdFillBuffer(r->cmd, g->lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  VkBufferCopy region = {0, 0, (VkDeviceSize)particle_count * 16};
  vkCmdCopyBuffer(r->cmd, pos->buffer, g->x0.buffer, 1, &region);
  fl_rec_barrier(r);
  for (uint32_t l = h->levels - 1; l >= 1; l--) {
    for (uint32_t it = 0; it < iterations; it++)
      for (uint32_t c = 0; c < FL_HIER_COLORS; c++) {
        uint32_t k = (l - 1) * FL_HIER_COLORS + c;
        distance_colour(r, push, FL_DISTANCE_STRETCHED, h->color_offsets[k], h->color_offsets[k + 1] - h->color_offsets[k],
                        pos, &g->constraints, &g->lambda);
      }
    push.first = h->prolong_first[l];
    push.count = h->prolong_first[l + 1] - push.first;
    if (push.count)
      fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/hier_prolong", FL_PUSH(push), .threads = push.count,
                                FL_BUFFERS(pos, &g->x0, &g->prolong)});
  }
  /* The carry (when compliant enough): fine lambdas from the coarse ones, level by level; x = x0; the apply sweep. */
  if (!fl_hierarchy_carries(h, push.solve_h)) {
    fl_rec_end(r);
    return;
  }
  for (uint32_t l = 1; l < h->levels; l++) {
    push.first = h->carry_first[l];
    push.count = h->carry_first[l + 1] - push.first;
    if (push.count)
      fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/hier_carry", FL_PUSH(push), .threads = push.count,
                                FL_BUFFERS(&g->carry, &g->lambda, fine_gpu.lambda)});
  }
  vkCmdCopyBuffer(r->cmd, g->x0.buffer, pos->buffer, 1, &region);
  fl_rec_barrier(r);
  for (uint32_t c = 0; c < fine->color_count; c++)
    distance_colour(r, push, FL_DISTANCE_APPLY, fine->color_offsets[c], fine->color_offsets[c + 1] - fine->color_offsets[c],
                    pos, fine_gpu.constraints, fine_gpu.lambda);
  fl_rec_end(r);
}
