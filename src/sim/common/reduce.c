/* sim/common/reduce: the multi-level deterministic float reduction (see reduce.h). */
#include "sim/common/reduce.h"

#include "core/log.h"

#include <string.h>

#define SUM_KERNEL "common/reduce_sum"
#define DOT_KERNEL "common/reduce_dot"

/* The element counts of each level of a reduction of `count` (>= 1) elements; returns the level count. */
static uint32_t level_sizes(uint32_t count, uint32_t block, uint32_t sizes[FL_REDUCE_MAX_LEVELS + 1])
{
  uint32_t levels = 1;
  sizes[0] = count;
  while (sizes[levels - 1] > block && levels <= FL_REDUCE_MAX_LEVELS) {
    sizes[levels] = (sizes[levels - 1] - 1) / block + 1;
    levels++;
  }
  return levels;
}

bool fl_reduce_create(fl_gpu *gpu, uint32_t max_count, uint32_t result_slots, fl_reduce *out)
{
  memset(out, 0, sizeof *out);
  if (max_count == 0) return fl_error_set("reduce: max_count must be at least 1");
  if (result_slots == 0 || result_slots > (1u << 24))
    return fl_error_set("reduce: %u result slots (1 to 2^24 allowed)", result_slots);
  out->max_count = max_count;
  out->result_slots = result_slots;
  const fl_pipeline *sum = fl_kernel(gpu, SUM_KERNEL, sizeof(fl_reduce_push), FL_REDUCE_WORKGROUP);
  const fl_pipeline *dot = fl_kernel(gpu, DOT_KERNEL, sizeof(fl_reduce_push), FL_REDUCE_WORKGROUP);
  bool ok = sum && dot;
  if (ok && sum->workgroup_size != dot->workgroup_size)
    ok = fl_error_set("reduce: the two kernels got workgroup sizes %u and %u", sum->workgroup_size,
                      dot->workgroup_size);
  uint64_t partial_floats = 0;
  if (ok) {
    out->workgroup = sum->workgroup_size;
    out->block = out->workgroup * FL_REDUCE_ITEMS;
    uint32_t sizes[FL_REDUCE_MAX_LEVELS + 1];
    out->level_count = level_sizes(max_count, out->block, sizes);
    if (out->level_count > FL_REDUCE_MAX_LEVELS)
      ok = fl_error_set("reduce: %u elements need more than %d levels of %u-element blocks", max_count,
                        FL_REDUCE_MAX_LEVELS, out->block);
    for (uint32_t k = 1; ok && k < out->level_count; k++) {
      out->level_offset[k] = out->slot_stride;
      out->slot_stride += sizes[k];
    }
    partial_floats = (uint64_t)out->slot_stride * result_slots;
  }
  /* At least 16 bytes each: a single-level reduce never touches the partials, but binds them. */
  ok = ok &&
       fl_buffer_create(gpu, (partial_floats > 4 ? partial_floats : 4) * 4, FL_MEMORY_DEVICE, "reduce partials",
                        &out->partials) &&
       fl_buffer_create(gpu, (VkDeviceSize)(result_slots > 4 ? result_slots : 4) * 4, FL_MEMORY_DEVICE,
                        "reduce results", &out->results) &&
       fl_buffer_fill(gpu, &out->results, 0);
  if (!ok) {
    fl_reduce_destroy(gpu, out);
    return fl_error_wrap("reduce: create");
  }
  return true;
}

void fl_reduce_destroy(fl_gpu *gpu, fl_reduce *r)
{
  fl_buffer_destroy(gpu, &r->partials);
  fl_buffer_destroy(gpu, &r->results);
  memset(r, 0, sizeof *r);
}

bool fl_reduce_bind_sum(const fl_reduce *r, const fl_buffer *in, uint32_t slot, fl_reduce_binding *out)
{
  if (!in || !in->buffer || in->size < 4) return fl_error_set("reduce: bind_sum needs a buffer of at least one float");
  if (slot >= r->result_slots) return fl_error_set("reduce: slot %u of %u", slot, r->result_slots);
  *out = (fl_reduce_binding){.a = in, .slot = slot,
                             .capacity = in->size / 4 > UINT32_MAX ? UINT32_MAX : (uint32_t)(in->size / 4)};
  return true;
}

bool fl_reduce_bind_dot(const fl_reduce *r, const fl_buffer *a, const fl_buffer *b, uint32_t slot,
                        fl_reduce_binding *out)
{
  if (!a || !a->buffer || !b || !b->buffer || a->size < 16 || b->size < 16)
    return fl_error_set("reduce: bind_dot needs two buffers of at least one vec4");
  if (slot >= r->result_slots) return fl_error_set("reduce: slot %u of %u", slot, r->result_slots);
  VkDeviceSize elements = (a->size < b->size ? a->size : b->size) / 16;
  *out = (fl_reduce_binding){.a = a, .b = b, .slot = slot, .dot = true,
                             .capacity = elements > UINT32_MAX ? UINT32_MAX : (uint32_t)elements};
  return true;
}

/* The count a record really reduces: clamped to max_count and the bound input. */
static uint32_t clamp_count(const fl_reduce *r, const fl_reduce_binding *binding, uint32_t count)
{
  if (count > r->max_count) count = r->max_count;
  return count > binding->capacity ? binding->capacity : count;
}

void fl_reduce_record(const fl_reduce *r, const fl_reduce_binding *binding, fl_rec *rec, uint32_t count)
{
  count = clamp_count(r, binding, count);
  if (count == 0) {
    vkCmdFillBuffer(rec->cmd, r->results.buffer, (VkDeviceSize)binding->slot * 4, 4, 0);
    return;
  }
  uint32_t sizes[FL_REDUCE_MAX_LEVELS + 1];
  uint32_t levels = level_sizes(count, r->block, sizes);
  uint32_t region = binding->slot * r->slot_stride;
  for (uint32_t k = 0; k < levels; k++) {
    bool final = k + 1 == levels;
    fl_reduce_push push = {
        .count = sizes[k],
        .in_offset = k == 0 ? 0 : region + r->level_offset[k],
        .out_offset = final ? binding->slot : region + r->level_offset[k + 1],
        .flags = final ? FL_REDUCE_FINAL : 0u,
    };
    uint32_t blocks = (sizes[k] - 1) / r->block + 1;
    /* level 0 reads the input(s), the levels above it the slot's partials */
    bool dot = k == 0 && binding->dot;
    const fl_buffer *sum_in[] = {k == 0 ? binding->a : &r->partials, &r->partials, &r->results};
    const fl_buffer *dot_in[] = {binding->a, binding->b, &r->partials, &r->results};
    fl_rec_pass(rec, &(fl_pass){.kernel = dot ? DOT_KERNEL : SUM_KERNEL, .workgroup = FL_REDUCE_WORKGROUP,
                                FL_PUSH(push), .threads = blocks * r->workgroup, .no_barrier = final,
                                .buffers = dot ? dot_in : sum_in, .buffer_count = dot ? 4 : 3});
  }
}

const fl_buffer *fl_reduce_results(const fl_reduce *r) { return &r->results; }

uint64_t fl_reduce_bytes(const fl_reduce *r, const fl_reduce_binding *binding, uint32_t count)
{
  count = clamp_count(r, binding, count);
  if (count == 0) return 4;
  uint32_t sizes[FL_REDUCE_MAX_LEVELS + 1];
  uint32_t levels = level_sizes(count, r->block, sizes);
  uint64_t bytes = (uint64_t)count * (binding->dot ? 32 : 4) + 4; /* level 0's input; the result */
  for (uint32_t k = 1; k < levels; k++) bytes += (uint64_t)sizes[k] * 8; /* partials written, then read */
  return bytes;
}
