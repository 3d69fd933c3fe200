/* sim/xpbd/xpbd: the XPBD system on the GPU: cloth, soft bodies and balloons
 * (see xpbd.h, xpbd_spec.h, softbody_spec.h). */
#include "sim/xpbd/xpbd.h"

#include "sim/xpbd/sweep_order.h"

#include "core/env.h"
#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../xpbd/buffers.glsl" /* found through the shaders/common include path */

/* What a kernel binds besides the system's own buffers: the family and the
 * CSR it reads (and the target of add_delta or skin). */
typedef struct {
  const fl_xpbd_family *family;
  const fl_buffer *first, *items; /* CSR: the family's, or the vertex-to-triangle one */
  const fl_buffer *target;        /* FL_XPBD_B_POS: positions, or velocities for add_delta, or a snapshot */
  const fl_buffer *delta;         /* FL_XPBD_B_DELTA: the Jacobi deltas, or the particle contacts' corrections */
  const fl_buffer *colliders;
  const fl_buffer *skin, *skinned; /* skin.comp: a soft body's records and its drawn vertices */
} bind_choice;

/* True when the system has cloth (objects before the bodies): its triangles meet
 * the colliders (xpbd/tri_collider), which needs the contact sums. */
static bool has_cloth(const fl_xpbd_system *s) { return s->build.object_count > s->build.body_count; }

/* The buffers by binding number (shaders/xpbd/buffers.glsl) for one choice. */
static void fill_table(const fl_xpbd_system *s, const bind_choice *c, const fl_buffer **t)
{
  bool hash = s->hash.max_particles > 0;
  t[FL_XPBD_B_POS] = c->target ? c->target : &s->pos;
  t[FL_XPBD_B_PREV] = &s->prev;
  t[FL_XPBD_B_VEL] = &s->vel;
  t[FL_XPBD_B_ACCEL] = &s->accel;
  t[FL_XPBD_B_DELTA] = c->delta ? c->delta : &s->delta;
  t[FL_XPBD_B_OBJECT] = &s->object_of;
  t[FL_XPBD_B_OBJECTS] = &s->objects;
  t[FL_XPBD_B_CONSTRAINTS] = c->family ? &c->family->constraints : NULL;
  t[FL_XPBD_B_LAMBDA] = c->family ? &c->family->lambda : NULL;
  t[FL_XPBD_B_COLOURS] = c->family ? &c->family->colours : NULL;
  t[FL_XPBD_B_DLAMBDA] = c->family ? &c->family->dlambda : NULL;
  t[FL_XPBD_B_FIRST] = c->first;
  t[FL_XPBD_B_ITEMS] = c->items;
  t[FL_XPBD_B_TRIANGLES] = &s->triangles;
  t[FL_XPBD_B_TRI_OBJECT] = &s->tri_object;
  t[FL_XPBD_B_FACE_FORCE] = &s->face_force;
  t[FL_XPBD_B_COLLIDERS] = c->colliders;
  t[FL_XPBD_B_COLLIDER_TAIL] = c->colliders; /* the same block: its tail as a storage buffer */
  t[FL_XPBD_B_SORTED] = hash ? fl_spatial_hash_sorted_index(&s->hash) : NULL;
  t[FL_XPBD_B_CELL_START] = hash ? fl_spatial_hash_cell_start(&s->hash) : NULL;
  t[FL_XPBD_B_CELL_END] = hash ? fl_spatial_hash_cell_end(&s->hash) : NULL;
  t[FL_XPBD_B_CONTACT] = &s->contact;
  t[FL_XPBD_B_BODIES] = &s->bodies;
  t[FL_XPBD_B_BODY_STATE] = &s->body_state;
  t[FL_XPBD_B_SCRATCH] = &s->scratch;
  t[FL_XPBD_B_SKIN] = c->skin;
  t[FL_XPBD_B_SKINNED] = c->skinned;
  bool tri = s->tri.any;
  t[FL_XPBD_B_TRI_SORTED] = tri ? fl_spatial_hash_sorted_index(&s->tri_hash) : NULL;
  t[FL_XPBD_B_TRI_START] = tri ? fl_spatial_hash_cell_start(&s->tri_hash) : NULL;
  t[FL_XPBD_B_TRI_END] = tri ? fl_spatial_hash_cell_end(&s->tri_hash) : NULL;
  t[FL_XPBD_B_TRI_BOX] = tri ? &s->tri_box : NULL;
  t[FL_XPBD_B_TRI_KEYS] = tri ? fl_spatial_hash_keys_in(&s->tri_hash) : NULL;
  t[FL_XPBD_B_TRI_VALUES] = tri ? fl_spatial_hash_values_in(&s->tri_hash) : NULL;
  t[FL_XPBD_B_EDGES] = tri ? &s->edges : NULL;
  t[FL_XPBD_B_TRI_OWNED] = tri ? &s->tri_owned : NULL;
  t[FL_XPBD_B_ACCUM] = tri || has_cloth(s) ? &s->accum : NULL;
  t[FL_XPBD_B_TRI_LIST] = tri ? &s->tri_list : NULL;
  t[FL_XPBD_B_OLDER] = &s->older;
  t[FL_XPBD_B_VEL_OLD] = &s->vel_old;
  t[FL_XPBD_B_OPPOSITE] = &s->opposite;
  t[FL_XPBD_B_TETHER] = &s->tethers;
  t[FL_XPBD_B_CONTACT_CORRECTIONS] = &s->contact_corrections;
  t[FL_XPBD_B_SELF_SORTED] = &s->self_sorted;
  t[FL_XPBD_B_LOAD] = &s->load;
}

/* One dispatch of `kernel` over `threads` with the push's range set to (first, count), then a barrier. */
static void pass(const fl_xpbd_system *s, fl_rec *r, const char *kernel, const bind_choice *c, fl_xpbd_push push,
                 uint32_t first, uint32_t count, uint32_t threads)
{
  const fl_buffer *table[FL_XPBD_B_COUNT];
  fill_table(s, c, table);
  push.first = first;
  push.count = count;
  fl_rec_pass(r, &(fl_pass){.kernel = kernel, FL_PUSH(push), .threads = threads, .table = table,
                            .table_count = FL_XPBD_B_COUNT});
}

static bool device_buffer(fl_gpu *gpu, const void *data, size_t bytes, const char *what, fl_buffer *out)
{
  char name[96];
  snprintf(name, sizeof name, "cloth %s", what);
  return fl_buffer_create_with(gpu, data, bytes, name, out); /* an empty family (bending "none") still binds */
}

/* A family's buffers, with room for `capacity` records (a tearing cloth adds distance constraints)
 * and `multipliers` lambdas per record (2 for tets: a Neo-Hookean tet's two constraints). */
static bool family_create(fl_xpbd_system *s, const fl_constraint_family *f, const void *constraints,
                          size_t record_size, uint32_t arity, uint32_t capacity, uint32_t multipliers,
                          const char *what, fl_xpbd_family *out)
{
  uint32_t n = s->build.particle_count;
  char name[64];
  snprintf(name, sizeof name, "%s constraints", what);
  if (!device_buffer(s->gpu, NULL, (uint64_t)capacity * record_size, name, &out->constraints)) return false;
  snprintf(name, sizeof name, "%s lambda", what);
  if (!device_buffer(s->gpu, NULL, (uint64_t)capacity * multipliers * sizeof(float), name, &out->lambda)) return false;
  snprintf(name, sizeof name, "%s dlambda", what);
  if (!device_buffer(s->gpu, NULL, (uint64_t)capacity * multipliers * sizeof(float), name, &out->dlambda))
    return false;
  snprintf(name, sizeof name, "%s csr first", what);
  if (!device_buffer(s->gpu, f->particle_first, (n + 1) * sizeof(uint32_t), name, &out->first)) return false;
  snprintf(name, sizeof name, "%s csr items", what);
  if (!device_buffer(s->gpu, NULL, (uint64_t)capacity * arity * sizeof(uint32_t), name, &out->items)) return false;
  snprintf(name, sizeof name, "%s colour offsets", what);
  if (!device_buffer(s->gpu, NULL, (FL_XPBD_MAX_COLOURS + 1) * sizeof(uint32_t), name, &out->colours)) return false;
  uint32_t items = f->particle_first[n];
  return (!f->count || fl_buffer_upload(s->gpu, &out->constraints, 0, constraints, f->count * record_size)) &&
         (!f->count || fl_buffer_upload(s->gpu, &out->colours, 0, f->color_offsets,
                                        (f->color_count + 1) * sizeof(uint32_t))) &&
         (!items || fl_buffer_upload(s->gpu, &out->items, 0, f->particle_items, items * sizeof(uint32_t)));
}

static void family_destroy(fl_gpu *gpu, fl_xpbd_family *f)
{
  fl_buffer *b[] = {&f->constraints, &f->lambda, &f->dlambda, &f->first, &f->items, &f->colours};
  for (size_t i = 0; i < sizeof b / sizeof *b; i++) fl_buffer_destroy(gpu, b[i]);
  memset(f, 0, sizeof *f);
}

/* Every body's state: volume, lambda, the smallest and largest ratio seen. */
static bool create_body_state(fl_xpbd_system *s)
{
  uint32_t count = s->build.body_count;
  float(*state)[4] = calloc(count ? count : 1, FL_BODY_STATE_VEC4S * sizeof *state);
  if (!state) return fl_error_set("out of host memory for %u bodies", (unsigned)count);
  for (uint32_t b = 0; b < count; b++) {
    state[b][0] = s->build.bodies[b].rest_volume;
    state[b][2] = 1e30f;
  }
  bool ok = device_buffer(s->gpu, count ? state : NULL, count * FL_BODY_STATE_VEC4S * 16, "body state", &s->body_state);
  free(state);
  return ok;
}

static bool create_buffers(fl_xpbd_system *s)
{
  const fl_xpbd_build *b = &s->build;
  size_t n = b->particle_count, t = b->triangle_count;
  fl_cpu_mesh mesh = {.positions = b->positions, .indices = b->triangles, .vertex_count = b->particle_count,
                      .triangle_count = b->triangle_count};
  uint32_t *tri_first = NULL, *tri_items = NULL;
  if (!fl_mesh_vertex_faces(&mesh, &tri_first, &tri_items)) return false;
  bool ok = device_buffer(s->gpu, b->positions, n * 16, "positions", &s->pos) &&
            device_buffer(s->gpu, b->positions, n * 16, "previous positions", &s->prev) &&
            device_buffer(s->gpu, b->velocities, n * 16, "velocities", &s->vel) &&
            device_buffer(s->gpu, b->positions, n * 16, "BDF2 older positions", &s->older) &&
            device_buffer(s->gpu, b->velocities, n * 16, "BDF2 older velocities", &s->vel_old) &&
            device_buffer(s->gpu, NULL, n * 4, "contact flags", &s->contact) &&
            device_buffer(s->gpu, b->bodies, b->body_count * sizeof(fl_gpu_body), "bodies", &s->bodies) &&
            create_body_state(s) &&
            device_buffer(s->gpu, NULL, b->body_count ? n * 16 : 0, "body gradients", &s->scratch) &&
            device_buffer(s->gpu, NULL, b->body_count ? n * 16 : 0, "body contact loads", &s->load) &&
            device_buffer(s->gpu, NULL, s->any_self_collision ? n * 16 : 0, "particle contact corrections",
                          &s->contact_corrections) &&
            device_buffer(s->gpu, NULL, s->any_self_collision ? n * 16 : 0, "particle contact positions",
                          &s->self_sorted) &&
            device_buffer(s->gpu, b->opposite, n * 4, "opposite particles", &s->opposite) &&
            device_buffer(s->gpu, b->any_tether ? b->tethers : NULL, b->any_tether ? n * sizeof(fl_gpu_tether) : 0,
                          "tethers", &s->tethers) &&
            device_buffer(s->gpu, NULL, n * 16, "wind acceleration", &s->accel) &&
            device_buffer(s->gpu, NULL, n * 16, "jacobi deltas", &s->delta) &&
            device_buffer(s->gpu, b->particle_object, n * 4, "particle objects", &s->object_of) &&
            device_buffer(s->gpu, b->objects, b->object_count * sizeof(fl_gpu_xpbd_object), "objects", &s->objects) &&
            device_buffer(s->gpu, b->triangles, t * 12, "triangles", &s->triangles) &&
            device_buffer(s->gpu, b->triangle_object, t * 4, "triangle objects", &s->tri_object) &&
            device_buffer(s->gpu, NULL, t * 16, "face forces", &s->face_force) &&
            device_buffer(s->gpu, NULL, t * 16, "face normals", &s->face_normals) &&
            device_buffer(s->gpu, tri_first, (n + 1) * 4, "vertex triangles first", &s->tri_first) &&
            device_buffer(s->gpu, tri_items, t * 12, "vertex triangles", &s->tri_items);
  free(tri_first);
  free(tri_items);
  ok = ok &&
       family_create(s, &b->distance, b->distances, sizeof(fl_gpu_distance), 2, b->distance_capacity, 1, "distance",
                     &s->distance) &&
       family_create(s, &b->bend, b->bends, sizeof(fl_gpu_bend), 4, b->bend.count, 1, "bend", &s->bend) &&
       family_create(s, &b->tet, b->tets, sizeof(fl_gpu_tet), 4, b->tet.count, 2, "tet", &s->tet) &&
       family_create(s, &b->area, b->areas, sizeof(fl_gpu_area), 3, b->area.count, 1, "area", &s->area);
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT && ok; slot++) {
    ok = device_buffer(s->gpu, b->positions, n * 16, "snapshot", &s->snapshot[slot]) &&
         device_buffer(s->gpu, NULL, n * 16, "normals", &s->normals[slot]);
  }
  if (ok && s->any_self_collision) ok = fl_spatial_hash_create(s->gpu, s->build.particle_count, &s->hash);
  ok = ok && fl_tri_contacts_create(b, &s->tri) && fl_hierarchy_gpu_create(s->gpu, &b->hier, b->particle_count, &s->hier);
  if (ok && (s->tri.any || has_cloth(s))) ok = device_buffer(s->gpu, NULL, n * 16, "contact sums", &s->accum);
  if (ok && s->tri.any)
    ok = device_buffer(s->gpu, NULL, t * 32, "triangle boxes", &s->tri_box) &&
         device_buffer(s->gpu, s->tri.edges, (size_t)s->tri.edge_capacity * 8, "contact edges", &s->edges) &&
         device_buffer(s->gpu, s->tri.owned, t * 4, "triangle edge owners", &s->tri_owned) &&
         device_buffer(s->gpu, NULL, FL_TRI_LIST_HEAD * 4 + ((size_t)n + s->tri.edge_capacity) * s->tri.pairs_per * 8,
                       "contact pairs", &s->tri_list) &&
         fl_spatial_hash_create(s->gpu, 8 * b->triangle_count, &s->tri_hash);
  if (ok && s->tri.guard > 0 && n) /* +inf bits: no listed pair yet (xpbd/tri_guard_clamp resets them so) */
    ok = fl_buffer_create(s->gpu, n * 4, FL_MEMORY_DEVICE, "cloth contact guard bounds", &s->guard) &&
         fl_buffer_fill(s->gpu, &s->guard, 0x7F800000u);
  return ok;
}

/* True when some body has a constraint the SOLVE pass applies (overpressure or conservation). */
static bool any_body_solve(const fl_xpbd_build *b)
{
  for (uint32_t k = 0; k < b->body_count; k++)
    if (b->bodies[k].overpressure != 0 || b->bodies[k].conservation != FL_CONSERVE_NONE) return true;
  return false;
}

/* True when some body has Diziol's velocity correction on (with conservation: the scene refuses it without). */
static bool any_body_velocity(const fl_xpbd_build *b)
{
  for (uint32_t k = 0; k < b->body_count; k++)
    if (b->bodies[k].velocity_correction != 0 && b->bodies[k].conservation != FL_CONSERVE_NONE) return true;
  return false;
}

/* Every family's constraint buffer must fit the device's storage-buffer range. */
static bool check_buffer_sizes(const fl_gpu *gpu, const fl_xpbd_build *b)
{
  struct {
    const char *what;
    uint64_t bytes;
  } sizes[] = {{"distance", (uint64_t)b->distance_capacity * sizeof(fl_gpu_distance)},
               {"bend", (uint64_t)b->bend.count * sizeof(fl_gpu_bend)},
               {"tet", (uint64_t)b->tet.count * sizeof(fl_gpu_tet)},
               {"area", (uint64_t)b->area.count * sizeof(fl_gpu_area)},
               {"particle", (uint64_t)b->particle_count * 16}};
  for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++)
    if (sizes[i].bytes > gpu->props.limits.maxStorageBufferRange)
      return fl_error_set("XPBD objects: the %s buffer needs %.0f MiB, more than this device's maxStorageBufferRange "
                          "of %.0f MiB; use a lower resolution",
                          sizes[i].what, sizes[i].bytes / 1048576.0,
                          gpu->props.limits.maxStorageBufferRange / 1048576.0);
  return true;
}

/* Uploads each soft body's skinning records and makes its per-slot drawn meshes. */
static bool create_skins(fl_xpbd_system *s, const fl_body_build *bodies, uint32_t body_count)
{
  for (uint32_t k = 0; k < body_count; k++) {
    const fl_body_build *body = &bodies[k];
    if (!body->render.vertex_count) continue;
    fl_xpbd_skin *sk = &s->skins[s->skin_count++];
    sk->object = s->build.cloth_count + k;
    uint32_t first = s->build.objects[sk->object].first, n = body->render.vertex_count;
    fl_gpu_skin *records = malloc((size_t)n * sizeof *records);
    if (!records) return fl_error_set("out of host memory for %u skinned vertices", (unsigned)n);
    for (uint32_t v = 0; v < n; v++) {
      records[v] = body->skin[v];
      for (int q = 0; q < 4; q++) records[v].idx[q] += first;
    }
    bool ok = device_buffer(s->gpu, records, (size_t)n * sizeof *records, "skin", &sk->skin);
    free(records);
    for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT && ok; slot++)
      ok = fl_gpu_mesh_create(s->gpu, &body->render, "soft body surface", &sk->mesh[slot]);
    if (!ok) return false;
  }
  return true;
}

/* The one-workgroup sweep (xpbd/gs_sweep.glsl) takes a family of at most this
 * many constraints on a CPU driver, where a dispatch and its barrier cost more
 * than the family's work (docs/PERFORMANCE.md, "One workgroup per sweep"). */
#define GS_SWEEP_MAX 8192

/* The body pass's workgroup on a CPU driver: its sums are tree reductions with
 * a barrier a level, and lavapipe switches between a workgroup's 8-lane groups
 * at each barrier, so 64 invocations cost less than 256 there (docs/PERFORMANCE.md,
 * "One workgroup per sweep"). GPUs keep FL_BODY_WORKGROUP. */
#define BODY_WORKGROUP_CPU 64

/* The largest family whose Gauss-Seidel sweep runs in one workgroup: FLURRY_XPBD_SWEEP, or the device's type. */
static uint32_t choose_sweep_max(const fl_gpu *gpu)
{
  switch (fl_env_get()->xpbd_sweep) { /* checked at start with the other FLURRY_* variables */
  case 1: return 0;
  case 2: return UINT32_MAX;
  default: return gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? GS_SWEEP_MAX : 0;
  }
}

/* Names the families that sweep in one workgroup (the profile reads differently). */
static void log_sweeps(const fl_xpbd_system *s)
{
  const fl_xpbd_build *b = &s->build;
  const fl_constraint_family *f[] = {&b->distance, &b->bend, &b->tet, &b->area};
  static const char *names[] = {"distance", "bend", "tet", "area"};
  char list[64] = "";
  for (size_t i = 0; i < 4; i++)
    if (f[i]->count && f[i]->count <= s->sweep_max)
      snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", list[0] ? ", " : "", names[i]);
  if (!list[0]) return;
  if (s->sweep_max == UINT32_MAX)
    fl_log(FL_LOG_INFO, "xpbd: one workgroup per Gauss-Seidel sweep of %s (FLURRY_XPBD_SWEEP=workgroup)", list);
  else
    fl_log(FL_LOG_INFO, "xpbd: one workgroup per Gauss-Seidel sweep of %s (a CPU driver, families of at most %u "
                        "constraints; FLURRY_XPBD_SWEEP=colours: a dispatch per colour)", list, (unsigned)s->sweep_max);
}

bool fl_xpbd_create(fl_gpu *gpu, const fl_cloth_desc *descs, const char (*names)[FL_SCENE_NAME_MAX],
                            uint32_t count, const fl_body_build *bodies, uint32_t body_count, fl_xpbd_system *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  /* Check the largest cloth buffers against the device before building anything on
   * the CPU: per particle at most 4 distance and 3 bend constraints (interior
   * edges), so a cloth too big for maxStorageBufferRange fails at once. */
  uint64_t particles = 0;
  for (uint32_t o = 0; o < count; o++) particles += (uint64_t)descs[o].resolution[0] * descs[o].resolution[1];
  uint64_t largest = particles * 3 * sizeof(fl_gpu_bend);
  if (particles * 4 * sizeof(fl_gpu_distance) > largest) largest = particles * 4 * sizeof(fl_gpu_distance);
  if (largest > gpu->props.limits.maxStorageBufferRange)
    return fl_error_set("cloth: %llu particles need constraint buffers of about %.0f MiB, more than this device's "
                        "maxStorageBufferRange of %.0f MiB; use a lower resolution",
                        (unsigned long long)particles, largest / 1048576.0,
                        gpu->props.limits.maxStorageBufferRange / 1048576.0);
  if (!fl_xpbd_build_create(descs, names, count, bodies, body_count, &out->build)) return false;
  if (!check_buffer_sizes(gpu, &out->build)) {
    fl_xpbd_build_destroy(&out->build);
    return false;
  }
  for (uint32_t o = 0; o < count; o++) {
    out->any_wind |= descs[o].drag > 0 || descs[o].lift > 0;
    out->any_edge_damping |= descs[o].damping_model == FL_DAMPING_EDGE && descs[o].damping > 0;
    out->any_global_damping |= descs[o].damping_model == FL_DAMPING_GLOBAL && descs[o].damping > 0;
    if (descs[o].self_collision) {
      out->any_self_collision = true;
      if (descs[o].thickness > out->self_cell_size) out->self_cell_size = descs[o].thickness;
    }
  }
  for (uint32_t k = 0; k < body_count; k++) { /* bodies collide with everything */
    out->any_self_collision = true;
    float thickness = out->build.objects[count + k].thickness;
    if (thickness > out->self_cell_size) out->self_cell_size = thickness;
  }
  /* Each object's triangles are contiguous (xpbd_build.c builds object by object). */
  for (uint32_t t = 0; t < out->build.triangle_count; t++) {
    uint32_t o = out->build.triangle_object[t];
    if (!out->object_triangles[o]) out->object_first_triangle[o] = t;
    out->object_triangles[o]++;
  }
  out->any_body_solve = any_body_solve(&out->build);
  for (uint32_t t = 0; t < out->build.tet.count; t++) out->neohookean_tets += out->build.tets[t].model == FL_TET_NEOHOOKEAN;
  out->any_body_velocity = any_body_velocity(&out->build);
  bool ok = create_buffers(out) && create_skins(out, bodies, body_count) && fl_tear_create(gpu, &out->build, &out->tear);
  out->sweep_max = choose_sweep_max(gpu);
  out->body_workgroup = gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU ? BODY_WORKGROUP_CPU : FL_BODY_WORKGROUP;
  if (ok) log_sweeps(out);
  if (!ok) fl_xpbd_destroy(out);
  return ok;
}

bool fl_xpbd_read_body_state(fl_xpbd_system *s, float (*state)[4])
{
  if (!s->build.body_count) return true;
  return fl_buffer_readback(s->gpu, &s->body_state, 0, state,
                            (VkDeviceSize)s->build.body_count * FL_BODY_STATE_VEC4S * 16);
}

void fl_xpbd_destroy(fl_xpbd_system *s)
{
  if (!s->gpu) return;
  fl_gpu *gpu = s->gpu;
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) {
    fl_buffer_destroy(gpu, &s->snapshot[slot]);
    fl_buffer_destroy(gpu, &s->normals[slot]);
  }
  for (uint32_t k = 0; k < s->skin_count; k++) {
    fl_xpbd_skin *sk = &s->skins[k];
    for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) fl_gpu_mesh_destroy(gpu, &sk->mesh[slot]);
    fl_buffer_destroy(gpu, &sk->skin);
  }
  fl_tear_destroy(&s->tear);
  fl_hierarchy_gpu_destroy(gpu, &s->hier);
  family_destroy(gpu, &s->distance);
  family_destroy(gpu, &s->bend);
  family_destroy(gpu, &s->tet);
  family_destroy(gpu, &s->area);
  fl_spatial_hash_destroy(gpu, &s->hash);
  fl_spatial_hash_destroy(gpu, &s->tri_hash);
  fl_tri_contacts_destroy(&s->tri);
  fl_buffer *buffers[] = {&s->pos,          &s->prev,      &s->vel,        &s->accel,     &s->delta,
                          &s->object_of,    &s->objects,   &s->triangles,  &s->tri_object, &s->face_force,
                          &s->tri_first,    &s->tri_items, &s->face_normals, &s->contact, &s->bodies,
                          &s->body_state,   &s->scratch,   &s->tri_box,    &s->edges,     &s->tri_owned,
                          &s->accum,        &s->older,     &s->vel_old,    &s->opposite, &s->contact_corrections,
                          &s->tri_list, &s->load,         &s->guard,     &s->self_sorted, &s->tethers};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  fl_xpbd_build_destroy(&s->build);
  memset(s, 0, sizeof *s);
}

void fl_xpbd_push_fill(const fl_xpbd_system *s, const fl_step *step, fl_xpbd_push *out)
{
  const fl_sim_desc *sim = step->sim;
  *out = (fl_xpbd_push){.h = step->h, .time = step->t, .omega = sim->relaxation,
                         .collider_count = step->collider_count, .particle_count = s->build.particle_count,
                         .tetrahedral_normals = sim->collider_normals == FL_NORMALS_TETRAHEDRAL,
                         .tethers = s->build.any_tether ? 1u : 0u};
  memcpy(out->gravity, sim->gravity, sizeof out->gravity);
  memcpy(out->domain_min, sim->domain_min, sizeof out->domain_min);
  memcpy(out->domain_max, sim->domain_max, sizeof out->domain_max);
  if (s->any_self_collision) {
    out->inv_hash_cell = 1.0f / s->self_cell_size;
    out->hash_table_size = fl_spatial_hash_table_size(&s->hash);
  }
  out->triangle_count = s->build.triangle_count;
  /* BDF2 solves for x^(n+1) = x~ + 4/9 h^2 M^-1 f: the compliance's step is 2 h / 3. */
  bool bdf2 = sim->integrator == FL_INTEGRATOR_BDF2;
  out->integrator = !bdf2 ? FL_XPBD_EULER : s->bdf2_history ? FL_XPBD_BDF2 : FL_XPBD_BDF2_START;
  out->solve_h = out->integrator == FL_XPBD_BDF2 ? 2.0f * step->h / 3.0f : step->h;
  if (s->tri.any) {
    out->inv_tri_cell = 1.0f / s->tri.cell_size;
    out->tri_table_size = fl_spatial_hash_table_size(&s->tri_hash) / 2; /* the last entry: unused slots */
    out->tri_margin = s->tri.margin;
    out->edge_count = s->tri.edge_count;
    out->tri_pairs_per = s->tri.pairs_per;
    out->tri_guard = s->tri.guard;
  }
}

/* Bytes of the triangle-contact passes (docs/CLOTH.md), with `cand` the
 * candidates of a query (the triangles entered in a cell, about 40 for a
 * sheet and another in the cell), `box` those whose boxes meet the query's
 * (about 6 a particle: a sheet's own neighbours and the other sheet's under
 * it; about 5 owned edges an edge) and `near` the pairs within reach that it
 * keeps (a guess, as the count is known on the GPU only: 2 a particle resting
 * on another sheet, 1 an edge). Keys read an owner word, three indices, three
 * positions, the object and its thickness and body flag, and write 8 keys,
 * 8 values and the 32-byte box. The pair pass (tri_pairs: its vertex and its
 * edge dispatch, bytes[1] and bytes[6], the second with tri_pair_args) reads
 * per query (particle or edge) its index or indices, one or two
 * positions, object index and record, per candidate its sorted entry and box,
 * per box that meets three indices and (vertex) three or (edge, per owned
 * edge) two positions, and writes the 8-byte pair. A contact pass
 * reads per pair the pair, its indices (vertex: three of the triangle; edge:
 * the edge's two and two of the triangle), four positions, two object indices
 * and the two objects' thickness and frictions (the prevs of a pair in
 * contact and the atomics are not counted); a body's particle in a pair
 * (against a cloth triangle) also reads its vertex normal: its two CSR words
 * and, per triangle around it, the item, three indices and three positions (64
 * bytes; the triangles around all body particles are 3 x the bodies'
 * triangles). Apply reads and clears the sums
 * and moves the positions; tri_apply_colliders (bytes[9], the last
 * triangle-contact pass) also reads every particle's position, object index
 * and record, previous position and (bodies) contact load, and writes its
 * contact flag. The collider pass reads per triangle its object
 * index and record, three indices and three positions (the colliders are a
 * uniform; a contact's previous positions and atomics are rare). The contact
 * guard's bound pass (bytes[7]) reads per listed pair (the same guess) the
 * pair, its indices (vertex: three; edge: two and two), four previous
 * positions and four positions, and makes up to four atomics (4 bytes each); its clamp (bytes[8]) reads
 * per particle its bound (and writes it back), object index, object, CSR
 * words, position and previous position, and writes the position. */
static void tri_contact_bytes(const fl_xpbd_system *s, uint64_t bytes[10])
{
  const uint64_t cand = 40, box = 6, box_e = 5, near = 2, near_e = 1, obj = sizeof(fl_gpu_xpbd_object);
  const uint64_t t = s->build.triangle_count, n = s->build.particle_count, e = s->tri.edge_count;
  uint64_t body_n = 0, body_t = 0; /* the bodies' particles and surface triangles */
  for (uint32_t o = 0; o < s->build.object_count; o++)
    if (s->build.objects[o].body) body_n += s->build.objects[o].count, body_t += s->object_triangles[o];
  bytes[0] = t * (4 + 12 + 48 + 4 + 8 + 32 + 32 + 32);
  bytes[1] = n * (16 + 4 + obj) + n * cand * (4 + 32) + n * box * (12 + 48) + n * near * 8;
  bytes[6] = e * (8 + 32 + 4 + obj) + e * cand * (4 + 32) + e * box_e * (12 + 32) + e * near_e * 8;
  bytes[2] = n * near * (8 + 12 + 64 + 8 + 24) + near * (body_n * 8 + 3 * body_t * (4 + 12 + 48));
  bytes[3] = e * near_e * (8 + 8 + 8 + 64 + 8 + 24);
  bytes[4] = n * (16 + 16 + 16);
  bytes[5] = t * (4 + obj + 12 + 48);
  bytes[7] = n * near * (8 + 12 + 128 + 16) + e * near_e * (8 + 16 + 128 + 16);
  bytes[8] = n * (8 + 4 + obj + 8 + 16 + 16 + 16);
  bytes[9] = bytes[4] + n * (4 + obj + 16 + 4) + body_n * 16;
}

/* One dispatch of a contact kernel over the pair list, its groups from the
 * list's head word `args` (xpbd/tri_pair_args), then a barrier. */
static void pass_over_pairs(const fl_xpbd_system *s, fl_rec *r, const char *kernel, const fl_xpbd_push *push,
                            uint32_t args)
{
  const fl_buffer *table[FL_XPBD_B_COUNT]; /* tri_vertex reads the vertex-to-triangle CSR (a body vertex's normal) */
  fill_table(s, &(bind_choice){.first = &s->tri_first, .items = &s->tri_items}, table);
  fl_rec_pass(r, &(fl_pass){.kernel = kernel, FL_PUSH(*push), .indirect = &s->tri_list,
                            .indirect_offset = 4ull * args, .table = table, .table_count = FL_XPBD_B_COUNT});
}

/* xpbd/tri_collider over every triangle (docs/CLOTH.md, "Colliders against triangles"). */
static void record_collider_triangles(const fl_xpbd_system *s, fl_rec *r, const fl_xpbd_push *push,
                                      const bind_choice *with_colliders, uint64_t bytes)
{
  uint32_t t = s->build.triangle_count;
  fl_rec_begin(r, "xpbd/tri_collider", bytes);
  pass(s, r, "xpbd/tri_collider", with_colliders, *push, 0, t, t);
  fl_rec_end(r);
}

/* The contact guard (docs/CLOTH.md "The contact guard"): the bounds from the
 * substep's pair list (its vertex pairs, then its edge pairs), then the clamp
 * of every particle's move to its bound, before the velocity update. */
static void record_contact_guard(fl_xpbd_system *s, fl_rec *r, const fl_xpbd_push *push, const uint64_t bytes[2])
{
  uint32_t n = s->build.particle_count;
  bind_choice bound = {.first = &s->tri_first, .items = &s->tri_items, .delta = &s->guard};
  const fl_buffer *table[FL_XPBD_B_COUNT];
  fill_table(s, &bound, table);
  fl_rec_begin(r, "xpbd/tri_guard_bound", bytes[0]);
  for (uint32_t kind = 0; kind < 2; kind++) { /* 0: vertex-triangle pairs, 1: edge-edge pairs */
    fl_xpbd_push p = *push;
    p.first = kind;
    fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/tri_guard_bound", FL_PUSH(p), .indirect = &s->tri_list,
                              .indirect_offset = 4ull * (kind ? FL_TRI_LIST_EDGE_ARGS : FL_TRI_LIST_VERTEX_ARGS),
                              .table = table, .table_count = FL_XPBD_B_COUNT});
  }
  fl_rec_end(r);
  fl_rec_begin(r, "xpbd/tri_guard_clamp", bytes[1]);
  pass(s, r, "xpbd/tri_guard_clamp", &bound, *push, 0, n, n);
  fl_rec_end(r);
}

/* Triangle contacts of one substep: the keys, the hash build, the candidate
 * pairs, then the contact passes over them, the last applied with the
 * colliders' priority (docs/CLOTH.md: tri_apply_colliders projects every particle
 * out of the colliders and walls, so a sheet pressed onto one by another is
 * held out of it). */
static void record_triangle_contacts(fl_xpbd_system *s, fl_rec *r, const fl_xpbd_push *push,
                                     const bind_choice *with_colliders, bool collider_triangles)
{
  const fl_xpbd_build *b = &s->build;
  uint32_t n = b->particle_count, t = b->triangle_count, e = s->tri.edge_count;
  uint64_t bytes[10];
  tri_contact_bytes(s, bytes);
  bind_choice plain = {0};
  bool guard = s->tri.guard > 0;
  bind_choice listed = {.target = guard ? &s->prev : NULL}; /* the guard lists the pairs at the substep's start */
  fl_rec_begin(r, "xpbd/tri_keys", bytes[0]);
  pass(s, r, "xpbd/tri_keys", &listed, *push, 0, t, t);
  fl_rec_end(r);
  fl_spatial_hash_record_from_keys(&s->tri_hash, r, 8 * t);
  fl_rec_barrier(r);
  fl_rec_begin(r, "xpbd/tri_pairs_vertex", bytes[1]);
  pass(s, r, "xpbd/tri_pairs", &listed, *push, 0, n, n);
  fl_rec_end(r);
  fl_rec_begin(r, "xpbd/tri_pairs_edge", bytes[6]);
  pass(s, r, "xpbd/tri_pairs", &listed, *push, n, e, e);
  pass(s, r, "xpbd/tri_pair_args", &plain, *push, 0, 1, 1);
  fl_rec_end(r);
  for (uint32_t k = 0; k < FL_TRI_CONTACT_PASSES; k++) {
    fl_rec_begin(r, "xpbd/tri_vertex", bytes[2]);
    pass_over_pairs(s, r, "xpbd/tri_vertex", push, FL_TRI_LIST_VERTEX_ARGS);
    fl_rec_end(r);
    fl_rec_begin(r, "xpbd/tri_edge", bytes[3]);
    pass_over_pairs(s, r, "xpbd/tri_edge", push, FL_TRI_LIST_EDGE_ARGS);
    fl_rec_end(r);
    if (collider_triangles) record_collider_triangles(s, r, push, with_colliders, bytes[5]);
    bool last = k + 1 == FL_TRI_CONTACT_PASSES; /* only the last apply reads the colliders */
    const char *apply = last ? "xpbd/tri_apply_colliders" : "xpbd/tri_apply";
    fl_rec_begin(r, apply, last ? bytes[9] : bytes[4]);
    pass(s, r, apply, last ? with_colliders : &plain, *push, 0, n, n);
    fl_rec_end(r);
  }
  if (guard) record_contact_guard(s, r, push, bytes + 7);
}

/* Cloth without triangle contacts: the colliders against its triangles once a
 * substep, after the particle contacts, then their sums applied. */
static void record_cloth_colliders(fl_xpbd_system *s, fl_rec *r, const fl_xpbd_push *push,
                                   const bind_choice *with_colliders)
{
  uint32_t n = s->build.particle_count;
  uint64_t bytes[10];
  tri_contact_bytes(s, bytes);
  record_collider_triangles(s, r, push, with_colliders, bytes[5]);
  fl_rec_begin(r, "xpbd/tri_apply", bytes[4]);
  pass(s, r, "xpbd/tri_apply", &(bind_choice){0}, *push, 0, n, n);
  fl_rec_end(r);
}

/* Bytes a family's Gauss-Seidel sweep must move: per constraint its record,
 * lambda read and write, and each particle's position read and write. */
static uint64_t family_gs_bytes(const fl_constraint_family *f, size_t record, uint32_t particles_per)
{
  return (uint64_t)f->count * (record + 8 + 32ull * particles_per);
}

/* The kernels of one constraint family: Gauss-Seidel by colour (a dispatch per
 * colour, or the whole sweep in one workgroup), or Jacobi. */
typedef struct {
  const char *gs, *sweep, *lambda, *gather;
} family_kernels;

/* The one-workgroup sweep's size: lavapipe runs a workgroup on one thread, 8
 * lanes at a time, and a barrier switches between its 8-lane groups, so a
 * small workgroup is cheaper there (docs/PERFORMANCE.md, "One workgroup per sweep"). */
#define GS_SWEEP_WORKGROUP 16

static void solve_family_coloring(const fl_xpbd_system *s, fl_rec *r, const family_kernels *k,
                                  const fl_xpbd_family *gf, const fl_constraint_family *f, const fl_xpbd_push *push,
                                  bool backward)
{
  bind_choice c = {.family = gf, .first = &gf->first, .items = &gf->items};
  if (f->count && f->count <= s->sweep_max) {
    const fl_buffer *table[FL_XPBD_B_COUNT];
    fill_table(s, &c, table);
    fl_xpbd_push p = *push;
    p.first = backward; /* gs_sweep.glsl: pc.count colours, backward when pc.first is 1 */
    p.count = f->color_count;
    fl_rec_pass(r, &(fl_pass){.kernel = k->sweep, .workgroup = GS_SWEEP_WORKGROUP, FL_PUSH(p), .groups = 1,
                              .table = table, .table_count = FL_XPBD_B_COUNT});
    return;
  }
  for (uint32_t i = 0; i < f->color_count; i++) {
    uint32_t color = fl_sweep_colour(i, f->color_count, backward);
    uint32_t first = f->color_offsets[color], count = f->color_offsets[color + 1] - first;
    if (count) pass(s, r, k->gs, &c, *push, first, count, count);
  }
}

static void solve_family_jacobi(const fl_xpbd_system *s, fl_rec *r, const family_kernels *k,
                                const fl_xpbd_family *gf, const fl_constraint_family *f, const fl_xpbd_push *push)
{
  uint32_t n = s->build.particle_count;
  if (!f->count) return;
  bind_choice c = {.family = gf, .first = &gf->first, .items = &gf->items}, plain = {0};
  fl_xpbd_push once = *push;
  once.omega = 1.0f; /* the constraint pass scaled dlambda by omega / degree already */
  pass(s, r, k->lambda, &c, *push, 0, f->count, f->count);
  pass(s, r, k->gather, &c, *push, 0, n, n);
  pass(s, r, "xpbd/add_delta", &plain, once, 0, n, n);
}

/* One constraint family's solve of iteration `it`, in its own scope. */
static void solve_family(const fl_xpbd_system *s, fl_rec *r, const char *scope, const family_kernels *k,
                         const fl_xpbd_family *gf, const fl_constraint_family *f, uint64_t bytes,
                         const fl_step *step, const fl_xpbd_push *push, uint32_t it)
{
  fl_rec_begin(r, scope, bytes);
  if (step->sim->solver == FL_SOLVER_JACOBI) solve_family_jacobi(s, r, k, gf, f, push);
  else solve_family_coloring(s, r, k, gf, f, push, fl_sweep_backward(step->sim->solver, it));
  fl_rec_end(r);
}

/* Bytes the body pass must move, over the bodies it works on: per triangle its
 * indices and three positions (a volume); the overpressure adds one gather of
 * each particle's triangles (indices and two positions each) and the gradient
 * and position traffic; conservation a second volume, two gathers (gradient,
 * smoothing), prev, contact flags and weights; local weights also the rigid
 * part's three loops. */
static uint64_t body_volume_bytes(const fl_xpbd_build *b, uint32_t mode)
{
  uint64_t bytes = 0;
  for (uint32_t k = 0; k < b->body_count; k++) {
    const fl_gpu_body *r = &b->bodies[k];
    uint64_t volume = (uint64_t)r->triangle_count * (12 + 48), gathers = (uint64_t)r->particle_count * 3 * (4 + 12 + 32);
    if (mode == FL_BODY_PASS_MEASURE) {
      bytes += volume;
      continue;
    }
    if (mode == FL_BODY_PASS_VELOCITY) { /* a gradient gather, the weight, v read twice and written */
      if (r->velocity_correction != 0 && r->conservation != FL_CONSERVE_NONE)
        bytes += gathers + (uint64_t)r->particle_count * (16 + 16 + 3 * 16);
      continue;
    }
    if (r->overpressure != 0) bytes += volume + gathers + (uint64_t)r->particle_count * (16 + 16 + 32);
    if (r->conservation != FL_CONSERVE_NONE)
      bytes += volume + 2 * gathers + (uint64_t)r->particle_count * (16 + 16 + 4 + 3 * 16 + 2 * 16 + 4); /* + object_of */
    if (r->conservation == FL_CONSERVE_LOCAL && r->pair_beta > 0.0f) /* the opposite index and its pos and prev */
      bytes += (uint64_t)r->particle_count * (4 + 32);
    if (r->conservation == FL_CONSERVE_LOCAL) /* the rigid part: pos, weight and gradient read in three loops */
      bytes += (uint64_t)r->particle_count * 3 * (16 + 16 + 16);
  }
  return bytes;
}

/* One body_volume dispatch (all bodies, one workgroup each) in scope `name`, then a barrier. */
static void record_body_pass(const fl_xpbd_system *s, fl_rec *r, const char *name, const fl_xpbd_push *push,
                             uint32_t mode, const fl_buffer *colliders)
{
  const fl_buffer *table[FL_XPBD_B_COUNT];
  fill_table(s, &(bind_choice){.first = &s->tri_first, .items = &s->tri_items, .colliders = colliders}, table);
  fl_xpbd_push p = *push;
  p.body_pass = mode;
  p.count = s->build.body_count;
  fl_rec_pass(r, &(fl_pass){.name = name, .bytes = body_volume_bytes(&s->build, mode),
                            .kernel = "xpbd/body_volume", .workgroup = s->body_workgroup, FL_PUSH(p),
                            .groups = s->build.body_count, .table = table,
                            .table_count = FL_XPBD_B_COUNT});
}

void fl_xpbd_record_substep(fl_xpbd_system *s, fl_rec *r, const fl_step *step)
{
  const fl_xpbd_build *b = &s->build;
  uint32_t n = b->particle_count;
  if (s->tear.upload) fl_xpbd_record_topology(s, r); /* first in the frame that follows a tear */
  fl_xpbd_push push;
  fl_xpbd_push_fill(s, step, &push);
  bind_choice plain = {.colliders = step->colliders};
  static const family_kernels DISTANCE = {"xpbd/distance_gs", "xpbd/distance_sweep", "xpbd/distance_lambda",
                                          "xpbd/distance_gather"};
  static const family_kernels BEND = {"xpbd/bend_gs", "xpbd/bend_sweep", "xpbd/bend_lambda", "xpbd/bend_gather"};
  static const family_kernels TET = {"xpbd/tet_gs", "xpbd/tet_sweep", "xpbd/tet_lambda", "xpbd/tet_gather"};
  static const family_kernels AREA = {"xpbd/area_gs", "xpbd/area_sweep", "xpbd/area_lambda", "xpbd/area_gather"};

  if (s->any_wind) {
    fl_rec_begin(r, "cloth/wind",
                 (uint64_t)b->triangle_count * (12 + 4 + 16 + 6 * 16) + (uint64_t)n * (8 + 16 + 16) +
                     (uint64_t)b->triangle_count * 3 * (4 + 16));
    pass(s, r, "xpbd/wind_faces", &plain, push, 0, b->triangle_count, b->triangle_count);
    pass(s, r, "xpbd/wind_gather", &(bind_choice){.first = &s->tri_first, .items = &s->tri_items}, push, 0, n, n);
    fl_rec_end(r);
  }
  /* Euler reads pos, vel, accel and writes pos, prev, vel; BDF2 also reads prev and vel_old and writes older, vel_old. */
  fl_rec_begin(r, "xpbd/predict", (uint64_t)n * (push.integrator == FL_XPBD_EULER ? 96 : 128));
  pass(s, r, "xpbd/predict", &plain, push, 0, n, n);
  s->bdf2_history = push.integrator != FL_XPBD_EULER;
  vkCmdFillBuffer(r->cmd, s->distance.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(r->cmd, s->bend.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(r->cmd, s->tet.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(r->cmd, s->area.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  if (b->body_count) vkCmdFillBuffer(r->cmd, s->load.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_rec_barrier(r);
  fl_rec_end(r);
  fl_hierarchy_gpu_record(&s->hier, &b->hier, r, &s->pos, n, push, step->sim->iterations, &FL_HIERARCHY_FINE(b),
                          (fl_hierarchy_gpu_fine){&s->distance.constraints, &s->distance.lambda});

  for (uint32_t it = 0; it < step->sim->iterations; it++) {
    solve_family(s, r, "xpbd/distance", &DISTANCE, &s->distance, &b->distance,
                 family_gs_bytes(&b->distance, sizeof(fl_gpu_distance), 2), step, &push, it);
    if (b->area.count)
      solve_family(s, r, "cloth/area", &AREA, &s->area, &b->area, family_gs_bytes(&b->area, sizeof(fl_gpu_area), 3),
                   step, &push, it);
    if (b->bend.count)
      solve_family(s, r, "xpbd/bend", &BEND, &s->bend, &b->bend, family_gs_bytes(&b->bend, sizeof(fl_gpu_bend), 4),
                   step, &push, it);
    if (b->tet.count)
      solve_family(s, r, "softbody/tets", &TET, &s->tet, &b->tet, /* a Neo-Hookean record's second lambda too */
                   family_gs_bytes(&b->tet, sizeof(fl_gpu_tet), 4) + 8ull * s->neohookean_tets, step, &push, it);
    if (s->any_body_solve) record_body_pass(s, r, "softbody/volume", &push, FL_BODY_PASS_SOLVE, step->colliders);
  }

  if (step->picker && fl_picker_holds(step->picker, &s->pos)) fl_picker_record_drag(step->picker, r, step->h);
  /* the tethers first, where some particle has them: its record and its two pins' positions read */
  fl_rec_begin(r, "xpbd/contacts", (uint64_t)n * (32 + 16 + 4 + (b->any_tether ? sizeof(fl_gpu_tether) + 32 : 0)));
  pass(s, r, "xpbd/contacts", &plain, push, 0, n, n);
  fl_rec_end(r);

  if (s->any_self_collision) {
    fl_spatial_hash_record(&s->hash, r, &s->pos, n, s->self_cell_size);
    fl_rec_barrier(r);
    /* self_sort: per particle, its index and position read, the copy written. Then per particle and
     * pass: its position, previous position and object, and about 8 neighbours' (the sorted copy,
     * contiguous, and for the contacts the object and the inverse mass) through the hash; the friction
     * pass also reads the neighbours' previous positions and pushes (32 bytes each) and its own, and
     * writes its correction. */
    fl_rec_begin(r, "xpbd/self", (uint64_t)n * (4 + 16 + 16) + (uint64_t)n * (9 * (16 + 4 + 4) + 32) +
                                     (uint64_t)n * (9 * (16 + 4 + 4 + 32) + 48));
    pass(s, r, "xpbd/self_sort", &plain, push, 0, n, n);
    fl_xpbd_push once = push;
    once.omega = 1.0f; /* contacts are averaged, not over-relaxed */
    pass(s, r, "xpbd/self_collide", &plain, push, 0, n, n);
    pass(s, r, "xpbd/self_friction", &plain, push, 0, n, n);
    pass(s, r, "xpbd/add_delta", &(bind_choice){.delta = &s->contact_corrections}, once, 0, n, n);
    fl_rec_end(r);
  }
  bool collider_triangles = step->sim->collider_triangles && push.collider_count && has_cloth(s);
  if (s->tri.any)
    record_triangle_contacts(s, r, &push, &plain, collider_triangles);
  else if (collider_triangles)
    record_cloth_colliders(s, r, &push, &plain);
  fl_rec_begin(r, "xpbd/velocity", (uint64_t)n * (16 + 16 + 16 + 4));
  pass(s, r, "xpbd/velocity", &plain, push, 0, n, n);
  if (s->any_edge_damping) {
    fl_xpbd_push once = push;
    once.omega = 1.0f; /* the damping deltas are applied as they are */
    pass(s, r, "xpbd/edge_damping",
         &(bind_choice){.family = &s->distance, .first = &s->distance.first, .items = &s->distance.items}, push, 0,
         n, n);
    pass(s, r, "xpbd/add_delta", &(bind_choice){.target = &s->vel}, once, 0, n, n);
  }
  if (s->any_global_damping) { /* one workgroup per object: three reads of x and v, one write of v */
    const fl_buffer *table[FL_XPBD_B_COUNT];
    fill_table(s, &(bind_choice){0}, table);
    fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/global_damping", .workgroup = FL_BODY_WORKGROUP, FL_PUSH(push),
                              .groups = b->object_count, .table = table, .table_count = FL_XPBD_B_COUNT});
  }
  fl_rec_end(r);
  if (s->any_body_velocity)
    record_body_pass(s, r, "softbody/volume_velocity", &push, FL_BODY_PASS_VELOCITY, step->colliders);
  if (b->body_count) record_body_pass(s, r, "softbody/measure", &push, FL_BODY_PASS_MEASURE, step->colliders);
}

void fl_xpbd_record_publish(fl_xpbd_system *s, fl_rec *r)
{
  uint32_t n = s->build.particle_count, slot = r->slot;
  if (s->tear.on) {
    if (s->tear.upload) fl_xpbd_record_topology(s, r); /* a paused frame: the report must see the new topology */
    fl_tear_record_flag(&s->tear, r, &s->pos, &s->distance.constraints, &s->object_of, s->build.distance.count);
    fl_tear_record_draw_copy(&s->tear, r, &s->triangles, s->build.triangle_count);
  }
  fl_rec_begin(r, "xpbd/publish", (uint64_t)n * 32);
  VkBufferCopy region = {0, 0, (VkDeviceSize)n * 16};
  vkCmdCopyBuffer(r->cmd, s->pos.buffer, s->snapshot[slot].buffer, 1, &region);
  fl_rec_end(r);
  fl_gpu_mesh counts = {.vertex_count = n, .triangle_count = s->build.triangle_count};
  fl_rec_begin(r, "xpbd/normals", fl_mesh_normals_bytes(&counts));
  fl_mesh_normals_record_binding(r, &(fl_mesh_normals_binding){&s->snapshot[slot], &s->triangles, &s->face_normals,
                                                               &s->tri_first, &s->tri_items, &s->normals[slot],
                                                               s->build.triangle_count, n});
  fl_rec_end(r);
  if (!s->skin_count) return;
  uint64_t bytes = 0;
  for (uint32_t k = 0; k < s->skin_count; k++) /* per vertex: its record, four positions, the output */
    bytes += (uint64_t)s->skins[k].mesh[slot].vertex_count * (32 + 4 * 16 + 16) +
             fl_mesh_normals_bytes(&s->skins[k].mesh[slot]);
  fl_rec_begin(r, "softbody/skin", bytes);
  fl_rec_barrier(r); /* the snapshot copy above is read by the skinning */
  for (uint32_t k = 0; k < s->skin_count; k++) {
    fl_xpbd_skin *sk = &s->skins[k];
    const fl_buffer *table[FL_XPBD_B_COUNT];
    fill_table(s, &(bind_choice){.target = &s->snapshot[slot], .skin = &sk->skin, .skinned = &sk->mesh[slot].positions},
               table);
    fl_xpbd_push push = {0};
    push.count = sk->mesh[slot].vertex_count;
    fl_rec_pass(r, &(fl_pass){.kernel = "xpbd/skin", FL_PUSH(push), .threads = sk->mesh[slot].vertex_count,
                              .no_barrier = true, .table = table, .table_count = FL_XPBD_B_COUNT});
    fl_mesh_normals_record(r, &sk->mesh[slot]); /* barriers before and after */
  }
  fl_rec_end(r);
}
