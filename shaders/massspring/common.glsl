// massspring/common.glsl: the push constants and the buffers every
// per-particle mass-spring kernel reads (positions, velocities, spring lists).
#ifndef FL_MS_COMMON_GLSL
#define FL_MS_COMMON_GLSL
#include "compute.glsl"
#include "flurry_shared.h"
#include "buffers.glsl"
#include "spring.glsl"

layout(push_constant) uniform Push { fl_ms_push pc; };
layout(std430, binding = FL_MS_B_POS) readonly buffer Pos { vec4 pos[]; };
layout(std430, binding = FL_MS_B_FIRST) readonly buffer First { uint first[]; };
layout(std430, binding = FL_MS_B_LINKS) readonly buffer Links { uvec2 links[]; };

bool fl_ms_flag(uint flag) { return (pc.flags & flag) != 0u; }

// Link e of the particle at x: the spring's far end, unit direction (from x),
// length and rest length; false for a spring too short to have a direction,
// which every integrator skips (ms_spec.h).
struct fl_ms_spring_view {
  uint other;
  vec3 xhat;
  float len, rest;
};
bool fl_ms_spring_at(uint e, vec3 x, out fl_ms_spring_view s)
{
  fl_ms_link link = fl_ms_unpack_link(links[e]);
  vec3 d = pos[link.other].xyz - x;
  s.other = link.other;
  s.rest = link.rest;
  s.len = length(d);
  s.xhat = d / max(s.len, FL_MS_MIN_LENGTH);
  return s.len >= FL_MS_MIN_LENGTH;
}
#endif
