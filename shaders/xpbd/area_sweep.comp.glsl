// xpbd/area_sweep.comp: the triangle area constraints, every colour in one workgroup, Gauss-Seidel (xpbd/gs_sweep.glsl)
// (xpbd/area_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_GS_SWEEP
#define FL_FOUR_KERNEL FL_FOUR_GS
#include "area_family.glsl"
