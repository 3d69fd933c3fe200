/* tests/unit/test_hierarchy_build.c: the coarse levels of hierarchical PBD
 * (sim/xpbd/hierarchy.c) on the CPU:
 *   levels        a 13x11 and a 7x6 cloth (sizes not 2^k + 1) with 3 and 2 levels:
 *                 every particle of level l-1 that level l lacks is a target of
 *                 exactly one prolongation after level l, no other particle is;
 *                 weights are >= 0 and sum to 1, parents lie in level l; no two
 *                 constraints of one colour share a particle; rest lengths are
 *                 the rest shape's; a coarse constraint spanning k springs has k
 *                 times the fine compliance
 *   prolongation  moving every level-l particle by an affine map moves every
 *                 target by that map exactly (bilinear interpolation reproduces
 *                 affine motion), and a pinned target stays
 *   unilateral    a compressed sheet is left alone by the coarse sweeps; a
 *                 stretched one is pulled back (its coarse edge error drops by a quarter or more)
 *   carry         every (fine, coarse) pair of the carry has the fine spring on the
 *                 coarse constraint's segment, once per level; a covered coarse
 *                 constraint's springs add up to its rest length; every structural
 *                 one is covered; the carry runs from alpha~ / (w_i + w_j) = 1e-3
 *   bad input     hierarchy_levels that do not fit the grid, or with tear_strain,
 *                 are refused by the scene with a one-line error */
#include "test.h"

#include "core/log.h"
#include "scene/scene.h"
#include "sim/xpbd/hierarchy.h"
#include "sim/xpbd/xpbd_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

static const fl_cloth_desc DESCS[2] = {
    {.resolution = {13, 11}, .size = {1.2f, 1.0f}, .center = {0, 1, 0}, .mass = 1, .pin_count = 1,
     .pins = {{FL_PIN_PARTICLE, 1, 0}}, .stretch_compliance = 1e-6f, .shear_compliance = 1e-5f,
     .thickness = 0.01f, .bending = FL_BENDING_NONE, .hierarchy_levels = 3},
    {.resolution = {7, 6}, .size = {0.6f, 0.5f}, .center = {2, 1, 0}, .mass = 1, .stretch_compliance = 2e-6f,
     .shear_compliance = 1e-6f, .thickness = 0.01f, .bending = FL_BENDING_NONE, .hierarchy_levels = 2}};

static bool in_level(uint32_t n, uint32_t l, uint32_t i) { return i % (1u << l) == 0 || i == n - 1; }

static void test_levels(void)
{
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(DESCS, NULL, 2, &b), "%s", fl_error_message());
  const fl_hierarchy *h = &b.hier;
  uint32_t n = b.particle_count, *hits = calloc(n, 4), *stamp = malloc(n * 4);
  bool ok = h->levels == 3 && hits && stamp;
  for (uint32_t l = 1; ok && l < h->levels; l++) {
    memset(hits, 0, n * 4);
    for (uint32_t k = h->prolong_first[l]; k < h->prolong_first[l + 1]; k++) {
      const fl_gpu_prolong *p = &h->prolong[k];
      hits[p->target]++;
      float sum = 0;
      for (int q = 0; q < 4; q++) {
        ok = ok && p->weight[q] >= 0.0f;
        sum += p->weight[q];
        uint32_t o = b.particle_object[p->parent[q]], local = p->parent[q] - b.objects[o].first;
        ok = ok && in_level(b.objects[o].nx, l, local % b.objects[o].nx) && in_level(b.objects[o].ny, l, local / b.objects[o].nx);
      }
      ok = ok && fabsf(sum - 1.0f) < 1e-6f;
    }
    for (uint32_t p = 0; ok && p < n; p++) {
      uint32_t o = b.particle_object[p], local = p - b.objects[o].first, nx = b.objects[o].nx, ny = b.objects[o].ny;
      bool finer = DESCS[o].hierarchy_levels > l && in_level(nx, l - 1, local % nx) && in_level(ny, l - 1, local / nx);
      bool coarse = in_level(nx, l, local % nx) && in_level(ny, l, local / nx);
      ok = hits[p] == (finer && !coarse ? 1u : 0u);
      if (!ok) fprintf(stderr, "  level %u: particle %u targeted %u times\n", l, p, hits[p]);
    }
    for (uint32_t c = 0; ok && c < FL_HIER_COLORS; c++) {
      memset(stamp, 0, n * 4);
      uint32_t k = (l - 1) * FL_HIER_COLORS + c;
      for (uint32_t i = h->color_offsets[k]; i < h->color_offsets[k + 1]; i++) {
        const fl_gpu_distance *d = &h->constraints[i];
        ok = ok && !stamp[d->i]++ && !stamp[d->j]++;
        float dx[3], len = 0;
        for (int a = 0; a < 3; a++) dx[a] = b.positions[d->i][a] - b.positions[d->j][a], len += dx[a] * dx[a];
        ok = ok && fabsf(sqrtf(len) - d->rest) < 1e-6f;
        const fl_cloth_desc *desc = &DESCS[b.particle_object[d->i]];
        float fine = d->kind == FL_DISTANCE_STRETCH ? desc->stretch_compliance : desc->shear_compliance;
        float ratio = d->compliance / fine;
        ok = ok && ratio >= 1.0f && ratio <= (float)(1u << l) && ratio == floorf(ratio);
      }
      if (!ok) fprintf(stderr, "  level %u colour %u: shared particle, rest or compliance wrong\n", l, c);
    }
  }
  fprintf(stderr, "  %u levels, %u coarse constraints, %u prolongations\n", h->levels, h->constraint_count,
          h->prolong_count);
  free(hits);
  free(stamp);
  fl_xpbd_build_destroy(&b);
  ENSURE(ok);
}

static void test_prolongation(void)
{
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(DESCS, NULL, 2, &b), "%s", fl_error_message());
  uint32_t n = b.particle_count;
  float(*x)[4] = malloc((size_t)n * 16), (*x0)[4] = malloc((size_t)n * 16);
  memcpy(x0, b.positions, (size_t)n * 16);
  memcpy(x, b.positions, (size_t)n * 16);
  const float A[3][3] = {{1.1f, 0.2f, -0.1f}, {0.05f, 0.9f, 0.3f}, {-0.2f, 0.1f, 1.05f}}, t[3] = {0.3f, -0.2f, 0.1f};
  float(*want)[4] = malloc((size_t)n * 16);
  for (uint32_t p = 0; p < n; p++)
    for (int a = 0; a < 3; a++)
      want[p][a] = t[a] + A[a][0] * x0[p][0] + A[a][1] * x0[p][1] + A[a][2] * x0[p][2];
  const fl_hierarchy *h = &b.hier;
  /* Level 1's particles take the map; level 1's prolongation moves the rest of level 0. */
  uint32_t *target = calloc(n, 4);
  for (uint32_t k = h->prolong_first[1]; k < h->prolong_first[2]; k++) target[h->prolong[k].target] = 1;
  for (uint32_t p = 0; p < n; p++)
    if (!target[p]) memcpy(x[p], want[p], 12);
  fl_hierarchy_cpu_prolong(h, 1, x, (const float(*)[4])x0);
  double worst = 0;
  bool pinned_stays = true;
  for (uint32_t p = 0; p < n; p++) {
    if (!target[p]) continue;
    if (x0[p][3] == 0.0f) {
      pinned_stays = pinned_stays && memcmp(x[p], x0[p], 16) == 0;
      continue;
    }
    for (int a = 0; a < 3; a++) worst = fmax(worst, fabs((double)x[p][a] - want[p][a]));
  }
  fprintf(stderr, "  affine map prolonged: max error %.3g m\n", worst);
  free(x), free(x0), free(want), free(target);
  fl_xpbd_build_destroy(&b);
  ENSURE(pinned_stays);
  ENSURE_MSG(worst < 1e-5, "%.3g", worst);
}

static void test_unilateral(void)
{
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(DESCS, NULL, 1, &b), "%s", fl_error_message());
  const fl_hierarchy *h = &b.hier;
  uint32_t n = b.particle_count;
  float(*x)[4] = malloc((size_t)n * 16), *lambda = calloc(h->constraint_count, 4);
  double moved = 0, stretch_before = 0, stretch_after = 0;
  for (int squeeze = 0; squeeze < 2; squeeze++) {
    float s = squeeze ? 0.8f : 1.2f;
    for (uint32_t p = 0; p < n; p++) {
      for (int a = 0; a < 3; a++) x[p][a] = s * b.positions[p][a];
      x[p][3] = b.positions[p][3];
    }
    for (uint32_t l = 1; l < h->levels; l++) {
      double before = 0, after = 0;
      for (uint32_t c = h->color_offsets[(l - 1) * FL_HIER_COLORS]; c < h->color_offsets[l * FL_HIER_COLORS]; c++) {
        const fl_gpu_distance *d = &h->constraints[c];
        before += fabs(sqrt(pow(x[d->i][0] - x[d->j][0], 2) + pow(x[d->i][1] - x[d->j][1], 2) + pow(x[d->i][2] - x[d->j][2], 2)) - d->rest);
      }
      float(*start)[4] = malloc((size_t)n * 16);
      memcpy(start, x, (size_t)n * 16);
      fl_hierarchy_cpu_sweep(h, l, x, lambda, 1.0f / 240.0f);
      for (uint32_t c = h->color_offsets[(l - 1) * FL_HIER_COLORS]; c < h->color_offsets[l * FL_HIER_COLORS]; c++) {
        const fl_gpu_distance *d = &h->constraints[c];
        after += fabs(sqrt(pow(x[d->i][0] - x[d->j][0], 2) + pow(x[d->i][1] - x[d->j][1], 2) + pow(x[d->i][2] - x[d->j][2], 2)) - d->rest);
      }
      for (uint32_t p = 0; squeeze && p < n; p++)
        for (int a = 0; a < 3; a++) moved = fmax(moved, fabs((double)x[p][a] - start[p][a]));
      if (!squeeze) stretch_before += before, stretch_after += after;
      free(start);
    }
  }
  fprintf(stderr, "  stretched: coarse error %.4g -> %.4g m; compressed: moved %.3g m\n", stretch_before, stretch_after,
          moved);
  free(x);
  free(lambda);
  fl_xpbd_build_destroy(&b);
  ENSURE(moved == 0.0);
  ENSURE(stretch_after < 0.75 * stretch_before);
}

static double dist3(const float *a, const float *b)
{
  return sqrt(pow(a[0] - b[0], 2) + pow(a[1] - b[1], 2) + pow(a[2] - b[2], 2));
}

/* The carry's pairs: each fine constraint lies on its coarse constraint's segment (both ends within
 * 1e-6 m of the line, between its ends), appears once per level at most, and a covered coarse
 * constraint's fine springs add up to its rest length (the path is complete); every structural
 * coarse constraint is covered. */
static void test_carry(void)
{
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(DESCS, NULL, 2, &b), "%s", fl_error_message());
  const fl_hierarchy *h = &b.hier;
  const float(*rest)[4] = (const float(*)[4])b.positions;
  uint8_t *seen = calloc(b.distance.count, 1);
  double *covered = calloc(h->constraint_count, sizeof(double));
  double off_line = 0;
  bool once = true;
  for (uint32_t l = 1; l < h->levels; l++) {
    memset(seen, 0, b.distance.count);
    for (uint32_t k = h->carry_first[l]; k < h->carry_first[l + 1]; k++) {
      const fl_gpu_distance *f = &b.distances[h->carry[k][0]], *c = &h->constraints[h->carry[k][1]];
      once = once && !seen[h->carry[k][0]]++;
      uint32_t ends[2] = {f->i, f->j};
      for (int e = 0; e < 2; e++) /* |p - i| + |p - j| = |i - j| on the segment */
        off_line = fmax(off_line, dist3(rest[ends[e]], rest[c->i]) + dist3(rest[ends[e]], rest[c->j]) - c->rest);
      covered[h->carry[k][1]] += f->rest;
    }
  }
  double worst = 0;
  uint32_t structural = 0, uncovered = 0;
  for (uint32_t c = 0; c < h->constraint_count; c++) {
    if (covered[c] > 0) worst = fmax(worst, fabs(covered[c] - h->constraints[c].rest));
    if (h->constraints[c].kind == FL_DISTANCE_STRETCH) structural++, uncovered += covered[c] == 0;
  }
  fprintf(stderr, "  %u pairs; off the segment %.3g m, path length error %.3g m; %u of %u structural uncovered\n",
          h->carry_count, off_line, worst, uncovered, structural);
  /* the switch: the largest compliance / (w_i + w_j) is the first cloth's shear beside its pin, 1e-5 / 143 */
  float ratio = h->compliance_per_w;
  bool at_240 = fl_hierarchy_carries(h, 1.0f / 240.0f), at_60 = fl_hierarchy_carries(h, 1.0f / 60.0f);
  free(seen);
  free(covered);
  fl_xpbd_build_destroy(&b);
  ENSURE_MSG(fabs(ratio - 1e-5 / 143.0) < 1e-3 * 1e-5 / 143.0, "compliance per w %.4g", ratio);
  ENSURE(at_240 && !at_60); /* alpha~ / (w_i + w_j): 4.0e-3 at 1/240 s, 2.5e-4 at 1/60 s */
  ENSURE(once);
  ENSURE(off_line < 1e-6);
  ENSURE(worst < 1e-5);
  ENSURE(uncovered == 0 && structural > 0);
}

static void test_bad_input(void)
{
  static const char *const cases[][2] = {
      {"[5, 5], \"hierarchy_levels\": 4", "4 levels need at least 9 particles per side"},
      {"[32, 32], \"hierarchy_levels\": 9", "hierarchy_levels"},
      {"[32, 32], \"hierarchy_levels\": 3, \"tear_strain\": 0.5", "tearing cloth"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char json[512];
    snprintf(json, sizeof json,
             "{ \"objects\": [ { \"type\": \"cloth\", \"name\": \"c\", \"resolution\": %s } ] }", cases[i][0]);
    fl_scene scene;
    fl_error_clear();
    ENSURE_MSG(!fl_scene_parse(json, "inline.json", NULL, 0, &scene), "accepted %s", cases[i][0]);
    ENSURE_MSG(strstr(fl_error_message(), cases[i][1]) != NULL, "%s: %s", cases[i][0], fl_error_message());
  }
}

static const fl_test_case cases[] = {
    {"levels", test_levels},
    {"prolongation", test_prolongation},
    {"unilateral", test_unilateral},
    {"carry", test_carry},
    {"bad_input", test_bad_input},
};
FL_TEST_MAIN(cases)
