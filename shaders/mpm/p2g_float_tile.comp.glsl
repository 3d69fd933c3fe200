// mpm/p2g_float_tile.comp: P2G through the workgroup's shared-memory tile, adding float bits by
// compare-and-swap (devices without shared-memory float atomics; mpm/p2g_float.glsl, mpm/p2g.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_P2G_TILED
#include "p2g_float.glsl"
