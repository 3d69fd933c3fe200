// common/vertex_normals.comp: a vertex normal is the normalized sum of the
// area-weighted normals of its faces, gathered through a CSR list built at
// load (no atomics, so it runs on every Vulkan 1.2 device).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Faces { vec4 face[]; };
layout(std430, binding = 1) readonly buffer Offsets { uint first[]; };  // vertices + 1
layout(std430, binding = 2) readonly buffer VertexFaces { uint faces[]; };
layout(std430, binding = 3) writeonly buffer Normals { vec4 normal[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint v = fl_thread_index();
  if (v >= pc.count) return;
  vec3 n = vec3(0.0);
  for (uint k = first[v]; k < first[v + 1u]; k++) n += face[faces[k]].xyz;
  float len = length(n);
  normal[v] = vec4(len > 0.0 ? n / len : vec3(0.0, 1.0, 0.0), 0.0);
}
