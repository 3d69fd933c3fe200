// mpm/p2g_float.comp: P2G straight into the sparse grid (mpm/p2g_float.glsl, mpm/p2g.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "p2g_float.glsl"
