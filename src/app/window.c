/* app/window: GLFW glue. */
#include "app/window.h"

#include "core/log.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <string.h>

static void on_glfw_error(int code, const char *text) { fl_debug("glfw %d: %s", code, text); }

bool fl_window_system_init(void)
{
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return false;
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    return false;
  }
  return true;
}

const char **fl_window_instance_extensions(uint32_t *count) { return glfwGetRequiredInstanceExtensions(count); }

bool fl_window_present_support(VkInstance instance, VkPhysicalDevice device, uint32_t family)
{
  return glfwGetPhysicalDevicePresentationSupport(instance, device, family) == GLFW_TRUE;
}

static void on_key(GLFWwindow *win, int key, int scancode, int action, int mods)
{
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  fl_input *in = &((fl_window *)glfwGetWindowUserPointer(win))->input;
  switch (key) {
  case GLFW_KEY_ESCAPE: in->quit = true; break;
  case GLFW_KEY_SPACE: in->pause = true; break;
  case GLFW_KEY_S: in->step = true; break;
  case GLFW_KEY_R: in->reset = true; break;
  case GLFW_KEY_N:
  case GLFW_KEY_TAB: in->next_scene = true; break;
  case GLFW_KEY_H:
  case GLFW_KEY_F1: in->toggle_overlay = true; break;
  case GLFW_KEY_P:
  case GLFW_KEY_F12: in->screenshot = true; break;
  case GLFW_KEY_W: in->toggle_wireframe = true; break;
  case GLFW_KEY_V: in->toggle_snow_view = true; break;
  case GLFW_KEY_C: in->renderdoc_capture = true; break;
  default: break;
  }
}

static void on_button(GLFWwindow *win, int button, int action, int mods)
{
  fl_window *w = glfwGetWindowUserPointer(win);
  glfwGetCursorPos(win, &w->last_x, &w->last_y);
  if (button == GLFW_MOUSE_BUTTON_RIGHT) {
    w->grabbing = action == GLFW_PRESS;
    if (action == GLFW_PRESS) w->input.grab_start = true;
    else w->input.grab_end = true;
    return;
  }
  if (button == GLFW_MOUSE_BUTTON_LEFT) w->dragging = action == GLFW_PRESS;
}

static void on_cursor(GLFWwindow *win, double x, double y)
{
  fl_window *w = glfwGetWindowUserPointer(win);
  if (w->dragging) {
    w->input.drag_dx += (float)(x - w->last_x);
    w->input.drag_dy += (float)(y - w->last_y);
  }
  w->last_x = x;
  w->last_y = y;
}

static void on_scroll(GLFWwindow *win, double dx, double dy)
{
  ((fl_window *)glfwGetWindowUserPointer(win))->input.wheel += (float)dy;
}

bool fl_window_create(fl_window *w, VkInstance instance, uint32_t width, uint32_t height, const char *title)
{
  memset(w, 0, sizeof *w);
  glfwWindowHint(GLFW_CLIENT_API, GLFW_NO_API);
  glfwWindowHint(GLFW_RESIZABLE, GLFW_TRUE);
  w->window = glfwCreateWindow((int)width, (int)height, title, NULL, NULL);
  if (!w->window) return fl_error_set("cannot open a %ux%u window", width, height);
  glfwSetWindowUserPointer(w->window, w);
  glfwSetKeyCallback(w->window, on_key);
  glfwSetMouseButtonCallback(w->window, on_button);
  glfwSetCursorPosCallback(w->window, on_cursor);
  glfwSetScrollCallback(w->window, on_scroll);
  VkResult r = glfwCreateWindowSurface(instance, w->window, NULL, &w->surface);
  if (r != VK_SUCCESS) return fl_error_set("glfwCreateWindowSurface returned %d", (int)r);
  return true;
}

void fl_window_destroy(fl_window *w, VkInstance instance)
{
  if (w->surface) vkDestroySurfaceKHR(instance, w->surface, NULL);
  if (w->window) glfwDestroyWindow(w->window);
  memset(w, 0, sizeof *w);
}

void fl_window_poll(fl_window *w)
{
  memset(&w->input, 0, sizeof w->input);
  glfwPollEvents();
  if (glfwWindowShouldClose(w->window)) w->input.quit = true;
}

void fl_window_cursor(const fl_window *w, float *x, float *y)
{
  int ww = 1, wh = 1, fw = 1, fh = 1;
  glfwGetWindowSize(w->window, &ww, &wh);
  glfwGetFramebufferSize(w->window, &fw, &fh);
  *x = (float)(w->last_x * fw / (ww > 0 ? ww : 1));
  *y = (float)(w->last_y * fh / (wh > 0 ? wh : 1));
}

void fl_window_size(const fl_window *w, uint32_t *width, uint32_t *height)
{
  int fw = 0, fh = 0;
  glfwGetFramebufferSize(w->window, &fw, &fh);
  *width = fw > 0 ? (uint32_t)fw : 0;
  *height = fh > 0 ? (uint32_t)fh : 0;
}

void fl_window_set_size(fl_window *w, uint32_t width, uint32_t height)
{
  glfwSetWindowSize(w->window, (int)width, (int)height);
}

void fl_window_set_title(fl_window *w, const char *title) { glfwSetWindowTitle(w->window, title); }

void fl_window_system_shutdown(void) { glfwTerminate(); }
