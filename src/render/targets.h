/* render/targets: what a render pass draws into: the swapchain's images, or an
 * offscreen colour image (headless), plus a depth image and framebuffers. */
#pragma once
#include "gpu/swapchain.h"
#include "render/renderer.h"

typedef struct {
  fl_image depth;
  fl_image color;                 /* headless only */
  VkFramebuffer framebuffers[FL_SWAPCHAIN_MAX_IMAGES];
  VkImage images[FL_SWAPCHAIN_MAX_IMAGES]; /* what each framebuffer draws into */
  uint32_t count;
  VkExtent2D extent;
} fl_render_targets;

/* One offscreen colour image (renderer's colour format, usable as a copy source). */
bool fl_targets_create_offscreen(fl_gpu *gpu, const fl_renderer *r, VkExtent2D extent, fl_render_targets *t);
/* A framebuffer per swapchain image. */
bool fl_targets_create_swapchain(fl_gpu *gpu, const fl_renderer *r, const fl_swapchain *sc, fl_render_targets *t);
void fl_targets_destroy(fl_gpu *gpu, fl_render_targets *t);
