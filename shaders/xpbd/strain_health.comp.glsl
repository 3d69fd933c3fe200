// xpbd/strain_health.comp: the health watch's strain test of one XPBD object (src/sim/common/health.h):
// a distance constraint of the object (its first particle in the object's range) strained past
// max_strain, (L - L0) / L0 > max_strain, sets FL_HEALTH_STRETCHED in the object's flag word (the
// report's max_strain is the same measure, over the cloth's stretch constraints). Under a load
// the solver cannot carry (a light cloth under a heavy snow pile, one iteration a substep) a sheet
// stretches without any particle moving fast enough for the speed test (docs/COUPLING.md, "The
// showcase's blow-up"). One thread per record of the family, every object's.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Distances { fl_gpu_distance distance[]; };
layout(std430, binding = 2) buffer Flags { uint flags[]; };
layout(push_constant) uniform Push { fl_strain_health_push pc; };
#include "health_group.glsl"

void main()
{
  uint k = fl_thread_index();
  fl_health_group_begin();
  if (k < pc.constraints) {
    fl_gpu_distance c = distance[k];
    if (c.i - pc.first < pc.count && length(pos[c.i].xyz - pos[c.j].xyz) > (1.0 + pc.max_strain) * c.rest)
      fl_health_group_add(FL_HEALTH_STRETCHED);
  }
  fl_health_group_end(pc.word);
}
