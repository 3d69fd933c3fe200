// common/copy.comp: the bandwidth ceiling. Copies vec4s from one buffer to
// another; bench mode times it over buffers as large as the scene's so each
// pass's GB/s becomes a fraction of what this device streams in the same run.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Src { vec4 src[]; };
layout(std430, binding = 1) writeonly buffer Dst { vec4 dst[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint i = fl_thread_index();
  if (i < pc.count) dst[i] = src[i];
}
