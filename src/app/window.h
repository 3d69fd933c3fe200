/* app/window: the GLFW window, its Vulkan surface, and the input the app
 * reads each frame (keys pressed since the last poll, drag and wheel deltas). */
#pragma once
#include <stdbool.h>
#include <stdint.h>
#include <volk.h>

typedef struct GLFWwindow GLFWwindow;

typedef struct {
  bool quit, pause, step, reset, next_scene, toggle_overlay, screenshot, toggle_wireframe;
  bool toggle_snow_view;      /* V: the next snow look (surface, particles, volume) */
  bool renderdoc_capture;     /* C: capture the next frame when running under RenderDoc */
  bool grab_start, grab_end;  /* right button pressed / released this frame */
  float drag_dx, drag_dy, wheel;
} fl_input;

typedef struct {
  GLFWwindow *window;
  VkSurfaceKHR surface;
  fl_input input;
  double last_x, last_y;     /* the cursor, in window pixels */
  bool dragging, grabbing;
} fl_window;

/* Presses the keys that a script (FLURRY_KEYS: "FRAME:KEY,FRAME:KEY...", keys by
 * name: esc space s r n tab h f1 p f12 w v) types at `frame`, as if typed by hand.
 * False, with the error recorded, for a malformed script. */
bool fl_input_script(fl_input *in, const char *script, uint64_t frame);
/* Initializes GLFW; false (no error recorded) when there is no display. */
bool fl_window_system_init(void);
/* The instance extensions the window system needs. */
const char **fl_window_instance_extensions(uint32_t *count);
/* Whether a queue family can present (for device selection). */
bool fl_window_present_support(VkInstance instance, VkPhysicalDevice device, uint32_t family);
/* Opens the window and creates its surface. */
bool fl_window_create(fl_window *w, VkInstance instance, uint32_t width, uint32_t height, const char *title);
void fl_window_destroy(fl_window *w, VkInstance instance);
/* Polls events into w->input (cleared first); a window closed or destroyed by
 * another X client sets input.quit. */
void fl_window_poll(fl_window *w);
/* True once another X client destroyed the window (the run then ends as if closed). */
bool fl_window_lost(void);
/* The cursor position scaled to the framebuffer's pixels. */
void fl_window_cursor(const fl_window *w, float *x, float *y);
/* The framebuffer size in pixels (0x0 when minimized). */
void fl_window_size(const fl_window *w, uint32_t *width, uint32_t *height);
/* Resizes the window (tests use it to exercise swapchain recreation). */
void fl_window_set_size(fl_window *w, uint32_t width, uint32_t height);
void fl_window_set_title(fl_window *w, const char *title);
void fl_window_system_shutdown(void);
