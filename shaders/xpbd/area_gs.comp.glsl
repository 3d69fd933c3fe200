// xpbd/area_gs.comp: one colour of triangle area constraints, Gauss-Seidel (xpbd/area_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GS
#include "area_family.glsl"
