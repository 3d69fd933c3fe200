/* app/app: the program: options -> scene -> device -> world and renderer ->
 * the frame loop (windowed or headless) -> report, dump, screenshot.
 *
 * The loop never waits for the device to idle: each frame waits only for the
 * fence of its own slot (the frame two before it), reads that frame's
 * timestamps and screenshot there, and records the next one (gpu/frames.h). */
#define _POSIX_C_SOURCE 200809L
#include "app/app.h"

#include "app/bench.h"
#include "app/capture.h"
#include "app/divergence_view.h"
#include "app/overlay_text.h"
#include "app/panel_state.h"
#include "app/quality.h"
#include "app/renderdoc.h"
#include "app/report.h"
#include "app/window.h"
#include "core/env.h"
#include "core/file.h"
#include "core/log.h"
#include "gpu/frames.h"
#include "gpu/swapchain.h"
#include "render/camera.h"
#include "render/panel.h"
#include "render/renderer.h"
#include "render/targets.h"
#include "scene/scene_list.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#define HEADLESS_DEFAULT_FRAMES 240
#define DEFAULT_SCREENSHOT "flurry-screenshot.png" /* headless, with no --frames, --screenshot or --record */
#define BENCH_DEFAULT_FRAMES 120
#define PROFILE_DETAIL_LLVMPIPE 4 /* llvmpipe times the passes in one frame of this many (docs/PROFILING.md) */

typedef struct {
  fl_options opt;
  bool windowed;
  fl_gpu gpu;
  fl_window window;
  fl_swapchain swapchain;
  bool swapchain_stale;
  fl_frames frames;
  fl_profiler prof;
  fl_trace *trace;         /* --trace FILE.json (NULL: none) */
  fl_renderer renderer;
  fl_render_targets targets;
  fl_capture capture;
  fl_scene scene;
  char scene_arg[512];     /* what the current scene was loaded from (name or path) */
  fl_world *world;
  fl_camera camera;
  bool paused, show_overlay;
  fl_snow_look snow_look;  /* how snow is drawn (--snow-view, key V) */
  int64_t frame_limit;
  uint64_t frames_drawn, record_index;
  double last_frame_ms;
  int64_t resize_at_frame; /* FLURRY_RESIZE_AT_FRAME: the window test's resize */
  const char *key_script;  /* FLURRY_KEYS: keys typed at given frames (window tests) */
  const char *overlay_dump; /* FLURRY_OVERLAY_DUMP: the last frame's overlay text goes there */
  float grab_distance;     /* along the ray, while a particle is held */
  unsigned shot_number;    /* the last flurry-NNNN.png that key P wrote */
  fl_marker markers[FL_MARKERS_MAX + 1]; /* the scene's labels and pins, then the grab point */
  uint32_t marker_count;
  int64_t renderdoc_frame; /* FLURRY_RENDERDOC_FRAME: the frame to capture under RenderDoc (-1: none) */
  bool renderdoc_next;     /* key C: capture the next frame */
  fl_quality quality;      /* --quality, auto resolved from the device type */
  fl_panel panel;          /* the UI panel (Dear ImGui), shown where the overlay was (key H) */
  fl_panel_state panel_state;
  fl_panel_actions panel_actions; /* what the user did in the last frame's panel: applied before the next */
  const char *panel_clicks; /* FLURRY_PANEL_CLICKS: clicks on the panel's widgets at given frames (tests) */
} fl_app;

static double now_ms(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec * 1e-6;
}

/* Replaces the world with one made from `scene` (loaded from `arg`). */
static bool switch_world(fl_app *app, const fl_scene *scene, const char *arg)
{
  /* In-flight frames still read the old world's buffers: wait for their fences. */
  if (!fl_frames_wait_all(&app->gpu, &app->frames)) return false;
  fl_renderer_forget_views(&app->renderer);
  fl_profiler_forget(&app->prof); /* the overlay and report describe the current scene only */
  fl_world_destroy(app->world);
  app->world = NULL;
  app->scene = *scene;
  snprintf(app->scene_arg, sizeof app->scene_arg, "%s", arg);
  if (!fl_world_create(&app->gpu, &app->scene, &app->world)) return false;
  fl_camera_look(&app->camera, scene->camera.eye, scene->camera.target);
  app->marker_count = fl_markers_from_scene(scene, app->markers, FL_MARKERS_MAX);
  fl_info("scene %s (%s): %llu particles, %u substeps of %.3g ms", arg, scene->name,
          (unsigned long long)fl_world_particle_count(app->world), scene->sim.substeps,
          1e3 * scene->sim.dt / scene->sim.substeps);
  return true;
}

/* Loads a scene and switches to it; --set overrides apply to the scene named on the command line only,
 * then the panel's sliders' overrides (kept while the scene stays the same). */
static bool load_world(fl_app *app, const char *scene_name, bool with_overrides)
{
  const char *sets[FL_CLI_MAX_SETS + FL_PANEL_MAX_KNOBS];
  int n = 0;
  for (int i = 0; with_overrides && i < app->opt.set_count; i++) sets[n++] = app->opt.sets[i];
  for (int i = 0; i < app->panel_state.set_count; i++) sets[n++] = app->panel_state.sets[i];
  fl_scene scene;
  if (!fl_scene_load(scene_name, sets, n, &scene)) return false;
  fl_quality_apply(app->quality, &scene);
  return switch_world(app, &scene, scene_name);
}

/* (Re)builds the swapchain and what depends on it; a minimized window leaves extent 0. */
static bool rebuild_swapchain(fl_app *app)
{
  uint32_t w, h;
  fl_window_size(&app->window, &w, &h);
  if (!fl_frames_wait_all(&app->gpu, &app->frames)) return false;
  fl_targets_destroy(&app->gpu, &app->targets);
  fl_swapchain_collect(&app->gpu, &app->swapchain, app->frames.done);
  if (!fl_swapchain_build(&app->gpu, &app->swapchain, app->window.surface, (VkExtent2D){w, h}, app->frames.frame))
    return false;
  app->swapchain_stale = false;
  if (app->swapchain.extent.width == 0) return true;
  if (app->renderer.color_format != app->swapchain.format) {
    fl_renderer_destroy(&app->renderer);
    if (!fl_renderer_create(&app->gpu, app->swapchain.format, VK_IMAGE_LAYOUT_PRESENT_SRC_KHR, &app->renderer) ||
        !fl_panel_attach(&app->panel, app->renderer.render_pass, app->renderer.color_format))
      return false;
  }
  fl_capture_resize(&app->capture, app->swapchain.extent, app->swapchain.format);
  return fl_targets_create_swapchain(&app->gpu, &app->renderer, &app->swapchain, &app->targets);
}

static bool setup(fl_app *app)
{
  const fl_options *o = &app->opt;
  fl_scene scene; /* bad input fails here, before any device work */
  if (o->screenshot && !fl_png_path_check("--screenshot", o->screenshot)) return false;
  if (o->record_dir && mkdir(o->record_dir, 0755) != 0 && errno != EEXIST)
    return fl_error_set("--record: cannot create %s: %s", o->record_dir, strerror(errno));
  if (!fl_scene_load(o->scene, o->sets, o->set_count, &scene)) return false;
  fl_input scripted;
  if (app->key_script && !fl_input_script(&scripted, app->key_script, UINT64_MAX)) return false;
  char target[96];
  float fx;
  if (app->panel_clicks && fl_panel_script_at(app->panel_clicks, UINT64_MAX, target, sizeof target, &fx) < 0)
    return false;
  app->windowed = !o->headless;
  if (app->windowed && !fl_window_system_init()) {
    fl_info("no display found: rendering headless");
    app->windowed = false;
  }
  /* The headless demo says where it drew: its default screenshot is checked now, as a --screenshot
   * is when the command line is read (cli.c), not after the run. */
  if (!app->windowed && !o->bench && !o->screenshot && !o->record_dir && o->frames <= 0) {
    if (!fl_path_check_writable("the default screenshot (--screenshot PATH names another)", DEFAULT_SCREENSHOT, false))
      return false;
    app->opt.screenshot = DEFAULT_SCREENSHOT;
  }
  /* only the window reports a long frame as a hang (unless FLURRY_FENCE_TIMEOUT_MS asks for a limit):
   * every fence wait of a patient gpu, the frames' included, waits as long as the device needs */
  bool patient = !app->windowed || o->bench;
  fl_gpu_desc desc = {.validation = o->validation, .no_async = o->no_async, .device = o->device, .patient = patient,
                      .need_present = app->windowed, .present_support = fl_window_present_support};
  if (app->windowed) desc.instance_extensions = fl_window_instance_extensions(&desc.instance_extension_count);
  if (!fl_gpu_create(&desc, &app->gpu) || !fl_frames_create(&app->gpu, &app->frames) ||
      !fl_profiler_create(&app->gpu, &app->prof))
    return false;
  fl_quality q = FL_QUALITY_AUTO;
  if (o->quality) fl_quality_parse(o->quality, &q); /* checked by the cli */
  app->quality = q == FL_QUALITY_AUTO ? fl_quality_for_device(app->gpu.props.deviceType) : q;
  fl_info("quality %s%s", fl_quality_name(app->quality), q == FL_QUALITY_AUTO ? " (auto, from the device type)" : "");
  fl_quality_apply(app->quality, &scene);
  if (o->trace && !fl_trace_open(&app->gpu, o->trace, &app->trace)) return false;
  fl_renderdoc_attach();
  app->prof.trace = app->trace;
  /* On llvmpipe each timestamp makes the rasterizer threads flush (gpu.h, timestamp_needs_flush): timing
   * every pass of every frame cost a quarter of the frame. There the passes are timed in one frame of
   * PROFILE_DETAIL_LLVMPIPE, the frame itself in every one; --trace times every frame (its file shows
   * every pass of every frame), FLURRY_PROFILE_EVERY as asked. */
  app->prof.detail_every = app->trace                     ? 1
                           : fl_env_get()->profile_every ? (uint32_t)fl_env_get()->profile_every
                           : app->gpu.timestamp_needs_flush ? PROFILE_DETAIL_LLVMPIPE : 1;
  if (!switch_world(app, &scene, o->scene)) return false;
  char title[128];
  snprintf(title, sizeof title, "flurry - %s", app->scene.name);
  fl_panel_state_init(&app->panel_state);
  if (app->windowed) {
    return fl_window_create(&app->window, app->gpu.instance, o->width, o->height, title) &&
           fl_panel_create(&app->gpu, app->window.window, &app->panel) && rebuild_swapchain(app);
  }
  VkExtent2D extent = {o->width, o->height};
  fl_capture_resize(&app->capture, extent, VK_FORMAT_R8G8B8A8_SRGB);
  return fl_renderer_create(&app->gpu, VK_FORMAT_R8G8B8A8_SRGB, VK_IMAGE_LAYOUT_TRANSFER_SRC_OPTIMAL,
                            &app->renderer) &&
         fl_panel_create(&app->gpu, NULL, &app->panel) &&
         fl_panel_attach(&app->panel, app->renderer.render_pass, app->renderer.color_format) &&
         fl_targets_create_offscreen(&app->gpu, &app->renderer, extent, &app->targets);
}

static void fill_uniforms(const fl_app *app, VkExtent2D extent, fl_frame_uniforms *u)
{
  memset(u, 0, sizeof *u);
  fl_camera_matrices(&app->camera, (float)extent.width / (float)extent.height, u->view, u->proj);
  glm_mat4_mul(u->proj, u->view, u->view_proj);
  fl_camera_eye(&app->camera, u->eye);
  vec3 light = {0.4f, 0.85f, 0.35f};
  glm_vec3_normalize(light);
  glm_vec3_copy(light, u->light_dir);
  u->viewport[0] = (float)extent.width;
  u->viewport[1] = (float)extent.height;
  u->time = (float)app->frames_drawn * app->scene.sim.dt;
  u->ground_height = fl_world_ground_height(app->world);
  float depth_range = fl_shadow_light_matrix(light, app->scene.sim.domain_min, app->scene.sim.domain_max,
                                             u->light_view_proj);
  u->shadow_size = FL_SHADOW_SIZE;
  u->shadow_bias = 0.01f / depth_range; /* 1 cm */
  u->shadow_strength = 1.0f;
}

/* Centres the scene in the part of the view the panel leaves free (the panel
 * sits on the left): the camera's target is drawn in the middle of that part,
 * for the picture and the grab ray alike; with the panel hidden, in the middle. */
static void frame_beside_panel(fl_app *app)
{
  float width = (float)app->targets.extent.width, edge = app->show_overlay ? fl_panel_imgui_right_edge() : 0.0f;
  app->camera.shift_x = width > 0.0f && edge > 0.0f && edge < 0.5f * width ? edge / width : 0.0f;
}

/* Right button: grab the particle under the cursor, pull it while held, let go. */
static void update_grab(fl_app *app, const fl_input *in)
{
  float x, y, dir[3], eye[3];
  fl_window_cursor(&app->window, &x, &y);
  fl_camera_ray(&app->camera, x, y, (float)app->targets.extent.width, (float)app->targets.extent.height, dir);
  fl_camera_eye(&app->camera, eye);
  if (in->grab_start) fl_world_pick(app->world, eye, dir, 0.02f * app->camera.distance);
  if (in->grab_end) fl_world_release(app->world);
  if (fl_world_holding(app->world) && app->window.grabbing) {
    float target[3] = {eye[0] + app->grab_distance * dir[0], eye[1] + app->grab_distance * dir[1],
                       eye[2] + app->grab_distance * dir[2]};
    fl_world_drag_to(app->world, target);
    app->markers[app->marker_count] = (fl_marker){.kind = FL_MARKER_GRAB, .position = {target[0], target[1], target[2]}};
  }
}

/* Loads scene `next` (the current one again: a reset, with the panel's
 * overrides) in place of the current one; a scene that fails to load is a
 * warning, and the run goes on with what it had. False: nothing can run. */
static bool change_scene(fl_app *app, const char *next_name, bool *loaded)
{
  char next[512];
  snprintf(next, sizeof next, "%s", next_name);
  if (strcmp(next, app->scene_arg) != 0) app->panel_state.set_count = 0; /* the sliders' values were that scene's */
  bool original = strcmp(next, app->opt.scene) == 0;
  *loaded = load_world(app, next, original);
  if (!*loaded) {
    fl_warn("%s", fl_error_message());
    fl_error_clear();
    if (!app->world && !load_world(app, app->opt.scene, true)) return false;
  }
  if (app->windowed) {
    char title[128];
    snprintf(title, sizeof title, "flurry - %s", app->scene.name);
    fl_window_set_title(&app->window, title);
  }
  return true;
}

/* Applies what the user did in the last frame's panel: pause, step, a scene
 * clicked, reset, a slider released (the scene reloads with its value). */
static bool apply_panel(fl_app *app, bool *step)
{
  fl_panel_actions a = app->panel_actions;
  app->panel_actions = (fl_panel_actions){.switch_scene = -1, .knob = -1};
  if (a.toggle_pause) app->paused = !app->paused;
  if (a.step) *step = true;
  fl_panel_state *ps = &app->panel_state;
  bool loaded;
  if (a.switch_scene >= 0 && a.switch_scene < ps->scene_count)
    return change_scene(app, ps->scenes[a.switch_scene], &loaded);
  if (a.knob >= 0 && a.knob < FL_PANEL_MAX_KNOBS) {
    char set[FL_PANEL_SET_MAX];
    fl_panel_knob_override(&ps->knobs[a.knob], a.knob_value, set, sizeof set);
    fl_info("panel: %s", set);
    static char saved[FL_PANEL_MAX_KNOBS][FL_PANEL_SET_MAX];
    int saved_count = ps->set_count;
    memcpy(saved, ps->sets, sizeof saved);
    fl_panel_state_put(ps, set);
    if (!change_scene(app, app->scene_arg, &loaded)) return false;
    if (!loaded) { /* the scene refused the value (its warning said why): forget it */
      memcpy(ps->sets, saved, sizeof saved);
      ps->set_count = saved_count;
    }
    return true;
  }
  if (a.reset) return change_scene(app, app->scene_arg, &loaded);
  return true;
}

/* Applies the keys and mouse of this frame. Returns false to quit. */
static bool handle_input(fl_app *app, bool *step, bool *screenshot)
{
  fl_window_poll(&app->window);
  fl_input *in = &app->window.input;
  if (app->key_script) fl_input_script(in, app->key_script, app->frames_drawn); /* checked in setup */
  if (in->quit) return false;
  if (in->pause) app->paused = !app->paused;
  *step = in->step;
  *screenshot = in->screenshot;
  if (in->toggle_overlay) app->show_overlay = !app->show_overlay;
  if (in->toggle_wireframe) app->renderer.wireframe = !app->renderer.wireframe;
  if (in->toggle_snow_view) app->snow_look = fl_snow_look_next(app->snow_look);
  if (in->renderdoc_capture) app->renderdoc_next = true;
  if (app->show_overlay && fl_panel_imgui_wants_mouse()) { /* the panel has the mouse: not the camera */
    in->drag_dx = in->drag_dy = in->wheel = 0;
    in->grab_start = false;
  }
  update_grab(app, in);
  fl_camera_orbit(&app->camera, in->drag_dx, in->drag_dy);
  fl_camera_zoom(&app->camera, in->wheel);
  if (in->next_scene) {
    const fl_panel_state *ps = &app->panel_state;
    int i = 0;
    while (i < ps->scene_count && strcmp(ps->scenes[i], app->scene_arg) != 0) i++;
    bool loaded;
    if (ps->scene_count > 0 &&
        !change_scene(app, ps->scenes[i < ps->scene_count ? (i + 1) % ps->scene_count : 0], &loaded))
      return false;
  } else if (in->reset && !change_scene(app, app->scene_arg, &(bool){false})) {
    return false;
  }
  if (app->resize_at_frame >= 0 && (int64_t)app->frames_drawn == app->resize_at_frame)
    fl_window_set_size(&app->window, app->opt.width * 3 / 4, app->opt.height * 3 / 4);
  return true;
}

/* The window went away under us (another X client destroyed it): the run ends
 * as if it were closed, with its report. */
static bool window_gone(fl_app *app, bool *keep_going)
{
  if (!fl_window_lost()) fl_warn("the window's surface was lost: ending the run");
  app->swapchain.surface_lost = true;
  *keep_going = false;
  return true;
}

/* One frame: wait for the slot, simulate, draw, submit, present. */
static bool frame(fl_app *app, bool *keep_going)
{
  uint32_t slot = fl_frames_slot(&app->frames);
  if (!fl_frames_wait_slot(&app->gpu, &app->frames, slot)) return false;
  if (app->windowed) fl_swapchain_collect(&app->gpu, &app->swapchain, app->frames.done);
  fl_profiler_collect(&app->prof, slot);
  if (!fl_capture_flush(&app->capture, slot)) return false;
  char unstable[256];
  if (fl_world_collect(app->world, slot) && app->windowed && fl_world_unstable(app->world, unstable, sizeof unstable))
    fl_warn("%s", unstable); /* headless runs end with it as their error (run) */
  /* The snow spread past its grid's blocks: grow it once every frame in flight is done. */
  if (fl_world_wants_grow(app->world) && !(fl_frames_wait_all(&app->gpu, &app->frames) && fl_world_grow(app->world)))
    return false;
  float grab_distance;
  if (fl_world_pick_collect(app->world, slot, &grab_distance)) {
    app->grab_distance = grab_distance;
    if (!app->window.grabbing) fl_world_release(app->world); /* let go before the pick came back */
  }

  bool step = false, screenshot = false, panel_step = false;
  if (!apply_panel(app, &panel_step)) return false;
  frame_beside_panel(app);
  if (app->panel_clicks) { /* checked in setup */
    char target[96];
    float fx;
    if (fl_panel_script_at(app->panel_clicks, app->frames_drawn, target, sizeof target, &fx) > 0 &&
        !fl_panel_imgui_click(target, fx))
      return fl_error_set("FLURRY_PANEL_CLICKS: the panel drew no widget \"%s\" before frame %llu", target,
                          (unsigned long long)app->frames_drawn);
  }
  if (app->windowed) {
    if (!handle_input(app, &step, &screenshot)) {
      *keep_going = false;
      return true;
    }
    uint32_t w, h;
    fl_window_size(&app->window, &w, &h);
    if (app->swapchain_stale || w != app->swapchain.extent.width || h != app->swapchain.extent.height)
      if (!rebuild_swapchain(app)) return false;
    if (app->swapchain.surface_lost) return window_gone(app, keep_going);
    if (app->swapchain.extent.width == 0) { /* minimized: nothing to draw into */
      struct timespec pause = {0, 16 * 1000 * 1000};
      nanosleep(&pause, NULL);
      return true;
    }
  }

  step = step || panel_step;
  uint32_t image = 0;
  VkSemaphore acquire = VK_NULL_HANDLE, render_done = VK_NULL_HANDLE;
  if (app->windowed) {
    VkResult r = vkAcquireNextImageKHR(app->gpu.device, app->swapchain.swapchain, 5000000000ull,
                                       app->frames.acquire[slot], VK_NULL_HANDLE, &image);
    if (r == VK_ERROR_OUT_OF_DATE_KHR) {
      app->swapchain_stale = true;
      return true;
    }
    if (r == VK_ERROR_SURFACE_LOST_KHR) return window_gone(app, keep_going);
    if (r == VK_SUBOPTIMAL_KHR) app->swapchain_stale = true;
    else if (r != VK_SUCCESS) return fl_vk_fail(r, "vkAcquireNextImageKHR", __FILE__, __LINE__);
    acquire = app->frames.acquire[slot];
    render_done = app->swapchain.render_done[image];
  }

  VkCommandBuffer compute, graphics;
  bool capture = app->renderdoc_next || (int64_t)app->frames_drawn == app->renderdoc_frame;
  app->renderdoc_next = false;
  fl_renderdoc_frame_begin(app->gpu.instance, capture);
  uint64_t record_start = fl_trace_cpu_now_ns();
  if (!fl_frames_begin(&app->gpu, &app->frames, &compute, &graphics)) return false;
  fl_profiler_reset(&app->prof, slot, FL_QUEUE_COMPUTE, compute);
  fl_profiler_mark(&app->prof, slot, FL_QUEUE_COMPUTE, compute); /* the frame's start, timed or not */
  fl_rec sim = fl_world_rec(app->world, compute, &app->prof, slot);
  if (!fl_world_record_frame(app->world, &sim, !app->paused || step)) return false;

  fl_profiler_reset(&app->prof, slot, FL_QUEUE_GRAPHICS, graphics);
  fl_profiler_mark(&app->prof, slot, FL_QUEUE_GRAPHICS, graphics); /* the frame's start where compute cannot time */
  /* On one queue this barrier also orders the simulation before the drawing; with two
   * queues (or their emulation, gpu.h) only the sim timeline wait does. */
  if (!app->gpu.emulate_async) fl_cmd_compute_to_draw_barrier(graphics);
  fl_frame_uniforms uniforms;
  fill_uniforms(app, app->targets.extent, &uniforms);
  fl_render_view views[FL_SCENE_MAX_OBJECTS * 2];
  uint32_t view_count = fl_world_views(app->world, slot, views, FL_SCENE_MAX_OBJECTS * 2);
  char text[2048] = ""; /* the overlay's text: what the panel shows, for FLURRY_OVERLAY_DUMP */
  if (app->overlay_dump)
    fl_overlay_text_build(text, sizeof text, &app->scene, app->world, &app->prof, app->last_frame_ms, app->paused,
                          app->windowed);
  if (app->show_overlay) { /* the panel in place of the text overlay */
    fl_panel_model model;
    fl_panel_state_model(&app->panel_state, &app->scene, app->scene_arg, app->world, &app->prof, app->last_frame_ms,
                         app->paused, &model);
    model.quality = fl_quality_name(app->quality);
    model.help = app->windowed ? "drag: orbit  right-drag: grab  wheel: zoom\nspace: pause  s: step  r: reset  n: next\n"
                                 "h: panel  w: wireframe  v: snow view  p: screenshot"
                               : NULL;
    fl_panel_imgui_build(&model, (float)app->targets.extent.width, (float)app->targets.extent.height,
                         (float)(app->last_frame_ms * 1e-3), &app->panel_actions);
  }
  app->renderer.draw_panel = app->show_overlay;
  app->renderer.snow_look = app->snow_look;
  fl_ms_watch watch[FL_SCENE_MAX_OBJECTS]; /* mass-spring labels count resets and say when frozen */
  uint32_t watched =
      fl_ms_material_watch(fl_world_material(app->world, &fl_material_mass_spring), watch, FL_SCENE_MAX_OBJECTS);
  fl_divergence_labels(app->markers, app->marker_count, watch, watched);
  app->renderer.markers = app->markers;
  app->renderer.marker_count =
      app->marker_count + (app->windowed && fl_world_holding(app->world) && app->window.grabbing ? 1 : 0);
  fl_renderer_record(&app->renderer, graphics, slot, app->targets.framebuffers[app->windowed ? image : 0],
                     app->targets.extent, &uniforms, views, view_count, NULL, &app->prof);
  fl_profiler_mark(&app->prof, slot, FL_QUEUE_GRAPHICS, graphics); /* and its end */

  bool last = app->frame_limit > 0 && (int64_t)app->frames_drawn + 1 >= app->frame_limit;
  char path[600] = "";
  if (app->opt.record_dir)
    snprintf(path, sizeof path, "%s/frame_%05llu.png", app->opt.record_dir, (unsigned long long)app->record_index++);
  else if (screenshot) { /* key P: the next free flurry-NNNN.png, never overwriting one */
    struct stat st;
    do snprintf(path, sizeof path, "flurry-%04u.png", ++app->shot_number);
    while (stat(path, &st) == 0 && app->shot_number < 9999);
    fl_info("screenshot: %s", path);
  } else if (last && app->opt.screenshot)
    snprintf(path, sizeof path, "%s", app->opt.screenshot);
  if (last && app->overlay_dump) {
    FILE *f = fopen(app->overlay_dump, "w");
    bool written = f && fputs(text, f) >= 0 &&
                   (!app->show_overlay || fprintf(f, "\npanel scene: %s\npanel pass rows: %u\n",
                                                  fl_panel_imgui_title_shown(), fl_panel_imgui_rows_shown()) > 0);
    if (f && fclose(f) != 0) written = false;
    if (!written) return fl_error_set("cannot write %s: %s", app->overlay_dump, strerror(errno));
  }
  if (path[0] && !fl_capture_record(&app->gpu, &app->capture, graphics, slot,
                                    app->targets.images[app->windowed ? image : 0], app->renderer.final_layout, path))
    return false;
  uint64_t submit_start = fl_trace_cpu_now_ns();
  if (!fl_frames_submit(&app->gpu, &app->frames, acquire, render_done)) return false;
  fl_trace_cpu(app->trace, "record", app->frames_drawn, record_start, submit_start);
  fl_trace_cpu(app->trace, "submit", app->frames_drawn, submit_start, fl_trace_cpu_now_ns());

  if (app->windowed) {
    VkPresentInfoKHR present = {.sType = VK_STRUCTURE_TYPE_PRESENT_INFO_KHR, .waitSemaphoreCount = 1,
                                .pWaitSemaphores = &render_done, .swapchainCount = 1,
                                .pSwapchains = &app->swapchain.swapchain, .pImageIndices = &image};
    VkResult r = vkQueuePresentKHR(app->gpu.graphics_queue, &present);
    if (r == VK_ERROR_OUT_OF_DATE_KHR || r == VK_SUBOPTIMAL_KHR) app->swapchain_stale = true;
    else if (r == VK_ERROR_SURFACE_LOST_KHR) app->swapchain.surface_lost = true; /* the next frame ends the run */
    else if (r != VK_SUCCESS) return fl_vk_fail(r, "vkQueuePresentKHR", __FILE__, __LINE__);
  }
  fl_renderdoc_frame_end(app->gpu.instance, app->frames_drawn);
  app->frames_drawn++;
  if (last) *keep_going = false;
  return true;
}

static bool run_frames(fl_app *app, int64_t count)
{
  app->frame_limit = count > 0 ? (int64_t)app->frames_drawn + count : -1;
  bool keep_going = true;
  double previous = now_ms();
  while (keep_going) {
    if (!frame(app, &keep_going)) return false;
    double t = now_ms();
    app->last_frame_ms = t - previous;
    fl_panel_state_frame(&app->panel_state, app->last_frame_ms);
    previous = t;
  }
  /* Drain: the last frames' timestamps, captures and world readbacks, oldest first (a blow-up in the
   * last frames in flight must reach the health watch too). */
  if (!fl_frames_wait_all(&app->gpu, &app->frames)) return false;
  for (uint32_t k = FL_GPU_FRAMES_IN_FLIGHT; k >= 1; k--) {
    uint32_t s = (uint32_t)((app->frames.frame + FL_GPU_FRAMES_IN_FLIGHT - k) % FL_GPU_FRAMES_IN_FLIGHT);
    fl_profiler_collect(&app->prof, s);
    if (!fl_capture_flush(&app->capture, s)) return false;
    fl_world_collect(app->world, s); /* each reader skips a slot it has read (its own pending flags) */
  }
  return true;
}

static bool run(fl_app *app, cJSON **report)
{
  const fl_options *o = &app->opt;
  fl_report_info info = {.bench = o->bench, .quality = fl_quality_name(app->quality)};
  if (o->bench) {
    if (!run_frames(app, o->warmup > 0 ? o->warmup : 1)) return false;
    fl_profiler_clear(&app->prof);
    int64_t measured = o->frames > 0 ? o->frames : BENCH_DEFAULT_FRAMES;
    if (!run_frames(app, measured)) return false;
    info.frames = (uint64_t)measured;
    info.ceiling_bytes = fl_bench_copy_bytes(&app->gpu, fl_world_largest_buffer(app->world)); /* what it copies */
    if (!fl_bench_copy_ceiling(&app->gpu, info.ceiling_bytes, 16, &info.ceiling_gbps)) return false;
  } else {
    int64_t n = o->frames > 0 ? o->frames : (app->windowed ? -1 : HEADLESS_DEFAULT_FRAMES);
    if (!run_frames(app, n)) return false;
    info.frames = app->frames_drawn;
  }
  if (app->opt.screenshot && !o->record_dir) fl_info("screenshot written to %s", app->opt.screenshot);
  if (o->record_dir) fl_info("%llu frames written to %s/", (unsigned long long)app->record_index, o->record_dir);
  if (o->dump && !fl_dump_write(app->world, o->dump)) return false;
  if (!fl_report_print_run_lines(app->world, &app->prof)) return false;
  if (o->report || o->bench) *report = fl_report_build(&app->gpu, &app->prof, app->world, &info);
  if (o->bench) fl_overlay_text_print_bench(&app->prof, &info, app->world);
  char unstable[256];
  if (!app->windowed && fl_world_unstable(app->world, unstable, sizeof unstable)) return fl_error_set("%s", unstable);
  return true;
}

/* Every exit path comes here: the device finishes what it was given (also after a
 * timeout or a lost device) before anything it may still use is destroyed. */
static void teardown(fl_app *app)
{
  fl_gpu_wait_idle(&app->gpu);
  fl_frames_destroy(&app->gpu, &app->frames);
  fl_capture_destroy(&app->gpu, &app->capture);
  fl_targets_destroy(&app->gpu, &app->targets);
  fl_panel_destroy(&app->panel);
  fl_renderer_destroy(&app->renderer);
  fl_world_destroy(app->world);
  app->world = NULL;
  fl_profiler_destroy(&app->prof);
  if (app->gpu.device) fl_swapchain_destroy(&app->gpu, &app->swapchain);
  if (app->gpu.instance) fl_window_destroy(&app->window, app->gpu.instance);
  fl_gpu_destroy(&app->gpu);
  if (app->windowed) fl_window_system_shutdown();
}

int fl_app_run(const fl_options *options)
{
  if (options->help) {
    fl_cli_print_help();
    return 0;
  }
  if (options->list_scenes) return fl_scene_list_builtin() ? 0 : (fl_error_print(), 1);
  if (options->list_devices) return fl_gpu_list_devices(options->verbose) ? 0 : (fl_error_print(), 1);

  signal(SIGXFSZ, SIG_IGN); /* a file size limit is a failed write (EFBIG) to report, not a kill */
  fl_app *app = calloc(1, sizeof *app);
  if (!app) return 1;
  app->opt = *options;
  app->show_overlay = !options->no_overlay;
  app->snow_look = options->snow_look;
  app->resize_at_frame = fl_env_get()->resize_at_frame;
  app->renderdoc_frame = fl_env_get()->renderdoc_frame;
  app->key_script = getenv("FLURRY_KEYS");
  app->overlay_dump = getenv("FLURRY_OVERLAY_DUMP");
  app->panel_clicks = getenv("FLURRY_PANEL_CLICKS");
  app->panel_actions = (fl_panel_actions){.switch_scene = -1, .knob = -1};
  cJSON *report = NULL;
  bool ok = setup(app) && run(app, &report);
  if (ok && app->trace) fl_info("trace written to %s", options->trace);
  ok = fl_trace_close(app->trace) && ok;
  if (!ok) {
    fl_error_print();
    /* The report says what happened; a run that got as far as a device reports it. */
    if (options->report && app->gpu.device && !report)
      report = fl_report_build_failed(&app->gpu, app->scene.name, app->frames_drawn, fl_error_message());
    fl_error_clear();
  }
  teardown(app);
  fl_warn_summary(); /* the repeated warnings, one line each */
  fl_validation_counts counts = app->gpu.counts;
  if (report) {
    if (options->report && !fl_report_write(report, &counts, options->report)) {
      fl_error_print();
      ok = false;
    }
    cJSON_Delete(report);
  }
  int code = ok ? 0 : 1;
  if (options->validation) {
    fprintf(stderr, "flurry: validation: %llu errors, %llu warnings\n", (unsigned long long)counts.errors,
            (unsigned long long)counts.warnings);
    if (counts.errors && code == 0) code = 3;
  }
  free(app);
  return code;
}
