/* shaders/common/tear_shared.h: cloth tearing's constants, shared by C
 * (src/sim/xpbd/tear_gpu.c) and GLSL (xpbd/tear_flag.comp, xpbd/tear_split.comp).
 * Both kernels take fl_count_push (flurry_shared.h): count = constraints or splits. */
#ifndef FL_TEAR_SHARED_H
#define FL_TEAR_SHARED_H

/* The report of xpbd/tear_flag: a uvec4 header (x: how many constraints passed their
 * strain, possibly more than were written), then at most this many uvec4 records
 * (particle i, particle j, floatBitsToUint(strain), 0). */
#define FL_TEAR_MAX_REPORTS 64u
/* The splits one topology change may carry (xpbd/tear_split: uvec4 src, dst, floatBitsToUint(w), 0). */
#define FL_TEAR_MAX_SPLITS 16u

#endif
