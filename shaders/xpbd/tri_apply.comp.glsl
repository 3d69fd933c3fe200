// xpbd/tri_apply.comp: applies the triangle contacts' averaged corrections,
// x += (accum.xyz / FL_TRI_FIXED) / accum.w, flags the particle's contact and
// clears its accumulator for the next pass (xpbd/tri_apply.glsl; docs/CLOTH.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "tri_apply.glsl"
