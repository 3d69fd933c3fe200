/* render/markers: labels, pins and the grab point (see markers.h). */
#include "render/markers.h"

#include "sim/common/grid_pins.h"
#include "sim/common/sheet_grid.h"

#include <stdio.h>
#include <string.h>

#define LABEL_LIFT 0.12f /* metres between an object's top and its label */

typedef struct {
  fl_sheet_grid grid;
  fl_marker *out;
  uint32_t *count, max;
} pin_visit;

/* A pinned particle at its starting position (sim/common/sheet_grid.h). */
static void add_pin(void *context, uint32_t index)
{
  pin_visit *v = context;
  if (*v->count >= v->max) return;
  double x[3];
  fl_sheet_grid_point(&v->grid, index % v->grid.nx, index / v->grid.nx, x);
  fl_marker *m = &v->out[(*v->count)++];
  *m = (fl_marker){.kind = FL_MARKER_PIN};
  for (int a = 0; a < 3; a++) m->position[a] = (float)x[a];
}

/* The point a label hangs over: the top of the object's starting shape. Only the
 * materials whose scenes compare variants in a row are labelled (soft bodies fall
 * far from where they start, and their scene compares shapes, not variants). */
static bool label_anchor(const fl_scene_object *o, float p[3])
{
  const float *c;
  float top;
  switch (o->type) {
  case FL_OBJECT_CLOTH:
    c = o->cloth.center;
    top = o->cloth.plane == FL_PLANE_XY ? 0.5f * o->cloth.size[1] : 0.0f;
    break;
  case FL_OBJECT_MASS_SPRING:
    c = o->mass_spring.center;
    top = o->mass_spring.plane == FL_PLANE_XY ? 0.5f * o->mass_spring.size[1] : 0.0f;
    break;
  case FL_OBJECT_SNOW:
    c = o->snow.center;
    top = o->snow.shape == FL_SNOW_SHAPE_BOX ? o->snow.half_extents[1] : o->snow.radius;
    break;
  case FL_OBJECT_BALLOON: c = o->balloon.common.center, top = 0.25f; break;
  default: return false;
  }
  p[0] = c[0];
  p[1] = c[1] + top + LABEL_LIFT;
  p[2] = c[2];
  return true;
}

/* The label of an object: its name less a "_<digits>" suffix (balloons none_1..none_4 are "none"). */
static void label_of(const char *name, char out[FL_SCENE_NAME_MAX])
{
  snprintf(out, FL_SCENE_NAME_MAX, "%s", name);
  char *u = strrchr(out, '_');
  if (u && u > out && u[1] && strspn(u + 1, "0123456789") == strlen(u + 1)) *u = 0;
}

uint32_t fl_markers_from_scene(const fl_scene *scene, fl_marker *out, uint32_t max)
{
  uint32_t n = 0;
  for (uint32_t k = 0; k < scene->object_count; k++) {
    const fl_scene_object *o = &scene->objects[k];
    /* Labelled: an object with another of its type beside it (a side-by-side comparison),
     * once per label (the first object of a group that shares it). */
    char label[FL_SCENE_NAME_MAX], other[FL_SCENE_NAME_MAX];
    label_of(o->name, label);
    bool in_row = false, first = true;
    for (uint32_t j = 0; j < scene->object_count; j++) {
      if (j == k || scene->objects[j].type != o->type) continue;
      in_row = true;
      label_of(scene->objects[j].name, other);
      if (j < k && strcmp(label, other) == 0) first = false;
    }
    float anchor[3];
    if (in_row && first && n < max && label_anchor(o, anchor)) {
      out[n] = (fl_marker){.kind = FL_MARKER_LABEL};
      memcpy(out[n].position, anchor, sizeof anchor);
      memcpy(out[n].text, label, sizeof label);
      n++;
    }
    const fl_cloth_pin *pins = NULL;
    uint32_t pin_count = 0;
    pin_visit v = {.out = out, .count = &n, .max = max};
    if (o->type == FL_OBJECT_CLOTH) {
      pins = o->cloth.pins, pin_count = o->cloth.pin_count;
      v.grid = fl_sheet_grid_of_cloth(&o->cloth);
    } else if (o->type == FL_OBJECT_MASS_SPRING) {
      pins = o->mass_spring.pins, pin_count = o->mass_spring.pin_count;
      v.grid = fl_sheet_grid_of_mass_spring(&o->mass_spring);
    }
    if (pin_count) fl_grid_pins_apply(pins, pin_count, v.grid.nx, v.grid.ny, "", o->name, add_pin, &v);
  }
  return n;
}

bool fl_markers_project(const float m[4][4], float width, float height, const float p[3], float *x, float *y)
{
  float clip[4];
  for (int r = 0; r < 4; r++) clip[r] = m[0][r] * p[0] + m[1][r] * p[1] + m[2][r] * p[2] + m[3][r];
  if (clip[3] <= 1e-6f) return false;
  *x = (clip[0] / clip[3] * 0.5f + 0.5f) * width;
  *y = (clip[1] / clip[3] * 0.5f + 0.5f) * height; /* Vulkan clip space: y points down */
  return true;
}
