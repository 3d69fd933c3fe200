// xpbd/tet_lambda.comp: the tetrahedron constraints, Jacobi, the constraint pass
// (xpbd/tet_family.glsl).
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_FOUR_KERNEL FL_FOUR_LAMBDA
#include "tet_family.glsl"
