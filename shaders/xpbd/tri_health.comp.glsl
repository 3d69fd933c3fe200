// xpbd/tri_health.comp: the health watch of the triangle contacts' candidate
// list (src/sim/common/health.h): once a substep found more candidate pairs
// than the list holds (tri_pair_args sets the head's sticky overflow word),
// the flag word of a triangle-colliding object gets
// FL_HEALTH_CONTACTS_FULL, so that the report names it. One thread.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer TriList { uint list_head[]; };  // tri_list.glsl's head
layout(std430, binding = 1) buffer Flags { uint flags[]; };
layout(push_constant) uniform Push { fl_health_push pc; };

void main()
{
  if (fl_thread_index() == 0u && list_head[FL_TRI_LIST_OVERFLOW] != 0u) atomicOr(flags[pc.word], FL_HEALTH_CONTACTS_FULL);
}
