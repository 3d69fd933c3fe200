// xpbd/hier_prolong.comp: prolongation of hierarchical PBD (src/sim/xpbd/hierarchy.h):
// each particle of the next finer level that the coarse level does not hold
// moves by the bilinear interpolation of its coarse parents' corrections since
// the hierarchy started (x0: the positions after predict). Pinned particles
// (w = 0) stay. The parents are never targets of the same dispatch.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "hier_shared.h"
layout(push_constant) uniform Push { fl_xpbd_push pc; };
layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Start { vec4 x0[]; };
layout(std430, binding = 2) readonly buffer Records { fl_gpu_prolong rec[]; };

void main()
{
  uint t = fl_thread_index();
  if (t >= pc.count) return;
  fl_gpu_prolong p = rec[pc.first + t];
  vec4 x = pos[p.target];
  if (x.w == 0.0) return;
  vec3 dx = vec3(0.0);
  for (int k = 0; k < 4; k++) dx += p.weight[k] * (pos[p.parent[k]].xyz - x0[p.parent[k]].xyz);
  pos[p.target].xyz = x.xyz + dx;
}
