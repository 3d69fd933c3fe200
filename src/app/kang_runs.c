/* app/kang_runs: stability trials, bisection and step timing of the Kang 2018
 * experiment (see kang_runs.h). */
#define _POSIX_C_SOURCE 200809L
#include "app/kang_runs.h"

#include "core/log.h"
#include "gpu/profiler.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PI_D 3.14159265358979323846
#define BRACKET_FACTOR 4.0
#define BRACKET_STEPS 8
#define BISECT_RATIO 1.1

/* The paper's cloth (kang_runs.h) with the setup's stiffness and damping. */
static bool make_cloth(const fl_kang_setup *s, fl_ms_system *out)
{
  fl_ms_grid_desc d = {.nx = s->n, .ny = s->n, .size = {FL_KANG_SIDE, FL_KANG_SIDE}, .center = {0, 2, 0},
                       .mass = FL_KANG_MASS, .kappa = s->kappa, .damping = s->damping, .gravity = {0, -9.81, 0}};
  if (!fl_ms_grid_create(&d, out)) return false;
  for (uint32_t i = 0; i < s->n; i++) fl_ms_pin(out, (s->n - 1) * s->n + i);
  return true;
}

static fl_ms_gpu_params params_of(const fl_kang_setup *s)
{
  uint32_t iterations = s->jacobi_iterations ? s->jacobi_iterations : s->method == FL_MS_HY ? 1u : 3u;
  return (fl_ms_gpu_params){.method = s->method, .split = FL_MS_SPLIT_PAPER, .definite = s->definite,
                            .jacobi_iterations = iterations, .explicit_start = s->explicit_start,
                            .cg_iterations = 1000, .cg_tolerance = 1e-5f,
                            .kappa = (float)s->kappa, .damping = (float)s->damping, .gravity = {0, -9.81f, 0},
                            .divergence_strain = (float)(s->strain_limit > 0 ? s->strain_limit : FL_KANG_STRAIN_LIMIT)};
}

/* Creates the GPU cloth; with `keep`, the CPU system stays in *cpu (for the energy), else it is freed. */
static bool create(fl_kang_context *c, const fl_kang_setup *s, fl_ms_gpu *out, fl_ms_system *cpu)
{
  fl_ms_system local;
  fl_ms_system *sys = cpu ? cpu : &local;
  if (!make_cloth(s, sys)) return false;
  fl_ms_gpu_params p = params_of(s);
  bool ok = fl_ms_gpu_create(c->gpu, sys, &p, "kang", out);
  if (!cpu || !ok) fl_ms_system_destroy(sys);
  return ok;
}

/* Frees a trial's cloth and forgets the descriptor sets that bound its buffers. */
static void release(fl_kang_context *c, fl_ms_gpu *g)
{
  fl_ms_gpu_destroy(g);
  fl_descriptor_cache_reset(c->sets);
}

/* The GPU state's energy (double, fl_ms_energy, in the CPU system's arrays) and its free particles' mean height. */
static bool gpu_energy(fl_ms_gpu *g, fl_ms_system *cpu, float (*pos)[4], float (*vel)[4], double *energy,
                       double *height)
{
  if (!fl_ms_gpu_read(g, pos, vel)) return false;
  double sum = 0;
  uint32_t free_count = 0;
  for (uint32_t i = 0; i < g->particle_count; i++) {
    for (int a = 0; a < 3; a++) {
      cpu->x[i][a] = pos[i][a];
      cpu->v[i][a] = vel[i][a];
    }
    if (cpu->inv_mass[i] > 0) {
      sum += pos[i][1];
      free_count++;
    }
  }
  *energy = fl_ms_energy(cpu);
  *height = free_count ? sum / free_count : 0;
  return true;
}

bool fl_kang_stable(fl_kang_context *c, const fl_kang_setup *s, fl_kang_trial *out)
{
  fl_ms_gpu g;
  fl_ms_system cpu;
  if (!create(c, s, &g, &cpu)) return false;
  double want = ceil(c->duration / s->h), scale = FL_KANG_MASS * 9.81 * FL_KANG_SIDE, e0 = 0, e = 0,
         y0 = 0, y = 0;
  uint64_t total = want < c->min_steps ? c->min_steps : (uint64_t)want, done = 0;
  uint32_t chunk = 100, status[FL_MS_STATUS_WORDS] = {0}, it;
  float res, (*pos)[4] = malloc(sizeof *pos * g.particle_count), (*vel)[4] = malloc(sizeof *vel * g.particle_count);
  bool ok = pos && vel, grown = false;
  if (!ok) fl_error_set("kang: out of host memory for %u particles", (unsigned)g.particle_count);
  ok = ok && gpu_energy(&g, &cpu, pos, vel, &e0, &y0);
  out->energy_growth = 0;
  /* Chunks grow while a submission takes under a quarter second (an explosion
   * usually shows within the first few hundred steps; submissions stay far below
   * the 10 s fence timeout even when other work slows the device 10x). */
  while (ok && done < total && status[FL_MS_STATUS_DIVERGED] == 0 && !grown) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t steps = total - done < chunk ? (uint32_t)(total - done) : chunk;
    fl_rec r;
    ok = fl_rec_begin_once(c->gpu, c->sets, &r);
    if (!ok) break;
    for (uint32_t k = 0; k < steps; k++) fl_ms_gpu_record_step(&g, &r, (float)s->h, "kang");
    fl_ms_gpu_record_watch(&g, &r, false);
    ok = fl_rec_end_once(&r) && fl_ms_gpu_read_status(&g, status, &it, &res) && gpu_energy(&g, &cpu, pos, vel, &e, &y);
    done += steps;
    double growth = (e - e0) / scale;
    if (!(growth <= FL_KANG_ENERGY_GROWTH)) grown = true; /* also a NaN energy */
    else if (growth > out->energy_growth) out->energy_growth = growth;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (seconds < 0.25 && chunk < 8000) chunk *= 2;
    else if (seconds > 1.0 && chunk > 1) chunk /= 2;
  }
  free(pos);
  free(vel);
  fl_ms_system_destroy(&cpu);
  release(c, &g);
  out->stable = status[FL_MS_STATUS_DIVERGED] == 0 && !grown;
  out->failure = status[FL_MS_STATUS_DIVERGED] ? "strain or non-finite" : grown ? "energy growth" : NULL;
  out->steps = done;
  out->fall = y0 - y;
  c->trials++;
  return ok;
}

/* One trial of s at value *x: a stable one raises lo (and keeps its trial), an unstable one lowers hi. */
static bool try_value(fl_kang_context *c, const fl_kang_setup *s, const double *x, double *lo, double *hi,
                      fl_kang_trial *largest_trial, fl_kang_trial *first_unstable)
{
  fl_kang_trial t;
  if (!fl_kang_stable(c, s, &t)) return false;
  if (t.stable) {
    *lo = *x;
    *largest_trial = t;
  } else {
    *hi = *x;
    *first_unstable = t;
  }
  return true;
}

bool fl_kang_largest_stable(fl_kang_context *c, fl_kang_setup s, char vary, double guess, double *out, bool *capped,
                            fl_kang_trial *largest_trial, fl_kang_trial *first_unstable)
{
  double *x = vary == 'k' ? &s.kappa : &s.h;
  double lo = 0, hi = 0;
  *largest_trial = *first_unstable = (fl_kang_trial){0};
  *x = guess;
  if (!try_value(c, &s, x, &lo, &hi, largest_trial, first_unstable)) return false;
  /* grow or shrink by 4x until stability changes */
  for (int k = 0; k < BRACKET_STEPS && (hi == 0 || lo == 0); k++) {
    *x = lo > 0 ? lo * BRACKET_FACTOR : hi / BRACKET_FACTOR;
    if (!try_value(c, &s, x, &lo, &hi, largest_trial, first_unstable)) return false;
  }
  while (lo > 0 && hi > 0 && hi / lo > BISECT_RATIO) {
    *x = sqrt(lo * hi);
    if (!try_value(c, &s, x, &lo, &hi, largest_trial, first_unstable)) return false;
  }
  *out = lo;
  *capped = hi == 0;
  return true;
}

/* omega of a spring between two free particles of the n x n cloth: sqrt(kappa / (m/2)). */
static double particle_mass(uint32_t n) { return FL_KANG_MASS / ((double)n * n); }

double fl_kang_guess_kappa(uint32_t n, double h)
{
  double omega = 0.25 * PI_D / h;
  return omega * omega * particle_mass(n) / 2.0;
}

double fl_kang_guess_h(uint32_t n, double kappa) { return 0.25 * PI_D / sqrt(kappa / (particle_mass(n) / 2.0)); }

/* Records `steps` steps, profiled when prof is set (scopes "kang/<pass>" and "kang/total"). */
static bool run_steps(fl_kang_context *c, fl_ms_gpu *g, fl_profiler *prof, uint32_t steps, float h)
{
  fl_rec r;
  if (!fl_rec_begin_once(c->gpu, c->sets, &r)) return false;
  r.prof = prof;
  if (prof) fl_profiler_reset(prof, 0, FL_QUEUE_COMPUTE, r.cmd);
  fl_rec_begin(&r, "kang/total", 0);
  for (uint32_t k = 0; k < steps; k++) fl_ms_gpu_record_step(g, &r, h, "kang");
  fl_rec_end(&r);
  if (!fl_rec_end_once(&r)) return false;
  if (prof) fl_profiler_collect(prof, 0);
  return true;
}

/* Steps per submission: about KANG_DISPATCHES_PER_SUBMIT dispatches, so that a big cloth's IM (3 + 5 per CG
 * iteration) stays far below the fence timeout on a slow device. The GPU timestamps do not see the gaps. */
#define KANG_DISPATCHES_PER_SUBMIT 600u
static uint32_t steps_per_submit(const fl_ms_gpu *g)
{
  uint32_t per_step = g->params.method == FL_MS_IM ? 3 + 5 * g->cg_budget : 2 + g->params.jacobi_iterations;
  uint32_t n = KANG_DISPATCHES_PER_SUBMIT / per_step;
  return n ? n : 1;
}

/* The sum over submissions of a profiler stat's samples (ms), and its bytes per sample. */
static double sum_ms(const fl_profiler *p, const char *name, uint64_t *bytes)
{
  const fl_profile_stat *st = fl_profiler_find(p, name);
  if (bytes) *bytes = st ? st->bytes : 0;
  double sum = 0;
  for (uint32_t k = 0; st && k < st->count; k++) sum += st->samples_ms[k];
  return sum;
}

/* Runs `steps` steps in submissions of steps_per_submit (profiled when prof is set, its stats cleared first). */
static bool chunked_steps(fl_kang_context *c, fl_ms_gpu *g, fl_profiler *prof, uint32_t steps, float h)
{
  if (prof) fl_profiler_clear(prof);
  for (uint32_t done = 0, chunk = steps_per_submit(g); done < steps; done += chunk)
    if (!run_steps(c, g, prof, steps - done < chunk ? steps - done : chunk, h)) return false;
  return true;
}

bool fl_kang_time_step(fl_kang_context *c, const fl_kang_setup *s, uint32_t warmup, uint32_t steps, fl_kang_cost *out)
{
  memset(out, 0, sizeof *out);
  fl_ms_gpu g;
  if (!create(c, s, &g, NULL)) return false;
  fl_profiler prof;
  bool ok = fl_profiler_create(c->gpu, &prof);
  uint32_t status[FL_MS_STATUS_WORDS];
  float res;
  /* IM: a probe step at a CG budget of 4 n (CG on the cloth's grid needs O(n) iterations; a full
   * 1000 would be one long submission on a CPU driver); its iteration count (with the adaptive margin
   * of ms_object.c) is the budget of the warm-up, and the warm-up's last step's count that of the
   * timed steps */
  if (ok && s->method == FL_MS_IM) {
    g.cg_budget = 4 * s->n < g.params.cg_iterations ? 4 * s->n : g.params.cg_iterations;
    ok = run_steps(c, &g, NULL, 1, (float)s->h) && fl_ms_gpu_read_status(&g, status, &out->cg_iterations, &res);
    g.cg_budget = out->cg_iterations + out->cg_iterations / 4 + 2;
  }
  ok = ok && chunked_steps(c, &g, NULL, warmup, (float)s->h) &&
       fl_ms_gpu_read_status(&g, status, &out->cg_iterations, &res);
  if (ok && s->method == FL_MS_IM) g.cg_budget = out->cg_iterations > 0 ? out->cg_iterations : 1;
  /* one profiled submission sizes the query pools (scopes past capacity are dropped once), then the measured ones */
  ok = ok && run_steps(c, &g, &prof, steps_per_submit(&g) < steps ? steps_per_submit(&g) : steps, (float)s->h);
  ok = ok && chunked_steps(c, &g, &prof, steps, (float)s->h);
  if (ok) {
    static const char *const PASSES[] = {"explicit", "ho", "setup", "jacobi", "cg", "advance"};
    out->step_ms = sum_ms(&prof, "kang/total", NULL) / steps;
    for (size_t k = 0; k < sizeof PASSES / sizeof PASSES[0] && out->pass_count < FL_KANG_MAX_PASSES; k++) {
      char name[48];
      snprintf(name, sizeof name, "kang/%s", PASSES[k]);
      uint64_t bytes;
      double ms = sum_ms(&prof, name, &bytes);
      if (ms <= 0) continue;
      out->pass_names[out->pass_count] = PASSES[k];
      out->pass_ms[out->pass_count] = ms / steps;
      out->pass_bytes[out->pass_count] = bytes;
      out->pass_count++;
    }
    if (!(out->step_ms > 0)) ok = fl_error_set("kang: the device's compute queue has no timestamps");
  }
  fl_profiler_destroy(&prof);
  release(c, &g);
  return ok;
}
