// xpbd/bend_lambda.comp: the bending constraints, Jacobi, the constraint pass
// (xpbd/bend_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "bend_family.glsl"
