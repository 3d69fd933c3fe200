/* sim/massspring/ms_gpu: the mass-spring object on the GPU (see ms_gpu.h, ms_spec.h). */
#include "sim/massspring/ms_gpu.h"

#include "core/log.h"
#include "flurry_shared.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../massspring/buffers.glsl" /* found through the shaders/common include path */

const char *fl_ms_method_name(fl_ms_method m)
{
  static const char *const NAMES[] = {"E", "HO", "JI", "IM", "HY"};
  return (unsigned)m < 5 ? NAMES[m] : "?";
}

bool fl_ms_gpu_params_check(const fl_ms_gpu_params *p, const char *name)
{
  if ((unsigned)p->method > FL_MS_HY) return fl_error_set("mass_spring \"%s\": unknown integrator %d", name, (int)p->method);
  if (!(p->kappa > 0 && isfinite(p->kappa)) || !(p->damping >= 0 && isfinite(p->damping)))
    return fl_error_set("mass_spring \"%s\": stiffness %g must be > 0 and damping %g >= 0, both finite", name,
                        (double)p->kappa, (double)p->damping);
  if (p->jacobi_iterations < 1 || p->cg_iterations < 1)
    return fl_error_set("mass_spring \"%s\": jacobi_iterations and cg_iterations must be >= 1", name);
  if (!(p->cg_tolerance > 0 && p->cg_tolerance < 1))
    return fl_error_set("mass_spring \"%s\": cg_tolerance %g must be in (0, 1)", name, (double)p->cg_tolerance);
  if (!(p->divergence_strain > 0)) /* +inf is allowed: no detection */
    return fl_error_set("mass_spring \"%s\": divergence_strain %g must be > 0", name, (double)p->divergence_strain);
  return true;
}

fl_ms_step_params fl_ms_gpu_cpu_params(const fl_ms_gpu_params *p, double h)
{
  return (fl_ms_step_params){.method = p->method,
                             .h = h,
                             .iterations = p->jacobi_iterations,
                             .split = p->split,
                             .cg_tolerance = p->cg_tolerance,
                             .cg_max_iterations = p->cg_iterations,
                             .definite = p->definite, .explicit_start = p->explicit_start};
}

/* ---- buffers and descriptor sets ---- */

static bool device_buffer(fl_ms_gpu *s, const void *data, uint64_t bytes, const char *what, fl_buffer *out)
{
  char name[128];
  snprintf(name, sizeof name, "mass_spring %s %s", s->name, what);
  return fl_buffer_create_with(s->gpu, data, bytes, name, out);
}

/* The buffers by binding number; `swap` exchanges dv and dv_next. */
static void fill_table(const fl_ms_gpu *s, bool swap, const fl_buffer **t)
{
  t[FL_MS_B_POS] = &s->pos;
  t[FL_MS_B_VEL] = &s->vel;
  t[FL_MS_B_FIRST] = &s->first;
  t[FL_MS_B_LINKS] = &s->links;
  t[FL_MS_B_DV] = swap ? &s->dv_next : &s->dv;
  t[FL_MS_B_DV_NEXT] = swap ? &s->dv : &s->dv_next;
  t[FL_MS_B_RHS] = &s->rhs;
  t[FL_MS_B_DIAG] = &s->diag;
  t[FL_MS_B_CG_R] = &s->cg_r;
  t[FL_MS_B_CG_P] = &s->cg_p;
  t[FL_MS_B_CG_Q] = &s->cg_q;
  t[FL_MS_B_RESULTS] = s->reduce.max_count ? fl_reduce_results(&s->reduce) : NULL;
  t[FL_MS_B_INITIAL] = &s->initial;
  t[FL_MS_B_STATUS] = &s->status;
  t[FL_MS_B_POS_OUT] = &s->pos_next;
  t[FL_MS_B_VEL_OUT] = &s->vel_next;
}

/* Float copies of the CPU state: positions (w = inverse mass), velocities,
 * per-particle links (other end, rest length bits). */
static bool upload_state(fl_ms_gpu *s, const fl_ms_system *c)
{
  uint32_t n = c->particle_count, links = c->particle_first[n];
  float(*pos)[4] = calloc(n, sizeof *pos), (*vel)[4] = calloc(n, sizeof *vel);
  uint32_t(*link)[2] = calloc(links ? links : 1, sizeof *link);
  bool ok = pos && vel && link;
  if (!ok) fl_error_set("mass_spring \"%s\": out of host memory for %u particles", s->name, (unsigned)n);
  for (uint32_t k = 0; ok && k < n; k++) {
    for (int i = 0; i < 3; i++) {
      pos[k][i] = (float)c->x[k][i];
      vel[k][i] = c->inv_mass[k] > 0 ? (float)c->v[k][i] : 0.0f;
    }
    pos[k][3] = (float)c->inv_mass[k];
    for (uint32_t a = c->particle_first[k]; a < c->particle_first[k + 1]; a++) {
      const fl_ms_spring *sp = &c->springs[c->particle_springs[a]];
      float rest = (float)sp->rest;
      link[a][0] = sp->i == k ? sp->j : sp->i;
      memcpy(&link[a][1], &rest, sizeof rest);
    }
  }
  ok = ok && device_buffer(s, pos, (uint64_t)n * 16, "positions", &s->pos) &&
       device_buffer(s, pos, (uint64_t)n * 16, "initial positions", &s->initial) &&
       device_buffer(s, vel, (uint64_t)n * 16, "velocities", &s->vel) &&
       device_buffer(s, c->particle_first, (uint64_t)(n + 1) * 4, "link offsets", &s->first) &&
       device_buffer(s, links ? link : NULL, (uint64_t)links * 8, "links", &s->links);
  free(pos);
  free(vel);
  free(link);
  return ok;
}

/* E on a grid: whether the links are exactly those of an nx x ny grid of
 * ms_spec.h (each particle's neighbours at the offsets of grid_force.glsl, in
 * its order, every spring of a class of one rest length to 1e-6), and then the
 * classes present and their rest lengths. */
static bool grid_layout(const fl_ms_system *c, const fl_ms_gpu_params *p, uint32_t *classes_out,
                        float rest_out[FL_MS_CLASS_COUNT])
{
  static const int OFFSETS[12][2] = {{-1, 0}, {1, 0},  {0, -1}, {0, 1},  {-1, -1}, {1, 1},
                                     {1, -1}, {-1, 1}, {-2, 0}, {2, 0}, {0, -2},  {0, 2}};
  uint32_t nx = p->grid[0], ny = p->grid[1], n = c->particle_count;
  if (p->method != FL_MS_E || nx < 2 || ny < 2 || (uint64_t)nx * ny != n) return false;
  uint32_t classes = 0;
  float rest[FL_MS_CLASS_COUNT] = {0};
  for (uint32_t k = 0; k < n; k++) /* the classes present and their rest lengths */
    for (uint32_t a = c->particle_first[k]; a < c->particle_first[k + 1]; a++) {
      const fl_ms_spring *sp = &c->springs[c->particle_springs[a]];
      uint32_t other = sp->i == k ? sp->j : sp->i;
      int di = (int)(other % nx) - (int)(k % nx), dj = (int)(other / nx) - (int)(k / nx), o = 0;
      while (o < 12 && !(OFFSETS[o][0] == di && OFFSETS[o][1] == dj)) o++;
      if (o == 12) return false;
      float r = (float)sp->rest;
      if (!(classes >> (o / 2) & 1u)) rest[o / 2] = r;
      classes |= 1u << (o / 2);
      if (!(fabsf(r - rest[o / 2]) <= 1e-6f * rest[o / 2])) return false;
    }
  for (uint32_t k = 0; k < n; k++) { /* every neighbour the classes give, in the kernel's order */
    uint32_t a = c->particle_first[k];
    for (int o = 0; o < 12; o++) {
      int i = (int)(k % nx) + OFFSETS[o][0], j = (int)(k / nx) + OFFSETS[o][1];
      if (!(classes >> (o / 2) & 1u) || i < 0 || j < 0 || i >= (int)nx || j >= (int)ny) continue;
      if (a == c->particle_first[k + 1]) return false;
      const fl_ms_spring *sp = &c->springs[c->particle_springs[a++]];
      if ((sp->i == k ? sp->j : sp->i) != (uint32_t)j * nx + (uint32_t)i) return false;
    }
    if (a != c->particle_first[k + 1]) return false;
  }
  *classes_out = classes;
  memcpy(rest_out, rest, sizeof rest);
  return true;
}

bool fl_ms_gpu_create(fl_gpu *gpu, const fl_ms_system *initial, const fl_ms_gpu_params *params, const char *name,
                      fl_ms_gpu *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  out->params = *params;
  snprintf(out->name, sizeof out->name, "%s", name);
  if (!fl_ms_gpu_params_check(params, name)) return false;
  uint32_t n = initial->particle_count;
  if (n == 0) return fl_error_set("mass_spring \"%s\": no particles", name);
  out->particle_count = n;
  out->cg_budget = params->cg_iterations;
  out->link_count = initial->particle_first[n];
  /* the largest buffer is the diagonal blocks: 32 bytes per particle */
  uint64_t largest = (uint64_t)n * 32 > (uint64_t)out->link_count * 8 ? (uint64_t)n * 32 : (uint64_t)out->link_count * 8;
  if (largest > gpu->props.limits.maxStorageBufferRange)
    return fl_error_set("mass_spring \"%s\": %u particles need a %.1f MiB buffer, over this device's "
                        "maxStorageBufferRange of %.1f MiB", name, (unsigned)n, largest / 1048576.0,
                        gpu->props.limits.maxStorageBufferRange / 1048576.0);
  bool im = params->method == FL_MS_IM, e = params->method == FL_MS_E;
  bool implicit = im || params->method == FL_MS_JI || params->method == FL_MS_HY;
  bool ok = upload_state(out, initial) && device_buffer(out, NULL, e ? 0 : (uint64_t)n * 16, "dv", &out->dv) &&
            device_buffer(out, NULL, e ? (uint64_t)n * 16 : 0, "next positions", &out->pos_next) &&
            device_buffer(out, NULL, e ? (uint64_t)n * 16 : 0, "next velocities", &out->vel_next) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 16 : 0, "dv next", &out->dv_next) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 16 : 0, "rhs", &out->rhs) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 32 : 0, "diagonal blocks", &out->diag) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg r", &out->cg_r) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg p", &out->cg_p) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg q", &out->cg_q) &&
            device_buffer(out, NULL, FL_MS_STATUS_WORDS * 4, "status", &out->status);
  if (ok) out->offsets = grid_layout(initial, params, &out->grid_classes, out->grid_rest);
  if (ok && im)
    ok = fl_reduce_create(gpu, n, FL_MS_SLOT_COUNT, &out->reduce) &&
         fl_reduce_bind_dot(&out->reduce, &out->rhs, &out->rhs, FL_MS_SLOT_BB, &out->dot_bb) &&
         fl_reduce_bind_dot(&out->reduce, &out->cg_p, &out->cg_q, FL_MS_SLOT_PQ, &out->dot_pq) &&
         fl_reduce_bind_dot(&out->reduce, &out->cg_r, &out->cg_r, FL_MS_SLOT_RR0, &out->dot_rr[0]) &&
         fl_reduce_bind_dot(&out->reduce, &out->cg_r, &out->cg_r, FL_MS_SLOT_RR1, &out->dot_rr[1]);
  if (!ok) {
    fl_error_wrap("mass_spring \"%s\"", name);
    fl_ms_gpu_destroy(out);
  }
  return ok;
}

void fl_ms_gpu_destroy(fl_ms_gpu *s)
{
  if (!s->gpu) return;
  fl_reduce_destroy(s->gpu, &s->reduce);
  fl_buffer *buffers[] = {&s->pos,  &s->vel,  &s->first, &s->links,   &s->dv,     &s->dv_next,  &s->rhs,
                          &s->diag, &s->cg_r, &s->cg_p,  &s->cg_q,    &s->initial, &s->status, &s->pos_next,
                          &s->vel_next};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(s->gpu, buffers[i]);
  memset(s, 0, sizeof *s);
}

/* ---- recording ---- */

static fl_ms_push push_for(const fl_ms_gpu *s, float h)
{
  const fl_ms_gpu_params *p = &s->params;
  uint32_t flags = (p->method == FL_MS_HY ? FL_MS_FLAG_HYBRID : 0u) |
                   (p->split == FL_MS_SPLIT_MOMENTUM ? FL_MS_FLAG_MOMENTUM : 0u) |
                   (p->definite ? FL_MS_FLAG_DEFINITE : 0u) | (p->method == FL_MS_IM ? FL_MS_FLAG_CG : 0u) |
                   (p->explicit_start ? FL_MS_FLAG_EXPLICIT_START : 0u);
  const float *rest = s->grid_rest; /* zero unless the links are a grid's */
  return (fl_ms_push){.gravity = {p->gravity[0], p->gravity[1], p->gravity[2]}, .h = h, .kappa = p->kappa,
                      .damping = p->damping, .divergence_strain = p->divergence_strain,
                      .cg_tolerance2 = p->cg_tolerance * p->cg_tolerance, .count = s->particle_count, .flags = flags,
                      .nx = s->offsets ? p->grid[0] : 0, .ny = s->offsets ? p->grid[1] : 0,
                      .classes = s->grid_classes, .rest0 = {rest[0], rest[1], rest[2], rest[3]},
                      .rest1 = {rest[4], rest[5], 0, 0}};
}

fl_ms_pass_bytes fl_ms_gpu_pass_bytes(const fl_ms_gpu *s)
{
  uint64_t n = s->particle_count, links = (uint64_t)s->link_count * 8 + (n + 1) * 4;
  fl_ms_pass_bytes b = {0};
  switch (s->params.method) {
  case FL_MS_E: b.method = n * (16 + 16 + 16 + 16) + (s->offsets ? 0 : links); break; /* x, v -> x', v' */
  case FL_MS_HO: b.method = n * (16 + 16 + 16) + links; break;              /* x, v -> dv */
  case FL_MS_JI:
  case FL_MS_HY: b.method = n * (16 + 16 + 16 + 32 + 16) + links; break;    /* x, v -> b, A_ii, dv */
  case FL_MS_IM: b.method = n * (16 + 16 + 16 + 32 + 16 * 3) + links; break; /* x, v -> b, A_ii, dv, r, p */
  }
  b.jacobi = n * (16 + 16 + 16 + 32 + 16) + links;      /* x, dv, b, A_ii -> dv_next */
  b.cg_iteration = n * (16 + 32 + 16 + 16)              /* apply: x, A_ii, p -> q */
                   + n * 32                             /* p.q */
                   + n * (16 * 4 + 16 * 2)              /* step: dv, r, p, q -> dv, r */
                   + n * 16                             /* r.r */
                   + n * (16 + 16 + 16) + links;        /* direction: r, p -> p; apply's links */
  b.advance = n * (16 + 16 + 16 + 16 + 16);             /* x, v, dv -> x, v */
  return b;
}

/* One pass of `kernel` over the particles (dv and dv_next swapped when `swap`), then a barrier. */
static void pass(const fl_ms_gpu *s, fl_rec *r, const char *kernel, uint32_t swap, const fl_ms_push *push)
{
  const fl_buffer *table[FL_MS_B_COUNT];
  fill_table(s, swap, table);
  fl_rec_pass(r, &(fl_pass){.kernel = kernel, FL_PUSH(*push), .threads = s->particle_count, .table = table,
                            .table_count = FL_MS_B_COUNT});
}

/* Opens the scope "<prefix>/<pass>". */
static void scope(fl_rec *r, const char *prefix, const char *what, uint64_t bytes)
{
  char name[48];
  snprintf(name, sizeof name, "%s/%s", prefix ? prefix : "ms", what);
  fl_rec_begin(r, name, bytes);
}

/* E: the ping-pong pair swaps, so pos and vel name the state just written. */
static void swap_state(fl_ms_gpu *s)
{
  fl_buffer t = s->pos;
  s->pos = s->pos_next;
  s->pos_next = t;
  t = s->vel;
  s->vel = s->vel_next;
  s->vel_next = t;
}

static void record_cg(fl_ms_gpu *s, fl_rec *r, fl_ms_push push)
{
  uint32_t n = s->particle_count;
  /* iteration count and breakdown flag: slots ITERATIONS and STOP, adjacent */
  vkCmdFillBuffer(r->cmd, fl_reduce_results(&s->reduce)->buffer, FL_MS_SLOT_ITERATIONS * 4, 8, 0);
  fl_rec_barrier(r);
  fl_reduce_record(&s->reduce, &s->dot_bb, r, n);
  fl_rec_barrier(r);
  fl_reduce_record(&s->reduce, &s->dot_rr[0], r, n);
  fl_rec_barrier(r);
  s->cg_recorded = s->cg_budget;
  for (uint32_t it = 0; it < s->cg_budget; it++) {
    uint32_t old = it & 1u;
    push.cg_rr_old = FL_MS_SLOT_RR0 + old;
    push.cg_rr_new = FL_MS_SLOT_RR0 + (old ^ 1u);
    push.cg_iteration = it;
    pass(s, r, "massspring/cg_apply", 0, &push);
    fl_reduce_record(&s->reduce, &s->dot_pq, r, n);
    fl_rec_barrier(r);
    pass(s, r, "massspring/cg_step", 0, &push);
    fl_reduce_record(&s->reduce, &s->dot_rr[old ^ 1u], r, n);
    fl_rec_barrier(r);
    pass(s, r, "massspring/cg_direction", 0, &push);
  }
}

void fl_ms_gpu_record_step(fl_ms_gpu *s, fl_rec *r, float h, const char *prefix)
{
  fl_ms_push push = push_for(s, h);
  fl_ms_pass_bytes bytes = fl_ms_gpu_pass_bytes(s);
  uint32_t final_dv = 0; /* 0: dv, 1: dv_next */
  switch (s->params.method) {
  case FL_MS_E: /* one fused pass (the check of its start inside), then the ping-pong pair swaps */
    push.step = ++s->steps_recorded;
    if (prefix) scope(r, prefix, "explicit", bytes.method);
    pass(s, r, s->offsets ? "massspring/explicit_offset" : "massspring/explicit", 0, &push); /* a grid: by offset */
    if (prefix) fl_rec_end(r);
    swap_state(s);
    return;
  case FL_MS_HO:
    scope(r, prefix, "ho", bytes.method);
    pass(s, r, "massspring/ho", 0, &push);
    break;
  default:
    scope(r, prefix, "setup", bytes.method);
    pass(s, r, "massspring/setup", 0, &push);
    break;
  }
  fl_rec_end(r);
  /* sweeps after setup: setup's own is the first, unless it wrote the explicit start */
  uint32_t sweeps = s->params.jacobi_iterations - (s->params.explicit_start ? 0u : 1u);
  if ((s->params.method == FL_MS_JI || s->params.method == FL_MS_HY) && sweeps > 0) {
    scope(r, prefix, "jacobi", bytes.jacobi * sweeps);
    for (uint32_t it = 0; it < sweeps; it++, final_dv ^= 1u)
      pass(s, r, "massspring/jacobi", final_dv, &push);
    fl_rec_end(r);
  } else if (s->params.method == FL_MS_IM) {
    scope(r, prefix, "cg", bytes.cg_iteration * s->cg_budget);
    record_cg(s, r, push);
    fl_rec_end(r);
  }
  scope(r, prefix, "advance", bytes.advance);
  pass(s, r, "massspring/advance", final_dv, &push);
  fl_rec_end(r);
}

bool fl_ms_gpu_checks_in_step(const fl_ms_gpu *s) { return s->params.method == FL_MS_E; }

void fl_ms_gpu_record_check(fl_ms_gpu *s, fl_rec *r)
{
  fl_ms_push push = push_for(s, 0.0f);
  pass(s, r, "massspring/check", 0, &push);
}

void fl_ms_gpu_record_watch(fl_ms_gpu *s, fl_rec *r, bool reset)
{
  fl_ms_push push = push_for(s, 0.0f);
  pass(s, r, "massspring/check", 0, &push);
  if (!reset) return;
  pass(s, r, "massspring/reset", 0, &push);
  pass(s, r, "massspring/hold", 0, &push);
}

/* ---- readback (not on the hot path) ---- */

bool fl_ms_gpu_read(fl_ms_gpu *s, float (*pos)[4], float (*vel)[4])
{
  uint64_t bytes = (uint64_t)s->particle_count * 16;
  return (!pos || fl_buffer_readback(s->gpu, &s->pos, 0, pos, bytes)) &&
         (!vel || fl_buffer_readback(s->gpu, &s->vel, 0, vel, bytes));
}

bool fl_ms_gpu_read_status(fl_ms_gpu *s, uint32_t status[FL_MS_STATUS_WORDS], uint32_t *cg_iterations,
                           float *cg_relative_residual)
{
  if (!fl_buffer_readback(s->gpu, &s->status, 0, status, FL_MS_STATUS_WORDS * 4)) return false;
  *cg_iterations = 0;
  *cg_relative_residual = 0;
  if (s->params.method != FL_MS_IM) return true;
  float r[FL_MS_SLOT_COUNT];
  if (!fl_buffer_readback(s->gpu, fl_reduce_results(&s->reduce), 0, r, sizeof r)) return false;
  *cg_iterations = (uint32_t)r[FL_MS_SLOT_ITERATIONS];
  /* the last r.r slot written: after iteration i, slot RR0 + ((i + 1) & 1) */
  float rr = r[FL_MS_SLOT_RR0 + (s->cg_recorded & 1u)];
  *cg_relative_residual = r[FL_MS_SLOT_BB] > 0 ? sqrtf(rr / r[FL_MS_SLOT_BB]) : 0.0f;
  return true;
}
