/* gpu/swapchain: creation and recreation of the presentable images. */
#include "gpu/swapchain.h"

#include "core/log.h"

#include <string.h>

static VkSurfaceFormatKHR choose_format(fl_gpu *gpu, VkSurfaceKHR surface)
{
  uint32_t count = 0;
  vkGetPhysicalDeviceSurfaceFormatsKHR(gpu->physical, surface, &count, NULL);
  VkSurfaceFormatKHR formats[64];
  if (count > 64) count = 64;
  vkGetPhysicalDeviceSurfaceFormatsKHR(gpu->physical, surface, &count, formats);
  for (uint32_t i = 0; i < count; i++)
    if ((formats[i].format == VK_FORMAT_B8G8R8A8_SRGB || formats[i].format == VK_FORMAT_R8G8B8A8_SRGB) &&
        formats[i].colorSpace == VK_COLOR_SPACE_SRGB_NONLINEAR_KHR)
      return formats[i];
  for (uint32_t i = 0; i < count; i++)
    if (formats[i].format == VK_FORMAT_B8G8R8A8_UNORM || formats[i].format == VK_FORMAT_R8G8B8A8_UNORM)
      return formats[i];
  return count ? formats[0] : (VkSurfaceFormatKHR){VK_FORMAT_B8G8R8A8_UNORM, VK_COLOR_SPACE_SRGB_NONLINEAR_KHR};
}

static void destroy_retired(fl_gpu *gpu, fl_swapchain *sc, uint32_t i)
{
  for (uint32_t k = 0; k < sc->retired[i].count; k++) vkDestroySemaphore(gpu->device, sc->retired[i].render_done[k], NULL);
  if (sc->retired[i].swapchain) vkDestroySwapchainKHR(gpu->device, sc->retired[i].swapchain, NULL);
  sc->retired[i] = sc->retired[--sc->retired_count];
}

void fl_swapchain_collect(fl_gpu *gpu, fl_swapchain *sc, uint64_t done)
{
  for (uint32_t i = sc->retired_count; i-- > 0;)
    if (sc->retired[i].frame < done) destroy_retired(gpu, sc, i);
}

/* Retires the swapchain and its semaphores until frame `next_frame` is finished; their
 * views go now (only the finished command buffers used them). When nothing was submitted
 * since the last retirement, the current set was never presented: it goes at once.
 * Returns the old swapchain when it is still alive (for oldSwapchain). */
static VkSwapchainKHR retire(fl_gpu *gpu, fl_swapchain *sc, uint64_t next_frame)
{
  if (!sc->swapchain && !sc->image_count) return VK_NULL_HANDLE;
  bool unused = sc->retired_count && sc->retired[sc->retired_count - 1].frame == next_frame;
  if (!unused && sc->retired_count == FL_SWAPCHAIN_MAX_RETIRED) {
    /* Full (no frame finished across many rebuilds): wait for the queue instead. */
    vkQueueWaitIdle(gpu->graphics_queue);
    while (sc->retired_count) destroy_retired(gpu, sc, sc->retired_count - 1);
  }
  fl_swapchain_retired *r = unused ? NULL : &sc->retired[sc->retired_count++];
  if (r) *r = (fl_swapchain_retired){.swapchain = sc->swapchain, .frame = next_frame};
  for (uint32_t i = 0; i < sc->image_count; i++) {
    if (sc->views[i]) vkDestroyImageView(gpu->device, sc->views[i], NULL);
    if (r) r->render_done[r->count++] = sc->render_done[i];
    else vkDestroySemaphore(gpu->device, sc->render_done[i], NULL);
    sc->views[i] = VK_NULL_HANDLE;
    sc->render_done[i] = VK_NULL_HANDLE;
  }
  sc->image_count = 0;
  VkSwapchainKHR old = sc->swapchain;
  sc->swapchain = VK_NULL_HANDLE;
  if (r) return old;
  if (old) vkDestroySwapchainKHR(gpu->device, old, NULL);
  return VK_NULL_HANDLE;
}

bool fl_swapchain_build(fl_gpu *gpu, fl_swapchain *sc, VkSurfaceKHR surface, VkExtent2D want, uint64_t next_frame)
{
  sc->surface = surface;
  VkSurfaceCapabilitiesKHR caps;
  VkResult caps_result = vkGetPhysicalDeviceSurfaceCapabilitiesKHR(gpu->physical, surface, &caps);
  if (caps_result == VK_ERROR_SURFACE_LOST_KHR) {
    sc->surface_lost = true; /* the caller ends the run as if the window were closed */
    caps = (VkSurfaceCapabilitiesKHR){0};
  } else {
    FL_VK_TRY(caps_result);
  }
  VkExtent2D extent = caps.currentExtent;
  if (extent.width == UINT32_MAX) {
    extent = want;
    if (extent.width < caps.minImageExtent.width) extent.width = caps.minImageExtent.width;
    if (extent.height < caps.minImageExtent.height) extent.height = caps.minImageExtent.height;
    if (extent.width > caps.maxImageExtent.width) extent.width = caps.maxImageExtent.width;
    if (extent.height > caps.maxImageExtent.height) extent.height = caps.maxImageExtent.height;
  }
  /* The old swapchain stays valid as oldSwapchain below, retired, until its presents are done. */
  VkSwapchainKHR old = retire(gpu, sc, next_frame);
  if (extent.width == 0 || extent.height == 0) {
    sc->extent = (VkExtent2D){0, 0};
    return true;
  }
  VkSurfaceFormatKHR format = choose_format(gpu, surface);
  uint32_t count = caps.minImageCount + 1;
  if (caps.maxImageCount && count > caps.maxImageCount) count = caps.maxImageCount;
  if (count > FL_SWAPCHAIN_MAX_IMAGES) count = FL_SWAPCHAIN_MAX_IMAGES;
  VkImageUsageFlags usage = VK_IMAGE_USAGE_COLOR_ATTACHMENT_BIT;
  if (caps.supportedUsageFlags & VK_IMAGE_USAGE_TRANSFER_SRC_BIT) usage |= VK_IMAGE_USAGE_TRANSFER_SRC_BIT;
  VkSwapchainCreateInfoKHR info = {
      .sType = VK_STRUCTURE_TYPE_SWAPCHAIN_CREATE_INFO_KHR,
      .surface = surface,
      .minImageCount = count,
      .imageFormat = format.format,
      .imageColorSpace = format.colorSpace,
      .imageExtent = extent,
      .imageArrayLayers = 1,
      .imageUsage = usage,
      .imageSharingMode = VK_SHARING_MODE_EXCLUSIVE,
      .preTransform = caps.currentTransform,
      .compositeAlpha = VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR,
      .presentMode = VK_PRESENT_MODE_FIFO_KHR,
      .clipped = VK_TRUE,
      .oldSwapchain = old,
  };
  if (!(caps.supportedCompositeAlpha & VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR))
    info.compositeAlpha = VK_COMPOSITE_ALPHA_INHERIT_BIT_KHR;
  VkResult r = vkCreateSwapchainKHR(gpu->device, &info, NULL, &sc->swapchain);
  if (r != VK_SUCCESS) {
    sc->swapchain = VK_NULL_HANDLE;
    return fl_vk_fail(r, "vkCreateSwapchainKHR", __FILE__, __LINE__);
  }
  sc->format = format.format;
  sc->extent = extent;
  sc->generation++;
  FL_VK_TRY(vkGetSwapchainImagesKHR(gpu->device, sc->swapchain, &sc->image_count, NULL));
  if (sc->image_count > FL_SWAPCHAIN_MAX_IMAGES) sc->image_count = FL_SWAPCHAIN_MAX_IMAGES;
  FL_VK_TRY(vkGetSwapchainImagesKHR(gpu->device, sc->swapchain, &sc->image_count, sc->images));
  for (uint32_t i = 0; i < sc->image_count; i++) {
    VkImageViewCreateInfo view = {
        .sType = VK_STRUCTURE_TYPE_IMAGE_VIEW_CREATE_INFO,
        .image = sc->images[i],
        .viewType = VK_IMAGE_VIEW_TYPE_2D,
        .format = sc->format,
        .subresourceRange = {VK_IMAGE_ASPECT_COLOR_BIT, 0, 1, 0, 1},
    };
    FL_VK_TRY(vkCreateImageView(gpu->device, &view, NULL, &sc->views[i]));
    VkSemaphoreCreateInfo si = {.sType = VK_STRUCTURE_TYPE_SEMAPHORE_CREATE_INFO};
    FL_VK_TRY(vkCreateSemaphore(gpu->device, &si, NULL, &sc->render_done[i]));
    fl_gpu_set_name(gpu, VK_OBJECT_TYPE_IMAGE, (uint64_t)sc->images[i], "swapchain image %u", i);
  }
  return true;
}

void fl_swapchain_destroy(fl_gpu *gpu, fl_swapchain *sc)
{
  retire(gpu, sc, UINT64_MAX - 1);
  fl_swapchain_collect(gpu, sc, UINT64_MAX);
  sc->extent = (VkExtent2D){0, 0};
}
