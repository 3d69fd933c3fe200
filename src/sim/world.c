/* sim/world: the scene's simulated objects, its colliders, one frame's step. */
#include "sim/world.h"

#include "core/log.h"
#include "sim/common/gpu_mesh.h"
#include "sim/cloth/cloth.h"
#include "sim/cloth/cloth_stats.h"
#include "sim/common/pick.h"
#include "sim/common/sdf_cpu.h"
#include "sim/massspring/ms_object.h"
#include "sim/mpm/snow.h"
#include "sim/particles/particles.h"
#include "sim/softbody/body_build.h"
#include "sim/softbody/tetrahedralize.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A simulated object: its type, its index among that type's objects, its scene index. */
typedef struct {
  fl_object_type type;
  uint32_t index;
  uint32_t scene_index;
} fl_world_object;

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
  fl_cloth_system cloth;                              /* every cloth, soft body and balloon (XPBD) object;
                                                       * cloth.gpu NULL when none */
  fl_ms_pipelines ms_pipelines;                       /* made with the first mass_spring object */
  fl_ms_object ms[FL_SCENE_MAX_OBJECTS];
  uint32_t ms_count;
  int ms_first_target;                                /* the picker target of ms[0] (then one each) */
  fl_snow_system snow;                                /* every snow object (MPM); snow.gpu NULL when none */
  uint32_t snow_count;
  uint64_t snow_frames;                               /* frames the snow was stepped */
  fl_world_object objects[FL_SCENE_MAX_OBJECTS];     /* simulated objects in scene order */
  uint32_t object_count;
  fl_picker picker;
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
  fl_cloth_desc cloth_descs[FL_SCENE_MAX_OBJECTS];
  char cloth_names[FL_SCENE_MAX_OBJECTS][FL_SCENE_NAME_MAX];
  uint32_t cloth_count = 0, body_count = 0;
  fl_body_build *bodies = calloc(FL_SCENE_MAX_OBJECTS, sizeof *bodies);
  if (!bodies) ok = fl_error_set("out of host memory");
  for (uint32_t i = 0; i < scene->object_count && ok; i++) {
    const fl_scene_object *o = &scene->objects[i];
    if (o->type == FL_OBJECT_COLLIDER) continue;
    if (o->type == FL_OBJECT_PARTICLES) {
      ok = fl_particles_create(gpu, &w->particle_pipelines, o->name, &o->particles, &w->colliders,
                               &w->particles[w->particle_count]);
      if (!ok) fl_error_wrap("object \"%s\"", o->name);
      w->objects[w->object_count++] = (fl_world_object){o->type, w->particle_count++, i};
    } else if (o->type == FL_OBJECT_CLOTH) {
      cloth_descs[cloth_count] = o->cloth;
      memcpy(cloth_names[cloth_count], o->name, FL_SCENE_NAME_MAX);
      w->objects[w->object_count++] = (fl_world_object){o->type, cloth_count++, i};
    } else if (o->type == FL_OBJECT_MASS_SPRING) {
      if (w->ms_count == 0) ok = fl_ms_pipelines_create(gpu, &w->ms_pipelines);
      ok = ok && fl_ms_object_create(gpu, &w->ms_pipelines, &w->mesh_normals, &o->mass_spring, &scene->sim, o->name,
                                     &w->ms[w->ms_count]);
      w->objects[w->object_count++] = (fl_world_object){o->type, w->ms_count++, i};
    } else if (o->type == FL_OBJECT_SNOW) {
      w->objects[w->object_count++] = (fl_world_object){o->type, w->snow_count++, i};
    } else if (o->type == FL_OBJECT_SOFTBODY || o->type == FL_OBJECT_BALLOON) {
      ok = o->type == FL_OBJECT_SOFTBODY ? fl_softbody_build(&o->softbody, o->name, &bodies[body_count])
                                         : fl_balloon_build(&o->balloon, o->name, &bodies[body_count]);
      w->objects[w->object_count++] = (fl_world_object){o->type, body_count++, i};
    } else {
      ok = fl_error_set("object \"%s\": type %s is not built yet", o->name, fl_object_type_name(o->type));
    }
  }
  if (ok && cloth_count + body_count)
    ok = fl_cloth_system_create(gpu, &w->mesh_normals, cloth_descs, (const char(*)[FL_SCENE_NAME_MAX])cloth_names,
                                cloth_count, bodies, body_count, &w->colliders, &w->cloth);
  for (uint32_t k = 0; k < body_count; k++) fl_body_build_free(&bodies[k]);
  free(bodies);
  if (ok && w->snow_count) {
    uint32_t snow_indices[FL_SCENE_MAX_OBJECTS], k = 0;
    for (uint32_t i = 0; i < scene->object_count; i++)
      if (scene->objects[i].type == FL_OBJECT_SNOW) snow_indices[k++] = i;
    ok = fl_snow_create(gpu, &w->scene, snow_indices, k, &w->colliders, w->collider_count, &w->snow);
  }
  /* Everything made of particles can be grabbed with the mouse. */
  ok = ok && fl_picker_create(gpu, &w->picker);
  for (uint32_t i = 0; i < w->particle_count && ok; i++)
    ok = fl_picker_add_target(&w->picker, &w->particles[i].pos, 0, w->particles[i].count) >= 0;
  if (ok && w->cloth.gpu) ok = fl_picker_add_target(&w->picker, &w->cloth.pos, 0, w->cloth.build.particle_count) >= 0;
  for (uint32_t i = 0; i < w->ms_count && ok; i++) {
    int t = fl_picker_add_target(&w->picker, &w->ms[i].sim.pos, 0, w->ms[i].sim.particle_count);
    if (i == 0) w->ms_first_target = t;
    ok = t >= 0;
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
  fl_cloth_system_destroy(&w->cloth);
  fl_snow_destroy(&w->snow);
  for (uint32_t i = 0; i < w->ms_count; i++) fl_ms_object_destroy(&w->ms[i]);
  if (w->ms_count) fl_ms_pipelines_destroy(w->gpu, &w->ms_pipelines);
  fl_picker_destroy(&w->picker);
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
  fl_picker_record(&w->picker, cmd, slot);
  for (uint32_t s = 0; s < substeps; s++) {
    float t_end = (float)(w->time + (double)h * (s + 1));
    for (uint32_t i = 0; i < w->particle_count; i++) {
      fl_particles_push push;
      fl_particles_push_fill(&w->particles[i], &w->scene.sim, w->collider_count, h, t_end, &push);
      fl_particles_record_substep(&w->particles[i], &w->particle_pipelines, cmd, &push, prof, slot);
    }
    if (w->cloth.gpu)
      fl_cloth_record_substep(&w->cloth, cmd, &w->scene.sim, w->collider_count, h, t_end, &w->picker, prof, slot);
    for (uint32_t i = 0; i < w->ms_count; i++) fl_ms_object_record_step(&w->ms[i], cmd, h, prof, slot);
    bool drag_after = w->picker.held_target < w->particle_count ||
                      (w->ms_count && w->picker.held_target >= (uint32_t)w->ms_first_target);
    if (w->picker.held && drag_after) fl_picker_record_drag(&w->picker, cmd, h);
  }
  if (simulate && w->snow.gpu) {
    fl_snow_record_frame(&w->snow, cmd, w->scene.sim.dt, (float)w->time, prof, slot);
    w->snow_frames++;
  }
  if (simulate) w->time += w->scene.sim.dt;
  w->substeps += substeps;
  for (uint32_t i = 0; i < w->particle_count; i++)
    fl_particles_record_publish(&w->particles[i], &w->particle_pipelines, cmd, prof, slot);
  if (w->cloth.gpu) fl_cloth_record_publish(&w->cloth, &w->mesh_normals, cmd, prof, slot);
  for (uint32_t i = 0; i < w->ms_count; i++) fl_ms_object_record_publish(&w->ms[i], &w->mesh_normals, cmd, prof, slot);
  if (w->snow.gpu) fl_snow_record_publish(&w->snow, cmd, prof, slot);
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
    float moved = fl_collider_moved_time_cpu(&w->colliders_cpu[c], w->slot_time[slot]);
    for (int a = 0; a < 3; a++) v->offset[a] = w->colliders_cpu[c].velocity[a] * moved;
  }
  static const float palette[4][3] = {{0.25f, 0.55f, 0.95f}, {0.95f, 0.35f, 0.3f},
                                      {0.35f, 0.8f, 0.45f}, {0.9f, 0.8f, 0.3f}};
  const fl_cloth_build *cb = &w->cloth.build;
  for (uint32_t o = 0; w->cloth.gpu && o < cb->object_count && n < max; o++) {
    uint32_t first = w->cloth.object_first_triangle[o], count = w->cloth.object_triangles[o];
    static const float cloth_palette[3][3] = {{0.85f, 0.25f, 0.2f}, {0.95f, 0.75f, 0.3f}, {0.3f, 0.55f, 0.85f}};
    /* soft bodies in gummy colours, balloons in bright ones */
    static const float body_palette[5][3] = {
        {0.9f, 0.15f, 0.2f}, {0.3f, 0.8f, 0.25f}, {0.98f, 0.6f, 0.1f}, {0.95f, 0.85f, 0.2f}, {0.6f, 0.3f, 0.85f}};
    const float *c = o < cb->cloth_count ? cloth_palette[o % 3] : body_palette[(o - cb->cloth_count) % 5];
    const fl_gpu_mesh *skinned = NULL;
    for (uint32_t k = 0; k < w->cloth.skin_count; k++)
      if (w->cloth.skins[k].object == o) skinned = &w->cloth.skins[k].mesh[slot];
    if (skinned)
      out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &skinned->positions,
                                  .normals = &skinned->normals, .indices = &skinned->indices,
                                  .count = 3 * skinned->triangle_count, .color = {c[0], c[1], c[2], 1.0f}};
    else
      out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &w->cloth.snapshot[slot],
                                  .normals = &w->cloth.normals[slot], .indices = &w->cloth.triangles,
                                  .first = 3 * first, .count = 3 * count, .color = {c[0], c[1], c[2], 1.0f}};
  }
  for (uint32_t i = 0; i < w->ms_count && n < max; i++) {
    /* one colour per integrator; a reset object flashes red */
    static const float ms_palette[5][3] = {
        {0.75f, 0.75f, 0.8f}, {0.3f, 0.7f, 0.9f}, {0.95f, 0.7f, 0.25f}, {0.6f, 0.45f, 0.85f}, {0.35f, 0.8f, 0.45f}};
    const fl_ms_object *o = &w->ms[i];
    const float *c = o->flash_frames ? (const float[3]){1.0f, 0.1f, 0.1f} : ms_palette[o->sim.params.method % 5];
    out[n++] = (fl_render_view){.kind = FL_VIEW_MESH, .positions = &o->mesh[slot].positions,
                                .normals = &o->mesh[slot].normals, .indices = &o->mesh[slot].indices,
                                .count = 3 * o->mesh[slot].triangle_count, .color = {c[0], c[1], c[2], 1.0f}};
  }
  for (uint32_t i = 0; i < w->particle_count && n < max; i++) {
    const float *c = palette[i % 4];
    out[n++] = (fl_render_view){.kind = FL_VIEW_PARTICLES, .positions = &w->particles[i].snapshot[slot],
                                .count = w->particles[i].count, .radius = w->particles[i].desc.radius,
                                .color = {c[0], c[1], c[2], 1.0f}};
  }
  if (w->snow.gpu && n + 2 <= max) {
    const fl_snow_build *b = &w->snow.build;
    fl_render_view v = {.kind = FL_VIEW_SNOW, .positions = &w->snow.snapshot[slot], .count = b->count,
                        .radius = 0.6f * b->particle_spacing, .color = {0.93f, 0.95f, 1.0f, 1.0f},
                        .density = &w->snow.density[slot], .grid_spacing = b->h, .rest_density = b->rho0[0]};
    memcpy(v.grid_dims, b->dims, sizeof v.grid_dims);
    memcpy(v.grid_origin, b->origin, sizeof v.grid_origin);
    out[n++] = v;
    v.kind = FL_VIEW_SNOW_VOLUME;
    v.count = b->node_count;
    out[n++] = v;
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

uint32_t fl_world_object_count(const fl_world *w) { return w->object_count; }

uint64_t fl_world_particle_count(const fl_world *w)
{
  uint64_t n = w->cloth.gpu ? w->cloth.build.particle_count : 0;
  for (uint32_t i = 0; i < w->particle_count; i++) n += w->particles[i].count;
  for (uint32_t i = 0; i < w->ms_count; i++) n += w->ms[i].sim.particle_count;
  return n + w->snow.build.count;
}

uint64_t fl_world_substeps(const fl_world *w) { return w->substeps; }

uint64_t fl_world_snow_substeps(const fl_world *w) { return w->snow.substeps_total; }

double fl_world_snow_substeps_per_frame(const fl_world *w)
{
  return w->snow_frames ? (double)w->snow.substeps_total / (double)w->snow_frames : 0.0;
}

uint64_t fl_world_snow_particle_count(const fl_world *w) { return w->snow.build.count; }

uint64_t fl_world_tet_count(const fl_world *w) { return w->cloth.gpu ? w->cloth.build.tet.count : 0; }

uint64_t fl_world_largest_buffer(const fl_world *w)
{
  uint64_t largest = 0;
  for (uint32_t i = 0; i < w->particle_count; i++)
    if (w->particles[i].pos.size > largest) largest = w->particles[i].pos.size;
  for (uint32_t i = 0; i < w->ms_count; i++)
    if (w->ms[i].sim.diag.size > largest) largest = w->ms[i].sim.diag.size;
  if (w->snow.gpu && w->snow.acc.size > largest) largest = w->snow.acc.size;
  if (w->cloth.gpu) {
    const fl_buffer *b[] = {&w->cloth.pos, &w->cloth.distance.constraints, &w->cloth.bend.constraints};
    for (int i = 0; i < 3; i++)
      if (b[i]->size > largest) largest = b[i]->size;
  }
  return largest;
}

const fl_scene *fl_world_scene(const fl_world *w) { return &w->scene; }

void fl_world_pick(fl_world *w, const float origin[3], const float direction[3], float radius)
{
  fl_picker_request(&w->picker, origin, direction, radius);
}

bool fl_world_pick_collect(fl_world *w, uint32_t slot, float *distance)
{
  if (!fl_picker_collect(&w->picker, slot)) return false;
  *distance = w->picker.held_distance;
  return true;
}

void fl_world_drag_to(fl_world *w, const float target[3])
{
  memcpy(w->picker.drag_target, target, sizeof w->picker.drag_target);
}

void fl_world_release(fl_world *w) { fl_picker_release(&w->picker); }

bool fl_world_holding(const fl_world *w) { return w->picker.held; }

/* The XPBD system's object index of world object `index` (cloth, soft body or balloon). */
static uint32_t xpbd_object(const fl_world *w, uint32_t index)
{
  const fl_world_object *o = &w->objects[index];
  return o->type == FL_OBJECT_CLOTH ? o->index : w->cloth.build.cloth_count + o->index;
}

/* The particles of snow object `material` (positions with 1/m in w, velocities), from one
 * readback of the snow state; optionally its J_P range and the mass of every snow particle. */
static bool snow_read_object(fl_world *w, uint32_t material, float (**pos)[4], float (**vel)[4], uint32_t *count,
                             double *jp_min, double *jp_max, double *all_mass)
{
  fl_snow_cpu_particles st;
  if (!fl_snow_read_state(&w->snow, &st)) return false;
  uint32_t n = 0;
  double lo = INFINITY, hi = -INFINITY, mass = 0;
  for (uint32_t p = 0; p < st.count; p++) {
    mass += st.pos[p][3];
    if (st.fe[3 * p + 1][3] != (float)material) continue;
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

bool fl_world_read_state(fl_world *w, uint32_t index, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  if (index >= w->object_count) return fl_error_set("no object %u", index);
  if (w->objects[index].type == FL_OBJECT_SNOW)
    return snow_read_object(w, w->objects[index].index, pos, vel, count, NULL, NULL, NULL);
  const fl_buffer *pb, *vb;
  VkDeviceSize offset = 0;
  uint32_t n;
  fl_object_type type = w->objects[index].type;
  if (type == FL_OBJECT_CLOTH || type == FL_OBJECT_SOFTBODY || type == FL_OBJECT_BALLOON) {
    const fl_gpu_cloth_object *o = &w->cloth.build.objects[xpbd_object(w, index)];
    pb = &w->cloth.pos;
    vb = &w->cloth.vel;
    offset = (VkDeviceSize)o->grid[0] * 16;
    n = o->grid[1];
  } else if (w->objects[index].type == FL_OBJECT_MASS_SPRING) {
    const fl_ms_gpu *m = &w->ms[w->objects[index].index].sim;
    pb = &m->pos;
    vb = &m->vel;
    n = m->particle_count;
  } else {
    const fl_particles *p = &w->particles[w->objects[index].index];
    pb = &p->pos;
    vb = &p->vel;
    n = p->count;
  }
  *pos = malloc((size_t)n * 16);
  *vel = malloc((size_t)n * 16);
  if (!*pos || !*vel) {
    free(*pos);
    free(*vel);
    return fl_error_set("out of host memory reading back object %u", index);
  }
  if (!fl_buffer_readback(w->gpu, pb, offset, *pos, (VkDeviceSize)n * 16) ||
      !fl_buffer_readback(w->gpu, vb, offset, *vel, (VkDeviceSize)n * 16)) {
    free(*pos);
    free(*vel);
    return false;
  }
  *count = n;
  return true;
}

/* Cloth-only report fields: strain and the closest non-neighbour pair. */
static bool cloth_stats(fl_world *w, uint32_t cloth_object, fl_object_stats *s)
{
  const fl_cloth_build *b = &w->cloth.build;
  float (*all)[4] = malloc((size_t)b->particle_count * 16);
  if (!all) return fl_error_set("out of host memory for cloth stats");
  bool ok = fl_buffer_readback(w->gpu, &w->cloth.pos, 0, all, (VkDeviceSize)b->particle_count * 16);
  fl_cloth_stats cs;
  const fl_cloth_desc *d = NULL;
  for (uint32_t i = 0, c = 0; i < w->scene.object_count; i++)
    if (w->scene.objects[i].type == FL_OBJECT_CLOTH && c++ == cloth_object) d = &w->scene.objects[i].cloth;
  ok = ok && d && fl_cloth_stats_compute(b, (const float(*)[4])all, cloth_object, d->thickness, &cs);
  free(all);
  if (!ok) return false;
  s->has_strain = true;
  s->max_strain = cs.max_strain;
  s->mean_strain = cs.mean_strain;
  s->has_min_distance = d->self_collision;
  s->min_distance_nonneighbor = cs.min_distance_nonneighbor;
  return true;
}

/* 1 - the smallest volume over the largest one seen since measure_after (a
 * body state); -1 before measure_after (nothing tracked yet). */
static double worst_volume_loss(const float state[4])
{
  return state[2] < 1e29f && state[3] > 0 ? 1.0 - (double)state[2] / state[3] : -1.0;
}

/* Soft body and balloon report fields: surface volume now, rest and target
 * volume, the worst loss tracked on the GPU, and (soft bodies) the tet
 * volume ratios over its tets (one record per tet: volume or NH hydrostatic). */
static bool body_stats(fl_world *w, uint32_t body, const float (*pos)[4], fl_object_stats *s)
{
  const fl_cloth_build *b = &w->cloth.build;
  const fl_gpu_body *rec = &b->bodies[body];
  float(*state)[4] = malloc((size_t)b->body_count * FL_BODY_STATE_VEC4S * 16);
  if (!state) return fl_error_set("out of host memory for body stats");
  if (!fl_cloth_read_body_state(&w->cloth, state)) {
    free(state);
    return false;
  }
  uint32_t first = rec->range[0];
  s->has_volume = true;
  /* the surface's enclosed volume, with indices local to the body's readback */
  uint32_t *local = malloc((size_t)rec->range[3] * 3 * sizeof *local);
  if (!local) {
    free(state);
    return fl_error_set("out of host memory for body stats");
  }
  for (uint32_t i = 0; i < rec->range[3] * 3; i++) local[i] = b->triangles[3 * (size_t)rec->range[2] + i] - first;
  double v = fl_mesh_volume(pos, local, rec->range[3]);
  free(local);
  s->volume = v;
  s->rest_volume = rec->volume[0];
  s->target_volume = (double)rec->volume[0] * rec->volume[1];
  s->worst_volume_loss = worst_volume_loss(state[body]);
  s->largest_volume_ratio = state[body][3];
  static const char *const modes[] = {"none", "global", "local"};
  s->volume_conservation = modes[(int)rec->conserve[0] % 3];
  free(state);
  s->has_tets = b->tet.count > 0;
  s->tet_ratio_min = INFINITY;
  s->tet_ratio_max = -INFINITY;
  for (uint32_t c = 0; c < b->tet.count; c++) {
    const fl_gpu_tet *t = &b->tets[c];
    if (t->idx[0] < first || t->idx[0] >= first + rec->range[1] || t->params[2] == (float)FL_TET_NH_DEVIATORIC) continue;
    double ratio = fl_tet_volume(pos[t->idx[0] - first], pos[t->idx[1] - first], pos[t->idx[2] - first],
                                 pos[t->idx[3] - first]) / t->params[0];
    s->tets++;
    s->inverted_tets += ratio <= 0;
    if (ratio < s->tet_ratio_min) s->tet_ratio_min = ratio;
    if (ratio > s->tet_ratio_max) s->tet_ratio_max = ratio;
  }
  s->has_tets = s->tets > 0;
  return true;
}

/* Mass-spring report fields: strain, integrator, resets, the last CG solve. */
static bool mass_spring_stats(fl_world *w, uint32_t ms_index, const float (*pos)[4], fl_object_stats *s)
{
  fl_ms_object *o = &w->ms[ms_index];
  uint32_t status[FL_MS_STATUS_WORDS];
  if (!fl_ms_gpu_read_status(&o->sim, status, &s->cg_iterations, &s->cg_relative_residual)) return false;
  s->has_strain = true;
  fl_ms_object_strain(o, pos, &s->max_strain, &s->mean_strain);
  s->integrator = fl_ms_method_name(o->sim.params.method);
  s->resets = status[FL_MS_STATUS_RESETS];
  return true;
}

/* Snow report fields: the object's J_P range, the system's grid totals, clamps and substeps. */
static bool snow_stats(fl_world *w, uint32_t material, fl_object_stats *s)
{
  float (*pos)[4], (*vel)[4];
  uint32_t n;
  if (!snow_read_object(w, material, &pos, &vel, &n, &s->jp_min, &s->jp_max, &s->snow_particle_mass)) return false;
  free(pos);
  free(vel);
  fl_snow_system *sn = &w->snow;
  if (!fl_snow_grid_totals(sn, &s->grid_mass, s->grid_momentum)) return false;
  s->has_snow = true;
  s->clamped = sn->last.clamped;
  s->substeps_last = sn->substeps_last;
  s->substeps_mean = fl_world_snow_substeps_per_frame(w);
  s->capped_frames = sn->capped_frames;
  s->transfer = sn->build.materials[material].plastic[3] == (float)FL_SNOW_TRANSFER_APIC ? "apic" : "pic_flip";
  s->atomics = sn->fixed_point ? "fixed" : "float";
  return true;
}

uint32_t fl_world_collect(fl_world *w, uint32_t slot)
{
  uint32_t resets = 0;
  if (w->snow.gpu) fl_snow_collect(&w->snow, slot);
  for (uint32_t i = 0; i < w->ms_count; i++)
    if (fl_ms_object_collect(&w->ms[i], slot)) {
      resets++;
      fl_warn("mass_spring \"%s\" (%s) diverged and was reset (%u resets)", w->ms[i].sim.name,
              fl_ms_method_name(w->ms[i].sim.params.method), (unsigned)w->ms[i].resets);
    }
  return resets;
}

bool fl_world_stats(fl_world *w, uint32_t index, fl_object_stats *s)
{
  float (*pos)[4], (*vel)[4];
  uint32_t n;
  if (!fl_world_read_state(w, index, &pos, &vel, &n)) return false;
  const fl_sim_desc *sim = &w->scene.sim;
  memset(s, 0, sizeof *s);
  const fl_scene_object *so = &w->scene.objects[w->objects[index].scene_index];
  snprintf(s->name, sizeof s->name, "%s", so->name);
  s->type = fl_object_type_name(so->type);
  /* Pinned cloth particles have w = 0 but still their share of the mass. */
  double fixed_mass = so->type == FL_OBJECT_CLOTH         ? so->cloth.mass / n
                      : so->type == FL_OBJECT_MASS_SPRING ? so->mass_spring.mass / n
                                                          : 0.0;
  if (so->type == FL_OBJECT_CLOTH && !cloth_stats(w, w->objects[index].index, s)) {
    free(pos);
    free(vel);
    return false;
  }
  bool is_body = so->type == FL_OBJECT_SOFTBODY || so->type == FL_OBJECT_BALLOON;
  if (is_body && !body_stats(w, w->objects[index].index, (const float(*)[4])pos, s)) {
    free(pos);
    free(vel);
    return false;
  }
  if (so->type == FL_OBJECT_SNOW && !snow_stats(w, w->objects[index].index, s)) {
    free(pos);
    free(vel);
    return false;
  }
  if (so->type == FL_OBJECT_MASS_SPRING && !mass_spring_stats(w, w->objects[index].index, (const float(*)[4])pos, s)) {
    free(pos);
    free(vel);
    return false;
  }
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
    double m = fixed_mass > 0 ? fixed_mass : pos[i][3] > 0 ? 1.0 / pos[i][3] : 0.0, v2 = 0;
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

bool fl_world_volume_losses(fl_world *w, double worst[3])
{
  worst[0] = worst[1] = worst[2] = -1;
  const fl_cloth_build *b = &w->cloth.build;
  if (!b->body_count) return true;
  float(*state)[4] = malloc((size_t)b->body_count * FL_BODY_STATE_VEC4S * 16);
  if (!state) return fl_error_set("out of host memory for body state");
  bool ok = fl_cloth_read_body_state(&w->cloth, state);
  for (uint32_t k = 0; ok && k < b->body_count; k++) {
    int mode = (int)b->bodies[k].conserve[0] % 3;
    double loss = worst_volume_loss(state[k]);
    if (loss > worst[mode]) worst[mode] = loss;
  }
  free(state);
  return ok;
}
