// xpbd/bend_gather.comp: the bending constraints, Jacobi, the particle pass
// (xpbd/bend_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GATHER
#include "bend_family.glsl"
