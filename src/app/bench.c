/* app/bench: the same-run copy ceiling (bench.h). */
#include "app/bench.h"

#include "core/log.h"
#include "flurry_shared.h"
#include "gpu/rec.h"

#include <stdlib.h>
#include <string.h>

static int compare_doubles(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

uint64_t fl_bench_copy_bytes(const fl_gpu *gpu, uint64_t bytes)
{
  bytes = (bytes + 15) & ~(uint64_t)15;
  if (bytes < ((uint64_t)1 << 20)) bytes = (uint64_t)1 << 20;
  if (bytes > gpu->props.limits.maxStorageBufferRange) bytes = gpu->props.limits.maxStorageBufferRange & ~(uint64_t)15;
  return bytes;
}

bool fl_bench_copy_ceiling(fl_gpu *gpu, uint64_t bytes, uint32_t repeats, double *gbps_out)
{
  *gbps_out = 0;
  if (gpu->timestamp_valid_bits[0] == 0) return fl_error_set("the graphics queue cannot write timestamps");
  if (repeats < 1 || repeats > 64) repeats = 16;
  bytes = fl_bench_copy_bytes(gpu, bytes);
  fl_buffer src = {0}, dst = {0};
  fl_descriptor_cache sets = {0};
  VkQueryPool pool = VK_NULL_HANDLE;
  bool ok = fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, "ceiling src", &src) &&
            fl_buffer_create(gpu, bytes, FL_MEMORY_DEVICE, "ceiling dst", &dst) && fl_buffer_fill(gpu, &src, 0x3f800000u) &&
            fl_descriptor_cache_create(gpu, "ceiling", &sets);
  VkQueryPoolCreateInfo qi = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                              .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2 * (repeats + 1)};
  if (ok && vkCreateQueryPool(gpu->device, &qi, NULL, &pool) != VK_SUCCESS) ok = fl_error_set("cannot create a query pool");
  fl_rec rec;
  if (ok && (ok = fl_rec_begin_once(gpu, &sets, &rec))) {
    vkCmdResetQueryPool(rec.cmd, pool, 0, qi.queryCount);
    uint32_t elements = (uint32_t)(bytes / 16);
    fl_count_push push = {.count = elements};
    for (uint32_t r = 0; r <= repeats; r++) { /* r = 0 warms caches and clocks */
      fl_rec_barrier(&rec);
      fl_cmd_timestamp_begin(gpu, rec.cmd, pool, 2 * r);
      fl_rec_pass(&rec, &(fl_pass){.kernel = "common/copy", FL_PUSH(push), .threads = elements, .no_barrier = true,
                                   FL_BUFFERS(&src, &dst)});
      vkCmdWriteTimestamp(rec.cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool, 2 * r + 1);
    }
    ok = fl_rec_end_once(&rec);
  }
  if (ok) {
    uint64_t ts[2 * 65];
    VkResult r = vkGetQueryPoolResults(gpu->device, pool, 0, qi.queryCount, sizeof ts, ts, sizeof ts[0],
                                       VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT);
    if (r != VK_SUCCESS) ok = fl_error_set("copy ceiling: timestamps unavailable (%s)", fl_vk_result_name(r));
    double gbps[64];
    for (uint32_t i = 0; ok && i < repeats; i++) {
      double ns = (double)(ts[2 * (i + 1) + 1] - ts[2 * (i + 1)]) * gpu->props.limits.timestampPeriod;
      gbps[i] = ns > 0 ? 2.0 * (double)bytes / ns : 0.0;
    }
    if (ok) {
      qsort(gbps, repeats, sizeof gbps[0], compare_doubles);
      *gbps_out = gbps[repeats - 1];
    }
  }
  if (pool) vkDestroyQueryPool(gpu->device, pool, NULL);
  fl_descriptor_cache_destroy(&sets);
  fl_buffer_destroy(gpu, &src);
  fl_buffer_destroy(gpu, &dst);
  return ok;
}
