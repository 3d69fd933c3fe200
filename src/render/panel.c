/* render/panel: Dear ImGui's Vulkan backend on the project's device (see panel.h). */
#include "render/panel.h"

#include "core/log.h"

#include <string.h>

static bool is_srgb(VkFormat f)
{
  return f == VK_FORMAT_R8G8B8A8_SRGB || f == VK_FORMAT_B8G8R8A8_SRGB || f == VK_FORMAT_A8B8G8R8_SRGB_PACK32;
}

bool fl_panel_create(fl_gpu *gpu, struct GLFWwindow *window, fl_panel *p)
{
  memset(p, 0, sizeof *p);
  p->gpu = gpu;
  if (!fl_panel_imgui_create(window)) {
    fl_panel_imgui_destroy();
    return fl_error_set("panel: Dear ImGui could not start%s", window ? " on the window" : "");
  }
  p->created = true;
  VkDescriptorPoolSize size = {VK_DESCRIPTOR_TYPE_COMBINED_IMAGE_SAMPLER, 1};
  VkDescriptorPoolCreateInfo info = {.sType = VK_STRUCTURE_TYPE_DESCRIPTOR_POOL_CREATE_INFO,
                                     .flags = VK_DESCRIPTOR_POOL_CREATE_FREE_DESCRIPTOR_SET_BIT, .maxSets = 1,
                                     .poolSizeCount = 1, .pPoolSizes = &size};
  FL_VK_TRY(vkCreateDescriptorPool(gpu->device, &info, NULL, &p->pool));
  return true;
}

bool fl_panel_attach(fl_panel *p, VkRenderPass render_pass, VkFormat format)
{
  if (p->attached) {
    fl_panel_imgui_detach();
    p->attached = false;
  }
  fl_panel_vk vk = {.instance = p->gpu->instance, .physical = p->gpu->physical, .device = p->gpu->device,
                    .queue_family = p->gpu->graphics_family, .queue = p->gpu->graphics_queue, .pool = p->pool,
                    .render_pass = render_pass, .image_count = FL_GPU_FRAMES_IN_FLIGHT, .srgb = is_srgb(format),
                    .get_instance_proc_addr = vkGetInstanceProcAddr};
  if (!fl_panel_imgui_attach(&vk)) return fl_error_set("panel: the Dear ImGui Vulkan backend could not start");
  p->attached = true;
  VkCommandBuffer cmd;
  if (!fl_gpu_begin_once(p->gpu, &cmd)) return false;
  if (!fl_panel_imgui_upload_fonts(cmd)) {
    fl_gpu_end_once(p->gpu, cmd);
    return fl_error_set("panel: the font atlas could not be uploaded");
  }
  if (!fl_gpu_end_once(p->gpu, cmd)) return false;
  fl_panel_imgui_fonts_uploaded();
  return true;
}

void fl_panel_destroy(fl_panel *p)
{
  if (p->created) fl_panel_imgui_destroy();
  if (p->pool) vkDestroyDescriptorPool(p->gpu->device, p->pool, NULL);
  memset(p, 0, sizeof *p);
}
