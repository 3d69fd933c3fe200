/* gpu/swapchain: the window's swapchain, recreated on resize, OUT_OF_DATE and
 * SUBOPTIMAL; a zero extent (minimized window) makes no swapchain at all. */
#pragma once
#include "gpu/gpu.h"

#define FL_SWAPCHAIN_MAX_IMAGES 8

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
} fl_swapchain;

/* (Re)creates the swapchain for `surface` at the surface's current extent (or
 * `want` when the surface leaves it to us). Returns true with extent 0x0 when
 * minimized, and also when the surface is lost (then sc->surface_lost is set). */
bool fl_swapchain_build(fl_gpu *gpu, fl_swapchain *sc, VkSurfaceKHR surface, VkExtent2D want);
/* Destroys the swapchain (not the surface); accepts a zeroed one. */
void fl_swapchain_destroy(fl_gpu *gpu, fl_swapchain *sc);
