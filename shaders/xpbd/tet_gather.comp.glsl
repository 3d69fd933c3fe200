// xpbd/tet_gather.comp: the tetrahedron constraints, Jacobi, the particle pass
// (xpbd/tet_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GATHER
#include "tet_family.glsl"
