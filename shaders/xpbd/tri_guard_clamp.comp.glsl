// xpbd/tri_guard_clamp.comp: the contact guard's clamp (docs/CLOTH.md "The
// contact guard"), one thread a particle, after the last contact pass and
// before the velocity update (which then follows the clamped position): a
// particle of a triangle-colliding object that lies in some triangle and is not
// kinematic (w > 0) has its move d = x - prev scaled by
// lambda = min(1, its bound from tri_guard_bound, b / |d|), b = pc.tri_guard
// less FL_TRI_GUARD_ULPS float epsilons of its largest coordinate:
// x = prev + lambda d. pc.tri_guard is FL_TRI_GUARD_SHARE of the smallest
// listing radius, so that a pair left out of the list (farther apart than that
// at the start) cannot meet either. Resets the bound to +inf for the next substep.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };  // vertex -> triangles (CSR)
layout(std430, binding = FL_XPBD_B_DELTA) buffer Bound { uint bound[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  uint u = bound[k];
  if (u != 0x7F800000u) bound[k] = 0x7F800000u;
  fl_gpu_xpbd_object ob = objects[object_of[k]];
  if (ob.body == 0u && ob.self_collision != FL_SELF_TRIANGLES) return;  // takes no part (fl_tri_object_collides)
  if (first[k + 1u] == first[k]) return;                                 // in no triangle: a body's inside
  vec4 x = pos[k];
  if (!(x.w > 0.0)) return;  // pinned or kinematic
  vec3 p = prev[k].xyz, m = abs(p), d = x.xyz - p;
  float ulps = float(FL_TRI_GUARD_ULPS) * 1.1920929e-7 * max(max(m.x, m.y), m.z);
  float b = max(pc.tri_guard - ulps, 0.0), l2 = dot(d, d);
  float lambda = min(1.0, uintBitsToFloat(u));
  if (l2 > b * b) lambda = min(lambda, b / sqrt(l2));
  if (lambda < 1.0) pos[k].xyz = p + d * lambda;
}
