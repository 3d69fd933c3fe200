/* tests/gpu/test_world.c: a world built from an inline JSON scene and stepped
 * for 60 frames the way the app does (one command buffer per frame, frame slots
 * alternating, profiler reset per slot): the report stats keep the particle
 * count and mass, stay finite and inside the domain, the profiler saw every
 * pass, the render views and snapshots match the state; and with no gravity and
 * no colliders momentum and kinetic energy are conserved and the centre of mass
 * moves in a straight line. */
#include "gpu_fixture.h"
#include "world_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "gpu/profiler.h"
#include "scene/scene.h"
#include "sim/world.h"

#define FRAMES 60



static const char *const BOX_SCENE =
    "{ \"name\": \"test box\",\n"
    "  \"sim\": { \"dt\": 0.0166666667, \"substeps\": 3, \"gravity\": [0, -9.81, 0],\n"
    "           \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 4, 2] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"particles\", \"name\": \"spray\", \"count\": 2000, \"center\": [0, 2.5, 0],\n"
    "      \"half_extents\": [0.8, 0.5, 0.8], \"velocity\": [2, 0.5, 0], \"velocity_jitter\": 1,\n"
    "      \"radius\": 0.03, \"mass\": 2.5, \"restitution\": 0.4, \"friction\": 0.3, \"seed\": 7 },\n"
    "    { \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0] },\n"
    "    { \"type\": \"collider\", \"name\": \"container\", \"shape\": \"box\", \"center\": [0, 2, 0],\n"
    "      \"half_extents\": [1.9, 2, 1.9], \"inside\": true }\n"
    "  ] }\n";

static void box_scene_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, BOX_SCENE, &scene, &world));
  fl_profiler prof;
  bool ok = fl_profiler_create(gpu, &prof);
  fl_object_stats before, after;
  uint32_t slot = 0;
  ok = ok && fl_world_stats(world, 0, &before) && fl_fixture_step_frames(gpu, world, &prof, FRAMES, true, &slot) &&
       fl_world_stats(world, 0, &after);
  /* The views of the last slot, and its snapshot against the state. */
  fl_render_view views[8];
  uint32_t nviews = ok ? fl_world_views(world, slot, views, 8) : 0;
  const fl_render_view *pv = NULL;
  for (uint32_t v = 0; v < nviews; v++)
    if (views[v].kind == FL_VIEW_PARTICLES) pv = &views[v];
  float (*pos)[4] = NULL, (*vel)[4] = NULL, (*snap)[4] = NULL;
  uint32_t count = 0, snap_bad = 0;
  if (ok && pv) {
    ok = fl_world_read_state(world, 0, &pos, &vel, &count);
    snap = malloc((size_t)count * sizeof *snap);
    ok = ok && snap && fl_buffer_readback(gpu, pv->positions, 0, snap, (VkDeviceSize)count * 16);
    for (uint32_t i = 0; ok && i < count; i++) {
      float speed = sqrtf(vel[i][0] * vel[i][0] + vel[i][1] * vel[i][1] + vel[i][2] * vel[i][2]);
      snap_bad += memcmp(snap[i], pos[i], 12) != 0 || fabsf(snap[i][3] - speed) > 1e-5f * fmaxf(1, speed);
    }
  }
  free(pos);
  free(vel);
  free(snap);
  const fl_profile_stat *integ = fl_profiler_find(&prof, "particles/integrate");
  const fl_profile_stat *coll = fl_profiler_find(&prof, "particles/collide");
  const fl_profile_stat *pub = fl_profiler_find(&prof, "particles/publish");
  bool can_time = prof.can_time[FL_QUEUE_COMPUTE];
  bool profiled = integ && coll && pub && integ->count == FRAMES && integ->executions == 3 &&
                  coll->count == FRAMES && coll->executions == 3 && pub->count == FRAMES && pub->executions == 1;
  if (integ) fprintf(stderr, "  integrate %.3f ms/frame, collide %.3f ms/frame (median over %u frames)\n",
                     fl_profile_summary(integ).median, fl_profile_summary(coll).median, integ->count);
  uint32_t objects = fl_world_object_count(world);
  uint64_t particles = fl_world_particle_count(world), substeps = fl_world_substeps(world);
  uint64_t largest = fl_world_largest_buffer(world);
  float ground = fl_world_ground_height(world);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);

  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(objects == 1 && particles == 2000 && substeps == 3 * FRAMES && largest == 2000 * 16);
  ENSURE(ground == 0.0f);
  ENSURE(!can_time || profiled);
  const fl_object_stats *s = &after;
  ENSURE(strcmp(s->name, "spray") == 0 && strcmp(s->type, "particles") == 0);
  ENSURE(s->particles == 2000);
  ENSURE_NEAR(s->mass, 2.5, 2.5e-5);
  ENSURE_NEAR(before.mass, 2.5, 2.5e-5);
  ENSURE(s->nan_count == 0);
  ENSURE(s->outside_domain == 0);
  for (int a = 0; a < 3; a++) {
    ENSURE_MSG(s->bbox_min[a] >= scene.sim.domain_min[a] && s->bbox_max[a] <= scene.sim.domain_max[a],
               "axis %d: bbox %g .. %g, domain %g .. %g", a, s->bbox_min[a], s->bbox_max[a],
               scene.sim.domain_min[a], scene.sim.domain_max[a]);
    ENSURE(s->bbox_min[a] <= s->com[a] && s->com[a] <= s->bbox_max[a]);
    /* Kept inside the container (centre [0, 2, 0], half [1.9, 2, 1.9]) and above the ground, less the radius. */
    float c = a == 1 ? 2.0f : 0.0f, half = a == 1 ? 2.0f : 1.9f, room = half - 0.03f + 1e-4f;
    ENSURE_MSG(s->bbox_min[a] >= c - room && s->bbox_max[a] <= c + room, "axis %d: bbox %g .. %g outside the container",
               a, s->bbox_min[a], s->bbox_max[a]);
  }
  ENSURE(isfinite(s->kinetic_energy) && isfinite(s->max_speed));
  /* One second of gravity and bouncing: the cloud fell and lost energy. */
  ENSURE_MSG(s->com[1] < before.com[1] - 0.5, "centre of mass y %g -> %g", before.com[1], s->com[1]);
  ENSURE(s->kinetic_energy < before.kinetic_energy + before.mass * 9.81 * (before.com[1] - s->com[1]));
  /* Views: the container's mesh (not the plane) and the particles. */
  ENSURE_MSG(nviews == 2, "%u views", nviews);
  ENSURE(pv != NULL);
  for (uint32_t v = 0; v < nviews; v++) /* a collider is drawn plain (matte); the container as a cutaway */
    ENSURE(views[v].kind != FL_VIEW_MESH ||
           (views[v].look == FL_LOOK_PLAIN && views[v].cutaway && views[v].color[3] > 0.0f));
  ENSURE(pv->count == s->particles && pv->radius == 0.03f);
  ENSURE(count == 2000);
  ENSURE_MSG(snap_bad == 0, "%u snapshot entries differ from the state", snap_bad);
}
FL_GPU_TEST(test_box_scene, box_scene_body)

static const char *const DRIFT_SCENE =
    "{ \"sim\": { \"dt\": 0.0166666667, \"substeps\": 2, \"gravity\": [0, 0, 0],\n"
    "           \"domain\": { \"min\": [-20, -20, -20], \"max\": [20, 20, 20] } },\n"
    "  \"objects\": [\n"
    "    { \"type\": \"particles\", \"count\": 1000, \"center\": [0.5, 1, -0.5], \"velocity\": [1, 0.5, -0.3],\n"
    "      \"velocity_jitter\": 0.5, \"mass\": 3, \"seed\": 3 }\n"
    "  ] }\n";

static void drift_body(fl_gpu *gpu)
{
  fl_scene scene;
  fl_world *world = NULL;
  ENSURE(fl_fixture_make_world(gpu, DRIFT_SCENE, &scene, &world));
  fl_profiler prof;
  bool ok = fl_profiler_create(gpu, &prof);
  fl_object_stats s0, s1, s2;
  uint32_t slot = 0;
  ok = ok && fl_world_stats(world, 0, &s0) && fl_fixture_step_frames(gpu, world, &prof, FRAMES, true, &slot) &&
       fl_world_stats(world, 0, &s1);
  uint64_t substeps = fl_world_substeps(world);
  /* Paused frames only republish: nothing moves. */
  ok = ok && fl_fixture_step_frames(gpu, world, &prof, 2, false, &slot) && fl_world_stats(world, 0, &s2);
  uint64_t substeps_paused = fl_world_substeps(world);
  fl_render_view views[4];
  uint32_t nviews = fl_world_views(world, slot, views, 4);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE_MSG(ok, "%s", fl_error_message());
  ENSURE(substeps == 2 * FRAMES && substeps_paused == substeps);

  double p0 = sqrt(s0.momentum[0] * s0.momentum[0] + s0.momentum[1] * s0.momentum[1] + s0.momentum[2] * s0.momentum[2]);
  double t = FRAMES * (double)scene.sim.dt;
  ENSURE(p0 > 1.0); /* the scene does move: 3 kg at ~1.2 m/s */
  fprintf(stderr, "  momentum (%g %g %g) -> (%g %g %g)\n", s0.momentum[0], s0.momentum[1], s0.momentum[2],
          s1.momentum[0], s1.momentum[1], s1.momentum[2]);
  for (int a = 0; a < 3; a++) {
    ENSURE_NEAR(s1.momentum[a], s0.momentum[a], 1e-4 * p0);
    double com = s0.com[a] + s0.momentum[a] / s0.mass * t;
    ENSURE_NEAR(s1.com[a], com, 1e-4 * fmax(1.0, fabs(com)));
    ENSURE(s2.com[a] == s1.com[a] && s2.momentum[a] == s1.momentum[a]);
  }
  ENSURE_NEAR(s1.kinetic_energy, s0.kinetic_energy, 1e-4 * s0.kinetic_energy);
  ENSURE_NEAR(s1.mass, 3.0, 3e-5);
  ENSURE(s1.nan_count == 0 && s1.outside_domain == 0 && s1.particles == 1000);
  ENSURE(nviews == 1 && views[0].kind == FL_VIEW_PARTICLES && views[0].count == 1000);
}
FL_GPU_TEST(test_momentum_conserved, drift_body)

static const fl_test_case cases[] = {
    {"box_scene", test_box_scene},
    {"momentum_conserved", test_momentum_conserved},
};
FL_TEST_MAIN(cases)
