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
#include "health_group.glsl"

void main()
{
  uint k = fl_thread_index();
  fl_health_group_begin();
  if (k < pc.count) fl_health_group_add(fl_health_bits(pos[pc.first + k].xyz, vel[pc.first + k].xyz, pc.max_speed));
  fl_health_group_end(pc.word);
}
