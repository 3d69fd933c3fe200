/* sim/mpm/snow_gather: P2G without atomics on floats (issue 14), the
 * alternative to the scatter of mpm/p2g.glsl. Each substep:
 *   mpm/p2g_bin     one thread per particle: its bin (the node at base + 1 of
 *                   its stencil), counted with one int atomic, and its rank in the bin;
 *   common/scan     the counts' exclusive prefix sum: each bin's first entry;
 *   mpm/p2g_list    one thread per particle: its index at its bin's start + rank;
 *   mpm/p2g_gather  one thread per grid node: the sum over the particles of the
 *                   4x4x4 bins (3x3x3 when every material is APIC) whose stencils
 *                   reach it, written once in the accumulator's format.
 * The sums need no float atomics, so the path runs on every device, and the
 * accumulator it writes is the one the grid update reads. The bins are the
 * sparse grid's nodes (slot x 64 + place in the block), so the buffers follow
 * the grid's block capacity. */
#pragma once
#include "gpu/rec.h"
#include "mpm_shared.h"
#include "sim/common/scan.h"

typedef struct {
  fl_gpu *gpu;
  uint32_t particles, nodes;
  fl_buffer bins;                    /* per particle: (bin, rank in the bin) */
  fl_buffer counts;                  /* per bin (+ 1, always zero): particles in it */
  fl_buffer starts;                  /* per bin (+ 1: the total): the scan of counts */
  fl_buffer list;                    /* per particle: the particle indices, bin by bin */
  fl_scan scan;
} fl_snow_gather;

/* The system's buffers the passes read and write. */
typedef struct {
  const fl_buffer *pos, *vel, *stress, *affine, *acc, *materials, *block_hash, *blocks, *stats;
  uint32_t particle_bytes;           /* what the gather reads of a particle (x, v, K, and C for APIC) */
  const char *kernel;                /* mpm/p2g_gather or its one-transfer build (fl_snow_transfer_kernel) */
} fl_snow_gather_inputs;

/* Creates the buffers for `particles` particles and a grid of `nodes` nodes (block capacity x 64). */
bool fl_snow_gather_create(fl_gpu *gpu, uint32_t particles, uint32_t nodes, fl_snow_gather *out);
/* Frees everything; accepts a zeroed struct. */
void fl_snow_gather_destroy(fl_snow_gather *g);
/* Records one P2G (the passes above, each timed as "snow/p2g_<pass>"), after the blocks pass;
 * writes every accumulator word of the grid. */
void fl_snow_gather_record(const fl_snow_gather *g, fl_rec *r, const fl_mpm_push *push, const fl_snow_gather_inputs *in);
/* Bytes of the gathered P2G's own buffers. */
uint64_t fl_snow_gather_memory(const fl_snow_gather *g);
/* Bytes the four passes must move together: the bins, counts, scan and list, then the gather (each
 * particle's data read once, `particle_bytes` each, and every node's words written once). */
uint64_t fl_snow_gather_total_bytes(const fl_snow_gather *g, uint32_t particle_bytes);
