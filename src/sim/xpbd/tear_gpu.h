/* sim/xpbd/tear_gpu: the GPU half of cloth tearing (docs/CLOTH.md "Tearing";
 * the topology half is tear.h). Once a frame xpbd/tear_flag appends the
 * distance constraints whose strain passes their cloth's tear_strain to a
 * small report, copied into the frame slot's readback buffer; after the slot's
 * fence (a frame or two later: no stall) the CPU reads it, splits vertices
 * (tear.h), and the next frame recorded starts with the new topology's upload
 * (vkCmdUpdateBuffer, ordered after every earlier use by a barrier) and
 * xpbd/tear_split, which gives each new particle its vertex's state. A report
 * recorded before the last topology change is dropped (its indices are stale). */
#pragma once
#include "gpu/rec.h"
#include "sim/xpbd/tear.h"
#include "tear_shared.h"

typedef struct {
  fl_gpu *gpu;
  bool on;                                        /* some cloth has tear_strain */
  fl_buffer strain;                               /* float per object: tear_strain, 0: never */
  fl_buffer report;                               /* uvec4 header, then FL_TEAR_MAX_REPORTS uvec4 */
  fl_buffer readback[FL_GPU_FRAMES_IN_FLIGHT];    /* the report after the slot's frame */
  bool pending[FL_GPU_FRAMES_IN_FLIGHT];          /* a copy waits for the slot's fence */
  uint64_t slot_generation[FL_GPU_FRAMES_IN_FLIGHT]; /* the topology the slot's report was made on */
  uint64_t generation;                            /* topology changes so far */
  fl_buffer splits;                               /* uvec4 per split of the next upload */
  fl_buffer draw_triangles[FL_GPU_FRAMES_IN_FLIGHT]; /* the slot's copy of the triangles, which its drawing
                                                   * reads (the next frame may change the system's) */
  uint64_t draw_generation[FL_GPU_FRAMES_IN_FLIGHT]; /* the topology of that copy */
  fl_tear_split queued[FL_TEAR_MAX_SPLITS];       /* made by the CPU, not yet on the GPU */
  uint32_t queued_count;
  bool upload;                                    /* the topology changed: the next frame uploads it */
  /* What tearing cost so far (docs/CLOTH.md): */
  uint32_t splits_done, batches, reports_seen;
  double cpu_ms_total, cpu_ms_max;                /* CPU time of the batches: splits, recolouring, vertex lists */
  double cpu_ms_batch;                            /* the batch not yet uploaded, so far */
  uint64_t upload_bytes_max;                      /* the largest topology upload */
  double contact_ms_total, contact_ms_max;        /* of the CPU time: the triangle contacts' edge rebuild */
  uint64_t contact_bytes_max;                     /* of the upload: the largest contact edges + owners */
} fl_tear;

/* Makes the buffers when some object of b has tear_strain > 0 (t->on); else leaves t off. */
bool fl_tear_create(fl_gpu *gpu, const fl_xpbd_build *b, fl_tear *out);
void fl_tear_destroy(fl_tear *t);
/* Records the flag pass over `count` distance constraints and the report's copy into the rec's slot. */
void fl_tear_record_flag(fl_tear *t, fl_rec *r, const fl_buffer *pos, const fl_buffer *constraints,
                         const fl_buffer *object_of, uint32_t count);
/* Reads a report (header + records, as xpbd/tear_flag wrote it) and tears b: the most strained
 * constraints first, at most FL_TEAR_MAX_SPLITS, no particle in two splits; recolours b when
 * anything split. Returns the splits made (queued for the next upload). */
uint32_t fl_tear_apply_report(fl_tear *t, fl_xpbd_build *b, const uint32_t (*report)[4]);
/* After the slot's fence: applies the slot's report if it was made on the current topology. */
uint32_t fl_tear_collect(fl_tear *t, fl_xpbd_build *b, uint32_t slot);
/* Records xpbd/tear_split over the queued splits (after the topology upload) and empties the queue. */
void fl_tear_record_split(fl_tear *t, fl_rec *r, const fl_buffer *pos, const fl_buffer *prev, const fl_buffer *vel,
                          const fl_buffer *older, const fl_buffer *vel_old);
/* Copies the system's triangles (t of them) into the rec's slot's draw copy when they changed since. */
void fl_tear_record_draw_copy(fl_tear *t, fl_rec *r, const fl_buffer *triangles, uint32_t count);
/* A monotonic clock in milliseconds (the CPU cost of tearing). */
double fl_tear_now_ms(void);
/* Records `bytes` of `data` into dst at offset 0 with vkCmdUpdateBuffer (64 KiB at a time). */
void fl_tear_update_buffer(VkCommandBuffer cmd, const fl_buffer *dst, const void *data, uint64_t bytes);
