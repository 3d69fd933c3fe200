/* tests/gpu/test_tear.c: cloth tearing on the GPU (sim/xpbd/tear_gpu.h).
 * xpbd/tear_flag finds exactly the distance constraints the CPU finds past
 * tear_strain on a jittered sheet, with the same strains; and a sheet held at
 * two edges and pushed through by a ball tears within a second, its GPU state
 * (each particle's inverse mass) agreeing with the CPU topology, every drawn
 * edge held by a constraint, the mass conserved, the colour offsets the
 * one-workgroup sweep reads (xpbd/gs_sweep.glsl) the recoloured CPU's, under validation; a
 * pressurized balloon poked by a small ball tears, loses its pressure, and its
 * volume falls below the untorn one's. */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include "sim/material.h"
#include "sim/xpbd/xpbd.h"

#include <math.h>

#define LIMIT 0.2f

static double strain_of(const float (*x)[4], const fl_gpu_distance *d)
{
  double s = 0;
  for (int k = 0; k < 3; k++) s += ((double)x[d->i][k] - x[d->j][k]) * ((double)x[d->i][k] - x[d->j][k]);
  return sqrt(s) / d->rest - 1.0;
}

static void flag_matches_cpu(fl_gpu *gpu)
{
  fl_cloth_desc d = {.resolution = {16, 16}, .size = {1, 1}, .center = {0, 1, 0}, .mass = 1, .shear_compliance = 1e-6f,
                     .bend_compliance = 1e-3f, .thickness = 0.01f, .tear_strain = LIMIT};
  char names[1][FL_SCENE_NAME_MAX] = {"sheet"};
  fl_xpbd_system s;
  ENSURE(fl_xpbd_create(gpu, &d, (const char(*)[FL_SCENE_NAME_MAX])names, 1, NULL, 0, &s));
  const fl_xpbd_build *b = &s.build;
  uint32_t n = b->particle_count, expected = 0, near = 0;
  float(*x)[4] = malloc((size_t)n * 16);
  memcpy(x, b->positions, (size_t)n * 16);
  uint32_t seed = 12345u;
  for (uint32_t p = 0; p < b->objects[0].count; p++)
    for (int k = 0; k < 3; k++) x[p][k] += fl_test_rnd(&seed, -0.0085f, 0.0085f);
  for (uint32_t c = 0; c < b->distance.count; c++) {
    double e = strain_of((const float(*)[4])x, &b->distances[c]);
    expected += e > LIMIT;
    near += fabs(e - LIMIT) < 1e-5;
  }
  fl_fixture_once once;
  bool ok = fl_buffer_upload(gpu, &s.pos, 0, x, (VkDeviceSize)n * 16) && fl_fixture_once_begin_slot(gpu, 1, &once);
  if (ok) {
    fl_tear_record_flag(&s.tear, &once.rec, &s.pos, &s.distance.constraints, &s.object_of, b->distance.count);
    ok = fl_fixture_once_end(&once);
  }
  const uint32_t(*report)[4] = s.tear.readback[1].mapped;
  printf("  %u of %u constraints past %.2f (CPU %u, %u within 1e-5 of it)\n", ok ? report[0][0] : 0,
         (unsigned)b->distance.count, LIMIT, (unsigned)expected, (unsigned)near);
  ENSURE(ok && s.tear.pending[1]);
  ENSURE(near == 0 && expected > 4 && expected <= FL_TEAR_MAX_REPORTS); /* a test that can tell */
  ENSURE(report[0][0] == expected);
  for (uint32_t k = 0; k < expected; k++) {
    uint32_t i = report[1 + k][0], j = report[1 + k][1];
    float e;
    memcpy(&e, &report[1 + k][2], sizeof e);
    const fl_gpu_distance *match = NULL;
    for (uint32_t c = 0; c < b->distance.count && !match; c++)
      if (b->distances[c].i == i && b->distances[c].j == j) match = &b->distances[c];
    ENSURE_MSG(match, "reported (%u, %u) is no constraint", (unsigned)i, (unsigned)j);
    ENSURE_NEAR(e, strain_of((const float(*)[4])x, match), 1e-4);
    ENSURE(e > LIMIT);
  }
  free(x);
  fl_xpbd_destroy(&s);
}

static const char *const PUSHED_SHEET =
    "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2,"
    " \"domain\": {\"min\": [-2, 0, -2], \"max\": [2, 3, 2]}},"
    " \"objects\": ["
    "  {\"type\": \"collider\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [0, 1.35, 0], \"radius\": 0.18,"
    "   \"keyframes\": [{\"t\": 0.1, \"position\": [0, 1.35, 0]}, {\"t\": 1.0, \"position\": [0, 0.4, 0]}]},"
    "  {\"type\": \"cloth\", \"name\": \"sheet\", \"resolution\": [16, 16], \"size\": [1, 1], \"center\": [0, 1.1, 0],"
    "   \"mass\": 0.3, \"pin\": [\"left\", \"right\"], \"damping\": 0.2, \"tear_strain\": 0.3}]}";

static bool queued(const fl_tear *t, uint32_t p)
{
  for (uint32_t k = 0; k < t->queued_count; k++)
    if (t->queued[k].src == p || t->queued[k].dst == p) return true;
  return false;
}

static void pushed_sheet_tears(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, PUSHED_SHEET, &scene, &world) && fl_profiler_create(gpu, &prof));
  /* The material's instance begins with its fl_xpbd_system (xpbd_material.c). */
  fl_xpbd_system *s = fl_world_material(world, &fl_material_xpbd);
  const fl_xpbd_build *b = &s->build;
  double mass = 0;
  for (uint32_t p = 0; p < b->objects[0].count; p++) mass += b->positions[p][3] > 0 ? 1.0 / b->positions[p][3] : 0;
  bool ok = fl_fixture_step_frames(gpu, world, &prof, fl_fixture_trim(60, 45), true, NULL);
  printf("  %u splits in %u batches, %.3f ms CPU a batch, %u particles now\n", s->tear.splits_done, s->tear.batches,
         s->tear.batches ? s->tear.cpu_ms_total / s->tear.batches : 0.0, (unsigned)b->objects[0].count);
  float(*x)[4] = NULL, (*v)[4] = NULL;
  uint32_t count = 0;
  ok = ok && fl_world_read_state(world, 0, &x, &v, &count);
  if (ok) {
    ENSURE(s->tear.splits_done >= 4);
    ENSURE(count == b->objects[0].count && count > 16 * 16);
    double now = 0;
    for (uint32_t p = 0; p < count; p++) {
      now += b->positions[p][3] > 0 ? 1.0 / b->positions[p][3] : 0;
      for (int k = 0; k < 3; k++) ENSURE(isfinite(x[p][k]) && x[p][k] > -2 && x[p][k] < 3);
      if (!queued(&s->tear, p)) /* the GPU's inverse masses are the CPU's (a queued split is next frame's) */
        ENSURE_MSG(x[p][3] == b->positions[p][3], "particle %u: w %g on the GPU, %g on the CPU", (unsigned)p,
                   (double)x[p][3], (double)b->positions[p][3]);
    }
    ENSURE_NEAR(now, mass, 1e-5 * mass);
    for (uint32_t t = 0; t < b->triangle_count; t++)
      for (int e = 0; e < 3; e++)
        ENSURE(fl_tear_has_distance(b, b->triangles[3 * t + e], b->triangles[3 * t + (e + 1) % 3]));
    ENSURE(fl_xpbd_colouring_valid(b));
    /* The sweep's colour offsets on the GPU are the recoloured ones (uploaded with the topology; a
     * tear collected in the last frame is uploaded by the next). */
    const fl_xpbd_family *gf[] = {&s->distance, &s->bend};
    const fl_constraint_family *cf[] = {&b->distance, &b->bend};
    for (int k = 0; k < 2 && !s->tear.upload; k++) {
      uint32_t offsets[FL_XPBD_MAX_COLOURS + 1];
      ENSURE(fl_buffer_readback(gpu, &gf[k]->colours, 0, offsets, (cf[k]->color_count + 1) * 4ull));
      for (uint32_t c = 0; c <= cf[k]->color_count; c++)
        ENSURE_MSG(offsets[c] == cf[k]->color_offsets[c], "family %d colour %u: %u on the GPU, %u on the CPU", k,
                   (unsigned)c, (unsigned)offsets[c], (unsigned)cf[k]->color_offsets[c]);
    }
    printf("  colour offsets %s (distance %u colours, %u records)\n",
           s->tear.upload ? "not compared: a tear waits for the next frame" : "equal on the GPU and the CPU",
           (unsigned)b->distance.color_count, (unsigned)b->distance.count);
  }
  free(x);
  free(v);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE(ok);
}

/* A balloon (hard pressure 1.4) that a small ball pushes into from above; %s: its tear_strain entry, or none. */
#define POKED_BALLOON \
    "{\"sim\": {\"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2," \
    " \"domain\": {\"min\": [-2, 0, -2], \"max\": [2, 3, 2]}}," \
    " \"objects\": [" \
    "  {\"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0}," \
    "  {\"type\": \"collider\", \"name\": \"finger\", \"shape\": \"sphere\", \"center\": [0, 0.6, 0], \"radius\": 0.05," \
    "   \"keyframes\": [{\"t\": 0.1, \"position\": [0, 0.6, 0]}, {\"t\": 0.7, \"position\": [0, 0.18, 0]}]}," \
    "  {\"type\": \"balloon\", \"name\": \"balloon\", \"center\": [0, 0.21, 0], \"radius\": 0.2, \"subdivisions\": 2," \
    "   \"pressure\": 1.4%s}]}"

/* Runs the poked balloon 60 frames; its final surface volume (body state x) and splits. */
static bool poke(fl_gpu *gpu, bool tears, double *volume, uint32_t *splits, bool *pressure_on)
{
  char json[1024];
  snprintf(json, sizeof json, POKED_BALLOON, tears ? ", \"tear_strain\": 0.3" : "");
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  if (!fl_fixture_make_world(gpu, json, &scene, &world) || !fl_profiler_create(gpu, &prof)) {
    fl_world_destroy(world);
    return false;
  }
  fl_xpbd_system *s = fl_world_material(world, &fl_material_xpbd); /* its first member */
  float state[FL_BODY_STATE_VEC4S][4];
  bool ok = fl_fixture_step_frames(gpu, world, &prof, 60, true, NULL) && fl_xpbd_read_body_state(s, state);
  *volume = state[0][0];
  *splits = s->tear.splits_done;
  *pressure_on = s->build.bodies[0].overpressure != 0;
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  return ok;
}

/* The same poke with and without tear_strain: the torn balloon loses its pressure and ends with less volume. */
static void poked_balloon_deflates(fl_gpu *gpu)
{
  double whole = 0, torn = 0;
  uint32_t splits_whole = 0, splits = 0;
  bool on_whole = false, on_torn = true;
  ENSURE(poke(gpu, false, &whole, &splits_whole, &on_whole) && poke(gpu, true, &torn, &splits, &on_torn));
  printf("  after 60 frames: volume %.5f m^3 whole, %.5f torn (%u splits, %.0f %%)\n", whole, torn, splits,
         100 * torn / whole);
  ENSURE(splits_whole == 0 && on_whole);
  ENSURE(splits > 0 && !on_torn);
  ENSURE(torn < 0.8 * whole);
}

FL_GPU_TEST(test_flag_matches_cpu, flag_matches_cpu)
FL_GPU_TEST(test_poked_balloon_deflates, poked_balloon_deflates)
FL_GPU_TEST(test_pushed_sheet_tears, pushed_sheet_tears)

static const fl_test_case TESTS[] = {
    {"flag_matches_cpu", test_flag_matches_cpu},
    {"pushed_sheet_tears", test_pushed_sheet_tears},
    {"poked_balloon_deflates", test_poked_balloon_deflates},
};

FL_TEST_MAIN(TESTS)
