// xpbd/tri_apply.glsl: the body of xpbd/tri_apply and xpbd/tri_apply_colliders (docs/CLOTH.md).
// Both apply the triangle contacts' averaged corrections, x += (accum.xyz / FL_TRI_FIXED) / accum.w,
// flag the particle's contact and clear its accumulator for the next pass. With
// FL_TRI_APPLY_COLLIDERS defined (xpbd/tri_apply_colliders, the last triangle-contact pass) the
// colliders and walls have priority: every particle with w > 0, moved or not, is then projected out of
// them with their friction, as xpbd/contacts does (xpbd/collide.glsl), and flagged if it touched one, so
// that the average of a collider's push with the pushes of the sheets above never leaves it inside.
// Include after #version and the extensions.
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#ifdef FL_TRI_APPLY_COLLIDERS
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
#include "sdf.glsl"
#include "collide.glsl"
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_LOAD) readonly buffer Load { vec4 load[]; };
#endif
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_ACCUM) buffer Accum { ivec4 accum[]; };

// The averaged correction of a particle with q.w > 0 contacts.
vec3 fl_tri_average(ivec4 q) { return (vec3(q.xyz) / FL_TRI_FIXED) / float(q.w); }

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  ivec4 q = accum[k];
#ifndef FL_TRI_APPLY_COLLIDERS
  if (q.w == 0) return;
  pos[k].xyz += fl_tri_average(q);
  contact[k] = 1u;
  accum[k] = ivec4(0);
#else
  vec4 p = pos[k];
  if (p.w == 0.0) return; // pinned: never accumulated (tri_accumulate.glsl), flagged 0 by xpbd/contacts
  bool moved = q.w != 0;
  vec3 x = p.xyz;
  if (moved) {
    x += fl_tri_average(q);
    accum[k] = ivec4(0);
  }
  fl_gpu_xpbd_object o = objects[object_of[k]];
  bool hit = fl_collide(x, prev[k].xyz, o, o.body != 0u ? load[k].xyz : vec3(0.0));
  if (moved || hit) {
    pos[k].xyz = x;
    contact[k] = 1u;
  }
#endif
}
