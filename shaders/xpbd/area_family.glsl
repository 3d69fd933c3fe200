// xpbd/area_family.glsl: the triangle area constraints (docs/AREA.md) as a family of
// xpbd/four_point.glsl with three particles; area_gs, area_sweep, area_lambda and
// area_gather.comp each define FL_FOUR_KERNEL (and the sweep FL_GS_SWEEP) and include this.
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_area
#define FL_FOUR_EVAL fl_area_eval
#define FL_FOUR_ARITY 3
#include "four_point.glsl"
