/* sim/coupling/coupling: snow <-> XPBD coupling on the GPU (see coupling.h, docs/COUPLING.md). */
#include "sim/coupling/coupling.h"
#include "sim/coupling/surface_samples.h"

#include "core/log.h"
#include "sim/common/placement.h"

#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC4 16u

/* The push's layout as the kernels read it (std430 rows of 16 bytes). */
_Static_assert(sizeof(fl_coupling_push) == 96, "fl_coupling_push size");
_Static_assert(offsetof(fl_coupling_push, grid_dims) == 16 && offsetof(fl_coupling_push, inv_h) == 32 &&
                   offsetof(fl_coupling_push, momentum_scale) == 48 && offsetof(fl_coupling_push, block_grid_x) == 64 &&
                   offsetof(fl_coupling_push, gravity_h) == 80,
               "fl_coupling_push offsets");

static bool is_xpbd(fl_object_type t) { return t == FL_OBJECT_CLOTH || t == FL_OBJECT_SOFTBODY || t == FL_OBJECT_BALLOON; }

/* How each XPBD system object couples (0: not; FL_COUPLING_SURFACE: cloth, a sheet; FL_COUPLING_VOLUME:
 * soft bodies; FL_COUPLING_CLOSED: balloons, closed sheets; coupling_shared.h). The system orders its
 * objects as the XPBD row builds them (sim/xpbd/xpbd_material.c): the cloth objects in scene order, then the soft
 * bodies and balloons in scene order. */
static uint32_t coupled_objects(const fl_scene *scene, uint8_t *coupled)
{
  uint32_t n = 0;
  for (int bodies = 0; bodies < 2; bodies++)
    for (uint32_t i = 0; i < scene->object_count; i++) {
      const fl_scene_object *o = &scene->objects[i];
      if (is_xpbd(o->type) && (o->type != FL_OBJECT_CLOTH) == bodies)
        coupled[n++] = o->no_coupling              ? 0
                       : o->type == FL_OBJECT_SOFTBODY ? FL_COUPLING_VOLUME
                       : o->type == FL_OBJECT_BALLOON  ? FL_COUPLING_CLOSED
                                                       : FL_COUPLING_SURFACE;
    }
  return n;
}

/* Whether the scene's snow couples: its objects share one grid, so all or none do. */
static bool snow_couples(const fl_scene *scene, bool *couples)
{
  uint32_t snow = 0, out = 0;
  for (uint32_t i = 0; i < scene->object_count; i++)
    if (scene->objects[i].type == FL_OBJECT_SNOW) {
      snow++;
      out += scene->objects[i].no_coupling;
    }
  if (out && out != snow)
    return fl_error_set("\"coupling\": false is set on %u of the %u snow objects; snow objects share one grid, "
                        "so set it on all of them or on none", out, snow);
  *couples = snow && !out;
  return true;
}

/* The XPBD substeps of snow substep k of `snow` in a frame with `substeps` fixed XPBD substeps
 * (docs/COUPLING.md, substep order). "snow": m = ceil(substeps / snow) (1 when snow >= substeps) per snow
 * substep, the snow substep's time cut in m. "xpbd" (with snow >= substeps): the snow substeps are cut into
 * `substeps` runs, run g = [floor(g snow / substeps), floor((g + 1) snow / substeps)), and run g's
 * one XPBD substep covers the whole run's time, recorded in the run's last snow substep; the
 * others hold (count 0). Returns the count; *first the substep index of the first (of a hold: its
 * run's), *of the frame's XPBD substeps; run[0..1] the snow substeps of k's run, [run[0], run[1]). */
uint32_t fl_coupling_xpbd_substeps(fl_coupling_substeps mode, uint32_t snow, uint32_t substeps, uint32_t k,
                                   uint32_t *first, uint32_t *of, uint32_t run[2])
{
  if (snow < 1) snow = 1;
  if (mode == FL_COUPLING_SUBSTEPS_XPBD && snow >= substeps && substeps >= 1) {
    /* k's run: floor(g snow / substeps) <= k < floor((g + 1) snow / substeps) */
    uint32_t g = (uint32_t)(((uint64_t)(k + 1) * substeps - 1) / snow);
    *of = substeps;
    *first = g;
    run[0] = (uint32_t)((uint64_t)g * snow / substeps);
    run[1] = (uint32_t)((uint64_t)(g + 1) * snow / substeps);
    return run[1] == k + 1 ? 1 : 0;
  }
  uint32_t m = substeps > snow ? (substeps + snow - 1) / snow : 1;
  *of = snow * m;
  *first = k * m;
  run[0] = k;
  run[1] = k + 1;
  return m;
}

/* The snow's hook, once per snow substep [t - h, t], after its grid update. A substep that records
 * XPBD substeps couples: the contact (the XPBD state at the start of the run of snow substeps it
 * covers, met at x_p - lag v_p), the XPBD substeps covering the run's time T with the parcels
 * carried (the contact takes g T back from a carried parcel: the XPBD substeps give the pair g T),
 * then the release. In the "snow" order the run is the substep itself (lag 0). In the "xpbd" order
 * the run's other substeps come first and hold: every particle stops the snow as an immovable
 * boundary at x_p - lag v_p, and the free ones' reactions wait in the deferred words for the run's
 * coupled contact, so none is left pending at the frame's end (docs/COUPLING.md, substep order). */
static void hook(void *ctx, fl_rec *r, float h, float t, uint32_t k, uint32_t snow)
{
  fl_coupling *c = ctx;
  const fl_step *f = &c->frame;
  uint32_t first, of, run[2];
  uint32_t m = fl_coupling_xpbd_substeps(f->sim->coupling_substeps, snow, f->sim->substeps, k, &first, &of, run);
  if (k == 0 && of > f->sim->substeps && of > c->xpbd_most) /* the load check saw sim.substeps only */
    fl_warn_repeated("coupled substeps too short", "coupling",
                     "coupling: in sim.coupling_substeps \"snow\" the XPBD substeps follow the snow's %u a frame, "
                     "%.3g s each: too short for float positions, so a cloth or body particle at rest at %g m (the "
                     "largest coordinate one starts at) would never fall (at most %u work there); use "
                     "sim.coupling_substeps \"xpbd\", or snow that needs fewer substeps (a lower E0, a coarser "
                     "grid_spacing)", of, (double)f->dt / of, c->xpbd_far, c->xpbd_most);
  /* The XPBD state is at the run's start: lag = xpbd_time - t is 0 in the run's first snow substep (the
   * contact's convention) and -(k - run[0]) h in substep k, the boundary carried forward to it. */
  c->xpbd_time = (double)t - (double)h * (double)(k - run[0]);
  fl_coupling_push push;
  fl_coupling_push_fill(c, h, t, &push);
  if (!m) { /* a hold substep */
    push.hold = 1;
    fl_coupling_record_contact(c, r, &push);
    fl_coupling_record_release(c, r, &push);
    return;
  }
  double t_end = f->t0 + (double)f->dt * run[1] / snow, covered = (double)f->dt * (run[1] - run[0]) / snow;
  for (int a = 0; a < 3; a++) push.gravity_h[a] *= (float)(run[1] - run[0]); /* g h per snow substep covered */
  fl_coupling_record_contact(c, r, &push);
  for (uint32_t j = 0; j < m; j++) {
    fl_step step = fl_step_sub(f, first + j, of);
    if (of != snow * m) { /* a run's one substep: its exact span (runs may differ by one snow substep) */
      step.h = (float)covered;
      step.inv_h = 1.0f / step.h;
      step.t = (float)t_end;
    }
    fl_xpbd_record_substep(c->xpbd, r, &step);
  }
  c->xpbd_substeps += m;
  fl_coupling_record_release(c, r, &push);
}

/* The node accumulator: FL_COUPLING_NODE_WORDS words a node of the snow's grid. */
static uint64_t accum_bytes(const fl_snow_system *snow)
{
  return (uint64_t)snow->build.block_capacity * FL_SNOW_BLOCK_NODES * FL_COUPLING_NODE_WORDS * 4;
}

bool fl_coupling_create(fl_gpu *gpu, const fl_scene *scene, fl_snow_system *snow, fl_xpbd_system *xpbd,
                        fl_coupling *out)
{
  memset(out, 0, sizeof *out);
  bool snow_on = false;
  if (!snow_couples(scene, &snow_on)) return false;
  if (!snow_on || !snow || !xpbd || !snow->build.count) return true;
  uint8_t object_on[FL_SCENE_MAX_OBJECTS] = {0};
  uint32_t objects = coupled_objects(scene, object_on);
  const fl_xpbd_build *b = &xpbd->build;
  if (objects != b->object_count)
    return fl_error_set("coupling: the XPBD system has %u objects, the scene %u", b->object_count, objects);
  uint32_t n = b->particle_count, *on = calloc(n ? n : 1, 4), count = 0;
  if (!on) return fl_error_set("out of host memory");
  for (uint32_t k = 0; k < b->object_count; k++)
    for (uint32_t p = b->objects[k].first; p < b->objects[k].first + b->objects[k].count; p++) {
      on[p] = object_on[k];
      count += object_on[k] != 0;
    }
  if (!count) {
    free(on);
    return true;
  }
  *out = (fl_coupling){.gpu = gpu, .snow = snow, .xpbd = xpbd, .particle_count = n, .coupled_count = count,
                       .friction = snow->build.materials[0].friction,
                       /* the snow's fixed-point momentum unit, 4x coarser for headroom (coupling_shared.h) */
                       .momentum_scale = ldexpf(snow->build.momentum_scale,
                                                FL_COUPLING_MOMENTUM_BITS - FL_SNOW_FIXED_MOMENTUM_BITS),
                       .min_mass = (float)(FL_COUPLING_MIN_SHARE * ldexp(1.0, FL_SNOW_FIXED_MOMENTUM_BITS) /
                                           snow->build.momentum_scale)};
  out->xpbd_most = UINT32_MAX;
  for (uint32_t k = 0; k < b->object_count; k++) { /* each object's own start, not a tear's spare slots */
    double far = 0;
    uint32_t most = fl_substep_resolution_most((const float(*)[4])b->positions + b->objects[k].first,
                                               b->objects[k].count, &scene->sim, &far);
    if (most < out->xpbd_most) out->xpbd_most = most;
    if (far > out->xpbd_far) out->xpbd_far = far;
  }
  void *zero = calloc(n, FL_COUPLING_DEFERRED_WORDS * 4);
  bool ok = fl_buffer_create_with(gpu, on, (uint64_t)n * 4, "coupling particles", &out->coupled) &&
            fl_buffer_create(gpu, accum_bytes(snow), FL_MEMORY_DEVICE, "coupling accumulator", &out->accum) &&
            fl_buffer_create(gpu, (uint64_t)n * FL_COUPLING_ATTACH_VEC4S * VEC4, FL_MEMORY_DEVICE,
                             "coupling attachments", &out->attach) &&
            zero && fl_buffer_create_with(gpu, zero, (uint64_t)n * FL_COUPLING_DEFERRED_WORDS * 4,
                                          "coupling deferred", &out->deferred) &&
            fl_buffer_create(gpu, 2 * VEC4, FL_MEMORY_DEVICE, "coupling sums", &out->sums) &&
            fl_buffer_create(gpu, (uint64_t)n * VEC4, FL_MEMORY_DEVICE, "coupling normals", &out->normals) &&
            fl_buffer_create(gpu, (uint64_t)(b->triangle_count ? b->triangle_count : 1) * VEC4, FL_MEMORY_DEVICE,
                             "coupling face normals", &out->face_normals) &&
            fl_buffer_create(gpu, (uint64_t)n * VEC4, FL_MEMORY_DEVICE, "coupling surface accumulator",
                             &out->surface_accum) &&
            fl_coupling_set_samples(out, (const float(*)[4])b->positions, on);
  for (uint32_t k = 0; k < FL_GPU_FRAMES_IN_FLIGHT && ok; k++)
    ok = fl_buffer_create(gpu, 2 * VEC4, FL_MEMORY_READBACK, "coupling sums readback", &out->readback[k]);
  if (!zero) ok = fl_error_set("out of host memory");
  free(on);
  free(zero);
  if (!ok) {
    fl_coupling_destroy(out);
    return false;
  }
  snow->couple = hook;
  snow->couple_ctx = out;
  fl_info("coupling: %u of %u XPBD particles and %u surface samples meet the snow's grid", count, n,
          out->sample_count);
  return true;
}

bool fl_coupling_set_samples(fl_coupling *c, const float (*pos)[4], const uint32_t *coupled)
{
  const fl_xpbd_build *b = &c->xpbd->build;
  uint32_t(*s)[4] = NULL, count = 0;
  if (!fl_coupling_surface_samples(pos, b->triangles, b->triangle_count, coupled, c->snow->build.h, &s, &count))
    return fl_error_set("out of host memory");
  uint64_t impulses = ((uint64_t)c->particle_count + count) * VEC4;
  void *zero = calloc(1, impulses);
  fl_buffer_destroy(c->gpu, &c->samples);
  fl_buffer_destroy(c->gpu, &c->sample_attach);
  fl_buffer_destroy(c->gpu, &c->impulse);
  c->sample_count = count;
  bool ok = zero &&
            fl_buffer_create_with(c->gpu, s ? (const void *)s : zero, (uint64_t)(count ? count : 1) * VEC4,
                                  "coupling surface samples", &c->samples) &&
            fl_buffer_create(c->gpu, (uint64_t)(count ? count : 1) * FL_COUPLING_SAMPLE_VEC4S * VEC4,
                             FL_MEMORY_DEVICE, "coupling sample attachments", &c->sample_attach) &&
            fl_buffer_create_with(c->gpu, zero, impulses, "coupling impulses", &c->impulse);
  if (!zero) fl_error_set("out of host memory");
  free(s);
  free(zero);
  return ok;
}

void fl_coupling_destroy(fl_coupling *c)
{
  if (!c->gpu) return;
  if (c->snow && c->snow->couple_ctx == c) {
    c->snow->couple = NULL;
    c->snow->couple_ctx = NULL;
  }
  fl_buffer_destroy(c->gpu, &c->coupled);
  fl_buffer_destroy(c->gpu, &c->accum);
  fl_buffer_destroy(c->gpu, &c->impulse);
  fl_buffer_destroy(c->gpu, &c->attach);
  fl_buffer_destroy(c->gpu, &c->deferred);
  fl_buffer_destroy(c->gpu, &c->sums);
  fl_buffer_destroy(c->gpu, &c->normals);
  fl_buffer_destroy(c->gpu, &c->face_normals);
  fl_buffer_destroy(c->gpu, &c->samples);
  fl_buffer_destroy(c->gpu, &c->sample_attach);
  fl_buffer_destroy(c->gpu, &c->surface_accum);
  for (uint32_t k = 0; k < FL_GPU_FRAMES_IN_FLIGHT; k++) fl_buffer_destroy(c->gpu, &c->readback[k]);
  memset(c, 0, sizeof *c);
}

bool fl_coupling_fit_grid(fl_coupling *c)
{
  if (!c->gpu || c->accum.size >= accum_bytes(c->snow)) return true;
  fl_buffer_destroy(c->gpu, &c->accum);
  return fl_buffer_create(c->gpu, accum_bytes(c->snow), FL_MEMORY_DEVICE, "coupling accumulator", &c->accum);
}

void fl_coupling_push_fill(const fl_coupling *c, float h, float t, fl_coupling_push *out)
{
  const fl_snow_build *b = &c->snow->build;
  const float *g = c->frame.sim ? c->frame.sim->gravity : (const float[3]){0, 0, 0};
  *out = (fl_coupling_push){.h = b->h, .particle_count = c->particle_count, .inv_h = 1.0f / b->h,
                            .lag = (float)(c->xpbd_time - (double)t), .friction = c->friction,
                            .weight_scale = ldexpf(1.0f, FL_COUPLING_WEIGHT_BITS), .sample_count = c->sample_count,
                            .momentum_scale = c->momentum_scale, .min_mass = c->min_mass,
                            .node_count = b->block_capacity * FL_SNOW_BLOCK_NODES, .hash_mask = b->hash_entries - 1,
                            .block_grid_x = b->block_dims[0], .block_grid_y = b->block_dims[1]};
  for (int a = 0; a < 3; a++) {
    out->gravity_h[a] = g[a] * h;
    out->grid_origin[a] = b->origin[a];
    out->grid_dims[a] = b->dims[a];
  }
}

void fl_coupling_record_begin(fl_coupling *c, fl_rec *r, const fl_step *frame)
{
  if (!c->gpu) return;
  c->frame = *frame;
  c->xpbd_time = frame->t0;
  c->normals_current = false; /* the XPBD state may have changed between frames (a reset, the picker) */
  vkCmdFillBuffer(r->cmd, c->impulse.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_rec_barrier(r);
}

/* The snow's nodes in use: the blocks of the latest collected frame's busiest substep (all allocated
 * ones before any frame was collected). Only particles near snow find nodes; the rest stop at the
 * block hash, so a pass's node traffic is bounded by these. */
static uint64_t nodes_in_use(const fl_coupling *c)
{
  const fl_snow_system *s = c->snow;
  uint32_t blocks = s->last.valid ? s->last.blocks_peak : s->build.block_capacity;
  return (uint64_t)blocks * FL_SNOW_BLOCK_NODES;
}

uint64_t fl_coupling_weights_bytes(const fl_coupling *c)
{
  /* Each particle reads x, v and its flag; each node in use gets its weight word. */
  return (uint64_t)c->coupled_count * (16 + 16 + 4) + nodes_in_use(c) * 4;
}

uint64_t fl_coupling_particle_bytes(const fl_coupling *c, bool hold)
{
  /* Each particle reads x, v and its flag, and a contact (not a hold) its deferred words; each node in
   * use is read (velocity and mass, weight) and its impulse words written. The contacts' velocity,
   * impulse and deferred writes are not counted (few). */
  return (uint64_t)c->coupled_count * (16 + 16 + 4 + (hold ? 0 : 16)) + nodes_in_use(c) * (16 + 16);
}

uint64_t fl_coupling_release_bytes(const fl_coupling *c)
{
  /* Each particle reads its flag and first attachment word; the attached ones (about the particles near
   * snow, bounded by the contact's) read the rest, x and v, write them, and add to their nodes' words. */
  return (uint64_t)c->coupled_count * (4 + 16) + (uint64_t)c->coupled_count * (32 + 32 + 32) +
         nodes_in_use(c) * (16 + 16);
}

uint64_t fl_coupling_apply_bytes(const fl_coupling *c)
{
  /* Every allocated node's accumulator is read; the nodes in use read and write their velocity. */
  uint64_t nodes = (uint64_t)c->snow->build.block_capacity * FL_SNOW_BLOCK_NODES;
  return nodes * FL_COUPLING_NODE_WORDS * 4 + nodes_in_use(c) * 32;
}

uint64_t fl_coupling_surface_weights_bytes(const fl_coupling *c)
{
  /* Each sample reads itself, its triangle, its first vertex's coupled word (its share rule) and its 3
   * vertices' x and v; each node in use gets its weight word and its mark (gridv[2i + 1].w). */
  return (uint64_t)c->sample_count * (16 + 12 + 4 + 3 * 32) + nodes_in_use(c) * 8;
}

uint64_t fl_coupling_surface_bytes(const fl_coupling *c)
{
  /* surface_contact: each sample as in surface_weights, and its attachment written; each node in use
   * read (velocity and mass, weight); each particle's surface words added to. surface_release reads
   * the same and adds to the nodes' impulse words instead (the same count, within its impulse). */
  return (uint64_t)c->sample_count * (16 + 12 + 4 + 3 * 32 + 32) + nodes_in_use(c) * (16 + 16) +
         (uint64_t)c->coupled_count * 16;
}

/* The buffers of the surface kernels: shaders/coupling/surface_bindings.glsl's bindings 0-12, in order. */
#define SURFACE_BUFFERS(c, s, x)                                                                                    \
  FL_BUFFERS(&(x)->pos, &(x)->vel, &(c)->samples, &(s)->block_hash, &(c)->accum, &(s)->gridv, &(c)->impulse,       \
             &(c)->sample_attach, &(c)->face_normals, &(x)->triangles, &(c)->surface_accum, &(c)->coupled,         \
             &(c)->deferred)
/* The buffers of contact and release: shaders/coupling/coupling_bindings.glsl's bindings 0-10, in order. */
#define PARTICLE_BUFFERS(c, s, x)                                                                                   \
  FL_BUFFERS(&(x)->pos, &(x)->vel, &(c)->coupled, &(s)->block_hash, &(c)->accum, &(s)->gridv, &(c)->impulse,       \
             &(c)->attach, &(c)->normals, &(c)->surface_accum, &(c)->deferred)

bool fl_coupling_records_substeps(const fl_coupling *c, const void *m) { return c->gpu && m == c->xpbd; }

void fl_coupling_record_contact(fl_coupling *c, fl_rec *r, const fl_coupling_push *push)
{
  fl_snow_system *s = c->snow;
  fl_xpbd_system *x = c->xpbd;
  /* the sheets' normals at the XPBD state the contact meets (the publish's are once a frame, of the
   * snapshot), into the coupling's own buffers: common/face_normals + vertex_normals */
  if (!c->normals_current) { /* once per XPBD state: a run's holds and contact share it */
    fl_gpu_mesh counts = {.vertex_count = c->particle_count, .triangle_count = x->build.triangle_count};
    fl_rec_begin(r, "coupling/normals", fl_mesh_normals_bytes(&counts));
    fl_mesh_normals_record_binding(r, &(fl_mesh_normals_binding){&x->pos, &x->triangles, &c->face_normals,
                                                                 &x->tri_first, &x->tri_items, &c->normals,
                                                                 x->build.triangle_count, c->particle_count});
    fl_rec_end(r);
    c->normals_current = true;
  }
  fl_rec_begin(r, "coupling/clear", c->accum.size + c->surface_accum.size);
  vkCmdFillBuffer(r->cmd, c->accum.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(r->cmd, c->surface_accum.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_rec_end(r);
  fl_rec_barrier(r);
  fl_rec_pass(r, &(fl_pass){.name = "coupling/weights", .bytes = fl_coupling_weights_bytes(c),
                            .kernel = "coupling/weights", FL_PUSH(*push), .threads = c->particle_count,
                            FL_BUFFERS(&x->pos, &x->vel, &c->coupled, &s->block_hash, &c->accum)});
  if (c->sample_count) {
    fl_rec_pass(r, &(fl_pass){.name = "coupling/surface_weights", .bytes = fl_coupling_surface_weights_bytes(c),
                              .kernel = "coupling/surface_weights", FL_PUSH(*push), .threads = c->sample_count,
                              SURFACE_BUFFERS(c, s, x)});
    fl_rec_pass(r, &(fl_pass){.name = push->hold ? "coupling/surface_hold" : "coupling/surface_contact",
                              .bytes = fl_coupling_surface_bytes(c),
                              .kernel = "coupling/surface_contact", FL_PUSH(*push), .threads = c->sample_count,
                              SURFACE_BUFFERS(c, s, x)});
  }
  fl_rec_pass(r, &(fl_pass){.name = push->hold ? "coupling/hold" : "coupling/contact",
                            .bytes = fl_coupling_particle_bytes(c, push->hold), .kernel = "coupling/contact",
                            FL_PUSH(*push), .threads = c->particle_count, PARTICLE_BUFFERS(c, s, x)});
}

void fl_coupling_record_release(fl_coupling *c, fl_rec *r, const fl_coupling_push *push)
{
  fl_snow_system *s = c->snow;
  fl_xpbd_system *x = c->xpbd;
  if (!push->hold) { /* a hold carried nothing: nothing to release */
    fl_rec_pass(r, &(fl_pass){.name = "coupling/release", .bytes = fl_coupling_release_bytes(c),
                              .kernel = "coupling/release", FL_PUSH(*push), .threads = c->particle_count,
                              PARTICLE_BUFFERS(c, s, x)});
    if (c->sample_count)
      fl_rec_pass(r, &(fl_pass){.name = "coupling/surface_release", .bytes = fl_coupling_surface_bytes(c),
                                .kernel = "coupling/surface_release", FL_PUSH(*push), .threads = c->sample_count,
                                SURFACE_BUFFERS(c, s, x)});
  }
  fl_rec_pass(r, &(fl_pass){.name = "coupling/apply", .bytes = fl_coupling_apply_bytes(c), .kernel = "coupling/apply",
                            FL_PUSH(*push), .threads = push->node_count, FL_BUFFERS(&c->accum, &s->gridv)});
  if (push->hold) c->hold_substeps++;
  else c->substeps++;
  /* after a coupled substep the XPBD state moves on (its substeps ran between the halves) */
  if (!push->hold) c->normals_current = false;
}

void fl_coupling_record_end(fl_coupling *c, fl_rec *r)
{
  if (!c->gpu) return;
  fl_coupling_push push;
  fl_coupling_push_fill(c, c->frame.dt, (float)c->xpbd_time, &push);
  push.particle_count += c->sample_count; /* the samples' impulses follow the particles' */
  fl_rec_pass(r, &(fl_pass){.name = "coupling/sum", .bytes = (uint64_t)push.particle_count * VEC4 + 2 * VEC4,
                            .kernel = "coupling/sum", .workgroup = FL_COUPLING_SUM_GROUP, FL_PUSH(push), .groups = 1,
                            FL_BUFFERS(&c->impulse, &c->sums)});
  VkBufferCopy copy = {0, 0, 2 * VEC4};
  vkCmdCopyBuffer(r->cmd, c->sums.buffer, c->readback[r->slot].buffer, 1, &copy);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  c->pending[r->slot] = true;
}

void fl_coupling_collect(fl_coupling *c, uint32_t slot)
{
  if (!c->gpu || !c->pending[slot]) return;
  c->pending[slot] = false;
  const float *f = c->readback[slot].mapped;
  fl_coupling_figures *g = &c->figures;
  for (int a = 0; a < 3; a++) g->last[a] = f[a];
  g->last_magnitude = f[3];
  g->last_contacts = (uint32_t)f[4];
  g->total_magnitude += f[3];
  if (f[3] > g->max_magnitude) g->max_magnitude = f[3];
  g->frames++;
}

void fl_coupling_summary(const fl_coupling *c, fl_material_summary *out)
{
  const fl_coupling_figures *g = &c->figures;
  double mean = g->frames ? g->total_magnitude / (double)g->frames : 0.0;
  fl_stats_number(&out->report, "coupling", "coupled_particles", c->coupled_count);
  fl_stats_number(&out->report, "coupling", "substeps", (double)c->substeps);
  fl_stats_number(&out->report, "coupling", "xpbd_substeps", (double)c->xpbd_substeps);
  fl_stats_number(&out->report, "coupling", "hold_substeps", (double)c->hold_substeps);
  fl_stats_number(&out->report, "coupling", "frames", (double)g->frames);
  fl_stats_vec3(&out->report, "coupling", "momentum_exchanged_last_frame", g->last);
  fl_stats_number(&out->report, "coupling", "impulse_last_frame", g->last_magnitude);
  fl_stats_number(&out->report, "coupling", "impulse_mean_per_frame", mean);
  fl_stats_number(&out->report, "coupling", "impulse_max_per_frame", g->max_magnitude);
  fl_stats_number(&out->report, "coupling", "contacts_last_frame", g->last_contacts);
  snprintf(out->run_line, sizeof out->run_line,
           "coupling: %u XPBD particles; momentum exchanged per frame: mean %.4g N s, max %.4g N s (sum of |J|); "
           "last frame %.4g N s over %u particles",
           c->coupled_count, mean, g->max_magnitude, g->last_magnitude, g->last_contacts);
}
