/* sim/common/scan: exclusive prefix sum of uint32 arrays on the GPU,
 * out[i] = in[0] + ... + in[i-1] (wrapping 32-bit), for any count up to the
 * max_count given at creation, plus the sum of all elements in a one-uint
 * buffer (fl_scan_total), so callers can size what follows.
 *
 * Algorithm: work-efficient reduce-then-scan over levels. A block is
 * workgroup_size x FL_SCAN_ITEMS elements (4096: shaders/common/scan_shared.h
 * explains the workgroup size). Level 0 is the input; level k+1 holds the
 * block sums of level k (common/scan_reduce.comp), down to a level of one
 * block. The top level is scanned in place, then each level below is scanned
 * block by block starting from its scanned block sum (common/scan_block.comp).
 * Up to 2^24 elements take two levels, 2^24 + 1 to 2^32 three; the passes
 * move about 12 bytes per element.
 *
 * In place is allowed: `in` and `out` may be the same buffer. The input is
 * otherwise only read. fl_scan_record names both at the call; it inserts the
 * barriers between its own passes; the caller puts one before (input written)
 * and one after (output or total read). */
#pragma once
#include "gpu/rec.h"
#include "scan_shared.h"

#define FL_SCAN_MAX_LEVELS 4 /* blocks of at least 128 x 16 elements: enough for 2^32 */

typedef struct {
  uint32_t max_count;
  uint32_t workgroup;                   /* the kernels' workgroup size */
  uint32_t block;                       /* elements per workgroup: workgroup size x FL_SCAN_ITEMS */
  uint32_t level_count;                 /* levels max_count needs; 1 = a single block */
  fl_buffer sums[FL_SCAN_MAX_LEVELS];   /* sums[k]: level k+1, the block sums of level k */
  fl_buffer total;                      /* one uint (16 bytes allocated): the sum of the input */
} fl_scan;

/* Creates the block-sum buffers for up to max_count elements (>= 1). */
bool fl_scan_create(fl_gpu *gpu, uint32_t max_count, fl_scan *out);
/* Frees everything; accepts a zeroed scan. */
void fl_scan_destroy(fl_gpu *gpu, fl_scan *scan);
/* Records the scan of the first `count` elements of `in` (clamped to
 * max_count) into `out` (may be `in`; each must hold max_count uints, else the
 * rec fails); out beyond count is not written. count 0 only zeroes the total. */
void fl_scan_record(const fl_scan *scan, fl_rec *r, const fl_buffer *in, const fl_buffer *out, uint32_t count);
/* The one-uint buffer that holds the sum of the last recorded scan's input. */
const fl_buffer *fl_scan_total(const fl_scan *scan);
/* Bytes a scan of `count` elements must move (every level's reads and writes), for GB/s. */
uint64_t fl_scan_bytes(const fl_scan *scan, uint32_t count);
