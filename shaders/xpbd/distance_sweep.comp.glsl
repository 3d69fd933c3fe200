// xpbd/distance_sweep.comp: every colour of the distance constraints in one
// workgroup (xpbd/gs_sweep.glsl; the update is xpbd/distance_gs.glsl's).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_GS_SWEEP
#include "distance_gs.glsl"
