/* gpu/profiler: timestamp scopes per queue, collected without stalls. */
#include "gpu/profiler.h"

#include "core/log.h"

#include <stdlib.h>
#include <string.h>

/* (Re)creates a slot's pool for `scopes` scopes; the slot must be idle. */
static bool query_set_resize(fl_profiler *p, fl_query_set *set, uint32_t scopes, uint32_t slot, int queue)
{
  if (set->pool) vkDestroyQueryPool(p->gpu->device, set->pool, NULL);
  set->pool = VK_NULL_HANDLE;
  set->capacity = 0;
  int *stat = realloc(set->scope_stat, scopes * sizeof *stat);
  if (!stat) return fl_error_set("out of host memory for %u profiler scopes", scopes);
  set->scope_stat = stat;
  VkQueryPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO,
                                .queryType = VK_QUERY_TYPE_TIMESTAMP, .queryCount = 2 * scopes};
  FL_VK_TRY(vkCreateQueryPool(p->gpu->device, &info, NULL, &set->pool));
  fl_gpu_set_name(p->gpu, VK_OBJECT_TYPE_QUERY_POOL, (uint64_t)set->pool, "timestamps slot %u %s", slot,
                  queue ? "compute" : "graphics");
  set->capacity = scopes;
  return true;
}

bool fl_profiler_create(fl_gpu *gpu, fl_profiler *p)
{
  memset(p, 0, sizeof *p);
  p->gpu = gpu;
  p->enabled = true;
  p->detail_every = 1;
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) p->detail[s] = true;
  p->period_ns = gpu->props.limits.timestampPeriod;
  for (int q = 0; q < 2; q++) {
    uint32_t bits = gpu->timestamp_valid_bits[q];
    p->can_time[q] = bits > 0 && p->period_ns > 0;
    p->mask[q] = bits >= 64 ? ~0ull : ((1ull << bits) - 1);
  }
  for (int q = 0; q < 2; q++) p->wanted[q] = FL_PROFILER_INITIAL_SCOPES;
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++)
    for (int q = 0; q < 2; q++)
      if (p->can_time[q] && !query_set_resize(p, &p->sets[s][q], p->wanted[q], s, q)) return false;
  p->frame_stat = -1;
  return true;
}

void fl_profiler_destroy(fl_profiler *p)
{
  if (!p->gpu) return;
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++)
    for (int q = 0; q < 2; q++) {
      if (p->sets[s][q].pool) vkDestroyQueryPool(p->gpu->device, p->sets[s][q].pool, NULL);
      free(p->sets[s][q].scope_stat);
    }
  for (uint32_t i = 0; i < p->stat_count; i++) free(p->stats[i].samples_ms);
  free(p->stats);
  free(p->scratch_ts);
  free(p->scratch_sum);
  free(p->scratch_exec);
  memset(p, 0, sizeof *p);
}

static int stat_index(fl_profiler *p, const char *name, fl_queue_role queue)
{
  for (uint32_t i = 0; i < p->stat_count; i++)
    if (strcmp(p->stats[i].name, name) == 0) return (int)i;
  if (p->stat_count == p->stat_capacity) {
    uint32_t cap = p->stat_capacity ? p->stat_capacity * 2 : 16;
    fl_profile_stat *grown = realloc(p->stats, cap * sizeof *grown);
    if (!grown) return -1;
    p->stats = grown;
    p->stat_capacity = cap;
  }
  fl_profile_stat *s = &p->stats[p->stat_count];
  memset(s, 0, sizeof *s);
  strncpy(s->name, name, sizeof s->name - 1);
  s->queue = queue;
  return (int)p->stat_count++;
}

static void stat_add(fl_profile_stat *s, double ms)
{
  if (s->count == s->capacity) {
    uint32_t cap = s->capacity ? s->capacity * 2 : 256;
    double *grown = realloc(s->samples_ms, cap * sizeof *grown);
    if (!grown) return;
    s->samples_ms = grown;
    s->capacity = cap;
  }
  s->samples_ms[s->count++] = ms;
  s->last_ms = ms;
}

void fl_profiler_reset(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd)
{
  fl_query_set *set = &p->sets[slot][queue];
  set->used = 0;
  set->dropped = 0;
  if (queue == FL_QUEUE_COMPUTE)
    p->detail[slot] = p->detail_every <= 1 || p->frames_begun++ % p->detail_every == 0;
  if (!p->can_time[queue]) return;
  if (p->wanted[queue] > set->capacity && !query_set_resize(p, set, p->wanted[queue], slot, queue)) {
    fl_warn("profiler: %s", fl_error_message());
    fl_error_clear();
  }
  if (!set->pool) return;
  vkCmdResetQueryPool(cmd, set->pool, 0, 2 * set->capacity);
  p->pending[slot] = true;
}

/* The scope_stat of a mark (fl_profiler_mark): no stat, it only bounds the frame. */
#define MARK (-1)

/* Opens the slot's next scope for `stat` (the caller checked the room). */
static int open_scope(fl_profiler *p, fl_query_set *set, fl_queue_role queue, VkCommandBuffer cmd, int stat)
{
  uint32_t k = set->used++;
  set->scope_stat[k] = stat;
  if (queue == FL_QUEUE_COMPUTE) /* graphics scopes sit inside render passes: no barriers there */
    fl_cmd_timestamp_begin(p->gpu, cmd, set->pool, 2 * k);
  else
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_TOP_OF_PIPE_BIT, set->pool, 2 * k);
  return (int)k;
}

/* The set to time a scope in, or NULL (disabled, untimed queue, no room: then the pool grows). */
static fl_query_set *room(fl_profiler *p, uint32_t slot, fl_queue_role queue)
{
  fl_query_set *set = &p->sets[slot][queue];
  if (!p->enabled || !p->can_time[queue] || !set->pool) return NULL;
  if (set->used >= set->capacity) { /* this frame loses the scope; the pool grows at the next reset */
    set->dropped++;
    if (p->wanted[queue] < set->capacity + set->dropped) p->wanted[queue] = set->capacity + set->dropped;
    return NULL;
  }
  return set;
}

void fl_profiler_mark(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd)
{
  fl_query_set *set = p ? room(p, slot, queue) : NULL;
  if (!set) return;
  int k = open_scope(p, set, queue, cmd, MARK);
  vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, set->pool, 2 * (uint32_t)k + 1);
}

int fl_profiler_begin(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd,
                      const char *name, uint64_t bytes)
{
  if (!p || !p->detail[slot]) return -1; /* untimed recording (load-time passes), or a frame that times none */
  fl_query_set *set = room(p, slot, queue);
  if (!set) return -1;
  int stat = stat_index(p, name, queue);
  if (stat < 0) return -1;
  p->stats[stat].bytes = bytes;
  return open_scope(p, set, queue, cmd, stat);
}

void fl_profiler_end(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd, int scope)
{
  if (!p) return;
  if (scope >= 0)
    vkCmdWriteTimestamp(cmd, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, p->sets[slot][queue].pool, 2 * (uint32_t)scope + 1);
}

/* Grows the collect scratch to `stats` stats and `scopes` scopes; false when out of memory. */
static bool scratch_reserve(fl_profiler *p, uint32_t stats, uint32_t scopes)
{
  if (stats > p->scratch_stat_capacity) {
    uint32_t cap = stats * 2;
    double *sum = realloc(p->scratch_sum, cap * sizeof *sum);
    if (sum) p->scratch_sum = sum;
    uint32_t *exec = realloc(p->scratch_exec, cap * sizeof *exec);
    if (exec) p->scratch_exec = exec;
    if (!sum || !exec) return false;
    p->scratch_stat_capacity = cap;
  }
  if (2 * scopes > p->scratch_ts_capacity) {
    uint64_t *ts = realloc(p->scratch_ts, 4 * (size_t)scopes * sizeof *ts);
    if (!ts) return false;
    p->scratch_ts = ts;
    p->scratch_ts_capacity = 4 * scopes;
  }
  return true;
}

void fl_profiler_collect(fl_profiler *p, uint32_t slot)
{
  if (!p->pending[slot]) return;
  p->pending[slot] = false;
  uint64_t frame = p->frames_collected++; /* slots are collected in frame order */
  /* Per stat: this frame's summed time and execution count. */
  uint32_t cap = p->stat_count;
  if (cap == 0) return; /* no scope was ever opened */
  if (!scratch_reserve(p, cap, p->sets[slot][0].used > p->sets[slot][1].used ? p->sets[slot][0].used
                                                                              : p->sets[slot][1].used))
    return;
  double *frame_sum = p->scratch_sum;
  uint32_t *frame_exec = p->scratch_exec;
  uint64_t *ts = p->scratch_ts;
  memset(frame_sum, 0, cap * sizeof *frame_sum);
  memset(frame_exec, 0, cap * sizeof *frame_exec);
  uint64_t first = UINT64_MAX, last = 0;
  bool any = false;
  for (int q = 0; q < 2; q++) {
    fl_query_set *set = &p->sets[slot][q];
    uint32_t n = set->used;
    if (set->dropped) fl_trace_note(p->trace, "profiler: scopes lost (the pool grows)", q, frame, set->dropped);
    if (!n) continue;
    /* The fence of this slot has signalled, so the results are available: no WAIT flag. */
    VkResult r = vkGetQueryPoolResults(p->gpu->device, set->pool, 0, 2 * n, 2 * n * sizeof *ts, ts, sizeof *ts,
                                       VK_QUERY_RESULT_64_BIT);
    if (r != VK_SUCCESS) continue;
    for (uint32_t k = 0; k < n; k++) {
      uint64_t begin = ts[2 * k] & p->mask[q], end = ts[2 * k + 1] & p->mask[q];
      double ms = (double)((end - begin) & p->mask[q]) * p->period_ns * 1e-6;
      if (begin < first) first = begin;
      if (end > last) last = end;
      int stat = set->scope_stat[k];
      any = true;
      if (stat == MARK) continue; /* it only bounds the frame */
      fl_trace_gpu(p->trace, p->stats[stat].name, q, frame, begin, end, p->stats[stat].bytes);
      frame_sum[stat] += ms;
      frame_exec[stat]++;
    }
  }
  for (uint32_t i = 0; i < cap; i++)
    if (frame_exec[i]) {
      stat_add(&p->stats[i], frame_sum[i]);
      p->stats[i].executions = frame_exec[i];
    }
  if (any && last > first) {
    if (p->frame_stat < 0) p->frame_stat = stat_index(p, "frame", FL_QUEUE_GRAPHICS);
    if (p->frame_stat >= 0) stat_add(&p->stats[p->frame_stat], (double)(last - first) * p->period_ns * 1e-6);
  }
}

void fl_profiler_clear(fl_profiler *p)
{
  for (uint32_t i = 0; i < p->stat_count; i++) p->stats[i].count = 0;
  p->frames_begun = 0;
}

void fl_profiler_forget(fl_profiler *p)
{
  for (uint32_t s = 0; s < FL_GPU_FRAMES_IN_FLIGHT; s++) {
    p->pending[s] = false;
    for (int q = 0; q < 2; q++) p->sets[s][q].used = 0;
  }
  for (uint32_t i = 0; i < p->stat_count; i++) free(p->stats[i].samples_ms);
  p->stat_count = 0;
  p->frame_stat = -1;
  p->frames_begun = 0;
}

static int cmp_double(const void *a, const void *b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

fl_stat_summary fl_profile_summary(const fl_profile_stat *stat)
{
  fl_stat_summary s = {0};
  if (!stat->count) return s;
  double *sorted = malloc(stat->count * sizeof *sorted);
  if (!sorted) return s;
  memcpy(sorted, stat->samples_ms, stat->count * sizeof *sorted);
  qsort(sorted, stat->count, sizeof *sorted, cmp_double);
  double sum = 0;
  for (uint32_t i = 0; i < stat->count; i++) sum += sorted[i];
  s.mean = sum / stat->count;
  s.min = sorted[0];
  s.max = sorted[stat->count - 1];
  s.median = stat->count % 2 ? sorted[stat->count / 2]
                             : 0.5 * (sorted[stat->count / 2 - 1] + sorted[stat->count / 2]);
  free(sorted);
  return s;
}

const fl_profile_stat *fl_profiler_find(const fl_profiler *p, const char *name)
{
  for (uint32_t i = 0; i < p->stat_count; i++)
    if (strcmp(p->stats[i].name, name) == 0) return &p->stats[i];
  return NULL;
}
