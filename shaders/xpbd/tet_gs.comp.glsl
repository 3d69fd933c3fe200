// xpbd/tet_gs.comp: the tetrahedron constraints, one colour a dispatch, Gauss-Seidel
// (xpbd/tet_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_GS
#include "tet_family.glsl"
