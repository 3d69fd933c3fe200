/* render/targets: framebuffers for the swapchain or an offscreen image. */
#include "render/targets.h"

#include <string.h>

static bool make_depth(fl_gpu *gpu, const fl_renderer *r, VkExtent2D extent, fl_render_targets *t)
{
  return fl_image_create(gpu, extent, r->depth_format, VK_IMAGE_USAGE_DEPTH_STENCIL_ATTACHMENT_BIT,
                         VK_IMAGE_ASPECT_DEPTH_BIT, "depth", &t->depth);
}

static bool make_framebuffer(fl_gpu *gpu, const fl_renderer *r, VkImageView color, fl_render_targets *t)
{
  VkImageView attachments[2] = {color, t->depth.view};
  VkFramebufferCreateInfo info = {
      .sType = VK_STRUCTURE_TYPE_FRAMEBUFFER_CREATE_INFO,
      .renderPass = r->render_pass,
      .attachmentCount = 2,
      .pAttachments = attachments,
      .width = t->extent.width,
      .height = t->extent.height,
      .layers = 1,
  };
  FL_VK_TRY(vkCreateFramebuffer(gpu->device, &info, NULL, &t->framebuffers[t->count]));
  t->count++;
  return true;
}

bool fl_targets_create_offscreen(fl_gpu *gpu, const fl_renderer *r, VkExtent2D extent, fl_render_targets *t)
{
  memset(t, 0, sizeof *t);
  t->extent = extent;
  bool ok = make_depth(gpu, r, extent, t) &&
            fl_image_create(gpu, extent, r->color_format,
                            VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT | VK_IMAGE_USAGE_TRANSFER_SRC_BIT,
                            VK_IMAGE_ASPECT_COLOR_BIT, "offscreen colour", &t->color);
  if (ok) {
    t->images[0] = t->color.image;
    ok = make_framebuffer(gpu, r, t->color.view, t);
  }
  if (!ok) fl_targets_destroy(gpu, t);
  return ok;
}

bool fl_targets_create_swapchain(fl_gpu *gpu, const fl_renderer *r, const fl_swapchain *sc, fl_render_targets *t)
{
  memset(t, 0, sizeof *t);
  t->extent = sc->extent;
  bool ok = make_depth(gpu, r, sc->extent, t);
  for (uint32_t i = 0; i < sc->image_count && ok; i++) {
    t->images[i] = sc->images[i];
    ok = make_framebuffer(gpu, r, sc->views[i], t);
  }
  if (!ok) fl_targets_destroy(gpu, t);
  return ok;
}

void fl_targets_destroy(fl_gpu *gpu, fl_render_targets *t)
{
  for (uint32_t i = 0; i < t->count; i++) vkDestroyFramebuffer(gpu->device, t->framebuffers[i], NULL);
  fl_image_destroy(gpu, &t->depth);
  fl_image_destroy(gpu, &t->color);
  memset(t, 0, sizeof *t);
}
