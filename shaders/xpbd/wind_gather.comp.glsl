// xpbd/wind_gather.comp: a_k = w_k sum over the particle's triangles of f/3,
// gathered through the vertex-to-triangle CSR (no atomics).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_XPBD_B_ITEMS) readonly buffer Items { uint items[]; };
layout(std430, binding = FL_XPBD_B_FACE_FORCE) readonly buffer FaceForce { vec4 face_force[]; };
layout(std430, binding = FL_XPBD_B_ACCEL) writeonly buffer Accel { vec4 accel[]; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.particle_count) return;
  vec3 f = vec3(0.0);
  for (uint e = first[k]; e < first[k + 1u]; e++) f += face_force[items[e]].xyz;
  accel[k] = vec4(pos[k].w * f / 3.0, 0.0);
}
