// xpbd/tri_apply.comp: applies the triangle contacts' averaged corrections,
// x += (accum.xyz / FL_TRI_FIXED) / accum.w, flags the particle's contact and
// clears its accumulator for the next pass (docs/CLOTH.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_ACCUM) buffer Accum { ivec4 accum[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  ivec4 q = accum[k];
  if (q.w == 0) return;
  pos[k].xyz += (vec3(q.xyz) / FL_TRI_FIXED) / float(q.w);
  contact[k] = 1u;
  accum[k] = ivec4(0);
}
