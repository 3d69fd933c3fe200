/* sim/massspring/ms_material: the mass-spring row of the material table
 * (sim/material.h): every "mass_spring" object of a scene, one fl_ms_object each. */
#include "core/log.h"
#include "sim/massspring/ms_object.h"
#include "sim/material.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct {
  fl_ms_object objects[FL_SCENE_MAX_OBJECTS];
  float mass[FL_SCENE_MAX_OBJECTS];        /* each object's total mass (pinned particles keep theirs) */
  uint32_t count;
  uint32_t health_word;                    /* object i's flag word is health_word + i */
} ms_material;

static bool owns(fl_object_type type) { return type == FL_OBJECT_MASS_SPRING; }

static void destroy(void *m)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++) fl_ms_object_destroy(&mm->objects[i]);
  free(mm);
}

static bool create(const fl_material_env *env, const uint32_t *objects, uint32_t count, void **out)
{
  ms_material *mm = calloc(1, sizeof *mm);
  if (!mm) return fl_error_set("out of host memory");
  mm->health_word = env->health_word;
  bool ok = true;
  for (uint32_t i = 0; i < count && ok; i++) {
    const fl_scene_object *o = &env->scene->objects[objects[i]];
    ok = fl_ms_object_create(env->gpu, &o->mass_spring, &env->scene->sim, o->name, &mm->objects[i]);
    mm->mass[i] = o->mass_spring.mass;
    if (ok) mm->count++;
  }
  if (!ok) {
    destroy(mm);
    return false;
  }
  *out = mm;
  return true;
}

/* Each object's substeps together (fl_ms_object_record_frame): the world's fixed substeps. */
static void record_frame(void *m, fl_rec *r, const fl_step *frame)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++) fl_ms_object_record_frame(&mm->objects[i], r, frame, frame->sim->substeps);
}

static void record_publish(void *m, fl_rec *r)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++) fl_ms_object_record_publish(&mm->objects[i], r);
}

static void record_health(void *m, fl_rec *r, fl_health *h)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++) {
    const fl_ms_gpu *g = &mm->objects[i].sim;
    fl_health_record_range(h, r, mm->health_word + i, &g->pos, &g->vel, 0, g->particle_count);
  }
}

static void collect(void *m, uint32_t slot)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++) {
    fl_ms_object *o = &mm->objects[i];
    if (fl_ms_object_collect(o, slot))
      fl_warn_repeated("mass_spring diverged and was reset", o->sim.name,
                       "mass_spring \"%s\" (%s) diverged and was reset (%u resets)", o->sim.name,
                       fl_ms_method_name(o->sim.params.method), (unsigned)o->resets);
  }
}

static uint32_t views(const void *m, uint32_t slot, fl_render_view *out, uint32_t max)
{
  /* one colour per integrator; a diverged object, frozen until its reset, is red */
  static const float palette[5][3] = {
      {0.75f, 0.75f, 0.8f}, {0.3f, 0.7f, 0.9f}, {0.95f, 0.7f, 0.25f}, {0.6f, 0.45f, 0.85f}, {0.35f, 0.8f, 0.45f}};
  static const float flash[3] = {1.0f, 0.1f, 0.1f};
  const ms_material *mm = m;
  uint32_t n = 0;
  for (uint32_t i = 0; i < mm->count && n < max; i++) {
    const fl_ms_object *o = &mm->objects[i];
    const float *c = o->frozen ? flash : palette[o->sim.params.method % 5];
    const fl_gpu_mesh *mesh = &o->mesh[slot];
    out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &mesh->positions, .normals = &mesh->normals,
                                .indices = &mesh->indices, .count = 3 * mesh->triangle_count,
                                .color = {c[0], c[1], c[2], 1.0f}, .look = FL_LOOK_FABRIC};
  }
  return n;
}

uint32_t fl_ms_material_watch(const void *instance, fl_ms_watch *out, uint32_t max)
{
  const ms_material *mm = instance;
  uint32_t n = 0;
  for (uint32_t i = 0; mm && i < mm->count && n < max; i++) {
    const fl_ms_object *o = &mm->objects[i];
    out[n++] = (fl_ms_watch){o->sim.name, o->resets, o->frozen, o->frozen_frames};
  }
  return n;
}

static bool pick_targets(void *m, fl_picker *picker)
{
  ms_material *mm = m;
  for (uint32_t i = 0; i < mm->count; i++)
    if (!fl_picker_add_target(picker, &mm->objects[i].sim.pos, 0, mm->objects[i].sim.particle_count)) return false;
  return true;
}

static bool read_state(void *m, uint32_t object, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  ms_material *mm = m;
  const fl_ms_gpu *g = &mm->objects[object].sim;
  return fl_read_particle_state(g->gpu, &g->pos, &g->vel, 0, g->particle_count, pos, vel, count);
}

/* Strain, integrator, resets, and the last CG solve of IM. */
static bool stats(void *m, uint32_t object, const float (*pos)[4], uint32_t count, fl_object_stats *out)
{
  ms_material *mm = m;
  fl_ms_object *o = &mm->objects[object];
  uint32_t status[FL_MS_STATUS_WORDS], cg_iterations;
  float cg_residual;
  if (!fl_ms_gpu_read_status(&o->sim, status, &cg_iterations, &cg_residual)) return false;
  double max_strain, mean_strain;
  fl_ms_object_strain(o, pos, &max_strain, &mean_strain);
  fl_stats *s = &out->material;
  fl_stats_number(s, NULL, "max_strain", max_strain);
  fl_stats_number(s, NULL, "mean_strain", mean_strain);
  fl_stats_text(s, NULL, "integrator", fl_ms_method_name(o->sim.params.method));
  fl_stats_number(s, NULL, "resets", status[FL_MS_STATUS_RESETS]);
  if (o->sim.params.method == FL_MS_IM) {
    fl_stats_number(s, NULL, "cg_iterations", cg_iterations);
    fl_stats_number(s, NULL, "cg_relative_residual", cg_residual);
  }
  out->particle_mass = mm->mass[object] / count;
  return true;
}

static uint64_t particle_count(const void *m)
{
  const ms_material *mm = m;
  uint64_t n = 0;
  for (uint32_t i = 0; i < mm->count; i++) n += mm->objects[i].sim.particle_count;
  return n;
}

static uint64_t largest_buffer(const void *m)
{
  const ms_material *mm = m;
  uint64_t largest = 0;
  for (uint32_t i = 0; i < mm->count; i++) {
    const fl_ms_gpu *g = &mm->objects[i].sim;
    const fl_buffer *b[] = {&g->pos, &g->links, &g->diag};
    for (size_t k = 0; k < sizeof b / sizeof b[0]; k++)
      if (b[k]->size > largest) largest = b[k]->size;
  }
  return largest;
}

const fl_material_ops fl_material_mass_spring = {
    .name = "mass_spring",
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
    .particle_count = particle_count,
    .largest_buffer = largest_buffer,
};
