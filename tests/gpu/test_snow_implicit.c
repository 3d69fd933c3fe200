/* tests/gpu/test_snow_implicit.c: the semi-implicit velocity solve of MPM snow
 * (Stomakhin et al. 2013 step 6; sim/mpm/snow_implicit.h, shaders/mpm/implicit_*)
 * through the real system (sim/mpm/snow.c) against the CPU reference
 * (sim/mpm/snow_implicit_cpu.c, double precision), and its stability.
 *   ball_beta_half   a snowball (cubic, PIC/FLIP) landing on a sphere collider, beta 0.5
 *   ball_apic_beta1  the same with MLS-MPM/APIC (quadratic), beta 1
 *   ball_cas_beta1   the same PIC/FLIP ball through sim.mpm_atomics "fixed": the
 *                    fixed-point P2G and the compare-and-swap Hessian product, beta 1
 *   compressed_block a block (512 particles) with F_E = 0.85 I released, 20 substeps of
 *                    FL_SNOW_IMPLICIT_ELASTIC_GAIN (4) x the explicit elastic CFL limit, the
 *                    substep the planner takes for beta > 0: explicit (beta 0) passes 100 m/s
 *                    there (it stays below 20 m/s at its own limit), beta 1 and beta 0.5 stay
 *                    below 20 m/s
 * The comparison cases warm up two frames (sorted, adaptive substeps, the solve in
 * every substep) so the state is deformed, then take one substep of the adaptive
 * length (FL_SNOW_IMPLICIT_ELASTIC_GAIN x the explicit limit, so CR iterates) on
 * both sides from that same state:
 * the free/held node split, grid velocities after the solve, then every particle
 * after G2P. Tolerances: both solves stop at |r|_M <= 1e-4 |v*|_M, so the grids may
 * differ by ~2e-4 |v*|_M (mass-weighted); 1e-3 is allowed, 1e-2 of the largest grid
 * speed per node at or above the light-node mass (such a node weighs little in |.|_M), and
 * what G2P makes of such grids: 1e-5 m, 1e-2 of the speeds, 1e-3 in F_E and J_P.
 * Measured: 1e-5 or less mass-weighted. Domain 1 m, h = 0.1, 268 or 512 particles. */
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "scene/scene.h"
#include "sim/common/sdf_cpu.h"
#include "sim/mpm/snow.h"
#include "sim/mpm/snow_implicit_cpu.h"
#include "vec4_compare.h"

#define WARM_FRAMES 2

/* The scene's colliders packed, and its snow object indices. */
typedef struct {
  fl_scene scene;
  fl_gpu_collider colliders[FL_MAX_COLLIDERS];
  uint32_t collider_count, snow[FL_SCENE_MAX_OBJECTS], snow_count;
  fl_buffer collider_buffer;
  fl_snow_system s;
} fixture;

static bool fixture_create(fl_gpu *gpu, const char *json, fixture *f)
{
  memset(f, 0, sizeof *f);
  if (!fl_scene_parse(json, "case.json", NULL, 0, &f->scene)) return false;
  for (uint32_t i = 0; i < f->scene.object_count; i++) {
    if (f->scene.objects[i].type == FL_OBJECT_COLLIDER)
      fl_collider_pack(&f->scene.objects[i].collider, &f->colliders[f->collider_count++]);
    if (f->scene.objects[i].type == FL_OBJECT_SNOW) f->snow[f->snow_count++] = i;
  }
  fl_descriptor_cache sets;
  fl_material_env env = {.gpu = gpu, .sets = &sets, .scene = &f->scene, .colliders = &f->collider_buffer,
                         .collider_count = f->collider_count};
  bool ok = fl_descriptor_cache_create(gpu, "test", &sets) &&
            fl_buffer_create_with(gpu, f->colliders, sizeof f->colliders, "colliders", &f->collider_buffer) &&
            fl_snow_create(&env, f->snow, f->snow_count, &f->s);
  fl_descriptor_cache_destroy(&sets);
  return ok;
}

static void fixture_destroy(fl_gpu *gpu, fixture *f)
{
  fl_snow_destroy(&f->s);
  fl_buffer_destroy(gpu, &f->collider_buffer);
}

static bool substep(fl_gpu *gpu, fl_snow_system *s, float dt, float t)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(gpu, &once)) return false;
  fl_snow_record_substep(s, &once.rec, dt, t);
  return fl_fixture_once_end(&once);
}

static void compare_case(fl_gpu *gpu, const char *json)
{
  fixture f;
  ENSURE_MSG(fixture_create(gpu, json, &f), "%s", fl_error_message());
  fl_snow_system *s = &f.s;
  ENSURE(s->implicit.gpu != NULL && s->build.beta > 0);
  float t = 0;
  for (int k = 0; k < WARM_FRAMES; k++) {
    fl_fixture_once once;
    ENSURE(fl_fixture_once_begin_slot(gpu, k % FL_GPU_FRAMES_IN_FLIGHT, &once));
    fl_snow_record_frame(s, &once.rec, f.scene.sim.dt, t);
    ENSURE(fl_fixture_once_end(&once));
    fl_snow_collect(s, k % FL_GPU_FRAMES_IN_FLIGHT);
    t += f.scene.sim.dt;
  }
  ENSURE_MSG(s->last.nonfinite == 0, "%u non-finite particles while warming up", s->last.nonfinite);
  fl_snow_cpu_particles cpu, gpu_state;
  ENSURE(fl_snow_read_state(s, &cpu));
  float dt = f.scene.sim.dt / (float)s->substeps_last;
  fl_mpm_push push;
  fl_snow_push_fill(&s->build, &f.scene.sim, f.collider_count, s->fixed_point, dt, t + dt, &push);
  uint32_t nodes = s->build.node_count, n = cpu.count;
  uint32_t *acc = malloc((size_t)nodes * 32);
  float(*gridv)[4] = malloc((size_t)nodes * 32), (*gridv_gpu)[4] = malloc((size_t)nodes * 32);
  float *info_gpu = malloc((size_t)nodes * 4);
  double(*v_cpu)[3] = malloc((size_t)nodes * sizeof *v_cpu);
  uint8_t *free_cpu = malloc(nodes);
  ENSURE(acc && gridv && gridv_gpu && info_gpu && v_cpu && free_cpu);

  /* CPU: P2G, grid update, the solve (double), G2P */
  uint32_t stats[FL_SNOW_STAT_WORDS] = {0, 0x7f7fffffu, 0, 0, 0, 0, 0, 0};
  ENSURE(fl_snow_cpu_p2g(&push, s->build.materials, &cpu, acc));
  fl_snow_cpu_grid_update(&push, &s->build.materials[0], f.colliders, acc, gridv);
  uint32_t free_count = fl_snow_implicit_cpu_free_nodes(&push, &s->build.materials[0], f.colliders, acc,
                                                        (const float(*)[4])gridv, free_cpu);
  fl_snow_implicit_cpu_report rep;
  ENSURE(fl_snow_implicit_cpu_solve(&push, s->build.materials, f.colliders, &cpu, s->build.beta, acc, gridv,
                                    FL_SNOW_CR_ITERATIONS, FL_SNOW_CR_TOLERANCE, v_cpu, &rep));
  fl_snow_cpu_g2p(&push, s->build.materials, f.colliders, (const float(*)[4])gridv, &cpu, stats);

  /* GPU: one substep */
  ENSURE(substep(gpu, s, dt, t + dt));
  ENSURE(fl_snow_read_state(s, &gpu_state));
  ENSURE(fl_snow_read_grid_dense(s, &s->gridv, 8, (uint32_t *)gridv_gpu));
  ENSURE(fl_snow_read_grid_dense(s, &s->implicit.info, 1, (uint32_t *)info_gpu));
  uint32_t gpu_iterations;
  float gpu_residual;
  ENSURE(fl_snow_implicit_read_status(&s->implicit, &gpu_iterations, &gpu_residual));

  /* the node split: the GPU's info is 1 / sqrt(m) on free nodes, 0 on held ones */
  uint32_t split_differs = 0, occupied = 0;
  for (uint32_t i = 0; i < nodes; i++) {
    split_differs += (info_gpu[i] != 0.0f) != (free_cpu[i] != 0);
    occupied += gridv[2 * i][3] > 0;
  }
  /* grid velocities after the solve: mass-weighted over the grid, and node by node */
  double dm = 0, vm = 0;
  float v_grid = fmaxf(max_abs((const float(*)[4])gridv, 2ull * nodes, 3), 1.0f), dnode = 0;
  for (uint32_t i = 0; i < nodes; i++) {
    double m = gridv[2 * i][3];
    for (int a = 0; a < 3; a++) {
      double d = (double)gridv_gpu[2 * i][a] - gridv[2 * i][a];
      dm += m * d * d;
      vm += m * (double)gridv[2 * i][a] * gridv[2 * i][a];
      /* node by node only where the solve acts: a held light node's v* = p / m carries the
       * rounding of p over a tiny m (one fixed-point unit of momentum is 0.5 m/s at 1e-6 kg) */
      if (m >= push.light_node_mass && !(fabs(d) <= dnode)) dnode = isnan(d) ? INFINITY : (float)fabs(d);
    }
  }
  double dgrid = sqrt(dm / vm);
  float v_scale = fmaxf(max_abs((const float(*)[4])cpu.vel, n, 3), 1.0f);
  float k_scale = fmaxf(max_abs((const float(*)[4])cpu.stress, 2ull * n, 3), 1e-3f);
  float dpos = max_abs_diff((const float(*)[4])cpu.pos, (const float(*)[4])gpu_state.pos, n, 3);
  float dvel = max_abs_diff((const float(*)[4])cpu.vel, (const float(*)[4])gpu_state.vel, n, 3);
  float dfe = max_abs_diff((const float(*)[4])cpu.fe, (const float(*)[4])gpu_state.fe, 3ull * n, 3);
  float dstress = max_abs_diff((const float(*)[4])cpu.stress, (const float(*)[4])gpu_state.stress, 2ull * n, 3);
  float daff = max_abs_diff((const float(*)[4])cpu.affine, (const float(*)[4])gpu_state.affine, 3ull * n, 3);
  float djp = 0;
  for (uint32_t p = 0; p < n; p++) djp = fmaxf(djp, fabsf(cpu.fe[3 * p][3] - gpu_state.fe[3 * p][3]));
  printf("  %u particles, %u occupied nodes (%u free), dt %.3g ms, beta %.2g: CR iterations CPU %u (|r|_M/|b|_M "
         "%.2g) GPU %u (%.2g); split differs at %u nodes\n",
         n, occupied, free_count, dt * 1e3, s->build.beta, rep.iterations, rep.recursive_residual, gpu_iterations,
         gpu_residual, split_differs);
  printf("  grid: |dv|_M / |v|_M %.2g, max |dv| %.2g (v up to %.3g); particles: |dx| %.2g m, |dv| %.2g (v up to "
         "%.3g), |dF_E| %.2g, |dJ_P| %.2g, |dK| %.2g (K up to %.3g), |dC| %.2g\n",
         dgrid, dnode, v_grid, dpos, dvel, v_scale, dfe, djp, dstress, k_scale, daff);
  ENSURE_MSG(split_differs == 0, "the free/held split differs at %u nodes", split_differs);
  ENSURE(free_count > 0 && free_count < occupied);
  ENSURE(!rep.broke_down);
  ENSURE(rep.iterations > 0 && gpu_iterations > 0);
  /* Both stop at |r|_M <= 1e-4 |b|_M (or after 20 updates); two such solutions of A v = v* (A >= I
   * here: H is near definite at these strains) differ by at most 2e-4 |v*|_M: allow 1e-3. */
  ENSURE_MSG(dgrid <= 1e-3, "grid velocities after the solve differ by %g (mass-weighted, relative)", dgrid);
  ENSURE_MSG(dnode <= 1e-2f * v_grid, "a node's velocity after the solve differs by %g", dnode);
  /* G2P from grids 1e-3 apart: x by dt |dv|, v by |dv|, F_E and C by dt |grad dv| ~ dt |dv| / h */
  ENSURE_MSG(dpos <= 1e-5f, "positions differ by %g m", dpos);
  ENSURE_MSG(dvel <= 1e-2f * v_scale, "velocities differ by %g", dvel);
  ENSURE_MSG(dfe <= 1e-3f, "F_E differs by %g", dfe);
  ENSURE_MSG(djp <= 1e-3f, "J_P differs by %g", djp);
  ENSURE_MSG(dstress <= 1e-2f * k_scale, "stress differs by %g (largest %g)", dstress, k_scale);
  ENSURE_MSG(daff <= 1e-2f * v_scale / s->build.h, "C differs by %g", daff);
  free(acc);
  free(gridv);
  free(gridv_gpu);
  free(info_gpu);
  free(v_cpu);
  free(free_cpu);
  fl_snow_state_free(&cpu);
  fl_snow_state_free(&gpu_state);
  fixture_destroy(gpu, &f);
}

#define DOMAIN "\"sim\": {\"dt\": 0.0166667, \"domain\": {\"min\": [-0.5, 0, -0.5], \"max\": [0.5, 1, 0.5]}"
#define BALL_COLLIDER "{\"type\": \"collider\", \"shape\": \"sphere\", \"center\": [0.05, 0.1, 0], \"radius\": 0.15},"

static void ball_beta_half(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL_COLLIDER
                    "{\"type\": \"snow\", \"center\": [0, 0.45, 0], \"radius\": 0.2, \"grid_spacing\": 0.1,"
                    " \"velocity\": [0, -3, 0], \"beta\": 0.5}]}");
}
FL_GPU_TEST(test_ball_beta_half, ball_beta_half)

static void ball_apic_beta1(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN "}, \"objects\": [" BALL_COLLIDER
                    "{\"type\": \"snow\", \"center\": [0, 0.45, 0], \"radius\": 0.2, \"grid_spacing\": 0.1,"
                    " \"velocity\": [0, -3, 0], \"transfer\": \"apic\", \"beta\": 1}]}");
}
FL_GPU_TEST(test_ball_apic_beta1, ball_apic_beta1)

static void ball_cas_beta1(fl_gpu *gpu)
{
  compare_case(gpu, "{" DOMAIN ", \"mpm_atomics\": \"fixed\"}, \"objects\": [" BALL_COLLIDER
                    "{\"type\": \"snow\", \"center\": [0, 0.45, 0], \"radius\": 0.2, \"grid_spacing\": 0.1,"
                    " \"velocity\": [0, -3, 0], \"beta\": 1}]}");
}
FL_GPU_TEST(test_ball_cas_beta1, ball_cas_beta1)

/* ---- stability ---- */

#define BLOCK_STEPS 20
#define BLOCK_STRETCH 0.85f

/* Runs the released compressed block for BLOCK_STEPS substeps of cfl_multiple x the planner's
 * stable substep for that beta (fl_snow_stable_dt); returns the
 * largest particle speed seen (INFINITY once a state is not finite) and the CR iterations of the
 * last substep (beta > 0). */
static bool run_block(fl_gpu *gpu, float beta, float cfl_multiple, float *max_speed, float *dt_out,
                      uint32_t *iterations, float *residual)
{
  char json[1024];
  snprintf(json, sizeof json,
           "{" DOMAIN "}, \"objects\": [{\"type\": \"snow\", \"shape\": \"box\", \"center\": [0, 0.5, 0],"
           " \"half_extents\": [0.2, 0.2, 0.2], \"grid_spacing\": 0.1, \"xi\": 0, \"theta_c\": 0.5,"
           " \"theta_s\": 0.5, \"beta\": %g}]}",
           (double)beta);
  fixture f;
  bool ok = fixture_create(gpu, json, &f);
  fl_snow_system *s = &f.s;
  fl_snow_cpu_particles st = {0};
  ok = ok && fl_snow_read_state(s, &st);
  if (ok) { /* F_E = 0.85 I and its stress K = V0 (2 mu (F - R) F^T + lambda (J - 1) J I) (R = I, xi = 0) */
    const fl_snow_material *m = &s->build.materials[0];
    float F = BLOCK_STRETCH, J = F * F * F;
    for (uint32_t p = 0; p < st.count; p++) {
      float k = st.vel[p][3] * (2.0f * m->mu0 * (F - 1.0f) * F + m->lambda0 * (J - 1.0f) * J);
      for (int r = 0; r < 3; r++)
        for (int c = 0; c < 3; c++) st.fe[3 * p + r][c] = r == c ? F : 0.0f;
      float s0[4] = {k, k, k, 0}, s1[4] = {0, 0, 0, st.stress[2 * p + 1][3]};
      memcpy(st.stress[2 * p], s0, sizeof s0);
      memcpy(st.stress[2 * p + 1], s1, sizeof s1);
    }
    ok = fl_buffer_upload(gpu, &s->fe, 0, st.fe, (VkDeviceSize)st.count * 48) &&
         fl_buffer_upload(gpu, &s->stress, 0, st.stress, (VkDeviceSize)st.count * 32);
  }
  fl_snow_state_free(&st);
  float dt = cfl_multiple * fl_snow_stable_dt(&s->build, 0.0f, 1.0f), t = 0;
  *max_speed = 0;
  *iterations = 0;
  for (int k = 0; k < BLOCK_STEPS && ok && isfinite(*max_speed); k++) {
    t += dt;
    ok = substep(gpu, s, dt, t) && fl_snow_read_state(s, &st);
    for (uint32_t p = 0; ok && p < st.count; p++) {
      float v = sqrtf(st.vel[p][0] * st.vel[p][0] + st.vel[p][1] * st.vel[p][1] + st.vel[p][2] * st.vel[p][2]);
      *max_speed = isfinite(v) ? fmaxf(*max_speed, v) : INFINITY;
    }
    fl_snow_state_free(&st);
  }
  *residual = 0;
  if (ok && beta > 0) ok = fl_snow_implicit_read_status(&s->implicit, iterations, residual);
  *dt_out = dt;
  fixture_destroy(gpu, &f);
  return ok;
}

static void compressed_block(fl_gpu *gpu)
{
  float v_explicit_cfl, v_explicit, v_implicit, dt_cfl, dt, residual;
  uint32_t it;
  ENSURE_MSG(run_block(gpu, 0.0f, 1.0f, &v_explicit_cfl, &dt_cfl, &it, &residual), "%s", fl_error_message());
  const float gain = (float)FL_SNOW_IMPLICIT_ELASTIC_GAIN;
  ENSURE_MSG(run_block(gpu, 0.0f, gain, &v_explicit, &dt, &it, &residual), "%s", fl_error_message());
  float v_half, dt_half, residual_half;
  uint32_t it_half;
  ENSURE_MSG(run_block(gpu, 0.5f, 1.0f, &v_half, &dt_half, &it_half, &residual_half), "%s", fl_error_message());
  ENSURE_MSG(run_block(gpu, 1.0f, 1.0f, &v_implicit, &dt, &it, &residual), "%s", fl_error_message());
  printf("  F_E = %.2f I released, %d substeps; largest particle speed: explicit at the CFL limit "
         "(dt %.3g ms) %.3g m/s; at %gx (dt %.3g ms): explicit %.3g m/s, beta 0.5 %.3g m/s (last substep: %u CR "
         "iterations, |r|_M / |b|_M %.2g), beta 1 %.3g m/s (%u, %.2g)\n",
         (double)BLOCK_STRETCH, BLOCK_STEPS, dt_cfl * 1e3, v_explicit_cfl, (double)gain, dt * 1e3, v_explicit,
         v_half, it_half, residual_half, v_implicit, it, residual);
  ENSURE_MSG(fabsf(dt - gain * dt_cfl) <= 1e-6f * dt && dt_half == dt,
             "the planner's beta > 0 substep is %g ms and %g ms, not %g x %g ms", dt * 1e3, dt_half * 1e3,
             (double)gain, dt_cfl * 1e3);
  /* The released strain energy, mu sum (s - 1)^2 + lambda / 2 (J - 1)^2 = 6.8 kJ/m^3 at 400 kg/m^3, turns
   * into an rms speed of 5.8 m/s at most, plus 2 m/s of free fall in 0.2 s: a bounded run stays below
   * 20 m/s; a blown-up one passes 100 m/s (or stops being finite). */
  ENSURE_MSG(v_explicit_cfl < 20.0f, "explicit at the CFL limit reached %g m/s", v_explicit_cfl);
  ENSURE_MSG(!(v_explicit < 100.0f), "explicit at the planner's beta > 0 substep did not blow up (%g m/s)", v_explicit);
  ENSURE_MSG(v_half < 20.0f, "beta 0.5 at the planner's substep reached %g m/s", v_half);
  ENSURE_MSG(v_implicit < 20.0f, "beta 1 at the planner's substep reached %g m/s", v_implicit);
}
FL_GPU_TEST(test_compressed_block, compressed_block)

static const fl_test_case cases[] = {
    {"ball_beta_half", test_ball_beta_half},
    {"ball_apic_beta1", test_ball_apic_beta1},
    {"ball_cas_beta1", test_ball_cas_beta1},
    {"compressed_block", test_compressed_block},
};
FL_TEST_MAIN(cases)
