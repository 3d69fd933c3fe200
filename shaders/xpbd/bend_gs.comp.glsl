// xpbd/bend_gs.comp: the bending constraints, one colour a dispatch, Gauss-Seidel
// (xpbd/bend_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GS
#include "bend_family.glsl"
