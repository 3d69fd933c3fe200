// mpm/p2g_float_tile_shared.comp: P2G through the workgroup's shared-memory tile with shared-memory
// float atomic adds (shaderSharedFloat32AtomicAdd; mpm/p2g_float.glsl, mpm/p2g.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_P2G_TILED
#define FL_P2G_TILE_SHARED_FLOAT
#include "p2g_float.glsl"
