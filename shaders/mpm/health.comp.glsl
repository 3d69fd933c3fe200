// mpm/health.comp: the health watch of the snow system (src/sim/common/health.h).
// Snow objects share the particle buffers in an order the sort changes, so
// each particle's flag word is the first snow object's plus its material
// index (the second row of F_E carries it in w). A frame in which the sparse
// grid ran out of blocks (the snow stats' GRID_FULL) marks every snow object.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "mpm_shared.h"
#include "health.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) readonly buffer ElasticF { vec4 fe[]; };
layout(std430, binding = 3) buffer Flags { uint flags[]; };
layout(std430, binding = 4) readonly buffer SnowStats { uint snow_stats[]; };
layout(push_constant) uniform Push { fl_health_push pc; };

shared uint s_bits[FL_SNOW_MAX_MATERIALS];

void main()
{
  uint p = fl_thread_index();
  for (uint m = gl_LocalInvocationIndex; m < FL_SNOW_MAX_MATERIALS; m += gl_WorkGroupSize.x) s_bits[m] = 0u;
  barrier();
  if (p < pc.count) {
    uint bits = fl_health_bits(pos[p].xyz, vel[p].xyz, pc.max_speed);
    if (snow_stats[FL_SNOW_STAT_GRID_FULL] != 0u) bits |= FL_HEALTH_GRID_FULL;  // the sparse grid ran out of blocks
    uint material = min(uint(fe[3u * p + 1u].w), FL_SNOW_MAX_MATERIALS - 1u);
    if (bits != 0u) atomicOr(s_bits[material], bits);
  }
  barrier();
  for (uint m = gl_LocalInvocationIndex; m < FL_SNOW_MAX_MATERIALS; m += gl_WorkGroupSize.x)
    if (s_bits[m] != 0u) atomicOr(flags[pc.word + m], s_bits[m]);
}
