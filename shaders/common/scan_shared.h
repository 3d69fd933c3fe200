/* shaders/common/scan_shared.h: constants and push constants of the prefix
 * scan kernels (common/scan_reduce.comp, common/scan_block.comp), shared by C
 * (src/sim/common/scan.c) and GLSL.
 *
 * Workgroup size: the kernels take it from specialization constant 0 like
 * every kernel, but their shared arrays are sized for FL_SCAN_WORKGROUP
 * invocations, so the C side always asks fl_pipeline_compute for exactly
 * FL_SCAN_WORKGROUP (the device limit can only lower it) and reads the chosen
 * size back from fl_pipeline.workgroup_size. One workgroup scans a block of
 * workgroup_size x FL_SCAN_ITEMS elements: 4096 at 256 x 16, with about 1 KiB
 * of shared memory. 256 x 16 was the fastest on lavapipe of 256 x 8, 256 x 16,
 * 128 x 32 and 256 x 32 (docs/PERFORMANCE.md, "GPU primitives"). */
#ifndef FL_SCAN_SHARED_H
#define FL_SCAN_SHARED_H
#include "flurry_shared.h"

#define FL_SCAN_WORKGROUP 256 /* requested (and largest) workgroup size */
#define FL_SCAN_ITEMS 16      /* elements per invocation */

/* fl_scan_push.flags of common/scan_block.comp */
#define FL_SCAN_ADD_OFFSETS 1u /* add block_offsets[block] (the scanned block sums) */
#define FL_SCAN_WRITE_TOTAL 2u /* the last block writes the grand total to total[0] */

FL_STRUCT_BEGIN(fl_scan_push)
  uint count;   /* elements of this level */
  uint flags;   /* FL_SCAN_* */
  uint unused0, unused1;
FL_STRUCT_END(fl_scan_push)

#endif
