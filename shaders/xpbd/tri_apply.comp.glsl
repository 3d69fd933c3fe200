// xpbd/tri_apply.comp: applies the triangle contacts' averaged corrections,
// x += (accum.xyz / FL_TRI_FIXED) / accum.w, flags the particle's contact and
// clears its accumulator for the next pass (docs/CLOTH.md). With
// pc.tri_apply_colliders (the last triangle-contact pass) the colliders and
// walls have priority: every particle is then projected out of them with their
// friction, as xpbd/contacts does (xpbd/collide.glsl), so that the average of a
// collider's push with the pushes of the sheets above never leaves it inside
// (and flagged when it touched one).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#define FL_COLLIDERS_BINDING FL_XPBD_B_COLLIDERS // the collider block (common/sdf.glsl)
#define FL_COLLIDER_TAIL_BINDING FL_XPBD_B_COLLIDER_TAIL
layout(push_constant) uniform Push { fl_xpbd_push pc; };
#include "sdf.glsl"
#include "collide.glsl"
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_LOAD) readonly buffer Load { vec4 load[]; };
layout(std430, binding = FL_XPBD_B_CONTACT) buffer Contact { uint contact[]; };
layout(std430, binding = FL_XPBD_B_ACCUM) buffer Accum { ivec4 accum[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  ivec4 q = accum[k];
  bool moved = q.w != 0, priority = pc.tri_apply_colliders != 0u;
  if (!moved && !priority) return;
  vec4 p = pos[k];
  if (p.w == 0.0) return; // pinned: never accumulated (tri_accumulate.glsl), flagged 0 by xpbd/contacts
  vec3 x = p.xyz;
  if (moved) {
    x += (vec3(q.xyz) / FL_TRI_FIXED) / float(q.w);
    accum[k] = ivec4(0);
  }
  bool hit = false;
  if (priority) {
    fl_gpu_xpbd_object o = objects[object_of[k]];
    hit = fl_collide(x, prev[k].xyz, o, o.body != 0u ? load[k].xyz : vec3(0.0));
  }
  if (moved || hit) {
    pos[k].xyz = x;
    contact[k] = 1u;
  }
}
