/* shaders/common/reduce_shared.h: the push constants and flags of the
 * deterministic reduction kernels (common/reduce_sum.comp, reduce_dot.comp,
 * reduce_block.glsl), shared by C (src/sim/common/reduce.c) and GLSL. */
#ifndef FL_REDUCE_SHARED_H
#define FL_REDUCE_SHARED_H
#include "flurry_shared.h"

#define FL_REDUCE_FINAL 1u /* flags: the final level: write results[out_offset] */

FL_STRUCT_BEGIN(fl_reduce_push)
  uint count;      /* elements of this level */
  uint in_offset;  /* first float of the level in the partials (levels above 0) */
  uint out_offset; /* first float written: partials offset, or the slot on the final level */
  uint flags;      /* FL_REDUCE_FINAL */
FL_STRUCT_END(fl_reduce_push)

#endif
