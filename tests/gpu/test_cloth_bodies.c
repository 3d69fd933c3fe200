/* tests/gpu/test_cloth_bodies.c: a cloth dropped onto a soft body and a
 * balloon through triangle contacts (issue 15, docs/CLOTH.md), checked on the
 * CPU at several moments with the exact segment-triangle test: no cloth vertex
 * inside either body (ray parity), no cloth edge through a body's triangle and
 * no body edge through a cloth triangle (a body vertex on the wrong side of
 * the cloth would need one), the smallest cloth-to-body distances reported.
 * Frames are substeps of 1/240 s, as in test_cloth_contact.c. CTest runs a
 * 32x32 cloth for 120 substeps; FLURRY_CONTACT_FULL=1 runs the 64x64
 * by hand: about 4 minutes on the loaded 2-core lavapipe machine since the
 * pair list, but it fails there (cloth vertices inside the soft body by
 * substep 80: docs/CLOTH.md), so CTest does not run it. */
#include "gpu_fixture.h"
#include "world_fixture.h"
#include "contact_checks.h"

#define BODIES_JSON_HEAD                                                                                         \
  "{ \"sim\": { \"dt\": 0.0041666667, \"substeps\": 1, \"iterations\": 2, \"gravity\": [0, -9.81, 0],"          \
  " \"domain\": { \"min\": [-2, 0, -2], \"max\": [2, 3, 2] } }, \"objects\": ["                                  \
  "{ \"type\": \"cloth\", \"name\": \"cloth\", \"resolution\": [%d, %d], \"size\": [1, 1],"                    \
  " \"center\": [0, 0.46, 0], \"mass\": 0.2, \"bend_compliance\": 1e-2, \"thickness\": %.5f,"                  \
  " \"friction\": [0.5, 0.4], \"self_collision\": \"triangles\" },"
#define BODIES_JSON_TAIL                                                                                         \
  "{ \"type\": \"softbody\", \"name\": \"soft\", \"shape\": \"sphere\", \"center\": [-0.23, 0.19, 0],"         \
  " \"radius\": 0.18, \"resolution\": 6, \"density\": 400, \"edge_compliance\": 1e-3, \"damping\": 0.5,"       \
  " \"thickness\": 0.01 },"                                                                                     \
  "{ \"type\": \"balloon\", \"name\": \"balloon\", \"center\": [0.23, 0.19, 0.02], \"radius\": 0.18,"          \
  " \"subdivisions\": 3, \"mass\": 0.1, \"pressure\": 1.1, \"damping\": 0.5, \"thickness\": 0.01 },"           \
  "{ \"type\": \"collider\", \"name\": \"ground\", \"shape\": \"plane\", \"normal\": [0, 1, 0], \"offset\": 0 } ] }"

static void cloth_on_bodies_body(fl_gpu *gpu)
{
  /* 32x32 in CTest, the 64x64 by hand; SwiftShader (the trimmed device) runs 16x16. */
  const char *full = getenv("FLURRY_CONTACT_FULL");
  int res = full && strcmp(full, "1") == 0 ? 64 : fl_fixture_trim(32, 16), rounds = 3, per_round = 40;
  double spacing = 1.0 / (res - 1), thickness = 0.3 * spacing;
  char json[2048];
  snprintf(json, sizeof json, BODIES_JSON_HEAD BODIES_JSON_TAIL, res, res, thickness);
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_body_build soft = {0}, balloon = {0};
  ENSURE(fl_fixture_make_world(gpu, json, &scene, &world));
  bool ok = fl_profiler_create(gpu, &prof) && fl_softbody_build(&scene.objects[1].softbody, "soft", &soft) &&
            fl_balloon_build(&scene.objects[2].balloon, "balloon", &balloon);
  const fl_body_build *builds[2] = {&soft, &balloon};
  static const char *const names[2] = {"soft body", "balloon"};
  uint32_t worst = 0;
  float closest[2] = {INFINITY, INFINITY};
  for (int round = 0; ok && round < rounds; round++) {
    ok = fl_fixture_step_frames(gpu, world, &prof, per_round, true, NULL);
    sheet cloth, body;
    ok = ok && sheet_read(world, 0, (uint32_t)res, (uint32_t)res, &cloth);
    for (uint32_t k = 0; ok && k < 2; k++) {
      ok = body_read(world, 1 + k, builds[k], &body);
      if (ok) {
        uint32_t inside = inside_count(&cloth, &body);
        uint32_t cross = crossings(&cloth, &body, false) + crossings(&body, &cloth, false);
        closest[k] = fminf(min_distance(&cloth, &body), min_distance(&body, &cloth));
        fprintf(stderr, "  frame %d, %s: %u cloth vertices inside, %u edge-triangle crossings, closest %.4f m\n",
                per_round * (round + 1), names[k], inside, cross, (double)closest[k]);
        if (inside + cross > worst) worst = inside + cross;
      }
      sheet_free(&body);
    }
    sheet_free(&cloth);
  }
  fl_body_build_free(&soft);
  fl_body_build_free(&balloon);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
  ENSURE_MSG(ok, "%s", fl_error_message());
  fprintf(stderr, "  %dx%d cloth, thickness %.4f m (0.3 x spacing), reach to the bodies %.4f m: closest %.4f m to the "
          "soft body, %.4f m to the balloon\n", res, res, thickness, 0.5 * (thickness + 0.01), (double)closest[0],
          (double)closest[1]);
  ENSURE(worst == 0);
  /* The cloth lies on both bodies (the test is not vacuous). */
  ENSURE(closest[0] < 0.02f && closest[1] < 0.02f);
}
FL_GPU_TEST(test_cloth_on_bodies, cloth_on_bodies_body)

static const fl_test_case cases[] = {
    {"cloth_on_bodies", test_cloth_on_bodies},
};
FL_TEST_MAIN(cases)
