/* tests/gpu/test_snow_gpu.c: the MPM snow kernels (shaders/mpm/) against the
 * CPU reference (sim/mpm/snow_cpu.c) through the real system (sim/mpm/snow.c).
 * Each case builds a scene's snow on the GPU, lets it run a few frames (sorted,
 * adaptive substeps) so the state is deformed and plastic, reads the state
 * back, then takes one substep on both sides from that same state and
 * compares every particle: position, velocity, F_E, J_P, stress K, C.
 *   ball_pic_flip   a snowball (cubic weights, PIC/FLIP) landing on a sphere collider
 *   ball_apic       the same with MLS-MPM/APIC (quadratic weights)
 *   ball_fixed      the same through the fixed-point P2G (sim.mpm_atomics "fixed")
 *   moving_box      a box of snow hit by a moving box collider, sticky friction
 *   ball_tile, ball_fixed_tile   P2G through the shared-memory tile (the GPU path;
 *                   float with compare-and-swap in the tile; fixed point, APIC)
 *   ball_gather, ball_gather_apic, ball_gather_fixed, box_gather   the gathered P2G
 *                   (no float atomics; the CPU drivers' path): PIC/FLIP (64 bins a
 *                   node), APIC (27), fixed point, the moving sticky box
 *   mixed_gather    a PIC/FLIP and an APIC ball in one scene: the kernels built for
 *                   both transfers (the other cases run the one-transfer builds)
 *   ball_g2p2g_apic, ball_g2p2g, box_g2p2g, mixed_g2p2g   sim.snow_transfer "g2p2g":
 *                   G2P fused with the next P2G (mpm/g2p2g); the GPU takes SUBSTEPS
 *                   substeps (P2G, grid, then fused passes, then G2P) against as many
 *                   separate CPU substeps, and the last P2G's grid is compared too
 *   g2p2g_outrun    a ball moving 10 cells a substep (dt far past the CFL limit) outruns
 *                   the next grid's one-cell margin: the lost contributions are counted
 *                   (stats GRID_FULL), where the separate passes lose none
 * The accumulator of P2G is compared too: float sums within 1e-5 of the
 * node's scale, fixed-point sums within a few units of the last place. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scene/scene.h"
#include "sim/common/sdf_cpu.h"
#include "sim/mpm/snow.h"
#include "vec4_compare.h"

#define WARM_FRAMES 8
#define G2P2G_SUBSTEPS 3

/* `p2g`: the P2G path under test (the warm-up frames take it too); `tile_cas`: the float tile adds by
 * compare-and-swap even where the device has shared-memory float atomics; `substeps`: how many substeps
 * both sides take (fl_snow_record_substeps: fused with sim.snow_transfer "g2p2g"). */
static void compare_case_n(fl_gpu *gpu, const char *json, fl_snow_p2g p2g, bool tile_cas, uint32_t substeps)
{
  fl_scene scene;
  ENSURE_MSG(fl_scene_parse(json, "case.json", NULL, 0, &scene), "%s", fl_error_message());
  fl_gpu_collider colliders[FL_MAX_COLLIDERS];
  memset(colliders, 0, sizeof colliders);
  uint32_t collider_count = 0, snow[FL_SCENE_MAX_OBJECTS], snow_count = 0;
  for (uint32_t i = 0; i < scene.object_count; i++) {
    if (scene.objects[i].type == FL_OBJECT_COLLIDER) fl_collider_pack(&scene.objects[i].collider, &colliders[collider_count++]);
    if (scene.objects[i].type == FL_OBJECT_SNOW) snow[snow_count++] = i;
  }
  fl_buffer collider_buffer;
  ENSURE(fl_buffer_create_with(gpu, colliders, sizeof colliders, "colliders", &collider_buffer));
  fl_snow_system s;
  fl_descriptor_cache sets;
  ENSURE(fl_descriptor_cache_create(gpu, "test", &sets));
  fl_material_env env = {.gpu = gpu, .sets = &sets, .scene = &scene, .colliders = &collider_buffer,
                         .collider_count = collider_count};
  if (scene.sim.snow_transfer == FL_SNOW_FUSE_G2P2G && !gpu->has_float_atomic_add) { /* SwiftShader: refused */
    ENSURE_MSG(!fl_snow_create(&env, snow, snow_count, &s), "g2p2g ran without float atomics");
    ENSURE_MSG(strstr(fl_error_message(), "sim.snow_transfer \"g2p2g\" adds with float atomics"), "%s",
               fl_error_message());
    printf("  refused without float atomics: %s\n", fl_error_message());
    fl_descriptor_cache_destroy(&sets);
    fl_buffer_destroy(gpu, &collider_buffer);
    return;
  }
  ENSURE_MSG(fl_snow_create(&env, snow, snow_count, &s), "%s", fl_error_message());
  s.p2g = p2g;
  if (tile_cas) s.tile_shared_float = false;
  fl_descriptor_cache_destroy(&sets);
  float t = 0;
  for (int f = 0; f < WARM_FRAMES; f++) {
    fl_fixture_once once;
    ENSURE(fl_fixture_once_begin_slot(gpu, f % FL_GPU_FRAMES_IN_FLIGHT, &once));
    fl_snow_record_frame(&s, &once.rec, scene.sim.dt, t);
    ENSURE(fl_fixture_once_end(&once));
    fl_snow_collect(&s, f % FL_GPU_FRAMES_IN_FLIGHT);
    t += scene.sim.dt;
  }
  ENSURE_MSG(s.last.nonfinite == 0, "%u non-finite particles while warming up", s.last.nonfinite);
  fl_snow_cpu_particles cpu, gpu_state;
  ENSURE(fl_snow_read_state(&s, &cpu));
  float dt = scene.sim.dt / (float)s.substeps_last;
  fl_mpm_push push;
  uint32_t stats[FL_SNOW_STAT_WORDS] = {0, 0x7f7fffffu, 0, 0, 0, 0, 0, 0};
  uint32_t *acc_cpu = malloc((size_t)s.build.node_count * 32), *acc_gpu = malloc((size_t)s.build.node_count * 32);
  ENSURE(acc_cpu && acc_gpu);
  for (uint32_t k = 0; k < substeps; k++) {
    fl_snow_push_fill(&s.build, &scene.sim, collider_count, s.fixed_point, dt, t + dt * (float)(k + 1), &push);
    if (k + 1 == substeps) ENSURE(fl_snow_cpu_p2g(&push, s.build.materials, &cpu, acc_cpu)); /* the last P2G */
    ENSURE(fl_snow_cpu_substep(&push, s.build.materials, colliders, &cpu, stats));
  }
  fl_fixture_once once;
  ENSURE(fl_fixture_once_begin(gpu, &once));
  fl_snow_record_substeps(&s, &once.rec, substeps, dt, t);
  ENSURE(fl_fixture_once_end(&once));
  ENSURE(fl_snow_read_state(&s, &gpu_state));
  ENSURE(fl_snow_read_grid_dense(&s, &s.acc, 8, acc_gpu));

  /* P2G: every accumulator word, relative to the largest of its kind. */
  double worst_m = 0, worst_p = 0, max_m = 0, max_p = 0;
  for (uint32_t i = 0; i < s.build.node_count; i++)
    for (int k = 0; k < 7; k++) {
      double a, b;
      if (s.fixed_point) {
        double scale = k == 3 ? push.mass_scale : push.momentum_scale;
        a = (int32_t)acc_cpu[8 * i + k] / scale;
        b = (int32_t)acc_gpu[8 * i + k] / scale;
      } else {
        float fa, fb;
        memcpy(&fa, &acc_cpu[8 * i + k], 4);
        memcpy(&fb, &acc_gpu[8 * i + k], 4);
        a = fa, b = fb;
      }
      double *worst = k == 3 ? &worst_m : &worst_p, *max = k == 3 ? &max_m : &max_p;
      if (!(fabs(a - b) <= *worst)) *worst = isnan(a - b) ? INFINITY : fabs(a - b);
      if (fabs(a) > *max) *max = fabs(a);
    }
  ENSURE_MSG(worst_m <= 1e-5 * max_m, "P2G mass differs by %g (largest node mass %g)", worst_m, max_m);
  ENSURE_MSG(worst_p <= 1e-4 * max_p, "P2G momentum/impulse differs by %g (largest %g)", worst_p, max_p);

  uint32_t n = cpu.count;
  float v_scale = fmaxf(max_abs((const float(*)[4])cpu.vel, n, 3), 1.0f);
  float k_scale = fmaxf(max_abs((const float(*)[4])cpu.stress, 2ull * n, 3), 1e-3f);
  float dpos = max_abs_diff((const float(*)[4])cpu.pos, (const float(*)[4])gpu_state.pos, n, 3);
  float dvel = max_abs_diff((const float(*)[4])cpu.vel, (const float(*)[4])gpu_state.vel, n, 4);
  float dfe = max_abs_diff((const float(*)[4])cpu.fe, (const float(*)[4])gpu_state.fe, 3ull * n, 3);
  float dstress = max_abs_diff((const float(*)[4])cpu.stress, (const float(*)[4])gpu_state.stress, 2ull * n, 3);
  float daff = max_abs_diff((const float(*)[4])cpu.affine, (const float(*)[4])gpu_state.affine, 3ull * n, 3);
  float djp = 0;
  for (uint32_t p = 0; p < n; p++) djp = fmaxf(djp, fabsf(cpu.fe[3 * p][3] - gpu_state.fe[3 * p][3]));
  printf("  %u particles, %u substeps of %.3g ms: |dx| %.2g m, |dv| %.2g (v up to %.3g), |dF_E| %.2g, |dJ_P| %.2g, "
         "|dK| %.2g (K up to %.3g), |dC| %.2g\n",
         n, substeps, dt * 1e3, dpos, dvel, v_scale, dfe, djp, dstress, k_scale, daff);
  ENSURE_MSG(dpos <= 1e-6f, "positions differ by %g m", dpos);
  ENSURE_MSG(dvel <= 1e-4f * v_scale, "velocities differ by %g", dvel);
  ENSURE_MSG(dfe <= 1e-4f, "F_E differs by %g", dfe);
  ENSURE_MSG(djp <= 1e-4f, "J_P differs by %g", djp);
  ENSURE_MSG(dstress <= 1e-3f * k_scale, "stress differs by %g (largest %g)", dstress, k_scale);
  ENSURE_MSG(daff <= 1e-3f * v_scale / scene.objects[snow[0]].snow.grid_spacing, "C differs by %g", daff);
  free(acc_cpu);
  free(acc_gpu);
  fl_snow_state_free(&cpu);
  fl_snow_state_free(&gpu_state);
  fl_snow_destroy(&s);
  fl_buffer_destroy(gpu, &collider_buffer);
}

static void compare_case_with(fl_gpu *gpu, const char *json, fl_snow_p2g p2g, bool tile_cas)
{
  compare_case_n(gpu, json, p2g, tile_cas, 1);
}
static void compare_case(fl_gpu *gpu, const char *json, fl_snow_p2g p2g) { compare_case_with(gpu, json, p2g, false); }

#define DOMAIN "\"sim\": {\"dt\": 0.0166667, \"domain\": {\"min\": [-0.5, 0, -0.5], \"max\": [0.5, 1, 0.5]}"

static void ball_pic_flip(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": ["
                    "{\"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.1, 0], \"radius\": 0.12},"
                    "{\"type\": \"snow\", \"center\": [0, 0.36, 0], \"radius\": 0.1, \"grid_spacing\": 0.05,"
                    " \"velocity\": [0, -3, 0]}]}", FL_SNOW_P2G_DIRECT);
}
FL_GPU_TEST(test_ball_pic_flip, ball_pic_flip)

static void ball_apic(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": ["
                    "{\"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.1, 0], \"radius\": 0.12},"
                    "{\"type\": \"snow\", \"center\": [0, 0.36, 0], \"radius\": 0.1, \"grid_spacing\": 0.05,"
                    " \"velocity\": [0, -3, 0], \"transfer\": \"apic\"}]}", FL_SNOW_P2G_DIRECT);
}
FL_GPU_TEST(test_ball_apic, ball_apic)

static void ball_fixed(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN ", \"mpm_atomics\": \"fixed\"}, \"objects\": ["
                    "{\"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.1, 0], \"radius\": 0.12},"
                    "{\"type\": \"snow\", \"center\": [0, 0.36, 0], \"radius\": 0.1, \"grid_spacing\": 0.05,"
                    " \"velocity\": [0, -3, 0]}]}", FL_SNOW_P2G_DIRECT);
}
FL_GPU_TEST(test_ball_fixed, ball_fixed)

#define BOX "{\"type\": \"collider\", \"shape\": \"box\", \"center\": [-0.35, 0.1, 0]," \
            " \"half_extents\": [0.05, 0.1, 0.2], \"velocity\": [1.5, 0, 0]}," \
            "{\"type\": \"snow\", \"shape\": \"box\", \"center\": [0, 0.1, 0]," \
            " \"half_extents\": [0.15, 0.1, 0.1], \"grid_spacing\": 0.05, \"friction\": \"sticky\", \"E0\": 5e4}"
static void moving_box(fl_gpu *gpu) { compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BOX "]}", FL_SNOW_P2G_DIRECT); }
FL_GPU_TEST(test_moving_box, moving_box)

/* The same two balls through the shared-memory tile of P2G (float: shared-memory float atomics where the
 * device has them, and compare-and-swap on every device). */
#define BALL "{\"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.1, 0], \"radius\": 0.12}," \
             "{\"type\": \"snow\", \"center\": [0, 0.36, 0], \"radius\": 0.1, \"grid_spacing\": 0.05, \"velocity\": [0, -3, 0]"
static void ball_tile(fl_gpu *gpu) { compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL "}]}", FL_SNOW_P2G_TILE); }
FL_GPU_TEST(test_ball_tile, ball_tile)
static void ball_tile_cas(fl_gpu *gpu) { compare_case_with(gpu, "{" DOMAIN "}, \"objects\": [" BALL "}]}", FL_SNOW_P2G_TILE, true); }
FL_GPU_TEST(test_ball_tile_cas, ball_tile_cas)
static void ball_fixed_tile(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN ", \"mpm_atomics\": \"fixed\"}, \"objects\": [" BALL ", \"transfer\": \"apic\"}]}",
               FL_SNOW_P2G_TILE);
}
FL_GPU_TEST(test_ball_fixed_tile, ball_fixed_tile)

/* The gathered P2G: PIC/FLIP, APIC, fixed point, and the sticky box. */
static void ball_gather(fl_gpu *gpu) { compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL "}]}", FL_SNOW_P2G_GATHER); }
FL_GPU_TEST(test_ball_gather, ball_gather)
static void ball_gather_apic(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL ", \"transfer\": \"apic\"}]}", FL_SNOW_P2G_GATHER);
}
FL_GPU_TEST(test_ball_gather_apic, ball_gather_apic)
static void ball_gather_fixed(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN ", \"mpm_atomics\": \"fixed\"}, \"objects\": [" BALL "}]}", FL_SNOW_P2G_GATHER);
}
FL_GPU_TEST(test_ball_gather_fixed, ball_gather_fixed)
/* PIC/FLIP and APIC snow in one scene: the mixed builds mpm/g2p and mpm/p2g_gather (the other cases run
 * the one-transfer builds, fl_snow_transfer_kernel). */
static void mixed_gather(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL "}, {\"type\": \"snow\", \"center\": [0.28, 0.3, 0], "
                    "\"radius\": 0.07, \"grid_spacing\": 0.05, \"velocity\": [0, -3, 0], \"transfer\": \"apic\"}]}",
               FL_SNOW_P2G_GATHER);
}
FL_GPU_TEST(test_mixed_gather, mixed_gather)
static void box_gather(fl_gpu *gpu) { compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BOX "]}", FL_SNOW_P2G_GATHER); }
FL_GPU_TEST(test_box_gather, box_gather)

/* G2P fused with the next P2G (sim.snow_transfer "g2p2g", float atomics): APIC first (quadratic, 27 nodes),
 * PIC/FLIP (cubic, 64), the sticky box, and both transfers in one scene; the frame's first P2G is the
 * direct scatter. */
#define G2P2G_DOMAIN DOMAIN ", \"snow_transfer\": \"g2p2g\""
static void ball_g2p2g_apic(fl_gpu *gpu)
{
  compare_case_n(gpu, "{" G2P2G_DOMAIN "}, \"objects\": [" BALL ", \"transfer\": \"apic\"}]}", FL_SNOW_P2G_DIRECT,
                 false, G2P2G_SUBSTEPS);
}
FL_GPU_TEST(test_ball_g2p2g_apic, ball_g2p2g_apic)
static void ball_g2p2g(fl_gpu *gpu)
{
  compare_case_n(gpu, "{" G2P2G_DOMAIN "}, \"objects\": [" BALL "}]}", FL_SNOW_P2G_DIRECT, false, G2P2G_SUBSTEPS);
}
FL_GPU_TEST(test_ball_g2p2g, ball_g2p2g)
static void box_g2p2g(fl_gpu *gpu)
{
  compare_case_n(gpu, "{" G2P2G_DOMAIN "}, \"objects\": [" BOX "]}", FL_SNOW_P2G_DIRECT, false, G2P2G_SUBSTEPS);
}
FL_GPU_TEST(test_box_g2p2g, box_g2p2g)
static void mixed_g2p2g(fl_gpu *gpu)
{
  compare_case_n(gpu, "{" G2P2G_DOMAIN "}, \"objects\": [" BALL "}, {\"type\": \"snow\", \"center\": [0.28, 0.3, 0], "
                      "\"radius\": 0.07, \"grid_spacing\": 0.05, \"velocity\": [0, -3, 0], \"transfer\": \"apic\"}]}",
                 FL_SNOW_P2G_DIRECT, false, G2P2G_SUBSTEPS);
}
FL_GPU_TEST(test_mixed_g2p2g, mixed_g2p2g)

/* GRID_FULL after two substeps of 50 ms of a ball at 10 m/s (10 cells of 0.05 m a substep), from load. */
static void outrun_grid_full(fl_gpu *gpu, const char *transfer, uint32_t *grid_full)
{
  *grid_full = UINT32_MAX;
  char json[1024];
  snprintf(json, sizeof json, "{" DOMAIN ", \"gravity\": [0, 0, 0], \"snow_transfer\": \"%s\"}, \"objects\": ["
           "{\"type\": \"snow\", \"center\": [-0.3, 0.5, 0], \"radius\": 0.1, \"grid_spacing\": 0.05, "
           "\"velocity\": [10, 0, 0], \"transfer\": \"apic\"}]}", transfer);
  fl_scene scene;
  ENSURE_MSG(fl_scene_parse(json, "case.json", NULL, 0, &scene), "%s", fl_error_message());
  uint32_t snow = 0;
  fl_buffer colliders;
  ENSURE(fl_buffer_create(gpu, sizeof(fl_gpu_collider), FL_MEMORY_DEVICE, "colliders", &colliders));
  fl_descriptor_cache sets;
  ENSURE(fl_descriptor_cache_create(gpu, "test", &sets));
  fl_material_env env = {.gpu = gpu, .sets = &sets, .scene = &scene, .colliders = &colliders};
  fl_snow_system s;
  ENSURE_MSG(fl_snow_create(&env, &snow, 1, &s), "%s", fl_error_message());
  fl_descriptor_cache_destroy(&sets);
  s.p2g = FL_SNOW_P2G_DIRECT;
  fl_fixture_once once;
  ENSURE(fl_fixture_once_begin(gpu, &once));
  fl_snow_record_substeps(&s, &once.rec, 2, 0.05f, 0.0f);
  ENSURE(fl_fixture_once_end(&once));
  uint32_t stats[FL_SNOW_STAT_WORDS];
  ENSURE(fl_buffer_readback(gpu, &s.stats, 0, stats, sizeof stats));
  fl_snow_destroy(&s);
  fl_buffer_destroy(gpu, &colliders);
  printf("  %s: %u particles with lost contributions\n", transfer, stats[FL_SNOW_STAT_GRID_FULL]);
  *grid_full = stats[FL_SNOW_STAT_GRID_FULL];
}
static void g2p2g_outrun(fl_gpu *gpu)
{
  if (!gpu->has_float_atomic_add) return; /* refused there (the cases above check it) */
  uint32_t separate, fused;
  outrun_grid_full(gpu, "separate", &separate);
  outrun_grid_full(gpu, "g2p2g", &fused);
  ENSURE_MSG(separate == 0, "the separate passes lost contributions of %u particles", separate);
  ENSURE_MSG(fused > 0 && fused != UINT32_MAX, "a particle 10 cells past its allocation was not counted");
}
FL_GPU_TEST(test_g2p2g_outrun, g2p2g_outrun)

static const fl_test_case cases[] = {
    {"ball_pic_flip", test_ball_pic_flip},
    {"ball_apic", test_ball_apic},
    {"ball_fixed", test_ball_fixed},
    {"ball_tile", test_ball_tile},
    {"ball_tile_cas", test_ball_tile_cas},
    {"ball_fixed_tile", test_ball_fixed_tile},
    {"moving_box", test_moving_box},
    {"ball_gather", test_ball_gather},
    {"ball_gather_apic", test_ball_gather_apic},
    {"ball_gather_fixed", test_ball_gather_fixed},
    {"box_gather", test_box_gather},
    {"mixed_gather", test_mixed_gather},
    {"ball_g2p2g_apic", test_ball_g2p2g_apic},
    {"ball_g2p2g", test_ball_g2p2g},
    {"box_g2p2g", test_box_g2p2g},
    {"mixed_g2p2g", test_mixed_g2p2g},
    {"g2p2g_outrun", test_g2p2g_outrun},
};
FL_TEST_MAIN(cases)
