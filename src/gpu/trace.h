/* gpu/trace: the profiler's passes as Chrome trace events (--trace FILE.json),
 * which Perfetto (ui.perfetto.dev) and chrome://tracing open as a timeline.
 *
 * One "X" (complete) event per pass execution per frame, on a track per queue
 * (one track when compute and graphics share a queue), plus the CPU's record
 * and submit of each frame on a track of their own. GPU timestamps are put on
 * the CPU's CLOCK_MONOTONIC time base with VK_EXT_calibrated_timestamps when
 * the device has it; otherwise the first GPU timestamp is aligned with the end
 * of the first traced submit (docs/PROFILING.md). Events are streamed through
 * stdio's buffer as frames are collected: no stall, no readback of their own. */
#pragma once
#include "gpu/gpu.h"

typedef struct fl_trace fl_trace;

/* Opens FILE.json for writing and names the tracks; false with a message on failure. */
bool fl_trace_open(fl_gpu *gpu, const char *path, fl_trace **out);
/* Writes the closing bracket and closes; false if any write failed. Accepts NULL. */
bool fl_trace_close(fl_trace *t);
/* The CPU clock the trace uses (CLOCK_MONOTONIC), in ns. */
uint64_t fl_trace_cpu_now_ns(void);
/* A CPU span of frame `frame` (e.g. "record", "submit") between two fl_trace_cpu_now_ns() values. */
void fl_trace_cpu(fl_trace *t, const char *name, uint64_t frame, uint64_t begin_ns, uint64_t end_ns);
/* One GPU pass execution: raw timestamps of queue role `queue` (0 graphics, 1 compute),
 * converted with the device's timestamp period. `bytes`: what the pass moves (0: not counted). */
void fl_trace_gpu(fl_trace *t, const char *name, int queue, uint64_t frame, uint64_t begin_ts, uint64_t end_ts,
                  uint64_t bytes);
/* An instant event on queue role `queue`'s track: something the reader must know about frame `frame`. */
void fl_trace_note(fl_trace *t, const char *what, int queue, uint64_t frame, uint64_t count);
