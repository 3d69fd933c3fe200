/* tests/gpu/test_hierarchy.c: hierarchical PBD (sim/xpbd/hierarchy.h, the cloth key
 * hierarchy_levels, docs/HIERARCHY.md):
 *   kernels   the coarse-level sweeps, the prolongation and the carry on the GPU
 *             (shaders/xpbd/hier_*.comp, recorded by hierarchy_gpu.c) against the
 *             CPU reference (hierarchy.c), on two cloths whose sizes are not 2^k + 1
 *             (the always-kept last row and column), stretched and jittered so that
 *             every coarse constraint acts: within 1e-5 of the size, pins bitwise
 *             in place, and the pass moves the sheet by more than 1e-2 of its size
 *   rest_sag  a damped 17x17 sheet (hard stretch and shear) released horizontal,
 *             pinned along one edge, comes to rest hanging with the same mean sag
 *             (< 2 %) with 4 levels as flat: the coarse levels speed the solve up,
 *             they do not change its answer
 *   rest_sag_compliant  the same with stretch and shear compliance 1e-4: the
 *             extension beyond the rest shape is the flat one (< 2 %) thanks to
 *             the carry of the coarse multipliers (docs/HIERARCHY.md); without
 *             it, ten times too small */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "gpu/rec.h"
#include "sim/xpbd/hierarchy_gpu.h"
#include "sim/xpbd/xpbd_build.h"

static uint32_t rng = 0x9e3779b9u;
static float rnd(float lo, float hi)
{
  rng = rng * 1664525u + 1013904223u;
  return lo + (hi - lo) * (float)(rng >> 8) / 16777216.0f;
}

static void kernels_body(fl_gpu *gpu)
{
  fl_cloth_desc d[2] = {
      {.resolution = {13, 11}, .size = {1.2f, 1.0f}, .center = {0, 1, 0}, .mass = 1, .pin_count = 1,
       .pins = {{FL_PIN_ROW, -1, 0}}, .stretch_compliance = 1e-6f, .shear_compliance = 1e-4f, .damping = 0.1f,
       .thickness = 0.01f, .bending = FL_BENDING_NONE, .hierarchy_levels = 3},
      {.resolution = {7, 6}, .size = {0.6f, 0.5f}, .center = {2, 1, 0}, .mass = 1, .pin_count = 0,
       .stretch_compliance = 0, .shear_compliance = 1e-6f, .damping = 0.1f, .thickness = 0.01f,
       .bending = FL_BENDING_NONE, .hierarchy_levels = 2}};
  fl_xpbd_build b;
  ENSURE_MSG(fl_cloth_build_create(d, NULL, 2, &b), "%s", fl_error_message());
  const fl_hierarchy *h = &b.hier;
  uint32_t n = b.particle_count;
  float(*x)[4] = malloc((size_t)n * 16), (*cpu)[4] = malloc((size_t)n * 16), (*gpu_x)[4] = malloc((size_t)n * 16);
  float(*x0)[4] = malloc((size_t)n * 16), *lambda = calloc(h->constraint_count + 1, 4);
  for (uint32_t p = 0; p < n; p++) { /* stretched by 15 % about the centre, jittered: every coarse constraint acts */
    for (int a = 0; a < 3; a++) x[p][a] = 1.15f * b.positions[p][a] + rnd(-0.01f, 0.01f);
    x[p][3] = b.positions[p][3];
  }
  memcpy(cpu, x, (size_t)n * 16);
  fl_xpbd_push push = {0};
  push.solve_h = 1.0f / 240.0f;
  const uint32_t iterations = 2;
  uint32_t nf = b.distance.count;
  float *fine_lambda = calloc(nf + 1, 4), *gpu_lambda = calloc(nf + 1, 4);
  const fl_hierarchy_fine fine = FL_HIERARCHY_FINE(&b);
  fl_hierarchy_cpu_substep(h, &fine, n, cpu, x0, lambda, fine_lambda, iterations, push.solve_h);

  fl_hierarchy_gpu g;
  fl_buffer pos = {0}, fine_cons = {0}, fine_lam = {0};
  fl_descriptor_cache sets = {0};
  fl_rec r;
  bool ok = fl_hierarchy_gpu_create(gpu, h, n, &g) && fl_buffer_create_with(gpu, x, (VkDeviceSize)n * 16, "pos", &pos) &&
            fl_buffer_create_with(gpu, b.distances, (VkDeviceSize)nf * sizeof *b.distances, "fine", &fine_cons) &&
            fl_buffer_create_with(gpu, gpu_lambda, (VkDeviceSize)nf * 4, "fine lambda", &fine_lam) &&
            fl_descriptor_cache_create(gpu, "hierarchy test", &sets) && fl_rec_begin_once(gpu, &sets, &r);
  if (ok) {
    fl_hierarchy_gpu_record(&g, h, &r, &pos, n, push, iterations, &fine, (fl_hierarchy_gpu_fine){&fine_cons, &fine_lam});
    ok = fl_rec_end_once(&r) && fl_buffer_readback(gpu, &pos, 0, gpu_x, (VkDeviceSize)n * 16) &&
         fl_buffer_readback(gpu, &fine_lam, 0, gpu_lambda, (VkDeviceSize)nf * 4);
  }
  double worst = 0, moved = 0, worst_lambda = 0, carried = 0;
  for (uint32_t c = 0; ok && c < nf; c++) {
    worst_lambda = fmax(worst_lambda, fabs((double)gpu_lambda[c] - fine_lambda[c]));
    carried = fmax(carried, fabs((double)fine_lambda[c]));
  }
  bool pins = true;
  for (uint32_t p = 0; ok && p < n; p++) {
    for (int a = 0; a < 3; a++) {
      worst = fmax(worst, fabs((double)gpu_x[p][a] - cpu[p][a]));
      moved = fmax(moved, fabs((double)cpu[p][a] - x[p][a]));
    }
    if (x[p][3] == 0.0f) pins = pins && memcmp(gpu_x[p], x[p], 16) == 0;
  }
  fprintf(stderr,
          "  %u levels, %u coarse constraints, %u prolongations, %u carried: max |gpu - cpu| %.3g m, moved %.3g m;"
          " fine lambdas up to %.3g, max |gpu - cpu| %.3g\n",
          h->levels, h->constraint_count, h->prolong_count, h->carry_count, worst, moved, carried, worst_lambda);
  fl_descriptor_cache_destroy(&sets);
  fl_buffer_destroy(gpu, &pos);
  fl_buffer_destroy(gpu, &fine_cons);
  fl_buffer_destroy(gpu, &fine_lam);
  free(fine_lambda), free(gpu_lambda);
  fl_hierarchy_gpu_destroy(gpu, &g);
  free(x), free(cpu), free(gpu_x), free(x0), free(lambda);
  uint32_t levels = h->levels;
  bool carries = fl_hierarchy_carries(h, push.solve_h);
  fl_xpbd_build_destroy(&b);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(levels == 3);
  ENSURE(carries); /* shear 1e-4 on the first cloth: the carry runs */
  ENSURE(pins);
  ENSURE_MSG(moved > 1e-2 * 1.2, "the hierarchy moved the sheet by only %.3g m", moved);
  ENSURE_MSG(worst <= 1e-5 * 1.2, "max |gpu - cpu| = %.3g m", worst);
  ENSURE_MSG(carried > 0 && worst_lambda <= 1e-5 * carried, "carried lambdas up to %.3g, max |gpu - cpu| %.3g", carried,
             worst_lambda);
}
FL_GPU_TEST(test_kernels, kernels_body)

/* Mean sag (rest y - y) of a damped N x N sheet (1 m, 10 kg) released horizontal with `pins`, after `frames`. */
static bool rest_sag(fl_gpu *gpu, int n, int levels, int iterations, int frames, double compliance, const char *pins,
                     double *sag, double *vmax)
{
  char json[1024];
  snprintf(json, sizeof json,
           "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 10, \"iterations\": %d, \"gravity\": [0, -9.81, 0],\n"
           "           \"domain\": { \"min\": [-100, -100, -100], \"max\": [100, 100, 100] } },\n"
           "  \"objects\": [ { \"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [%d, %d], \"plane\": \"xz\",\n"
           "    \"mass\": 10, \"pin\": [%s], \"bending\": \"none\", \"damping\": 6,\n"
           "    \"stretch_compliance\": %g, \"shear_compliance\": %g, \"hierarchy_levels\": %d } ] }",
           iterations, n, n, pins, compliance, compliance, levels);
  fl_scene scene;
  fl_world *world = NULL;
  if (!fl_fixture_make_world(gpu, json, &scene, &world)) return false;
  fl_profiler prof;
  uint32_t slot = 0, count = 0;
  float(*pos)[4] = NULL, (*vel)[4] = NULL;
  bool ok = fl_profiler_create(gpu, &prof) && fl_fixture_step_frames(gpu, world, &prof, frames, true, &slot) &&
            fl_world_read_state(world, 0, &pos, &vel, &count);
  *sag = *vmax = 0;
  for (uint32_t p = 0; ok && p < count; p++) { /* plane "xz", centre y 1: rest y 1 */
    *sag += 1.0 - pos[p][1];
    *vmax = fmax(*vmax, sqrt((double)vel[p][0] * vel[p][0] + (double)vel[p][1] * vel[p][1] + (double)vel[p][2] * vel[p][2]));
  }
  if (ok) *sag /= count;
  free(pos);
  free(vel);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  if (ok) fprintf(stderr, "  %dx%d, %d level(s), %d iterations: mean sag %.6g m, max speed %.3g m/s\n", n, n, levels,
                  iterations, *sag, *vmax);
  return ok;
}

static void rest_sag_body(fl_gpu *gpu)
{
  double flat, hier, vf, vh;
  ENSURE_MSG(rest_sag(gpu, 17, 1, 8, 150, 0, "\"top\"", &flat, &vf) &&
                 rest_sag(gpu, 17, 4, 8, 150, 0, "\"top\"", &hier, &vh), "%s", fl_error_message());
  ENSURE(vf < 0.02 && vh < 0.02); /* at rest */
  ENSURE(flat > 1e-3);            /* and sagging */
  ENSURE_MSG(fabs(hier - flat) < 0.02 * flat, "rest sag %.6g with 4 levels against %.6g flat", hier, flat);
}
FL_GPU_TEST(test_rest_sag, rest_sag_body)

/* The same with compliant stretch and shear (1e-4), where the sheet hangs 1.8 mm longer than
 * its 0.5 m mean rest distance from the pins: the coarse levels hand the fine solve their
 * multipliers (the carry, docs/HIERARCHY.md), so this extension is the flat solve's (< 2 %).
 * Before the carry the coarse corrections acted as extra springs: 0.17 mm, ten times too stiff.
 * 8 iterations: the flat extension is within 0.2 % of its 64-iteration value. */
static void rest_sag_compliant_body(fl_gpu *gpu)
{
  double flat, hier, vf, vh;
  ENSURE_MSG(rest_sag(gpu, 17, 1, 8, 150, 1e-4, "\"top\"", &flat, &vf) &&
                 rest_sag(gpu, 17, 4, 8, 150, 1e-4, "\"top\"", &hier, &vh), "%s", fl_error_message());
  ENSURE(vf < 0.02 && vh < 0.02);
  double ef = flat - 0.5, eh = hier - 0.5; /* the extension beyond the rest shape's mean distance from the top row */
  ENSURE_MSG(ef > 1e-3, "flat extension %.4g m", ef);
  ENSURE_MSG(fabs(eh - ef) < 0.02 * ef, "extension %.6g m with 4 levels against %.6g m flat", eh, ef);
}
FL_GPU_TEST(test_rest_sag_compliant, rest_sag_compliant_body)

static const fl_test_case cases[] = {
    {"kernels", test_kernels},
    {"rest_sag", test_rest_sag},
    {"rest_sag_compliant", test_rest_sag_compliant},
};
FL_TEST_MAIN(cases)
