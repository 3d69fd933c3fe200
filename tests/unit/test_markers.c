/* tests/unit/test_markers: what the 3D view marks (render/markers.h), from the
 * shipped scenes: a label per variant of a side-by-side row and none for a lone
 * object, once per group of numbered objects; every pinned particle at its rest
 * position; the projection to pixels (the camera's target lands in the middle of
 * the viewport, a point behind the eye is not drawn). */
#include "test.h"

#include "core/log.h"
#include "render/camera.h"
#include "render/markers.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static fl_scene g_scene;
static fl_marker g_markers[FL_MARKERS_MAX];

/* Loads a shipped scene and its markers; 0 markers (and a failed check) when it does not load. */
static uint32_t load(const char *name)
{
  bool loaded = fl_scene_load(name, NULL, 0, &g_scene);
  if (!loaded) {
    fprintf(stderr, "  FAIL %s: %s\n", name, fl_error_message());
    fl_test_failed_current = 1;
    return 0;
  }
  return fl_markers_from_scene(&g_scene, g_markers, FL_MARKERS_MAX);
}

static uint32_t count(uint32_t n, fl_marker_kind kind)
{
  uint32_t c = 0;
  for (uint32_t k = 0; k < n; k++) c += g_markers[k].kind == kind;
  return c;
}

static void test_mass_spring_row(void)
{
  uint32_t n = load("mass-spring");
  static const char *const names[] = {"E", "HO", "JI", "IM", "HY"};
  uint32_t labels = 0;
  for (uint32_t k = 0; k < n; k++)
    if (g_markers[k].kind == FL_MARKER_LABEL) {
      ENSURE(labels < 5);
      ENSURE_MSG(strcmp(g_markers[k].text, names[labels]) == 0, "label %u is %s", labels, g_markers[k].text);
      labels++;
    }
  ENSURE(labels == 5);
  /* Two corner pins each, on the grid's top corners (plane xz: j = ny - 1 at z = center + h/2). */
  ENSURE(count(n, FL_MARKER_PIN) == 10);
  for (uint32_t k = 0, o = 0; k < n; k++) {
    if (g_markers[k].kind == FL_MARKER_LABEL) {
      o = 0;
      while (strcmp(g_scene.objects[o].name, g_markers[k].text) != 0) o++;
      continue;
    }
    const fl_mass_spring_desc *d = &g_scene.objects[o].mass_spring;
    const float *p = g_markers[k].position;
    ENSURE_NEAR(p[1], d->center[1], 1e-5);
    ENSURE_NEAR(p[2], d->center[2] + 0.5f * d->size[1], 1e-5);
    ENSURE_NEAR(fabsf(p[0] - d->center[0]), 0.5f * d->size[0], 1e-5);
  }
}

static void test_balloon_groups(void)
{
  uint32_t n = load("balloons");
  ENSURE(count(n, FL_MARKER_PIN) == 0);
  const char *want[] = {"none", "global", "local"};
  uint32_t labels = 0;
  for (uint32_t k = 0; k < n; k++)
    if (g_markers[k].kind == FL_MARKER_LABEL) {
      bool known = false;
      for (int w = 0; w < 3; w++) known |= strcmp(g_markers[k].text, want[w]) == 0;
      ENSURE_MSG(known, "label %s", g_markers[k].text);
      labels++;
    }
  ENSURE_MSG(labels == 3, "%u labels", labels);
}

static void test_curtain_pins(void)
{
  uint32_t n = load("curtain");
  const fl_cloth_desc *d = &g_scene.objects[0].cloth;
  for (uint32_t o = 0; o < g_scene.object_count; o++)
    if (g_scene.objects[o].type == FL_OBJECT_CLOTH) d = &g_scene.objects[o].cloth;
  ENSURE(count(n, FL_MARKER_LABEL) == 0); /* one cloth: nothing to compare */
  ENSURE_MSG(count(n, FL_MARKER_PIN) == d->resolution[0], "%u pins", count(n, FL_MARKER_PIN));
  ENSURE(d->plane == FL_PLANE_XY);
  for (uint32_t k = 0; k < n; k++) ENSURE_NEAR(g_markers[k].position[1], d->center[1] + 0.5f * d->size[1], 1e-5);
}

static void test_projection(void)
{
  fl_camera cam;
  float eye[3] = {1, 2, 3}, target[3] = {0, 0.5f, 0}, x, y;
  fl_camera_look(&cam, eye, target);
  mat4 view, proj, vp;
  fl_camera_matrices(&cam, 640.0f / 360.0f, view, proj);
  glm_mat4_mul(proj, view, vp);
  ENSURE(fl_markers_project((const float(*)[4])vp, 640, 360, target, &x, &y));
  ENSURE_NEAR(x, 320, 1e-2);
  ENSURE_NEAR(y, 180, 1e-2);
  float above[3] = {0, 1.5f, 0}, behind[3] = {2, 4, 6};
  ENSURE(fl_markers_project((const float(*)[4])vp, 640, 360, above, &x, &y));
  ENSURE(y < 180); /* up in the world is up on the screen */
  ENSURE(!fl_markers_project((const float(*)[4])vp, 640, 360, behind, &x, &y));
}

static const fl_test_case cases[] = {
    {"mass_spring_row", test_mass_spring_row},
    {"balloon_groups", test_balloon_groups},
    {"curtain_pins", test_curtain_pins},
    {"projection", test_projection},
};
FL_TEST_MAIN(cases)
