// xpbd/tear_split.comp: the state half of a cloth tear (sim/xpbd/tear.h), at the start of the frame
// after the CPU split a vertex: the new particle dst takes src's position, previous position, velocity
// and BDF2 history; both get the inverse mass w the CPU computed (each half of the vertex's mass).
// No particle is in two splits of one dispatch (tear_gpu.c).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "tear_shared.h"

layout(std430, binding = 0) buffer Pos { vec4 pos[]; };
layout(std430, binding = 1) buffer Prev { vec4 prev[]; };
layout(std430, binding = 2) buffer Vel { vec4 vel[]; };
layout(std430, binding = 3) buffer Older { vec4 older[]; };
layout(std430, binding = 4) buffer VelOld { vec4 vel_old[]; };
layout(std430, binding = 5) readonly buffer Splits { uvec4 splits[]; };
layout(push_constant) uniform Push { fl_count_push pc; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.count) return;
  uint src = splits[k].x, dst = splits[k].y;
  float w = uintBitsToFloat(splits[k].z);
  pos[dst] = vec4(pos[src].xyz, w);
  pos[src].w = w;
  prev[dst] = vec4(prev[src].xyz, w);
  prev[src].w = w;
  vel[dst] = vel[src];
  older[dst] = older[src];
  vel_old[dst] = vel_old[src];
}
