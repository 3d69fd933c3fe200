/* sim/common/radix_sort: the stable LSD radix sort (see radix_sort.h). */
#include "sim/common/radix_sort.h"

#include "core/log.h"

#include <stdio.h>
#include <string.h>

_Static_assert(FL_SORT_DIGITS == 1 << FL_SORT_RADIX_BITS, "FL_SORT_DIGITS is 2^FL_SORT_RADIX_BITS");
_Static_assert(FL_SORT_DIGITS == 16, "sort_scatter.comp packs exactly 16 digit counters");
_Static_assert(FL_SORT_WORKGROUP * FL_SORT_ITEMS <= 65535, "a tile's counts must fit 16 bits");

#define HISTOGRAM_KERNEL "common/sort_histogram"
#define SCATTER_KERNEL "common/sort_scatter"
#define SMALL_KERNEL "common/sort_small"

_Static_assert(FL_SORT_SMALL_MAX <= 65535, "sort_small.comp's digit totals are 16-bit counters");
_Static_assert(FL_SORT_SMALL_WORKGROUP <= FL_SORT_WORKGROUP, "sort_rank.glsl's shared arrays hold FL_SORT_WORKGROUP");

bool fl_radix_sort_create(fl_gpu *gpu, uint32_t max_count, fl_radix_sort *out)
{
  memset(out, 0, sizeof *out);
  if (max_count == 0) return fl_error_set("radix sort: max_count must be at least 1");
  uint64_t bytes = (uint64_t)max_count * 4;
  if (bytes > gpu->props.limits.maxStorageBufferRange)
    return fl_error_set("radix sort: %u pairs need %llu-byte key buffers, over maxStorageBufferRange of %u bytes",
                        max_count, (unsigned long long)bytes, gpu->props.limits.maxStorageBufferRange);
  out->max_count = max_count;
  out->small_max = FL_SORT_SMALL_MAX;
  const fl_pipeline *histogram = fl_kernel(gpu, HISTOGRAM_KERNEL, sizeof(fl_sort_push), FL_SORT_WORKGROUP);
  const fl_pipeline *scatter = fl_kernel(gpu, SCATTER_KERNEL, sizeof(fl_sort_push), FL_SORT_WORKGROUP);
  const fl_pipeline *small = fl_kernel(gpu, SMALL_KERNEL, sizeof(fl_sort_push), FL_SORT_SMALL_WORKGROUP);
  bool ok = histogram && scatter && small;
  if (ok && histogram->workgroup_size != scatter->workgroup_size)
    ok = fl_error_set("radix sort: the two kernels got workgroup sizes %u and %u", histogram->workgroup_size,
                      scatter->workgroup_size);
  if (ok) {
    out->workgroup = scatter->workgroup_size;
    out->small_workgroup = small->workgroup_size;
    out->tile = out->workgroup * FL_SORT_ITEMS;
    out->max_tiles = (max_count - 1) / out->tile + 1;
  }
  for (int i = 0; ok && i < 2; i++) {
    char name[48];
    snprintf(name, sizeof name, "radix sort keys %d", i);
    ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, name, &out->keys[i]);
    snprintf(name, sizeof name, "radix sort values %d", i);
    ok = ok && fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, name, &out->values[i]);
  }
  uint32_t hist_count = ok ? out->max_tiles * FL_SORT_DIGITS : 0;
  ok = ok && fl_buffer_create(gpu, (VkDeviceSize)hist_count * 4, FL_MEMORY_DEVICE, "radix sort histogram", &out->hist) &&
       fl_scan_create(gpu, hist_count, &out->scan);
  if (!ok) {
    fl_error_wrap("radix sort of %u pairs", max_count);
    fl_radix_sort_destroy(gpu, out);
  }
  return ok;
}

void fl_radix_sort_destroy(fl_gpu *gpu, fl_radix_sort *sort)
{
  fl_scan_destroy(gpu, &sort->scan);
  for (int i = 0; i < 2; i++) {
    fl_buffer_destroy(gpu, &sort->keys[i]);
    fl_buffer_destroy(gpu, &sort->values[i]);
  }
  fl_buffer_destroy(gpu, &sort->hist);
  memset(sort, 0, sizeof *sort);
}

/* Checks the caller's input buffers (see fl_radix_sort_record). */
static bool check_input(const fl_radix_sort *sort, const fl_buffer *keys_in, const fl_buffer *values_in)
{
  VkDeviceSize need = (VkDeviceSize)sort->max_count * 4;
  if (!keys_in->buffer || !values_in->buffer) return fl_error_set("radix sort: an input buffer is missing");
  if (keys_in->buffer == sort->keys[1].buffer || values_in->buffer == sort->values[1].buffer)
    return fl_error_set("radix sort: the input cannot be keys[1] or values[1], which the first pass writes");
  if (keys_in->size < need || values_in->size < need)
    return fl_error_set("radix sort: inputs of %llu and %llu bytes cannot hold max_count = %u uints (%llu bytes)",
                        (unsigned long long)keys_in->size, (unsigned long long)values_in->size, sort->max_count,
                        (unsigned long long)need);
  return true;
}

/* Whether a sort of count pairs is one sort_small dispatch (its 16-bit totals: at most FL_SORT_SMALL_MAX). */
static bool takes_small(const fl_radix_sort *sort, uint32_t count)
{
  return count <= sort->small_max && count <= FL_SORT_SMALL_MAX;
}

/* key_bits clamped to 1..32. */
static uint32_t clamp_bits(uint32_t key_bits) { return key_bits < 1 ? 1 : key_bits > 32 ? 32 : key_bits; }

uint32_t fl_radix_sort_passes(uint32_t key_bits)
{
  key_bits = clamp_bits(key_bits);
  return (key_bits + FL_SORT_RADIX_BITS - 1) / FL_SORT_RADIX_BITS;
}

void fl_radix_sort_record(const fl_radix_sort *sort, fl_rec *r, const fl_buffer *keys_in, const fl_buffer *values_in,
                          uint32_t count, uint32_t key_bits)
{
  if (!keys_in != !values_in) {
    r->failed = !fl_error_set("radix sort: give both input buffers or neither");
    return;
  }
  if (!keys_in) {
    keys_in = &sort->keys[0];
    values_in = &sort->values[0];
  } else if (!check_input(sort, keys_in, values_in)) {
    r->failed = true;
    return;
  }
  if (count > sort->max_count) count = sort->max_count;
  if (count == 0) return;
  key_bits = clamp_bits(key_bits);
  uint32_t passes = fl_radix_sort_passes(key_bits);
  if (takes_small(sort, count)) { /* every pass in one workgroup: one dispatch */
    fl_sort_push push = {.count = count, .tiles = 1, .key_bits = key_bits};
    fl_rec_pass(r, &(fl_pass){.kernel = SMALL_KERNEL, .workgroup = FL_SORT_SMALL_WORKGROUP, FL_PUSH(push),
                              .threads = sort->small_workgroup, .no_barrier = true,
                              FL_BUFFERS(keys_in, values_in, &sort->keys[0], &sort->values[0], &sort->keys[1],
                                         &sort->values[1])});
    return;
  }
  uint32_t tiles = (count - 1) / sort->tile + 1;
  uint32_t threads = tiles * sort->workgroup;
  for (uint32_t p = 0; p < passes; p++) {
    /* pass p reads [p % 2] (the caller's input first) and writes [(p + 1) % 2] */
    const fl_buffer *keys = p == 0 ? keys_in : &sort->keys[p % 2], *values = p == 0 ? values_in : &sort->values[p % 2];
    uint32_t dst = (p + 1) % 2;
    fl_sort_push push = {.count = count, .tiles = tiles, .shift = p * FL_SORT_RADIX_BITS, .key_bits = key_bits};
    fl_rec_pass(r, &(fl_pass){.kernel = HISTOGRAM_KERNEL, .workgroup = FL_SORT_WORKGROUP, FL_PUSH(push),
                              .threads = threads, FL_BUFFERS(keys, &sort->hist)});
    fl_scan_record(&sort->scan, r, &sort->hist, &sort->hist, tiles * FL_SORT_DIGITS);
    fl_rec_barrier(r);
    fl_rec_pass(r, &(fl_pass){.kernel = SCATTER_KERNEL, .workgroup = FL_SORT_WORKGROUP, FL_PUSH(push),
                              .threads = threads, .no_barrier = p + 1 == passes,
                              FL_BUFFERS(keys, values, &sort->hist, &sort->keys[dst], &sort->values[dst])});
  }
}

const fl_buffer *fl_radix_sort_keys(const fl_radix_sort *sort, uint32_t key_bits)
{
  return &sort->keys[fl_radix_sort_passes(key_bits) % 2];
}

const fl_buffer *fl_radix_sort_values(const fl_radix_sort *sort, uint32_t key_bits)
{
  return &sort->values[fl_radix_sort_passes(key_bits) % 2];
}

uint64_t fl_radix_sort_bytes(const fl_radix_sort *sort, uint32_t count, uint32_t key_bits)
{
  if (count > sort->max_count) count = sort->max_count;
  if (count == 0) return 0;
  if (takes_small(sort, count)) /* sort_small: per pass, read the key to count, then read and write the pair */
    return (uint64_t)count * (4 + 16) * fl_radix_sort_passes(key_bits);
  uint32_t tiles = (count - 1) / sort->tile + 1, hist = tiles * FL_SORT_DIGITS;
  uint64_t per_pass = (uint64_t)count * 4      /* histogram: read keys */
                      + (uint64_t)hist * 4     /* histogram: write counts */
                      + fl_scan_bytes(&sort->scan, hist)
                      + (uint64_t)hist * 4     /* scatter: read offsets */
                      + (uint64_t)count * 16;  /* scatter: read and write keys and values */
  return per_pass * fl_radix_sort_passes(key_bits);
}
