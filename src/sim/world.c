/* sim/world: the scene's simulated objects, its colliders, one frame's step (see world.h). */
#include "sim/world.h"

#include "core/log.h"
#include "sim/common/gpu_mesh.h"
#include "sim/coupling/coupling.h"
#include "sim/common/sdf_cpu.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The material table, in recording order. */
static const fl_material_ops *const MATERIALS[] = {&fl_material_particles, &fl_material_xpbd,
                                                   &fl_material_mass_spring, &fl_material_snow};
#define MATERIAL_COUNT (sizeof MATERIALS / sizeof MATERIALS[0])

/* A simulated object: its material instance, its index among that material's objects, its scene index. */
typedef struct {
  uint32_t material;
  uint32_t index;
  uint32_t scene_index;
} fl_world_object;

/* One material the scene uses. */
typedef struct {
  const fl_material_ops *ops;
  void *instance;
} fl_world_material_slot;

struct fl_world {
  fl_gpu *gpu;
  fl_scene scene;
  fl_descriptor_cache sets;                           /* every set the world's passes bind */
  fl_buffer colliders;                                /* the collider block (sim/common/sdf_cpu.h) */
  uint32_t collider_count;
  uint32_t collider_features;                         /* fl_collider_features of them (fl_gpu.collider_features) */
  fl_collider_block *colliders_cpu;                   /* its CPU copy (poses of the drawn shapes) */
  fl_gpu_mesh collider_meshes[FL_SCENE_MAX_OBJECTS]; /* zeroed for planes (not drawn) */
  fl_world_material_slot materials[MATERIAL_COUNT];  /* the ones the scene uses, in table order */
  uint32_t material_count;
  fl_world_object objects[FL_SCENE_MAX_OBJECTS];     /* simulated objects in scene order */
  uint32_t object_count;
  fl_picker picker;
  fl_coupling coupling;                               /* snow <-> XPBD (docs/COUPLING.md); zeroed: none */
  fl_health health;                                   /* one flag word per simulated object */
  uint64_t frames;                                    /* simulated frames recorded */
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
  case FL_SHAPE_MESH: ok = fl_obj_load_placed(d->path, d->scale, d->center, &mesh); break;
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
  ok = ok && fl_gpu_mesh_create(w->gpu, &mesh, name, &w->collider_meshes[c]);
  fl_cpu_mesh_free(&mesh);
  fl_rec r; /* static mesh: normals once, at load */
  if (!ok || !fl_rec_begin_once(w->gpu, &w->sets, &r)) return false;
  fl_mesh_normals_record(&r, &w->collider_meshes[c]);
  return fl_rec_end_once(&r);
}

static bool create_colliders(fl_world *w)
{
  const fl_scene *scene = &w->scene;
  fl_collider_desc descs[FL_MAX_COLLIDERS];
  const char *names[FL_MAX_COLLIDERS];
  for (uint32_t i = 0; i < scene->object_count; i++)
    if (scene->objects[i].type == FL_OBJECT_COLLIDER) {
      names[w->collider_count] = scene->objects[i].name;
      descs[w->collider_count++] = scene->objects[i].collider;
    }
  size_t bytes;
  bool ok = fl_collider_block_build(descs, names, w->collider_count, &w->colliders_cpu, &bytes);
  /* The kernels made from here on keep only the collider code these colliders need
   * (shaders/common/sdf.glsl): set before create_materials makes or records any. */
  if (ok) w->gpu->collider_features = w->collider_features =
              fl_collider_features(w->colliders_cpu->records, w->collider_count);
  for (uint32_t c = 0; c < w->collider_count && ok; c++) ok = build_collider_mesh(w, c, &descs[c]);
  /* The whole block (FL_MAX_COLLIDERS records, unused ones zero, then the tail). */
  return ok && fl_buffer_create(w->gpu, bytes, FL_MEMORY_DEVICE, "colliders", &w->colliders) &&
         fl_buffer_upload(w->gpu, &w->colliders, 0, w->colliders_cpu, bytes);
}

/* The row of the material table that simulates `type`, or -1. */
static int material_row(fl_object_type type)
{
  for (uint32_t m = 0; m < MATERIAL_COUNT; m++)
    if (MATERIALS[m]->owns(type)) return (int)m;
  return -1;
}

/* Maps every simulated object to its material (scene order), then creates
 * each material the scene uses with its objects. */
static bool create_materials(fl_world *w)
{
  const fl_scene *scene = &w->scene;
  uint32_t owned[MATERIAL_COUNT][FL_SCENE_MAX_OBJECTS], counts[MATERIAL_COUNT] = {0};
  for (uint32_t i = 0; i < scene->object_count; i++) {
    const fl_scene_object *o = &scene->objects[i];
    if (o->type == FL_OBJECT_COLLIDER) continue;
    int row = material_row(o->type);
    if (row < 0) return fl_error_set("object \"%s\": no material simulates type %s", o->name,
                                     fl_object_type_name(o->type));
    w->objects[w->object_count++] = (fl_world_object){(uint32_t)row, counts[row], i};
    owned[row][counts[row]++] = i;
  }
  fl_material_env env = {.gpu = w->gpu, .sets = &w->sets, .scene = &w->scene, .colliders = &w->colliders,
                         .colliders_cpu = w->colliders_cpu, .collider_count = w->collider_count, .health = &w->health};
  uint32_t slot_of_row[MATERIAL_COUNT];
  for (uint32_t m = 0; m < MATERIAL_COUNT; m++) {
    if (!counts[m]) continue;
    fl_world_material_slot *slot = &w->materials[w->material_count];
    env.health_word = w->health.word_count; /* the row's objects get consecutive flag words */
    for (uint32_t k = 0; k < counts[m]; k++) {
      uint32_t word;
      if (!fl_health_watch(&w->health, owned[m][k], &word)) return false;
    }
    if (!MATERIALS[m]->create(&env, owned[m], counts[m], &slot->instance)) return false;
    slot->ops = MATERIALS[m];
    slot_of_row[m] = w->material_count++;
  }
  for (uint32_t i = 0; i < w->object_count; i++) w->objects[i].material = slot_of_row[w->objects[i].material];
  return true;
}

bool fl_world_create(fl_gpu *gpu, const fl_scene *scene, fl_world **out)
{
  fl_world *w = calloc(1, sizeof *w);
  if (!w) return fl_error_set("out of host memory");
  w->gpu = gpu;
  w->scene = *scene;
  *out = NULL;
  bool ok = fl_descriptor_cache_create(gpu, "world", &w->sets) &&
            fl_health_create(gpu, scene->sim.max_speed, &w->health) && create_colliders(w) && create_materials(w) &&
            fl_picker_create(gpu, &w->picker) &&
            fl_coupling_create(gpu, &w->scene, fl_world_material(w, &fl_material_snow),
                               fl_world_material(w, &fl_material_xpbd), &w->coupling);
  /* Everything made of particles can be grabbed with the mouse. */
  for (uint32_t m = 0; m < w->material_count && ok; m++)
    if (w->materials[m].ops->pick_targets) ok = w->materials[m].ops->pick_targets(w->materials[m].instance, &w->picker);
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
  fl_coupling_destroy(&w->coupling); /* before the materials it hooks into */
  for (uint32_t m = w->material_count; m-- > 0;) w->materials[m].ops->destroy(w->materials[m].instance);
  fl_picker_destroy(&w->picker);
  fl_health_destroy(&w->health);
  for (uint32_t c = 0; c < FL_SCENE_MAX_OBJECTS; c++) fl_gpu_mesh_destroy(w->gpu, &w->collider_meshes[c]);
  fl_buffer_destroy(w->gpu, &w->colliders);
  free(w->colliders_cpu);
  fl_descriptor_cache_destroy(&w->sets);
  free(w);
}

fl_rec fl_world_rec(fl_world *w, VkCommandBuffer cmd, fl_profiler *prof, uint32_t slot)
{
  return (fl_rec){.gpu = w->gpu, .cmd = cmd, .sets = &w->sets, .prof = prof, .slot = slot, .queue = FL_QUEUE_COMPUTE};
}

bool fl_world_record_frame(fl_world *w, fl_rec *r, bool simulate)
{
  uint32_t substeps = simulate ? w->scene.sim.substeps : 0;
  w->gpu->collider_features = w->collider_features; /* its kernels' variant, should another world have changed it */
  fl_step frame = {.sim = &w->scene.sim, .colliders = &w->colliders, .collider_count = w->collider_count,
                   .dt = w->scene.sim.dt, .t0 = w->time, .substep_count = 1, .h = w->scene.sim.dt,
                   .inv_h = 1.0f / w->scene.sim.dt, .t = (float)(w->time + w->scene.sim.dt), .picker = &w->picker};
  fl_picker_record(&w->picker, r);
  if (simulate) fl_coupling_record_begin(&w->coupling, r, &frame);
  for (uint32_t s = 0; s < substeps; s++) {
    fl_step step = fl_step_sub(&frame, s, substeps);
    for (uint32_t m = 0; m < w->material_count; m++) /* coupled XPBD substeps run inside the snow's */
      if (w->materials[m].ops->record_substep && !fl_coupling_records_substeps(&w->coupling, w->materials[m].instance))
        w->materials[m].ops->record_substep(w->materials[m].instance, r, &step);
  }
  for (uint32_t m = 0; simulate && m < w->material_count; m++)
    if (w->materials[m].ops->record_frame) w->materials[m].ops->record_frame(w->materials[m].instance, r, &frame);
  if (simulate) {
    fl_coupling_record_end(&w->coupling, r);
    w->time += w->scene.sim.dt;
    w->frames++;
  }
  w->substeps += substeps;
  for (uint32_t m = 0; m < w->material_count; m++) w->materials[m].ops->record_publish(w->materials[m].instance, r);
  /* The health watch: every object's particles, one small pass each (32 bytes a particle). */
  fl_rec_begin(r, "health", fl_world_particle_count(w) * 32);
  for (uint32_t m = 0; m < w->material_count; m++)
    w->materials[m].ops->record_health(w->materials[m].instance, r, &w->health);
  fl_rec_end(r);
  fl_health_record_copy(&w->health, r, w->frames);
  w->slot_time[r->slot] = (float)w->time;
  return !r->failed;
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
    const fl_gpu_collider *col = &w->colliders_cpu->records[c];
    if (col->inside) { /* a container: its far walls, behind what it holds, a shade deeper than a solid */
      v->cutaway = true;
      v->color[0] = 0.45f, v->color[1] = 0.5f, v->color[2] = 0.62f;
    }
    /* The rest mesh moved rigidly: x -> R x + (pivot + d - R pivot). */
    float d[3], lin[3], ang[3], turned[3];
    fl_collider_pose_cpu(col, w->slot_time[slot], d, v->rotation, lin, ang);
    fl_quat_rotate_cpu(v->rotation, col->pivot, turned);
    for (int a = 0; a < 3; a++) v->offset[a] = col->pivot[a] + d[a] - turned[a];
  }
  for (uint32_t m = 0; m < w->material_count && n < max; m++)
    n += w->materials[m].ops->views(w->materials[m].instance, slot, out + n, max - n);
  return n;
}

float fl_world_ground_height(const fl_world *w)
{
  for (uint32_t c = 0; c < w->collider_count; c++) {
    const fl_gpu_collider *col = &w->colliders_cpu->records[c];
    if (col->shape == FL_SHAPE_PLANE && col->a[1] > 0.999f) return col->r;
  }
  return w->scene.sim.domain_min[1];
}

uint32_t fl_world_collect(fl_world *w, uint32_t slot)
{
  for (uint32_t m = 0; m < w->material_count; m++)
    if (w->materials[m].ops->collect) w->materials[m].ops->collect(w->materials[m].instance, slot);
  fl_coupling_collect(&w->coupling, slot);
  return fl_health_collect(&w->health, slot);
}

bool fl_world_unstable(const fl_world *w, char *message, size_t size)
{
  const fl_health *h = &w->health;
  uint32_t first = UINT32_MAX, count = 0;
  for (uint32_t k = 0; k < h->word_count; k++) {
    if (!h->bits[k]) continue;
    count++;
    if (first == UINT32_MAX || h->frame[k] < h->frame[first]) first = k;
  }
  if (!count) return false;
  const fl_scene_object *o = &w->scene.objects[h->object[first]];
  int n = snprintf(message, size, "object \"%s\" (%s) went unstable by frame %llu: %s", o->name,
                   fl_object_type_name(o->type), (unsigned long long)h->frame[first], fl_health_reason(h->bits[first]));
  if (count == 1 || n < 0 || (size_t)n >= size) return true;
  /* The others by name, in flag-word order (create_materials hands the words out by material, then in
   * scene order within one, not in scene order): up to 3, then how many more; fewer names when they
   * do not fit. */
  uint32_t others = count - 1;
  for (uint32_t shown = others < 3 ? others : 3;; shown--) {
    size_t at = (size_t)n + (size_t)snprintf(message + n, size - (size_t)n, " (and %u more object%s", others,
                                             others > 1 ? "s" : "");
    for (uint32_t k = 0, listed = 0; k < h->word_count && listed < shown && at < size; k++)
      if (h->bits[k] && k != first)
        at += (size_t)snprintf(message + at, size - at, "%s\"%s\"", listed++ ? ", " : ": ",
                               w->scene.objects[h->object[k]].name);
    if (at < size && shown > 0 && shown < others)
      at += (size_t)snprintf(message + at, size - at, " and %u more)", others - shown);
    else if (at < size) at += (size_t)snprintf(message + at, size - at, ")");
    if (at < size || shown == 0) return true;
  }
}

uint32_t fl_world_object_count(const fl_world *w) { return w->object_count; }

uint64_t fl_world_particle_count(const fl_world *w)
{
  uint64_t n = 0;
  for (uint32_t m = 0; m < w->material_count; m++) n += w->materials[m].ops->particle_count(w->materials[m].instance);
  return n;
}

uint64_t fl_world_substeps(const fl_world *w) { return w->substeps; }

uint64_t fl_world_largest_buffer(const fl_world *w)
{
  uint64_t largest = 0;
  for (uint32_t m = 0; m < w->material_count; m++) {
    uint64_t b = w->materials[m].ops->largest_buffer(w->materials[m].instance);
    if (b > largest) largest = b;
  }
  return largest;
}

const fl_scene *fl_world_scene(const fl_world *w) { return &w->scene; }

void *fl_world_material(const fl_world *w, const fl_material_ops *row)
{
  for (uint32_t m = 0; m < w->material_count; m++)
    if (w->materials[m].ops == row) return w->materials[m].instance;
  return NULL;
}

struct fl_coupling *fl_world_coupling(fl_world *w) { return &w->coupling; }

void fl_world_pick(fl_world *w, const float origin[3], const float direction[3], float radius)
{
  fl_picker_request(&w->picker, origin, direction, radius);
}

bool fl_world_wants_grow(const fl_world *w)
{
  const fl_snow_system *snow = fl_world_material(w, &fl_material_snow);
  return snow && fl_snow_wants_grow(snow);
}

bool fl_world_grow(fl_world *w)
{
  fl_snow_system *snow = fl_world_material(w, &fl_material_snow);
  if (!snow || !fl_snow_grow(snow) || !fl_coupling_fit_grid(&w->coupling)) return false;
  fl_descriptor_cache_reset(&w->sets); /* its sets may name the old grid's buffers */
  return true;
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

bool fl_world_read_state(fl_world *w, uint32_t index, float (**pos)[4], float (**vel)[4], uint32_t *count)
{
  if (index >= w->object_count) return fl_error_set("no object %u", index);
  const fl_world_object *o = &w->objects[index];
  const fl_world_material_slot *m = &w->materials[o->material];
  return m->ops->read_state(m->instance, o->index, pos, vel, count);
}

bool fl_world_stats(fl_world *w, uint32_t index, fl_object_stats *s)
{
  float (*pos)[4], (*vel)[4];
  uint32_t n;
  if (!fl_world_read_state(w, index, &pos, &vel, &n)) return false;
  const fl_sim_desc *sim = &w->scene.sim;
  memset(s, 0, sizeof *s);
  const fl_world_object *o = &w->objects[index];
  const fl_scene_object *so = &w->scene.objects[o->scene_index];
  snprintf(s->name, sizeof s->name, "%s", so->name);
  s->type = fl_object_type_name(so->type);
  for (uint32_t k = 0; k < w->health.word_count; k++)
    if (w->health.object[k] == o->scene_index) {
      s->unstable = w->health.bits[k];
      s->unstable_frame = w->health.frame[k];
    }
  const fl_world_material_slot *material = &w->materials[o->material];
  if (material->ops->stats && !material->ops->stats(material->instance, o->index, (const float(*)[4])pos, n, s)) {
    free(pos);
    free(vel);
    return false;
  }
  /* Pinned cloth particles have w = 0 but still their share of the mass. */
  double fixed_mass = s->particle_mass;
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

int fl_world_summaries(fl_world *w, const fl_profiler *prof, bool bench, fl_material_summary *out, uint32_t max)
{
  uint32_t n = 0;
  for (uint32_t m = 0; m < w->material_count && n < max; m++) {
    if (!w->materials[m].ops->summary) continue;
    memset(&out[n], 0, sizeof out[n]);
    if (!w->materials[m].ops->summary(w->materials[m].instance, prof, bench, &out[n])) return -1;
    n++;
  }
  if (w->coupling.gpu && n < max) {
    memset(&out[n], 0, sizeof out[n]);
    fl_coupling_summary(&w->coupling, &out[n++]);
  }
  return (int)n;
}
