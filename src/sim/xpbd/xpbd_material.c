/* sim/xpbd/xpbd_material: the XPBD row of the material table
 * (sim/material.h): every cloth, soft body and balloon of a scene lives in one
 * fl_xpbd_system (one particle array, one solve), so they collide. The
 * system orders its objects cloth first, then bodies; `internal` maps the
 * row's objects (scene order) to the system's. */
#include "core/log.h"
#include "sim/xpbd/xpbd.h"
#include "sim/xpbd/cloth_stats.h"
#include "sim/common/mesh_cpu.h"
#include "sim/common/placement.h"
#include "sim/material.h"
#include "sim/xpbd/body_build.h"
#include "sim/xpbd/body_lift.h"
#include "sim/xpbd/tetrahedralize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  fl_xpbd_system system;
  const fl_scene *scene;
  uint32_t internal[FL_SCENE_MAX_OBJECTS];     /* the system's object index of the row's object k */
  const fl_scene_object *scene_object[FL_SCENE_MAX_OBJECTS]; /* the row's object k */
  uint32_t count;
  uint32_t health_word;                        /* the row's object k has flag word health_word + k */
  fl_buffer health_words;                      /* uint per system object: its flag word (the strain test) */
} xpbd_material;

static const char *const CONSERVATION_MODES[3] = {"none", "global", "local"};

static bool owns(fl_object_type type)
{
  return type == FL_OBJECT_CLOTH || type == FL_OBJECT_SOFTBODY || type == FL_OBJECT_BALLOON;
}

static void destroy(void *m)
{
  xpbd_material *xm = m;
  fl_buffer_destroy(xm->system.gpu, &xm->health_words);
  fl_xpbd_destroy(&xm->system);
  free(xm);
}

static bool create(const fl_material_env *env, const uint32_t *objects, uint32_t count, void **out)
{
  xpbd_material *xm = calloc(1, sizeof *xm);
  fl_cloth_desc *cloth = calloc(FL_SCENE_MAX_OBJECTS, sizeof *cloth);
  char(*names)[FL_SCENE_NAME_MAX] = calloc(FL_SCENE_MAX_OBJECTS, sizeof *names);
  fl_body_build *bodies = calloc(FL_SCENE_MAX_OBJECTS, sizeof *bodies);
  bool ok = xm && cloth && names && bodies;
  if (!ok) fl_error_set("out of host memory");
  uint32_t cloth_total = 0, cloth_count = 0, body_count = 0;
  for (uint32_t k = 0; k < count; k++) cloth_total += env->scene->objects[objects[k]].type == FL_OBJECT_CLOTH;
  for (uint32_t k = 0; k < count && ok; k++) {
    const fl_scene_object *o = &env->scene->objects[objects[k]];
    xm->scene_object[k] = o;
    if (o->type == FL_OBJECT_CLOTH) {
      cloth[cloth_count] = o->cloth;
      memcpy(names[cloth_count], o->name, FL_SCENE_NAME_MAX);
      xm->internal[k] = cloth_count++;
    } else {
      fl_body_build *b = &bodies[body_count];
      ok = o->type == FL_OBJECT_SOFTBODY ? fl_softbody_build(&o->softbody, o->name, b)
                                         : fl_balloon_build(&o->balloon, o->name, b);
      double lifted = ok && env->colliders_cpu ? fl_body_lift_out(b, env->colliders_cpu->records, env->collider_count,
                                                                  env->scene->sim.domain_min,
                                                                  env->scene->sim.domain_max)
                                               : 0.0;
      if (lifted > 0)
        fl_info("%s \"%s\" started within its contact distance of a collider or wall: moved %.3g m out at load",
                fl_object_type_name(o->type), o->name, lifted);
      xm->internal[k] = cloth_total + body_count++;
    }
  }
  ok = ok && fl_xpbd_create(env->gpu, cloth, (const char(*)[FL_SCENE_NAME_MAX])names, cloth_count, bodies,
                                    body_count, &xm->system);
  for (uint32_t k = 0; k < body_count; k++) fl_body_build_free(&bodies[k]);
  free(bodies);
  free(names);
  free(cloth);
  for (uint32_t k = 0; k < count && ok; k++) {
    const fl_gpu_xpbd_object *o = &xm->system.build.objects[xm->internal[k]];
    const float(*start)[4] = (const float(*)[4])xm->system.build.positions + o->first;
    ok = fl_check_inside_domain(fl_object_type_name(xm->scene_object[k]->type), xm->scene_object[k]->name, start,
                                o->count, &env->scene->sim) &&
         fl_check_substep_resolution(start, o->count, &env->scene->sim); /* not the tear's spare slots */
    if (!ok) fl_xpbd_destroy(&xm->system);
  }
  if (!ok) {
    free(xm);
    return false;
  }
  xm->scene = env->scene;
  xm->count = count;
  xm->health_word = env->health_word;
  uint32_t words[FL_SCENE_MAX_OBJECTS];
  for (uint32_t k = 0; k < count; k++) words[xm->internal[k]] = env->health_word + k;
  if (!fl_buffer_create_with(env->gpu, words, sizeof(uint32_t) * count, "xpbd health words", &xm->health_words)) {
    destroy(xm);
    return false;
  }
  *out = xm;
  return true;
}

static void record_substep(void *m, fl_rec *r, const fl_step *step)
{
  fl_xpbd_record_substep(&((xpbd_material *)m)->system, r, step);
}

static void record_publish(void *m, fl_rec *r) { fl_xpbd_record_publish(&((xpbd_material *)m)->system, r); }

static void record_health(void *m, fl_rec *r, fl_health *h)
{
  xpbd_material *xm = m;
  fl_xpbd_system *s = &xm->system;
  for (uint32_t k = 0; k < xm->count; k++) {
    const fl_gpu_xpbd_object *o = &s->build.objects[xm->internal[k]];
    fl_health_record_range(h, r, xm->health_word + k, &s->pos, &s->vel, o->first, o->count);
    if (s->tri.any && fl_tri_object_collides(o, true)) { /* a full candidate list (xpbd/tri_pairs) */
      fl_health_push push = {.word = xm->health_word + k};
      fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/tri_health", FL_PUSH(push), .threads = 1, .no_barrier = true,
                                FL_BUFFERS(&s->tri_list, &h->flags)});
    }
  }
  /* the strain test (sim.max_strain), every object's constraints in one pass: a record (32 bytes),
   * its two positions and its first particle's object (4) */
  uint32_t n = s->build.distance.count;
  if (!n) return;
  fl_rec_begin(r, "health/strain", (uint64_t)n * (32 + 32 + 4));
  fl_strain_health_push strain = {.constraints = n, .max_strain = xm->scene->sim.max_strain};
  fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/strain_health", FL_PUSH(strain), .threads = n, .no_barrier = true,
                            FL_BUFFERS(&s->pos, &s->distance.constraints, &s->object_of, &xm->health_words,
                                       &h->flags)});
  fl_rec_end(r);
}

static void collect(void *m, uint32_t slot) { fl_xpbd_collect_tears(&((xpbd_material *)m)->system, slot); }

static uint32_t views(const void *m, uint32_t slot, fl_render_view *out, uint32_t max)
{
  static const float cloth_palette[3][3] = {{0.85f, 0.25f, 0.2f}, {0.95f, 0.75f, 0.3f}, {0.3f, 0.55f, 0.85f}};
  /* soft bodies in gummy colours, balloons in bright ones */
  static const float body_palette[5][3] = {
      {0.9f, 0.15f, 0.2f}, {0.3f, 0.8f, 0.25f}, {0.98f, 0.6f, 0.1f}, {0.95f, 0.85f, 0.2f}, {0.6f, 0.3f, 0.85f}};
  const fl_xpbd_system *s = &((const xpbd_material *)m)->system;
  const fl_xpbd_build *cb = &s->build;
  uint32_t n = 0;
  for (uint32_t o = 0; o < cb->object_count && n < max; o++) {
    uint32_t first = s->object_first_triangle[o], count = s->object_triangles[o];
    const float *c = o < cb->cloth_count ? cloth_palette[o % 3] : body_palette[(o - cb->cloth_count) % 5];
    uint32_t look = o < cb->cloth_count ? FL_LOOK_FABRIC : FL_LOOK_GLOSSY;
    const fl_gpu_mesh *skinned = NULL;
    for (uint32_t k = 0; k < s->skin_count; k++)
      if (s->skins[k].object == o) skinned = &s->skins[k].mesh[slot];
    if (skinned)
      out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &skinned->positions,
                                  .normals = &skinned->normals, .indices = &skinned->indices,
                                  .count = 3 * skinned->triangle_count, .color = {c[0], c[1], c[2], 1.0f},
                                  .look = look};
    else
      out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &s->snapshot[slot], .normals = &s->normals[slot],
                                  .indices = s->tear.on ? &s->tear.draw_triangles[slot] : &s->triangles, .first = 3 * first, .count = 3 * count,
                                  .color = {c[0], c[1], c[2], 1.0f}, .look = look};
  }
  return n;
}

static bool pick_targets(void *m, fl_picker *picker)
{
  fl_xpbd_system *s = &((xpbd_material *)m)->system;
  return fl_picker_add_target(picker, &s->pos, 0, s->build.particle_count);
}

static bool read_state(void *m, uint32_t object, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  xpbd_material *xm = m;
  const fl_gpu_xpbd_object *o = &xm->system.build.objects[xm->internal[object]];
  return fl_read_particle_state(xm->system.gpu, &xm->system.pos, &xm->system.vel, o->first, o->count, pos, vel,
                                count);
}

/* Cloth: strain, and the closest non-neighbour pair (against every object). */
static bool cloth_stats(xpbd_material *xm, uint32_t object, fl_object_stats *out)
{
  const fl_xpbd_build *b = &xm->system.build;
  const fl_cloth_desc *d = &xm->scene_object[object]->cloth;
  float(*all)[4] = malloc((size_t)b->particle_count * 16);
  if (!all) return fl_error_set("out of host memory for cloth stats");
  fl_cloth_stats cs;
  bool ok = fl_buffer_readback(xm->system.gpu, &xm->system.pos, 0, all, (VkDeviceSize)b->particle_count * 16) &&
            fl_cloth_stats_compute(b, (const float(*)[4])all, xm->internal[object], d->thickness, &cs);
  free(all);
  if (!ok) return false;
  fl_stats_number(&out->material, NULL, "max_strain", cs.max_strain);
  fl_stats_number(&out->material, NULL, "mean_strain", cs.mean_strain);
  fl_stats_number(&out->material, NULL, "min_distance_nonneighbor", cs.min_distance_nonneighbor);
  out->particle_mass = d->mass / b->objects[xm->internal[object]].count;
  return true;
}

/* 1 - the smallest volume over the largest one seen since measure_after (a
 * body state); -1 before measure_after (nothing tracked yet). */
static double worst_volume_loss(const float state[4])
{
  return state[2] < 1e29f && state[3] > 0 ? 1.0 - (double)state[2] / state[3] : -1.0;
}

/* Every body's GPU state (FL_BODY_STATE_VEC4S vec4s each), malloc'd; waits. */
static float (*read_body_states(fl_xpbd_system *s))[4]
{
  float(*state)[4] = malloc((size_t)(s->build.body_count ? s->build.body_count : 1) * FL_BODY_STATE_VEC4S * 16);
  if (!state) {
    fl_error_set("out of host memory for body state");
    return NULL;
  }
  if (!fl_xpbd_read_body_state(s, state)) {
    free(state);
    return NULL;
  }
  return state;
}

/* Soft bodies and balloons: surface volume now, rest and target volume, the
 * worst loss tracked on the GPU; soft bodies the tet volume ratios (one
 * record per tet: volume, or the Neo-Hookean hydrostatic one). */
static bool body_stats(xpbd_material *xm, uint32_t object, const float (*pos)[4], fl_object_stats *out)
{
  const fl_xpbd_build *b = &xm->system.build;
  uint32_t body = xm->internal[object] - b->cloth_count;
  const fl_gpu_body *rec = &b->bodies[body];
  float(*state)[4] = read_body_states(&xm->system);
  uint32_t *local = malloc((size_t)rec->triangle_count * 3 * sizeof *local);
  if (!state || !local) {
    free(state);
    free(local);
    return state ? fl_error_set("out of host memory for body stats") : false;
  }
  uint32_t first = rec->first_particle;
  /* the surface's enclosed volume, with indices local to the body's readback */
  for (uint32_t i = 0; i < rec->triangle_count * 3; i++) local[i] = b->triangles[3 * (size_t)rec->first_triangle + i] - first;
  fl_stats *s = &out->material;
  fl_stats_number(s, NULL, "volume", fl_mesh_volume(pos, local, rec->triangle_count));
  fl_stats_number(s, NULL, "rest_volume", rec->rest_volume);
  fl_stats_number(s, NULL, "target_volume", (double)rec->rest_volume * rec->pressure);
  double loss = worst_volume_loss(state[body]);
  if (loss >= 0) fl_stats_number(s, NULL, "worst_volume_loss", loss);
  fl_stats_number(s, NULL, "largest_volume_ratio", state[body][3]);
  fl_stats_text(s, NULL, "volume_conservation", CONSERVATION_MODES[rec->conservation % 3]);
  free(local);
  free(state);
  uint32_t tets = 0, inverted = 0;
  double lo = INFINITY, hi = -INFINITY;
  for (uint32_t c = 0; c < b->tet.count; c++) {
    const fl_gpu_tet *t = &b->tets[c];
    if (t->idx[0] < first || t->idx[0] >= first + rec->particle_count) continue;
    double ratio = fl_tet_volume(pos[t->idx[0] - first], pos[t->idx[1] - first], pos[t->idx[2] - first],
                                 pos[t->idx[3] - first]) / t->rest;
    tets++;
    inverted += ratio <= 0;
    lo = fmin(lo, ratio);
    hi = fmax(hi, ratio);
  }
  if (tets) {
    fl_stats_number(s, NULL, "tets", tets);
    fl_stats_number(s, NULL, "tet_volume_ratio_min", lo);
    fl_stats_number(s, NULL, "tet_volume_ratio_max", hi);
    fl_stats_number(s, NULL, "inverted_tets", inverted);
  }
  return true;
}

static bool stats(void *m, uint32_t object, const float (*pos)[4], uint32_t count, fl_object_stats *out)
{
  (void)count;
  xpbd_material *xm = m;
  return xm->scene_object[object]->type == FL_OBJECT_CLOTH ? cloth_stats(xm, object, out)
                                                           : body_stats(xm, object, pos, out);
}

/* The worst volume loss per conservation mode over the bodies (report and a
 * line after every run); with --bench, the tet solves per second. */
static bool summary(void *m, const fl_profiler *prof, bool bench, fl_material_summary *out)
{
  xpbd_material *xm = m;
  const fl_xpbd_build *b = &xm->system.build;
  if (b->body_count) {
    float(*state)[4] = read_body_states(&xm->system);
    if (!state) return false;
    double worst[3] = {-1, -1, -1};
    for (uint32_t k = 0; k < b->body_count; k++) {
      int mode = (int)(b->bodies[k].conservation % 3);
      worst[mode] = fmax(worst[mode], worst_volume_loss(state[k]));
    }
    free(state);
    char modes[192];
    int n = 0;
    for (int mode = 0; mode < 3; mode++) {
      if (worst[mode] < 0) continue;
      fl_stats_number(&out->report, "worst_volume_loss", CONSERVATION_MODES[mode], worst[mode]);
      n += snprintf(modes + n, sizeof modes - (size_t)n, "%s %s %.2f %%", n ? "," : "", CONSERVATION_MODES[mode],
                    100 * worst[mode]);
    }
    if (n) snprintf(out->run_line, sizeof out->run_line, "worst volume loss by volume_conservation:%s", modes);
  }
  const fl_tear *tear = &xm->system.tear;
  if (tear->on) { /* what tearing did and cost (docs/CLOTH.md "Tearing") */
    fl_stats_number(&out->report, "tearing", "splits", tear->splits_done);
    fl_stats_number(&out->report, "tearing", "batches", tear->batches);
    fl_stats_number(&out->report, "tearing", "constraints_reported", tear->reports_seen);
    fl_stats_number(&out->report, "tearing", "cpu_ms_per_batch", tear->batches ? tear->cpu_ms_total / tear->batches : 0);
    fl_stats_number(&out->report, "tearing", "cpu_ms_max", tear->cpu_ms_max);
    fl_stats_number(&out->report, "tearing", "upload_bytes_max", (double)tear->upload_bytes_max);
    if (xm->system.tri.any) { /* of those: the triangle contacts' edges and owners */
      fl_stats_number(&out->report, "tearing", "contact_ms_per_batch", tear->batches ? tear->contact_ms_total / tear->batches : 0);
      fl_stats_number(&out->report, "tearing", "contact_ms_max", tear->contact_ms_max);
      fl_stats_number(&out->report, "tearing", "contact_upload_bytes_max", (double)tear->contact_bytes_max);
    }
    size_t used = strlen(out->run_line); /* after the volume line, when there is one */
    snprintf(out->run_line + used, sizeof out->run_line - used,
               "%stearing: %u vertex splits in %u batches, CPU %.3f ms a batch (split, recolour, vertex lists; "
               "max %.3f ms), upload up to %.0f KiB",
               used ? "; " : "", tear->splits_done, tear->batches, tear->batches ? tear->cpu_ms_total / tear->batches : 0,
               tear->cpu_ms_max, tear->upload_bytes_max / 1024.0);
    used = strlen(out->run_line);
    if (xm->system.tri.any)
      snprintf(out->run_line + used, sizeof out->run_line - used,
               "; of which contact edges %.3f ms a batch (max %.3f ms), %.0f KiB",
               tear->batches ? tear->contact_ms_total / tear->batches : 0, tear->contact_ms_max,
               tear->contact_bytes_max / 1024.0);
  }
  const fl_profile_stat *st = bench ? fl_profiler_find(prof, "softbody/tets") : NULL;
  double ms = st ? fl_profile_summary(st).median : 0;
  const fl_sim_desc *sim = &xm->scene->sim;
  if (ms > 0 && b->tet.count) {
    double rate = (double)b->tet.count * sim->substeps * sim->iterations / (ms * 1e-3);
    fl_stats_number(&out->report, NULL, "tet_solves_per_s", rate);
    snprintf(out->bench_line, sizeof out->bench_line, "tets: %llu constraint records, %.3g solved per second in softbody/tets",
             (unsigned long long)b->tet.count, rate);
  }
  return true;
}

static uint64_t particle_count(const void *m) { return ((const xpbd_material *)m)->system.build.particle_count; }

static uint64_t largest_buffer(const void *m)
{
  const fl_xpbd_system *s = &((const xpbd_material *)m)->system;
  const fl_buffer *b[] = {&s->pos, &s->distance.constraints, &s->bend.constraints, &s->tet.constraints};
  uint64_t largest = 0;
  for (size_t i = 0; i < sizeof b / sizeof b[0]; i++)
    if (b[i]->size > largest) largest = b[i]->size;
  return largest;
}

const fl_material_ops fl_material_xpbd = {
    .name = "xpbd",
    .owns = owns,
    .create = create,
    .destroy = destroy,
    .record_substep = record_substep,
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
