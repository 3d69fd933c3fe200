/* app/panel_state: the panel's model from the app's state (see panel_state.h). */
#include "app/panel_state.h"

#include "app/divergence_view.h"
#include "app/overlay_text.h"
#include "scene/scene_list.h"

#include "core/log.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void fl_panel_state_init(fl_panel_state *s)
{
  memset(s, 0, sizeof *s);
  int n = fl_scene_builtin_names(s->scenes, FL_PANEL_SCENES_MAX);
  s->scene_count = n > 0 ? n : 0;
  for (int i = 0; i < s->scene_count; i++) s->scene_names[i] = s->scenes[i];
}

void fl_panel_state_frame(fl_panel_state *s, double ms)
{
  s->history[s->history_next] = (float)ms;
  s->history_next = (s->history_next + 1) % FL_PANEL_HISTORY;
  if (s->history_count < FL_PANEL_HISTORY) s->history_count++;
}

static uint32_t add_knob(fl_panel_knob *out, uint32_t n, uint32_t max, const fl_panel_knob *k)
{
  if (n < max) out[n] = *k;
  return n < max ? n + 1 : n;
}

/* A float knob of object `name`'s key, on a logarithmic scale when `log`. */
static uint32_t object_knob(fl_panel_knob *out, uint32_t n, uint32_t max, const char *name, const char *label,
                            const char *key, float value, float lo, float hi, bool log)
{
  fl_panel_knob k = {.value = value, .min = lo, .max = hi, .logarithmic = log, .component = -1};
  snprintf(k.label, sizeof k.label, "%s %s", name, label);
  snprintf(k.key, sizeof k.key, "objects.%s.%s", name, key);
  if (k.value < k.min) k.min = k.value; /* never clamp the scene's own value away */
  if (k.value > k.max) k.max = k.value;
  return add_knob(out, n, max, &k);
}

uint32_t fl_panel_knobs(const fl_scene *scene, fl_panel_knob *out, uint32_t max)
{
  uint32_t n = 0;
  const fl_sim_desc *sim = &scene->sim;
  bool xpbd = false;
  for (uint32_t i = 0; i < scene->object_count; i++) {
    fl_object_type t = scene->objects[i].type;
    xpbd = xpbd || t == FL_OBJECT_CLOTH || t == FL_OBJECT_SOFTBODY || t == FL_OBJECT_BALLOON;
  }
  fl_panel_knob substeps = {.label = "substeps", .key = "sim.substeps", .value = (float)sim->substeps, .min = 1,
                            .max = (float)(sim->substeps * 2 > 32 ? sim->substeps * 2 : 32), .integer = true,
                            .component = -1};
  if (substeps.max > 1000) substeps.max = 1000;
  n = add_knob(out, n, max, &substeps);
  if (xpbd) {
    fl_panel_knob it = {.label = "iterations", .key = "sim.iterations", .value = (float)sim->iterations, .min = 1,
                        .max = (float)(sim->iterations * 2 > 20 ? sim->iterations * 2 : 20), .integer = true,
                        .component = -1};
    if (it.max > 1000) it.max = 1000;
    n = add_knob(out, n, max, &it);
  }
  for (uint32_t i = 0; i < scene->object_count; i++) {
    const fl_scene_object *o = &scene->objects[i];
    const char *name = o->name;
    switch (o->type) {
    case FL_OBJECT_CLOTH: {
      const fl_cloth_desc *c = &o->cloth;
      n = object_knob(out, n, max, name, "stretch", "stretch_compliance", c->stretch_compliance, 0, 1e-2f, true);
      n = object_knob(out, n, max, name, "bend", "bend_compliance", c->bend_compliance, 0, 10, true);
      if (c->drag > 0 || c->lift > 0 || c->wind[0] != 0 || c->wind[2] != 0) {
        fl_panel_knob w = {.value = c->wind[0], .min = -20, .max = 20, .component = 0};
        snprintf(w.label, sizeof w.label, "%.39s wind x", name); /* fits the 48-byte label */
        snprintf(w.key, sizeof w.key, "objects.%s.wind", name);
        memcpy(w.vector, c->wind, sizeof w.vector);
        if (w.value < w.min) w.min = w.value;
        if (w.value > w.max) w.max = w.value;
        n = add_knob(out, n, max, &w);
      }
      break;
    }
    case FL_OBJECT_MASS_SPRING:
      n = object_knob(out, n, max, name, "stiffness", "stiffness", o->mass_spring.stiffness, 10, 1e5f, true);
      break;
    case FL_OBJECT_SOFTBODY:
      if (o->softbody.model == FL_SOFT_MODEL_NEOHOOKEAN)
        n = object_knob(out, n, max, name, "E (Pa)", "youngs_modulus", o->softbody.youngs_modulus, 1e3f, 1e7f, true);
      else
        n = object_knob(out, n, max, name, "edge compl.", "edge_compliance", o->softbody.edge_compliance, 0, 1e-2f,
                        true);
      break;
    case FL_OBJECT_BALLOON:
      n = object_knob(out, n, max, name, "pressure", "pressure", o->balloon.pressure, 0.1f, 10, false);
      break;
    case FL_OBJECT_SNOW:
      n = object_knob(out, n, max, name, "theta_c", "theta_c", o->snow.theta_c, 1e-3f, 0.1f, true);
      n = object_knob(out, n, max, name, "theta_s", "theta_s", o->snow.theta_s, 1e-3f, 0.05f, true);
      n = object_knob(out, n, max, name, "xi", "xi", o->snow.xi, 0, 20, false);
      break;
    default: break;
    }
  }
  return n;
}

void fl_panel_knob_override(const fl_panel_knob *k, float v, char *out, size_t size)
{
  if (k->integer) snprintf(out, size, "%s=%ld", k->key, lroundf(v));
  else if (k->component >= 0) {
    float w[3] = {k->vector[0], k->vector[1], k->vector[2]};
    w[k->component] = v;
    snprintf(out, size, "%s=[%.9g,%.9g,%.9g]", k->key, w[0], w[1], w[2]);
  } else snprintf(out, size, "%s=%.9g", k->key, v);
}

void fl_panel_state_put(fl_panel_state *s, const char *override)
{
  size_t key = strcspn(override, "=");
  int i = 0;
  while (i < s->set_count && !(strncmp(s->sets[i], override, key) == 0 && s->sets[i][key] == '=')) i++;
  if (i == FL_PANEL_MAX_KNOBS) return;
  snprintf(s->sets[i], FL_PANEL_SET_MAX, "%s", override);
  if (i == s->set_count) s->set_count++;
}

void fl_panel_state_model(fl_panel_state *s, const fl_scene *scene, const char *scene_arg, const fl_world *world,
                          const fl_profiler *prof, double frame_ms, bool paused, fl_panel_model *m)
{
  memset(m, 0, sizeof *m);
  m->title = scene->name;
  m->scenes = s->scene_names;
  m->scene_count = (uint32_t)s->scene_count;
  m->current = -1;
  for (int i = 0; i < s->scene_count; i++)
    if (strcmp(s->scenes[i], scene_arg) == 0) m->current = i;
  const fl_profile_stat *sorted[256];
  uint32_t count = fl_overlay_text_sorted_passes(prof, sorted, 256);
  for (uint32_t i = 0; i < count; i++) {
    if (i < FL_PANEL_MAX_PASSES) s->passes[m->pass_count++] = (fl_panel_pass){sorted[i]->name, sorted[i]->last_ms};
    else {
      m->more_passes++;
      m->more_ms += sorted[i]->last_ms;
    }
  }
  m->passes = s->passes;
  m->untimed = !prof->can_time[0] || !prof->can_time[1];
  for (uint32_t i = 0; i < s->history_count; i++) {
    uint32_t at = (s->history_next + FL_PANEL_HISTORY - s->history_count + i) % FL_PANEL_HISTORY;
    s->ordered[i] = s->history[at];
  }
  m->frame_ms = s->ordered;
  m->frame_count = s->history_count;
  m->frame_ms_now = frame_ms;
  m->particles = fl_world_particle_count(world);
  m->substeps = fl_world_substeps(world);
  m->knob_count = fl_panel_knobs(scene, s->knobs, FL_PANEL_MAX_KNOBS);
  m->knobs = s->knobs;
  m->paused = paused;
  s->notes[0] = 0;
  char unstable[256];
  if (fl_world_unstable(world, unstable, sizeof unstable)) snprintf(s->notes, sizeof s->notes, "UNSTABLE: %s", unstable);
  fl_ms_watch watch[FL_SCENE_MAX_OBJECTS];
  uint32_t n = fl_ms_material_watch(fl_world_material(world, &fl_material_mass_spring), watch, FL_SCENE_MAX_OBJECTS);
  fl_divergence_notes(scene, watch, n, s->notes, sizeof s->notes);
  m->notes = s->notes;
}

int fl_panel_script_at(const char *script, uint64_t frame, char *target, size_t size, float *fx)
{
  const char *p = script;
  int found = 0;
  while (*p) {
    char *end;
    unsigned long long at = strtoull(p, &end, 10);
    if (end == p || *end != ':')
      return fl_error_set("FLURRY_PANEL_CLICKS: expected FRAME:WIDGET[@FX] at \"%s\"", p), -1;
    const char *name = end + 1;
    size_t len = strcspn(name, ",@");
    if (len == 0 || len >= size)
      return fl_error_set("FLURRY_PANEL_CLICKS: expected a widget name at \"%s\"", name), -1;
    float x = 0.5f;
    p = name + len;
    if (*p == '@') {
      x = strtof(p + 1, &end);
      if (end == p + 1 || x < 0.0f || x > 1.0f || (*end && *end != ','))
        return fl_error_set("FLURRY_PANEL_CLICKS: expected a fraction 0..1 after @ at \"%s\"", p), -1;
      p = end;
    }
    if (at == frame && !found) {
      memcpy(target, name, len);
      target[len] = 0;
      *fx = x;
      found = 1;
    }
    if (*p == ',') p++;
  }
  return found;
}
