/* gpu/frames: frames in flight and the two-queue handshake.
 *
 * Frame N uses slot N % FL_GPU_FRAMES_IN_FLIGHT. Its compute submission waits
 * until the graphics submission of frame N-2 (same slot) has finished reading
 * that slot's snapshot (render timeline >= N-1), then signals the sim timeline
 * = N+1. Its graphics submission waits sim timeline >= N+1 and signals render
 * timeline = N+1 and the slot's fence. With async compute the two run on
 * different queues, so frame N+1's simulation overlaps frame N's drawing; with
 * one queue the same submissions and semaphores go to that queue. */
#pragma once
#include "gpu/gpu.h"

typedef struct {
  VkCommandPool pools[2];                                  /* [0] graphics family, [1] compute family */
  VkCommandBuffer graphics[FL_GPU_FRAMES_IN_FLIGHT], compute[FL_GPU_FRAMES_IN_FLIGHT];
  VkFence fence[FL_GPU_FRAMES_IN_FLIGHT];                  /* graphics submission of the slot done */
  bool in_flight[FL_GPU_FRAMES_IN_FLIGHT];
  uint64_t slot_frame[FL_GPU_FRAMES_IN_FLIGHT];            /* the frame last submitted in the slot */
  uint64_t done;                                           /* frames 0..done-1 are known finished (fences) */
  VkSemaphore acquire[FL_GPU_FRAMES_IN_FLIGHT];            /* binary: swapchain image ready */
  VkSemaphore sim_timeline, render_timeline;
  uint64_t frame;                                          /* the frame being built */
} fl_frames;

/* The timeline values of frame n's two submissions: what fl_frames_submit uses and what
 * tests/unit/test_frame_sync.c checks on a model of two queues. `fault` is for that
 * test alone (the frame loop passes 0): 1 makes the graphics wait one frame early,
 * 2 the compute wait, so the test shows it catches both. */
typedef struct {
  uint64_t compute_waits_render;   /* compute n waits render timeline >= this (0: nothing yet) */
  uint64_t compute_signals_sim;    /* then signals sim timeline = this */
  uint64_t graphics_waits_sim;     /* graphics n waits sim timeline >= this */
  uint64_t graphics_signals_render;/* then signals render timeline = this */
} fl_frame_sync;
fl_frame_sync fl_frames_sync_values(uint64_t n, int fault);

bool fl_frames_create(fl_gpu *gpu, fl_frames *f);
/* Waits for everything in flight, then destroys; accepts a zeroed struct. */
void fl_frames_destroy(fl_gpu *gpu, fl_frames *f);
/* The slot of the frame being built. */
static inline uint32_t fl_frames_slot(const fl_frames *f) { return (uint32_t)(f->frame % FL_GPU_FRAMES_IN_FLIGHT); }
/* Waits (fl_fence_wait: bounded unless the gpu was made patient) until the slot's previous frame is done, so its command buffers,
 * queries and snapshot can be reused. Returns true at once if nothing is in flight. */
bool fl_frames_wait_slot(fl_gpu *gpu, fl_frames *f, uint32_t slot);
/* Waits for every slot (swapchain rebuild, scene switch, end of run). */
bool fl_frames_wait_all(fl_gpu *gpu, fl_frames *f);
/* Begins both command buffers of the current slot (resetting them). */
bool fl_frames_begin(fl_gpu *gpu, fl_frames *f, VkCommandBuffer *compute, VkCommandBuffer *graphics);
/* Ends and submits the compute buffer, then the graphics buffer; `acquire` and
 * `render_done` are the swapchain's binary semaphores (NULL when headless).
 * Advances to the next frame. */
bool fl_frames_submit(fl_gpu *gpu, fl_frames *f, VkSemaphore acquire, VkSemaphore render_done);
