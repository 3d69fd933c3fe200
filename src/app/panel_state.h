/* app/panel_state: the UI panel's model (render/panel_model.h) from the app's
 * state: the current scene's passes sorted, the frame-time history, the
 * built-in scenes, and the scene's main parameters as sliders ("knobs"),
 * each of which writes a --set override the scene is reloaded with. */
#pragma once
#include <stddef.h>

#include "gpu/profiler.h"
#include "render/panel_model.h"
#include "scene/scene.h"
#include "sim/world.h"

#define FL_PANEL_SET_MAX 160    /* one "KEY=VALUE" override */
#define FL_PANEL_SCENES_MAX 64

typedef struct {
  float history[FL_PANEL_HISTORY]; /* frame times, a ring */
  uint32_t history_next, history_count;
  float ordered[FL_PANEL_HISTORY];
  char scenes[FL_PANEL_SCENES_MAX][FL_SCENE_NAME_MAX];
  const char *scene_names[FL_PANEL_SCENES_MAX];
  int scene_count;
  fl_panel_pass passes[FL_PANEL_MAX_PASSES];
  fl_panel_knob knobs[FL_PANEL_MAX_KNOBS];
  char notes[1024];
  char sets[FL_PANEL_MAX_KNOBS][FL_PANEL_SET_MAX]; /* the sliders' overrides for the current scene */
  int set_count;
} fl_panel_state;

/* Lists the built-in scenes once. */
void fl_panel_state_init(fl_panel_state *s);
/* Adds a frame time (ms) to the graph. */
void fl_panel_state_frame(fl_panel_state *s, double ms);
/* Fills `m` for the current frame (pointers into `s` and the arguments). */
void fl_panel_state_model(fl_panel_state *s, const fl_scene *scene, const char *scene_arg, const fl_world *world,
                          const fl_profiler *prof, double frame_ms, bool paused, fl_panel_model *m);
/* The scene's main parameters as sliders; returns how many were written (at most `max`). */
uint32_t fl_panel_knobs(const fl_scene *scene, fl_panel_knob *out, uint32_t max);
/* The override "KEY=VALUE" that gives knob `k` the value `v` (a vector knob writes the whole vector). */
void fl_panel_knob_override(const fl_panel_knob *k, float v, char *out, size_t size);
/* The panel click a script (FLURRY_PANEL_CLICKS: "FRAME:WIDGET[@FX],...", WIDGET
 * as fl_panel_imgui_click names it, FX the fraction of its width, default 0.5)
 * makes at `frame`: 1 with `target` and `fx` written, 0 for none, -1 (error
 * recorded) for a malformed script. */
int fl_panel_script_at(const char *script, uint64_t frame, char *target, size_t size, float *fx);
/* Keeps `override` among the state's overrides, replacing one of the same key. */
void fl_panel_state_put(fl_panel_state *s, const char *override);
