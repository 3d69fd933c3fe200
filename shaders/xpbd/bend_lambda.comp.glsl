// xpbd/bend_lambda.comp: Jacobi, constraint pass for bending constraints (the kernel is cloth/four_point.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_bend
#define FL_FOUR_EVAL fl_bend_eval
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "four_point.glsl"
