/* sim/particles/particles_material: the particles row of the material table
 * (sim/material.h): every "particles" object of a scene, one fl_particles each. */
#include "core/log.h"
#include "sim/common/placement.h"
#include "sim/material.h"
#include "sim/particles/particles.h"

#include <stdlib.h>

typedef struct {
  fl_particles objects[FL_SCENE_MAX_OBJECTS];
  uint32_t count;
  uint32_t health_word;   /* object i's flag word is health_word + i */
  fl_gpu *gpu;
} particles_material;

static bool owns(fl_object_type type) { return type == FL_OBJECT_PARTICLES; }

static void destroy(void *m)
{
  particles_material *pm = m;
  for (uint32_t i = 0; i < pm->count; i++) fl_particles_destroy(pm->gpu, &pm->objects[i]);
  free(pm);
}

static bool create(const fl_material_env *env, const uint32_t *objects, uint32_t count, void **out)
{
  particles_material *pm = calloc(1, sizeof *pm);
  if (!pm) return fl_error_set("out of host memory");
  pm->gpu = env->gpu;
  pm->health_word = env->health_word;
  bool ok = true;
  for (uint32_t i = 0; i < count && ok; i++) {
    const fl_scene_object *o = &env->scene->objects[objects[i]];
    const fl_particles_desc *d = &o->particles;
    float corners[2][4];
    for (int a = 0; a < 3; a++) { /* the box the particles are drawn from */
      corners[0][a] = d->center[a] - d->half_extents[a];
      corners[1][a] = d->center[a] + d->half_extents[a];
    }
    ok = fl_check_inside_domain("particles", o->name, (const float(*)[4])corners, 2, &env->scene->sim);
    if (!ok) break;
    ok = fl_particles_create(env->gpu, o->name, d, &pm->objects[i]);
    if (ok) pm->count++;
    else fl_error_wrap("object \"%s\"", o->name);
  }
  if (!ok) {
    destroy(pm);
    return false;
  }
  *out = pm;
  return true;
}

static void record_substep(void *m, fl_rec *r, const fl_step *step)
{
  particles_material *pm = m;
  for (uint32_t i = 0; i < pm->count; i++) fl_particles_record_substep(&pm->objects[i], r, step);
}

static void record_publish(void *m, fl_rec *r)
{
  particles_material *pm = m;
  for (uint32_t i = 0; i < pm->count; i++) fl_particles_record_publish(&pm->objects[i], r);
}

static void record_health(void *m, fl_rec *r, fl_health *h)
{
  particles_material *pm = m;
  for (uint32_t i = 0; i < pm->count; i++)
    fl_health_record_range(h, r, pm->health_word + i, &pm->objects[i].pos, &pm->objects[i].vel, 0,
                           pm->objects[i].count);
}

static uint32_t views(const void *m, uint32_t slot, fl_render_view *out, uint32_t max)
{
  static const float palette[4][3] = {{0.25f, 0.55f, 0.95f}, {0.95f, 0.35f, 0.3f},
                                      {0.35f, 0.8f, 0.45f}, {0.9f, 0.8f, 0.3f}};
  const particles_material *pm = m;
  uint32_t n = 0;
  for (uint32_t i = 0; i < pm->count && n < max; i++) {
    const float *c = palette[i % 4];
    const fl_particles *p = &pm->objects[i];
    out[n++] = (fl_render_view){.kind = FL_VIEW_PARTICLES, .positions = &p->snapshot[slot], .count = p->count,
                                .radius = p->desc.radius, .color = {c[0], c[1], c[2], 1.0f}};
  }
  return n;
}

static bool pick_targets(void *m, fl_picker *picker)
{
  particles_material *pm = m;
  for (uint32_t i = 0; i < pm->count; i++)
    if (!fl_picker_add_target(picker, &pm->objects[i].pos, 0, pm->objects[i].count)) return false;
  return true;
}

static bool read_state(void *m, uint32_t object, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  particles_material *pm = m;
  const fl_particles *p = &pm->objects[object];
  return fl_read_particle_state(pm->gpu, &p->pos, &p->vel, 0, p->count, pos, vel, count);
}

static uint64_t particle_count(const void *m)
{
  const particles_material *pm = m;
  uint64_t n = 0;
  for (uint32_t i = 0; i < pm->count; i++) n += pm->objects[i].count;
  return n;
}

static uint64_t largest_buffer(const void *m)
{
  const particles_material *pm = m;
  uint64_t largest = 0;
  for (uint32_t i = 0; i < pm->count; i++)
    if (pm->objects[i].pos.size > largest) largest = pm->objects[i].pos.size;
  return largest;
}

const fl_material_ops fl_material_particles = {
    .name = "particles",
    .owns = owns,
    .create = create,
    .destroy = destroy,
    .record_substep = record_substep,
    .record_publish = record_publish,
    .record_health = record_health,
    .views = views,
    .pick_targets = pick_targets,
    .read_state = read_state,
    .particle_count = particle_count,
    .largest_buffer = largest_buffer,
};
