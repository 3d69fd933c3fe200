/* app/quality: scene sizes per quality level (see quality.h). */
#include "app/quality.h"

#include <string.h>

static const char *const NAMES[] = {"auto", "low", "medium", "high"};

bool fl_quality_parse(const char *text, fl_quality *out)
{
  for (int q = 0; q < 4; q++)
    if (strcmp(text, NAMES[q]) == 0) {
      *out = (fl_quality)q;
      return true;
    }
  return false;
}

const char *fl_quality_name(fl_quality q) { return NAMES[q]; }

fl_quality fl_quality_for_device(VkPhysicalDeviceType type)
{
  switch (type) {
  case VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU: return FL_QUALITY_HIGH;
  case VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU:
  case VK_PHYSICAL_DEVICE_TYPE_VIRTUAL_GPU: return FL_QUALITY_MEDIUM;
  default: return FL_QUALITY_LOW;
  }
}

static uint32_t scaled(uint32_t n, uint32_t f, uint32_t max) { return (uint64_t)n * f > max ? max : n * f; }

void fl_quality_apply(fl_quality q, fl_scene *scene)
{
  uint32_t f = q == FL_QUALITY_HIGH ? 4 : q == FL_QUALITY_MEDIUM ? 2 : 1;
  if (f == 1) return;
  for (uint32_t k = 0; k < scene->object_count; k++) {
    fl_scene_object *o = &scene->objects[k];
    switch (o->type) {
    case FL_OBJECT_CLOTH: /* scene range: 2..4096 a side */
      for (int a = 0; a < 2; a++) o->cloth.resolution[a] = scaled(o->cloth.resolution[a], f, 4096);
      break;
    case FL_OBJECT_PARTICLES: o->particles.count = scaled(o->particles.count, f * f, 16u << 20); break;
    case FL_OBJECT_SNOW: o->snow.grid_spacing /= (float)f; break;
    default: break;
    }
  }
}
