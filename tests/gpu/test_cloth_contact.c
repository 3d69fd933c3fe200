/* tests/gpu/test_cloth_contact.c: triangle contacts (docs/CLOTH.md) in whole
 * scenes on the GPU, checked on the CPU with the exact segment-triangle test
 * (fl_segment_hits_triangle):
 *   two_stacked    two 32x32 sheets (thickness 0.28 x spacing) dropped on each
 *                  other onto the ground: no edge of one crosses a triangle of
 *                  the other, no vertex of the upper one lies below the lower
 *                  one nor one of the lower above the upper one, the smallest
 *                  sheet-to-sheet distance reported;
 *   four_stacked   four 16x16 sheets, the same for every pair;
 *   self_fold      a hanging sheet dropped edge-first crumples onto itself: no edge
 *                  passes through a triangle of the same sheet, checked every 40
 *                  frames (1/6 s), and far-apart vertices come within 3 thicknesses.
 * Frames and substeps are the fewest that still bring the sheets into resting
 * contact on lavapipe (stated in docs/CLOTH.md). A frame is one substep of
 * 1/240 s (the same steps as 4 substeps of a 60 Hz frame): one submission
 * stays short on a loaded CPU device. By hand (docs/CLOTH.md):
 * FLURRY_CONTACT_FULL=1 runs the sizes (32x32 sheets, 1200 substeps),
 * FLURRY_CONTACT_BALL=1 adds a ball under the stacks (the open failure). The
 * checks themselves live in contact_checks.h. */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "contact_checks.h"

#define STACK_SIM                                                                                             \
  "\"sim\": { \"dt\": 0.0041666667, \"substeps\": 1, \"iterations\": 2, \"gravity\": [0, -9.81, 0],"          \
  " \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } }"
#define STACK_FLOOR                                                                                           \
  "{ \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 }"
#define STACK_BALL                                                                                            \
  ", { \"type\": \"collider\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [0, 0, 0], \"radius\": 0.15 }"

/* True when environment variable `name` is "1". FLURRY_CONTACT_FULL=1: the
 * issue's full check (docs/CLOTH.md), 32x32 sheets for 1200 substeps (300
 * frames of 4), else the CTest size; FLURRY_CONTACT_BALL=1: the sheets fall over
 * a ball too (the open failure of docs/CLOTH.md, "Known failure"). */
static bool env_on(const char *name)
{
  const char *f = getenv(name);
  return f && strcmp(f, "1") == 0;
}

static bool stack_full(void) { return env_on("FLURRY_CONTACT_FULL"); }

/* Where a 1 x 1 m sheet of the stack starts: its centre (dx, y, dz). */
typedef struct {
  float y, dx, dz;
} placement;

/* The stack's scene: `count` res x res sheets at `at`, thickness 0.009 m, on the ground (and a ball). */
static void stack_json(char *json, size_t size, const placement *at, uint32_t count, int res)
{
  size_t n = (size_t)snprintf(json, size, "{ " STACK_SIM ", \"objects\": [");
  for (uint32_t k = 0; k < count && n < size; k++)
    n += (size_t)snprintf(json + n, size - n,
                          "{ \"type\": \"cloth\", \"name\": \"s%u\", \"resolution\": [%d, %d], \"size\": [1, 1],"
                          " \"center\": [%g, %g, %g], \"mass\": 0.2, \"bend_compliance\": 1e-2, \"thickness\": 0.009,"
                          " \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\" },",
                          k, res, res, (double)at[k].dx, (double)at[k].y, (double)at[k].dz);
  if (n < size) snprintf(json + n, size - n, "%s%s] }", STACK_FLOOR, env_on("FLURRY_CONTACT_BALL") ? STACK_BALL : "");
}

/* Runs `count` res x res sheets started at `at` for `frames` frames and checks
 * every pair of them (in stacking order). */
static void stack(fl_gpu *gpu, const placement *at, uint32_t count, int res, int frames)
{
  char json[4096];
  stack_json(json, sizeof json, at, count, res);
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world) && fl_profiler_create(gpu, &prof));
  bool ok = fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL);
  fl_profiler_destroy(&prof);
  ENSURE_MSG(ok, "%s", fl_error_message());
  sheet s[4];
  for (uint32_t k = 0; k < count; k++) ENSURE(sheet_read(world, k, (uint32_t)res, (uint32_t)res, &s[k]));
  fl_world_destroy(world);
  float spacing = 1.0f / (float)(res - 1), closest = INFINITY, top_floor = INFINITY;
  for (uint32_t k = 0; k + 1 < count; k++) {
    for (uint32_t v = 0; v < s[k + 1].count; v++) top_floor = fminf(top_floor, s[k + 1].pos[v][1]);
    for (uint32_t m = k + 1; m < count; m++) {
      uint32_t cross = crossings(&s[k], &s[m], false) + crossings(&s[m], &s[k], false);
      uint32_t order = out_of_order(&s[m], &s[k], 1.0) + out_of_order(&s[k], &s[m], -1.0);
      float d = fminf(min_distance(&s[k], &s[m]), min_distance(&s[m], &s[k]));
      closest = fminf(closest, d);
      fprintf(stderr, "  sheets %u/%u: %u edge-triangle crossings, %u vertices on the wrong side, closest %.4f m\n", k, m,
              cross, order, (double)d);
      ENSURE(cross == 0 && order == 0);
    }
  }
  fprintf(stderr, "  %dx%d sheets after %d frames: smallest sheet-to-sheet distance %.4f m (thickness 0.009 m = "
          "%.2f x spacing); lowest point of an upper sheet %.4f m\n", res, res, frames, (double)closest,
          0.009 / spacing, (double)top_floor);
  /* They rest on each other: the upper sheets came down to the ground (the test is not vacuous). */
  ENSURE(closest < 0.03f && top_floor < 0.1f);
  for (uint32_t k = 0; k < count; k++) sheet_free(&s[k]);
}

static void two_stacked_body(fl_gpu *gpu)
{
  static const placement at[] = {{0.2f, 0, 0}, {0.24f, 0.1f, 0.05f}};
  stack(gpu, at, 2, 32, stack_full() ? 1200 : 180);
}
FL_GPU_TEST(test_two_stacked, two_stacked_body)

static void four_stacked_body(fl_gpu *gpu)
{
  static const placement at[] = {{0.2f, 0, 0}, {0.24f, 0.08f, 0.03f}, {0.28f, -0.05f, 0.09f}, {0.32f, 0.04f, -0.07f}};
  stack(gpu, at, 4, stack_full() ? 32 : 16, stack_full() ? 1200 : 180);
}
FL_GPU_TEST(test_four_stacked, four_stacked_body)

/* The smallest distance between two vertices of the sheet more than two grid steps apart. */
static float fold_gap(const sheet *s)
{
  float best = INFINITY;
  for (uint32_t p = 0; p < s->count; p++)
    for (uint32_t q = p + 1; q < s->count; q++) {
      int di = (int)(p % s->nx) - (int)(q % s->nx), dj = (int)(p / s->nx) - (int)(q / s->nx);
      if (abs(di) <= 2 && abs(dj) <= 2) continue;
      float d2 = 0;
      for (int c = 0; c < 3; c++) d2 += (s->pos[p][c] - s->pos[q][c]) * (s->pos[p][c] - s->pos[q][c]);
      best = fminf(best, sqrtf(d2));
    }
  return best;
}

/* A hanging sheet dropped edge-first onto a ball crumples onto itself as it buckles. */
static void self_fold_body(fl_gpu *gpu)
{
  static const char json[] =
      "{ " STACK_SIM ", \"objects\": ["
      "{ \"type\": \"cloth\", \"name\": \"s\", \"resolution\": [24, 24], \"size\": [0.6, 0.6], \"plane\": \"xy\","
      " \"center\": [0, 0.36, 0], \"mass\": 0.2, \"bend_compliance\": 1, \"thickness\": 0.008,"
      " \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\" },"
      "{ \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 },"
      "{ \"type\": \"collider\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [0.1, 0.03, 0.04],"
      " \"radius\": 0.05 } ] }";
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world) && fl_profiler_create(gpu, &prof));
  float gap = INFINITY;
  for (int check = 0; check < 5; check++) {
    ENSURE_MSG(fl_fixture_step_frames(gpu, world, &prof, 40, true, NULL), "%s", fl_error_message());
    sheet s;
    ENSURE(sheet_read(world, 0, 24, 24, &s));
    uint32_t cross = crossings(&s, &s, true);
    gap = fold_gap(&s);
    fprintf(stderr, "  frame %d: %u edges through the sheet's own triangles; closest non-neighbour vertices %.4f m\n",
            40 * (check + 1), cross, (double)gap);
    sheet_free(&s);
    ENSURE(cross == 0);
  }
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  /* The pleats touched: two far-apart vertices of the sheet came within 3 thicknesses. */
  ENSURE(gap < 0.03f);
}
FL_GPU_TEST(test_self_fold, self_fold_body)


static const fl_test_case cases[] = {
    {"two_stacked", test_two_stacked},
    {"four_stacked", test_four_stacked},
    {"self_fold", test_self_fold},
};
FL_TEST_MAIN(cases)
