/* tests/gpu/test_massspring_gpu.c: the mass-spring kernels (sim/massspring/ms_gpu)
 * against the double-precision CPU reference (ms_cpu.c), on a validated device:
 *   methods      E, HO (both splits), JI, HY (definite and exact Jacobian), IM:
 *                a jittered, moving 8 x 6 cloth with two pins, 7 steps of 2 ms
 *                (odd, so E's ping-pong pair ends swapped)
 *                at kappa 400 and 50 steps of 0.04 ms at kappa 1e6; every
 *                position within 1e-5 of the cloth size (float vs double; the
 *                cloth moves ~6e-3 m) of the CPU's
 *                (E also by index offset on the grid, explicit_offset.comp, and
 *                in blocks of 3 and 2 steps a dispatch on the grid, the most
 *                with bend springs: 7 and 50 steps, neither a multiple of 3, 7 of 2)
 *   blocks       E in blocks of 3 against one dispatch a step, 11 steps: the same
 *                positions (1e-6 m); a cloth with one odd rest length is not blocked
 *   cg           IM reports its iterations and reaches the tolerance
 *   stability    on the GPU too: one spring at mu = 2.0625, E is flagged as
 *                diverged and HO (paper split) is not; the cloth at mu = 2, E
 *                (one dispatch a step, and in blocks of 3) is flagged and HY is not
 *   reset        a flagged object is frozen at once as it blew up (velocities
 *                zeroed, steps move nothing) for FL_MS_RESET_HOLD_FRAMES
 *                watches, then put back bitwise to its initial state, unfrozen,
 *                and the reset counted; a healthy one is left alone */
#include "gpu_fixture.h"

#include <math.h>
#include <stdlib.h>

#include "flurry_shared.h"
#include "sim/massspring/ms_gpu.h"

#define PI_D 3.14159265358979323846

static uint32_t rng_state = 7;
static double drand_sym(void) /* uniform in [-1, 1) */
{
  rng_state = rng_state * 1664525u + 1013904223u;
  return (double)(rng_state >> 8) / (double)(1u << 23) - 1.0;
}

/* The 8 x 6 test cloth (1 m x 0.7 m, 1 kg), two top corners pinned, jittered and moving. */
static bool make_cloth(double kappa, double damping, fl_ms_system *s)
{
  fl_ms_grid_desc d = {.nx = 8, .ny = 6, .size = {1.0, 0.7}, .center = {0, 1, 0}, .mass = 1.0, .kappa = kappa,
                       .damping = damping, .gravity = {0, -9.81, 0}};
  if (!fl_ms_grid_create(&d, s)) return false;
  fl_ms_pin(s, 5 * 8);
  fl_ms_pin(s, 5 * 8 + 7);
  rng_state = 7;
  for (uint32_t k = 0; k < s->particle_count; k++)
    for (int c = 0; c < 3; c++) {
      s->x[k][c] += 0.02 * drand_sym();
      if (s->inv_mass[k] > 0) s->v[k][c] = 0.5 * drand_sym();
    }
  return true;
}

static fl_ms_gpu_params params_for(fl_ms_method m, const fl_ms_system *s)
{
  return (fl_ms_gpu_params){.method = m, .split = FL_MS_SPLIT_PAPER, .definite = true, .jacobi_iterations = 3,
                            .cg_iterations = 200, .cg_tolerance = 1e-6f, .kappa = (float)s->kappa,
                            .damping = (float)s->damping, .gravity = {0, -9.81f, 0}, .divergence_strain = 100.0f};
}

/* Records `steps` steps (and a sticky divergence check) in one submission: E on
 * a grid in blocks of g->block steps (the last one shorter), the others one by one. */
static bool gpu_steps(fl_ms_gpu *g, uint32_t steps, float h)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(g->gpu, &once)) return false;
  for (uint32_t k = 0, n = 1; k < steps; k += n) {
    n = g->block && steps - k > g->block ? g->block : g->block ? steps - k : 1;
    if (g->block) fl_ms_gpu_record_block(g, &once.rec, h, n, "ms");
    else fl_ms_gpu_record_step(g, &once.rec, h, "ms");
  }
  fl_ms_gpu_record_watch(g, &once.rec, false);
  return fl_fixture_once_end(&once);
}

/* Largest |x_gpu - x_cpu| over particles after `steps` steps of the method. */
static double method_error(fl_gpu *gpu, fl_ms_method m, fl_ms_split split, bool definite, bool explicit_start,
                           uint32_t block, double kappa, double h, uint32_t steps)
{
  fl_ms_system s;
  if (!make_cloth(kappa, 0.3, &s)) return INFINITY;
  fl_ms_gpu_params p = params_for(m, &s);
  p.split = split;
  p.definite = definite;
  p.explicit_start = explicit_start;
  if (block) p.grid[0] = 8, p.grid[1] = 6, p.block_steps = block; /* 1: the grid, one step a dispatch */
  fl_ms_gpu g;
  double worst = INFINITY;
  float(*pos)[4] = calloc(s.particle_count, sizeof *pos);
  if (pos && fl_ms_gpu_create(gpu, &s, &p, "test", &g)) {
    bool grid = g.offsets == (block > 0) && g.block == (block > 1 ? block : 0);
    if (!grid) fprintf(stderr, "  offsets %d, blocks of %u steps: not as asked (%u)\n", g.offsets, g.block, block);
    if (!grid) steps = 0; /* fails below: the grid was not recognised */
    fl_ms_step_params cp = fl_ms_gpu_cpu_params(&p, h);
    bool ok = gpu_steps(&g, steps, (float)h) && fl_ms_gpu_read(&g, pos, NULL);
    for (uint32_t k = 0; ok && k < steps; k++) ok = fl_ms_step(&s, &cp);
    if (ok) {
      worst = 0;
      for (uint32_t k = 0; k < s.particle_count; k++)
        for (int c = 0; c < 3; c++) {
          double d = fabs((double)pos[k][c] - s.x[k][c]);
          worst = d <= worst ? worst : d; /* a NaN on either side makes it NaN, never hidden */
        }
    }
    fl_ms_gpu_destroy(&g);
  }
  free(pos);
  fl_ms_system_destroy(&s);
  return worst;
}

static void methods_body(fl_gpu *gpu)
{
  struct {
    fl_ms_method m;
    fl_ms_split split;
    bool definite, explicit_start;
    uint32_t block; /* E on the grid: steps per dispatch (explicit_grid.comp), 1: explicit_offset.comp; 0: links */
    const char *what;
  } cases[] = {
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 0, "E"},
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 1, "E grid offsets"},
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 3, "E blocks of 3"},
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 2, "E blocks of 2"},
      {FL_MS_HO, FL_MS_SPLIT_PAPER, true, false, 0, "HO paper"},
      {FL_MS_HO, FL_MS_SPLIT_MOMENTUM, true, false, 0, "HO momentum"},
      {FL_MS_JI, FL_MS_SPLIT_PAPER, true, false, 0, "JI"},
      {FL_MS_JI, FL_MS_SPLIT_PAPER, false, false, 0, "JI exact"},
      {FL_MS_JI, FL_MS_SPLIT_PAPER, false, true, 0, "JI exact explicit start"},
      {FL_MS_HY, FL_MS_SPLIT_PAPER, true, false, 0, "HY"},
      {FL_MS_HY, FL_MS_SPLIT_MOMENTUM, false, false, 0, "HY momentum exact"},
      {FL_MS_HY, FL_MS_SPLIT_PAPER, true, true, 0, "HY explicit start"},
      {FL_MS_IM, FL_MS_SPLIT_PAPER, true, false, 0, "IM"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    double err = method_error(gpu, cases[i].m, cases[i].split, cases[i].definite, cases[i].explicit_start,
                              cases[i].block, 400, 2e-3, 7);
    /* stiff springs, short steps (mu = 0.125: stable for every method): omega^n
     * overflows a float unless HO's series is scaled */
    double stiff = method_error(gpu, cases[i].m, cases[i].split, cases[i].definite, cases[i].explicit_start,
                                cases[i].block, 1e6, 4e-5, (uint32_t)fl_fixture_trim(50, 13)); /* trimmed: IM's 200 CG iterations a step */
    fprintf(stderr, "  %-18s max |x_gpu - x_cpu| = %.3g m, stiff %.3g m (cloth 1 m)\n", cases[i].what, err, stiff);
    ENSURE_MSG(err < 1e-5, "%s: GPU differs from the CPU by %g m", cases[i].what, err);
    ENSURE_MSG(stiff < 1e-5, "%s, kappa 1e6: GPU differs from the CPU by %g m", cases[i].what, stiff);
  }
}
FL_GPU_TEST(test_methods_match_cpu, methods_body)

static void cg_body(fl_gpu *gpu)
{
  fl_ms_system s;
  ENSURE(make_cloth(400, 0.3, &s));
  fl_ms_gpu_params p = params_for(FL_MS_IM, &s);
  p.cg_tolerance = 1e-4f;
  fl_ms_gpu g;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "cg", &g));
  uint32_t status[FL_MS_STATUS_WORDS], iterations;
  float residual;
  ENSURE(gpu_steps(&g, 1, 0.01f) && fl_ms_gpu_read_status(&g, status, &iterations, &residual));
  fprintf(stderr, "  IM: %u CG iterations, relative residual %.3g (tolerance 1e-4)\n", iterations, residual);
  ENSURE_MSG(iterations > 1 && iterations < p.cg_iterations, "CG iterations %u", iterations);
  ENSURE_MSG(residual <= 1e-4f, "CG relative residual %g", residual);
  fl_ms_gpu_destroy(&g);
  fl_ms_system_destroy(&s);
}
FL_GPU_TEST(test_cg_converges, cg_body)

/* Runs `steps` steps at mu = h/h_c (h_c of spring 0) and says whether the check flagged a divergence. */
static bool diverges(fl_gpu *gpu, fl_ms_system *s, fl_ms_method m, uint32_t block, double mu,
                     uint32_t steps, bool *flagged)
{
  double hc = PI_D / sqrt(s->kappa / fl_ms_reduced_mass(s, 0));
  fl_ms_gpu_params p = params_for(m, s);
  p.divergence_strain = 2.0f;
  p.grid[0] = 8, p.grid[1] = 6, p.block_steps = block; /* the test cloth's grid (not the pair's) */
  fl_ms_gpu g;
  uint32_t status[FL_MS_STATUS_WORDS], it;
  float res;
  bool ok = fl_ms_gpu_create(gpu, s, &p, "stability", &g);
  ok = ok && gpu_steps(&g, steps, (float)(mu * hc)) && fl_ms_gpu_read_status(&g, status, &it, &res);
  *flagged = status[FL_MS_STATUS_DIVERGED] != 0;
  fl_ms_gpu_destroy(&g);
  return ok;
}

static void stability_body(fl_gpu *gpu)
{
  /* one free spring, equal masses, undamped, stretched by 10% */
  const fl_ms_spring spring = {0, 1, 1.0};
  fl_ms_system pair;
  ENSURE(fl_ms_system_create(2, &spring, 1, 100, 0, &pair));
  pair.x[1][0] = 1.1;
  bool e_flag = false, ho_flag = true;
  ENSURE(diverges(gpu, &pair, FL_MS_E, 0, 2.0625, 400, &e_flag));
  ENSURE(diverges(gpu, &pair, FL_MS_HO, 0, 2.0625, 400, &ho_flag));
  fl_ms_system_destroy(&pair);
  ENSURE_MSG(e_flag && !ho_flag, "one spring at mu 2.0625: E flagged %d (want 1), HO flagged %d (want 0)", e_flag,
             ho_flag);
  fl_ms_system cloth;
  ENSURE(make_cloth(400, 0.3, &cloth));
  bool hy_flag = true, blocked_flag = false;
  ENSURE(diverges(gpu, &cloth, FL_MS_E, 0, 2.0, 400, &e_flag));
  ENSURE(diverges(gpu, &cloth, FL_MS_E, 3, 2.0, 401, &blocked_flag)); /* the check inside explicit_grid.comp */
  ENSURE(diverges(gpu, &cloth, FL_MS_HY, 0, 2.0, 400, &hy_flag));
  fl_ms_system_destroy(&cloth);
  ENSURE_MSG(e_flag && blocked_flag && !hy_flag,
             "cloth at mu 2: E flagged %d, E in blocks of 3 %d (want 1), HY flagged %d (want 0)", e_flag,
             blocked_flag, hy_flag);
}
FL_GPU_TEST(test_stability_beyond_critical_step, stability_body)

/* E in blocks (explicit_grid.comp) against E one dispatch a step (explicit.comp):
 * the same float operations in the same order, so the same positions up to the
 * compiler's contractions; and a grid whose links are not the grid's is not blocked. */
static void block_body(fl_gpu *gpu)
{
  fl_ms_system s;
  ENSURE(make_cloth(400, 0.3, &s));
  fl_ms_gpu_params p = params_for(FL_MS_E, &s);
  fl_ms_gpu step, block;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "steps", &step));
  p.grid[0] = 8, p.grid[1] = 6, p.block_steps = 8; /* the bend springs allow 3 */
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "blocks", &block));
  ENSURE_MSG(step.block == 0 && !step.offsets && block.block == 3 && block.offsets,
             "blocks of %u and %u steps (want 0 and 3)", step.block, block.block);
  uint32_t n = s.particle_count;
  float(*a)[4] = calloc(n, sizeof *a), (*b)[4] = calloc(n, sizeof *b), (*va)[4] = calloc(n, sizeof *va),
        (*vb)[4] = calloc(n, sizeof *vb);
  ENSURE(a && b && va && vb);
  ENSURE(gpu_steps(&step, 11, 2e-3f) && gpu_steps(&block, 11, 2e-3f));
  ENSURE(fl_ms_gpu_read(&step, a, va) && fl_ms_gpu_read(&block, b, vb));
  double dx = 0, dv = 0;
  for (uint32_t k = 0; k < n; k++)
    for (int c = 0; c < 4; c++) {
      dx = fmax(dx, fabs((double)a[k][c] - b[k][c]));
      if (c < 3) dv = fmax(dv, fabs((double)va[k][c] - vb[k][c]));
      ENSURE(isfinite(b[k][c]) && isfinite(vb[k][c]));
    }
  fprintf(stderr, "  11 steps: blocks of 3 against one dispatch a step: max |dx| %.3g m, |dv| %.3g m/s\n", dx, dv);
  ENSURE_MSG(dx <= 1e-6 && dv <= 1e-4, "blocks differ from single steps by %g m, %g m/s", dx, dv);
  fl_ms_gpu_destroy(&step);
  fl_ms_gpu_destroy(&block);
  /* one spring's rest length changed: not the grid's any more, so one dispatch a step */
  s.springs[s.particle_springs[s.particle_first[9]]].rest *= 1.01;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "not a grid", &block));
  ENSURE_MSG(block.block == 0 && !block.offsets, "a grid with an odd rest length runs in blocks of %u", block.block);
  fl_ms_gpu_destroy(&block);
  free(a);
  free(b);
  free(va);
  free(vb);
  fl_ms_system_destroy(&s);
}
FL_GPU_TEST(test_blocks_match_steps, block_body)

static void reset_body(fl_gpu *gpu)
{
  fl_ms_system s;
  ENSURE(make_cloth(400, 0.3, &s));
  uint32_t n = s.particle_count;
  float(*initial)[4] = calloc(n, sizeof *initial), (*pos)[4] = calloc(n, sizeof *pos), (*vel)[4] = calloc(n, sizeof *vel);
  ENSURE(initial && pos && vel);
  for (uint32_t k = 0; k < n; k++)
    for (int c = 0; c < 3; c++) initial[k][c] = (float)s.x[k][c];
  double hc = PI_D / sqrt(s.kappa / fl_ms_reduced_mass(&s, 0));
  fl_ms_gpu_params p = params_for(FL_MS_E, &s);
  p.divergence_strain = 2.0f;
  fl_ms_gpu bad, good;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "diverging", &bad));
  p.method = FL_MS_HY;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "healthy", &good));
  fl_fixture_once once;
  ENSURE(fl_fixture_once_begin(gpu, &once));
  for (int k = 0; k < 400; k++) {
    fl_ms_gpu_record_step(&bad, &once.rec, (float)(2.0 * hc), "ms");
    fl_ms_gpu_record_step(&good, &once.rec, (float)(2.0 * hc), "ms");
  }
  fl_ms_gpu_record_watch(&bad, &once.rec, true);
  fl_ms_gpu_record_watch(&good, &once.rec, true);
  ENSURE(fl_fixture_once_end(&once));
  uint32_t status[FL_MS_STATUS_WORDS], it;
  float res;
  ENSURE(fl_ms_gpu_read(&bad, pos, vel) && fl_ms_gpu_read_status(&bad, status, &it, &res));
  ENSURE_MSG(status[FL_MS_STATUS_DIVERGED] && status[FL_MS_STATUS_RESETS] == 0 && status[FL_MS_STATUS_HOLD] == 1,
             "after the first watch: diverged %u, resets %u, hold %u", status[FL_MS_STATUS_DIVERGED],
             status[FL_MS_STATUS_RESETS], status[FL_MS_STATUS_HOLD]);
  float(*frozen)[4] = calloc(n, sizeof *frozen);
  ENSURE(frozen);
  bool moved_away = false;
  for (uint32_t k = 0; k < n; k++) {
    for (int c = 0; c < 4; c++) frozen[k][c] = pos[k][c];
    for (int c = 0; c < 3; c++) moved_away = moved_away || !(pos[k][c] == initial[k][c]);
    ENSURE(vel[k][0] == 0.0f && vel[k][1] == 0.0f && vel[k][2] == 0.0f);
  }
  ENSURE_MSG(moved_away, "the diverged object should be shown as it blew up, not reset at once");
  /* frozen: a step per watch moves nothing, until the hold ends in the reset */
  ENSURE(fl_fixture_once_begin(gpu, &once));
  for (int k = 1; k < FL_MS_RESET_HOLD_FRAMES; k++) {
    fl_ms_gpu_record_step(&bad, &once.rec, (float)(2.0 * hc), "ms");
    fl_ms_gpu_record_watch(&bad, &once.rec, true);
  }
  ENSURE(fl_fixture_once_end(&once));
  ENSURE(fl_ms_gpu_read(&bad, pos, NULL) && fl_ms_gpu_read_status(&bad, status, &it, &res));
  ENSURE_MSG(status[FL_MS_STATUS_RESETS] == 0 && status[FL_MS_STATUS_HOLD] == FL_MS_RESET_HOLD_FRAMES,
             "at the end of the hold: resets %u, hold %u", status[FL_MS_STATUS_RESETS], status[FL_MS_STATUS_HOLD]);
  for (uint32_t k = 0; k < n; k++)
    ENSURE_MSG(memcmp(pos[k], frozen[k], 3 * sizeof(float)) == 0, "particle %u moved while frozen", k); /* NaN too */
  free(frozen);
  ENSURE(fl_fixture_once_begin(gpu, &once));
  fl_ms_gpu_record_step(&bad, &once.rec, (float)(2.0 * hc), "ms");
  fl_ms_gpu_record_watch(&bad, &once.rec, true);
  ENSURE(fl_fixture_once_end(&once));
  ENSURE(fl_ms_gpu_read(&bad, pos, vel) && fl_ms_gpu_read_status(&bad, status, &it, &res));
  ENSURE_MSG(status[FL_MS_STATUS_RESETS] == 1 && !status[FL_MS_STATUS_DIVERGED] && status[FL_MS_STATUS_HOLD] == 0,
             "after the hold: resets %u, diverged %u, hold %u", status[FL_MS_STATUS_RESETS],
             status[FL_MS_STATUS_DIVERGED], status[FL_MS_STATUS_HOLD]);
  for (uint32_t k = 0; k < n; k++)
    for (int c = 0; c < 3; c++) {
      ENSURE_MSG(pos[k][c] == initial[k][c], "particle %u not reset", k);
      ENSURE(vel[k][c] == 0.0f);
    }
  ENSURE(fl_ms_gpu_read(&good, pos, NULL) && fl_ms_gpu_read_status(&good, status, &it, &res));
  ENSURE_MSG(status[FL_MS_STATUS_RESETS] == 0, "the healthy object was reset %u times", status[FL_MS_STATUS_RESETS]);
  double moved = 0;
  for (uint32_t k = 0; k < n; k++) moved = fmax(moved, fabs((double)pos[k][1] - initial[k][1]));
  ENSURE_MSG(moved > 0.01, "the healthy object did not move (%g m)", moved);
  fl_ms_gpu_destroy(&bad);
  fl_ms_gpu_destroy(&good);
  free(initial);
  free(pos);
  free(vel);
  fl_ms_system_destroy(&s);
}
FL_GPU_TEST(test_divergence_reset, reset_body)

static const fl_test_case cases[] = {
    {"methods_match_cpu", test_methods_match_cpu},
    {"cg_converges", test_cg_converges},
    {"stability_beyond_critical_step", test_stability_beyond_critical_step},
    {"blocks_match_steps", test_blocks_match_steps},
    {"divergence_reset", test_divergence_reset},
};
FL_TEST_MAIN(cases)
