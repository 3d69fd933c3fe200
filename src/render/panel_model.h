/* render/panel_model: what the UI panel shows and what the user did with it,
 * as plain C data (no Vulkan, no ImGui): the app fills a model each frame
 * (app/panel_state.c), the panel draws it (render/panel_imgui.cpp) and hands
 * back the actions, which the app applies. */
#pragma once
#include <stdbool.h>
#include <stdint.h>

#define FL_PANEL_MAX_PASSES 10  /* pass rows shown, slowest first; the rest are summed on one row */
#define FL_PANEL_MAX_KNOBS 24
#define FL_PANEL_HISTORY 120    /* frame times in the graph */

typedef struct {
  const char *name;
  double ms;                    /* GPU time of the latest frame read back */
} fl_panel_pass;

/* A scene parameter as a slider. Its value goes back into the scene through
 * the --set path `key` (scene/scene_set.h), so the scene's own checks apply. */
typedef struct {
  char label[48];               /* what the slider says, e.g. "cloth: stretch compliance" */
  char key[96];                 /* the --set path, e.g. "objects.sheet.stretch_compliance" */
  float value, min, max;
  bool integer, logarithmic;
  int component;                /* -1: a number; 0..2: that component of a vector key (wind) */
  float vector[3];              /* the whole vector, for a component knob */
} fl_panel_knob;

typedef struct {
  const char *title;            /* the current scene's name */
  const char *const *scenes;    /* the built-in scenes, by file name */
  uint32_t scene_count;
  int current;                  /* index of the current scene in `scenes`, -1: a scene file */
  const fl_panel_pass *passes;  /* the current scene's passes, slowest first */
  uint32_t pass_count;          /* rows in `passes` (at most FL_PANEL_MAX_PASSES) */
  uint32_t more_passes;         /* passes summed into one row */
  double more_ms;
  bool untimed;                 /* a queue cannot write timestamps */
  const float *frame_ms;        /* the last frames' times, oldest first */
  uint32_t frame_count;
  double frame_ms_now;
  uint64_t particles, substeps;
  const fl_panel_knob *knobs;
  uint32_t knob_count;
  bool paused;
  const char *notes;            /* lines under the sliders (stability, instability), may be "" */
  const char *quality;
  const char *help;             /* the keys, NULL: none (headless) */
} fl_panel_model;

typedef struct {
  int switch_scene;             /* index into the model's scenes, -1: none */
  bool toggle_pause, step, reset;
  int knob;                     /* a slider released after an edit, -1: none */
  float knob_value;
} fl_panel_actions;
