/* sim/common/scan: the multi-level exclusive scan (see scan.h). */
#include "sim/common/scan.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

_Static_assert(sizeof(fl_scan_push) == 16, "fl_scan_push must match its GLSL block");

/* The element counts of each level of a scan of `count` elements; returns the level count. */
static uint32_t level_sizes(uint32_t count, uint32_t block, uint32_t sizes[FL_SCAN_MAX_LEVELS + 1])
{
  uint32_t levels = 1;
  sizes[0] = count;
  while (sizes[levels - 1] > block && levels <= FL_SCAN_MAX_LEVELS) {
    sizes[levels] = (sizes[levels - 1] - 1) / block + 1;
    levels++;
  }
  return levels;
}

bool fl_scan_create(fl_gpu *gpu, uint32_t max_count, fl_scan *out)
{
  memset(out, 0, sizeof *out);
  if (max_count == 0) return fl_error_set("scan: max_count must be at least 1");
  uint64_t bytes = (uint64_t)max_count * 4;
  if (bytes > gpu->props.limits.maxStorageBufferRange)
    return fl_error_set("scan: %u elements (%llu bytes) exceed maxStorageBufferRange of %u bytes", max_count,
                        (unsigned long long)bytes, gpu->props.limits.maxStorageBufferRange);
  out->max_count = max_count;
  bool ok = fl_pipeline_compute(gpu, "common/scan_reduce.comp", sizeof(fl_scan_push), FL_SCAN_WORKGROUP,
                                &out->reduce) &&
            fl_pipeline_compute(gpu, "common/scan_block.comp", sizeof(fl_scan_push), FL_SCAN_WORKGROUP, &out->scan);
  if (ok && out->reduce.workgroup_size != out->scan.workgroup_size)
    ok = fl_error_set("scan: the two kernels got workgroup sizes %u and %u", out->reduce.workgroup_size,
                      out->scan.workgroup_size);
  if (ok) {
    out->block = out->scan.workgroup_size * FL_SCAN_ITEMS;
    uint32_t sizes[FL_SCAN_MAX_LEVELS + 1];
    out->level_count = level_sizes(max_count, out->block, sizes);
    if (out->level_count > FL_SCAN_MAX_LEVELS)
      ok = fl_error_set("scan: %u elements need more than %d levels of %u-element blocks", max_count,
                        FL_SCAN_MAX_LEVELS, out->block);
    for (uint32_t k = 0; ok && k + 1 < out->level_count; k++) {
      char name[48];
      snprintf(name, sizeof name, "scan block sums %u", k + 1);
      ok = fl_buffer_create(gpu, (VkDeviceSize)sizes[k + 1] * 4, FL_MEMORY_DEVICE, name, &out->sums[k]);
    }
  }
  ok = ok && fl_buffer_create(gpu, 16, FL_MEMORY_DEVICE, "scan total", &out->total);
  if (!ok) fl_scan_destroy(gpu, out);
  return ok;
}

/* Frees the descriptor sets of the current binding. */
static void free_sets(fl_gpu *gpu, fl_scan *scan)
{
  for (uint32_t k = 0; k < FL_SCAN_MAX_LEVELS; k++) {
    if (scan->reduce_set[k]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &scan->reduce_set[k]);
    if (scan->scan_set[k]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &scan->scan_set[k]);
    scan->reduce_set[k] = scan->scan_set[k] = VK_NULL_HANDLE;
  }
}

void fl_scan_destroy(fl_gpu *gpu, fl_scan *scan)
{
  if (gpu->device) free_sets(gpu, scan);
  for (uint32_t k = 0; k < FL_SCAN_MAX_LEVELS; k++) fl_buffer_destroy(gpu, &scan->sums[k]);
  fl_buffer_destroy(gpu, &scan->total);
  fl_pipeline_destroy(gpu, &scan->reduce);
  fl_pipeline_destroy(gpu, &scan->scan);
  memset(scan, 0, sizeof *scan);
}

bool fl_scan_bind(fl_gpu *gpu, fl_scan *scan, const fl_buffer *in, const fl_buffer *out)
{
  VkDeviceSize need = (VkDeviceSize)scan->max_count * 4;
  if (!in || !in->buffer || !out || !out->buffer) return fl_error_set("scan: bind needs an input and an output buffer");
  if (in->size < need || out->size < need)
    return fl_error_set("scan: buffers of %llu and %llu bytes cannot hold max_count = %u uints (%llu bytes)",
                        (unsigned long long)in->size, (unsigned long long)out->size, scan->max_count,
                        (unsigned long long)need);
  free_sets(gpu, scan);
  bool ok = true;
  for (uint32_t k = 0; ok && k < scan->level_count; k++) {
    const fl_buffer *data_in = k == 0 ? in : &scan->sums[k - 1];
    const fl_buffer *data_out = k == 0 ? out : &scan->sums[k - 1];
    bool has_sums = k + 1 < scan->level_count;
    /* The top level has no block sums: its offsets binding is never read. */
    const fl_buffer *offsets = has_sums ? &scan->sums[k] : &scan->total;
    fl_binding scan_b[] = {{data_in, 0, 0}, {data_out, 0, 0}, {offsets, 0, 0}, {&scan->total, 0, 0}};
    ok = fl_pipeline_bind(gpu, &scan->scan, scan_b, 4, &scan->scan_set[k]);
    if (ok && has_sums) {
      fl_binding reduce_b[] = {{data_in, 0, 0}, {&scan->sums[k], 0, 0}};
      ok = fl_pipeline_bind(gpu, &scan->reduce, reduce_b, 2, &scan->reduce_set[k]);
    }
  }
  if (!ok) {
    free_sets(gpu, scan);
    return fl_error_wrap("scan: bind");
  }
  return true;
}

void fl_scan_record(const fl_scan *scan, VkCommandBuffer cmd, uint32_t count)
{
  if (count > scan->max_count) count = scan->max_count;
  if (count == 0) {
    vkCmdFillBuffer(cmd, scan->total.buffer, 0, 4, 0);
    return;
  }
  uint32_t sizes[FL_SCAN_MAX_LEVELS + 1];
  uint32_t levels = level_sizes(count, scan->block, sizes), top = levels - 1;
  /* Down: the block sums of every level but the top. */
  for (uint32_t k = 0; k < top; k++) {
    fl_scan_push push = {.counts = {sizes[k], 0, 0, 0}};
    fl_cmd_dispatch(cmd, &scan->reduce, scan->reduce_set[k], &push, (sizes[k + 1]) * scan->reduce.workgroup_size);
    fl_cmd_compute_barrier(cmd);
  }
  /* Up: the top level alone, then each level from its scanned block sums. */
  for (uint32_t k = top + 1; k-- > 0;) {
    uint32_t flags = (k < top ? FL_SCAN_ADD_OFFSETS : 0u) | (k == 0 ? FL_SCAN_WRITE_TOTAL : 0u);
    fl_scan_push push = {.counts = {sizes[k], flags, 0, 0}};
    uint32_t blocks = (sizes[k] - 1) / scan->block + 1;
    fl_cmd_dispatch(cmd, &scan->scan, scan->scan_set[k], &push, blocks * scan->scan.workgroup_size);
    if (k > 0) fl_cmd_compute_barrier(cmd);
  }
}

const fl_buffer *fl_scan_total(const fl_scan *scan) { return &scan->total; }

uint64_t fl_scan_bytes(const fl_scan *scan, uint32_t count)
{
  if (count > scan->max_count) count = scan->max_count;
  if (count == 0) return 4;
  uint32_t sizes[FL_SCAN_MAX_LEVELS + 1];
  uint32_t levels = level_sizes(count, scan->block, sizes);
  uint64_t bytes = 4; /* the total */
  for (uint32_t k = 0; k < levels; k++) {
    bytes += (uint64_t)sizes[k] * 8;                   /* scan_block: read and write the level */
    if (k + 1 < levels) bytes += (uint64_t)sizes[k] * 4 + (uint64_t)sizes[k + 1] * 8; /* reduce; offsets read */
  }
  return bytes;
}
