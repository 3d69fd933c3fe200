/* app/window: GLFW glue, and the X error handler that turns a window destroyed
 * by another X client into a quit. */
#include "app/window.h"

#include "core/log.h"

#define GLFW_INCLUDE_NONE
#include <GLFW/glfw3.h>
#include <X11/Xlib.h>
#include <stdlib.h>
#include <string.h>

static void on_glfw_error(int code, const char *text) { fl_debug("glfw %d: %s", code, text); }

static bool g_window_lost; /* the window (or drawable) is gone: BadWindow / BadDrawable */

/* Xlib's default handler prints and exit(1)s, skipping teardown and the report.
 * Ours records a vanished window (another client destroyed it, as xdotool
 * windowclose does) so the frame loop ends as if it were closed, and logs the rest. */
static int on_x_error(Display *display, XErrorEvent *e)
{
  if (e->error_code == BadWindow || e->error_code == BadDrawable) {
    if (!g_window_lost) fl_warn("the window was destroyed by another program: ending the run");
    g_window_lost = true;
    return 0;
  }
  char text[160];
  XGetErrorText(display, e->error_code, text, sizeof text);
  fl_warn("X error: %s (request %u.%u)", text, (unsigned)e->request_code, (unsigned)e->minor_code);
  return 0;
}

bool fl_window_system_init(void)
{
  glfwSetErrorCallback(on_glfw_error);
  if (!glfwInit()) return false;
  if (!glfwVulkanSupported()) {
    glfwTerminate();
    return false;
  }
  XSetErrorHandler(on_x_error);
  return true;
}

const char **fl_window_instance_extensions(uint32_t *count) { return glfwGetRequiredInstanceExtensions(count); }

bool fl_window_present_support(VkInstance instance, VkPhysicalDevice device, uint32_t family)
{
  return glfwGetPhysicalDevicePresentationSupport(instance, device, family) == GLFW_TRUE;
}

/* The keys the app reads, by GLFW key and by the name scripts use (FLURRY_KEYS). */
static const struct {
  int key;
  const char *name;
} g_keys[] = {{GLFW_KEY_ESCAPE, "esc"}, {GLFW_KEY_SPACE, "space"}, {GLFW_KEY_S, "s"},   {GLFW_KEY_R, "r"},
              {GLFW_KEY_N, "n"},        {GLFW_KEY_TAB, "tab"},     {GLFW_KEY_H, "h"},   {GLFW_KEY_F1, "f1"},
              {GLFW_KEY_P, "p"},        {GLFW_KEY_F12, "f12"},     {GLFW_KEY_W, "w"},   {GLFW_KEY_V, "v"}};

static void press(fl_input *in, int key)
{
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

static void on_key(GLFWwindow *win, int key, int scancode, int action, int mods)
{
  if (action != GLFW_PRESS && action != GLFW_REPEAT) return;
  press(&((fl_window *)glfwGetWindowUserPointer(win))->input, key);
}

bool fl_input_script(fl_input *in, const char *script, uint64_t frame)
{
  const char *p = script;
  while (*p) {
    char *end;
    unsigned long long at = strtoull(p, &end, 10);
    if (end == p || *end != ':') return fl_error_set("FLURRY_KEYS: expected FRAME:KEY[,FRAME:KEY...] at \"%s\"", p);
    const char *name = end + 1;
    size_t len = strcspn(name, ",");
    int key = -1;
    for (size_t k = 0; k < sizeof g_keys / sizeof g_keys[0]; k++)
      if (strlen(g_keys[k].name) == len && strncmp(g_keys[k].name, name, len) == 0) key = g_keys[k].key;
    if (key < 0) return fl_error_set("FLURRY_KEYS: unknown key \"%.*s\" (keys: esc space s r n tab h f1 p f12 w v)",
                                     (int)len, name);
    if (at == frame) press(in, key);
    p = name[len] ? name + len + 1 : name + len;
  }
  return true;
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
  XSetErrorHandler(on_x_error); /* destroying a window another client destroyed is BadWindow */
  if (w->surface) vkDestroySurfaceKHR(instance, w->surface, NULL);
  if (w->window) glfwDestroyWindow(w->window);
  memset(w, 0, sizeof *w);
}

void fl_window_poll(fl_window *w)
{
  memset(&w->input, 0, sizeof w->input);
  /* GLFW 3.3 sets the handler back to Xlib's default after the calls that grab it. */
  XSetErrorHandler(on_x_error);
  glfwPollEvents(); /* reads the errors that have arrived, as events */
  if (glfwWindowShouldClose(w->window) || g_window_lost) w->input.quit = true;
}

bool fl_window_lost(void) { return g_window_lost; }

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

void fl_window_system_shutdown(void)
{
  XSetErrorHandler(on_x_error);
  glfwTerminate();
}
