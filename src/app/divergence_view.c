/* app/divergence_view: labels and panel lines of mass-spring divergence (see divergence_view.h). */
#include "app/divergence_view.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

double fl_ms_step_ratio(const fl_mass_spring_desc *d, double h)
{
  double m = (double)d->mass / ((double)d->resolution[0] * d->resolution[1]);
  double omega = sqrt((double)d->stiffness / (0.5 * m));
  return h * omega / 3.14159265358979323846;
}

double fl_ms_stability_limit(const fl_mass_spring_desc *d)
{
  switch (d->integrator) {
  case FL_MS_INTEGRATOR_E: return 0.25;
  case FL_MS_INTEGRATOR_HO: return d->split == FL_MS_SPLIT_KEY_MOMENTUM ? 0.2 : 0.3;
  case FL_MS_INTEGRATOR_JI:
  case FL_MS_INTEGRATOR_HY: return d->definite_jacobian ? 2.0 : 0.25; /* measured at 3 iterations */
  case FL_MS_INTEGRATOR_IM: return 0.0;
  }
  return 0.0;
}

static const fl_ms_watch *find(const fl_ms_watch *watch, uint32_t n, const char *name)
{
  for (uint32_t i = 0; i < n; i++)
    if (strcmp(watch[i].name, name) == 0) return &watch[i];
  return NULL;
}

static void state(const fl_ms_watch *w, char *out, size_t size)
{
  if (w->frozen)
    snprintf(out, size, "frozen as it blew up, reset in %u frames (%u resets)",
             w->frozen_frames < FL_MS_RESET_HOLD_FRAMES ? FL_MS_RESET_HOLD_FRAMES - w->frozen_frames : 0, w->resets);
  else
    snprintf(out, size, "%u resets", w->resets);
}

void fl_divergence_labels(fl_marker *markers, uint32_t count, const fl_ms_watch *watch, uint32_t n)
{
  for (uint32_t k = 0; k < count; k++) {
    fl_marker *m = &markers[k];
    if (m->kind != FL_MARKER_LABEL) continue;
    for (uint32_t i = 0; i < n; i++) {
      size_t len = strlen(watch[i].name);
      if (strncmp(m->text, watch[i].name, len) != 0 || (m->text[len] && m->text[len] != ' ')) continue;
      if (!watch[i].frozen && watch[i].resets == 0) {
        m->text[len] = 0;
        break;
      }
      char s[48];
      if (watch[i].frozen) snprintf(s, sizeof s, "frozen: diverged (%u resets)", watch[i].resets);
      else snprintf(s, sizeof s, "%u resets", watch[i].resets);
      char text[FL_SCENE_NAME_MAX];
      snprintf(text, sizeof text, "%.*s  %s", (int)len, watch[i].name, s);
      memcpy(m->text, text, sizeof text);
      break;
    }
  }
}

void fl_divergence_notes(const fl_scene *scene, const fl_ms_watch *watch, uint32_t n, char *out, size_t size)
{
  size_t used = strlen(out);
  double h = scene->sim.dt / scene->sim.substeps;
  bool any = false;
  for (uint32_t i = 0; i < scene->object_count && used < size; i++) {
    const fl_scene_object *o = &scene->objects[i];
    if (o->type != FL_OBJECT_MASS_SPRING) continue;
    if (!any) {
      used += (size_t)snprintf(out + used, size - used, "%sstep h = %.3g ms; mu = h / h_c, h_c = pi / omega per spring:\n",
                               used ? "\n" : "", 1e3 * h);
      any = true;
      if (used >= size) break;
    }
    double mu = fl_ms_step_ratio(&o->mass_spring, h), limit = fl_ms_stability_limit(&o->mass_spring);
    char s[96] = "";
    const fl_ms_watch *w = find(watch, n, o->name);
    if (w) state(w, s, sizeof s);
    if (limit > 0)
      used += (size_t)snprintf(out + used, size - used, "%s: mu %.2f %s limit %.2f: %s\n", o->name, mu,
                               mu > limit ? ">" : "<=", limit, mu > limit ? (w ? s : "diverges") : (w ? s : "stable"));
    else
      used += (size_t)snprintf(out + used, size - used, "%s: mu %.2f, implicit: stable at any step%s%s\n", o->name, mu,
                               w ? ", " : "", w ? s : "");
  }
}
