// common/face_normals.comp: area-weighted face normals, cross(x1 - x0, x2 - x0),
// one thread per triangle. vertex_normals.comp then sums them per vertex.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Indices { uint idx[]; };
layout(std430, binding = 2) writeonly buffer Faces { vec4 face[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  vec3 a = pos[idx[3u * t]].xyz, b = pos[idx[3u * t + 1u]].xyz, c = pos[idx[3u * t + 2u]].xyz;
  face[t] = vec4(cross(b - a, c - a), 0.0);
}
