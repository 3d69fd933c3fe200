// xpbd/tet_sweep.comp: the tetrahedron constraints, every colour in one workgroup, Gauss-Seidel (xpbd/gs_sweep.glsl)
// (xpbd/tet_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_GS_SWEEP
#define FL_FOUR_KERNEL FL_FOUR_GS
#include "tet_family.glsl"
