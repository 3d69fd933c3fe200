/* shaders/common/sort_shared.h: constants and push constants of the radix
 * sort kernels (common/sort_histogram.comp, common/sort_scatter.comp), shared
 * by C (src/sim/common/radix_sort.c) and GLSL.
 *
 * Each pass sorts by FL_SORT_RADIX_BITS bits. The array is cut into tiles of
 * workgroup_size x FL_SORT_ITEMS elements (2048 at 128 x 16), one workgroup
 * per tile. The shared arrays are sized for FL_SORT_WORKGROUP invocations
 * (4.5 KiB at 128), so the C side asks fl_pipeline_compute for exactly that
 * (the device limit can only lower it) and reads the chosen size back.
 * Per-invocation digit counts are packed two to a uint (16 bits each), which
 * bounds a tile to 65535 elements. 128 x 16 and 64 x 32 were the fastest on
 * lavapipe of 256 x 8, 128 x 16, 256 x 16 and 64 x 32. */
#ifndef FL_SORT_SHARED_H
#define FL_SORT_SHARED_H
#include "flurry_shared.h"

#define FL_SORT_WORKGROUP 128 /* requested (and largest) workgroup size */
#define FL_SORT_ITEMS 16      /* consecutive elements per invocation */
#define FL_SORT_RADIX_BITS 4
#define FL_SORT_DIGITS 16     /* 1 << FL_SORT_RADIX_BITS */
/* Sorts of at most this many pairs run every pass in one workgroup
 * (common/sort_small.comp): one dispatch instead of three a pass. Its packed
 * 16-bit digit totals bound it to 65535. On lavapipe it beat the tiled passes
 * at every size up to 16384 (docs/PERFORMANCE.md, "hash/sort in one workgroup"). */
#define FL_SORT_SMALL_MAX 16384
/* sort_small's requested workgroup size (at most FL_SORT_WORKGROUP, the shared
 * arrays' size): 2304 pairs took 0.19-0.20 ms at 32 and 64, 0.28 at 128. */
#define FL_SORT_SMALL_WORKGROUP 64

FL_STRUCT_BEGIN(fl_sort_push)
  uint count;   /* elements */
  uint tiles;   /* workgroups of FL_SORT_ITEMS x workgroup size elements */
  uint shift;   /* of this pass's digit (bits) */
  uint key_bits; /* the sort's: the last pass's digit is narrower when key_bits % FL_SORT_RADIX_BITS != 0 */
FL_STRUCT_END(fl_sort_push)

#endif
