/* tests/gpu/test_softbody_world.c: soft bodies and balloons in whole worlds,
 * stepped the way the app does, checked against the physics they must obey
 * (issue 4): a soft sphere resting on the ground keeps >= 97 % of its volume
 * with no inverted tets; a balloon with pressure 1.5 reaches 1.5 V0 within
 * 10 %; a squeezed balloon loses < 2 % with volume conservation and much more
 * without; two bodies dropped onto each other do not interpenetrate; a soft
 * body dropped on a cloth hammock is caught by it (and render draws the cloth
 * as fabric, the body glossy); 1000 substeps leave no NaN. */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "sim/xpbd/body_build.h"
#include "sim/xpbd/tetrahedralize.h"

/* A figure the XPBD material reports for a body (NaN when absent). */
static double figure(const fl_object_stats *s, const char *key) { return fl_fixture_stat(s, NULL, key); }

static const char *const RESTING_SPHERE =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 10, \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"softbody\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [0, 0.45, 0], \"radius\": 0.3,\n"
    "      \"resolution\": 6, \"density\": 1000, \"edge_compliance\": 1e-4, \"volume_compliance\": 0, \"damping\": 1 }\n"
    "  ] }\n";

static void resting_sphere_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_object_stats s[1];
  bool ok = fl_fixture_run_scene(gpu, RESTING_SPHERE, 90, &scene, &world, s, 1);
  fl_world_destroy(world);
  ENSURE(ok);
  double volume = figure(&s[0], "volume"), rest = figure(&s[0], "rest_volume");
  printf("  resting soft sphere after 1.5 s: volume %.5f of rest %.5f (%.2f %%), tet ratios %.3f..%.3f, "
         "%.0f of %.0f tets inverted, centre y %.3f\n",
         volume, rest, 100 * volume / rest, figure(&s[0], "tet_volume_ratio_min"),
         figure(&s[0], "tet_volume_ratio_max"), figure(&s[0], "inverted_tets"), figure(&s[0], "tets"), s[0].com[1]);
  ENSURE_MSG(volume >= 0.97 * rest, "volume %.5f, rest %.5f", volume, rest);
  ENSURE(figure(&s[0], "tets") > 0 && figure(&s[0], "inverted_tets") == 0);
  ENSURE(s[0].com[1] < 0.45 && s[0].com[1] > 0.15); /* it fell and rests on the ground */
  ENSURE(s[0].max_speed < 0.5);
}
FL_GPU_TEST(resting_sphere, resting_sphere_body)

static const char *const INFLATED_BALLOON =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2, \"gravity\": [0, 0, 0],\n"
    "           \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"balloon\", \"name\": \"b\", \"center\": [0, 1, 0], \"radius\": 0.2, \"subdivisions\": 3,\n"
    "      \"pressure\": 1.5, \"pressure_compliance\": 0, \"stretch_compliance\": 1e-3, \"damping\": 1 }\n"
    "  ] }\n";

static void inflated_balloon_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_object_stats s[1];
  bool ok = fl_fixture_run_scene(gpu, INFLATED_BALLOON, 60, &scene, &world, s, 1);
  fl_world_destroy(world);
  ENSURE(ok);
  double ratio = figure(&s[0], "volume") / figure(&s[0], "rest_volume");
  printf("  balloon with pressure 1.5 after 1 s: V / V0 = %.4f\n", ratio);
  ENSURE(s[0].nan_count == 0);
  ENSURE_MSG(fabs(ratio - 1.5) <= 0.15, "V / V0 = %.4f, want 1.5 within 10 %%", ratio);
}
FL_GPU_TEST(inflated_balloon, inflated_balloon_body)

/* Three balloons, one per conservation mode, under one descending plate. */
static const char *const SQUEEZE =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 8, \"iterations\": 2,\n"
    "           \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"collider\", \"name\": \"plate\", \"shape\": \"box\", \"center\": [0, 0.55, 0],\n"
    "      \"half_extents\": [1.5, 0.05, 1], \"velocity\": [0, -0.4, 0], \"move_until\": 0.8 },\n"
    "    { \"type\": \"balloon\", \"name\": \"none\", \"center\": [-0.6, 0.16, 0], \"radius\": 0.14, \"subdivisions\": 3,\n"
    "      \"pressure_compliance\": 2e-3, \"volume_conservation\": \"none\", \"measure_after\": 0.2 },\n"
    "    { \"type\": \"balloon\", \"name\": \"global\", \"center\": [0, 0.16, 0], \"radius\": 0.14, \"subdivisions\": 3,\n"
    "      \"pressure_compliance\": 2e-3, \"volume_conservation\": \"global\", \"measure_after\": 0.2 },\n"
    "    { \"type\": \"balloon\", \"name\": \"local\", \"center\": [0.6, 0.16, 0], \"radius\": 0.14, \"subdivisions\": 3,\n"
    "      \"pressure_compliance\": 2e-3, \"volume_conservation\": \"local\", \"measure_after\": 0.2 }\n"
    "  ] }\n";

static void squeezed_balloons_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_object_stats s[3];
  bool ok = fl_fixture_run_scene(gpu, SQUEEZE, 75, &scene, &world, s, 3);
  double worst[3] = {0, 0, 0};
  fl_material_summary sums[4];
  int count = ok ? fl_world_summaries(world, NULL, false, sums, 4) : -1;
  ok = count == 1;
  static const char *const modes[3] = {"none", "global", "local"};
  for (int m = 0; ok && m < 3; m++) worst[m] = fl_stats_value(&sums[0].report, "worst_volume_loss", modes[m]);
  fl_world_destroy(world);
  ENSURE(ok);
  printf("  squeezed balloons, worst volume loss: none %.2f %%, global %.2f %%, local %.2f %%; heights %.3f %.3f %.3f\n",
         100 * worst[0], 100 * worst[1], 100 * worst[2], s[0].bbox_max[1] - s[0].bbox_min[1],
         s[1].bbox_max[1] - s[1].bbox_min[1], s[2].bbox_max[1] - s[2].bbox_min[1]);
  for (int i = 0; i < 3; i++) ENSURE(s[i].nan_count == 0);
  /* the plate did squeeze them: each is well below its 0.28 m diameter */
  for (int i = 0; i < 3; i++) ENSURE(s[i].bbox_max[1] - s[i].bbox_min[1] < 0.22f);
  ENSURE_MSG(worst[1] < 0.02 && worst[2] < 0.02, "global %.4f, local %.4f", worst[1], worst[2]);
  ENSURE_MSG(worst[0] > 0.05 && worst[0] > 5 * fmax(worst[1], worst[2]), "none %.4f", worst[0]);
}
FL_GPU_TEST(squeezed_balloons, squeezed_balloons_body)

static const char *const STACK =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 10, \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"softbody\", \"name\": \"lower\", \"shape\": \"box\", \"center\": [0, 0.25, 0],\n"
    "      \"half_extents\": [0.3, 0.2, 0.3], \"resolution\": 6, \"edge_compliance\": 1e-4, \"damping\": 1 },\n"
    "    { \"type\": \"softbody\", \"name\": \"upper\", \"shape\": \"sphere\", \"center\": [0.05, 1.0, 0],\n"
    "      \"radius\": 0.22, \"resolution\": 5, \"edge_compliance\": 1e-4, \"damping\": 1 }\n"
    "  ] }\n";

/* Smallest barycentric coordinate of p in tet (a, b, c, d): >= 0 inside. */
static double min_barycentric(const float *a, const float *b, const float *c, const float *d, const float *p)
{
  double v = fl_tet_volume(a, b, c, d);
  if (!(fabs(v) > 1e-15)) return -1;
  double w[4] = {fl_tet_volume(p, b, c, d) / v, fl_tet_volume(a, p, c, d) / v, fl_tet_volume(a, b, p, d) / v,
                 fl_tet_volume(a, b, c, p) / v};
  return fmin(fmin(w[0], w[1]), fmin(w[2], w[3]));
}

/* How many of `mover`'s surface particles lie inside one of `body`'s tets (now). */
static uint32_t particles_inside(const fl_body_build *body, const float (*body_pos)[4], const fl_body_build *mover,
                                 const float (*mover_pos)[4])
{
  uint8_t *on_surface = calloc(mover->particle_count, 1);
  if (!on_surface) return UINT32_MAX;
  for (uint32_t t = 0; t < mover->triangle_count; t++)
    for (int k = 0; k < 3; k++) on_surface[mover->triangles[t][k]] = 1;
  uint32_t inside = 0;
  for (uint32_t p = 0; p < mover->particle_count; p++) {
    if (!on_surface[p]) continue;
    for (uint32_t t = 0; t < body->tet_count; t++) {
      const uint32_t *v = body->tets[t].idx;
      if (min_barycentric(body_pos[v[0]], body_pos[v[1]], body_pos[v[2]], body_pos[v[3]], mover_pos[p]) > 1e-4) {
        inside++;
        break;
      }
    }
  }
  free(on_surface);
  return inside;
}

static void no_interpenetration_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  ENSURE(fl_fixture_make_world(gpu, STACK, &scene, &world));
  fl_body_build lower = {0}, upper = {0};
  bool ok = fl_profiler_create(gpu, &prof) && fl_softbody_build(&scene.objects[1].softbody, "lower", &lower) &&
            fl_softbody_build(&scene.objects[2].softbody, "upper", &upper);
  uint32_t worst = 0, checks = 0;
  double upper_bottom = 0, lower_top = 0;
  for (int round = 0; ok && round < 6; round++) { /* 15 frames each: the fall, the impact, the rest */
    ok = fl_fixture_step_frames(gpu, world, &prof, 15, true, NULL);
    float(*pl)[4] = NULL, (*pu)[4] = NULL, (*v)[4] = NULL;
    uint32_t nl = 0, nu = 0;
    ok = ok && fl_world_read_state(world, 0, &pl, &v, &nl);
    free(v);
    v = NULL;
    ok = ok && fl_world_read_state(world, 1, &pu, &v, &nu);
    free(v);
    if (ok && nl == lower.particle_count && nu == upper.particle_count) {
      uint32_t a = particles_inside(&lower, (const float(*)[4])pl, &upper, (const float(*)[4])pu);
      uint32_t b = particles_inside(&upper, (const float(*)[4])pu, &lower, (const float(*)[4])pl);
      if (a + b > worst) worst = a + b;
      checks++;
      upper_bottom = 1e9, lower_top = -1e9;
      for (uint32_t p = 0; p < nu; p++) upper_bottom = fmin(upper_bottom, pu[p][1]);
      for (uint32_t p = 0; p < nl; p++) lower_top = fmax(lower_top, pl[p][1]);
    } else {
      ok = false;
    }
    free(pl);
    free(pu);
  }
  fl_body_build_free(&lower);
  fl_body_build_free(&upper);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE(ok);
  printf("  sphere dropped on a box: %u checks, at most %u surface particles inside the other body; "
         "sphere bottom %.3f, box top %.3f\n", (unsigned)checks, (unsigned)worst, upper_bottom, lower_top);
  ENSURE(checks == 6);
  ENSURE(upper_bottom > lower_top - 0.02); /* it rests on the box, not in it */
  ENSURE(worst == 0);
}
FL_GPU_TEST(no_interpenetration, no_interpenetration_body)

/* A cloth hammock pinned at its four corners, a soft ball dropped onto it. */
static const char *const HAMMOCK =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 10, \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"cloth\", \"name\": \"hammock\", \"resolution\": [24, 24], \"size\": [1.2, 1.2],\n"
    "      \"center\": [0, 1, 0], \"mass\": 0.5, \"thickness\": 0.03,\n"
    "      \"pin\": [\"top-left\", \"top-right\", \"bottom-left\", \"bottom-right\"] },\n"
    "    { \"type\": \"softbody\", \"name\": \"ball\", \"shape\": \"sphere\", \"center\": [0, 1.5, 0], \"radius\": 0.2,\n"
    "      \"resolution\": 5, \"density\": 50, \"edge_compliance\": 1e-4, \"damping\": 1 }\n"
    "  ] }\n";

static void caught_by_cloth_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_object_stats s[2];
  bool ok = fl_fixture_run_scene(gpu, HAMMOCK, 60, &scene, &world, s, 2);
  fl_render_view views[8];
  uint32_t nviews = ok ? fl_world_views(world, 0, views, 8) : 0, fabric = 0, glossy = 0;
  for (uint32_t v = 0; v < nviews; v++) {
    fabric += views[v].kind == FL_VIEW_MESH && views[v].look == FL_LOOK_FABRIC;
    glossy += views[v].kind == FL_VIEW_MESH && views[v].look == FL_LOOK_GLOSSY;
  }
  fl_world_destroy(world);
  ENSURE(ok);
  ENSURE_MSG(fabric == 1 && glossy == 1, "mesh views: %u fabric (the cloth), %u glossy (the soft body)", fabric, glossy);
  printf("  soft ball on a cloth hammock after 1 s: ball bottom %.3f, cloth lowest point %.3f, ball centre %.3f\n",
         s[1].bbox_min[1], s[0].bbox_min[1], s[1].com[1]);
  ENSURE(s[0].nan_count == 0 && s[1].nan_count == 0);
  /* caught: the ball sits in the sagging cloth, above the ground, not through it */
  ENSURE(s[1].bbox_min[1] > 0.3f);
  ENSURE(s[1].bbox_min[1] > s[0].bbox_min[1] - 0.05f);
  ENSURE(s[0].bbox_min[1] < 0.98f); /* and the cloth did sag under it */
}
FL_GPU_TEST(caught_by_cloth, caught_by_cloth_body)

static const char *const LONG_RUN =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 10, \"domain\": { \"min\": [-1, 0, -1], \"max\": [1, 2, 1] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"collider\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"softbody\", \"name\": \"jelly\", \"shape\": \"torus\", \"center\": [0, 0.8, 0], \"radius\": 0.25,\n"
    "      \"minor_radius\": 0.1, \"resolution\": 8, \"edge_compliance\": 1e-3, \"velocity\": [1, 0, 0.5] },\n"
    "    { \"type\": \"softbody\", \"name\": \"neo\", \"shape\": \"box\", \"model\": \"neohookean\", \"center\": [0.3, 1.4, 0],\n"
    "      \"half_extents\": [0.15, 0.15, 0.15], \"resolution\": 4, \"youngs_modulus\": 5e4 },\n"
    "    { \"type\": \"balloon\", \"name\": \"b\", \"center\": [-0.4, 1.2, 0], \"radius\": 0.15, \"subdivisions\": 2,\n"
    "      \"pressure\": 1.2, \"volume_conservation\": \"local\", \"velocity\": [2, 0, 0] }\n"
    "  ] }\n";

static void thousand_substeps_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  fl_object_stats s[3];
  bool ok = fl_fixture_run_scene(gpu, LONG_RUN, 100, &scene, &world, s, 3);
  uint64_t substeps = ok ? fl_world_substeps(world) : 0;
  fl_world_destroy(world);
  ENSURE(ok);
  ENSURE(substeps == 1000);
  for (int i = 0; i < 3; i++) {
    printf("  %s after 1000 substeps: %u NaN, %u outside, max speed %.3f m/s\n", s[i].name, (unsigned)s[i].nan_count,
           (unsigned)s[i].outside_domain, s[i].max_speed);
    ENSURE(s[i].nan_count == 0 && s[i].outside_domain == 0);
    double volume = figure(&s[i], "volume");
    ENSURE(isfinite(volume) && volume > 0.5 * figure(&s[i], "target_volume"));
  }
  ENSURE(figure(&s[1], "inverted_tets") == 0);
}
FL_GPU_TEST(thousand_substeps, thousand_substeps_body)

static const fl_test_case cases[] = {
    {"resting_sphere", resting_sphere},       {"inflated_balloon", inflated_balloon},
    {"squeezed_balloons", squeezed_balloons}, {"no_interpenetration", no_interpenetration},
    {"caught_by_cloth", caught_by_cloth},     {"thousand_substeps", thousand_substeps},
};
FL_TEST_MAIN(cases)
