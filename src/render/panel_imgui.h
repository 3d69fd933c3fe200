/* render/panel_imgui: the C side of the Dear ImGui bridge (panel_imgui.cpp,
 * the project's only C++): one ImGui context, its GLFW backend for a window's
 * input, its Vulkan backend drawing into the renderer's render pass, and the
 * panel's widgets drawn from an fl_panel_model. Knows Vulkan and GLFW types
 * only; render/panel.c gives it the device. */
#pragma once
#include "render/panel_model.h"

#include <volk.h>

#ifdef __cplusplus
extern "C" {
#endif

struct GLFWwindow;

typedef struct {
  VkInstance instance;
  VkPhysicalDevice physical;
  VkDevice device;
  uint32_t queue_family;
  VkQueue queue;
  VkDescriptorPool pool;        /* holds the font's combined image sampler */
  VkRenderPass render_pass;     /* subpass 0, one sample */
  uint32_t image_count;         /* frames in flight: the backend's vertex buffers rotate over them */
  bool srgb;                    /* the colour attachment is sRGB: ImGui's colours are made linear */
  PFN_vkGetInstanceProcAddr get_instance_proc_addr;
} fl_panel_vk;

/* Creates the ImGui context; `window` (NULL: headless) gets the GLFW backend. False: out of memory. */
bool fl_panel_imgui_create(struct GLFWwindow *window);
void fl_panel_imgui_destroy(void);
/* Starts the Vulkan backend for `vk` (after fl_panel_imgui_detach for a new render pass). */
bool fl_panel_imgui_attach(const fl_panel_vk *vk);
/* Records the font atlas upload into `cmd`; after its submission completes, call ..._fonts_uploaded. */
bool fl_panel_imgui_upload_fonts(VkCommandBuffer cmd);
void fl_panel_imgui_fonts_uploaded(void);
void fl_panel_imgui_detach(void);
/* Lays out one frame of the panel for a `width` x `height` view, `dt` seconds
 * after the last; writes what the user did into `out`. */
void fl_panel_imgui_build(const fl_panel_model *m, float width, float height, float dt, fl_panel_actions *out);
/* Records the frame's draws into `cmd`, inside the render pass it was attached to. */
void fl_panel_imgui_record(VkCommandBuffer cmd);
/* True while the mouse is over the panel or dragging one of its widgets. */
bool fl_panel_imgui_wants_mouse(void);
/* A scripted click (tests): presses the left button over the widget `target`
 * as last drawn (at `fx` of its width, 0..1), and releases it a frame later.
 * Widgets: "pause", "step", "reset", "header:NAME" (a section: Scenes,
 * Simulation, GPU passes, Keys), "scene:NAME", "knob:KEY" (KEY the
 * knob's --set path, with ".N" for a vector component). False when the last
 * frame drew no such widget. */
bool fl_panel_imgui_click(const char *target, float fx);
/* How many pass rows and which scene the last frame showed (tests). */
uint32_t fl_panel_imgui_rows_shown(void);
const char *fl_panel_imgui_title_shown(void);
/* The x (pixels) of the panel's right side as last drawn; 0 before the first
 * frame and while it is collapsed (the view then has the whole width). */
float fl_panel_imgui_right_edge(void);

#ifdef __cplusplus
}
#endif
