/* sim/cloth: the XPBD system on the GPU: cloth, soft bodies and balloons
 * (see cloth.h, cloth_spec.h, softbody_spec.h). */
#include "sim/cloth/cloth.h"

#include "core/log.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../cloth/buffers.glsl" /* found through the shaders/common include path */

static bool create_pipelines(fl_gpu *gpu, fl_cloth_pipelines *p)
{
  struct {
    fl_pipeline *pipe;
    const char *name;
  } list[] = {
      {&p->predict, "cloth/predict.comp"},           {&p->distance_gs, "cloth/distance_gs.comp"},
      {&p->bend_gs, "cloth/bend_gs.comp"},           {&p->distance_lambda, "cloth/distance_lambda.comp"},
      {&p->bend_lambda, "cloth/bend_lambda.comp"},   {&p->distance_gather, "cloth/distance_gather.comp"},
      {&p->bend_gather, "cloth/bend_gather.comp"},   {&p->add_delta, "cloth/add_delta.comp"},
      {&p->wind_faces, "cloth/wind_faces.comp"},     {&p->wind_gather, "cloth/wind_gather.comp"},
      {&p->contacts, "cloth/contacts.comp"},         {&p->velocity, "cloth/velocity.comp"},
      {&p->edge_damping, "cloth/edge_damping.comp"}, {&p->self_collide, "cloth/self_collide.comp"},
      {&p->tet_gs, "cloth/tet_gs.comp"},             {&p->tet_lambda, "cloth/tet_lambda.comp"},
      {&p->tet_gather, "cloth/tet_gather.comp"},     {&p->skin, "cloth/skin.comp"},
  };
  for (size_t i = 0; i < sizeof list / sizeof list[0]; i++)
    if (!fl_pipeline_compute(gpu, list[i].name, sizeof(fl_cloth_push), 0, list[i].pipe)) return false;
  /* One workgroup per body: its shared arrays hold at most FL_BODY_WORKGROUP invocations. */
  return fl_pipeline_compute(gpu, "cloth/body_volume.comp", sizeof(fl_cloth_push), FL_BODY_WORKGROUP, &p->body_volume);
}

static void destroy_pipelines(fl_gpu *gpu, fl_cloth_pipelines *p)
{
  fl_pipeline *all = (fl_pipeline *)p;
  for (size_t i = 0; i < sizeof *p / sizeof(fl_pipeline); i++) fl_pipeline_destroy(gpu, &all[i]);
}

/* What a kernel binds: the system's buffers, with the family and the CSR (and
 * the target of add_delta) chosen by the caller. */
typedef struct {
  const fl_cloth_family *family;
  const fl_buffer *first, *items; /* CSR: the family's, or the vertex-to-triangle one */
  const fl_buffer *target;        /* FL_CLOTH_B_POS: positions, or velocities for add_delta, or a snapshot */
  const fl_buffer *colliders;
  const fl_buffer *skin, *skinned; /* skin.comp: a soft body's records and its drawn vertices */
} bind_choice;

static const fl_buffer *buffer_for(const fl_cloth_system *s, uint32_t binding, const bind_choice *c)
{
  switch (binding) {
  case FL_CLOTH_B_POS: return c->target ? c->target : &s->pos;
  case FL_CLOTH_B_PREV: return &s->prev;
  case FL_CLOTH_B_VEL: return &s->vel;
  case FL_CLOTH_B_ACCEL: return &s->accel;
  case FL_CLOTH_B_DELTA: return &s->delta;
  case FL_CLOTH_B_OBJECT: return &s->object_of;
  case FL_CLOTH_B_OBJECTS: return &s->objects;
  case FL_CLOTH_B_CONSTRAINTS: return c->family ? &c->family->constraints : NULL;
  case FL_CLOTH_B_LAMBDA: return c->family ? &c->family->lambda : NULL;
  case FL_CLOTH_B_DLAMBDA: return c->family ? &c->family->dlambda : NULL;
  case FL_CLOTH_B_FIRST: return c->first;
  case FL_CLOTH_B_ITEMS: return c->items;
  case FL_CLOTH_B_TRIANGLES: return &s->triangles;
  case FL_CLOTH_B_TRI_OBJECT: return &s->tri_object;
  case FL_CLOTH_B_FACE_FORCE: return &s->face_force;
  case FL_CLOTH_B_COLLIDERS: return c->colliders;
  case FL_CLOTH_B_SORTED: return s->hash.max_particles ? fl_spatial_hash_sorted_index(&s->hash) : NULL;
  case FL_CLOTH_B_CELL_START: return s->hash.max_particles ? fl_spatial_hash_cell_start(&s->hash) : NULL;
  case FL_CLOTH_B_CELL_END: return s->hash.max_particles ? fl_spatial_hash_cell_end(&s->hash) : NULL;
  case FL_CLOTH_B_CONTACT: return &s->contact;
  case FL_CLOTH_B_BODIES: return &s->bodies;
  case FL_CLOTH_B_BODY_STATE: return &s->body_state;
  case FL_CLOTH_B_SCRATCH: return &s->scratch;
  case FL_CLOTH_B_SKIN: return c->skin;
  case FL_CLOTH_B_SKINNED: return c->skinned;
  default: return NULL;
  }
}

/* Builds a kernel's descriptor set from its reflected binding numbers. */
static bool bind(fl_cloth_system *s, const fl_pipeline *p, const bind_choice *c, VkDescriptorSet *out)
{
  fl_binding b[FL_MAX_BINDINGS];
  for (uint32_t i = 0; i < p->binding_count; i++) {
    b[i] = (fl_binding){buffer_for(s, p->binding_numbers[i], c), 0, 0};
    if (!b[i].buffer)
      return fl_error_set("pipeline %s: binding %u has no cloth buffer", p->name, p->binding_numbers[i]);
  }
  return fl_pipeline_bind(s->gpu, p, b, p->binding_count, out);
}

static bool device_buffer(fl_gpu *gpu, const void *data, size_t bytes, const char *what, fl_buffer *out)
{
  char name[96];
  snprintf(name, sizeof name, "cloth %s", what);
  return fl_buffer_create_with(gpu, data, bytes, name, out); /* an empty family (bending "none") still binds */
}

static bool family_create(fl_cloth_system *s, const fl_constraint_family *f, const void *constraints,
                          size_t record_size, const char *what, fl_cloth_family *out)
{
  uint32_t n = s->build.particle_count;
  char name[64];
  snprintf(name, sizeof name, "%s constraints", what);
  if (!device_buffer(s->gpu, f->count ? constraints : NULL, f->count * record_size, name, &out->constraints))
    return false;
  snprintf(name, sizeof name, "%s lambda", what);
  if (!device_buffer(s->gpu, NULL, f->count * sizeof(float), name, &out->lambda)) return false;
  snprintf(name, sizeof name, "%s dlambda", what);
  if (!device_buffer(s->gpu, NULL, f->count * sizeof(float), name, &out->dlambda)) return false;
  snprintf(name, sizeof name, "%s csr first", what);
  if (!device_buffer(s->gpu, f->particle_first, (n + 1) * sizeof(uint32_t), name, &out->first)) return false;
  snprintf(name, sizeof name, "%s csr items", what);
  uint32_t items = f->particle_first[n];
  return device_buffer(s->gpu, items ? f->particle_items : NULL, items * sizeof(uint32_t), name, &out->items);
}

static void family_destroy(fl_gpu *gpu, fl_cloth_family *f)
{
  fl_buffer *b[] = {&f->constraints, &f->lambda, &f->dlambda, &f->first, &f->items};
  for (size_t i = 0; i < 5; i++) fl_buffer_destroy(gpu, b[i]);
  VkDescriptorSet sets[] = {f->gs_set, f->lambda_set, f->gather_set};
  for (size_t i = 0; i < 3; i++)
    if (sets[i]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &sets[i]);
  memset(f, 0, sizeof *f);
}

/* Every body's state: volume, lambda, the smallest and largest ratio seen. */
static bool create_body_state(fl_cloth_system *s)
{
  uint32_t count = s->build.body_count;
  float(*state)[4] = calloc(count ? count : 1, FL_BODY_STATE_VEC4S * sizeof *state);
  if (!state) return fl_error_set("out of host memory for %u bodies", (unsigned)count);
  for (uint32_t b = 0; b < count; b++) {
    state[b][0] = s->build.bodies[b].volume[0];
    state[b][2] = 1e30f;
  }
  bool ok = device_buffer(s->gpu, count ? state : NULL, count * FL_BODY_STATE_VEC4S * 16, "body state", &s->body_state);
  free(state);
  return ok;
}

static bool create_buffers(fl_cloth_system *s, const fl_mesh_normals *mn)
{
  const fl_cloth_build *b = &s->build;
  size_t n = b->particle_count, t = b->triangle_count;
  fl_cpu_mesh mesh = {.positions = b->positions, .indices = b->triangles, .vertex_count = b->particle_count,
                      .triangle_count = b->triangle_count};
  uint32_t *tri_first = NULL, *tri_items = NULL;
  if (!fl_mesh_vertex_faces(&mesh, &tri_first, &tri_items)) return false;
  bool ok = device_buffer(s->gpu, b->positions, n * 16, "positions", &s->pos) &&
            device_buffer(s->gpu, b->positions, n * 16, "previous positions", &s->prev) &&
            device_buffer(s->gpu, b->velocities, n * 16, "velocities", &s->vel) &&
            device_buffer(s->gpu, NULL, n * 4, "contact flags", &s->contact) &&
            device_buffer(s->gpu, b->bodies, b->body_count * sizeof(fl_gpu_body), "bodies", &s->bodies) &&
            create_body_state(s) &&
            device_buffer(s->gpu, NULL, b->body_count ? n * 16 : 0, "body gradients", &s->scratch) &&
            device_buffer(s->gpu, NULL, n * 16, "wind acceleration", &s->accel) &&
            device_buffer(s->gpu, NULL, n * 16, "jacobi deltas", &s->delta) &&
            device_buffer(s->gpu, b->particle_object, n * 4, "particle objects", &s->object_of) &&
            device_buffer(s->gpu, b->objects, b->object_count * sizeof(fl_gpu_cloth_object), "objects", &s->objects) &&
            device_buffer(s->gpu, b->triangles, t * 12, "triangles", &s->triangles) &&
            device_buffer(s->gpu, b->triangle_object, t * 4, "triangle objects", &s->tri_object) &&
            device_buffer(s->gpu, NULL, t * 16, "face forces", &s->face_force) &&
            device_buffer(s->gpu, NULL, t * 16, "face normals", &s->face_normals) &&
            device_buffer(s->gpu, tri_first, (n + 1) * 4, "vertex triangles first", &s->tri_first) &&
            device_buffer(s->gpu, tri_items, t * 12, "vertex triangles", &s->tri_items);
  free(tri_first);
  free(tri_items);
  ok = ok && family_create(s, &b->distance, b->distances, sizeof(fl_gpu_distance), "distance", &s->distance) &&
       family_create(s, &b->bend, b->bends, sizeof(fl_gpu_bend), "bend", &s->bend) &&
       family_create(s, &b->tet, b->tets, sizeof(fl_gpu_tet), "tet", &s->tet);
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT && ok; slot++) {
    ok = device_buffer(s->gpu, b->positions, n * 16, "snapshot", &s->snapshot[slot]) &&
         device_buffer(s->gpu, NULL, n * 16, "normals", &s->normals[slot]) &&
         fl_mesh_normals_bind(s->gpu, mn, &s->snapshot[slot], &s->triangles, &s->face_normals, &s->tri_first,
                              &s->tri_items, &s->normals[slot], b->triangle_count, b->particle_count,
                              &s->normals_binding[slot]);
  }
  return ok;
}

static bool create_sets(fl_cloth_system *s, const fl_buffer *colliders)
{
  fl_cloth_pipelines *p = &s->pipes;
  bind_choice plain = {.colliders = colliders};
  bind_choice vel_target = {.target = &s->vel};
  bind_choice wind = {.first = &s->tri_first, .items = &s->tri_items};
  bind_choice damping = {.family = &s->distance, .first = &s->distance.first, .items = &s->distance.items};
  bool ok = bind(s, &p->predict, &plain, &s->predict_set) && bind(s, &p->add_delta, &plain, &s->add_pos_set) &&
            bind(s, &p->add_delta, &vel_target, &s->add_vel_set) &&
            bind(s, &p->wind_faces, &plain, &s->wind_faces_set) && bind(s, &p->wind_gather, &wind, &s->wind_gather_set) &&
            bind(s, &p->contacts, &plain, &s->contacts_set) && bind(s, &p->velocity, &plain, &s->velocity_set) &&
            bind(s, &p->edge_damping, &damping, &s->edge_damping_set);
  if (ok && s->any_self_collision)
    ok = fl_spatial_hash_create(s->gpu, s->build.particle_count, &s->hash) &&
         fl_spatial_hash_bind(s->gpu, &s->hash, &s->pos) && bind(s, &p->self_collide, &plain, &s->self_collide_set);
  if (ok && s->build.body_count) {
    bind_choice body = {.first = &s->tri_first, .items = &s->tri_items};
    ok = bind(s, &p->body_volume, &body, &s->body_set);
  }
  fl_cloth_family *fams[3] = {&s->distance, &s->bend, &s->tet};
  const fl_pipeline *gs[3] = {&p->distance_gs, &p->bend_gs, &p->tet_gs},
                    *lam[3] = {&p->distance_lambda, &p->bend_lambda, &p->tet_lambda},
                    *gat[3] = {&p->distance_gather, &p->bend_gather, &p->tet_gather};
  for (int f = 0; f < 3 && ok; f++) {
    bind_choice c = {.family = fams[f], .first = &fams[f]->first, .items = &fams[f]->items};
    ok = bind(s, gs[f], &c, &fams[f]->gs_set) && bind(s, lam[f], &c, &fams[f]->lambda_set) &&
         bind(s, gat[f], &c, &fams[f]->gather_set);
  }
  return ok;
}

/* True when some body has a constraint the SOLVE pass applies (overpressure or conservation). */
static bool any_body_solve(const fl_cloth_build *b)
{
  for (uint32_t k = 0; k < b->body_count; k++)
    if (b->bodies[k].volume[3] != 0 || b->bodies[k].conserve[0] != (float)FL_CONSERVE_NONE) return true;
  return false;
}

/* Every family's constraint buffer must fit the device's storage-buffer range. */
static bool check_buffer_sizes(const fl_gpu *gpu, const fl_cloth_build *b)
{
  struct {
    const char *what;
    uint64_t bytes;
  } sizes[] = {{"distance", (uint64_t)b->distance.count * sizeof(fl_gpu_distance)},
               {"bend", (uint64_t)b->bend.count * sizeof(fl_gpu_bend)},
               {"tet", (uint64_t)b->tet.count * sizeof(fl_gpu_tet)},
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
static bool create_skins(fl_cloth_system *s, const fl_mesh_normals *mn, const fl_body_build *bodies,
                         uint32_t body_count)
{
  for (uint32_t k = 0; k < body_count; k++) {
    const fl_body_build *body = &bodies[k];
    if (!body->render.vertex_count) continue;
    fl_cloth_skin *sk = &s->skins[s->skin_count++];
    sk->object = s->build.cloth_count + k;
    uint32_t first = s->build.objects[sk->object].grid[0], n = body->render.vertex_count;
    fl_gpu_skin *records = malloc((size_t)n * sizeof *records);
    if (!records) return fl_error_set("out of host memory for %u skinned vertices", (unsigned)n);
    for (uint32_t v = 0; v < n; v++) {
      records[v] = body->skin[v];
      for (int q = 0; q < 4; q++) records[v].idx[q] += first;
    }
    bool ok = device_buffer(s->gpu, records, (size_t)n * sizeof *records, "skin", &sk->skin);
    free(records);
    for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT && ok; slot++) {
      bind_choice c = {.target = &s->snapshot[slot], .skin = &sk->skin, .skinned = &sk->mesh[slot].positions};
      ok = fl_gpu_mesh_create(s->gpu, mn, &body->render, "soft body surface", &sk->mesh[slot]) &&
           bind(s, &s->pipes.skin, &c, &sk->set[slot]);
    }
    if (!ok) return false;
  }
  return true;
}

bool fl_cloth_system_create(fl_gpu *gpu, const fl_mesh_normals *mn, const fl_cloth_desc *descs,
                            const char (*names)[FL_SCENE_NAME_MAX], uint32_t count, const fl_body_build *bodies,
                            uint32_t body_count, const fl_buffer *colliders, fl_cloth_system *out)
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
    fl_cloth_build_destroy(&out->build);
    return false;
  }
  for (uint32_t o = 0; o < count; o++) {
    out->any_wind |= descs[o].drag > 0 || descs[o].lift > 0;
    out->any_edge_damping |= descs[o].damping_model == FL_DAMPING_EDGE && descs[o].damping > 0;
    if (descs[o].self_collision) {
      out->any_self_collision = true;
      if (descs[o].thickness > out->self_cell_size) out->self_cell_size = descs[o].thickness;
    }
  }
  for (uint32_t k = 0; k < body_count; k++) { /* bodies collide with everything */
    out->any_self_collision = true;
    float thickness = out->build.objects[count + k].contact[2];
    if (thickness > out->self_cell_size) out->self_cell_size = thickness;
  }
  /* Each object's triangles are contiguous (cloth_build.c builds object by object). */
  for (uint32_t t = 0; t < out->build.triangle_count; t++) {
    uint32_t o = out->build.triangle_object[t];
    if (!out->object_triangles[o]) out->object_first_triangle[o] = t;
    out->object_triangles[o]++;
  }
  out->any_body_solve = any_body_solve(&out->build);
  bool ok = create_pipelines(gpu, &out->pipes) && create_buffers(out, mn) && create_sets(out, colliders) &&
            create_skins(out, mn, bodies, body_count);
  if (!ok) fl_cloth_system_destroy(out);
  return ok;
}

bool fl_cloth_read_body_state(fl_cloth_system *s, float (*state)[4])
{
  if (!s->build.body_count) return true;
  return fl_buffer_readback(s->gpu, &s->body_state, 0, state,
                            (VkDeviceSize)s->build.body_count * FL_BODY_STATE_VEC4S * 16);
}

void fl_cloth_system_destroy(fl_cloth_system *s)
{
  if (!s->gpu) return;
  fl_gpu *gpu = s->gpu;
  VkDescriptorSet sets[] = {s->predict_set, s->add_pos_set, s->add_vel_set, s->wind_faces_set, s->wind_gather_set,
                            s->contacts_set, s->velocity_set, s->edge_damping_set, s->self_collide_set, s->body_set};
  for (size_t i = 0; i < sizeof sets / sizeof sets[0]; i++)
    if (sets[i]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &sets[i]);
  for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) {
    fl_mesh_normals_unbind(gpu, &s->normals_binding[slot]);
    fl_buffer_destroy(gpu, &s->snapshot[slot]);
    fl_buffer_destroy(gpu, &s->normals[slot]);
  }
  for (uint32_t k = 0; k < s->skin_count; k++) {
    fl_cloth_skin *sk = &s->skins[k];
    for (uint32_t slot = 0; slot < FL_GPU_FRAMES_IN_FLIGHT; slot++) {
      if (sk->set[slot]) vkFreeDescriptorSets(gpu->device, gpu->descriptor_pool, 1, &sk->set[slot]);
      fl_gpu_mesh_destroy(gpu, &sk->mesh[slot]);
    }
    fl_buffer_destroy(gpu, &sk->skin);
  }
  family_destroy(gpu, &s->distance);
  family_destroy(gpu, &s->bend);
  family_destroy(gpu, &s->tet);
  fl_spatial_hash_destroy(gpu, &s->hash);
  fl_buffer *buffers[] = {&s->pos,          &s->prev,      &s->vel,        &s->accel,     &s->delta,
                          &s->object_of,    &s->objects,   &s->triangles,  &s->tri_object, &s->face_force,
                          &s->tri_first,    &s->tri_items, &s->face_normals, &s->contact, &s->bodies,
                          &s->body_state,   &s->scratch};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  destroy_pipelines(gpu, &s->pipes);
  fl_cloth_build_destroy(&s->build);
  memset(s, 0, sizeof *s);
}

void fl_cloth_push_fill(const fl_cloth_system *s, const fl_sim_desc *sim, uint32_t collider_count, float h, float t,
                        fl_cloth_push *out)
{
  memset(out, 0, sizeof *out);
  for (int a = 0; a < 3; a++) {
    out->gravity_dt[a] = sim->gravity[a];
    out->domain_min[a] = sim->domain_min[a];
    out->domain_max[a] = sim->domain_max[a];
  }
  out->gravity_dt[3] = h;
  out->domain_min[3] = t;
  out->domain_max[3] = sim->relaxation;
  out->range[2] = collider_count;
  out->range[3] = s->build.particle_count;
  out->hash[2] = sim->collider_normals == FL_NORMALS_TETRAHEDRAL ? 1.0f : 0.0f;
  if (s->any_self_collision) {
    out->hash[0] = 1.0f / s->self_cell_size;
    out->hash[1] = (float)fl_spatial_hash_table_size(&s->hash);
  }
}

/* One timed dispatch over `threads` with the given range, then a barrier. */
static void pass(VkCommandBuffer cmd, const fl_pipeline *p, VkDescriptorSet set, fl_cloth_push push, uint32_t first,
                 uint32_t count, uint32_t threads)
{
  push.range[0] = first;
  push.range[1] = count;
  fl_cmd_dispatch(cmd, p, set, &push, threads);
  fl_cmd_compute_barrier(cmd);
}

/* Bytes a family's Gauss-Seidel sweep must move: per constraint its record,
 * lambda read and write, and each particle's position read and write. */
static uint64_t family_gs_bytes(const fl_constraint_family *f, size_t record, uint32_t particles_per)
{
  return (uint64_t)f->count * (record + 8 + 32ull * particles_per);
}

static void solve_family_coloring(fl_cloth_system *s, VkCommandBuffer cmd, const fl_pipeline *p, fl_cloth_family *gf,
                                  const fl_constraint_family *f, const fl_cloth_push *push)
{
  for (uint32_t c = 0; c < f->color_count; c++) {
    uint32_t first = f->color_offsets[c], count = f->color_offsets[c + 1] - first;
    if (count) pass(cmd, p, gf->gs_set, *push, first, count, count);
  }
}

static void solve_family_jacobi(fl_cloth_system *s, VkCommandBuffer cmd, const fl_pipeline *lam, const fl_pipeline *gat,
                                fl_cloth_family *gf, const fl_constraint_family *f, const fl_cloth_push *push)
{
  uint32_t n = s->build.particle_count;
  if (!f->count) return;
  pass(cmd, lam, gf->lambda_set, *push, 0, f->count, f->count);
  pass(cmd, gat, gf->gather_set, *push, 0, n, n);
  pass(cmd, &s->pipes.add_delta, s->add_pos_set, *push, 0, n, n);
}

/* Bytes the body pass must move, over the bodies it works on: per triangle its
 * indices and three positions (a volume); the overpressure adds one gather of
 * each particle's triangles (indices and two positions each) and the gradient
 * and position traffic; conservation a second volume, two gathers (gradient,
 * smoothing), prev, contact flags and weights. */
static uint64_t body_volume_bytes(const fl_cloth_build *b, bool solve)
{
  uint64_t bytes = 0;
  for (uint32_t k = 0; k < b->body_count; k++) {
    const fl_gpu_body *r = &b->bodies[k];
    uint64_t volume = (uint64_t)r->range[3] * (12 + 48), gathers = (uint64_t)r->range[1] * 3 * (4 + 12 + 32);
    if (!solve) {
      bytes += volume;
      continue;
    }
    if (r->volume[3] != 0) bytes += volume + gathers + (uint64_t)r->range[1] * (16 + 16 + 32);
    if (r->conserve[0] != (float)FL_CONSERVE_NONE)
      bytes += volume + 2 * gathers + (uint64_t)r->range[1] * (16 + 16 + 4 + 3 * 16 + 2 * 16);
  }
  return bytes;
}

/* One body_volume dispatch (all bodies, one workgroup each), then a barrier. */
static void record_body_pass(fl_cloth_system *s, VkCommandBuffer cmd, const fl_cloth_push *push, uint32_t mode)
{
  fl_cloth_push p = *push;
  p.range[0] = mode;
  p.range[1] = s->build.body_count;
  fl_cmd_dispatch(cmd, &s->pipes.body_volume, s->body_set, &p,
                  s->build.body_count * s->pipes.body_volume.workgroup_size);
  fl_cmd_compute_barrier(cmd);
}

void fl_cloth_record_substep(fl_cloth_system *s, VkCommandBuffer cmd, const fl_sim_desc *sim,
                             uint32_t collider_count, float h, float t, const fl_picker *picker, fl_profiler *prof,
                             uint32_t slot)
{
  const fl_cloth_build *b = &s->build;
  uint32_t n = b->particle_count;
  fl_cloth_push push;
  fl_cloth_push_fill(s, sim, collider_count, h, t, &push);
  fl_cloth_pipelines *p = &s->pipes;
  int scope;

  if (s->any_wind) {
    scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/wind",
                              (uint64_t)b->triangle_count * (12 + 4 + 16 + 6 * 16) + (uint64_t)n * (8 + 16 + 16) +
                                  (uint64_t)b->triangle_count * 3 * (4 + 16));
    pass(cmd, &p->wind_faces, s->wind_faces_set, push, 0, b->triangle_count, b->triangle_count);
    pass(cmd, &p->wind_gather, s->wind_gather_set, push, 0, n, n);
    fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  }
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/predict", (uint64_t)n * 96);
  pass(cmd, &p->predict, s->predict_set, push, 0, n, n);
  vkCmdFillBuffer(cmd, s->distance.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(cmd, s->bend.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(cmd, s->tet.lambda.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_cmd_compute_barrier(cmd);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);

  for (uint32_t it = 0; it < sim->iterations; it++) {
    scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/distance",
                              family_gs_bytes(&b->distance, sizeof(fl_gpu_distance), 2));
    if (sim->solver == FL_SOLVER_JACOBI)
      solve_family_jacobi(s, cmd, &p->distance_lambda, &p->distance_gather, &s->distance, &b->distance, &push);
    else
      solve_family_coloring(s, cmd, &p->distance_gs, &s->distance, &b->distance, &push);
    fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
    if (b->bend.count) {
      scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/bend",
                                family_gs_bytes(&b->bend, sizeof(fl_gpu_bend), 4));
      if (sim->solver == FL_SOLVER_JACOBI)
        solve_family_jacobi(s, cmd, &p->bend_lambda, &p->bend_gather, &s->bend, &b->bend, &push);
      else
        solve_family_coloring(s, cmd, &p->bend_gs, &s->bend, &b->bend, &push);
      fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
    }
    if (b->tet.count) {
      scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "softbody/tets",
                                family_gs_bytes(&b->tet, sizeof(fl_gpu_tet), 4));
      if (sim->solver == FL_SOLVER_JACOBI)
        solve_family_jacobi(s, cmd, &p->tet_lambda, &p->tet_gather, &s->tet, &b->tet, &push);
      else
        solve_family_coloring(s, cmd, &p->tet_gs, &s->tet, &b->tet, &push);
      fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
    }
    if (s->any_body_solve) {
      scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "softbody/volume", body_volume_bytes(b, true));
      record_body_pass(s, cmd, &push, FL_BODY_PASS_SOLVE);
      fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
    }
  }

  if (picker && picker->held && picker->targets[picker->held_target].positions == &s->pos)
    fl_picker_record_drag(picker, cmd, h);
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/contacts", (uint64_t)n * (32 + 16 + 4));
  pass(cmd, &p->contacts, s->contacts_set, push, 0, n, n);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);

  if (s->any_self_collision) {
    fl_spatial_hash_record(&s->hash, cmd, n, s->self_cell_size, prof, slot);
    fl_cmd_compute_barrier(cmd);
    /* Per particle: its position, previous position and object, and about 8
     * neighbours' (positions, previous positions, objects) through the hash. */
    scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/self", (uint64_t)n * (9 * (32 + 4 + 4) + 16));
    fl_cloth_push once = push;
    once.domain_max[3] = 1.0f; /* contacts are averaged, not over-relaxed */
    pass(cmd, &p->self_collide, s->self_collide_set, push, 0, n, n);
    pass(cmd, &p->add_delta, s->add_pos_set, once, 0, n, n);
    fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  }
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/velocity", (uint64_t)n * (16 + 16 + 16 + 4));
  pass(cmd, &p->velocity, s->velocity_set, push, 0, n, n);
  if (s->any_edge_damping) {
    fl_cloth_push once = push;
    once.domain_max[3] = 1.0f; /* the damping deltas are applied as they are */
    pass(cmd, &p->edge_damping, s->edge_damping_set, push, 0, n, n);
    pass(cmd, &p->add_delta, s->add_vel_set, once, 0, n, n);
  }
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  if (b->body_count) {
    scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "softbody/measure", body_volume_bytes(b, false));
    record_body_pass(s, cmd, &push, FL_BODY_PASS_MEASURE);
    fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  }
}

void fl_cloth_record_publish(fl_cloth_system *s, const fl_mesh_normals *mn, VkCommandBuffer cmd, fl_profiler *prof,
                             uint32_t slot)
{
  uint32_t n = s->build.particle_count;
  int scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/publish", (uint64_t)n * 32);
  VkBufferCopy region = {0, 0, (VkDeviceSize)n * 16};
  vkCmdCopyBuffer(cmd, s->pos.buffer, s->snapshot[slot].buffer, 1, &region);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  fl_gpu_mesh counts = {.vertex_count = n, .triangle_count = s->build.triangle_count};
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "cloth/normals", fl_mesh_normals_bytes(&counts));
  fl_mesh_normals_record_binding(mn, cmd, &s->normals_binding[slot]);
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
  if (!s->skin_count) return;
  uint64_t bytes = 0;
  for (uint32_t k = 0; k < s->skin_count; k++) /* per vertex: its record, four positions, the output */
    bytes += (uint64_t)s->skins[k].mesh[slot].vertex_count * (32 + 4 * 16 + 16) + fl_mesh_normals_bytes(&s->skins[k].mesh[slot]);
  scope = fl_profiler_begin(prof, slot, FL_QUEUE_COMPUTE, cmd, "softbody/skin", bytes);
  fl_cmd_compute_barrier(cmd); /* the snapshot copy above is read by the skinning */
  for (uint32_t k = 0; k < s->skin_count; k++) {
    fl_cloth_skin *sk = &s->skins[k];
    fl_cloth_push push = {0};
    push.range[1] = sk->mesh[slot].vertex_count;
    fl_cmd_dispatch(cmd, &s->pipes.skin, sk->set[slot], &push, sk->mesh[slot].vertex_count);
    fl_mesh_normals_record(mn, cmd, &sk->mesh[slot]); /* barriers before and after */
  }
  fl_profiler_end(prof, slot, FL_QUEUE_COMPUTE, cmd, scope);
}
