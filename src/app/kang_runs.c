/* app/kang_runs: stability trials, bisection and step timing of the Kang 2018
 * experiment (see kang_runs.h). */
#define _POSIX_C_SOURCE 200809L
#include "app/kang_runs.h"

#include "core/log.h"
#include "gpu/profiler.h"

#include <math.h>
#include <stdio.h>
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
  return (fl_ms_gpu_params){.method = s->method, .split = FL_MS_SPLIT_PAPER, .definite = true,
                            .jacobi_iterations = 3, .cg_iterations = 1000, .cg_tolerance = 1e-5f,
                            .kappa = (float)s->kappa, .damping = (float)s->damping, .gravity = {0, -9.81f, 0},
                            .divergence_strain = (float)FL_KANG_STRAIN_LIMIT};
}

static bool create(fl_kang_context *c, const fl_kang_setup *s, fl_ms_gpu *out)
{
  fl_ms_system cpu;
  if (!make_cloth(s, &cpu)) return false;
  fl_ms_gpu_params p = params_of(s);
  bool ok = fl_ms_gpu_create(c->gpu, &cpu, &p, "kang", out);
  fl_ms_system_destroy(&cpu);
  return ok;
}

/* Frees a trial's cloth and forgets the descriptor sets that bound its buffers. */
static void release(fl_kang_context *c, fl_ms_gpu *g)
{
  fl_ms_gpu_destroy(g);
  fl_descriptor_cache_reset(c->sets);
}

bool fl_kang_stable(fl_kang_context *c, const fl_kang_setup *s, bool *stable)
{
  fl_ms_gpu g;
  if (!create(c, s, &g)) return false;
  double want = ceil(c->duration / s->h);
  uint64_t total = want < FL_KANG_MIN_STEPS ? FL_KANG_MIN_STEPS : (uint64_t)want, done = 0;
  uint32_t chunk = 100, status[FL_MS_STATUS_WORDS] = {0}, it;
  float res;
  bool ok = true;
  /* Chunks grow while a submission takes under a second (an explosion usually
   * shows within the first few hundred steps; submissions stay far below the
   * fence timeout on a slow device). */
  while (ok && done < total && status[FL_MS_STATUS_DIVERGED] == 0) {
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    uint32_t steps = total - done < chunk ? (uint32_t)(total - done) : chunk;
    fl_rec r;
    ok = fl_rec_begin_once(c->gpu, c->sets, &r);
    if (!ok) break;
    for (uint32_t k = 0; k < steps; k++) fl_ms_gpu_record_step(&g, &r, (float)s->h, "kang");
    fl_ms_gpu_record_watch(&g, &r, false);
    ok = fl_rec_end_once(&r) && fl_ms_gpu_read_status(&g, status, &it, &res);
    done += steps;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double seconds = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);
    if (seconds < 1.0 && chunk < 8000) chunk *= 2;
    else if (seconds > 3.0 && chunk > 1) chunk /= 2;
  }
  release(c, &g);
  *stable = status[FL_MS_STATUS_DIVERGED] == 0;
  c->trials++;
  return ok;
}

bool fl_kang_largest_stable(fl_kang_context *c, fl_kang_setup s, char vary, double guess, double *out, bool *capped)
{
  double *x = vary == 'k' ? &s.kappa : &s.h;
  double lo = 0, hi = 0;
  bool stable;
  *x = guess;
  if (!fl_kang_stable(c, &s, &stable)) return false;
  if (stable) {
    lo = guess;
    for (int k = 0; k < BRACKET_STEPS && hi == 0; k++) {
      *x = lo * BRACKET_FACTOR;
      if (!fl_kang_stable(c, &s, &stable)) return false;
      if (stable) lo = *x;
      else hi = *x;
    }
  } else {
    hi = guess;
    for (int k = 0; k < BRACKET_STEPS && lo == 0; k++) {
      *x = hi / BRACKET_FACTOR;
      if (!fl_kang_stable(c, &s, &stable)) return false;
      if (stable) lo = *x;
      else hi = *x;
    }
  }
  while (lo > 0 && hi > 0 && hi / lo > BISECT_RATIO) {
    *x = sqrt(lo * hi);
    if (!fl_kang_stable(c, &s, &stable)) return false;
    if (stable) lo = *x;
    else hi = *x;
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

/* The last sample (ms summed over the submission) of a profiler stat, or 0. */
static double last_ms(const fl_profiler *p, const char *name, uint64_t *bytes)
{
  const fl_profile_stat *st = fl_profiler_find(p, name);
  if (bytes) *bytes = st ? st->bytes : 0;
  return st && st->count ? st->samples_ms[st->count - 1] : 0.0;
}

bool fl_kang_time_step(fl_kang_context *c, const fl_kang_setup *s, uint32_t warmup, uint32_t steps, fl_kang_cost *out)
{
  memset(out, 0, sizeof *out);
  fl_ms_gpu g;
  if (!create(c, s, &g)) return false;
  fl_profiler prof;
  bool ok = fl_profiler_create(c->gpu, &prof);
  uint32_t status[FL_MS_STATUS_WORDS];
  float res;
  /* IM: a probe step at the full CG budget; its iteration count (with the
   * adaptive margin of ms_object.c) is the budget of the warm-up, and the
   * warm-up's last step's count that of the timed steps */
  if (ok && s->method == FL_MS_IM) {
    ok = run_steps(c, &g, NULL, 1, (float)s->h) && fl_ms_gpu_read_status(&g, status, &out->cg_iterations, &res);
    g.cg_budget = out->cg_iterations + out->cg_iterations / 4 + 2;
  }
  ok = ok && run_steps(c, &g, NULL, warmup, (float)s->h) &&
       fl_ms_gpu_read_status(&g, status, &out->cg_iterations, &res);
  if (ok && s->method == FL_MS_IM) g.cg_budget = out->cg_iterations > 0 ? out->cg_iterations : 1;
  /* one profiled submission sizes the query pools (scopes past capacity are dropped once), then the measured one */
  ok = ok && run_steps(c, &g, &prof, steps, (float)s->h);
  if (ok) fl_profiler_clear(&prof);
  ok = ok && run_steps(c, &g, &prof, steps, (float)s->h);
  if (ok) {
    static const char *const PASSES[] = {"explicit", "ho", "setup", "jacobi", "cg", "advance"};
    out->step_ms = last_ms(&prof, "kang/total", NULL) / steps;
    for (size_t k = 0; k < sizeof PASSES / sizeof PASSES[0] && out->pass_count < FL_KANG_MAX_PASSES; k++) {
      char name[48];
      snprintf(name, sizeof name, "kang/%s", PASSES[k]);
      uint64_t bytes;
      double ms = last_ms(&prof, name, &bytes);
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
