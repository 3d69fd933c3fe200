// xpbd/velocity.comp: step 7: v = (x - prev) / h (Euler), or with BDF2
// v = (3/2 x - 2 prev + 1/2 older) / h (NOTES.md "BDF2 variant"); then point
// damping v *= max(0, 1 - damping h) for objects with the point model.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_PREV) readonly buffer Prev { vec4 prev[]; };
layout(std430, binding = FL_XPBD_B_VEL) writeonly buffer Vel { vec4 vel[]; };
layout(std430, binding = FL_XPBD_B_OBJECT) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = FL_XPBD_B_OBJECTS) readonly buffer Objects { fl_gpu_xpbd_object objects[]; };
layout(std430, binding = FL_XPBD_B_OLDER) readonly buffer Older { vec4 older[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  float h = pc.h;
  vec3 v = pc.integrator == FL_XPBD_BDF2 ? (1.5 * pos[k].xyz - 2.0 * prev[k].xyz + 0.5 * older[k].xyz) / h
                                         : (pos[k].xyz - prev[k].xyz) / h;
  fl_gpu_xpbd_object o = objects[object_of[k]];
  if (o.damping_model == FL_DAMPING_MODEL_POINT) v *= max(0.0, 1.0 - o.damping * h);
  vel[k] = vec4(v, 0.0);
}
