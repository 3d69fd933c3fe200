// mpm/permute.comp: dst[i * k + j] = src[order[i] * k + j] for j < k vec4s
// per element (push arg): one particle array into sorted order. One
// thread per vec4 of the output.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "mpm_shared.h"

layout(std430, binding = 0) readonly buffer Order { uint order[]; };
layout(std430, binding = 1) readonly buffer Source { vec4 src[]; };
layout(std430, binding = 2) writeonly buffer Destination { vec4 dst[]; };
layout(push_constant) uniform Push { fl_mpm_push pc; };

void main()
{
  uint t = fl_thread_index(), k = pc.arg;
  if (t >= pc.count * k) return;
  uint i = t / k, j = t - i * k;
  dst[t] = src[order[i] * k + j];
}
