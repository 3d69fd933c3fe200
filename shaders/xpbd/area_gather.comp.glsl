// xpbd/area_gather.comp: the Jacobi particle pass of the triangle area constraints (xpbd/area_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GATHER
#include "area_family.glsl"
