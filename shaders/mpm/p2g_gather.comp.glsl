// mpm/p2g_gather.comp: the gathered P2G (mpm/p2g_gather.glsl) for any mix of materials.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "p2g_gather.glsl"
