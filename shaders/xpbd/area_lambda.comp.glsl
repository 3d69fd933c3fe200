// xpbd/area_lambda.comp: the Jacobi constraint pass of the triangle area constraints
// (docs/AREA.md; the kernel is xpbd/four_point.glsl with three particles).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_area
#define FL_FOUR_EVAL fl_area_eval
#define FL_FOUR_ARITY 3
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "four_point.glsl"
