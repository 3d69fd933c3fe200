/* sim/mpm/snow_material: the snow row of the material table (sim/material.h):
 * every "snow" object of a scene lives in one fl_snow_system (one grid), so
 * snow objects meet; object k is the system's material k. Snow plans its own
 * substeps each frame (the CFL limit), so it records a frame, not substeps. */
#include "core/log.h"
#include "sim/material.h"
#include "sim/mpm/snow.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The instance is the fl_snow_system itself (tests read it through fl_world_material). */
typedef struct {
  fl_snow_system system;
  uint32_t health_word;   /* snow object (material) k has flag word health_word + k */
} snow_material;

static bool owns(fl_object_type type) { return type == FL_OBJECT_SNOW; }

static void destroy(void *m)
{
  snow_material *sm = m;
  fl_snow_destroy(&sm->system);
  free(sm);
}

static bool create(const fl_material_env *env, const uint32_t *objects, uint32_t count, void **out)
{
  snow_material *sm = calloc(1, sizeof *sm);
  if (!sm) return fl_error_set("out of host memory");
  if (!fl_snow_create(env, objects, count, &sm->system)) {
    free(sm);
    return false;
  }
  sm->health_word = env->health_word;
  *out = sm;
  return true;
}

static void record_frame(void *m, fl_rec *r, const fl_step *frame)
{
  snow_material *sm = m;
  fl_snow_set_grab(&sm->system, frame->picker);
  fl_snow_record_frame(&sm->system, r, frame->dt, (float)frame->t0);
}

static void record_publish(void *m, fl_rec *r) { fl_snow_record_publish(&((snow_material *)m)->system, r); }

/* Snow objects share the particle buffers in sorted order: mpm/health.comp finds each particle's word. */
static void record_health(void *m, fl_rec *r, fl_health *h)
{
  snow_material *sm = m;
  fl_snow_system *s = &sm->system;
  fl_health_push push = {.count = s->build.count, .word = sm->health_word, .max_speed = h->max_speed};
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/health", FL_PUSH(push), .threads = s->build.count, .no_barrier = true,
                            FL_BUFFERS(&s->pos, &s->vel, &s->fe, &h->flags, &s->stats)});
}

/* The mouse grabs the snow through any of its particles (the pull is mpm/grab's, around the cursor). */
static bool pick_targets(void *m, fl_picker *picker)
{
  fl_snow_system *s = &((snow_material *)m)->system;
  return s->build.count == 0 || fl_picker_add_target(picker, &s->pos, 0, s->build.count);
}

static void collect(void *m, uint32_t slot) { fl_snow_collect(&((snow_material *)m)->system, slot); }

static uint32_t views(const void *m, uint32_t slot, fl_render_view *out, uint32_t max)
{
  const fl_snow_system *s = &((const snow_material *)m)->system;
  const fl_snow_build *b = &s->build;
  if (max < 2) return 0;
  fl_render_view v = {.kind = FL_VIEW_SNOW, .positions = &s->snapshot[slot], .count = b->count,
                      .radius = 0.6f * b->particle_spacing, .color = {0.93f, 0.95f, 1.0f, 1.0f},
                      .density = &s->density[slot], .grid_spacing = b->h, .rest_density = b->rho0[0]};
  memcpy(v.grid_dims, b->dims, sizeof v.grid_dims);
  memcpy(v.grid_origin, b->origin, sizeof v.grid_origin);
  out[0] = v;
  if (!s->density[slot].buffer) return 1; /* a lattice too big for the dense volume view */
  v.kind = FL_VIEW_SNOW_VOLUME;
  v.count = b->node_count;
  out[1] = v;
  return 2;
}

/* The particles of snow object `material` (positions with 1/m in w, velocities), from one
 * readback of the snow state; optionally its J_P range and the mass of every snow particle. */
static bool read_object(fl_snow_system *s, uint32_t material, float (**pos)[4], float (**vel)[4], uint32_t *count,
                        double *jp_min, double *jp_max, double *all_mass)
{
  fl_snow_cpu_particles st;
  if (!fl_snow_read_state(s, &st)) return false;
  uint32_t n = 0;
  double lo = INFINITY, hi = -INFINITY, mass = 0;
  for (uint32_t p = 0; p < st.count; p++) {
    mass += st.pos[p][3];
    if (st.fe[3 * p + 1][3] != (float)material) continue; /* F_E's second row carries the material in w */
    memcpy(st.pos[n], st.pos[p], 16);
    memcpy(st.vel[n], st.vel[p], 16);
    st.pos[n][3] = st.pos[n][3] > 0 ? 1.0f / st.pos[n][3] : 0.0f;
    st.vel[n][3] = 0.0f;
    lo = fmin(lo, st.fe[3 * p][3]);
    hi = fmax(hi, st.fe[3 * p][3]);
    n++;
  }
  if (jp_min) *jp_min = lo;
  if (jp_max) *jp_max = hi;
  if (all_mass) *all_mass = mass;
  *pos = st.pos;
  *vel = st.vel;
  *count = n;
  st.pos = st.vel = NULL; /* handed to the caller */
  fl_snow_state_free(&st);
  return true;
}

static bool read_state(void *m, uint32_t object, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  return read_object(&((snow_material *)m)->system, object, pos, vel, count, NULL, NULL, NULL);
}

static double substeps_per_frame(const snow_material *sm)
{
  const fl_snow_system *s = &sm->system;
  return s->frames_total ? (double)s->substeps_total / (double)s->frames_total : 0.0;
}

/* The object's J_P range; the system's grid totals, clamps and substeps (in "snow_system"). */
static bool stats(void *m, uint32_t object, const float (*pos)[4], uint32_t count, fl_object_stats *out)
{
  (void)pos, (void)count;
  snow_material *sm = m;
  fl_snow_system *s = &sm->system;
  float (*p)[4], (*v)[4];
  uint32_t n;
  double jp_min, jp_max, particle_mass, grid_mass, grid_momentum[3];
  if (!read_object(s, object, &p, &v, &n, &jp_min, &jp_max, &particle_mass)) return false;
  free(p);
  free(v);
  if (!fl_snow_grid_totals(s, &grid_mass, grid_momentum)) return false;
  fl_stats *st = &out->material;
  bool apic = s->build.materials[object].transfer == FL_SNOW_TRANSFER_APIC;
  fl_stats_text(st, NULL, "transfer", apic ? "apic" : "pic_flip");
  fl_stats_number(st, NULL, "jp_min", jp_min);
  fl_stats_number(st, NULL, "jp_max", jp_max);
  const char *sys = "snow_system"; /* every snow object's grid and particles */
  fl_stats_number(st, sys, "particle_mass", particle_mass);
  fl_stats_number(st, sys, "grid_mass", grid_mass);
  fl_stats_vec3(st, sys, "grid_momentum", grid_momentum);
  fl_stats_number(st, sys, "clamped_last_substep", s->last.clamped);
  fl_stats_number(st, sys, "substeps_last_frame", s->substeps_last);
  fl_stats_number(st, sys, "substeps_per_frame", substeps_per_frame(sm));
  fl_stats_number(st, sys, "capped_frames", s->capped_frames);
  fl_stats_text(st, sys, "p2g_atomics", s->fixed_point ? "fixed" : "float");
  fl_stats_text(st, sys, "p2g", fl_snow_p2g_name(s->p2g));
  fl_stats_text(st, sys, "transfer", s->g2p2g ? "g2p2g" : "separate");
  if (s->p2g == FL_SNOW_P2G_TILE && !s->fixed_point)
    fl_stats_text(st, sys, "p2g_tile_adds", s->tile_shared_float ? "shared float atomics" : "compare-and-swap");
  fl_stats_number(st, sys, "grid_blocks_at_load", s->build.blocks_at_load);
  fl_stats_number(st, sys, "grid_blocks_capacity", s->build.block_capacity);
  fl_stats_number(st, sys, "grid_grown", s->grid_grown);
  fl_stats_number(st, sys, "grid_blocks_peak_last_frame", s->last.blocks_peak);
  fl_stats_number(st, sys, "grid_memory_mib", (double)fl_snow_grid_memory(s) / 1048576.0);
  fl_stats_number(st, sys, "grid_lattice_nodes", (double)s->build.dims[0] * s->build.dims[1] * s->build.dims[2]);
  return true;
}

/* Particle-substeps per second over the snow passes' median times. */
static bool summary(void *m, const fl_profiler *prof, bool bench, fl_material_summary *out)
{
  static const char *const PASSES[] = {"snow/sort", "snow/clear", "snow/blocks", "snow/p2g",
                                       "snow/grid", "snow/implicit", "snow/g2p", "snow/g2p2g"};
  snow_material *sm = m;
  if (!bench) return true;
  double ms = 0, substeps = substeps_per_frame(sm);
  for (size_t k = 0; k < sizeof PASSES / sizeof PASSES[0]; k++) {
    const fl_profile_stat *st = fl_profiler_find(prof, PASSES[k]);
    if (st) ms += fl_profile_summary(st).median;
  }
  double rate = ms > 0 ? (double)sm->system.build.count * substeps / (ms * 1e-3) : 0;
  if (rate <= 0) return true;
  fl_stats_number(&out->report, NULL, "snow_particle_substeps_per_s", rate);
  fl_stats_number(&out->report, NULL, "snow_grid_memory_mib", (double)fl_snow_grid_memory(&sm->system) / 1048576.0);
  snprintf(out->bench_line, sizeof out->bench_line,
           "snow: %llu particles, %.1f substeps a frame, %.3g particle-substeps per second (P2G %s), grid %.1f MiB "
           "(%u blocks of 4x4x4 allocated, %u used at peak)%s",
           (unsigned long long)sm->system.build.count, substeps, rate, fl_snow_p2g_name(sm->system.p2g),
           (double)fl_snow_grid_memory(&sm->system) / 1048576.0, sm->system.build.block_capacity,
           sm->system.last.blocks_peak, sm->system.g2p2g ? ", G2P fused with the next P2G" : "");
  return true;
}

static uint64_t particle_count(const void *m) { return ((const snow_material *)m)->system.build.count; }

static uint64_t largest_buffer(const void *m) { return ((const snow_material *)m)->system.acc.size; }

const fl_material_ops fl_material_snow = {
    .name = "snow",
    .owns = owns,
    .create = create,
    .destroy = destroy,
    .record_frame = record_frame,
    .record_publish = record_publish,
    .record_health = record_health,
    .collect = collect,
    .views = views,
    .pick_targets = pick_targets,
    .read_state = read_state,
    .stats = stats,
    .summary = summary,
    .particle_count = particle_count,
    .largest_buffer = largest_buffer,
};
