/* sim/mpm/snow: the MPM snow system on the GPU (see snow.h). */
#include "sim/mpm/snow.h"

#include "core/log.h"
#include "core/env.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define VEC4 16u

/* The scatter kernel of a path (the gather path scatters at load only, straight into the grid). */
static const char *p2g_kernel(const fl_snow_system *s)
{
  if (s->p2g == FL_SNOW_P2G_TILE)
    return s->fixed_point          ? "mpm/p2g_fixed_tile"
           : s->tile_shared_float ? "mpm/p2g_float_tile_shared"
                                  : "mpm/p2g_float_tile";
  return s->fixed_point ? "mpm/p2g_fixed" : "mpm/p2g_float";
}

/* Chooses the P2G path from sim.mpm_atomics and the device. */
static bool choose_atomics(fl_gpu *gpu, const fl_sim_desc *sim, bool *fixed_point)
{
  switch (sim->mpm_atomics) {
  case FL_MPM_ATOMICS_FIXED: *fixed_point = true; return true;
  case FL_MPM_ATOMICS_FLOAT:
    if (!gpu->has_float_atomic_add)
      return fl_error_set("sim.mpm_atomics \"float\": this device lacks float atomic add on buffers "
                          "(VK_EXT_shader_atomic_float shaderBufferFloat32AtomicAdd); use \"auto\" or \"fixed\"");
    *fixed_point = false;
    return true;
  case FL_MPM_ATOMICS_AUTO: break;
  }
  *fixed_point = !gpu->has_float_atomic_add;
  return true;
}

/* The fused kernel (mpm/g2p2g.glsl) adds into the grid with float atomics only. */
static bool g2p2g_check(bool fixed_point)
{
  if (!fixed_point) return true;
  return fl_error_set("sim.snow_transfer \"g2p2g\" adds with float atomics (VK_EXT_shader_atomic_float "
                      "shaderBufferFloat32AtomicAdd), which this device lacks or sim.mpm_atomics \"fixed\" "
                      "turned off; use \"separate\"");
}

static bool make_buffer(fl_gpu *gpu, uint64_t bytes, fl_memory_kind kind, const char *what, fl_buffer *out)
{
  char label[96];
  snprintf(label, sizeof label, "snow %s", what);
  return fl_buffer_create(gpu, bytes ? bytes : 16, kind, label, out);
}

/* The most blocks one storage buffer of the grid (32 bytes a node) can hold. */
static uint64_t device_max_blocks(const fl_gpu *gpu)
{
  return gpu->props.limits.maxStorageBufferRange / ((uint64_t)FL_SNOW_BLOCK_NODES * 32);
}

static uint64_t grid_nodes(const fl_snow_system *s) { return (uint64_t)s->build.block_capacity * FL_SNOW_BLOCK_NODES; }

static bool create_implicit(fl_snow_system *s)
{
  fl_snow_implicit_inputs in = {.pos = &s->pos, .vel = &s->vel, .fe = &s->fe, .acc = &s->acc, .gridv = &s->gridv,
                                .colliders = s->colliders, .materials = &s->materials,
                                .block_hash = &s->block_hash, .blocks = &s->blocks, .particles = s->build.count,
                                .nodes = (uint32_t)grid_nodes(s), .compare_and_swap = s->fixed_point};
  return fl_snow_implicit_create(s->gpu, &in, &s->implicit);
}

/* The buffers sized by the grid's block capacity (the accumulator, velocities, block hash and keys,
 * the gather's bins, the semi-implicit solve's vectors): made at load and again when the grid grows. */
static bool create_grid_buffers(fl_snow_system *s)
{
  fl_gpu *gpu = s->gpu;
  const fl_snow_build *b = &s->build;
  uint64_t nodes = (uint64_t)b->block_capacity * FL_SNOW_BLOCK_NODES;
  return make_buffer(gpu, nodes * 32, FL_MEMORY_DEVICE, "grid accumulator", &s->acc) &&
         make_buffer(gpu, nodes * 32, FL_MEMORY_DEVICE, "grid velocities", &s->gridv) &&
         make_buffer(gpu, (uint64_t)b->hash_entries * 8, FL_MEMORY_DEVICE, "grid block hash", &s->block_hash) &&
         make_buffer(gpu, (uint64_t)b->block_capacity * 4, FL_MEMORY_DEVICE, "grid blocks", &s->blocks) &&
         (!s->g2p2g || (make_buffer(gpu, (uint64_t)b->hash_entries * 8, FL_MEMORY_DEVICE, "next grid block hash",
                                    &s->block_hash_next) &&
                        make_buffer(gpu, (uint64_t)b->block_capacity * 4, FL_MEMORY_DEVICE, "next grid blocks",
                                    &s->blocks_next))) &&
         fl_snow_gather_create(gpu, b->count, (uint32_t)nodes, &s->gather) &&
         (!(b->beta > 0) || create_implicit(s));
}

static void destroy_grid_buffers(fl_snow_system *s)
{
  fl_buffer *buffers[] = {&s->acc, &s->gridv, &s->block_hash, &s->blocks, &s->block_hash_next, &s->blocks_next};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(s->gpu, buffers[i]);
  fl_snow_gather_destroy(&s->gather);
  fl_snow_implicit_destroy(&s->implicit);
}

static bool create_buffers(fl_snow_system *s)
{
  fl_gpu *gpu = s->gpu;
  const fl_snow_build *b = &s->build;
  uint64_t n = b->count;
  bool volume = b->node_count <= FL_SNOW_MAX_VOLUME_NODES;
  bool ok = make_buffer(gpu, n * VEC4, FL_MEMORY_DEVICE, "positions", &s->pos) &&
            make_buffer(gpu, n * VEC4, FL_MEMORY_DEVICE, "velocities", &s->vel) &&
            make_buffer(gpu, 3 * n * VEC4, FL_MEMORY_DEVICE, "elastic F", &s->fe) &&
            make_buffer(gpu, 2 * n * VEC4, FL_MEMORY_DEVICE, "stress", &s->stress) &&
            make_buffer(gpu, 3 * n * VEC4, FL_MEMORY_DEVICE, "affine", &s->affine) &&
            make_buffer(gpu, 3 * n * VEC4, FL_MEMORY_DEVICE, "sort scratch", &s->scratch) &&
            make_buffer(gpu, FL_SNOW_STAT_WORDS * 4, FL_MEMORY_DEVICE, "stats", &s->stats) &&
            fl_buffer_create_with(gpu, b->materials, sizeof b->materials, "snow materials", &s->materials) &&
            create_grid_buffers(s);
  for (uint32_t k = 0; k < FL_GPU_FRAMES_IN_FLIGHT && ok; k++)
    ok = make_buffer(gpu, n * VEC4, FL_MEMORY_DEVICE, "snapshot", &s->snapshot[k]) &&
         (!volume || make_buffer(gpu, (uint64_t)b->node_count * 4, FL_MEMORY_DEVICE, "density volume",
                                 &s->density[k])) &&
         make_buffer(gpu, FL_SNOW_STAT_WORDS * 4, FL_MEMORY_READBACK, "stats readback", &s->stats_readback[k]);
  ok = ok && fl_buffer_upload(gpu, &s->pos, 0, b->pos, n * VEC4) &&
       fl_buffer_upload(gpu, &s->vel, 0, b->vel, n * VEC4) &&
       fl_buffer_upload(gpu, &s->fe, 0, b->fe, 3 * n * VEC4) &&
       fl_buffer_upload(gpu, &s->stress, 0, b->stress, 2 * n * VEC4) &&
       fl_buffer_upload(gpu, &s->affine, 0, b->affine, 3 * n * VEC4);
  return ok;
}

static void push_for(const fl_snow_system *s, float dt, float t, fl_mpm_push *out)
{
  fl_snow_push_fill(&s->build, s->sim, s->collider_count, s->fixed_point, dt, t, out);
}

const char *fl_snow_p2g_name(fl_snow_p2g p2g)
{
  return p2g == FL_SNOW_P2G_TILE ? "tile" : p2g == FL_SNOW_P2G_GATHER ? "gather" : "direct";
}

/* The P2G path: atomics straight into the grid on GPUs; on CPU drivers the gather from
 * FL_SNOW_GATHER_MIN_PARTICLES particles up and the scatter below (measured on lavapipe, quiet, 2026-11-27:
 * at 448 particles a substep's P2G took 0.81 ms scattered against 1.45 gathered, at 1 331 2.8 against
 * 3.0, at 3 840 the same, at 7 600 10.7 against 9.4: the gather's five dispatches a substep cost more
 * than the scatter's atomics until about 4 000 particles); or FLURRY_SNOW_P2G ("tile", "direct" or
 * "gather"). The tile with compare-and-swap adds was the GPU default until the first GPU run: on an
 * H100 its P2G took 100x G2P's time (docs/PERFORMANCE.md, "First run on a GPU"), so GPUs take the
 * direct scatter until the paths are measured side by side. */
#define FL_SNOW_GATHER_MIN_PARTICLES 4096u
static fl_snow_p2g choose_p2g(const fl_gpu *gpu, uint32_t particles)
{
  switch (fl_env_get()->snow_p2g) { /* checked at start with the other FLURRY_* variables */
  case 1: return FL_SNOW_P2G_TILE;
  case 2: return FL_SNOW_P2G_DIRECT;
  case 3: return FL_SNOW_P2G_GATHER;
  default: break;
  }
  bool cpu = gpu->props.deviceType == VK_PHYSICAL_DEVICE_TYPE_CPU;
  return cpu && particles >= FL_SNOW_GATHER_MIN_PARTICLES ? FL_SNOW_P2G_GATHER : FL_SNOW_P2G_DIRECT;
}


/* Clear and block allocation of one substep (`scatter`: the accumulator is cleared for a scatter;
 * the gather writes every word; `margin`: cells added around each stencil, mpm/blocks.comp). */
static void record_clear_blocks(const fl_snow_system *s, fl_rec *r, const fl_mpm_push *push, bool scatter,
                                uint32_t margin)
{
  fl_rec_begin(r, "snow/clear", (scatter ? grid_nodes(s) * 32 : 0) + s->block_hash.size);
  if (scatter) vkCmdFillBuffer(r->cmd, s->acc.buffer, 0, VK_WHOLE_SIZE, 0);
  vkCmdFillBuffer(r->cmd, s->block_hash.buffer, 0, VK_WHOLE_SIZE, FL_SNOW_NO_BLOCK);
  vkCmdFillBuffer(r->cmd, s->stats.buffer, FL_SNOW_STAT_CLAMPED * 4, 4, 0);
  vkCmdFillBuffer(r->cmd, s->stats.buffer, FL_SNOW_STAT_BLOCKS * 4, 4, 0);
  fl_rec_end(r);
  fl_rec_barrier(r);
  fl_mpm_push pc = *push;
  pc.arg = margin;
  /* Each particle reads its position and its predecessor's; the blocks' hash entries and keys are written once. */
  fl_rec_pass(r, &(fl_pass){.name = "snow/blocks", .bytes = (uint64_t)s->build.count * 32 + s->blocks.size * 3,
                            .kernel = "mpm/blocks", FL_PUSH(pc), .threads = s->build.count,
                            FL_BUFFERS(&s->pos, &s->block_hash, &s->blocks, &s->stats)});
}

/* The scatter P2G of particles first .. first + count - 1 (push arg: the first). */
static void record_p2g(const fl_snow_system *s, fl_rec *r, const fl_mpm_push *push, uint32_t first, uint32_t count)
{
  fl_mpm_push pc = *push;
  pc.arg = first;
  fl_rec_pass(r, &(fl_pass){.name = "snow/p2g", .bytes = fl_snow_p2g_bytes(s), .kernel = p2g_kernel(s),
                            FL_PUSH(pc), .threads = count,
                            FL_BUFFERS(&s->pos, &s->vel, &s->stress, &s->affine, &s->acc, &s->materials,
                                       &s->block_hash)});
}

static void record_grid(const fl_snow_system *s, fl_rec *r, const fl_mpm_push *push)
{
  fl_rec_pass(r, &(fl_pass){.name = "snow/grid", .bytes = fl_snow_grid_bytes(s), .kernel = "mpm/grid_update",
                            FL_PUSH(*push), .threads = grid_nodes(s),
                            FL_BUFFERS(&s->acc, &s->gridv, s->colliders, &s->materials, &s->blocks, s->colliders)});
}

const char *fl_snow_transfer_kernel(const fl_snow_build *b, const char *kernel, char *out, size_t size)
{
  const char *only = b->any_pic_flip && !b->any_apic ? "_pic_flip" : b->any_apic && !b->any_pic_flip ? "_apic" : "";
  snprintf(out, size, "%s%s", kernel, only);
  return out;
}

/* What the gather reads of a particle: x, v, K, and C when a material is APIC. */
static uint32_t gather_particle_bytes(const fl_snow_system *s)
{
  return 16 + 16 + 32 + (s->build.material_count && !s->build.any_pic_flip ? 48 : 0);
}

/* Clear, block allocation, P2G and grid update of one substep. */
static void record_p2g_grid(const fl_snow_system *s, fl_rec *r, const fl_mpm_push *push)
{
  bool gather = s->p2g == FL_SNOW_P2G_GATHER;
  record_clear_blocks(s, r, push, !gather, 0);
  if (gather) {
    char kernel[64];
    fl_snow_gather_inputs in = {&s->pos, &s->vel, &s->stress, &s->affine, &s->acc, &s->materials,
                                &s->block_hash, &s->blocks, &s->stats, gather_particle_bytes(s),
                                fl_snow_transfer_kernel(&s->build, "mpm/p2g_gather", kernel, sizeof kernel)};
    fl_rec_begin(r, "snow/p2g", fl_snow_gather_total_bytes(&s->gather, in.particle_bytes));
    fl_snow_gather_record(&s->gather, r, push, &in);
    fl_rec_end(r);
  } else {
    record_p2g(s, r, push, 0, s->build.count);
  }
  record_grid(s, r, push);
}

/* The load-time passes of Stomakhin 2013 step 2 (P2G, a dt = 0 grid update, the volumes), each
 * particle pass submitted in chunks of FL_SNOW_LOAD_CHUNK particles, so that no submission of a
 * large scene on a slow device nears the bounded wait of a one-shot submission (waits). */
#define FL_SNOW_LOAD_CHUNK (1u << 17)
static bool first_volumes(fl_snow_system *s, fl_descriptor_cache *sets)
{
  fl_mpm_push push;
  push_for(s, 0.0f, 0.0f, &push);
  uint32_t n = s->build.count, chunks = (n + FL_SNOW_LOAD_CHUNK - 1) / FL_SNOW_LOAD_CHUNK;
  fl_rec once, *r = &once;
  bool ok = fl_rec_begin_once(s->gpu, sets, r);
  if (ok) record_clear_blocks(s, r, &push, true, 0);
  ok = ok && fl_rec_end_once(r);
  for (uint32_t pass = 0; pass < 2 && ok; pass++) /* P2G, then the volumes */
    for (uint32_t c = 0; c < chunks && ok; c++) {
      uint32_t first = c * FL_SNOW_LOAD_CHUNK, count = n - first < FL_SNOW_LOAD_CHUNK ? n - first : FL_SNOW_LOAD_CHUNK;
      ok = fl_rec_begin_once(s->gpu, sets, r);
      if (!ok) break;
      if (pass == 0) record_p2g(s, r, &push, first, count);
      if (pass == 1 && c == 0) record_grid(s, r, &push);
      if (pass == 1) {
        fl_mpm_push pc = push;
        pc.arg = first;
        fl_rec_pass(r, &(fl_pass){.kernel = "mpm/volumes", FL_PUSH(pc), .threads = count,
                                  FL_BUFFERS(&s->pos, &s->vel, &s->stress, &s->gridv, &s->materials,
                                             &s->block_hash)});
      }
      ok = fl_rec_end_once(r);
    }
  return ok;
}

/* The semi-implicit solve of step 6 (snow_implicit.h), for build.beta > 0. */

static const uint32_t STATS_RESET[FL_SNOW_STAT_WORDS] = {0u, 0x7f7fffffu, 0u, 0u, 0u, 0u, 0u, 0u};

bool fl_snow_create(const fl_material_env *env, const uint32_t *indices, uint32_t count, fl_snow_system *out)
{
  memset(out, 0, sizeof *out);
  fl_gpu *gpu = env->gpu;
  const fl_scene *scene = env->scene;
  out->gpu = gpu;
  out->sim = &scene->sim;
  out->colliders = env->colliders;
  out->collider_count = env->collider_count;
  out->tile_shared_float = gpu->has_shared_float_atomic_add;
  out->g2p2g = scene->sim.snow_transfer == FL_SNOW_FUSE_G2P2G;
  bool ok = choose_atomics(gpu, &scene->sim, &out->fixed_point) && (!out->g2p2g || g2p2g_check(out->fixed_point)) &&
            fl_snow_build_create(scene, indices, count, &out->build) &&
            (!out->fixed_point || fl_snow_fixed_headroom_check(&out->build)) &&
            fl_snow_build_set_capacity(&out->build, scene->sim.snow_grid_slack, device_max_blocks(gpu));
  if (!ok) {
    fl_snow_build_free(&out->build);
    out->gpu = NULL;
    return false;
  }
  out->p2g = choose_p2g(gpu, out->build.count);
  const fl_snow_build *b = &out->build;
  uint64_t lattice_blocks = (uint64_t)b->block_dims[0] * b->block_dims[1] * b->block_dims[2];
  out->sort_local_bits = lattice_blocks * FL_SNOW_BLOCK_NODES <= (1ull << 32) ? 6 : 0;
  out->key_bits = 1;
  while (out->key_bits < 32 && (1ull << out->key_bits) < (lattice_blocks << out->sort_local_bits)) out->key_bits++;
  ok = create_buffers(out) && fl_radix_sort_create(gpu, out->build.count ? out->build.count : 1, &out->sort) &&
       fl_buffer_upload(gpu, &out->stats, 0, STATS_RESET, sizeof STATS_RESET);
  /* First step (Stomakhin 2013 step 2): volumes from the grid density. */
  ok = ok && (out->build.count == 0 || first_volumes(out, env->sets));
  free(out->build.pos);
  free(out->build.vel);
  free(out->build.fe);
  free(out->build.affine);
  free(out->build.stress);
  out->build.pos = out->build.vel = out->build.fe = out->build.affine = out->build.stress = NULL;
  if (ok)
    fl_info("snow: %u particles; grid %.1f MiB: %u blocks of 4x4x4 nodes (%u touched at load) of a %u x %u x %u "
            "lattice; P2G %s, %s%s",
            out->build.count, (double)fl_snow_grid_memory(out) / 1048576.0, out->build.block_capacity,
            out->build.blocks_at_load, out->build.dims[0], out->build.dims[1], out->build.dims[2],
            out->fixed_point ? "fixed point" : "float atomics", fl_snow_p2g_name(out->p2g),
            out->g2p2g ? ", G2P fused with the next P2G" : "");
  if (ok && out->sim->substeps > FL_SNOW_MAX_SUBSTEPS)
    fl_info("snow: runs at most %d substeps a frame, fewer than sim.substeps (%u)", FL_SNOW_MAX_SUBSTEPS,
            out->sim->substeps);
  if (!ok) fl_snow_destroy(out);
  return ok;
}

void fl_snow_destroy(fl_snow_system *s)
{
  if (!s->gpu) return;
  fl_gpu *gpu = s->gpu;
  destroy_grid_buffers(s);
  fl_buffer *buffers[] = {&s->pos, &s->vel, &s->fe, &s->stress, &s->affine, &s->stats, &s->materials, &s->scratch};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(gpu, buffers[i]);
  for (uint32_t k = 0; k < FL_GPU_FRAMES_IN_FLIGHT; k++) {
    fl_buffer_destroy(gpu, &s->snapshot[k]);
    fl_buffer_destroy(gpu, &s->density[k]);
    fl_buffer_destroy(gpu, &s->stats_readback[k]);
  }
  fl_radix_sort_destroy(gpu, &s->sort);
  fl_snow_build_free(&s->build);
  memset(s, 0, sizeof *s);
}

uint32_t fl_snow_plan_substeps(const fl_snow_system *s, float frame_dt)
{
  const float *g = s->sim->gravity;
  float g_len = sqrtf(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  float speed = s->last.valid ? s->last.max_speed : s->build.max_initial_speed;
  float jp_min = s->last.valid ? s->last.jp_min : 1.0f;
  if (!isfinite(speed)) speed = 0.0f;
  if (!isfinite(jp_min) || jp_min > 1.0f) jp_min = 1.0f;
  /* Speeds may have grown by gravity in the frames recorded since those stats. */
  speed += g_len * frame_dt * (float)(s->frames_since_stats + 1);
  float dt = fl_snow_stable_dt(&s->build, speed, jp_min);
  double n = ceil(frame_dt / dt);
  /* at least the scene's substeps, as far as the snow runs them (more is no CFL need: no warning) */
  double least = s->sim->substeps < FL_SNOW_MAX_SUBSTEPS ? s->sim->substeps : FL_SNOW_MAX_SUBSTEPS;
  if (!(n >= least)) n = least;
  return n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
}

/* Sorts the particles by cell and permutes every array into that order. */
static void record_sort(fl_snow_system *s, fl_rec *r, const fl_mpm_push *push)
{
  uint32_t n = s->build.count;
  uint64_t bytes = (uint64_t)n * (16 + 8) + fl_radix_sort_bytes(&s->sort, n, s->key_bits) + (uint64_t)n * 10 * 16 * 4;
  fl_rec_begin(r, "snow/sort", bytes);
  fl_mpm_push keys_push = *push;
  keys_push.arg = s->sort_local_bits;
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/cell_keys", FL_PUSH(keys_push), .threads = n,
                            FL_BUFFERS(&s->pos, &s->sort.keys[0], &s->sort.values[0])});
  fl_radix_sort_record(&s->sort, r, NULL, NULL, n, s->key_bits);
  fl_rec_barrier(r);
  const fl_buffer *arrays[FL_SNOW_PERMUTED_ARRAYS] = {&s->pos, &s->vel, &s->fe, &s->stress, &s->affine};
  const uint32_t vec4s[FL_SNOW_PERMUTED_ARRAYS] = {1, 1, 3, 2, 3};
  for (uint32_t k = 0; k < FL_SNOW_PERMUTED_ARRAYS; k++) {
    fl_mpm_push p = *push;
    p.arg = vec4s[k];
    fl_rec_pass(r, &(fl_pass){.kernel = "mpm/permute", FL_PUSH(p), .threads = n * vec4s[k],
                              FL_BUFFERS(fl_radix_sort_values(&s->sort, s->key_bits), arrays[k], &s->scratch)});
    VkBufferCopy copy = {0, 0, (VkDeviceSize)n * vec4s[k] * VEC4};
    vkCmdCopyBuffer(r->cmd, s->scratch.buffer, arrays[k]->buffer, 1, &copy);
    fl_rec_barrier(r);
  }
  fl_rec_end(r);
}

void fl_snow_set_grab(fl_snow_system *s, const fl_picker *picker)
{
  s->grabbed = picker && fl_picker_holds(picker, &s->pos);
  if (s->grabbed) memcpy(s->grab_target, picker->drag_target, sizeof s->grab_target);
}

/* The grid's solve (step 6, beta > 0) and the coupling (substep k of n), after the grid update and
 * before G2P. */
static void record_solve_couple(fl_snow_system *s, fl_rec *r, const fl_mpm_push *push, float dt, float t, uint32_t k,
                                uint32_t n)
{
  if (s->implicit.gpu) { /* step 6, beta > 0 */
    fl_rec_begin(r, "snow/implicit", fl_snow_implicit_bytes(&s->implicit));
    fl_snow_implicit_record(&s->implicit, r, push, s->build.beta);
    fl_rec_end(r);
  }
  if (s->couple) s->couple(s->couple_ctx, r, dt, t, k, n);
}

/* Substep k of n up to G2P: the grab, clear, blocks, P2G, the grid update, the solve and the coupling. */
static void record_to_g2p(fl_snow_system *s, fl_rec *r, float dt, float t, uint32_t k, uint32_t n)
{
  fl_mpm_push pc, *push = &pc;
  push_for(s, dt, t, push);
  if (s->grabbed) { /* the mouse's pull, before P2G carries it to the grid */
    fl_pick_push grab = {.target = {s->grab_target[0], s->grab_target[1], s->grab_target[2]},
                         .radius = (float)FL_SNOW_GRAB_CELLS * s->build.h, .h = dt, .count = s->build.count};
    fl_rec_pass(r, &(fl_pass){.name = "snow/grab", .bytes = (uint64_t)s->build.count * 48, .kernel = "mpm/grab",
                              FL_PUSH(grab), .threads = s->build.count, FL_BUFFERS(&s->pos, &s->vel)});
  }
  record_p2g_grid(s, r, push);
  record_solve_couple(s, r, push, dt, t, k, n);
}

static void record_g2p(fl_snow_system *s, fl_rec *r, const fl_mpm_push *push)
{
  char g2p[64];
  fl_rec_pass(r, &(fl_pass){.name = "snow/g2p", .bytes = fl_snow_g2p_bytes(s),
                            .kernel = fl_snow_transfer_kernel(&s->build, "mpm/g2p", g2p, sizeof g2p), FL_PUSH(*push),
                            .threads = s->build.count,
                            FL_BUFFERS(&s->pos, &s->vel, &s->fe, &s->stress, &s->affine, &s->gridv, &s->stats,
                                       s->colliders, &s->materials, &s->block_hash, s->colliders)});
}

static void swap_buffers(fl_buffer *a, fl_buffer *b)
{
  fl_buffer t = *a;
  *a = *b;
  *b = t;
}

/* G2P of the substep ending at push->time fused with the next substep's P2G (mpm/g2p2g.glsl): the next
 * grid's blocks (from the positions before the move, one cell wider) go into the other hash, which then
 * becomes the current one; G2P reads the grid velocities through the hash it was built with. */
static void record_g2p2g(fl_snow_system *s, fl_rec *r, const fl_mpm_push *push)
{
  swap_buffers(&s->block_hash, &s->block_hash_next);
  swap_buffers(&s->blocks, &s->blocks_next);
  record_clear_blocks(s, r, push, true, 1);
  char kernel[64];
  fl_rec_pass(r, &(fl_pass){.name = "snow/g2p2g", .bytes = fl_snow_g2p2g_bytes(s),
                            .kernel = fl_snow_transfer_kernel(&s->build, "mpm/g2p2g", kernel, sizeof kernel),
                            FL_PUSH(*push), .threads = s->build.count,
                            FL_BUFFERS(&s->pos, &s->vel, &s->fe, &s->stress, &s->affine, &s->gridv, &s->stats,
                                       s->colliders, &s->materials, &s->block_hash_next, s->colliders, &s->acc,
                                       &s->block_hash)});
}

/* Substep k of the frame's n, of length dt, ending at t. */
static void record_substep(fl_snow_system *s, fl_rec *r, float dt, float t, uint32_t k, uint32_t n)
{
  fl_mpm_push push;
  push_for(s, dt, t, &push);
  record_to_g2p(s, r, dt, t, k, n);
  record_g2p(s, r, &push);
}

void fl_snow_record_substep(fl_snow_system *s, fl_rec *r, float dt, float t) { record_substep(s, r, dt, t, 0, 1); }

void fl_snow_record_substeps(fl_snow_system *s, fl_rec *r, uint32_t n, float dt, float t0)
{
  if (!s->g2p2g || s->grabbed || n < 2) { /* the grab acts before each P2G: separate passes */
    for (uint32_t k = 0; k < n; k++) record_substep(s, r, dt, t0 + dt * (float)(k + 1), k, n);
    return;
  }
  fl_mpm_push push;
  record_to_g2p(s, r, dt, t0 + dt, 0, n);
  for (uint32_t k = 1; k < n; k++) {
    float t = t0 + dt * (float)(k + 1);
    push_for(s, dt, t - dt, &push);
    record_g2p2g(s, r, &push); /* G2P of substep k - 1, P2G of substep k */
    push_for(s, dt, t, &push);
    record_grid(s, r, &push);
    record_solve_couple(s, r, &push, dt, t, k, n);
  }
  push_for(s, dt, t0 + dt * (float)n, &push);
  record_g2p(s, r, &push);
}

void fl_snow_record_frame(fl_snow_system *s, fl_rec *r, float frame_dt, float t0)
{
  uint32_t n = fl_snow_plan_substeps(s, frame_dt);
  if (n > FL_SNOW_MAX_SUBSTEPS) { /* each substep is then longer than the CFL limit allows: say so */
    s->capped_frames++;
    fl_warn_repeated("snow substeps capped", "snow",
                     "snow: a frame needs %u substeps (its CFL limits of speed and stiffness) and runs at most %d, each "
                     "longer than its stable step, so the snow may gain energy; lower sim.dt",
                     n, FL_SNOW_MAX_SUBSTEPS);
    n = FL_SNOW_MAX_SUBSTEPS;
  }
  float dt = frame_dt / (float)n;
  fl_mpm_push push;
  push_for(s, dt, t0, &push);
  vkCmdUpdateBuffer(r->cmd, s->stats.buffer, 0, sizeof STATS_RESET, STATS_RESET);
  if (s->build.count > 1) record_sort(s, r, &push);
  fl_rec_barrier(r);
  fl_snow_record_substeps(s, r, n, dt, t0);
  VkBufferCopy copy = {0, 0, FL_SNOW_STAT_WORDS * 4};
  vkCmdCopyBuffer(r->cmd, s->stats.buffer, s->stats_readback[r->slot].buffer, 1, &copy);
  fl_cmd_transfer_to_host_barrier(r->cmd);
  s->stats_pending[r->slot] = true;
  s->substeps_last = n;
  s->substeps_total += n;
  s->frames_total++;
  s->frames_since_stats++;
}

void fl_snow_record_publish(fl_snow_system *s, fl_rec *r)
{
  fl_mpm_push pc, *push = &pc;
  push_for(s, 0.0f, 0.0f, push);
  uint32_t stencil = s->build.any_pic_flip ? 64 : 27;
  fl_rec_begin(r, "snow/publish", (uint64_t)s->build.count * (16 + 32 + 16 + 16 * stencil / 8));
  fl_rec_pass(r, &(fl_pass){.kernel = "mpm/publish", FL_PUSH(*push), .threads = s->build.count, .no_barrier = true,
                            FL_BUFFERS(&s->pos, &s->stress, &s->gridv, &s->snapshot[r->slot], &s->materials,
                                       &s->block_hash)});
  if (s->density[r->slot].buffer) { /* the volume view: dense, zero where no block is */
    vkCmdFillBuffer(r->cmd, s->density[r->slot].buffer, 0, VK_WHOLE_SIZE, 0);
    fl_rec_barrier(r);
    fl_rec_pass(r, &(fl_pass){.kernel = "mpm/density_grid", FL_PUSH(*push), .threads = grid_nodes(s),
                              .no_barrier = true, FL_BUFFERS(&s->gridv, &s->density[r->slot], &s->blocks)});
  }
  fl_rec_end(r);
}

void fl_snow_collect(fl_snow_system *s, uint32_t slot)
{
  if (!s->stats_pending[slot]) return;
  s->stats_pending[slot] = false;
  const uint32_t *w = s->stats_readback[slot].mapped;
  float f[3];
  memcpy(f, w, sizeof f);
  s->last = (fl_snow_frame_stats){f[FL_SNOW_STAT_MAX_SPEED], f[FL_SNOW_STAT_JP_MIN], f[FL_SNOW_STAT_JP_MAX],
                                  w[FL_SNOW_STAT_CLAMPED], w[FL_SNOW_STAT_NONFINITE], w[FL_SNOW_STAT_BLOCKS_PEAK],
                                  w[FL_SNOW_STAT_GRID_FULL], true};
  /* The other slot may hold a later frame; a frame never counts as older than one. */
  s->frames_since_stats = 1;
}

bool fl_snow_wants_grow(const fl_snow_system *s)
{
  return s->gpu && s->last.valid && 2ull * s->last.blocks_peak > s->build.block_capacity &&
         s->build.block_capacity < fl_snow_build_max_blocks(&s->build, device_max_blocks(s->gpu));
}

bool fl_snow_grow(fl_snow_system *s)
{
  uint32_t before = s->build.block_capacity;
  float slack = s->sim->snow_grid_slack > 2.0f ? s->sim->snow_grid_slack : 2.0f;
  destroy_grid_buffers(s);
  uint32_t need = s->last.blocks_peak > before ? s->last.blocks_peak : before; /* at least doubles */
  fl_snow_build_fit_capacity(&s->build, need, slack, device_max_blocks(s->gpu));
  if (!create_grid_buffers(s)) return fl_error_wrap("snow: growing the grid from %u to %u blocks", before,
                                                    s->build.block_capacity);
  s->grid_grown++;
  fl_info("snow: the grid grew from %u to %u blocks of 4x4x4 nodes (%.1f MiB) after frame %llu, %u in use at "
          "its peak", before, s->build.block_capacity, (double)fl_snow_grid_memory(s) / 1048576.0,
          (unsigned long long)s->frames_total, s->last.blocks_peak);
  return true;
}

bool fl_snow_read_state(fl_snow_system *s, fl_snow_cpu_particles *out)
{
  uint64_t n = s->build.count;
  memset(out, 0, sizeof *out);
  out->pos = malloc(n * VEC4 + 16);
  out->vel = malloc(n * VEC4 + 16);
  out->fe = malloc(3 * n * VEC4 + 16);
  out->stress = malloc(2 * n * VEC4 + 16);
  out->affine = malloc(3 * n * VEC4 + 16);
  out->count = (uint32_t)n;
  bool ok = out->pos && out->vel && out->fe && out->stress && out->affine;
  if (!ok) fl_error_set("out of host memory reading %llu snow particles", (unsigned long long)n);
  ok = ok && fl_buffer_readback(s->gpu, &s->pos, 0, out->pos, n * VEC4) &&
       fl_buffer_readback(s->gpu, &s->vel, 0, out->vel, n * VEC4) &&
       fl_buffer_readback(s->gpu, &s->fe, 0, out->fe, 3 * n * VEC4) &&
       fl_buffer_readback(s->gpu, &s->stress, 0, out->stress, 2 * n * VEC4) &&
       fl_buffer_readback(s->gpu, &s->affine, 0, out->affine, 3 * n * VEC4);
  if (!ok) fl_snow_state_free(out);
  return ok;
}

void fl_snow_state_free(fl_snow_cpu_particles *p)
{
  free(p->pos);
  free(p->vel);
  free(p->fe);
  free(p->stress);
  free(p->affine);
  memset(p, 0, sizeof *p);
}

bool fl_snow_grid_totals(fl_snow_system *s, double *mass, double momentum[3])
{
  uint64_t nodes = grid_nodes(s); /* every allocated node; those of unused slots are empty */
  float (*g)[4] = malloc(nodes * 32);
  if (!g) return fl_error_set("out of host memory reading the snow grid");
  bool ok = fl_buffer_readback(s->gpu, &s->gridv, 0, g, nodes * 32);
  *mass = 0;
  momentum[0] = momentum[1] = momentum[2] = 0;
  for (uint64_t i = 0; ok && i < nodes; i++) {
    double m = g[2 * i][3];
    *mass += m;
    for (int a = 0; a < 3; a++) momentum[a] += m * g[2 * i][a];
  }
  free(g);
  return ok;
}

bool fl_snow_read_grid_dense(fl_snow_system *s, const fl_buffer *grid, uint32_t words, uint32_t *dense)
{
  const fl_snow_build *b = &s->build;
  uint64_t nodes = grid_nodes(s);
  uint32_t stats[FL_SNOW_STAT_WORDS], *sparse = malloc(nodes * words * 4), *keys = malloc((size_t)b->block_capacity * 4);
  bool ok = sparse && keys;
  if (!ok) fl_error_set("out of host memory reading the snow grid");
  ok = ok && fl_buffer_readback(s->gpu, &s->stats, 0, stats, sizeof stats) &&
       fl_buffer_readback(s->gpu, grid, 0, sparse, nodes * words * 4) &&
       fl_buffer_readback(s->gpu, &s->blocks, 0, keys, (uint64_t)b->block_capacity * 4);
  uint32_t used = ok ? stats[FL_SNOW_STAT_BLOCKS] : 0;
  if (used > b->block_capacity) used = b->block_capacity;
  memset(dense, 0, (size_t)b->node_count * words * 4);
  for (uint32_t slot = 0; slot < used; slot++) {
    uint32_t key = keys[slot], bx = key % b->block_dims[0], by = key / b->block_dims[0] % b->block_dims[1],
             bz = key / (b->block_dims[0] * b->block_dims[1]);
    for (uint32_t l = 0; l < FL_SNOW_BLOCK_NODES; l++) {
      uint32_t x = bx * 4 + (l & 3), y = by * 4 + (l >> 2 & 3), z = bz * 4 + (l >> 4);
      if (x >= b->dims[0] || y >= b->dims[1] || z >= b->dims[2]) continue;
      uint64_t d = ((uint64_t)z * b->dims[1] + y) * b->dims[0] + x;
      memcpy(dense + d * words, sparse + ((uint64_t)slot * FL_SNOW_BLOCK_NODES + l) * words, words * 4);
    }
  }
  free(sparse);
  free(keys);
  return ok;
}

uint64_t fl_snow_grid_memory(const fl_snow_system *s)
{
  return s->acc.size + s->gridv.size + s->block_hash.size + s->blocks.size + s->block_hash_next.size +
         s->blocks_next.size + fl_snow_gather_memory(&s->gather);
}

/* Mean particles per occupied cell: the cells P2G and G2P touch are about count / ppc. */
static uint64_t occupied_nodes(const fl_snow_system *s)
{
  double ppc = (double)s->build.h * s->build.h * s->build.h /
        ((double)s->build.particle_spacing * s->build.particle_spacing * s->build.particle_spacing);
  uint64_t cells = (uint64_t)((double)s->build.count / (ppc > 1 ? ppc : 1));
  return cells < grid_nodes(s) ? cells : grid_nodes(s);
}

uint64_t fl_snow_p2g_bytes(const fl_snow_system *s)
{
  /* Each particle reads x, v, K (+ C for APIC); each touched node is read and written once. */
  uint64_t per = 16 + 16 + 32 + (s->build.any_pic_flip ? 0 : 48);
  return (uint64_t)s->build.count * per + occupied_nodes(s) * 64;
}

uint64_t fl_snow_g2p_bytes(const fl_snow_system *s)
{
  /* Reads x, v, F_E (+ C), writes x, v, F_E, K (+ C); each touched node's two velocities read once. */
  uint64_t per = (16 + 16 + 48) * 2 + 32 + (s->build.any_pic_flip ? 0 : 96);
  return (uint64_t)s->build.count * per + occupied_nodes(s) * 32;
}

uint64_t fl_snow_g2p2g_bytes(const fl_snow_system *s)
{
  /* G2P's traffic, and the next P2G's node adds (each touched node read and written once); the particle
   * reads of P2G (x, v, K, C) are gone: they are G2P's results, still in registers. */
  return fl_snow_g2p_bytes(s) + occupied_nodes(s) * 64;
}

/* The grid update streams every allocated node: the accumulator in, both velocities out, the slot's key. */
uint64_t fl_snow_grid_bytes(const fl_snow_system *s) { return grid_nodes(s) * 64 + s->blocks.size; }
