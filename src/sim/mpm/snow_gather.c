/* sim/mpm/snow_gather: P2G without atomics on floats (see snow_gather.h). */
#include "sim/mpm/snow_gather.h"

#include <stdio.h>
#include <string.h>

static bool make(fl_gpu *gpu, uint64_t bytes, const char *what, fl_buffer *out)
{
  char label[96];
  snprintf(label, sizeof label, "snow P2G %s", what);
  return fl_buffer_create(gpu, bytes ? bytes : 16, FL_MEMORY_DEVICE, label, out);
}

bool fl_snow_gather_create(fl_gpu *gpu, uint32_t particles, uint32_t nodes, fl_snow_gather *out)
{
  memset(out, 0, sizeof *out);
  out->gpu = gpu;
  out->particles = particles;
  out->nodes = nodes;
  uint64_t bins = (uint64_t)nodes + 1;
  bool ok = make(gpu, (uint64_t)particles * 8, "bins", &out->bins) && make(gpu, bins * 4, "counts", &out->counts) &&
            make(gpu, bins * 4, "starts", &out->starts) && make(gpu, (uint64_t)particles * 4, "list", &out->list) &&
            fl_scan_create(gpu, (uint32_t)bins, &out->scan);
  if (!ok) fl_snow_gather_destroy(out);
  return ok;
}

void fl_snow_gather_destroy(fl_snow_gather *g)
{
  if (!g->gpu) return;
  fl_buffer *buffers[] = {&g->bins, &g->counts, &g->starts, &g->list};
  for (size_t i = 0; i < sizeof buffers / sizeof buffers[0]; i++) fl_buffer_destroy(g->gpu, buffers[i]);
  fl_scan_destroy(g->gpu, &g->scan);
  memset(g, 0, sizeof *g);
}

#define BIN_BYTES (16 + 16 + 8 + 4) /* x, the material word, (bin, rank) written, the bin's count */
#define LIST_BYTES (8 + 4 + 4)       /* (bin, rank), the bin's start, the list entry */

static uint64_t gather_bytes(const fl_snow_gather *g, uint32_t particle_bytes)
{
  return (uint64_t)g->particles * (particle_bytes + 4) + (uint64_t)g->nodes * (4 + 32);
}

void fl_snow_gather_record(const fl_snow_gather *g, fl_rec *r, const fl_mpm_push *push, const fl_snow_gather_inputs *in)
{
  uint32_t n = g->particles, bins = g->nodes + 1;
  vkCmdFillBuffer(r->cmd, g->counts.buffer, 0, VK_WHOLE_SIZE, 0);
  fl_rec_barrier(r);
  /* Each particle reads x and its material word, probes the hash, writes its (bin, rank); one atomic on its bin. */
  fl_rec_pass(r, &(fl_pass){.name = "snow/p2g_bin", .bytes = (uint64_t)n * BIN_BYTES, .kernel = "mpm/p2g_bin",
                            FL_PUSH(*push), .threads = n,
                            FL_BUFFERS(in->pos, in->stress, in->materials, in->block_hash, &g->counts, &g->bins)});
  fl_rec_begin(r, "snow/p2g_scan", fl_scan_bytes(&g->scan, bins));
  fl_scan_record(&g->scan, r, &g->counts, &g->starts, bins);
  fl_rec_end(r);
  fl_rec_barrier(r);
  fl_rec_pass(r, &(fl_pass){.name = "snow/p2g_list", .bytes = (uint64_t)n * LIST_BYTES, .kernel = "mpm/p2g_list",
                            FL_PUSH(*push), .threads = n, FL_BUFFERS(&g->bins, &g->starts, &g->list)});
  fl_rec_pass(r, &(fl_pass){.name = "snow/p2g_gather", .bytes = gather_bytes(g, in->particle_bytes), .kernel = in->kernel,
                            FL_PUSH(*push), .threads = g->nodes,
                            FL_BUFFERS(in->pos, in->vel, in->stress, in->affine, in->acc, in->materials,
                                       in->block_hash, in->blocks, &g->starts, &g->list, in->stats)});
}

uint64_t fl_snow_gather_memory(const fl_snow_gather *g)
{
  uint64_t scan = 0;
  for (uint32_t k = 0; k < FL_SCAN_MAX_LEVELS; k++) scan += g->scan.sums[k].size;
  return g->bins.size + g->counts.size + g->starts.size + g->list.size + scan;
}

uint64_t fl_snow_gather_total_bytes(const fl_snow_gather *g, uint32_t particle_bytes)
{
  return (uint64_t)g->particles * (BIN_BYTES + LIST_BYTES) + fl_scan_bytes(&g->scan, g->nodes + 1) +
         gather_bytes(g, particle_bytes);
}
