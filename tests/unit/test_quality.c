/* tests/unit/test_quality: --quality (app/quality.h): what auto picks per device
 * type, and how each level scales a shipped scene (cloth sides x f, particle
 * counts x f^2, snow grid spacing / f; mass-spring sheets unchanged; clamped to
 * the keys' ranges). */
#include "test.h"

#include "app/quality.h"
#include "core/log.h"

#include <stdio.h>

static fl_scene g_low, g_scaled;

static bool load(const char *name, fl_quality q)
{
  if (!fl_scene_load(name, NULL, 0, &g_low) || !fl_scene_load(name, NULL, 0, &g_scaled)) {
    fprintf(stderr, "  FAIL %s: %s\n", name, fl_error_message());
    return false;
  }
  fl_quality_apply(q, &g_scaled);
  return true;
}

static void test_auto_by_device_type(void)
{
  ENSURE(fl_quality_for_device(VK_PHYSICAL_DEVICE_TYPE_CPU) == FL_QUALITY_LOW);
  ENSURE(fl_quality_for_device(VK_PHYSICAL_DEVICE_TYPE_OTHER) == FL_QUALITY_LOW);
  ENSURE(fl_quality_for_device(VK_PHYSICAL_DEVICE_TYPE_INTEGRATED_GPU) == FL_QUALITY_MEDIUM);
  ENSURE(fl_quality_for_device(VK_PHYSICAL_DEVICE_TYPE_DISCRETE_GPU) == FL_QUALITY_HIGH);
  fl_quality q;
  ENSURE(fl_quality_parse("medium", &q) && q == FL_QUALITY_MEDIUM);
  ENSURE(fl_quality_parse("auto", &q) && q == FL_QUALITY_AUTO);
  ENSURE(!fl_quality_parse("ultra", &q) && !fl_quality_parse("", &q));
}

static void test_levels_scale_scenes(void)
{
  ENSURE(load("cloth", FL_QUALITY_HIGH));
  ENSURE(g_scaled.objects[0].type == FL_OBJECT_CLOTH);
  ENSURE(g_scaled.objects[0].cloth.resolution[0] == 4 * g_low.objects[0].cloth.resolution[0]);
  ENSURE(g_scaled.objects[0].cloth.resolution[0] >= 256 - 64); /* a 48x48 flag: 192x192 */
  ENSURE(load("snow-drop", FL_QUALITY_MEDIUM));
  for (uint32_t k = 0; k < g_low.object_count; k++)
    if (g_low.objects[k].type == FL_OBJECT_SNOW)
      ENSURE_NEAR(g_scaled.objects[k].snow.grid_spacing, 0.5f * g_low.objects[k].snow.grid_spacing, 1e-7);
  ENSURE(load("particles", FL_QUALITY_HIGH));
  ENSURE(g_scaled.objects[0].particles.count == 16 * g_low.objects[0].particles.count);
  ENSURE(load("mass-spring", FL_QUALITY_HIGH)); /* an experiment at its published sizes */
  for (uint32_t k = 0; k < g_low.object_count; k++)
    ENSURE(g_scaled.objects[k].mass_spring.resolution[0] == g_low.objects[k].mass_spring.resolution[0]);
  ENSURE(load("cloth", FL_QUALITY_LOW));
  ENSURE(g_scaled.objects[0].cloth.resolution[1] == g_low.objects[0].cloth.resolution[1]);
  g_scaled.objects[0].cloth.resolution[0] = 3000; /* clamped to the key's range */
  fl_quality_apply(FL_QUALITY_HIGH, &g_scaled);
  ENSURE(g_scaled.objects[0].cloth.resolution[0] == 4096);
}

static const fl_test_case cases[] = {
    {"auto_by_device_type", test_auto_by_device_type},
    {"levels_scale_scenes", test_levels_scale_scenes},
};
FL_TEST_MAIN(cases)
