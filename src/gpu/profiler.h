/* gpu/profiler: named GPU timestamp scopes on each queue, read back without
 * stalling (a frame slot's queries are read only after its fence has signalled)
 * and summarized over the run: mean, median, min, max. A queue family whose
 * timestampValidBits is 0 is reported as untimed, and its scopes record nothing. */
#pragma once
#include "gpu/gpu.h"
#include "gpu/trace.h"

/* Scopes per frame slot and queue from the start: snow's adaptive substeps reach
 * 262 scopes a frame in snowballs, so 64 (and 256) lost the end of such a frame
 * before the pool grew; --trace wants every pass in every frame. The pools still
 * grow past it, and a frame that loses scopes says so in the trace. */
#define FL_PROFILER_INITIAL_SCOPES 1024

typedef enum { FL_QUEUE_GRAPHICS = 0, FL_QUEUE_COMPUTE = 1 } fl_queue_role;

typedef struct {
  char name[48];
  fl_queue_role queue;
  uint64_t bytes;        /* bytes the pass must move per execution (0 = not counted) */
  uint32_t executions;   /* executions per frame in the latest timed frame (substeps) */
  double *samples_ms;    /* per frame: the sum over that frame's executions */
  uint32_t count, capacity;
  double last_ms;
} fl_profile_stat;

typedef struct {
  double mean, median, min, max;
} fl_stat_summary;

/* The timestamp queries of one frame slot on one queue: two per scope. */
typedef struct {
  VkQueryPool pool;
  uint32_t capacity;     /* scopes */
  uint32_t used;
  uint32_t dropped;      /* scopes this frame opened past capacity */
  int *scope_stat;       /* the stat each scope adds to */
} fl_query_set;

typedef struct {
  fl_gpu *gpu;
  fl_query_set sets[FL_GPU_FRAMES_IN_FLIGHT][2];
  uint32_t wanted[2];    /* scopes a frame needed: pools grow to it at the slot's next reset */
  bool pending[FL_GPU_FRAMES_IN_FLIGHT];
  bool can_time[2];
  uint64_t mask[2];
  double period_ns;
  fl_profile_stat *stats;
  uint32_t stat_count, stat_capacity;
  int frame_stat;        /* "frame": earliest to latest timestamp of a frame, both queues */
  /* Scratch for fl_profiler_collect, grown as needed (no allocation per frame). */
  uint64_t *scratch_ts;
  double *scratch_sum;
  uint32_t *scratch_exec;
  uint32_t scratch_ts_capacity, scratch_stat_capacity;
  bool enabled;          /* false: scopes record nothing (e.g. while benchmarking a ceiling) */
  uint32_t detail_every; /* the passes are timed in one frame of this many (1, the default: every frame);
                          * the frame's marks (fl_profiler_mark) every frame. On llvmpipe a timestamp
                          * makes the rasterizer threads flush, a quarter of a frame's time when
                          * every pass of every frame is timed (docs/PROFILING.md) */
  uint64_t frames_begun; /* frames whose compute reset was recorded since the last clear */
  bool detail[FL_GPU_FRAMES_IN_FLIGHT]; /* the slot's frame times its passes */
  fl_trace *trace;       /* --trace: every collected scope also goes there (NULL: none) */
  uint64_t frames_collected; /* frames whose timestamps were read, in order: the trace's frame numbers */
} fl_profiler;

/* Creates one query pool per frame slot and queue role. A frame that opens
 * more scopes than a pool holds loses the excess once; the pool grows to fit at
 * that slot's next reset (after its fence), so later frames are complete. */
bool fl_profiler_create(fl_gpu *gpu, fl_profiler *p);
void fl_profiler_destroy(fl_profiler *p);
/* Resets the slot's queries for `queue`; record first in that queue's command buffer. The
 * compute queue's reset begins a frame: it decides whether that frame times its passes (detail_every). */
void fl_profiler_reset(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd);
/* Opens a named scope; `bytes` is what the pass must move (for GB/s). Returns a scope id, or -1
 * (p NULL: recording untimed, and fl_profiler_end accepts it too). */
int fl_profiler_begin(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd,
                      const char *name, uint64_t bytes);
/* Closes the scope opened by fl_profiler_begin. */
void fl_profiler_end(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd, int scope);
/* One timestamp that only bounds the frame ("frame": its earliest to its latest timestamp), written
 * in every frame, timed or not: record one first in the frame and one last. */
void fl_profiler_mark(fl_profiler *p, uint32_t slot, fl_queue_role queue, VkCommandBuffer cmd);
/* Reads the slot's results (call after its fence signalled) and adds them to the statistics. */
void fl_profiler_collect(fl_profiler *p, uint32_t slot);
/* Forgets all samples (e.g. after a warm-up); the next frame times its passes. */
void fl_profiler_clear(fl_profiler *p);
/* Forgets every stat, names included, and the slots' uncollected results (call
 * with no frame in flight, e.g. when the scene changes: the old passes vanish). */
void fl_profiler_forget(fl_profiler *p);
/* Summary over the samples of one stat. */
fl_stat_summary fl_profile_summary(const fl_profile_stat *stat);
/* The stat with this name, or NULL. */
const fl_profile_stat *fl_profiler_find(const fl_profiler *p, const char *name);
