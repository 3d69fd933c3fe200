// xpbd/bend_family.glsl: the bending constraints as a family of xpbd/four_point.glsl;
// bend_gs, bend_sweep, bend_lambda and bend_gather.comp each define FL_FOUR_KERNEL
// (and the sweep FL_GS_SWEEP) and include this.
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_bend
#define FL_FOUR_EVAL fl_bend_eval
#include "four_point.glsl"
