/* gpu/swapchain: the window's swapchain, recreated on resize, OUT_OF_DATE and
 * SUBOPTIMAL; a zero extent (minimized window) makes no swapchain at all.
 *
 * A present waits on its image's render_done semaphore, and nothing signals when
 * it is done (no present fence without VK_EXT_swapchain_maintenance1, which
 * lavapipe lacks). So a rebuild retires the old swapchain with its semaphores,
 * tagged with the next frame to be submitted: that frame's fence comes after
 * every present so far on the queue, and once it has signalled
 * (fl_swapchain_collect) they are destroyed. */
#pragma once
#include "gpu/gpu.h"

#define FL_SWAPCHAIN_MAX_IMAGES 8
#define FL_SWAPCHAIN_MAX_RETIRED 8

/* A swapchain and its present semaphores, kept after a rebuild until `frame` is finished. */
typedef struct {
  VkSwapchainKHR swapchain;
  VkSemaphore render_done[FL_SWAPCHAIN_MAX_IMAGES];
  uint32_t count;
  uint64_t frame;
} fl_swapchain_retired;

typedef struct {
  VkSurfaceKHR surface;
  VkSwapchainKHR swapchain;
  VkFormat format;
  VkExtent2D extent;
  uint32_t image_count;
  VkImage images[FL_SWAPCHAIN_MAX_IMAGES];
  VkImageView views[FL_SWAPCHAIN_MAX_IMAGES];
  VkSemaphore render_done[FL_SWAPCHAIN_MAX_IMAGES]; /* per image: present waits on it */
  uint32_t generation;  /* bumps on every (re)creation, so dependents know to rebuild */
  bool surface_lost;    /* VK_ERROR_SURFACE_LOST_KHR: the window is gone (destroyed by another client) */
  fl_swapchain_retired retired[FL_SWAPCHAIN_MAX_RETIRED];
  uint32_t retired_count;
} fl_swapchain;

/* (Re)creates the swapchain for `surface` at the surface's current extent (or
 * `want` when the surface leaves it to us). Returns true with extent 0x0 when
 * minimized, and also when the surface is lost (then sc->surface_lost is set). */
/* `next_frame` is the frame the next submission will carry: the old swapchain and its
 * semaphores live until that frame is finished. Call with the frames' fences waited. */
bool fl_swapchain_build(fl_gpu *gpu, fl_swapchain *sc, VkSurfaceKHR surface, VkExtent2D want, uint64_t next_frame);
/* Destroys what was retired before frame `done` (frames 0..done-1 are finished). */
void fl_swapchain_collect(fl_gpu *gpu, fl_swapchain *sc, uint64_t done);
/* Destroys the swapchain and all it retired (not the surface), after the device is idle; accepts a zeroed one. */
void fl_swapchain_destroy(fl_gpu *gpu, fl_swapchain *sc);
