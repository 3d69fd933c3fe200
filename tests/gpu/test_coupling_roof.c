/* tests/gpu/test_coupling_roof.c: carried snow slides (issue 18, docs/COUPLING.md "Sliding"):
 *   roof   the built-in snow-roof: the snow lands on the sloped awning (at some check at least half
 *          of it on the cloth), slides down it and off its front edge (by frame 80 at least 90 % past
 *          that edge, at most 10 % on the cloth), never more than 1 % through the cloth. The scheme
 *          before the whole slip went to the parcel fails it (all the snow still on the awning).
 *          Skipped on the trimmed device (its 40 frames passed SwiftShader's 900 s, loaded).
 * Its own binary (CTest gpu.test_coupling_roof) so that test_coupling keeps within its time. */
#include "gpu_fixture.h"
#include "coupling_fixture.h"

#include <stdlib.h>

/* Where the snow of a snow-roof run is: on the awning (inside its footprint, at most `up` above it and
 * not below it by more than `cell`), and past its front edge (z beyond the cloth's largest z). */
static void roof_counts(const float (*cloth)[4], uint32_t nc, const fl_xpbd_build *b, const float (*snow)[4],
                        uint32_t n, float cell, float up, uint32_t *on, uint32_t *past, double *zc)
{
  float front = -1e30f;
  for (uint32_t p = 0; p < nc; p++) front = fmaxf(front, cloth[p][2]);
  for (uint32_t i = 0; i < n; i++) {
    float y;
    *zc += snow[i][2];
    *past += snow[i][2] > front;
    *on += fl_fixture_cloth_height(cloth, b->triangles, b->triangle_count, snow[i][0], snow[i][2], &y) && snow[i][1] >= y - cell &&
           snow[i][1] <= y + up;
  }
}

static void roof_body(fl_gpu *gpu)
{
  if (fl_fixture_trim(0, 1)) /* 40 frames passed swiftshader.gpu.test_coupling's 900 s on a loaded machine */
    FL_SKIP("the landing (frames 20-30) is too long for the trimmed device; hammock covers its contacts");
  fl_scene scene;
  fl_world *world = NULL;
  fl_profiler prof;
  fl_coupling *c = fl_fixture_builtin_world(gpu, "snow-roof", &scene, &world, &prof);
  ENSURE(c && fl_world_object_count(world) == 3); /* the awning, the slab, the drift */
  const fl_xpbd_build *b = &c->xpbd->build;
  float cell = c->snow->build.h, worst = -1e30f;
  int frames = 80, chunk = 10;
  uint32_t on_max = 0, below_max = 0, on = 0, past = 0, n = 0;
  int on_frame = 0;
  double z0 = 0, z = 0;
  for (int f = 0; f <= frames; f += chunk) {
    if (f) ENSURE(fl_fixture_step_frames(gpu, world, &prof, chunk, true, NULL));
    float(*cloth)[4], (*cv)[4];
    uint32_t nc;
    ENSURE(fl_world_read_state(world, 0, &cloth, &cv, &nc));
    on = past = n = 0;
    z = 0;
    uint32_t below = 0;
    for (uint32_t k = 1; k <= 2; k++) {
      float(*snow)[4], (*sv)[4];
      uint32_t ns;
      ENSURE(fl_world_read_state(world, k, &snow, &sv, &ns));
      roof_counts((const float(*)[4])cloth, nc, b, (const float(*)[4])snow, ns, cell, 0.3f, &on, &past, &z);
      below += fl_fixture_snow_below((const float(*)[4])cloth, b, (const float(*)[4])snow, ns, cell, &worst);
      n += ns;
      free(snow);
      free(sv);
    }
    free(cloth);
    free(cv);
    z /= n;
    if (!f) z0 = z;
    if (on > on_max) {
      on_max = on;
      on_frame = f;
    }
    below_max = below > below_max ? below : below_max;
    printf("  frame %3d: %4u of %u snow particles on the awning, %4u past its front edge, %u below it; the snow's "
           "mean z %.3f m\n", f, on, n, past, below, z);
  }
  fl_object_stats s[3];
  for (uint32_t k = 0; k < 3; k++) ENSURE(fl_world_stats(world, k, &s[k]) && s[k].nan_count == 0 && !s[k].unstable);
  printf("  at most %u on the awning (frame %d); at the end %u past its front edge, the mean z moved %.3f m; at most %u "
         "below the cloth by more than %.2f m (the deepest %.3f m)\n",
         on_max, on_frame, past, z - z0, below_max, cell, worst);
  ENSURE_MSG(2 * on_max >= n, "the snow never lay on the awning: at most %u of %u particles", on_max, n);
  ENSURE_MSG(below_max * 100 <= n, "%u of %u snow particles went through the awning (more than 1 %%)", below_max, n);
  /* the carried snow slides (the scheme before the whole slip went to it: all on the awning) */
  ENSURE_MSG(10 * past >= 9 * n && on * 10 <= n, "the snow did not slide off: %u of %u past the front edge, %u on",
             past, n, on);
  fl_profiler_destroy(&prof);
  fl_world_destroy(world);
}
FL_GPU_TEST(test_roof, roof_body)

static const fl_test_case cases[] = {
    {"roof", test_roof},
};
FL_TEST_MAIN(cases)
