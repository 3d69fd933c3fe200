/* sim/common/reduce: the multi-level deterministic float reduction (see reduce.h). */
#include "sim/common/reduce.h"

#include "core/log.h"

#include <string.h>

/* The push constants of common/reduce_sum.comp and common/reduce_dot.comp. */
typedef struct {
  uint32_t count;      /* elements of this level */
  uint32_t in_offset;  /* first float of the level in the partials (levels above 0) */
  uint32_t out_offset; /* first float written: partials offset, or the slot on the final level */
  uint32_t flags;      /* FINAL_LEVEL */
} fl_reduce_push;

_Static_assert(sizeof(fl_reduce_push) == 16, "fl_reduce_push must match the kernels' uvec4");

#define FINAL_LEVEL 1u /* the kernels' FL_REDUCE_FINAL: write results[out_offset] */

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
  bool ok = fl_pipeline_compute(gpu, "common/reduce_sum.comp", sizeof(fl_reduce_push), FL_REDUCE_WORKGROUP,
                                &out->sum) &&
            fl_pipeline_compute(gpu, "common/reduce_dot.comp", sizeof(fl_reduce_push), FL_REDUCE_WORKGROUP,
                                &out->dot);
  if (ok && out->sum.workgroup_size != out->dot.workgroup_size)
    ok = fl_error_set("reduce: the two kernels got workgroup sizes %u and %u", out->sum.workgroup_size,
                      out->dot.workgroup_size);
  uint64_t partial_floats = 0;
  if (ok) {
    out->block = out->sum.workgroup_size * FL_REDUCE_ITEMS;
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
  if (ok) {
    fl_binding b[] = {{&out->partials, 0, 0}, {&out->partials, 0, 0}, {&out->results, 0, 0}};
    ok = fl_pipeline_bind(gpu, &out->sum, b, 3, &out->level_set);
  }
  if (!ok) {
    fl_reduce_destroy(gpu, out);
    return fl_error_wrap("reduce: create");
  }
  return true;
}

void fl_reduce_destroy(fl_gpu *gpu, fl_reduce *r)
{
  if (gpu->device && r->level_set) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &r->level_set);
  fl_buffer_destroy(gpu, &r->partials);
  fl_buffer_destroy(gpu, &r->results);
  fl_pipeline_destroy(gpu, &r->sum);
  fl_pipeline_destroy(gpu, &r->dot);
  memset(r, 0, sizeof *r);
}

void fl_reduce_unbind(fl_gpu *gpu, fl_reduce_binding *binding)
{
  if (gpu->device && binding->set) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &binding->set);
  memset(binding, 0, sizeof *binding);
}

/* Checks a slot and replaces `out`'s set by one for `pipeline` with `inputs` + the partials and results. */
static bool bind_level0(fl_gpu *gpu, fl_reduce *r, const fl_pipeline *pipeline, const fl_buffer *const *inputs,
                        uint32_t input_count, uint32_t slot, fl_reduce_binding *out)
{
  if (slot >= r->result_slots) return fl_error_set("reduce: slot %u of %u", slot, r->result_slots);
  fl_binding b[4];
  for (uint32_t i = 0; i < input_count; i++) b[i] = (fl_binding){inputs[i], 0, 0};
  b[input_count] = (fl_binding){&r->partials, 0, 0};
  b[input_count + 1] = (fl_binding){&r->results, 0, 0};
  fl_reduce_unbind(gpu, out);
  if (!fl_pipeline_bind(gpu, pipeline, b, input_count + 2, &out->set)) return fl_error_wrap("reduce: bind");
  out->slot = slot;
  return true;
}

bool fl_reduce_bind_sum(fl_gpu *gpu, fl_reduce *r, const fl_buffer *in, uint32_t slot, fl_reduce_binding *out)
{
  if (!in || !in->buffer || in->size < 4) return fl_error_set("reduce: bind_sum needs a buffer of at least one float");
  const fl_buffer *inputs[] = {in};
  if (!bind_level0(gpu, r, &r->sum, inputs, 1, slot, out)) return false;
  out->capacity = in->size / 4 > UINT32_MAX ? UINT32_MAX : (uint32_t)(in->size / 4);
  out->dot = false;
  return true;
}

bool fl_reduce_bind_dot(fl_gpu *gpu, fl_reduce *r, const fl_buffer *a, const fl_buffer *b, uint32_t slot,
                        fl_reduce_binding *out)
{
  if (!a || !a->buffer || !b || !b->buffer || a->size < 16 || b->size < 16)
    return fl_error_set("reduce: bind_dot needs two buffers of at least one vec4");
  const fl_buffer *inputs[] = {a, b};
  if (!bind_level0(gpu, r, &r->dot, inputs, 2, slot, out)) return false;
  VkDeviceSize elements = (a->size < b->size ? a->size : b->size) / 16;
  out->capacity = elements > UINT32_MAX ? UINT32_MAX : (uint32_t)elements;
  out->dot = true;
  return true;
}

/* The count a record really reduces: clamped to max_count and the bound input. */
static uint32_t clamp_count(const fl_reduce *r, const fl_reduce_binding *binding, uint32_t count)
{
  if (count > r->max_count) count = r->max_count;
  return count > binding->capacity ? binding->capacity : count;
}

void fl_reduce_record(const fl_reduce *r, const fl_reduce_binding *binding, VkCommandBuffer cmd, uint32_t count)
{
  count = clamp_count(r, binding, count);
  if (count == 0) {
    vkCmdFillBuffer(cmd, r->results.buffer, (VkDeviceSize)binding->slot * 4, 4, 0);
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
        .flags = final ? FINAL_LEVEL : 0u,
    };
    const fl_pipeline *pipeline = k == 0 && binding->dot ? &r->dot : &r->sum;
    uint32_t blocks = (sizes[k] - 1) / r->block + 1;
    fl_cmd_dispatch(cmd, pipeline, k == 0 ? binding->set : r->level_set, &push, blocks * pipeline->workgroup_size);
    if (!final) fl_cmd_compute_barrier(cmd);
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
