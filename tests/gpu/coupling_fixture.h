/* tests/gpu/coupling_fixture.h: what the coupling tests (test_coupling.c, test_coupling_roof.c)
 * share: a built-in coupled scene's world, and where snow lies against a cloth's triangles. */
#pragma once
#include "world_fixture.h"
#include "sim/coupling/coupling.h"

#include <math.h>

/* Loads built-in scene `name`, its world and a profiler; the world's coupling, or NULL (printed why)
 * when the scene does not load or nothing couples. */
static inline fl_coupling *fl_fixture_builtin_world(fl_gpu *gpu, const char *name, fl_scene *scene, fl_world **world,
                                                    fl_profiler *prof)
{
  if (!fl_scene_load(name, NULL, 0, scene) || !fl_world_create(gpu, scene, world) || !fl_profiler_create(gpu, prof)) {
    fprintf(stderr, "  %s: %s\n", name, fl_error_message());
    return NULL;
  }
  fl_coupling *c = fl_world_coupling(*world);
  return c->gpu ? c : NULL;
}

/* The same for the scene of inline `json`. */
static inline fl_coupling *fl_fixture_coupled_world(fl_gpu *gpu, const char *json, fl_scene *scene, fl_world **world,
                                                    fl_profiler *prof)
{
  if (!fl_fixture_make_world(gpu, json, scene, world) || !fl_profiler_create(gpu, prof)) return NULL;
  fl_coupling *c = fl_world_coupling(*world);
  return c->gpu ? c : NULL;
}

/* The cloth's height under (x, z): the triangle of `tri` whose xz projection holds it, interpolated;
 * false when none does (outside the footprint). */
static inline bool fl_fixture_cloth_height(const float (*cloth)[4], const uint32_t *tri, uint32_t triangles, float x,
                                           float z, float *y)
{
  for (uint32_t t = 0; t < triangles; t++) {
    const float *a = cloth[tri[3 * t]], *b = cloth[tri[3 * t + 1]], *c = cloth[tri[3 * t + 2]];
    float d = (b[2] - c[2]) * (a[0] - c[0]) + (c[0] - b[0]) * (a[2] - c[2]);
    if (fabsf(d) < 1e-12f) continue;
    float l0 = ((b[2] - c[2]) * (x - c[0]) + (c[0] - b[0]) * (z - c[2])) / d;
    float l1 = ((c[2] - a[2]) * (x - c[0]) + (a[0] - c[0]) * (z - c[2])) / d, l2 = 1.0f - l0 - l1;
    if (l0 >= 0 && l1 >= 0 && l2 >= 0) {
      *y = l0 * a[1] + l1 * b[1] + l2 * c[1];
      return true;
    }
  }
  return false;
}

/* Snow particles below the cloth inside its footprint by more than `cell`. */
static inline uint32_t fl_fixture_snow_below(const float (*cloth)[4], const fl_xpbd_build *b, const float (*snow)[4],
                                             uint32_t n, float cell, float *worst)
{
  uint32_t below = 0;
  for (uint32_t i = 0; i < n; i++) {
    float y;
    if (!fl_fixture_cloth_height(cloth, b->triangles, b->triangle_count, snow[i][0], snow[i][2], &y)) continue;
    *worst = fmaxf(*worst, y - snow[i][1]);
    below += snow[i][1] < y - cell;
  }
  return below;
}
