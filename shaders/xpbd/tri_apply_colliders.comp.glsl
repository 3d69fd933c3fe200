// xpbd/tri_apply_colliders.comp: xpbd/tri_apply for the last triangle-contact
// pass, with the colliders' priority: then every particle is projected out of
// the colliders and walls (xpbd/tri_apply.glsl; docs/CLOTH.md "The colliders
// have priority").
#version 450
#extension GL_GOOGLE_include_directive : require
#define FL_TRI_APPLY_COLLIDERS
#include "tri_apply.glsl"
