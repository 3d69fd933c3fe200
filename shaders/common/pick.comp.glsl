// common/pick.comp: the GPU ray pick, over any vec4 positions buffer. Pass 0
// finds the smallest distance t along the ray among particles within `radius`
// of it (atomicMin on the float's bits: t >= 0, so the bits order like the
// values); pass 1 writes the smallest index that has that t. Target k's
// result (k = index): result[2k] = t bits (0xFFFFFFFF: nothing hit),
// result[2k + 1] = index. Pinned particles (w = 0) are not grabbed.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) buffer Result { uint result[]; };
layout(push_constant) uniform Push { fl_pick_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i >= pc.count) return;
  vec4 p = pos[pc.first + i];
  if (p.w == 0.0) return;
  vec3 rel = p.xyz - pc.origin;
  float t = dot(rel, pc.direction);
  if (t < 0.0 || length(rel - t * pc.direction) > pc.radius) return;
  uint key = floatBitsToUint(t), r = 2u * pc.index;
  if (pc.pass == 0u) atomicMin(result[r], key);
  else if (key == result[r]) atomicMin(result[r + 1u], i);
}
