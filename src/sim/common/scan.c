/* sim/common/scan: the multi-level exclusive scan (see scan.h). */
#include "sim/common/scan.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

#define REDUCE_KERNEL "common/scan_reduce"
#define SCAN_KERNEL "common/scan_block"

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
  const fl_pipeline *reduce = fl_kernel(gpu, REDUCE_KERNEL, sizeof(fl_scan_push), FL_SCAN_WORKGROUP);
  const fl_pipeline *scan = fl_kernel(gpu, SCAN_KERNEL, sizeof(fl_scan_push), FL_SCAN_WORKGROUP);
  bool ok = reduce && scan;
  if (ok && reduce->workgroup_size != scan->workgroup_size)
    ok = fl_error_set("scan: the two kernels got workgroup sizes %u and %u", reduce->workgroup_size,
                      scan->workgroup_size);
  if (ok) {
    out->workgroup = scan->workgroup_size;
    out->block = out->workgroup * FL_SCAN_ITEMS;
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

void fl_scan_destroy(fl_gpu *gpu, fl_scan *scan)
{
  for (uint32_t k = 0; k < FL_SCAN_MAX_LEVELS; k++) fl_buffer_destroy(gpu, &scan->sums[k]);
  fl_buffer_destroy(gpu, &scan->total);
  memset(scan, 0, sizeof *scan);
}

void fl_scan_record(const fl_scan *scan, fl_rec *r, const fl_buffer *in, const fl_buffer *out, uint32_t count)
{
  VkDeviceSize need = (VkDeviceSize)scan->max_count * 4;
  if (!in || !out || in->size < need || out->size < need) {
    fl_error_set("scan: input and output must each hold max_count = %u uints (%llu bytes)", scan->max_count,
                 (unsigned long long)need);
    r->failed = true;
    return;
  }
  if (count > scan->max_count) count = scan->max_count;
  if (count == 0) {
    vkCmdFillBuffer(r->cmd, scan->total.buffer, 0, 4, 0);
    return;
  }
  uint32_t sizes[FL_SCAN_MAX_LEVELS + 1];
  uint32_t levels = level_sizes(count, scan->block, sizes), top = levels - 1;
  /* Down: the block sums of every level but the top. */
  for (uint32_t k = 0; k < top; k++) {
    fl_scan_push push = {.count = sizes[k]};
    fl_rec_pass(r, &(fl_pass){.kernel = REDUCE_KERNEL, .workgroup = FL_SCAN_WORKGROUP, FL_PUSH(push),
                              .threads = sizes[k + 1] * scan->workgroup,
                              FL_BUFFERS(k == 0 ? in : &scan->sums[k - 1], &scan->sums[k])});
  }
  /* Up: the top level alone, then each level from its scanned block sums. */
  for (uint32_t k = top + 1; k-- > 0;) {
    uint32_t flags = (k < top ? FL_SCAN_ADD_OFFSETS : 0u) | (k == 0 ? FL_SCAN_WRITE_TOTAL : 0u);
    fl_scan_push push = {.count = sizes[k], .flags = flags};
    uint32_t blocks = (sizes[k] - 1) / scan->block + 1;
    /* The top level has no block sums: its offsets binding is never read. */
    const fl_buffer *offsets = k < top ? &scan->sums[k] : &scan->total;
    fl_rec_pass(r, &(fl_pass){.kernel = SCAN_KERNEL, .workgroup = FL_SCAN_WORKGROUP, FL_PUSH(push),
                              .threads = blocks * scan->workgroup, .no_barrier = k == 0,
                              FL_BUFFERS(k == 0 ? in : &scan->sums[k - 1], k == 0 ? out : &scan->sums[k - 1],
                                         offsets, &scan->total)});
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
