// xpbd/tet_family.glsl: the tetrahedron constraints (a Neo-Hookean record solves its two together) as a family of xpbd/four_point.glsl;
// tet_gs, tet_sweep, tet_lambda and tet_gather.comp each define FL_FOUR_KERNEL
// (and the sweep FL_GS_SWEEP) and include this.
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_tet
#define FL_FOUR_TET
#define FL_FOUR_EVAL fl_tet_eval
#include "four_point.glsl"
