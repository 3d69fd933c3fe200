/* sim/world: the scene's simulated objects, its colliders, one frame's step. */
#include "sim/world.h"

#include "core/log.h"
#include "sim/common/gpu_mesh.h"
#include "sim/common/sdf_cpu.h"
#include "sim/particles/particles.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct fl_world {
  fl_gpu *gpu;
  fl_scene scene;
  fl_particles_pipelines particle_pipelines;
  fl_mesh_normals mesh_normals;
  fl_buffer colliders;
  uint32_t collider_count;
  fl_gpu_collider colliders_cpu[FL_MAX_COLLIDERS];
  fl_gpu_mesh collider_meshes[FL_SCENE_MAX_OBJECTS]; /* zeroed for planes (not drawn) */
  fl_particles particles[FL_SCENE_MAX_OBJECTS];
  uint32_t particle_count;
  double time;                                        /* simulated seconds recorded */
  float slot_time[FL_GPU_FRAMES_IN_FLIGHT];           /* sim time of each slot's snapshot */
  uint64_t substeps;
};

static bool build_collider_mesh(fl_world *w, uint32_t c, const fl_collider_desc *d)
{
  fl_cpu_mesh mesh = {0};
  bool ok = true;
  switch (d->shape) {
  case FL_SHAPE_PLANE: return true; /* the ground pass draws the floor; other planes are invisible walls */
  case FL_SHAPE_SPHERE: ok = fl_mesh_sphere(d->center, d->radius, 24, 48, &mesh); break;
  case FL_SHAPE_BOX: ok = fl_mesh_box(d->center, d->half_extents, &mesh); break;
  case FL_SHAPE_CAPSULE: ok = fl_mesh_capsule(d->a, d->b, d->radius, 24, 48, &mesh); break;
  }
  if (d->inside) { /* a container: seen from inside, so flip the winding */
    for (uint32_t t = 0; t < mesh.triangle_count; t++) {
      uint32_t tmp = mesh.indices[3 * t + 1];
      mesh.indices[3 * t + 1] = mesh.indices[3 * t + 2];
      mesh.indices[3 * t + 2] = tmp;
    }
  }
  char name[96];
  snprintf(name, sizeof name, "collider %u", c);
  ok = ok && fl_gpu_mesh_create(w->gpu, &w->mesh_normals, &mesh, name, &w->collider_meshes[c]);
  fl_cpu_mesh_free(&mesh);
  if (!ok) return false;
  VkCommandBuffer cmd; /* static mesh: normals once, at load */
  if (!fl_gpu_begin_once(w->gpu, &cmd)) return false;
  fl_mesh_normals_record(&w->mesh_normals, cmd, &w->collider_meshes[c]);
  return fl_gpu_end_once(w->gpu, cmd);
}

bool fl_world_create(fl_gpu *gpu, const fl_scene *scene, fl_world **out)
{
  fl_world *w = calloc(1, sizeof *w);
  if (!w) return fl_error_set("out of host memory");
  w->gpu = gpu;
  w->scene = *scene;
  *out = NULL;
  bool ok = fl_particles_pipelines_create(gpu, &w->particle_pipelines) &&
            fl_mesh_normals_create(gpu, &w->mesh_normals);
  for (uint32_t i = 0; i < scene->object_count && ok; i++)
    if (scene->objects[i].type == FL_OBJECT_COLLIDER) {
      fl_collider_pack(&scene->objects[i].collider, &w->colliders_cpu[w->collider_count]);
      ok = build_collider_mesh(w, w->collider_count, &scene->objects[i].collider);
      w->collider_count++;
    }
  /* The whole uniform block (FL_MAX_COLLIDERS records), unused records zero. */
  ok = ok && fl_buffer_create(gpu, sizeof w->colliders_cpu, FL_MEMORY_DEVICE, "colliders", &w->colliders) &&
       fl_buffer_upload(gpu, &w->colliders, 0, w->colliders_cpu, sizeof w->colliders_cpu);
  for (uint32_t i = 0; i < scene->object_count && ok; i++) {
    const fl_scene_object *o = &scene->objects[i];
    if (o->type == FL_OBJECT_PARTICLES) {
      ok = fl_particles_create(gpu, &w->particle_pipelines, o->name, &o->particles, &w->colliders,
                               &w->particles[w->particle_count]);
      if (ok) w->particle_count++;
      else fl_error_wrap("object \"%s\"", o->name);
    } else if (o->type != FL_OBJECT_COLLIDER) {
      ok = fl_error_set("object \"%s\": type %s is not built yet", o->name, fl_object_type_name(o->type));
    }
  }
  if (!ok) {
    fl_world_destroy(w);
    return false;
  }
  *out = w;
  return true;
}

void fl_world_destroy(fl_world *w)
{
  if (!w) return;
  for (uint32_t i = 0; i < w->particle_count; i++) fl_particles_destroy(w->gpu, &w->particles[i]);
  for (uint32_t c = 0; c < FL_SCENE_MAX_OBJECTS; c++) fl_gpu_mesh_destroy(w->gpu, &w->collider_meshes[c]);
  fl_buffer_destroy(w->gpu, &w->colliders);
  fl_mesh_normals_destroy(w->gpu, &w->mesh_normals);
  fl_particles_pipelines_destroy(w->gpu, &w->particle_pipelines);
  free(w);
}

void fl_world_record_frame(fl_world *w, VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot, bool simulate)
{
  uint32_t substeps = simulate ? w->scene.sim.substeps : 0;
  float h = w->scene.sim.dt / (float)substeps;
  for (uint32_t s = 0; s < substeps; s++) {
    float t_end = (float)(w->time + (double)h * (s + 1));
    for (uint32_t i = 0; i < w->particle_count; i++) {
      fl_particles_push push;
      fl_particles_push_fill(&w->particles[i], &w->scene.sim, w->collider_count, h, t_end, &push);
      fl_particles_record_substep(&w->particles[i], &w->particle_pipelines, cmd, &push, prof, slot);
    }
  }
  if (simulate) w->time += w->scene.sim.dt;
  w->substeps += substeps;
  for (uint32_t i = 0; i < w->particle_count; i++)
    fl_particles_record_publish(&w->particles[i], &w->particle_pipelines, cmd, prof, slot);
  w->slot_time[slot] = (float)w->time;
}

uint32_t fl_world_views(const fl_world *w, uint32_t slot, fl_render_view *out, uint32_t max)
{
  uint32_t n = 0;
  for (uint32_t c = 0; c < w->collider_count && n < max; c++) {
    const fl_gpu_mesh *m = &w->collider_meshes[c];
    if (!m->triangle_count) continue;
    fl_render_view *v = &out[n++];
    *v = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &m->positions, .normals = &m->normals,
                          .indices = &m->indices, .count = 3 * m->triangle_count,
                          .color = {0.55f, 0.6f, 0.7f, 1.0f}};
    if (w->colliders_cpu[c].info[1]) v->color[3] = 0.0f; /* containers are not drawn */
    for (int a = 0; a < 3; a++) v->offset[a] = w->colliders_cpu[c].velocity[a] * w->slot_time[slot];
  }
  static const float palette[4][3] = {{0.25f, 0.55f, 0.95f}, {0.95f, 0.35f, 0.3f},
                                      {0.35f, 0.8f, 0.45f}, {0.9f, 0.8f, 0.3f}};
  for (uint32_t i = 0; i < w->particle_count && n < max; i++) {
    const float *c = palette[i % 4];
    out[n++] = (fl_render_view){.kind = FL_VIEW_PARTICLES, .positions = &w->particles[i].snapshot[slot],
                                .count = w->particles[i].count, .radius = w->particles[i].desc.radius,
                                .color = {c[0], c[1], c[2], 1.0f}};
  }
  return n;
}

float fl_world_ground_height(const fl_world *w)
{
  for (uint32_t c = 0; c < w->collider_count; c++) {
    const fl_gpu_collider *col = &w->colliders_cpu[c];
    if (col->info[0] == FL_SHAPE_PLANE && col->p0[1] > 0.999f) return col->p0[3];
  }
  return w->scene.sim.domain_min[1];
}

uint32_t fl_world_object_count(const fl_world *w) { return w->particle_count; }

uint64_t fl_world_particle_count(const fl_world *w)
{
  uint64_t n = 0;
  for (uint32_t i = 0; i < w->particle_count; i++) n += w->particles[i].count;
  return n;
}

uint64_t fl_world_substeps(const fl_world *w) { return w->substeps; }

uint64_t fl_world_largest_buffer(const fl_world *w)
{
  uint64_t largest = 0;
  for (uint32_t i = 0; i < w->particle_count; i++)
    if (w->particles[i].pos.size > largest) largest = w->particles[i].pos.size;
  return largest;
}

const fl_scene *fl_world_scene(const fl_world *w) { return &w->scene; }

bool fl_world_read_state(fl_world *w, uint32_t index, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  if (index >= w->particle_count) return fl_error_set("no object %u", index);
  const fl_particles *p = &w->particles[index];
  *pos = malloc(p->pos.size);
  *vel = malloc(p->vel.size);
  if (!*pos || !*vel) {
    free(*pos);
    free(*vel);
    return fl_error_set("out of host memory reading back %s", p->name);
  }
  if (!fl_buffer_readback(w->gpu, &p->pos, 0, *pos, p->pos.size) ||
      !fl_buffer_readback(w->gpu, &p->vel, 0, *vel, p->vel.size)) {
    free(*pos);
    free(*vel);
    return false;
  }
  *count = p->count;
  return true;
}

bool fl_world_stats(fl_world *w, uint32_t index, fl_object_stats *s)
{
  float (*pos)[4], (*vel)[4];
  uint32_t n;
  if (!fl_world_read_state(w, index, &pos, &vel, &n)) return false;
  const fl_particles *p = &w->particles[index];
  const fl_sim_desc *sim = &w->scene.sim;
  memset(s, 0, sizeof *s);
  snprintf(s->name, sizeof s->name, "%s", p->name);
  s->type = "particles";
  s->particles = n;
  for (int a = 0; a < 3; a++) {
    s->bbox_min[a] = INFINITY;
    s->bbox_max[a] = -INFINITY;
  }
  for (uint32_t i = 0; i < n; i++) {
    bool finite = true;
    for (int a = 0; a < 4; a++) finite &= isfinite(pos[i][a]) && isfinite(vel[i][a]);
    if (!finite) {
      s->nan_count++;
      continue;
    }
    double m = pos[i][3] > 0 ? 1.0 / pos[i][3] : 0.0, v2 = 0;
    bool outside = false;
    for (int a = 0; a < 3; a++) {
      s->com[a] += m * pos[i][a];
      s->momentum[a] += m * vel[i][a];
      v2 += (double)vel[i][a] * vel[i][a];
      if (pos[i][a] < s->bbox_min[a]) s->bbox_min[a] = pos[i][a];
      if (pos[i][a] > s->bbox_max[a]) s->bbox_max[a] = pos[i][a];
      outside |= pos[i][a] < sim->domain_min[a] || pos[i][a] > sim->domain_max[a];
    }
    s->mass += m;
    s->kinetic_energy += 0.5 * m * v2;
    if (sqrt(v2) > s->max_speed) s->max_speed = sqrt(v2);
    s->outside_domain += outside;
  }
  if (s->mass > 0)
    for (int a = 0; a < 3; a++) s->com[a] /= s->mass;
  free(pos);
  free(vel);
  return true;
}
