/* render/panel: the UI panel's device side: the descriptor pool of Dear
 * ImGui's Vulkan backend, its start for the renderer's render pass (again
 * after a format change), and the font upload. The widgets are in
 * render/panel_imgui.h; the renderer records the panel's draws inside its
 * render pass as the timed pass `render/panel`. */
#pragma once
#include "gpu/gpu.h"
#include "render/panel_imgui.h"

typedef struct {
  fl_gpu *gpu;
  VkDescriptorPool pool;
  bool created;                 /* the ImGui context exists */
  bool attached;                /* the Vulkan backend runs for a render pass */
} fl_panel;

/* Creates the ImGui context (with `window`'s input; NULL: headless). */
bool fl_panel_create(fl_gpu *gpu, struct GLFWwindow *window, fl_panel *p);
/* Starts (or restarts) the Vulkan backend for `render_pass` with a colour attachment of `format`,
 * and uploads the font (a one-time submission: at start and after a format change only). */
bool fl_panel_attach(fl_panel *p, VkRenderPass render_pass, VkFormat format);
/* Frees everything; the device must be done with the panel's draws. Accepts a zeroed panel. */
void fl_panel_destroy(fl_panel *p);
