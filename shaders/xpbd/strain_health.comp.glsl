// xpbd/strain_health.comp: the health watch's strain test of the XPBD objects (src/sim/common/health.h):
// a distance constraint strained past max_strain, (L - L0) / L0 > max_strain, sets FL_HEALTH_STRETCHED
// in the flag word of its first particle's object (the report's max_strain is the same measure, over
// a cloth's stretch constraints). Under a load the solver cannot carry (a light cloth under a heavy
// snow pile, one iteration a substep) a sheet stretches without any particle moving fast enough for
// the speed test (docs/COUPLING.md, "The showcase's blow-up"). One thread per record, every object's
// in one pass; each bad record ors the bit in (only an unstable object has any).
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Distances { fl_gpu_distance distance[]; };
layout(std430, binding = 2) readonly buffer ObjectOf { uint object_of[]; };
layout(std430, binding = 3) readonly buffer Words { uint health_word[]; };  // per system object
layout(std430, binding = 4) buffer Flags { uint flags[]; };
layout(push_constant) uniform Push { fl_strain_health_push pc; };

void main()
{
  uint k = fl_thread_index();
  if (k >= pc.constraints) return;
  fl_gpu_distance c = distance[k];
  if (length(pos[c.i].xyz - pos[c.j].xyz) > (1.0 + pc.max_strain) * c.rest)
    atomicOr(flags[health_word[object_of[c.i]]], FL_HEALTH_STRETCHED);
}
