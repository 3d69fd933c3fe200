// mpm/p2g_fixed.comp: P2G straight into the sparse grid (mpm/p2g_fixed.glsl, mpm/p2g.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "p2g_fixed.glsl"
