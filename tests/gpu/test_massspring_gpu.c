/* tests/gpu/test_massspring_gpu.c: the mass-spring kernels (sim/massspring/ms_gpu)
 * against the double-precision CPU reference (ms_cpu.c), on a validated device:
 *   methods      E, HO (both splits), JI, HY (definite and exact Jacobian), IM:
 *                a jittered, moving 8 x 6 cloth with two pins, 7 steps of 2 ms
 *                (odd, so E's ping-pong pair ends swapped)
 *                at kappa 400 and 50 steps of 0.04 ms at kappa 1e6; every
 *                position within 1e-5 of the cloth size (float vs double; the
 *                cloth moves ~6e-3 m) of the CPU's
 *                (E also by index offset on the grid, explicit_offset.comp)
 *   offsets      E by index offset against E through the links, 11 steps: the same
 *                positions (1e-6 m); a cloth with one odd rest length is not taken
 *                for a grid
 *   cg           IM reports its iterations and reaches the tolerance
 *   stability    on the GPU too: one spring at mu = 2.0625, E is flagged as
 *                diverged and HO (paper split) is not; the cloth at mu = 2, E
 *                (through the links and by offset) is flagged and HY is not; E's
 *                steps alone flag it (the check inside its kernel, no check pass)
 *   frozen       E's steps alone freeze the cloth at mu = 2 bitwise where a check
 *                pass after every step froze it (links and offsets)
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

/* Records `steps` steps (and, with `watch`, a sticky divergence check) in one submission. */
static bool gpu_steps_watched(fl_ms_gpu *g, uint32_t steps, float h, bool watch)
{
  fl_fixture_once once;
  if (!fl_fixture_once_begin(g->gpu, &once)) return false;
  for (uint32_t k = 0; k < steps; k++) fl_ms_gpu_record_step(g, &once.rec, h, "ms");
  if (watch) fl_ms_gpu_record_watch(g, &once.rec, false);
  return fl_fixture_once_end(&once);
}
static bool gpu_steps(fl_ms_gpu *g, uint32_t steps, float h) { return gpu_steps_watched(g, steps, h, true); }

/* Largest |x_gpu - x_cpu| over particles after `steps` steps of the method. */
static double method_error(fl_gpu *gpu, fl_ms_method m, fl_ms_split split, bool definite, bool explicit_start,
                           bool grid, double kappa, double h, uint32_t steps)
{
  fl_ms_system s;
  if (!make_cloth(kappa, 0.3, &s)) return INFINITY;
  fl_ms_gpu_params p = params_for(m, &s);
  p.split = split;
  p.definite = definite;
  p.explicit_start = explicit_start;
  if (grid) p.grid[0] = 8, p.grid[1] = 6; /* E by index offset (explicit_offset.comp) */
  fl_ms_gpu g;
  double worst = INFINITY;
  float(*pos)[4] = calloc(s.particle_count, sizeof *pos);
  if (pos && fl_ms_gpu_create(gpu, &s, &p, "test", &g)) {
    if (g.offsets != grid) fprintf(stderr, "  offsets %d: not as asked (%d)\n", g.offsets, grid);
    if (g.offsets != grid) steps = 0; /* fails below: the grid was not recognised */
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
    bool grid; /* E on the grid by index offset (explicit_offset.comp); else through the links */
    const char *what;
  } cases[] = {
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 0, "E"},
      {FL_MS_E, FL_MS_SPLIT_PAPER, true, false, 1, "E grid offsets"},
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
                              cases[i].grid, 400, 2e-3, 7);
    /* stiff springs, short steps (mu = 0.125: stable for every method): omega^n
     * overflows a float unless HO's series is scaled */
    double stiff = method_error(gpu, cases[i].m, cases[i].split, cases[i].definite, cases[i].explicit_start,
                                cases[i].grid, 1e6, 4e-5, (uint32_t)fl_fixture_trim(50, 13)); /* trimmed: IM's 200 CG iterations a step */
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

/* Runs `steps` steps at mu = h/h_c (h_c of spring 0) and says whether the check flagged a divergence
 * (`watch`: the check pass after the steps; without, only what the steps check themselves). */
static bool diverges(fl_gpu *gpu, fl_ms_system *s, fl_ms_method m, bool grid, bool watch, double mu,
                     uint32_t steps, bool *flagged)
{
  double hc = PI_D / sqrt(s->kappa / fl_ms_reduced_mass(s, 0));
  fl_ms_gpu_params p = params_for(m, s);
  p.divergence_strain = 2.0f;
  if (grid) p.grid[0] = 8, p.grid[1] = 6; /* the test cloth's grid (not the pair's) */
  fl_ms_gpu g;
  uint32_t status[FL_MS_STATUS_WORDS], it;
  float res;
  bool ok = fl_ms_gpu_create(gpu, s, &p, "stability", &g) && g.offsets == grid;
  ok = ok && gpu_steps_watched(&g, steps, (float)(mu * hc), watch) && fl_ms_gpu_read_status(&g, status, &it, &res);
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
  ENSURE(diverges(gpu, &pair, FL_MS_E, false, true, 2.0625, 400, &e_flag));
  ENSURE(diverges(gpu, &pair, FL_MS_HO, false, true, 2.0625, 400, &ho_flag));
  fl_ms_system_destroy(&pair);
  ENSURE_MSG(e_flag && !ho_flag, "one spring at mu 2.0625: E flagged %d (want 1), HO flagged %d (want 0)", e_flag,
             ho_flag);
  fl_ms_system cloth;
  ENSURE(make_cloth(400, 0.3, &cloth));
  bool hy_flag = true, grid_flag = false, in_step[2] = {false, false};
  ENSURE(diverges(gpu, &cloth, FL_MS_E, false, true, 2.0, 400, &e_flag));
  ENSURE(diverges(gpu, &cloth, FL_MS_E, true, true, 2.0, 400, &grid_flag));
  ENSURE(diverges(gpu, &cloth, FL_MS_E, false, false, 2.0, 400, &in_step[0])); /* explicit.comp's own check */
  ENSURE(diverges(gpu, &cloth, FL_MS_E, true, false, 2.0, 400, &in_step[1]));  /* explicit_offset.comp's */
  ENSURE(diverges(gpu, &cloth, FL_MS_HY, false, true, 2.0, 400, &hy_flag));
  fl_ms_system_destroy(&cloth);
  ENSURE_MSG(e_flag && grid_flag && in_step[0] && in_step[1] && !hy_flag,
             "cloth at mu 2: E flagged %d, by offset %d, by its steps alone %d and %d (want 1), HY flagged %d "
             "(want 0)", e_flag, grid_flag, in_step[0], in_step[1], hy_flag);
  /* stable (mu = 0.25): the steps' own check flags nothing */
  ENSURE(make_cloth(400, 0.3, &cloth));
  ENSURE(diverges(gpu, &cloth, FL_MS_E, true, false, 0.25, 400, &grid_flag));
  fl_ms_system_destroy(&cloth);
  ENSURE_MSG(!grid_flag, "cloth at mu 0.25: E by offset flagged a divergence");
}
FL_GPU_TEST(test_stability_beyond_critical_step, stability_body)

/* E by index offset (explicit_offset.comp) against E through the links (explicit.comp):
 * the same float operations in the same order, so the same positions up to the
 * compiler's contractions; and a grid whose links are not the grid's is not taken for one. */
static void offsets_body(fl_gpu *gpu)
{
  fl_ms_system s;
  ENSURE(make_cloth(400, 0.3, &s));
  fl_ms_gpu_params p = params_for(FL_MS_E, &s);
  fl_ms_gpu links, grid;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "links", &links));
  p.grid[0] = 8, p.grid[1] = 6;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "offsets", &grid));
  ENSURE_MSG(!links.offsets && grid.offsets, "by offset: %d and %d (want 0 and 1)", links.offsets, grid.offsets);
  uint32_t n = s.particle_count;
  float(*a)[4] = calloc(n, sizeof *a), (*b)[4] = calloc(n, sizeof *b), (*va)[4] = calloc(n, sizeof *va),
        (*vb)[4] = calloc(n, sizeof *vb);
  ENSURE(a && b && va && vb);
  ENSURE(gpu_steps(&links, 11, 2e-3f) && gpu_steps(&grid, 11, 2e-3f));
  ENSURE(fl_ms_gpu_read(&links, a, va) && fl_ms_gpu_read(&grid, b, vb));
  double dx = 0, dv = 0;
  for (uint32_t k = 0; k < n; k++)
    for (int c = 0; c < 4; c++) {
      dx = fmax(dx, fabs((double)a[k][c] - b[k][c]));
      if (c < 3) dv = fmax(dv, fabs((double)va[k][c] - vb[k][c]));
      ENSURE(isfinite(b[k][c]) && isfinite(vb[k][c]));
    }
  fprintf(stderr, "  11 steps: by offset against through the links: max |dx| %.3g m, |dv| %.3g m/s\n", dx, dv);
  ENSURE_MSG(dx <= 1e-6 && dv <= 1e-4, "by offset differs from through the links by %g m, %g m/s", dx, dv);
  fl_ms_gpu_destroy(&links);
  fl_ms_gpu_destroy(&grid);
  /* one spring's rest length changed: not the grid's any more, so through the links */
  s.springs[s.particle_springs[s.particle_first[9]]].rest *= 1.01;
  ENSURE(fl_ms_gpu_create(gpu, &s, &p, "not a grid", &grid));
  ENSURE_MSG(!grid.offsets, "a grid with an odd rest length runs by offset");
  fl_ms_gpu_destroy(&grid);
  free(a);
  free(b);
  free(va);
  free(vb);
  fl_ms_system_destroy(&s);
}
FL_GPU_TEST(test_offsets_match_links, offsets_body)

/* E's check inside the step freezes the object where a check pass after every step froze it:
 * the cloth at mu = 2, 400 steps, with a check pass after each step and without, through the
 * links and by offset: the same frozen positions, bitwise. */
static void frozen_where_checked_body(fl_gpu *gpu)
{
  fl_ms_system s;
  ENSURE(make_cloth(400, 0.3, &s));
  uint32_t n = s.particle_count;
  double hc = PI_D / sqrt(s.kappa / fl_ms_reduced_mass(&s, 0));
  float(*a)[4] = calloc(n, sizeof *a), (*b)[4] = calloc(n, sizeof *b);
  ENSURE(a && b);
  for (int grid = 0; grid < 2; grid++) {
    fl_ms_gpu_params p = params_for(FL_MS_E, &s);
    p.divergence_strain = 2.0f;
    if (grid) p.grid[0] = 8, p.grid[1] = 6;
    fl_ms_gpu checked, folded;
    ENSURE(fl_ms_gpu_create(gpu, &s, &p, "checked", &checked) && fl_ms_gpu_create(gpu, &s, &p, "folded", &folded));
    ENSURE(checked.offsets == (grid != 0));
    fl_fixture_once once;
    ENSURE(fl_fixture_once_begin(gpu, &once));
    for (int k = 0; k < 400; k++) {
      fl_ms_gpu_record_step(&checked, &once.rec, (float)(2.0 * hc), "ms");
      fl_ms_gpu_record_check(&checked, &once.rec);
      fl_ms_gpu_record_step(&folded, &once.rec, (float)(2.0 * hc), "ms");
    }
    ENSURE(fl_fixture_once_end(&once));
    uint32_t sc[FL_MS_STATUS_WORDS], sf[FL_MS_STATUS_WORDS], it;
    float res;
    ENSURE(fl_ms_gpu_read(&checked, a, NULL) && fl_ms_gpu_read(&folded, b, NULL));
    ENSURE(fl_ms_gpu_read_status(&checked, sc, &it, &res) && fl_ms_gpu_read_status(&folded, sf, &it, &res));
    ENSURE_MSG(sc[FL_MS_STATUS_DIVERGED] && sf[FL_MS_STATUS_DIVERGED] && sf[FL_MS_STATUS_FOUND] > 1,
               "flagged %u and %u, found at step %u", sc[FL_MS_STATUS_DIVERGED], sf[FL_MS_STATUS_DIVERGED],
               sf[FL_MS_STATUS_FOUND]);
    double d = 0;
    for (uint32_t k = 0; k < n; k++)
      for (int c = 0; c < 3; c++) d = fmax(d, fabs((double)a[k][c] - b[k][c]));
    fprintf(stderr, "  %s: frozen at step %u, check inside the step against a check pass: max |dx| %.3g m\n",
            grid ? "by offset" : "through the links", sf[FL_MS_STATUS_FOUND] - 1, d);
    ENSURE_MSG(memcmp(a, b, (size_t)n * sizeof *a) == 0, "frozen %g m away from where the check pass froze it", d);
    fl_ms_gpu_destroy(&checked);
    fl_ms_gpu_destroy(&folded);
  }
  free(a);
  free(b);
  fl_ms_system_destroy(&s);
}
FL_GPU_TEST(test_frozen_where_checked, frozen_where_checked_body)

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
    {"offsets_match_links", test_offsets_match_links},
    {"frozen_where_checked", test_frozen_where_checked},
    {"divergence_reset", test_divergence_reset},
};
FL_TEST_MAIN(cases)
