// common/health.comp: the health watch of one object whose particles are a
// range of a position and a velocity buffer: any particle that is not finite
// or faster than max_speed sets bits of the object's sticky flag word.
#version 450
#extension GL_GOOGLE_include_directive : require
#include "compute.glsl"
#include "flurry_shared.h"
#include "health.glsl"

layout(std430, binding = 0) readonly buffer Positions { vec4 pos[]; };
layout(std430, binding = 1) readonly buffer Velocities { vec4 vel[]; };
layout(std430, binding = 2) buffer Flags { uint flags[]; };
layout(push_constant) uniform Push { fl_health_push pc; };

shared uint s_bits;

void main()
{
  uint k = fl_thread_index();
  if (gl_LocalInvocationIndex == 0u) s_bits = 0u;
  barrier();
  if (k < pc.count) {
    uint p = pc.first + k;
    uint bits = fl_health_bits(pos[p].xyz, vel[p].xyz, pc.max_speed);
    if (bits != 0u) atomicOr(s_bits, bits);
  }
  barrier();
  if (gl_LocalInvocationIndex == 0u && s_bits != 0u) atomicOr(flags[pc.word], s_bits);
}
