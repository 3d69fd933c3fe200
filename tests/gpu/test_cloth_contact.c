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
 * stays short on a loaded CPU device. */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include <math.h>

#include "sim/common/mesh_cpu.h"
#include "sim/xpbd/tri_contact_cpu.h"

typedef struct {
  uint32_t nx, ny, count, tri_count;
  float (*pos)[4];
  uint32_t (*tri)[3];
} sheet;

static bool sheet_read(fl_world *w, uint32_t index, uint32_t nx, uint32_t ny, sheet *s)
{
  float(*vel)[4] = NULL;
  memset(s, 0, sizeof *s);
  s->nx = nx, s->ny = ny;
  if (!fl_world_read_state(w, index, &s->pos, &vel, &s->count)) return false;
  free(vel);
  s->tri = malloc((size_t)2 * (nx - 1) * (ny - 1) * sizeof *s->tri);
  if (!s->tri || s->count != nx * ny) return false;
  for (uint32_t j = 0; j + 1 < ny; j++)
    for (uint32_t i = 0; i + 1 < nx; i++)
      for (int h = 0; h < 2; h++) fl_grid_cell_triangle(nx, i, j, h, s->tri[s->tri_count++]);
  return true;
}

static void sheet_free(sheet *s)
{
  free(s->pos);
  free(s->tri);
  memset(s, 0, sizeof *s);
}

static void to_d(const float *f, double *d)
{
  for (int a = 0; a < 3; a++) d[a] = f[a];
}

static bool shares(const uint32_t *t, uint32_t a, uint32_t b)
{
  return t[0] == a || t[1] == a || t[2] == a || t[0] == b || t[1] == b || t[2] == b;
}

/* Edges of `e` (each triangle's three; shared ones twice) through triangles of `t`;
 * same: the same sheet (triangles touching the edge are skipped). */
static uint32_t crossings(const sheet *e, const sheet *t, bool same)
{
  uint32_t hits = 0;
  for (uint32_t a = 0; a < e->tri_count; a++)
    for (int k = 0; k < 3; k++) {
      uint32_t i = e->tri[a][k], j = e->tri[a][(k + 1) % 3];
      double p[3], q[3];
      to_d(e->pos[i], p);
      to_d(e->pos[j], q);
      double lo[3], hi[3];
      for (int c = 0; c < 3; c++) lo[c] = fmin(p[c], q[c]), hi[c] = fmax(p[c], q[c]);
      for (uint32_t b = 0; b < t->tri_count; b++) {
        if (same && shares(t->tri[b], i, j)) continue;
        double x[3][3];
        bool out = false;
        for (int v = 0; v < 3; v++) to_d(t->pos[t->tri[b][v]], x[v]);
        for (int c = 0; c < 3 && !out; c++)
          out = fmax(fmax(x[0][c], x[1][c]), x[2][c]) < lo[c] || fmin(fmin(x[0][c], x[1][c]), x[2][c]) > hi[c];
        if (!out && fl_segment_hits_triangle(p, q, x[0], x[1], x[2])) {
          if (!hits) /* the first one, to see where it is */
            fprintf(stderr, "  crossing: edge %u-%u (%.4f %.4f %.4f)-(%.4f %.4f %.4f), triangle %u at y %.4f %.4f %.4f\n", i, j,
                    p[0], p[1], p[2], q[0], q[1], q[2], b, x[0][1], x[1][1], x[2][1]);
          hits++;
        }
      }
    }
  return hits;
}

/* Vertices of `of` with a triangle of `other` on the side `dir` (+1 above, -1
 * below): a vertical segment of 10 m from the vertex that way meets it. */
static uint32_t out_of_order(const sheet *of, const sheet *other, double dir)
{
  uint32_t bad = 0;
  for (uint32_t v = 0; v < of->count; v++) {
    double p[3], q[3];
    to_d(of->pos[v], p);
    memcpy(q, p, sizeof q);
    q[1] += 10.0 * dir;
    for (uint32_t b = 0; b < other->tri_count; b++) {
      double x[3][3];
      for (int k = 0; k < 3; k++) to_d(other->pos[other->tri[b][k]], x[k]);
      if (fl_segment_hits_triangle(p, q, x[0], x[1], x[2])) {
        bad++;
        break;
      }
    }
  }
  return bad;
}

/* The smallest distance from a vertex of `a` to a triangle of `b`. */
static float min_distance(const sheet *a, const sheet *b)
{
  float best = INFINITY;
  for (uint32_t v = 0; v < a->count; v++)
    for (uint32_t t = 0; t < b->tri_count; t++) {
      const float *x0 = b->pos[b->tri[t][0]], *x1 = b->pos[b->tri[t][1]], *x2 = b->pos[b->tri[t][2]];
      float bary[3], d2 = 0;
      fl_tri_closest_on_triangle(a->pos[v], x0, x1, x2, bary);
      for (int c = 0; c < 3; c++) {
        float d = a->pos[v][c] - (bary[0] * x0[c] + bary[1] * x1[c] + bary[2] * x2[c]);
        d2 += d * d;
      }
      best = fminf(best, sqrtf(d2));
    }
  return best;
}

#define STACK_SIM                                                                                             \
  "\"sim\": { \"dt\": 0.0041666667, \"substeps\": 1, \"iterations\": 2, \"gravity\": [0, -9.81, 0],"          \
  " \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } }"
#define STACK_SHEET(name, res, y, dx, dz)                                                                     \
  "{ \"type\": \"cloth\", \"name\": \"" name "\", \"resolution\": [" res ", " res "], \"size\": [1, 1],"      \
  " \"center\": [" dx ", " y ", " dz "], \"mass\": 0.2, \"bend_compliance\": 1e-2, \"thickness\": 0.009,"     \
  " \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\" }"
#define STACK_FLOOR                                                                                           \
  "{ \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 }"

/* Runs `json` for `frames` frames and checks every pair of its `count` sheets (in stacking order). */
static void stack(fl_gpu *gpu, const char *json, uint32_t count, uint32_t res, int frames)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world) && fl_profiler_create(gpu, &prof));
  bool ok = fl_fixture_step_frames(gpu, world, &prof, frames, true, NULL);
  fl_profiler_destroy(&prof);
  ENSURE_MSG(ok, "%s", fl_error_message());
  sheet s[4];
  for (uint32_t k = 0; k < count; k++) ENSURE(sheet_read(world, k, res, res, &s[k]));
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
  fprintf(stderr, "  after %d frames: smallest sheet-to-sheet distance %.4f m (thickness 0.009 m = %.2f x spacing); "
          "lowest point of an upper sheet %.4f m\n", frames, (double)closest, 0.009 / spacing, (double)top_floor);
  /* They rest on each other: the upper sheets came down to the ground (the test is not vacuous). */
  ENSURE(closest < 0.03f && top_floor < 0.1f);
  for (uint32_t k = 0; k < count; k++) sheet_free(&s[k]);
}

static void two_stacked_body(fl_gpu *gpu)
{
  static const char json[] = "{ " STACK_SIM ", \"objects\": [" STACK_SHEET("a", "32", "0.2", "0", "0") ","
      STACK_SHEET("b", "32", "0.24", "0.1", "0.05") "," STACK_FLOOR "] }";
  stack(gpu, json, 2, 32, 180);
}
FL_GPU_TEST(test_two_stacked, two_stacked_body)

static void four_stacked_body(fl_gpu *gpu)
{
  static const char json[] = "{ " STACK_SIM ", \"objects\": [" STACK_SHEET("a", "16", "0.2", "0", "0") ","
      STACK_SHEET("b", "16", "0.24", "0.08", "0.03") "," STACK_SHEET("c", "16", "0.28", "-0.05", "0.09") ","
      STACK_SHEET("d", "16", "0.32", "0.04", "-0.07") "," STACK_FLOOR "] }";
  stack(gpu, json, 4, 16, 180);
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
