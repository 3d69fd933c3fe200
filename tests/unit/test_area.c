/* tests/unit/test_area.c: the triangle area constraint of cloth (docs/AREA.md)
 * in the CPU reference (sim/xpbd/xpbd_cpu.c):
 *   area_gradient      fl_area_eval_cpu's gradient against central differences
 *                      of its own C on random triangles, C at rest = 0, and the
 *                      gradients sum to zero (translation invariance)
 *   area_under_stretch a 16 x 16 sheet hanging from one edge with stretchy edges
 *                      (stretch and shear compliance 2e-2 m/N) for 2 s: the
 *                      sheet stretches (some edge by more than 2 %) but with
 *                      area_compliance 0 its area stays within 1 % of the rest
 *                      area and no triangle is more than 2 % off; without area
 *                      constraints the area grows by more than 2 % and some
 *                      triangle by more than 5 % */
#include "test.h"

#include "core/log.h"
#include "sim/xpbd/xpbd_build.h"
#include "sim/xpbd/xpbd_cpu.h"

#include <math.h>

static void test_area_gradient(void)
{
  double worst = 0;
  uint32_t rng = 99;
  for (int trial = 0; trial < 20; trial++) {
    float x[9] = {0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int k = 0; k < 9; k++) x[k] = 0.5f * x[k] + fl_test_rnd(&rng, -0.2f, 0.2f);
    fl_gpu_area a = {.idx = {0, 1, 2, 0}, .rest = 0.0f};
    float C0, g[9], gsum[3] = {0, 0, 0};
    ENSURE(fl_area_eval_cpu(&a, x, &C0, g));
    a.rest = C0; /* the rest area: C = 0 there */
    float C_rest, g_rest[9];
    ENSURE(fl_area_eval_cpu(&a, x, &C_rest, g_rest));
    ENSURE_NEAR(C_rest, 0.0f, 0.0f);
    for (int k = 0; k < 9; k++) {
      float e = 1e-3f, xp[9], xm[9], cp, cm, gp[9], gm[9];
      memcpy(xp, x, sizeof xp);
      memcpy(xm, x, sizeof xm);
      xp[k] += e;
      xm[k] -= e;
      fl_area_eval_cpu(&a, xp, &cp, gp);
      fl_area_eval_cpu(&a, xm, &cm, gm);
      worst = fmax(worst, fabs((double)(cp - cm) / (2.0 * e) - g[k]));
      gsum[k % 3] += g[k];
    }
    for (int k = 0; k < 3; k++) ENSURE(fabsf(gsum[k]) < 1e-6f);
  }
  fprintf(stderr, "  largest |analytic - central difference| = %.3g\n", worst);
  ENSURE(worst < 2e-3);
  float flat[9] = {0, 0, 0, 1, 0, 0, 2, 0, 0}, C, g[9];
  fl_gpu_area a = {.idx = {0, 1, 2, 0}, .rest = 0.5f};
  ENSURE(!fl_area_eval_cpu(&a, flat, &C, g)); /* degenerate: skipped, zero gradients */
  for (int k = 0; k < 9; k++) ENSURE(g[k] == 0.0f);
}

typedef struct {
  double area_ratio, worst_triangle, strain;
} hang_result;

/* The sheet after hanging for 2 s: its total area / rest area, the worst |A / A0 - 1| of a triangle, and
 * the largest strain |x_i - x_j| / rest - 1 of its stretch and shear edges. */
static bool hang(bool area, hang_result *out)
{
  fl_cloth_desc d = {
      .resolution = {16, 16}, .size = {1, 1}, .center = {0, 2, 0}, .plane = FL_PLANE_XZ, .mass = 1.0f,
      .pins = {{FL_PIN_ROW, 0, 0}}, .pin_count = 1, .stretch_compliance = 2e-2f, .shear_compliance = 2e-2f,
      .bend_compliance = 1e-3f, .bending = FL_BENDING_ISOMETRIC, .damping = 1.0f, .damping_model = FL_DAMPING_POINT,
      .thickness = 0.01f, .friction = {0.5f, 0.4f}, .area = area, .area_compliance = 0.0f};
  fl_xpbd_build b;
  if (!fl_cloth_build_create(&d, NULL, 1, &b)) return false;
  fl_xpbd_cpu c;
  if (!fl_xpbd_cpu_create(&b, &c)) {
    fl_xpbd_build_destroy(&b);
    return false;
  }
  fl_sim_desc sim = {.dt = 1.0f / 60.0f, .substeps = 10, .iterations = 2, .gravity = {0, -9.81f, 0},
                     .domain_min = {-5, -5, -5}, .domain_max = {5, 5, 5}, .solver = FL_SOLVER_COLORING,
                     .relaxation = 1.5f, .collider_normals = FL_NORMALS_ANALYTIC};
  float h = sim.dt / (float)sim.substeps;
  for (int s = 0; s < 1200; s++) fl_xpbd_cpu_substep(&c, &sim, NULL, 0, h, h * (float)(s + 1));
  double total = 0, rest = 0, worst = 0, strain = 0;
  for (uint32_t t = 0; t < b.triangle_count; t++) {
    const uint32_t *v = &b.triangles[3 * t];
    float x[9], x0[9], a_now, a_rest, g[9];
    for (int k = 0; k < 3; k++) {
      memcpy(x + 3 * k, c.x[v[k]], 3 * sizeof(float));
      memcpy(x0 + 3 * k, b.positions[v[k]], 3 * sizeof(float));
    }
    fl_gpu_area zero = {.rest = 0.0f};
    fl_area_eval_cpu(&zero, x, &a_now, g);
    fl_area_eval_cpu(&zero, x0, &a_rest, g);
    total += a_now;
    rest += a_rest;
    worst = fmax(worst, fabs(a_now / a_rest - 1.0));
  }
  for (uint32_t e = 0; e < b.distance.count; e++) {
    const fl_gpu_distance *dd = &b.distances[e];
    double l = 0;
    for (int a = 0; a < 3; a++) l += pow((double)c.x[dd->i][a] - c.x[dd->j][a], 2);
    strain = fmax(strain, sqrt(l) / dd->rest - 1.0);
  }
  fl_xpbd_cpu_destroy(&c);
  fl_xpbd_build_destroy(&b);
  *out = (hang_result){total / rest, worst, strain};
  return true;
}

static void test_area_under_stretch(void)
{
  hang_result with, without;
  fl_error_clear();
  ENSURE_MSG(hang(true, &with), "%s", fl_error_message());
  ENSURE_MSG(hang(false, &without), "%s", fl_error_message());
  fprintf(stderr,
          "  with area constraints: A / A0 = %.4f, worst triangle %.2f %%, largest edge strain %.1f %%; "
          "without: A / A0 = %.4f, worst triangle %.2f %%, largest edge strain %.1f %%\n",
          with.area_ratio, 100 * with.worst_triangle, 100 * with.strain, without.area_ratio,
          100 * without.worst_triangle, 100 * without.strain);
  ENSURE(with.strain > 0.02); /* stretched */
  ENSURE(fabs(with.area_ratio - 1.0) < 0.01);
  ENSURE(with.worst_triangle < 0.02);
  ENSURE(without.area_ratio > 1.02 && without.worst_triangle > 0.05);
}

static const fl_test_case TESTS[] = {
    {"area_gradient", test_area_gradient},
    {"area_under_stretch", test_area_under_stretch},
};
FL_TEST_MAIN(TESTS)
