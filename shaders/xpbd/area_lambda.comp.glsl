// xpbd/area_lambda.comp: the Jacobi constraint pass of the triangle area constraints (xpbd/area_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "area_family.glsl"
