// xpbd/distance_gs.comp: one colour of distance constraints a dispatch
// (pc.first: the colour's first constraint, pc.count: its count; the update
// and its modes are in xpbd/distance_gs.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "distance_gs.glsl"
