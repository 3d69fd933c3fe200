/* sim/massspring/ms_gpu: the mass-spring object on the GPU (see ms_gpu.h, ms_spec.h). */
#include "sim/massspring/ms_gpu.h"

#include "core/log.h"
#include "flurry_shared.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../massspring/buffers.glsl" /* found through the shaders/common include path */

bool fl_ms_pipelines_create(fl_gpu *gpu, fl_ms_pipelines *out)
{
  memset(out, 0, sizeof *out);
  struct {
    fl_pipeline *pipe;
    const char *name;
  } list[] = {
      {&out->explicit_step, "massspring/explicit.comp"}, {&out->ho, "massspring/ho.comp"},
      {&out->setup, "massspring/setup.comp"},            {&out->jacobi, "massspring/jacobi.comp"},
      {&out->cg_apply, "massspring/cg_apply.comp"},      {&out->cg_step, "massspring/cg_step.comp"},
      {&out->cg_direction, "massspring/cg_direction.comp"}, {&out->advance, "massspring/advance.comp"},
      {&out->check, "massspring/check.comp"},            {&out->reset, "massspring/reset.comp"},
  };
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
    if (!fl_pipeline_compute(gpu, list[i].name, sizeof(fl_ms_push), 0, list[i].pipe)) {
      fl_ms_pipelines_destroy(gpu, out);
      return false;
    }
  return true;
}

void fl_ms_pipelines_destroy(fl_gpu *gpu, fl_ms_pipelines *p)
{
  fl_pipeline *all = (fl_pipeline *)p;
  for (size_t i = 0; i < sizeof *p / sizeof(fl_pipeline); i++) fl_pipeline_destroy(gpu, &all[i]);
}

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
                             .definite = p->definite};
}

/* ---- buffers and descriptor sets ---- */

static bool device_buffer(fl_ms_gpu *s, const void *data, uint64_t bytes, const char *what, fl_buffer *out)
{
  char name[128];
  snprintf(name, sizeof name, "mass_spring %s %s", s->name, what);
  return fl_buffer_create_with(s->gpu, data, bytes, name, out);
}

/* The buffer at a kernel binding; `swap` exchanges dv and dv_next. */
static const fl_buffer *buffer_for(fl_ms_gpu *s, uint32_t binding, bool swap)
{
  switch (binding) {
  case FL_MS_B_POS: return &s->pos;
  case FL_MS_B_VEL: return &s->vel;
  case FL_MS_B_FIRST: return &s->first;
  case FL_MS_B_LINKS: return &s->links;
  case FL_MS_B_DV: return swap ? &s->dv_next : &s->dv;
  case FL_MS_B_DV_NEXT: return swap ? &s->dv : &s->dv_next;
  case FL_MS_B_RHS: return &s->rhs;
  case FL_MS_B_DIAG: return &s->diag;
  case FL_MS_B_CG_R: return &s->cg_r;
  case FL_MS_B_CG_P: return &s->cg_p;
  case FL_MS_B_CG_Q: return &s->cg_q;
  case FL_MS_B_RESULTS: return s->reduce.max_count ? fl_reduce_results(&s->reduce) : NULL;
  case FL_MS_B_INITIAL: return &s->initial;
  case FL_MS_B_STATUS: return &s->status;
  default: return NULL;
  }
}

static bool bind(fl_ms_gpu *s, const fl_pipeline *p, bool swap, VkDescriptorSet *out)
{
  fl_binding b[FL_MAX_BINDINGS];
  for (uint32_t i = 0; i < p->binding_count; i++) {
    b[i] = (fl_binding){buffer_for(s, p->binding_numbers[i], swap), 0, 0};
    if (!b[i].buffer)
      return fl_error_set("pipeline %s: binding %u has no mass_spring buffer", p->name, p->binding_numbers[i]);
  }
  return fl_pipeline_bind(s->gpu, p, b, p->binding_count, out);
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

static bool create_sets(fl_ms_gpu *s)
{
  const fl_ms_pipelines *p = s->pipes;
  bool ok = bind(s, &p->explicit_step, false, &s->explicit_set) && bind(s, &p->ho, false, &s->ho_set) &&
            bind(s, &p->setup, false, &s->setup_set) && bind(s, &p->jacobi, false, &s->jacobi_set[0]) &&
            bind(s, &p->jacobi, true, &s->jacobi_set[1]) && bind(s, &p->advance, false, &s->advance_set[0]) &&
            bind(s, &p->advance, true, &s->advance_set[1]) && bind(s, &p->check, false, &s->check_set) &&
            bind(s, &p->reset, false, &s->reset_set);
  if (ok && s->params.method == FL_MS_IM)
    ok = bind(s, &p->cg_apply, false, &s->cg_apply_set) && bind(s, &p->cg_step, false, &s->cg_step_set) &&
         bind(s, &p->cg_direction, false, &s->cg_direction_set);
  return ok;
}

bool fl_ms_gpu_create(fl_gpu *gpu, const fl_ms_pipelines *pipes, const fl_ms_system *initial,
                      const fl_ms_gpu_params *params, const char *name, fl_ms_gpu *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  out->pipes = pipes;
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
  bool im = params->method == FL_MS_IM;
  bool implicit = im || params->method == FL_MS_JI || params->method == FL_MS_HY;
  bool ok = upload_state(out, initial) && device_buffer(out, NULL, (uint64_t)n * 16, "dv", &out->dv) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 16 : 0, "dv next", &out->dv_next) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 16 : 0, "rhs", &out->rhs) &&
            device_buffer(out, NULL, implicit ? (uint64_t)n * 32 : 0, "diagonal blocks", &out->diag) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg r", &out->cg_r) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg p", &out->cg_p) &&
            device_buffer(out, NULL, im ? (uint64_t)n * 16 : 0, "cg q", &out->cg_q) &&
            device_buffer(out, NULL, FL_MS_STATUS_WORDS * 4, "status", &out->status);
  if (ok && im)
    ok = fl_reduce_create(gpu, n, FL_MS_SLOT_COUNT, &out->reduce) &&
         fl_reduce_bind_dot(gpu, &out->reduce, &out->rhs, &out->rhs, FL_MS_SLOT_BB, &out->dot_bb) &&
         fl_reduce_bind_dot(gpu, &out->reduce, &out->cg_p, &out->cg_q, FL_MS_SLOT_PQ, &out->dot_pq) &&
         fl_reduce_bind_dot(gpu, &out->reduce, &out->cg_r, &out->cg_r, FL_MS_SLOT_RR0, &out->dot_rr[0]) &&
         fl_reduce_bind_dot(gpu, &out->reduce, &out->cg_r, &out->cg_r, FL_MS_SLOT_RR1, &out->dot_rr[1]);
  ok = ok && create_sets(out);
  if (!ok) {
    fl_error_wrap("mass_spring \"%s\"", name);
    fl_ms_gpu_destroy(out);
  }
  return ok;
}

void fl_ms_gpu_destroy(fl_ms_gpu *s)
{
  if (!s->gpu) return;
  VkDescriptorSet sets[] = {s->explicit_set,   s->ho_set,           s->setup_set,  s->jacobi_set[0],
                            s->jacobi_set[1],  s->cg_apply_set,     s->cg_step_set, s->cg_direction_set,
                            s->advance_set[0], s->advance_set[1],   s->check_set,  s->reset_set};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
    if (sets[i]) vkFreeDescriptorSets(s->gpu->device, s->gpu->descriptor_pool, 1, &sets[i]);
  fl_reduce_unbind(s->gpu, &s->dot_bb);
  fl_reduce_unbind(s->gpu, &s->dot_pq);
  fl_reduce_unbind(s->gpu, &s->dot_rr[0]);
  fl_reduce_unbind(s->gpu, &s->dot_rr[1]);
  fl_reduce_destroy(s->gpu, &s->reduce);
  fl_buffer *buffers[] = {&s->pos,  &s->vel,  &s->first, &s->links, &s->dv,      &s->dv_next, &s->rhs,
                          &s->diag, &s->cg_r, &s->cg_p,  &s->cg_q,  &s->initial, &s->status};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(s->gpu, buffers[i]);
  memset(s, 0, sizeof *s);
}

/* ---- recording ---- */

static fl_ms_push push_for(const fl_ms_gpu *s, float h)
{
  const fl_ms_gpu_params *p = &s->params;
  uint32_t flags = (p->method == FL_MS_HY ? FL_MS_FLAG_HYBRID : 0u) |
                   (p->split == FL_MS_SPLIT_MOMENTUM ? FL_MS_FLAG_MOMENTUM : 0u) |
                   (p->definite ? FL_MS_FLAG_DEFINITE : 0u) | (p->method == FL_MS_IM ? FL_MS_FLAG_CG : 0u);
  return (fl_ms_push){.gravity_h = {p->gravity[0], p->gravity[1], p->gravity[2], h},
                      .params = {p->kappa, p->damping, p->divergence_strain, p->cg_tolerance * p->cg_tolerance},
                      .counts = {s->particle_count, flags, 0, 0}};
}

fl_ms_pass_bytes fl_ms_gpu_pass_bytes(const fl_ms_gpu *s)
{
  uint64_t n = s->particle_count, links = (uint64_t)s->link_count * 8 + (n + 1) * 4;
  fl_ms_pass_bytes b = {0};
  switch (s->params.method) {
  case FL_MS_E:
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

static void pass(VkCommandBuffer cmd, const fl_pipeline *p, VkDescriptorSet set, const fl_ms_push *push, uint32_t n)
{
  fl_cmd_dispatch(cmd, p, set, push, n);
  fl_cmd_compute_barrier(cmd);
}

/* Opens a profiler scope "<prefix>/<pass>" (or nothing without a profiler). */
static int scope_begin(fl_profiler *prof, uint32_t slot, VkCommandBuffer cmd, const char *prefix, const char *what,
                       uint64_t bytes)
{
  if (!prof) return -1;
  char name[48];
  snprintf(name, sizeof name, "%s/%s", prefix, what);
  return fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, name, bytes);
}

static void scope_end(fl_profiler *prof, uint32_t slot, VkCommandBuffer cmd, int scope)
{
  if (prof) fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
}

static void record_cg(fl_ms_gpu *s, VkCommandBuffer cmd, fl_ms_push push)
{
  const fl_ms_pipelines *p = s->pipes;
  uint32_t n = s->particle_count;
  /* iteration count and breakdown flag: slots ITERATIONS and STOP, adjacent */
  vkCmdFillBuffer(cmd, fl_reduce_results(&s->reduce)->buffer, FL_MS_SLOT_ITERATIONS * 4, 8, 0);
  fl_cmd_compute_barrier(cmd);
  fl_reduce_record(&s->reduce, &s->dot_bb, cmd, n);
  fl_cmd_compute_barrier(cmd);
  fl_reduce_record(&s->reduce, &s->dot_rr[0], cmd, n);
  fl_cmd_compute_barrier(cmd);
  s->cg_recorded = s->cg_budget;
  for (uint32_t it = 0; it < s->cg_budget; it++) {
    uint32_t old = it & 1u;
    push.cg[0] = FL_MS_SLOT_RR0 + old;
    push.cg[1] = FL_MS_SLOT_RR0 + (old ^ 1u);
    push.cg[2] = it;
    pass(cmd, &p->cg_apply, s->cg_apply_set, &push, n);
    fl_reduce_record(&s->reduce, &s->dot_pq, cmd, n);
    fl_cmd_compute_barrier(cmd);
    pass(cmd, &p->cg_step, s->cg_step_set, &push, n);
    fl_reduce_record(&s->reduce, &s->dot_rr[old ^ 1u], cmd, n);
    fl_cmd_compute_barrier(cmd);
    pass(cmd, &p->cg_direction, s->cg_direction_set, &push, n);
  }
}

void fl_ms_gpu_record_step(fl_ms_gpu *s, VkCommandBuffer cmd, float h, fl_profiler *prof, uint32_t slot,
                           const char *prefix)
{
  const fl_ms_pipelines *p = s->pipes;
  uint32_t n = s->particle_count;
  fl_ms_push push = push_for(s, h);
  fl_ms_pass_bytes bytes = fl_ms_gpu_pass_bytes(s);
  uint32_t final_dv = 0; /* 0: dv, 1: dv_next */
  int scope = scope_begin(prof, slot, cmd, prefix, s->params.method == FL_MS_E    ? "explicit"
                                                   : s->params.method == FL_MS_HO ? "ho"
                                                                                   : "setup",
                          bytes.method);
  switch (s->params.method) {
  case FL_MS_E: pass(cmd, &p->explicit_step, s->explicit_set, &push, n); break;
  case FL_MS_HO: pass(cmd, &p->ho, s->ho_set, &push, n); break;
  default: pass(cmd, &p->setup, s->setup_set, &push, n); break;
  }
  scope_end(prof, slot, cmd, scope);
  if (s->params.method == FL_MS_JI || s->params.method == FL_MS_HY) {
    scope = scope_begin(prof, slot, cmd, prefix, "jacobi", bytes.jacobi * (s->params.jacobi_iterations - 1));
    for (uint32_t it = 1; it < s->params.jacobi_iterations; it++, final_dv ^= 1u)
      pass(cmd, &p->jacobi, s->jacobi_set[final_dv], &push, n);
    scope_end(prof, slot, cmd, scope);
  } else if (s->params.method == FL_MS_IM) {
    scope = scope_begin(prof, slot, cmd, prefix, "cg", bytes.cg_iteration * s->cg_budget);
    record_cg(s, cmd, push);
    scope_end(prof, slot, cmd, scope);
  }
  scope = scope_begin(prof, slot, cmd, prefix, "advance", bytes.advance);
  pass(cmd, &p->advance, s->advance_set[final_dv], &push, n);
  scope_end(prof, slot, cmd, scope);
}

void fl_ms_gpu_record_watch(fl_ms_gpu *s, VkCommandBuffer cmd, bool reset)
{
  fl_ms_push push = push_for(s, 0.0f);
  if (reset) {
    vkCmdFillBuffer(cmd, s->status.buffer, FL_MS_STATUS_DIVERGED * 4, 4, 0);
    fl_cmd_compute_barrier(cmd);
  }
  pass(cmd, &s->pipes->check, s->check_set, &push, s->particle_count);
  if (reset) pass(cmd, &s->pipes->reset, s->reset_set, &push, s->particle_count);
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
