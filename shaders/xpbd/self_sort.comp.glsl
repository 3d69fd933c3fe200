// xpbd/self_sort.comp: step 6 of the substep, before the particle contacts (xpbd/particle_contacts.glsl):
// the positions in the spatial hash's order, self_sorted[k] = (pos[sorted_index[k]].xyz, that index as
// the bits of w), so the contact passes read a cell's candidates contiguously, 16 bytes each, instead of
// an index and then a scattered 16-byte position. Valid for both contact passes: neither moves pos.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_SORTED) readonly buffer HashSorted { uint hash_sorted[]; };
layout(std430, binding = FL_XPBD_B_SELF_SORTED) writeonly buffer SelfSorted { vec4 self_sorted[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  uint j = hash_sorted[k];
  self_sorted[k] = vec4(pos[j].xyz, uintBitsToFloat(j));
}
