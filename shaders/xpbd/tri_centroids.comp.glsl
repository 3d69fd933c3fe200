// xpbd/tri_centroids.comp: the centroid of every triangle, the points the
// triangle hash is built over (triangle contacts, docs/CLOTH.md).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = FL_XPBD_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_XPBD_B_TRIANGLES) readonly buffer Triangles { uint tri[]; };
layout(std430, binding = FL_XPBD_B_CENTROID) writeonly buffer Centroids { vec4 centroids[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.triangle_count) return;
  vec3 a = pos[tri[3u * t]].xyz, b = pos[tri[3u * t + 1u]].xyz, c = pos[tri[3u * t + 2u]].xyz;
  centroids[t] = vec4((a + b + c) / 3.0, 0.0);
}
