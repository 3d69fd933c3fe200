/* sim/common/radix_sort: stable LSD radix sort of (key, value) uint32 pairs by
 * the low key_bits bits of the key, on the GPU, FL_SORT_RADIX_BITS (4) bits a
 * pass. The output equals a CPU stable sort by (key & mask): equal keys keep
 * their input order, so it is deterministic. Bits above key_bits are carried
 * along but do not order.
 *
 * A sort of at most small_max (FL_SORT_SMALL_MAX) pairs is one dispatch of one
 * workgroup that runs every pass (common/sort_small.comp). A larger sort
 * records three kernels a pass, over tiles of workgroup_size x FL_SORT_ITEMS
 * (2048) elements:
 *   histogram  per tile digit counts, digit-major: hist[digit * tiles + tile]
 *   scan       fl_scan of hist in place: each (digit, tile)'s first output slot
 *   scatter    each element to its slot + its rank among equal digits of the
 *              tile (common/sort_scatter.comp: no subgroup operations)
 * Passes ping-pong between keys[0]/values[0] and keys[1]/values[1]: pass p
 * writes keys[(p + 1) % 2], so the result is in keys[passes % 2]
 * (fl_radix_sort_keys / _values say which). The input is keys[0]/values[0]
 * unless fl_radix_sort_record names other buffers, which are then only read.
 *
 * fl_radix_sort_record inserts the barriers between its passes; the caller
 * puts one before (input written) and one after (result read). */
#pragma once
#include "gpu/rec.h"
#include "sim/common/scan.h"
#include "sort_shared.h"

typedef struct {
  fl_scan scan;                     /* scans `hist` in place */
  uint32_t max_count;
  uint32_t workgroup;               /* the tiled kernels' workgroup size */
  uint32_t small_workgroup;         /* sort_small's */
  uint32_t tile;                    /* elements per workgroup: workgroup size x FL_SORT_ITEMS */
  uint32_t max_tiles;
  uint32_t small_max;               /* sorts of at most this many pairs take sort_small: FL_SORT_SMALL_MAX
                                     * (fl_radix_sort_create); lower it to time or test the tiled passes */
  fl_buffer keys[2], values[2];     /* ping-pong; [0] is the default input */
  fl_buffer hist;                   /* FL_SORT_DIGITS x tiles counts, then their scan */
} fl_radix_sort;

/* Creates the buffers for up to max_count (>= 1) pairs. */
bool fl_radix_sort_create(fl_gpu *gpu, uint32_t max_count, fl_radix_sort *out);
/* Frees everything; accepts a zeroed sort. */
void fl_radix_sort_destroy(fl_gpu *gpu, fl_radix_sort *sort);
/* Records the sort of the first `count` pairs (clamped to max_count) by their
 * low key_bits bits (1..32; clamped), from keys_in/values_in (each holding
 * max_count uints, neither keys[1] nor values[1]; NULL, NULL: keys[0]/values[0]). */
void fl_radix_sort_record(const fl_radix_sort *sort, fl_rec *r, const fl_buffer *keys_in, const fl_buffer *values_in,
                          uint32_t count, uint32_t key_bits);
/* Passes a sort by key_bits bits takes: ceil(key_bits / FL_SORT_RADIX_BITS), at least 1. */
uint32_t fl_radix_sort_passes(uint32_t key_bits);
/* The buffer that holds the sorted keys after a sort by key_bits bits. */
const fl_buffer *fl_radix_sort_keys(const fl_radix_sort *sort, uint32_t key_bits);
/* The buffer that holds the values in key order after a sort by key_bits bits. */
const fl_buffer *fl_radix_sort_values(const fl_radix_sort *sort, uint32_t key_bits);
/* Bytes a sort of `count` pairs must move (histogram, scan and scatter of every pass), for GB/s. */
uint64_t fl_radix_sort_bytes(const fl_radix_sort *sort, uint32_t count, uint32_t key_bits);
