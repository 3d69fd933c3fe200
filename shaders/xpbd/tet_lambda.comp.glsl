// xpbd/tet_lambda.comp: Jacobi, constraint pass for tetrahedron constraints (the kernel is cloth/four_point.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "constraints.glsl"
#define FL_FOUR_RECORD fl_gpu_tet
#define FL_FOUR_TET
#define FL_FOUR_EVAL fl_tet_eval
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "four_point.glsl"
