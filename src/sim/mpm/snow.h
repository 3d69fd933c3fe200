/* sim/mpm/snow: the MPM snow system on the GPU (Stomakhin et al. 2013; the
 * algorithm is sim/mpm/snow_spec.h, the CPU reference sim/mpm/snow_cpu.h).
 * Every snow object of a scene lives in this one system: one particle array,
 * one grid over sim.domain, so snow objects meet through the grid. The grid is
 * sparse (snow_spec.h GRID): blocks of 4x4x4 nodes are allocated each substep
 * where the particles' stencils reach, so its memory and its clear and grid
 * passes follow the snow, not the domain box.
 *
 * A frame, recorded into the compute command buffer:
 *   stats reset; sort (mpm/cell_keys, the shared radix sort, mpm/permute of
 *   every particle array into cell order); then n substeps of
 *   clear (fill) -> blocks (mpm/blocks) -> P2G (the scatter mpm/p2g_float or mpm/p2g_fixed, or the gather
 *   of snow_gather.h) -> grid update
 *   -> [semi-implicit solve, beta > 0] -> G2P (with sim.snow_transfer "g2p2g", each G2P but the frame's last
 *   is fused with the next substep's clear-blocks-P2G: fl_snow_record_substeps); the stats copied to the slot's
 *   readback buffer. n adapts to the CFL limit from the stats the CPU
 *   collected after an earlier slot's fence (no stall): snow_spec.h SUBSTEPS.
 * Publish, once a frame: the slot's snapshot (position, grid density at the
 * particle) and the slot's grid density volume, for the renderer. */
#pragma once
#include "gpu/rec.h"
#include "scene/scene.h"
#include "sim/material.h"
#include "sim/common/radix_sort.h"
#include "sim/mpm/snow_build.h"
#include "sim/mpm/snow_cpu.h"
#include "sim/mpm/snow_gather.h"
#include "sim/mpm/snow_implicit.h"

/* The stats of the latest frame collected (snow_spec.h G2P stats). */
typedef struct {
  float max_speed, jp_min, jp_max;
  uint32_t clamped;                  /* particles clamped in the frame's last substep */
  uint32_t nonfinite;                /* particles with a non-finite state in the frame */
  uint32_t blocks_peak;              /* the most grid blocks a substep of the frame asked for */
  uint32_t grid_full;                /* blocks that found no slot in the frame (0 unless the snow outgrew it) */
  bool valid;                        /* false until a frame was collected */
} fl_snow_frame_stats;

#define FL_SNOW_PERMUTED_ARRAYS 5    /* pos, vel, fe, stress, affine */

/* The P2G path (FLURRY_SNOW_P2G names them; docs/SNOW.md has the measurements behind the default). */
typedef enum {
  FL_SNOW_P2G_DIRECT, /* scatter: atomic adds straight into the grid (mpm/p2g_float, mpm/p2g_fixed) */
  FL_SNOW_P2G_TILE,   /* scatter through the workgroup's shared-memory tile (mpm/p2g_*_tile) */
  FL_SNOW_P2G_GATHER, /* bin, scan, list, then one thread per node sums its particles (snow_gather.h) */
} fl_snow_p2g;

/* "direct", "tile" or "gather" (FLURRY_SNOW_P2G's names; the report's snow_system.p2g). */
const char *fl_snow_p2g_name(fl_snow_p2g p2g);
/* The kernel name of a transfer-dependent pass (mpm/g2p, mpm/p2g_gather) into out: `kernel` when the
 * materials mix PIC/FLIP and APIC, else its one-transfer build (kernel_pic_flip, kernel_apic), which
 * leaves the other stencil out (llvmpipe pays for both sides of a branch: mpm.glsl FL_MPM_IS_APIC). */
const char *fl_snow_transfer_kernel(const fl_snow_build *b, const char *kernel, char *out, size_t size);

typedef struct {
  fl_gpu *gpu;
  fl_snow_build build;               /* metadata; the CPU particle arrays are freed after upload */
  bool fixed_point;                  /* P2G through int32 fixed point */
  fl_snow_p2g p2g;                   /* the P2G path: direct on GPUs, on CPU drivers the gather from 4 096
                                        particles (snow.c choose_p2g);
                                        FLURRY_SNOW_P2G=tile|direct|gather overrides (tests set it) */
  bool tile_shared_float;            /* the float tile adds with shared-memory float atomics (the device
                                        has them), else by compare-and-swap (tests may clear it) */
  fl_buffer pos, vel, fe, stress, affine;
  fl_buffer acc, gridv, stats, materials, scratch;
  fl_buffer block_hash, blocks;      /* the sparse grid: (key, slot) per hash entry; the key of each slot */
  bool g2p2g;                        /* sim.snow_transfer "g2p2g": G2P fused with the next P2G (mpm/g2p2g) */
  fl_buffer block_hash_next, blocks_next; /* g2p2g: the other grid's hash and keys (swapped each fused pass) */
  uint32_t sort_local_bits;          /* sort keys: block key << this | cell in block (6, or 0 if that overflows) */
  fl_radix_sort sort;
  uint32_t key_bits;
  fl_snow_gather gather;             /* the gathered P2G's bins and list (made whatever the path) */
  fl_buffer snapshot[FL_GPU_FRAMES_IN_FLIGHT];
  fl_buffer density[FL_GPU_FRAMES_IN_FLIGHT]; /* the volume view's dense density; none when the lattice is over
                                                 FL_SNOW_MAX_VOLUME_NODES (then no volume view) */
  fl_buffer stats_readback[FL_GPU_FRAMES_IN_FLIGHT];
  bool stats_pending[FL_GPU_FRAMES_IN_FLIGHT];
  const fl_sim_desc *sim;
  const fl_buffer *colliders;
  uint32_t collider_count;
  fl_snow_frame_stats last;          /* of the latest collected frame */
  uint32_t frames_since_stats;       /* frames recorded since the stats in `last` */
  uint32_t substeps_last;            /* substeps of the latest recorded frame */
  uint32_t capped_frames;            /* frames that needed more than FL_SNOW_MAX_SUBSTEPS (run at it, over the CFL limit) */
  uint64_t substeps_total;
  uint64_t frames_total;             /* frames recorded */
  fl_snow_implicit implicit;         /* the semi-implicit solve (build.beta > 0), else zeroed */
  uint32_t grid_grown;               /* times the grid grew (fl_snow_grow) */
  bool grabbed;                      /* the mouse holds the snow this frame (mpm/grab every substep) */
  float grab_target[3];              /* where it pulls */
  /* Called each substep after the grid update (and the implicit solve), before G2P, to change the
   * grid's velocities (sim/coupling/coupling.h): substep k of the frame's n, of length dt, ending at t;
   * NULL: nothing couples. */
  void (*couple)(void *ctx, fl_rec *r, float dt, float t, uint32_t k, uint32_t n);
  void *couple_ctx;
} fl_snow_system;

/* Builds the scene's snow objects (scene indices `indices`), uploads them, and computes the
 * first step's volumes on the GPU (waits). The env's scene and colliders must outlive the system. */
bool fl_snow_create(const fl_material_env *env, const uint32_t *indices, uint32_t count, fl_snow_system *out);
/* Frees everything; accepts a zeroed system. */
void fl_snow_destroy(fl_snow_system *s);
/* The substeps the next frame of length frame_dt needs (snow_spec.h SUBSTEPS); fl_snow_record_frame
 * runs at most FL_SNOW_MAX_SUBSTEPS of them, and warns when it must. */
uint32_t fl_snow_plan_substeps(const fl_snow_system *s, float frame_dt);
/* Records one frame of length frame_dt starting at time t0 (profiler scopes "snow/<pass>"). */
void fl_snow_record_frame(fl_snow_system *s, fl_rec *r, float frame_dt, float t0);
/* The grab of the next recorded frames: held when the picker holds one of the snow's particles
 * (picker NULL or not holding: released). */
void fl_snow_set_grab(fl_snow_system *s, const fl_picker *picker);
/* Records one substep (clear, P2G, grid update, G2P) of length dt ending at time t, without the
 * frame's sort, stats reset or stats copy (tests step the system with it; a coupling sees substep 0
 * of 1). */
void fl_snow_record_substep(fl_snow_system *s, fl_rec *r, float dt, float t);
/* Records n substeps of length dt from time t0: each as fl_snow_record_substep does, or, with g2p2g
 * (and no grab), P2G and the grid update, then n - 1 times the fused G2P + next P2G (mpm/g2p2g) and the
 * grid update, then G2P: the same sums (tests compare it with n CPU substeps). */
void fl_snow_record_substeps(fl_snow_system *s, fl_rec *r, uint32_t n, float dt, float t0);
/* Whether the latest collected frame's busiest substep used over half the grid's blocks, and the grid
 * can still grow: the snow spread (a splash, a ball flattened on a wall) past the slack guessed at load. */
bool fl_snow_wants_grow(const fl_snow_system *s);
/* Reallocates the grid's buffers for max(2, sim.snow_grid_slack) x the blocks allocated (at most what the
 * lattice and the device hold); nothing of the grid outlives a frame, so nothing is copied. No frame
 * may be in flight, and descriptor sets naming the old buffers must be dropped (fl_world_grow). */
bool fl_snow_grow(fl_snow_system *s);
/* Reads every particle array back into malloc'd arrays (free with fl_snow_state_free); waits. */
bool fl_snow_read_state(fl_snow_system *s, fl_snow_cpu_particles *out);
/* Frees what fl_snow_read_state allocated; accepts a zeroed struct. */
void fl_snow_state_free(fl_snow_cpu_particles *p);
/* Records the rec's slot's render snapshot and density volume. */
void fl_snow_record_publish(fl_snow_system *s, fl_rec *r);
/* After the slot's fence: reads its stats copy into s->last. */
void fl_snow_collect(fl_snow_system *s, uint32_t slot);
/* Sums the grid after the last P2G in double: mass and momentum (reads back; waits). */
bool fl_snow_grid_totals(fl_snow_system *s, double *mass, double momentum[3]);
/* Reads a grid buffer of `words` uint32 per node (acc: 8, gridv: 8) back into the dense lattice
 * layout of the CPU reference (fl_snow_cpu_nodes x words, zero where no block is allocated): tests
 * compare the sparse GPU grid with it (waits). */
bool fl_snow_read_grid_dense(fl_snow_system *s, const fl_buffer *grid, uint32_t words, uint32_t *dense);
/* Bytes of the sparse grid (accumulator, velocities, block hash and list, the gathered P2G's bins;
 * not the volume view's). */
uint64_t fl_snow_grid_memory(const fl_snow_system *s);
/* Bytes each pass must move (for GB/s and the ceiling fraction). */
uint64_t fl_snow_p2g_bytes(const fl_snow_system *s);
uint64_t fl_snow_g2p_bytes(const fl_snow_system *s);
uint64_t fl_snow_g2p2g_bytes(const fl_snow_system *s);
uint64_t fl_snow_grid_bytes(const fl_snow_system *s);
